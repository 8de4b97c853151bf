#include "registry/service/ip_address_objects.hpp"

#include "util/json.hpp"
#include "util/time.hpp"
#include "util/uid.hpp"

namespace kube::registry::service {

namespace {

namespace json = util::json;

// The fields the allocator's create sets, as kube's field manager records
// them for its loopback client (manager "kube-apiserver", from its user agent).
constexpr const char* kFieldsV1 =
    R"({"f:metadata":{"f:labels":{".":{},"f:ipaddress.kubernetes.io/ip-family":{},)"
    R"("f:ipaddress.kubernetes.io/managed-by":{}}},)"
    R"("f:spec":{"f:parentRef":{".":{},"f:name":{},"f:namespace":{},"f:resource":{}}}})";

}  // namespace

std::string ipAddressKey(std::string_view ip) {
    return std::string(kIPAddressesPrefix) + std::string(ip);
}

std::string_view ipFamilyOf(std::string_view ip) {
    return ip.find(':') == std::string_view::npos ? "IPv4" : "IPv6";
}

EncodedObject encodeIPAddress(std::string_view ip, std::string_view ns, std::string_view name,
                              std::chrono::system_clock::time_point now) {
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    std::string created = util::time::formatRFC3339(now);
    doc.AddMember("kind", "IPAddress", a);
    doc.AddMember("apiVersion", "networking.k8s.io/v1", a);
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("name", json::stringValue(ip, a), a);
    meta.AddMember("uid", json::stringValue(util::newUid(), a), a);
    meta.AddMember("creationTimestamp", json::stringValue(created, a), a);
    json::Value labels(rapidjson::kObjectType);
    labels.AddMember(json::ref(kIPFamilyLabel), json::stringValue(ipFamilyOf(ip), a), a);
    labels.AddMember(json::ref(kManagedByLabel), json::ref(kIPAllocatorName), a);
    meta.AddMember("labels", labels, a);
    json::Document fields;
    fields.Parse(kFieldsV1);
    json::Value entry(rapidjson::kObjectType);
    entry.AddMember("manager", "kube-apiserver", a);
    entry.AddMember("operation", "Update", a);
    entry.AddMember("apiVersion", "networking.k8s.io/v1", a);
    entry.AddMember("time", json::stringValue(created, a), a);
    entry.AddMember("fieldsType", "FieldsV1", a);
    entry.AddMember("fieldsV1", json::Value(fields, a), a);
    json::Value managed(rapidjson::kArrayType);
    managed.PushBack(entry, a);
    meta.AddMember("managedFields", managed, a);
    doc.AddMember("metadata", meta, a);
    // ParentReference's fields are all omitempty: the core group is left out.
    json::Value ref(rapidjson::kObjectType);
    ref.AddMember("resource", "services", a);
    if (!ns.empty()) {
        ref.AddMember("namespace", json::stringValue(ns, a), a);
    }
    ref.AddMember("name", json::stringValue(name, a), a);
    json::Value spec(rapidjson::kObjectType);
    spec.AddMember("parentRef", ref, a);
    doc.AddMember("spec", spec, a);
    return encodeObject(doc);
}

storage::WriteOp ipAddressWrite(std::string_view ip, std::string_view ns, std::string_view name,
                                std::chrono::system_clock::time_point now,
                                storage::Revision replacing) {
    EncodedObject enc = encodeIPAddress(ip, ns, name, now);
    storage::WriteOp op;
    op.type = replacing ? storage::WriteOp::Type::Update : storage::WriteOp::Type::Create;
    op.key = ipAddressKey(ip);
    op.expectedModRevision = replacing;
    op.value = std::move(enc.bytes);
    op.revisionOffset = enc.revisionOffset;
    return op;
}

storage::WriteOp ipAddressDelete(std::string_view ip, storage::Revision modRevision) {
    storage::WriteOp op;
    op.type = storage::WriteOp::Type::Delete;
    op.key = ipAddressKey(ip);
    op.expectedModRevision = modRevision;
    return op;
}

std::optional<IPAddressRecord> decodeIPAddress(std::string_view bytes) {
    json::Document doc;
    if (json::parse(bytes, doc) || !doc.IsObject()) {
        return std::nullopt;
    }
    IPAddressRecord r;
    const json::Value* meta = json::member(doc, "metadata");
    if (meta && meta->IsObject()) {
        r.name = std::string(json::stringMember(*meta, "name"));
        const json::Value* labels = json::member(*meta, "labels");
        if (labels && labels->IsObject()) {
            r.managedByAllocator = json::stringMember(*labels, kManagedByLabel) == kIPAllocatorName;
            r.labelsMatch = r.managedByAllocator &&
                            json::stringMember(*labels, kIPFamilyLabel) == ipFamilyOf(r.name);
        }
    }
    if (const json::Value* ref = json::at(doc, {"spec", "parentRef"}); ref && ref->IsObject()) {
        r.group = std::string(json::stringMember(*ref, "group"));
        r.resource = std::string(json::stringMember(*ref, "resource"));
        r.ns = std::string(json::stringMember(*ref, "namespace"));
        r.parentName = std::string(json::stringMember(*ref, "name"));
    }
    return r;
}

}  // namespace kube::registry::service
