#include "apis/apiextensions/custom_resource_kind.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "apis/apiextensions/custom_resource_schema_hooks.hpp"
#include "apis/apiextensions/json_members.hpp"
#include "apis/apiextensions/printer_columns.hpp"
#include "registry/scale.hpp"
#include "registry/status_strategy.hpp"

namespace kube::apis::apiextensions {

namespace {

namespace json = util::json;

// kube's custom resource verbs, in the order its discovery lists them.
const std::vector<std::string> kVerbs = {"delete", "deletecollection", "get",    "list",
                                         "patch",  "create",           "update", "watch"};

std::vector<std::string> stringList(const json::Value* v, std::string_view name) {
    std::vector<std::string> out;
    if (const json::Value* list = arrayAt(v, name)) {
        for (const json::Value& s : list->GetArray()) {
            if (s.IsString()) {
                out.emplace_back(json::view(s));
            }
        }
    }
    return out;
}

// ".spec.replicas" as the field names on the way; kube's parseScalePath.
std::vector<std::string> scalePath(std::string_view path) {
    std::vector<std::string> out;
    if (path.starts_with('.')) {
        path.remove_prefix(1);
    }
    while (!path.empty()) {
        size_t dot = path.find('.');
        out.emplace_back(path.substr(0, dot));
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    }
    return out;
}

// The members of a custom resource other than its metadata differ
// (customResourceStrategy's copyNonMetadata comparison).
bool nonMetadataChanged(const json::Value& obj, const json::Value& old) {
    auto count = [](const json::Value& v) {
        size_t n = 0;
        for (const auto& m : v.GetObject()) {
            n += json::view(m.name) != "metadata";
        }
        return n;
    };
    if (!obj.IsObject() || !old.IsObject() || count(obj) != count(old)) {
        return true;
    }
    for (const auto& m : old.GetObject()) {
        if (json::view(m.name) == "metadata") {
            continue;
        }
        const json::Value* now = json::member(obj, json::view(m.name));
        if (!now || *now != m.value) {
            return true;
        }
    }
    return false;
}

int64_t generationOf(const json::Value& obj) {
    const json::Value* g = json::at(obj, {"metadata", "generation"});
    return g && g->IsInt64() ? g->GetInt64() : 0;
}

// Mirrors the status strategy's PrepareForUpdate: the stored object with the
// request's status (none if it sent none) and managedFields.
void keepAllButStatus(json::Value& obj, const json::Value& old,
                      const registry::StatusUpdateContext&, json::Allocator& a) {
    const json::Value* oldMeta = json::member(old, "metadata");
    json::Value* metadata = json::member(obj, "metadata");
    if (!oldMeta || !oldMeta->IsObject() || !metadata || !metadata->IsObject()) {
        return;
    }
    std::optional<json::Value> managed;
    if (const json::Value* m = json::member(*metadata, "managedFields")) {
        managed.emplace(*m, a);
    }
    json::Value kept(*oldMeta, a);
    json::removeMember(kept, "resourceVersion");
    json::removeMember(kept, "managedFields");
    if (managed) {
        kept.AddMember("managedFields", std::move(*managed), a);
    }
    *metadata = std::move(kept);
}

struct KubeVersion {
    int major = 0;
    int stability = 0;  // 2 GA, 1 beta, 0 alpha
    int minor = 0;
};

std::optional<int> number(std::string_view s) {
    int n = 0;
    if (s.empty() || s.size() > 9 || s[0] == '0') {
        return std::nullopt;
    }
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return n;
}

// "v<major>", "v<major>alpha<minor>", "v<major>beta<minor>".
std::optional<KubeVersion> kubeVersion(std::string_view v) {
    if (!v.starts_with('v')) {
        return std::nullopt;
    }
    v.remove_prefix(1);
    size_t digits = 0;
    while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9') {
        digits++;
    }
    std::optional<int> major = number(v.substr(0, digits));
    if (!major) {
        return std::nullopt;
    }
    std::string_view rest = v.substr(digits);
    if (rest.empty()) {
        return KubeVersion{*major, 2, 0};
    }
    for (auto [word, stability] : {std::pair<std::string_view, int>{"alpha", 0}, {"beta", 1}}) {
        if (rest.starts_with(word)) {
            if (std::optional<int> minor = number(rest.substr(word.size()))) {
                return KubeVersion{*major, stability, *minor};
            }
        }
    }
    return std::nullopt;
}

}  // namespace

