#include "openapi/definitions.hpp"

#include <google/protobuf/descriptor.h>

#include "kapi/opts.pb.h"
#include "openapi/custom_resource_schema.hpp"

namespace kube::openapi {

namespace json = util::json;

namespace {

constexpr std::string_view kMetaPackage = "io.k8s.apimachinery.pkg.apis.meta.v1.";

constexpr const char* kObjectMetaDescription =
    "The object's metadata: its name and namespace, its labels and annotations, and what the "
    "server records about it.";

// The definition package of a kind the schema has no message for: kube's
// io.k8s.api.<first label of the group>.<version> ("core" for the core group).
std::string packageOf(const registry::KindInfo& kind) {
    std::string group = kind.group.empty() ? "core" : kind.group.substr(0, kind.group.find('.'));
    return "io.k8s.api." + group + "." + kind.version;
}

void addString(json::Value& obj, const char* key, std::string_view value, json::Allocator& a) {
    obj.AddMember(rapidjson::StringRef(key), json::stringValue(value, a), a);
}

// Moves every member of `from` into `to`.
void merge(json::Value& to, json::Value& from, json::Allocator& a) {
    for (auto& m : from.GetObject()) {
        to.AddMember(m.name, m.value, a);
    }
}

// A custom kind's list kind: the CRD's spec.names.listKind, which may be
// other than <Kind>List.
std::string customListKind(const registry::KindInfo& kind) {
    const json::Value* listKind =
        kind.custom->crd ? json::at(*kind.custom->crd, {"spec", "names", "listKind"}) : nullptr;
    return listKind && listKind->IsString() && listKind->GetStringLength() > 0
               ? std::string(json::view(*listKind))
               : kind.listKind();
}

json::Value typeOnly(const char* type, json::Allocator& a) {
    json::Value v(rapidjson::kObjectType);
    v.AddMember("type", rapidjson::StringRef(type), a);
    return v;
}

}  // namespace

Definitions::Definitions(const SchemaPool& pool, Flavor flavor, json::Allocator& a)
    : pool_(pool), flavor_(flavor), a_(a) {}

std::string Definitions::refPath(std::string_view name) const {
    return (flavor_ == Flavor::V2 ? "#/definitions/" : "#/components/schemas/") + std::string(name);
}

std::string Definitions::kind(const registry::KindInfo& kind) {
    if (kind.custom) {
        std::string name = customDefinitionName(kind.group, kind.version, kind.kind);
        kinds_.emplace(name, &kind);
        if (queued_.insert(name).second) {
            pending_.push_back({name, nullptr});
        }
        return name;
    }
    const pb::Descriptor* message = pool_.forKind(kind.apiVersion(), kind.kind);
    std::string name =
        message ? SchemaPool::definitionName(message) : packageOf(kind) + "." + kind.kind;
    kinds_.emplace(name, &kind);
    if (queued_.insert(name).second) {
        pending_.push_back({name, message});
    }
    return name;
}

std::string Definitions::list(const registry::KindInfo& kind) {
    std::string name = this->kind(kind) + "List";
    if (kind.custom) {
        name = customDefinitionName(kind.group, kind.version, customListKind(kind));
    }
    lists_.emplace(name, &kind);
    if (queued_.insert(name).second) {
        pending_.push_back({name, nullptr});
    }
    return name;
}

std::string Definitions::message(std::string_view apiVersion, std::string_view kind) {
    const pb::Descriptor* m = pool_.forKind(apiVersion, kind);
    return m ? add(m) : "";
}

bool Definitions::named(std::string_view name) {
    const pb::Descriptor* message = pool_.forDefinition(name);
    if (!message) {
        return false;
    }
    add(message);
    return true;
}

std::string Definitions::add(const pb::Descriptor* message) {
    std::string name = SchemaPool::definitionName(message);
    if (name.empty()) {
        name = message->full_name();
    }
    if (queued_.insert(name).second) {
        // Another file may provide the definition in place of a fallback one.
        const pb::Descriptor* preferred = pool_.forDefinition(name);
        pending_.push_back({name, preferred ? preferred : message});
    }
    return name;
}

json::Value Definitions::take() {
    while (!pending_.empty()) {
        Pending p = std::move(pending_.front());
        pending_.pop_front();
        json::Value schema;
        if (p.message) {
            schema = render(p.message);
        } else if (auto l = lists_.find(p.name); l != lists_.end()) {
            schema = l->second->custom ? customListObject(*l->second)
                                       : listObject(*l->second, this->kind(*l->second));
        } else if (const registry::KindInfo* k = kinds_.at(p.name); k->custom) {
            schema = customKindObject(*k);
        } else {
            schema = kindObject(*k);
        }
        done_.emplace(p.name, std::move(schema));
    }
    json::Value out(rapidjson::kObjectType);
    for (auto& [name, schema] : done_) {
        out.AddMember(json::stringValue(name, a_), schema, a_);
    }
    done_.clear();
    return out;
}

json::Value Definitions::render(const pb::Descriptor* message) {
    json::Value s(rapidjson::kObjectType);
    std::string description = SchemaPool::description(message);
    if (!description.empty()) {
        addString(s, "description", description, a_);
    }
    switch (message->options().GetExtension(kapi::opt::form)) {
        case kapi::opt::TIME_RFC3339:
        case kapi::opt::MICRO_TIME_RFC3339:
            s.AddMember("type", "string", a_);
            s.AddMember("format", "date-time", a_);
            return s;
        case kapi::opt::INT_OR_STRING:
            if (flavor_ == Flavor::V2) {
                s.AddMember("type", "string", a_);
                s.AddMember("format", "int-or-string", a_);
            } else {
                s.AddMember("format", "int-or-string", a_);
                json::Value oneOf(rapidjson::kArrayType);
                oneOf.PushBack(typeOnly("integer", a_), a_);
                oneOf.PushBack(typeOnly("string", a_), a_);
                s.AddMember("oneOf", oneOf, a_);
                s.AddMember("x-kubernetes-int-or-string", true, a_);
            }
            return s;
        case kapi::opt::QUANTITY:
            if (flavor_ == Flavor::V2) {
                s.AddMember("type", "string", a_);
            } else {
                json::Value oneOf(rapidjson::kArrayType);
                oneOf.PushBack(typeOnly("string", a_), a_);
                oneOf.PushBack(typeOnly("number", a_), a_);
                s.AddMember("oneOf", oneOf, a_);
            }
            return s;
        case kapi::opt::RAW_JSON:
            s.AddMember("type", "object", a_);
            return s;
        case kapi::opt::ANY_JSON:
        case kapi::opt::UNION:
            // Any value, or one of several types: kube gives no type.
            return s;
        case kapi::opt::STRING_LIST: {
            s.AddMember("type", "array", a_);
            json::Value items(rapidjson::kObjectType);
            items.AddMember("type", "string", a_);
            if (flavor_ == Flavor::V3) {
                items.AddMember("default", "", a_);
            }
            s.AddMember("items", items, a_);
            return s;
        }
        case kapi::opt::OBJECT:
            break;
    }
    json::Value o = object(message);
    merge(s, o, a_);
    return s;
}

// A message of the OBJECT form: its fields, flattened ones included, plus
// apiVersion and kind for a top-level kind.
json::Value Definitions::object(const pb::Descriptor* message) {
    json::Value s(rapidjson::kObjectType);
    s.AddMember("type", "object", a_);
    json::Value props(rapidjson::kObjectType);
    json::Value required(rapidjson::kArrayType);
    const std::string& gvk = message->options().GetExtension(kapi::opt::gvk);
    if (!gvk.empty()) {
        props.AddMember("apiVersion", typeMetaProperty(""), a_);
        props.AddMember("kind", typeMetaProperty(gvk.substr(gvk.rfind('/') + 1)), a_);
    }
    properties(message, props, required);
    // kube's documents list properties sorted by name.
    std::map<std::string, json::Value*> sorted;
    for (auto& m : props.GetObject()) {
        sorted.emplace(std::string(m.name.GetString(), m.name.GetStringLength()), &m.value);
    }
    json::Value ordered(rapidjson::kObjectType);
    for (auto& [name, value] : sorted) {
        ordered.AddMember(json::stringValue(name, a_), *value, a_);
    }
    if (ordered.MemberCount() > 0) {
        s.AddMember("properties", ordered, a_);
    }
    if (!required.Empty()) {
        s.AddMember("required", required, a_);
    }
    if (!gvk.empty()) {
        // "apps/v1/Deployment", "v1/Namespace"
        size_t kindAt = gvk.rfind('/');
        size_t versionAt = gvk.rfind('/', kindAt - 1);
        std::string group = versionAt == std::string::npos ? "" : gvk.substr(0, versionAt);
        size_t from = versionAt == std::string::npos ? 0 : versionAt + 1;
        s.AddMember("x-kubernetes-group-version-kind",
                    gvkExtension(group, gvk.substr(from, kindAt - from), gvk.substr(kindAt + 1)),
                    a_);
    }
    return s;
}

void Definitions::properties(const pb::Descriptor* message, json::Value& props,
                             json::Value& required) {
    for (int i = 0; i < message->field_count(); ++i) {
        const pb::FieldDescriptor* f = message->field(i);
        const pb::FieldOptions& o = f->options();
        if (o.GetExtension(kapi::opt::flatten) && f->message_type()) {
            // An embedded Go struct: its members are this object's.
            properties(f->message_type(), props, required);
            continue;
        }
        const std::string& jsonName = o.GetExtension(kapi::opt::json);
        std::string name = jsonName.empty() ? f->name() : jsonName;
        bool isRequired = o.HasExtension(kapi::opt::required) ? o.GetExtension(kapi::opt::required)
                                                              : o.GetExtension(kapi::opt::always);
        if (isRequired) {
            required.PushBack(json::stringValue(name, a_), a_);
        }
        props.AddMember(json::stringValue(name, a_), property(f), a_);
    }
}

json::Value Definitions::property(const pb::FieldDescriptor* f) {
    const pb::FieldOptions& o = f->options();
    bool ptr = o.GetExtension(kapi::opt::ptr);
    json::Value extras(rapidjson::kObjectType);
    std::string description = SchemaPool::description(f);
    if (description.empty() && f->message_type() &&
        SchemaPool::definitionName(f->message_type()) == std::string(kMetaPackage) + "ObjectMeta") {
        // Every kind has it; its .proto rarely says what it is.
        description = kObjectMetaDescription;
    }
    if (!f->is_repeated() && !ptr) {
        // A Go value (not a pointer) defaults to its zero value: kube
        // documents that for structs always and for scalars without omitempty.
        if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
            auto form = f->message_type()->options().GetExtension(kapi::opt::form);
            if (form == kapi::opt::OBJECT || form == kapi::opt::TIME_RFC3339) {
                extras.AddMember("default", json::Value(rapidjson::kObjectType), a_);
            }
        } else if (o.GetExtension(kapi::opt::always)) {
            json::Value zero = valueSchema(f, true);
            if (json::Value* d = json::member(zero, "default")) {
                extras.AddMember("default", *d, a_);
            }
        }
    }
    if (!description.empty()) {
        addString(extras, "description", description, a_);
    }
    const std::string& mergeKey = o.GetExtension(kapi::opt::merge_key);
    std::string strategy = o.GetExtension(kapi::opt::patch_strategy);
    if (strategy.empty() && !mergeKey.empty()) {
        strategy = "merge";
    }
    const std::string& listType = o.GetExtension(kapi::opt::list_type);
    const std::string& mapKeys = o.GetExtension(kapi::opt::map_keys);
    if (!listType.empty()) {
        addString(extras, "x-kubernetes-list-type", listType, a_);
    }
    if (!mapKeys.empty()) {
        json::Value keys(rapidjson::kArrayType);
        std::string_view rest = mapKeys;
        while (!rest.empty()) {
            size_t comma = rest.find(',');
            keys.PushBack(json::stringValue(rest.substr(0, comma), a_), a_);
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
        extras.AddMember("x-kubernetes-list-map-keys", keys, a_);
    }
    if (!mergeKey.empty()) {
        addString(extras, "x-kubernetes-patch-merge-key", mergeKey, a_);
    }
    if (!strategy.empty()) {
        addString(extras, "x-kubernetes-patch-strategy", strategy, a_);
    }

    json::Value s(rapidjson::kObjectType);
    if (f->is_map()) {
        s.AddMember("type", "object", a_);
        s.AddMember("additionalProperties", valueSchema(f->message_type()->map_value(), true), a_);
    } else if (f->is_repeated()) {
        s.AddMember("type", "array", a_);
        s.AddMember("items", valueSchema(f, true), a_);
    } else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        return reference(f->message_type(), std::move(extras));
    } else {
        s = valueSchema(f, false);
    }
    merge(s, extras, a_);
    return s;
}

