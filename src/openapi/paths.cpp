#include "openapi/paths.hpp"

#include <algorithm>

namespace kube::openapi {

namespace json = util::json;

namespace {

constexpr std::string_view kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";

// A query parameter kube-apiserver documents, with our own description.
struct QueryParam {
    const char* name;
    const char* type;
    const char* description;
};

constexpr QueryParam kQueryParams[] = {
    {"allowWatchBookmarks", "boolean",
     "Accept BOOKMARK events, which carry nothing but a newer resourceVersion. The server "
     "decides whether and when to send them. Ignored unless watching."},
    {"continue", "string",
     "The metadata.continue token of the previous page of a paginated list, to get the next "
     "page. A token that expired is answered with 410 Gone. Not with watch."},
    {"dryRun", "string",
     "\"All\" runs every stage of the request, admission and validation included, and stores "
     "nothing."},
    {"fieldManager", "string",
     "The name of the actor making the change, recorded in metadata.managedFields: at most "
     "128 printable characters. Apply patches (application/apply-patch+yaml) must give one."},
    {"fieldSelector", "string",
     "Only the objects whose fields match this selector. Default: every object."},
    {"fieldValidation", "string",
     "What the server does about unknown or duplicate fields in the request body: \"Ignore\" "
     "drops them silently, \"Warn\" drops them and answers with a warning for each, "
     "\"Strict\" rejects the request."},
    {"force", "boolean",
     "For apply patches only: take over the fields other managers own instead of failing with "
     "a conflict. Leave it unset for the other patch types."},
    {"gracePeriodSeconds", "integer",
     "The seconds the object gets before it is removed; 0 removes it at once. Default: the "
     "kind's own grace period."},
    {"labelSelector", "string",
     "Only the objects whose labels match this selector. Default: every object."},
    {"limit", "integer",
     "The most objects to return. When there are more, the list's metadata.continue holds the "
     "token of the next page. Not with watch."},
    {"orphanDependents", "boolean",
     "Superseded by propagationPolicy: true leaves the dependents in place, false deletes "
     "them. Give at most one of the two."},
    {"pretty", "string", "\"true\" asks for indented output."},
    {"propagationPolicy", "string",
     "What becomes of the object's dependents: \"Orphan\" leaves them, \"Background\" deletes "
     "them after the object, \"Foreground\" before it."},
    {"resourceVersion", "string",
     "How fresh the answer must be: unset for the latest state, \"0\" for whatever the "
     "server holds, any other value for a state at least that recent (exactly that one with "
     "resourceVersionMatch=Exact). A watch starts after this version. See "
     "https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions."},
    {"resourceVersionMatch", "string",
     "How resourceVersion applies to a list: \"NotOlderThan\" or \"Exact\". Only with "
     "resourceVersion."},
    {"sendInitialEvents", "boolean",
     "With watch=true: start with an ADDED event for every object there is, then a BOOKMARK "
     "that marks their end, and only then the changes."},
    {"timeoutSeconds", "integer",
     "End the list or watch call after this many seconds, whatever is happening."},
    {"watch", "boolean",
     "Stream the changes (ADDED, MODIFIED and DELETED events) from resourceVersion on instead "
     "of returning a list."},
};

const QueryParam* queryParam(std::string_view name) {
    for (const QueryParam& p : kQueryParams) {
        if (name == p.name) {
            return &p;
        }
    }
    return nullptr;
}

const std::vector<std::string> kListParams = {"allowWatchBookmarks",
                                              "continue",
                                              "fieldSelector",
                                              "labelSelector",
                                              "limit",
                                              "resourceVersion",
                                              "resourceVersionMatch",
                                              "sendInitialEvents",
                                              "timeoutSeconds",
                                              "watch"};
const std::vector<std::string> kWriteParams = {"dryRun", "fieldManager", "fieldValidation"};
const std::vector<std::string> kPatchParams = {"dryRun", "fieldManager", "fieldValidation",
                                               "force"};
const std::vector<std::string> kDeleteParams = {"gracePeriodSeconds", "orphanDependents",
                                                "propagationPolicy", "dryRun"};
const std::vector<std::string> kDeleteCollectionParams = {
    "gracePeriodSeconds", "orphanDependents",     "propagationPolicy", "dryRun",
    "continue",           "fieldSelector",        "labelSelector",     "limit",
    "resourceVersion",    "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds"};

// The patch verb's request types in kube's v2 order (v3 lists them sorted,
// as the keys of a map).
const char* const kPatchTypes[] = {"application/json-patch+json", "application/merge-patch+json",
                                   "application/strategic-merge-patch+json",
                                   "application/apply-patch+yaml"};
const char* const kMediaTypes[] = {"application/json", "application/yaml",
                                   "application/vnd.kubernetes.protobuf"};
const char* const kStreamTypes[] = {"application/json;stream=watch",
                                    "application/vnd.kubernetes.protobuf;stream=watch"};
// What the operations on custom resources read and write (kube's CRD
// builder): JSON and YAML, no protobuf, and no strategic merge patch.
const char* const kCustomMediaTypes[] = {"application/json", "application/yaml"};
const char* const kCustomPatchTypes[] = {
    "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"};

bool has(const std::vector<std::string>& verbs, std::string_view verb) {
    return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

std::string upperFirst(std::string_view s) {
    std::string out(s);
    if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') {
        out[0] = static_cast<char>(out[0] - 'a' + 'A');
    }
    return out;
}

std::string lowerFirst(std::string s) {
    if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') {
        s[0] = static_cast<char>(s[0] - 'A' + 'a');
    }
    return s;
}

const char* statusText(int code) {
    switch (code) {
        case 201:
            return "Created";
        case 202:
            return "Accepted";
        default:
            return "OK";
    }
}

// "core_v1", "apps_v1", "rbacAuthorization_v1": the tag of a group-version.
std::string versionTag(std::string_view group, std::string_view version) {
    return lowerFirst(operationGroup(group)) + "_" + std::string(version);
}

}  // namespace

