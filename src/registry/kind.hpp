#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"
#include "storage/interface.hpp"
#include "util/json.hpp"

namespace kube::authn {
struct UserInfo;
}

namespace kube::registry {

namespace json = util::json;

// Which name rule metadata.name follows (kube's ValidateNameFunc choices).
enum class NameRule {
    DNS1123Subdomain,  // most kinds
    DNS1123Label,      // namespaces
    DNS1035Label,      // services
    PathSegment,       // RBAC kinds, anything that only needs to be a path segment
};

class Scheme;

// How dependents are treated when the request names no propagation policy;
// mirrors rest.GarbageCollectionPolicy (DefaultGarbageCollectionPolicy).
enum class GarbageCollectionPolicy {
    DeleteDependents,  // Background: the collector deletes them after the owner
    OrphanDependents,  // the "orphan" finalizer: they lose their ownerReferences
    Unsupported,       // the kind takes no part: no propagation finalizers
};

struct TableContext {
    std::chrono::system_clock::time_point now;
};

// One column of kubectl's table output; mirrors metav1.TableColumnDefinition
// plus the printer function that fills its cell.
struct TableColumn {
    std::string name;         // "Name", "Ready", "Age"
    std::string type;         // "string", "integer", "date", ...
    std::string format;       // "name" for the Name column, else ""
    std::string description;  // shown by kubectl explain-like tools
    int priority = 0;         // 0: default view; 1: -o wide only
    // Builds the cell for `obj` (a full object, as stored).
    std::function<json::Value(const json::Value& obj, const TableContext& ctx, json::Allocator& a)>
        cell;
};

struct KindInfo;

// What a custom resource's kind is served from: its CustomResourceDefinition
// as it was when the kind was added, and the parts of it for this version.
// The compiled forms of the schema (structural validation, pruning,
// defaulting, CEL rules, printer columns) are built from these once per
// version and held by the kind's hooks, never per request.
struct CustomResourceDefinitionRef {
    std::shared_ptr<const json::Document> crd;
    // The spec.versions[] entry the kind serves.
    const json::Value* version = nullptr;
    // Its schema.openAPIV3Schema; null when the version has none.
    const json::Value* openAPIV3Schema = nullptr;
    // Objects at this version need a conversion this server cannot make (a
    // Webhook conversion to or from another storage version): requests for
    // the version are answered as kube answers when the webhook fails.
    bool conversionUnavailable = false;
};

// What serves a subresource's requests; mirrors the rest.Storage kube
// installs behind its path.
enum class SubresourceStorage {
    Parent,        // the kind's own handlers, on a part of the object (status)
    Scale,         // an autoscaling/v1 Scale mapped onto the object (registry/scale)
    TokenRequest,  // a token minted for the object (serviceaccounts/token)
    Binding,       // a Binding that assigns the pod to a node (pods/binding, core/v1 bindings)
    Eviction,      // an Eviction that deletes the pod as its disruption budget allows
    EphemeralContainers,  // the pod's spec.ephemeralContainers alone
    Finalize,             // the namespace's spec.finalizers alone (namespaces/finalize)
    Connect,  // a stream to the kubelet or a proxied backend (log, exec, attach, portforward,
              // proxy), which this server does not reach
};

// What serves a kind's own requests; mirrors the rest.Storage kube installs
// behind the resource's path: the generic store, or a REST of the kind's own
// that stores nothing.
enum class KindStorage {
    Store,  // registry::Store over storage (genericregistry.Store)
    // A question the server answers on create from what it knows, with no
    // other verb (SubjectAccessReview, TokenReview): the review's handler.
    Review,
    Binding,          // core/v1 bindings: pods/binding with the pod named in the body
    ComponentStatus,  // the server's own checks, computed on get and list
};

// Where a kind keeps what its scale subresource shows; mirrors the fields
// each replicated kind's scale REST reads, and a CustomResourceDefinition's
// subresources.scale paths.
struct ScalePaths {
    std::vector<std::string> specReplicas = {"spec", "replicas"};
    std::vector<std::string> statusReplicas = {"status", "replicas"};
    // The pod selector; empty: the Scale shows none.
    std::vector<std::string> labelSelector = {"spec", "selector"};
    // How the selector is written there.
    enum class SelectorForm {
        LabelSelector,  // a metav1.LabelSelector (apps/v1 kinds)
        LabelMap,       // a plain map of labels (a core/v1 ReplicationController)
        Text,           // selector syntax already (a custom resource's labelSelectorPath)
    };
    SelectorForm selectorForm = SelectorForm::LabelSelector;
    // How the spec replicas path is spelled in errors (".spec.replicas").
    std::string specReplicasPath = ".spec.replicas";
};

// What the store passes a status strategy.
struct StatusUpdateContext {
    std::chrono::system_clock::time_point now;
};

// A subresource served under <resource>/<name>/<subresource>.
struct SubresourceInfo {
    std::string name;  // "status"
    // The kind it answers with ("" group/version = the parent's).
    std::string group, version, kind;
    std::vector<std::string> verbs;
    SubresourceStorage storage = SubresourceStorage::Parent;
    // The kind its requests read and write when not the parent's (Scale),
    // static storage.
    const KindInfo* responseKind = nullptr;
    // SubresourceStorage::Scale: where the parent keeps what the Scale shows.
    ScalePaths scale = {};
    // A Parent subresource other than status with a strategy of its own (a
    // CertificateSigningRequest's approval): like a status update, only
    // metadata and status change; then these stand in for the kind's
    // prepareForStatusUpdate and validateStatusUpdate.
    std::function<void(json::Value& obj, const json::Value& old, const StatusUpdateContext& ctx,
                       json::Allocator& a)>
        prepareForUpdate = {};
    std::function<std::vector<meta::StatusCause>(const json::Value& obj, const json::Value& old)>
        validateUpdate = {};
};

// A field a fieldSelector may name beyond metadata.name/namespace; mirrors one
// case of the kind's field label conversion and its ToSelectableFields.
struct SelectableField {
    std::string name;         // "status.phase"
    std::string path = {};    // dotted JSON path when it differs ("source.component")
    std::string absent = {};  // the value of an unset field ("false", "0")
};

// How a kind is kept when storage holds it as another group's kind
// (events.k8s.io/v1 Events are core/v1 Events there, as kube's cohabitating
// resources): the stored apiVersion and the conversions between the shapes.
// Selectors, table cells and strategies see the stored shape.
struct StoredAs {
    std::string apiVersion;  // "v1"
    // The served shape into the stored one (a request's object), and back.
    std::function<void(json::Value& obj, json::Allocator& a)> toStorage;
    std::function<void(json::Value& obj, json::Allocator& a)> fromStorage;
};

// Everything the generic store, the handlers and discovery need to know of a
// kind; mirrors what genericregistry.Store and the kind's strategy carry in
// kube-apiserver. Adding a kind is filling one of these (src/apis/...).
struct KindInfo {
    std::string group;  // "" for core
    std::string version;
    // The version objects are stored at when the kind is served at several
    // ("" = `version`). The versions share one schema: an object read at
    // another version differs only in its apiVersion (registry/encoding's
    // servedObject).
    std::string storageVersion;
    std::string kind;      // "ConfigMap"
    std::string resource;  // "configmaps"
    std::string singular;  // "configmap"
    bool namespaced = true;
    std::vector<std::string> shortNames;
    std::vector<std::string> categories;  // "all"
    std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get",
                                      "list",   "patch",  "update",           "watch"};
    std::vector<SubresourceInfo> subresources;
    // What serves the resource's requests: the generic store unless the
    // kind's storage is a REST of its own.
    KindStorage storage = KindStorage::Store;
    NameRule nameRule = NameRule::DNS1123Subdomain;
    // metadata.generation starts at 1 and is bumped when anything but
    // metadata and status changes (kinds with a spec).
    bool tracksGeneration = false;
    std::vector<TableColumn> columns;
    // Empty: the kind registers no field label conversion, so only
    // metadata.name and metadata.namespace select. Otherwise every field the
    // kind's conversion accepts, metadata ones included (namespaces and nodes
    // accept no metadata.namespace).
    std::vector<SelectableField> selectableFields;