// The schema of one value of `f`: the field itself, a list element or a map
// value. An element is a Go value, so it defaults to its zero value.
json::Value Definitions::valueSchema(const pb::FieldDescriptor* f, bool element) {
    json::Value s(rapidjson::kObjectType);
    json::Value zero;
    switch (f->type()) {
        case pb::FieldDescriptor::TYPE_MESSAGE:
        case pb::FieldDescriptor::TYPE_GROUP: {
            json::Value siblings(rapidjson::kObjectType);
            auto form = f->message_type()->options().GetExtension(kapi::opt::form);
            // A Go struct value (JSON and the schema unions are structs too).
            if (element && (form == kapi::opt::OBJECT || form == kapi::opt::ANY_JSON ||
                            form == kapi::opt::UNION)) {
                siblings.AddMember("default", json::Value(rapidjson::kObjectType), a_);
            }
            return reference(f->message_type(), std::move(siblings));
        }
        case pb::FieldDescriptor::TYPE_STRING:
        case pb::FieldDescriptor::TYPE_ENUM:
            s.AddMember("type", "string", a_);
            zero.SetString("", a_);
            break;
        case pb::FieldDescriptor::TYPE_BYTES:
            s.AddMember("type", "string", a_);
            s.AddMember("format", "byte", a_);
            zero.SetString("", a_);
            break;
        case pb::FieldDescriptor::TYPE_BOOL:
            s.AddMember("type", "boolean", a_);
            zero.SetBool(false);
            break;
        case pb::FieldDescriptor::TYPE_INT64:
        case pb::FieldDescriptor::TYPE_SINT64:
        case pb::FieldDescriptor::TYPE_SFIXED64:
        case pb::FieldDescriptor::TYPE_UINT64:
        case pb::FieldDescriptor::TYPE_FIXED64:
            s.AddMember("type", "integer", a_);
            s.AddMember("format", "int64", a_);
            zero.SetInt(0);
            break;
        case pb::FieldDescriptor::TYPE_DOUBLE:
            s.AddMember("type", "number", a_);
            s.AddMember("format", "double", a_);
            zero.SetInt(0);
            break;
        case pb::FieldDescriptor::TYPE_FLOAT:
            s.AddMember("type", "number", a_);
            s.AddMember("format", "float", a_);
            zero.SetInt(0);
            break;
        default:  // the 32-bit integers
            s.AddMember("type", "integer", a_);
            s.AddMember("format", "int32", a_);
            zero.SetInt(0);
            break;
    }
    if (element) {
        s.AddMember("default", zero, a_);
    }
    return s;
}