std::string operationGroup(std::string_view group) {
    if (group.empty()) {
        return "Core";
    }
    constexpr std::string_view suffix = ".k8s.io";
    if (group.size() > suffix.size() && group.ends_with(suffix)) {
        group.remove_suffix(suffix.size());
    }
    std::string out;
    while (!group.empty()) {
        size_t dot = group.find('.');
        out += upperFirst(group.substr(0, dot));
        group = dot == std::string_view::npos ? std::string_view() : group.substr(dot + 1);
    }
    return out;
}

Paths::Paths(Definitions& defs, Flavor flavor, json::Allocator& a)
    : defs_(defs), flavor_(flavor), a_(a) {}

// The names one kind's paths and operations are built from.
struct Paths::Resource {
    const registry::KindInfo& kind;
    const std::vector<std::string>& verbs;  // the verbs its routes serve
    std::string gv = {};                    // "CoreV1", "AppsV1": the operation ids' group-version
    std::string scope = {};                 // "Namespaced" or ""
    std::string root = {};                  // "/api/v1", "/apis/apps/v1"
    std::string ns = {};                    // "/namespaces/{namespace}" or ""
    std::string tag = {};                   // "core_v1"
    std::string object = {}, list = {};     // definitions of the kind and its list
    std::vector<std::string> collectionParams = {}, itemParams = {};  // path parameters
    bool custom = false;  // a custom resource (KindInfo::custom)

    std::string id(std::string_view verb, std::string_view suffix = "") const {
        return std::string(verb) + gv + scope + kind.kind + std::string(suffix);
    }
    std::string collection() const { return root + ns + "/" + kind.resource; }
    std::string item() const { return collection() + "/{name}"; }
};

Paths::Operation Paths::op(const Resource& r, const char* method, const char* action,
                           std::string id) {
    Operation o{method, action, std::move(id)};
    o.kind = &r.kind;
    o.custom = r.custom;
    return o;
}

std::string Paths::meta(std::string_view name) {
    std::string full = std::string(kMeta) + std::string(name);
    return defs_.named(full) ? full : "";
}

void Paths::resource(const endpoints::KindRoutes& routes) {
    const registry::KindInfo& kind = *routes.kind;
    Resource r{kind, routes.resource.verbs};
    r.gv = operationGroup(kind.group) + upperFirst(kind.version);
    r.scope = kind.namespaced ? "Namespaced" : "";
    r.root =
        kind.group.empty() ? "/api/" + kind.version : "/apis/" + kind.group + "/" + kind.version;
    r.ns = kind.namespaced ? "/namespaces/{namespace}" : "";
    r.tag = versionTag(kind.group, kind.version);
    r.object = defs_.kind(kind);
    r.list = defs_.list(kind);
    if (kind.namespaced) {
        r.collectionParams.push_back("namespace");
    }
    r.custom = kind.custom != nullptr;
    r.itemParams = {"name"};
    r.itemParams.insert(r.itemParams.end(), r.collectionParams.begin(), r.collectionParams.end());
    collectionPaths(r);
    itemPath(r);
    for (const endpoints::ResourceRoute& sub : routes.subresources) {
        // kube's connect operations (string streams, path suffixes) are
        // not described yet.
        if (sub.handlers != endpoints::Handlers::Connect) {
            subresourcePath(r, sub);
        }
    }
    watchPaths(r);
}