    // Fills defaults in a decoded object (mirrors SetDefaults_<Kind>).
    std::function<void(json::Value& obj, json::Allocator& a)> defaults;
    // Server-side changes on create (mirrors Strategy.PrepareForCreate).
    std::function<void(json::Value& obj, json::Allocator& a)> prepareForCreate;
    // Server-side changes on create that record who asks (mirrors a
    // CertificateSigningRequest's PrepareForCreate); not called for the
    // server's own writes.
    std::function<void(json::Value& obj, const authn::UserInfo& user, json::Allocator& a)>
        prepareForCreateBy;
    // Server-side changes on update, given the stored object (mirrors
    // Strategy.PrepareForUpdate: a Service keeps its allocated clusterIPs).
    std::function<void(json::Value& obj, const json::Value& old, json::Allocator& a)>
        prepareForUpdate;
    // Kind-specific validation of a defaulted object; field errors as causes
    // (mirrors Strategy.Validate minus the metadata checks the store does).
    std::function<std::vector<meta::StatusCause>(const json::Value& obj)> validate;
    // Validation of an update, given the stored object; when set it replaces
    // `validate` on update (mirrors Strategy.ValidateUpdate, which for some
    // kinds checks only what may not change).
    std::function<std::vector<meta::StatusCause>(const json::Value& obj, const json::Value& old)>
        validateUpdate;
    // An update through the status subresource (mirrors the kind's
    // StatusStrategy): the store keeps everything but metadata and status
    // from the stored object (the strategies' `new.Spec = old.Spec`), then
    // this resets what else the kind protects (a Deployment's labels, a
    // Pod's ownerReferences).
    std::function<void(json::Value& obj, const json::Value& old, const StatusUpdateContext& ctx,
                       json::Allocator& a)>
        prepareForStatusUpdate;
    // Validation of a status update in place of `validate`/`validateUpdate`
    // (mirrors StatusStrategy.ValidateUpdate minus the metadata checks the
    // store does); unset: only those metadata checks.
    std::function<std::vector<meta::StatusCause>(const json::Value& obj, const json::Value& old)>
        validateStatusUpdate;