// A reference to the definition of `message`, with `siblings` (description,
// default, extensions) beside it: v2 puts them next to $ref, v3 wraps the
// $ref in allOf when there are any, as kube-openapi does.
json::Value Definitions::reference(const pb::Descriptor* message, json::Value siblings) {
    json::Value ref(rapidjson::kObjectType);
    addString(ref, "$ref", refPath(add(message)), a_);
    if (flavor_ == Flavor::V2 || siblings.MemberCount() == 0) {
        merge(ref, siblings, a_);
        return ref;
    }
    json::Value s(rapidjson::kObjectType);
    json::Value allOf(rapidjson::kArrayType);
    allOf.PushBack(ref, a_);
    s.AddMember("allOf", allOf, a_);
    merge(s, siblings, a_);
    return s;
}

json::Value Definitions::typeMetaProperty(std::string_view kind) {
    json::Value p(rapidjson::kObjectType);
    addString(p, "description",
              kind.empty() ? "The schema version the object is written in: group/version "
                             "(\"apps/v1\"), or only the version for the core group (\"v1\")."
                           : "The object's kind in CamelCase (\"" + std::string(kind) +
                                 "\"). The server knows it from the request's path and fills "
                                 "it in when absent; it cannot be changed.",
              a_);
    p.AddMember("type", "string", a_);
    return p;
}

