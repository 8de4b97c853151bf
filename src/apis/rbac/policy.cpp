#include "apis/rbac/policy.hpp"

#include "apis/core/defaulting.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::rbac {

namespace {

namespace cells = registry::cells;
using registry::TableContext;

constexpr std::string_view groupName = "rbac.authorization.k8s.io";

void validateSubject(const json::Value& s, const std::string& path, bool namespaced,
                     field::Causes& out) {
    std::string_view name = json::stringMember(s, "name");
    std::string_view kind = json::stringMember(s, "kind");
    std::string_view apiGroup = json::stringMember(s, "apiGroup");
    if (name.empty()) {
        out.push_back(field::required(field::child(path, "name")));
    }
    if (kind == "ServiceAccount") {
        if (!apiGroup.empty()) {
            out.push_back(field::notSupported(field::child(path, "apiGroup"), apiGroup, {""}));
        }
        if (!namespaced && json::stringMember(s, "namespace").empty()) {
            out.push_back(field::required(field::child(path, "namespace")));
        }
    } else if (kind == "User" || kind == "Group") {
        if (apiGroup != groupName) {
            out.push_back(field::notSupported(field::child(path, "apiGroup"), apiGroup,
                                              {std::string(groupName)}));
        }
    } else {
        out.push_back(field::notSupported(field::child(path, "kind"), kind,
                                          {"ServiceAccount", "User", "Group"}));
    }
}

// rbac.SubjectsStrings: the names of the subjects of one kind
// ("namespace/name" for service accounts), joined by ", ".
std::string subjects(const json::Value& obj, std::string_view kind) {
    std::string out;
    const json::Value* list = json::member(obj, "subjects");
    if (!list || !list->IsArray()) {
        return out;
    }
    for (const auto& s : list->GetArray()) {
        if (json::stringMember(s, "kind") != kind) {
            continue;
        }
        std::string name(json::stringMember(s, "name"));
        std::string_view ns = json::stringMember(s, "namespace");
        if (kind == "ServiceAccount" && !ns.empty()) {
            name = std::string(ns) + "/" + name;
        }
        out += out.empty() ? name : ", " + name;
    }
    return out;
}

}  // namespace

void validateRules(const json::Value& obj, bool namespaced, field::Causes& out) {
    const json::Value* rules = json::member(obj, "rules");
    if (!rules || !rules->IsArray()) {
        return;
    }
    for (size_t i = 0; i < rules->Size(); i++) {
        const json::Value& r = (*rules)[static_cast<rapidjson::SizeType>(i)];
        std::string path = field::index("rules", i);
        if (cells::count(json::member(r, "verbs")) == 0) {
            out.push_back(field::required(field::child(path, "verbs"),
                                          "verbs must contain at least one value"));
        }
        const json::Value* urls = json::member(r, "nonResourceURLs");
        if (cells::count(urls) > 0) {
            std::string text = "[]string{";
            for (size_t j = 0; j < urls->Size(); j++) {
                text += (j ? ", " : "") + registry::validation::goQuote(json::view(
                                              (*urls)[static_cast<rapidjson::SizeType>(j)]));
            }
            field::BadValue value = field::BadValue::raw(text + "}");
            std::string urlPath = field::child(path, "nonResourceURLs");
            if (namespaced) {
                out.push_back(field::invalid(urlPath, value,
                                             "namespaced rules cannot apply to non-resource URLs"));
            }
            if (cells::count(json::member(r, "apiGroups")) > 0 ||
                cells::count(json::member(r, "resources")) > 0 ||
                cells::count(json::member(r, "resourceNames")) > 0) {
                out.push_back(field::invalid(
                    urlPath, value,
                    "rules cannot apply to both regular resources and non-resource URLs"));
            }
            continue;
        }
        if (cells::count(json::member(r, "apiGroups")) == 0) {
            out.push_back(field::required(field::child(path, "apiGroups"),
                                          "resource rules must supply at least one api group"));
        }
        if (cells::count(json::member(r, "resources")) == 0) {
            out.push_back(field::required(field::child(path, "resources"),
                                          "resource rules must supply at least one resource"));
        }
    }
}

void defaultBinding(json::Value& obj, json::Allocator& a) {
    json::Value& roleRef = core::defaulting::ensureObject(obj, "roleRef", a);
    core::defaulting::setString(roleRef, "apiGroup", groupName, a);
    core::defaulting::forEachElement(obj, "subjects", [&](json::Value& s) {
        std::string_view kind = json::stringMember(s, "kind");
        if (kind == "User" || kind == "Group") {
            core::defaulting::setString(s, "apiGroup", groupName, a);
        }
    });
}

void validateBinding(const json::Value& obj, bool namespaced, field::Causes& out) {
    std::string_view apiGroup = cells::text(obj, {"roleRef", "apiGroup"});
    if (apiGroup != groupName) {
        out.push_back(field::notSupported("roleRef.apiGroup", apiGroup, {std::string(groupName)}));
    }
    std::string_view kind = cells::text(obj, {"roleRef", "kind"});
    if (namespaced && kind != "Role" && kind != "ClusterRole") {
        out.push_back(field::notSupported("roleRef.kind", kind, {"Role", "ClusterRole"}));
    } else if (!namespaced && kind != "ClusterRole") {
        out.push_back(field::notSupported("roleRef.kind", kind, {"ClusterRole"}));
    }
    std::string_view name = cells::text(obj, {"roleRef", "name"});
    if (name.empty()) {
        out.push_back(field::required("roleRef.name"));
    }
    for (const std::string& msg : registry::validation::isValidPathSegmentName(name)) {
        out.push_back(field::invalid("roleRef.name", name, msg));
    }
    const json::Value* list = json::member(obj, "subjects");
    if (list && list->IsArray()) {
        for (size_t i = 0; i < list->Size(); i++) {
            validateSubject((*list)[static_cast<rapidjson::SizeType>(i)],
                            field::index("subjects", i), namespaced, out);
        }
    }
}

std::vector<registry::TableColumn> bindingColumns(std::string_view kind) {
    std::string owner(kind);
    auto subjectColumn = [&](const char* name, std::string_view subjectKind) {
        return cells::textColumn(
            name, "string", std::string(name) + " in the " + owner,
            [subjectKind](const json::Value& obj, const TableContext&) {
                return subjects(obj, subjectKind);
            },
            1);
    };
    return {
        cells::nameColumn(),
        cells::textColumn("Role", "string", "The role the subjects are bound to.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"roleRef", "kind"})) + "/" +
                                     std::string(cells::text(obj, {"roleRef", "name"}));
                          }),
        cells::ageColumn(),
        subjectColumn("Users", "User"),
        subjectColumn("Groups", "Group"),
        subjectColumn("ServiceAccounts", "ServiceAccount"),
    };
}

}  // namespace kube::apis::rbac
