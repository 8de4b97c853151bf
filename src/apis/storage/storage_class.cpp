#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/storage/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::storage {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;

// maxProvisionerParameterLen and maxProvisionerParameterSize.
constexpr size_t kMaxParameters = 512;
constexpr int64_t kMaxParameterBytes = 256 * 1024;

// Mirrors SetDefaults_StorageClass.
void defaultStorageClass(json::Value& obj, json::Allocator& a) {
    defaulting::setString(obj, "reclaimPolicy", "Delete", a);
    defaulting::setString(obj, "volumeBindingMode", "Immediate", a);
}

std::string lowered(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

// validateProvisioner: required, a qualified name once lowercased (the
// lowercased value is the one shown).
void validateProvisioner(const json::Value& obj, field::Causes& out) {
    std::string_view provisioner = cells::text(obj, {"provisioner"});
    if (provisioner.empty()) {
        out.push_back(field::required("provisioner"));
        return;
    }
    std::string lower = lowered(provisioner);
    for (const std::string& msg : registry::validation::isQualifiedName(lower)) {
        out.push_back(field::invalid("provisioner", lower, msg));
    }
}

// validateParameters: at most 512 keys, none empty, 256 KiB in all.
void validateParameters(const json::Value& obj, field::Causes& out) {
    const json::Value* params = json::member(obj, "parameters");
    if (!params || !params->IsObject()) {
        return;
    }
    if (params->MemberCount() > kMaxParameters) {
        out.push_back(field::tooLong("parameters", kMaxParameters));
        return;
    }
    int64_t total = 0;
    for (const auto& m : params->GetObject()) {
        if (m.name.GetStringLength() == 0) {
            out.push_back(field::invalid("parameters", "", "field can not be empty."));
        }
        total += m.name.GetStringLength() + (m.value.IsString() ? m.value.GetStringLength() : 0);
    }
    if (total > kMaxParameterBytes) {
        out.push_back(field::tooLong("parameters", kMaxParameterBytes));
    }
}

// Mirrors ValidateTopologySelectorTerm for one term: each requirement has
// values, no value twice, a label-name key, and no key twice. Returns the
// term's key -> values map, which the caller compares across terms.
std::map<std::string, std::set<std::string>> validateTopologyTerm(const json::Value& term,
                                                                  const std::string& path,
                                                                  field::Causes& out) {
    std::map<std::string, std::set<std::string>> exprs;
    const json::Value* reqs = json::member(term, "matchLabelExpressions");
    if (!reqs || !reqs->IsArray()) {
        return exprs;
    }
    std::string exprPath = field::child(path, "matchLabelExpressions");
    for (size_t i = 0; i < reqs->Size(); i++) {
        const json::Value& req = (*reqs)[static_cast<rapidjson::SizeType>(i)];
        std::string idx = field::index(exprPath, i);
        std::string valuesPath = field::child(idx, "values");
        std::set<std::string> values;
        const json::Value* list = json::member(req, "values");
        if (!list || !list->IsArray() || list->Empty()) {
            out.push_back(field::required(valuesPath));
        }
        if (list && list->IsArray()) {
            for (size_t j = 0; j < list->Size(); j++) {
                std::string v(json::view((*list)[static_cast<rapidjson::SizeType>(j)]));
                if (!values.insert(v).second) {
                    out.push_back(field::duplicate(field::index(valuesPath, j), v));
                }
            }
        }
        std::string key(cells::text(req, {"key"}));
        for (const std::string& msg : registry::validation::isQualifiedName(key)) {
            out.push_back(field::invalid(field::child(idx, "key"), key, msg));
        }
        if (exprs.count(key)) {
            out.push_back(field::duplicate(field::child(idx, "key"), key));
        }
        exprs[key] = std::move(values);
    }
    return exprs;
}

// validateAllowedTopologies. kube compares each term with the ones before it
// in a list that starts with one empty entry per term, so a term without
// requirements is reported once per term and once per earlier empty term.
void validateAllowedTopologies(const json::Value& obj, field::Causes& out) {
    const json::Value* terms = json::member(obj, "allowedTopologies");
    if (!terms || !terms->IsArray() || terms->Empty()) {
        return;
    }
    std::vector<std::map<std::string, std::set<std::string>>> seen(terms->Size());
    for (size_t i = 0; i < terms->Size(); i++) {
        std::string idx = field::index("allowedTopologies", i);
        auto exprs = validateTopologyTerm((*terms)[static_cast<rapidjson::SizeType>(i)], idx, out);
        for (const auto& earlier : seen) {
            if (earlier == exprs) {
                out.push_back(field::duplicate(field::child(idx, "matchLabelExpressions"), ""));
            }
        }
        seen.push_back(std::move(exprs));
    }
}

// Mirrors ValidateStorageClass (the metadata checks are the store's).
field::Causes validateStorageClass(const json::Value& obj) {
    field::Causes out;
    validateProvisioner(obj, out);
    validateParameters(obj, out);
    const json::Value* reclaim = json::member(obj, "reclaimPolicy");
    if (reclaim && reclaim->IsString() && reclaim->GetStringLength() > 0) {
        field::validateEnum(reclaim, "reclaimPolicy", {"Delete", "Retain"}, out);
    }
    const json::Value* mode = json::member(obj, "volumeBindingMode");
    if (!mode || mode->IsNull()) {
        out.push_back(field::required("volumeBindingMode"));
    } else {
        field::validateEnum(mode, "volumeBindingMode", {"Immediate", "WaitForFirstConsumer"}, out);
    }
    validateAllowedTopologies(obj, out);
    return out;
}

// Mirrors the strategy's ValidateUpdate: the object's checks, then
// ValidateStorageClassUpdate's fields that may not change.
field::Causes validateStorageClassUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateStorageClass(obj);
    const json::Value* params = json::member(obj, "parameters");
    const json::Value* oldParams = json::member(old, "parameters");
    bool empty = !params || !params->IsObject() || params->ObjectEmpty();
    bool oldEmpty = !oldParams || !oldParams->IsObject() || oldParams->ObjectEmpty();
    if (empty != oldEmpty || (!empty && *params != *oldParams)) {
        out.push_back(field::forbidden("parameters", "updates to parameters are forbidden."));
    }
    if (cells::text(obj, {"provisioner"}) != cells::text(old, {"provisioner"})) {
        out.push_back(field::forbidden("provisioner", "updates to provisioner are forbidden."));
    }
    if (cells::text(obj, {"reclaimPolicy"}) != cells::text(old, {"reclaimPolicy"})) {
        out.push_back(field::forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
    }
    if (!field::sameMember(obj, old, "volumeBindingMode")) {
        const json::Value* mode = json::member(obj, "volumeBindingMode");
        out.push_back(field::invalid("volumeBindingMode",
                                     mode ? field::BadValue(*mode) : field::BadValue::null(),
                                     "field is immutable"));
    }
    return out;
}

std::string textOr(const json::Value& obj, std::string_view member, std::string_view fallback) {
    std::string_view v = cells::text(obj, {member});
    return std::string(v.empty() ? fallback : v);
}

}  // namespace