json::Value Definitions::gvkExtension(std::string_view group, std::string_view version,
                                      std::string_view kind) {
    json::Value gvk(rapidjson::kObjectType);
    addString(gvk, "group", group, a_);
    addString(gvk, "kind", kind, a_);
    addString(gvk, "version", version, a_);
    json::Value list(rapidjson::kArrayType);
    list.PushBack(gvk, a_);
    return list;
}

// A served kind the schema has no message for: an open object that keeps
// every field, so that clients accept whatever the server returns.
json::Value Definitions::kindObject(const registry::KindInfo& kind) {
    json::Value s(rapidjson::kObjectType);
    addString(s, "description",
              kind.kind +
                  " objects. This server has no schema for their fields and keeps "
                  "whatever fields they are given.",
              a_);
    s.AddMember("type", "object", a_);
    json::Value props(rapidjson::kObjectType);
    props.AddMember("apiVersion", typeMetaProperty(""), a_);
    props.AddMember("kind", typeMetaProperty(kind.kind), a_);
    std::string meta = std::string(kMetaPackage) + "ObjectMeta";
    if (const pb::Descriptor* m = pool_.forDefinition(meta)) {
        json::Value siblings(rapidjson::kObjectType);
        siblings.AddMember("default", json::Value(rapidjson::kObjectType), a_);
        addString(siblings, "description", kObjectMetaDescription, a_);
        props.AddMember("metadata", reference(m, std::move(siblings)), a_);
    }
    s.AddMember("properties", props, a_);
    s.AddMember("x-kubernetes-group-version-kind",
                gvkExtension(kind.group, kind.version, kind.kind), a_);
    s.AddMember("x-kubernetes-preserve-unknown-fields", true, a_);
    return s;
}