void Paths::collectionPaths(const Resource& r) {
    const registry::KindInfo& kind = r.kind;
    std::vector<Operation> ops;
    if (has(r.verbs, "list")) {
        Operation o = op(r, "get", "list", r.id("list"));
        o.description = "List or watch " + kind.kind + " objects.";
        o.params = kListParams;
        o.codes = {200};
        o.response = r.list;
        o.streams = true;
        ops.push_back(std::move(o));
    }
    if (has(r.verbs, "create")) {
        Operation o = op(r, "post", "post", r.id("create"));
        o.description = "Create a " + kind.kind + ".";
        o.params = kWriteParams;
        o.body = r.object;
        o.codes = {200, 201, 202};
        o.response = r.object;
        ops.push_back(std::move(o));
    }
    if (has(r.verbs, "deletecollection")) {
        Operation o = op(r, "delete", "deletecollection",
                         "delete" + r.gv + "Collection" + r.scope + kind.kind);
        o.description = "Delete a collection of " + kind.kind + " objects.";
        o.params = kDeleteCollectionParams;
        o.body = meta("DeleteOptions");
        o.bodyRequired = false;
        o.codes = {200};
        o.response = meta("Status");
        ops.push_back(std::move(o));
    }
    addItem(r.collection(), std::move(ops), r.collectionParams, &kind, r.tag);
    if (kind.namespaced && has(r.verbs, "list")) {
        // Across every namespace: list only.
        Operation o = op(r, "get", "list", "list" + r.gv + kind.kind + "ForAllNamespaces");
        o.description = "List or watch " + kind.kind + " objects in every namespace.";
        o.codes = {200};
        o.response = r.list;
        o.streams = true;
        addItem(r.root + "/" + kind.resource, {std::move(o)}, kListParams, &kind, r.tag);
    }
}

void Paths::itemPath(const Resource& r) {
    const registry::KindInfo& kind = r.kind;
    std::vector<Operation> ops;
    if (has(r.verbs, "get")) {
        Operation o = op(r, "get", "get", r.id("read"));
        o.description = "Read the named " + kind.kind + ".";
        o.codes = {200};
        o.response = r.object;
        ops.push_back(std::move(o));
    }
    if (has(r.verbs, "update")) {
        Operation o = op(r, "put", "put", r.id("replace"));
        o.description = "Replace the named " + kind.kind + ".";
        o.params = kWriteParams;
        o.body = r.object;
        o.codes = {200, 201};
        o.response = r.object;
        ops.push_back(std::move(o));
    }
    if (has(r.verbs, "patch")) {
        Operation o = op(r, "patch", "patch", r.id("patch"));
        o.description = "Partially update the named " + kind.kind + ".";
        o.params = kPatchParams;
        o.body = meta("Patch");
        o.patch = true;
        o.codes = {200, 201};
        o.response = r.object;
        ops.push_back(std::move(o));
    }
    if (has(r.verbs, "delete")) {
        Operation o = op(r, "delete", "delete", r.id("delete"));
        o.description = "Delete the named " + kind.kind + ".";
        o.params = kDeleteParams;
        o.body = meta("DeleteOptions");
        o.bodyRequired = false;
        o.codes = {200, 202};
        o.response = meta("Status");
        ops.push_back(std::move(o));
    }
    addItem(r.item(), std::move(ops), r.itemParams, &kind, r.tag);
}