registry::KindInfo storageClassKind() {
    registry::KindInfo k;
    k.group = "storage.k8s.io";
    k.version = "v1";
    k.kind = "StorageClass";
    k.resource = "storageclasses";
    k.singular = "storageclass";
    k.namespaced = false;
    k.shortNames = {"sc"};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Provisioner", "string", "The provisioner that makes the volumes.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"provisioner"}));
                          }),
        cells::textColumn("ReclaimPolicy", "string",
                          "What happens to a provisioned volume when its claim is released.",
                          [](const json::Value& obj, const TableContext&) {
                              return textOr(obj, "reclaimPolicy", "Delete");
                          }),
        cells::textColumn("VolumeBindingMode", "string",
                          "When claims of the class are bound and provisioned.",
                          [](const json::Value& obj, const TableContext&) {
                              return textOr(obj, "volumeBindingMode", "Immediate");
                          }),
        // kube declares it a string and fills it with a boolean.
        registry::TableColumn{"AllowVolumeExpansion", "string", "",
                              "Whether claims of the class may grow.", 0,
                              [](const json::Value& obj, const TableContext&, json::Allocator&) {
                                  return json::Value(cells::isTrue(obj, {"allowVolumeExpansion"}));
                              }},
        cells::ageColumn(),
    };
    k.defaults = defaultStorageClass;
    k.validate = validateStorageClass;
    k.validateUpdate = validateStorageClassUpdate;
    return k;
}

}  // namespace kube::apis::storage