json::Value Definitions::listObject(const registry::KindInfo& kind, const std::string& itemName) {
    json::Value s(rapidjson::kObjectType);
    addString(s, "description", kind.listKind() + " is a list of " + kind.kind + " objects.", a_);
    s.AddMember("type", "object", a_);
    json::Value props(rapidjson::kObjectType);
    props.AddMember("apiVersion", typeMetaProperty(""), a_);
    json::Value items(rapidjson::kObjectType);
    addString(items, "description", "The " + kind.resource + ", in key order.", a_);
    items.AddMember("type", "array", a_);
    json::Value item(rapidjson::kObjectType);
    addString(item, "$ref", refPath(itemName), a_);
    if (flavor_ == Flavor::V3) {
        json::Value wrapped(rapidjson::kObjectType);
        json::Value allOf(rapidjson::kArrayType);
        allOf.PushBack(item, a_);
        wrapped.AddMember("allOf", allOf, a_);
        item = std::move(wrapped);
    }
    item.AddMember("default", json::Value(rapidjson::kObjectType), a_);
    items.AddMember("items", item, a_);
    props.AddMember("items", items, a_);
    props.AddMember("kind", typeMetaProperty(kind.listKind()), a_);
    std::string meta = std::string(kMetaPackage) + "ListMeta";
    if (const pb::Descriptor* m = pool_.forDefinition(meta)) {
        json::Value siblings(rapidjson::kObjectType);
        siblings.AddMember("default", json::Value(rapidjson::kObjectType), a_);
        addString(siblings, "description",
                  "The list's metadata: its resourceVersion, and the continue token of a "
                  "paginated list.",
                  a_);
        props.AddMember("metadata", reference(m, std::move(siblings)), a_);
    }
    s.AddMember("properties", props, a_);
    json::Value required(rapidjson::kArrayType);
    required.PushBack("items", a_);
    s.AddMember("required", required, a_);
    s.AddMember("x-kubernetes-group-version-kind",
                gvkExtension(kind.group, kind.version, kind.listKind()), a_);
    return s;
}