void Paths::subresourcePath(const Resource& r, const endpoints::ResourceRoute& route) {
    const registry::KindInfo& kind = r.kind;
    const registry::SubresourceInfo& sub = *route.subresource;
    // The subresource answers with the kind itself (status) or with another
    // kind (autoscaling/v1 Scale).
    bool ownKind = sub.kind.empty() || sub.kind == kind.kind;
    std::string version = sub.version.empty() ? kind.version : sub.version;
    std::string response =
        ownKind ? r.object
                : defs_.message(sub.group.empty() ? version : sub.group + "/" + version, sub.kind);
    std::string what = "the " + sub.name + " of the named " + kind.kind + ".";
    auto subOp = [&](const char* method, const char* verb, std::string description) {
        Operation o = op(r, method, method, r.id(verb, upperFirst(sub.name)));
        o.description = std::move(description);
        o.response = response;
        o.codes = {200};
        if (!ownKind && !r.custom) {
            // kube's CRD builder names the custom kind on every operation,
            // /scale's too.
            o.gvkGroup = sub.group;
            o.gvkVersion = version;
            o.gvkKind = sub.kind;
        }
        return o;
    };
    std::vector<Operation> ops;
    if (has(route.verbs, "get")) {
        ops.push_back(subOp("get", "read", "Read " + what));
    }
    if (has(route.verbs, "create")) {
        // serviceaccounts/token, pods/eviction: a POST to the subresource.
        Operation o = subOp("post", "create", "Create " + what);
        o.action = "post";
        o.params = kWriteParams;
        o.body = response;
        o.codes = {200, 201, 202};
        ops.push_back(std::move(o));
    }
    if (has(route.verbs, "update")) {
        Operation o = subOp("put", "replace", "Replace " + what);
        o.params = kWriteParams;
        o.body = response;
        o.codes = {200, 201};
        ops.push_back(std::move(o));
    }
    if (has(route.verbs, "patch")) {
        Operation o = subOp("patch", "patch", "Partially update " + what);
        o.params = kPatchParams;
        o.body = meta("Patch");
        o.patch = true;
        o.codes = {200, 201};
        ops.push_back(std::move(o));
    }
    addItem(r.item() + "/" + sub.name, std::move(ops), r.itemParams, &kind, r.tag);
}

// The legacy /watch/ paths kube-apiserver still documents.
void Paths::watchPaths(const Resource& r) {
    const registry::KindInfo& kind = r.kind;
    if (!has(r.verbs, "watch") || r.custom) {
        return;  // kube documents none for custom resources
    }
    std::string watchEvent = meta("WatchEvent");
    auto watchOp = [&](const char* action, std::string id, std::string description) {
        Operation o = op(r, "get", action, std::move(id));
        o.description = std::move(description) + " Deprecated: list with watch=true instead.";
        o.codes = {200};
        o.response = watchEvent;
        o.streams = true;
        return o;
    };
    std::string root = r.root + "/watch" + r.ns + "/" + kind.resource;
    std::vector<std::string> params = kListParams;
    params.insert(params.end(), r.collectionParams.begin(), r.collectionParams.end());
    addItem(root,
            {watchOp("watchlist", r.id("watch", "List"),
                     "Watch the changes to " + kind.kind + " objects.")},
            params, &kind, r.tag);
    params = kListParams;
    params.insert(params.end(), r.itemParams.begin(), r.itemParams.end());
    addItem(root + "/{name}",
            {watchOp("watch", r.id("watch"), "Watch the changes to the named " + kind.kind + ".")},
            params, &kind, r.tag);
    if (kind.namespaced) {
        addItem(r.root + "/watch/" + kind.resource,
                {watchOp("watchlist", "watch" + r.gv + kind.kind + "ListForAllNamespaces",
                         "Watch the changes to " + kind.kind + " objects in every namespace.")},
                kListParams, &kind, r.tag);
    }
}

void Paths::addItem(const std::string& path, std::vector<Operation> ops,
                    std::vector<std::string> pathParams, const registry::KindInfo* kind,
                    std::string tag) {
    if (ops.empty()) {
        return;
    }
    json::Value item(rapidjson::kObjectType);
    for (const Operation& op : ops) {
        item.AddMember(rapidjson::StringRef(op.method), operation(op, tag), a_);
    }
    // Parameters every operation of the path shares, sorted by name as kube
    // lists them: the path's own, pretty, and (for the paths with nothing
    // but a list or watch) the list parameters.
    pathParams.push_back("pretty");
    std::sort(pathParams.begin(), pathParams.end());
    json::Value params(rapidjson::kArrayType);
    for (const std::string& name : pathParams) {
        params.PushBack(parameter(name, kind), a_);
    }
    item.AddMember("parameters", params, a_);
    items_.emplace(path, std::move(item));
}