    // Deletion (mirrors the kind's RESTDeleteStrategy and store hooks).
    //
    // RESTGracefulDeleteStrategy.CheckGracefulDelete: given the object and the
    // request's gracePeriodSeconds (if any), the grace period the deletion
    // waits; 0 deletes at once (after marking the object). Unset: the kind is
    // not deleted gracefully.
    std::function<int64_t(const json::Value& obj, std::optional<int64_t> requested)>
        checkGracefulDelete;
    // Store.ReturnDeletedObject: a delete answers with the object rather
    // than a Status (pods).
    bool returnDeletedObject = false;
    GarbageCollectionPolicy gcPolicy = GarbageCollectionPolicy::DeleteDependents;
    // A kind whose objects terminate (namespaces): a delete marks the object
    // (deletionTimestamp, then this hook's terminating state) and answers;
    // the store's terminator removes what it holds and then the object.
    std::function<void(json::Value& obj, json::Allocator& a)> beginTerminating;

    // Set for a custom resource's kind (Server::addKind from a
    // CustomResourceDefinition); null for built-in kinds, whose schema is
    // their message in src/apis/proto.
    std::shared_ptr<const CustomResourceDefinitionRef> custom;
    // Set when storage holds the objects in another kind's shape.
    std::shared_ptr<const StoredAs> storedAs;
    // A custom resource's decoding, in place of the walk of a message of
    // src/apis/proto (endpoints::checkAgainstSchema): kube's unstructured
    // decoder with the version's structural schema. Returns the error that
    // fails the request whatever fieldValidation says (an embedded
    // resource's apiVersion that is no string); otherwise removes the fields
    // the schema does not know and appends their paths ("spec.foo") to
    // `unknownFields`, for fieldValidation to report. Unset: nothing checked.
    std::function<std::optional<std::string>(json::Value& obj,
                                             std::vector<std::string>& unknownFields)>
        decodeCustom;

    // "v1" or "apps/v1".
    std::string apiVersion() const { return group.empty() ? version : group + "/" + version; }
    // The apiVersion of stored objects.
    std::string storageApiVersion() const {
        if (storedAs) {
            return storedAs->apiVersion;
        }
        const std::string& v = storageVersion.empty() ? version : storageVersion;
        return group.empty() ? v : group + "/" + v;
    }
    bool servedAtStorageVersion() const {
        return !storedAs && (storageVersion.empty() || storageVersion == version);
    }
    // The list's kind when it is not <kind>List (a CRD's names.listKind).
    std::string listKindName;
    std::string listKind() const { return listKindName.empty() ? kind + "List" : listKindName; }
    // Objects of the kind are kept in storage (not answered by a REST that
    // stores nothing): watch caches, the garbage collector and the namespace
    // controller follow them.
    bool stored() const { return storage == KindStorage::Store; }
    meta::GroupResource groupResource() const { return {group, resource}; }
    meta::GroupKind groupKind() const { return {group, kind}; }
    // The status stanza is owned by the status subresource: cleared on create,
    // kept from the stored object on update.
    bool statusIsSubresource() const { return subresource("status") != nullptr; }
    // The subresource called `name`, null when the kind serves none by that name.
    const SubresourceInfo* subresource(std::string_view name) const {
        for (const SubresourceInfo& s : subresources) {
            if (s.name == name) {
                return &s;
            }
        }
        return nullptr;
    }
};

}  // namespace kube::registry