// A reference to a meta.k8s.io definition ("ObjectMeta") with a description
// beside it.
json::Value Definitions::metaReference(std::string_view name, const char* description) {
    json::Value siblings(rapidjson::kObjectType);
    addString(siblings, "description", description, a_);
    const pb::Descriptor* m = pool_.forDefinition(std::string(kMetaPackage) + std::string(name));
    if (!m) {
        return siblings;
    }
    return reference(m, std::move(siblings));
}

// Mirrors the builder's buildKubeNative: the schema of the CRD version.
json::Value Definitions::customKindObject(const registry::KindInfo& kind) {
    CustomSchemaParts parts;
    parts.flavor = flavor_;
    parts.objectMeta = [&] { return metaReference("ObjectMeta", kObjectMetaDescription); };
    parts.apiVersion = [&] { return typeMetaProperty(""); };
    parts.kind = [&] { return typeMetaProperty(kind.kind); };
    json::Value s = customResourceSchema(kind.custom->openAPIV3Schema, parts, a_);
    s.AddMember("x-kubernetes-group-version-kind",
                gvkExtension(kind.group, kind.version, kind.kind), a_);
    return s;
}

// Mirrors the builder's buildListSchema: unlike the built-in lists, no type
// and a plain reference to the items' definition.
json::Value Definitions::customListObject(const registry::KindInfo& kind) {
    std::string listKind = customListKind(kind);
    json::Value s(rapidjson::kObjectType);
    addString(s, "description", listKind + " is a list of " + kind.kind + " objects.", a_);
    json::Value required(rapidjson::kArrayType);
    required.PushBack("items", a_);
    s.AddMember("required", required, a_);
    json::Value props(rapidjson::kObjectType);
    props.AddMember("apiVersion", typeMetaProperty(""), a_);
    json::Value items(rapidjson::kObjectType);
    addString(items, "description", "The " + kind.resource + ", in key order.", a_);
    items.AddMember("type", "array", a_);
    json::Value item(rapidjson::kObjectType);
    addString(item, "$ref", refPath(this->kind(kind)), a_);
    items.AddMember("items", item, a_);
    props.AddMember("items", items, a_);
    props.AddMember("kind", typeMetaProperty(listKind), a_);
    props.AddMember("metadata",
                    metaReference("ListMeta",
                                  "The list's metadata: its resourceVersion, and the continue "
                                  "token of a paginated list."),
                    a_);
    s.AddMember("properties", props, a_);
    s.AddMember("x-kubernetes-group-version-kind", gvkExtension(kind.group, kind.version, listKind),
                a_);
    return s;
}

}  // namespace kube::openapi