json::Value Paths::parameter(std::string_view name, const registry::KindInfo* kind) {
    json::Value p(rapidjson::kObjectType);
    const char* type = "string";
    std::string description;
    bool inPath = name == "name" || name == "namespace";
    if (name == "name") {
        description = "The name of the " + (kind ? kind->kind : std::string("object")) + ".";
    } else if (name == "namespace") {
        description = "The namespace the objects live in.";
    } else if (const QueryParam* q = queryParam(name)) {
        type = q->type;
        description = q->description;
    }
    if (flavor_ == Flavor::V2) {
        p.AddMember("uniqueItems", true, a_);
        p.AddMember("type", rapidjson::StringRef(type), a_);
        p.AddMember("description", json::stringValue(description, a_), a_);
        p.AddMember("name", json::stringValue(name, a_), a_);
        p.AddMember("in", rapidjson::StringRef(inPath ? "path" : "query"), a_);
        if (inPath) {
            p.AddMember("required", true, a_);
        }
        return p;
    }
    p.AddMember("name", json::stringValue(name, a_), a_);
    p.AddMember("in", rapidjson::StringRef(inPath ? "path" : "query"), a_);
    p.AddMember("description", json::stringValue(description, a_), a_);
    if (inPath) {
        p.AddMember("required", true, a_);
    }
    json::Value schema(rapidjson::kObjectType);
    schema.AddMember("type", rapidjson::StringRef(type), a_);
    schema.AddMember("uniqueItems", true, a_);
    p.AddMember("schema", schema, a_);
    return p;
}

json::Value Paths::schemaRef(const std::string& definition) {
    json::Value ref(rapidjson::kObjectType);
    ref.AddMember("$ref", json::stringValue(defs_.refPath(definition), a_), a_);
    return ref;
}

json::Value Paths::gvk(std::string_view group, std::string_view version, std::string_view kind) {
    json::Value v(rapidjson::kObjectType);
    v.AddMember("group", json::stringValue(group, a_), a_);
    v.AddMember("kind", json::stringValue(kind, a_), a_);
    v.AddMember("version", json::stringValue(version, a_), a_);
    return v;
}

json::Value Paths::operation(const Operation& op, const std::string& tag) {
    json::Value o(rapidjson::kObjectType);
    json::Value tags(rapidjson::kArrayType);
    tags.PushBack(json::stringValue(tag, a_), a_);
    std::vector<const char*> produces(std::begin(kMediaTypes), std::end(kMediaTypes));
    std::vector<const char*> patchTypes(std::begin(kPatchTypes), std::end(kPatchTypes));
    if (op.custom) {
        produces.assign(std::begin(kCustomMediaTypes), std::end(kCustomMediaTypes));
        patchTypes.assign(std::begin(kCustomPatchTypes), std::end(kCustomPatchTypes));
    } else if (op.streams) {
        produces.insert(produces.end(), std::begin(kStreamTypes), std::end(kStreamTypes));
    }
    o.AddMember("tags", tags, a_);
    o.AddMember("description", json::stringValue(op.description, a_), a_);
    if (flavor_ == Flavor::V2) {
        json::Value consumes(rapidjson::kArrayType);
        if (op.patch) {
            for (const char* t : patchTypes) {
                consumes.PushBack(rapidjson::StringRef(t), a_);
            }
        } else if (op.custom) {
            for (const char* t : kCustomMediaTypes) {
                consumes.PushBack(rapidjson::StringRef(t), a_);
            }
        } else {
            consumes.PushBack("*/*", a_);
        }
        o.AddMember("consumes", consumes, a_);
        json::Value prod(rapidjson::kArrayType);
        for (const char* t : produces) {
            prod.PushBack(rapidjson::StringRef(t), a_);
        }
        o.AddMember("produces", prod, a_);
        json::Value schemes(rapidjson::kArrayType);
        schemes.PushBack("https", a_);
        o.AddMember("schemes", schemes, a_);
    }
    o.AddMember("operationId", json::stringValue(op.id, a_), a_);

    json::Value params(rapidjson::kArrayType);
    if (flavor_ == Flavor::V2 && !op.body.empty()) {
        json::Value body(rapidjson::kObjectType);
        body.AddMember("name", "body", a_);
        body.AddMember("in", "body", a_);
        if (op.bodyRequired) {
            body.AddMember("required", true, a_);
        }
        body.AddMember("schema", schemaRef(op.body), a_);
        params.PushBack(body, a_);
    }
    for (const std::string& name : op.params) {
        params.PushBack(parameter(name, op.kind), a_);
    }
    if (!params.Empty()) {
        o.AddMember("parameters", params, a_);
    }
    if (flavor_ == Flavor::V3 && !op.body.empty()) {
        json::Value content(rapidjson::kObjectType);
        auto addBody = [&](const char* type) {
            json::Value media(rapidjson::kObjectType);
            media.AddMember("schema", schemaRef(op.body), a_);
            content.AddMember(rapidjson::StringRef(type), media, a_);
        };
        if (op.patch) {
            // Sorted, as the keys of a map.
            std::sort(patchTypes.begin(), patchTypes.end(),
                      [](const char* x, const char* y) { return std::string_view(x) < y; });
            for (const char* t : patchTypes) {
                addBody(t);
            }
        } else if (op.custom) {
            for (const char* t : kCustomMediaTypes) {
                addBody(t);
            }
        } else {
            addBody("*/*");
        }
        json::Value body(rapidjson::kObjectType);
        body.AddMember("content", content, a_);
        if (op.bodyRequired) {
            body.AddMember("required", true, a_);
        }
        o.AddMember("requestBody", body, a_);
    }

    json::Value responses(rapidjson::kObjectType);
    for (int code : op.codes) {
        json::Value r(rapidjson::kObjectType);
        r.AddMember("description", rapidjson::StringRef(statusText(code)), a_);
        if (!op.response.empty()) {
            if (flavor_ == Flavor::V2) {
                r.AddMember("schema", schemaRef(op.response), a_);
            } else {
                json::Value content(rapidjson::kObjectType);
                for (const char* t : produces) {
                    json::Value media(rapidjson::kObjectType);
                    media.AddMember("schema", schemaRef(op.response), a_);
                    content.AddMember(rapidjson::StringRef(t), media, a_);
                }
                r.AddMember("content", content, a_);
            }
        }
        responses.AddMember(json::stringValue(std::to_string(code), a_), r, a_);
    }
    if (flavor_ == Flavor::V2) {
        json::Value r(rapidjson::kObjectType);
        r.AddMember("description", "Unauthorized", a_);
        responses.AddMember("401", r, a_);
    }
    o.AddMember("responses", responses, a_);

    if (op.kind) {
        o.AddMember("x-kubernetes-action", rapidjson::StringRef(op.action), a_);
        o.AddMember("x-kubernetes-group-version-kind",
                    op.gvkKind.empty() ? gvk(op.kind->group, op.kind->version, op.kind->kind)
                                       : gvk(op.gvkGroup, op.gvkVersion, op.gvkKind),
                    a_);
    }
    return o;
}