int compareKubeAwareVersions(std::string_view a, std::string_view b) {
    std::optional<KubeVersion> va = kubeVersion(a);
    std::optional<KubeVersion> vb = kubeVersion(b);
    if (va && vb) {
        if (va->stability != vb->stability) {
            return va->stability > vb->stability ? -1 : 1;
        }
        if (va->major != vb->major) {
            return va->major > vb->major ? -1 : 1;
        }
        if (va->minor != vb->minor) {
            return va->minor > vb->minor ? -1 : 1;
        }
        return 0;
    }
    if (va || vb) {
        return va ? -1 : 1;
    }
    return a.compare(b);
}

namespace {

const json::Value* openAPIV3SchemaOf(const json::Value& v) {
    return objectAt(objectAt(v, "schema"), "openAPIV3Schema");
}

// The compiled schemas of a definition's versions: one per distinct
// openAPIV3Schema (versions with the same schema share it), compiled once.
struct DefinitionSchemas {
    std::vector<std::pair<const json::Value*, std::shared_ptr<const StructuralSchema>>> compiled;
    StoredSchemas stored;

    std::shared_ptr<const StructuralSchema> of(const json::Value& v) {
        const json::Value* schema = openAPIV3SchemaOf(v);
        if (!schema) {
            return nullptr;
        }
        for (const auto& [known, structural] : compiled) {
            if (*known == *schema) {
                return structural;
            }
        }
        compiled.emplace_back(schema, compileStructuralSchema(*schema));
        return compiled.back().second;
    }
};

// `crd`'s schemas for its kinds: the storage version's, and whether its
// objects written since its last change are as reads leave them (every
// served version, which a write may come through, has the storage
// version's schema).
DefinitionSchemas definitionSchemas(const json::Value& crd, const json::Value* versions,
                                    const std::string& storageVersion) {
    DefinitionSchemas d;
    for (const json::Value& v : versions->GetArray()) {
        if (text(v, "name") == storageVersion) {
            d.stored.storage = d.of(v);
        }
    }
    bool uniform = d.stored.storage != nullptr;
    for (const json::Value& v : versions->GetArray()) {
        if (isTrue(v, "served") && d.of(v) != d.stored.storage) {
            uniform = false;
        }
    }
    std::string_view rv = text(objectAt(crd, "metadata"), "resourceVersion");
    storage::Revision revision = 0;
    auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), revision);
    if (uniform && !rv.empty() && ec == std::errc() && end == rv.data() + rv.size()) {
        d.stored.settledAfter = revision;
    }
    return d;
}

