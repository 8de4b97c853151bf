#include "controller/apiextensions/naming.hpp"

#include <optional>
#include <set>
#include <string>

#include "apis/apiextensions/crd_conditions.hpp"

namespace kube::controller::apiextensions {

namespace json = util::json;
namespace ext = apis::apiextensions;

namespace {

// CustomResourceDefinitionNames, as Go compares it (an empty list is none).
struct Names {
    std::string plural;
    std::string singular;
    std::vector<std::string> shortNames;
    std::string kind;
    std::string listKind;
    std::vector<std::string> categories;

    bool operator==(const Names&) const = default;
};

std::vector<std::string> strings(const json::Value& v, std::string_view name) {
    std::vector<std::string> out;
    const json::Value* list = json::member(v, name);
    if (list && list->IsArray()) {
        for (const json::Value& s : list->GetArray()) {
            if (s.IsString()) {
                out.emplace_back(json::view(s));
            }
        }
    }
    return out;
}

Names namesAt(const json::Value& crd, std::initializer_list<std::string_view> path) {
    Names n;
    const json::Value* v = json::at(crd, path);
    if (!v || !v->IsObject()) {
        return n;
    }
    n.plural = json::stringMember(*v, "plural");
    n.singular = json::stringMember(*v, "singular");
    n.shortNames = strings(*v, "shortNames");
    n.kind = json::stringMember(*v, "kind");
    n.listKind = json::stringMember(*v, "listKind");
    n.categories = strings(*v, "categories");
    return n;
}

json::Value stringArray(const std::vector<std::string>& v, json::Allocator& a) {
    json::Value out(rapidjson::kArrayType);
    for (const std::string& s : v) {
        out.PushBack(json::stringValue(s, a), a);
    }
    return out;
}

// Go's field order and omitempty of CustomResourceDefinitionNames.
json::Value namesValue(const Names& n, json::Allocator& a) {
    json::Value v(rapidjson::kObjectType);
    v.AddMember("plural", json::stringValue(n.plural, a), a);
    if (!n.singular.empty()) {
        v.AddMember("singular", json::stringValue(n.singular, a), a);
    }
    if (!n.shortNames.empty()) {
        v.AddMember("shortNames", stringArray(n.shortNames, a), a);
    }
    v.AddMember("kind", json::stringValue(n.kind, a), a);
    if (!n.listKind.empty()) {
        v.AddMember("listKind", json::stringValue(n.listKind, a), a);
    }
    if (!n.categories.empty()) {
        v.AddMember("categories", stringArray(n.categories, a), a);
    }
    return v;
}

// equalToAcceptedOrFresh: the error message, if `requested` is taken.
std::optional<std::string> taken(const std::string& requested, const std::string& accepted,
                                 const std::set<std::string>& used) {
    if (requested == accepted || !used.count(requested)) {
        return std::nullopt;
    }
    return "\"" + requested + "\" is already in use";
}

}  // namespace

bool updateAcceptedNames(json::Document& crd, const std::vector<const json::Value*>& group,
                         std::chrono::system_clock::time_point now) {
    Names requested = namesAt(crd, {"spec", "names"});
    Names accepted = namesAt(crd, {"status", "acceptedNames"});
    if (requested == accepted) {
        return false;
    }
    std::set<std::string> resources;
    std::set<std::string> kinds;
    for (const json::Value* other : group) {
        Names n = namesAt(*other, {"status", "acceptedNames"});
        resources.insert(n.plural);
        resources.insert(n.singular);
        resources.insert(n.shortNames.begin(), n.shortNames.end());
        kinds.insert(n.kind);
        kinds.insert(n.listKind);
    }
    ext::CrdCondition names{"NamesAccepted", "Unknown", "", ""};
    auto refuse = [&names](std::string reason, std::string message) {
        names.status = "False";
        names.reason = std::move(reason);
        names.message = std::move(message);
    };
    Names next = accepted;
    if (auto err = taken(requested.plural, accepted.plural, resources)) {
        refuse("PluralConflict", *err);
    } else {
        next.plural = requested.plural;
    }
    if (auto err = taken(requested.singular, accepted.singular, resources)) {
        refuse("SingularConflict", *err);
    } else {
        next.singular = requested.singular;
    }
    if (requested.shortNames != accepted.shortNames) {
        std::vector<std::string> errors;
        std::set<std::string> ours(accepted.shortNames.begin(), accepted.shortNames.end());
        for (const std::string& s : requested.shortNames) {
            if (ours.count(s) || s == accepted.plural || s == accepted.singular) {
                continue;
            }
            if (auto err = taken(s, "", resources)) {
                errors.push_back(*err);
            }
        }
        if (!errors.empty()) {
            // utilerrors.NewAggregate's message: one error as it is, more in brackets.
            std::string message = errors.size() == 1 ? errors[0] : "[";
            for (size_t i = 0; errors.size() > 1 && i < errors.size(); i++) {
                message += (i ? ", " : "") + errors[i];
            }
            if (errors.size() > 1) {
                message += "]";
            }
            refuse("ShortNamesConflict", message);
        } else {
            next.shortNames = requested.shortNames;
        }
    }
    if (auto err = taken(requested.kind, accepted.kind, kinds)) {
        refuse("KindConflict", *err);
    } else {
        next.kind = requested.kind;
    }
    if (auto err = taken(requested.listKind, accepted.listKind, kinds)) {
        refuse("ListKindConflict", *err);
    } else {
        next.listKind = requested.listKind;
    }
    next.categories = requested.categories;
    if (names.status == "Unknown") {
        names = {"NamesAccepted", "True", "NoConflicts", "no conflicts found"};
    }
    ext::CrdCondition established{"Established", "False", "NotAccepted",
                                  "not all names are accepted"};
    if (const json::Value* old = ext::findCondition(crd, "Established")) {
        established = {"Established", std::string(json::stringMember(*old, "status")),
                       std::string(json::stringMember(*old, "reason")),
                       std::string(json::stringMember(*old, "message"))};
    }
    if (established.status != "True" && names.status == "True") {
        established = {"Established", "False", "Installing",
                       "the initial names have been accepted"};
    }
    if (next == accepted && ext::conditionEquivalent(crd, names)) {
        return false;
    }
    auto& a = crd.GetAllocator();
    json::Value* status = json::member(crd, "status");
    if (!status || !status->IsObject()) {
        json::setMember(crd, "status", json::Value(rapidjson::kObjectType), a);
        status = json::member(crd, "status");
    }
    json::setMember(*status, "acceptedNames", namesValue(next, a), a);
    ext::setCondition(crd, names, now, a);
    ext::setCondition(crd, established, now, a);
    return true;
}

bool establish(json::Document& crd, std::chrono::system_clock::time_point now) {
    if (!ext::isConditionTrue(crd, "NamesAccepted") || ext::isConditionTrue(crd, "Established")) {
        return false;
    }
    ext::setCondition(
        crd,
        {"Established", "True", "InitialNamesAccepted", "the initial names have been accepted"},
        now, crd.GetAllocator());
    return true;
}

}  // namespace kube::controller::apiextensions