void Paths::discoveryGet(const std::string& path, std::string id, std::string description,
                         std::string_view definition, std::string tag) {
    Operation o{"get", "get", std::move(id)};
    o.description = std::move(description);
    o.codes = {200};
    if (defs_.named(definition)) {
        o.response = std::string(definition);
    }
    json::Value item(rapidjson::kObjectType);
    item.AddMember("get", operation(o, tag), a_);
    items_.emplace(path, std::move(item));
}

void Paths::groupVersion(std::string_view group, std::string_view version) {
    std::string path = group.empty()
                           ? "/api/" + std::string(version) + "/"
                           : "/apis/" + std::string(group) + "/" + std::string(version) + "/";
    discoveryGet(path, "get" + operationGroup(group) + upperFirst(version) + "APIResources",
                 "The resources of this group-version.", std::string(kMeta) + "APIResourceList",
                 versionTag(group, version));
}

void Paths::coreVersions() {
    discoveryGet("/api/", "getCoreAPIVersions", "The versions of the core API.",
                 std::string(kMeta) + "APIVersions", "core");
}

void Paths::groups() {
    discoveryGet("/apis/", "getAPIVersions", "The API groups and their versions.",
                 std::string(kMeta) + "APIGroupList", "apis");
}

void Paths::group(std::string_view group) {
    std::string op = operationGroup(group);
    discoveryGet("/apis/" + std::string(group) + "/", "get" + op + "APIGroup",
                 "The versions of this API group.", std::string(kMeta) + "APIGroup",
                 lowerFirst(op));
}

void Paths::version() {
    discoveryGet("/version/", "getCodeVersion", "The version of the server.",
                 "io.k8s.apimachinery.pkg.version.Info", "version");
}

json::Value Paths::take() {
    json::Value out(rapidjson::kObjectType);
    for (auto& [path, item] : items_) {
        out.AddMember(json::stringValue(path, a_), item, a_);
    }
    items_.clear();
    return out;
}

}  // namespace kube::openapi