// The kind of version `v` of `crd` under its accepted names.
registry::KindInfo kindOf(const std::shared_ptr<const json::Document>& crd, const json::Value& v,
                          const std::string& storage, DefinitionSchemas& schemas) {
    const json::Value* spec = objectAt(*crd, "spec");
    const json::Value* accepted = objectAt(objectAt(*crd, "status"), "acceptedNames");
    registry::KindInfo k;
    k.group = std::string(text(spec, "group"));
    k.version = std::string(text(v, "name"));
    k.storageVersion = storage;
    k.kind = std::string(text(accepted, "kind"));
    if (std::string_view list = text(accepted, "listKind"); !list.empty()) {
        k.listKindName = std::string(list);
    }
    k.resource = std::string(text(accepted, "plural"));
    k.singular = std::string(text(accepted, "singular"));
    k.namespaced = text(spec, "scope") != "Cluster";
    k.shortNames = stringList(accepted, "shortNames");
    k.categories = stringList(accepted, "categories");
    k.verbs = kVerbs;
    k.nameRule = registry::NameRule::DNS1123Subdomain;
    k.gcPolicy = registry::GarbageCollectionPolicy::DeleteDependents;
    const json::Value* subresources = objectAt(v, "subresources");
    if (objectAt(subresources, "status")) {
        k.subresources.push_back(registry::statusSubresource());
        // The status is the status subresource's to write.
        k.prepareForCreate = [](json::Value& obj, json::Allocator&) {
            json::removeMember(obj, "status");
        };
        k.prepareForStatusUpdate = keepAllButStatus;
        // The store keeps the stored status on other writes; what else
        // changes moves the generation.
        k.tracksGeneration = true;
    } else {
        k.prepareForCreate = [](json::Value& obj, json::Allocator& a) {
            if (json::Value* m = json::member(obj, "metadata"); m && m->IsObject()) {
                json::setMember(*m, "generation", json::Value(1), a);
            }
        };
        k.prepareForUpdate = [](json::Value& obj, const json::Value& old, json::Allocator& a) {
            json::Value* m = json::member(obj, "metadata");
            if (m && m->IsObject() && nonMetadataChanged(obj, old)) {
                json::setMember(*m, "generation", json::Value(generationOf(old) + 1), a);
            }
        };
    }
    if (const json::Value* scale = objectAt(subresources, "scale")) {
        registry::ScalePaths paths;
        paths.specReplicasPath = std::string(text(scale, "specReplicasPath"));
        paths.specReplicas = scalePath(paths.specReplicasPath);
        paths.statusReplicas = scalePath(text(scale, "statusReplicasPath"));
        paths.labelSelector = scalePath(text(scale, "labelSelectorPath"));
        paths.selectorForm = registry::ScalePaths::SelectorForm::Text;
        k.subresources.push_back(registry::scaleSubresource(std::move(paths)));
    }
    auto ref = std::make_shared<registry::CustomResourceDefinitionRef>();
    ref->crd = crd;
    ref->version = &v;
    ref->openAPIV3Schema = openAPIV3SchemaOf(v);
    // kube converts between versions with the webhook (conversion from a
    // version to itself never calls it); this server makes no outbound call.
    ref->conversionUnavailable =
        text(objectAt(spec, "conversion"), "strategy") == "Webhook" && k.version != storage;
    k.custom = std::move(ref);
    k.columns = printerColumns(v);
    installSchemaHooks(k, schemas.of(v), schemas.stored);
    return k;
}

// The accepted names the kinds need are there (kube refuses to serve without).
bool hasAcceptedNames(const json::Value& crd) {
    const json::Value* accepted = objectAt(objectAt(crd, "status"), "acceptedNames");
    return !text(accepted, "plural").empty() && !text(accepted, "singular").empty() &&
           !text(accepted, "kind").empty();
}

std::string storageVersionOf(const json::Value* versions) {
    for (const json::Value& v : versions->GetArray()) {
        if (isTrue(v, "storage")) {
            return std::string(text(v, "name"));
        }
    }
    return "";
}

}  // namespace

std::vector<registry::KindInfo> customResourceKinds(std::shared_ptr<const json::Document> crd) {
    std::vector<registry::KindInfo> kinds;
    const json::Value* versions = arrayAt(objectAt(*crd, "spec"), "versions");
    if (!versions || !hasAcceptedNames(*crd)) {
        return kinds;
    }
    std::string storage = storageVersionOf(versions);
    std::vector<const json::Value*> served;
    for (const json::Value& v : versions->GetArray()) {
        if (isTrue(v, "served") && !text(v, "name").empty()) {
            served.push_back(&v);
        }
    }
    std::stable_sort(served.begin(), served.end(), [](const json::Value* a, const json::Value* b) {
        return compareKubeAwareVersions(text(a, "name"), text(b, "name")) < 0;
    });
    DefinitionSchemas schemas = definitionSchemas(*crd, versions, storage);
    for (const json::Value* v : served) {
        kinds.push_back(kindOf(crd, *v, storage, schemas));
    }
    return kinds;
}

std::optional<registry::KindInfo> customResourceStorageKind(
    std::shared_ptr<const json::Document> crd) {
    const json::Value* versions = arrayAt(objectAt(*crd, "spec"), "versions");
    if (!versions || !hasAcceptedNames(*crd)) {
        return std::nullopt;
    }
    std::string storage = storageVersionOf(versions);
    DefinitionSchemas schemas = definitionSchemas(*crd, versions, storage);
    for (const json::Value& v : versions->GetArray()) {
        if (text(v, "name") == storage) {
            return kindOf(crd, v, storage, schemas);
        }
    }
    return std::nullopt;
}

}  // namespace kube::apis::apiextensions
