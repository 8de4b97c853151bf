#include "registry/encoding.hpp"

#include <array>

namespace kube::registry {

namespace {

// metav1.ObjectMeta field order.
constexpr std::array<std::string_view, 16> kMetadataOrder = {"name",
                                                             "generateName",
                                                             "namespace",
                                                             "selfLink",
                                                             "uid",
                                                             "resourceVersion",
                                                             "generation",
                                                             "creationTimestamp",
                                                             "deletionTimestamp",
                                                             "deletionGracePeriodSeconds",
                                                             "labels",
                                                             "annotations",
                                                             "ownerReferences",
                                                             "finalizers",
                                                             "managedFields",
                                                             "clusterName"};

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key(Writer& w, std::string_view k) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}

bool isKnownMetadataField(std::string_view name) {
    for (std::string_view k : kMetadataOrder) {
        if (k == name) {
            return true;
        }
    }
    return false;
}

void writeMetadata(Writer& w, rapidjson::StringBuffer& buf, const json::Value& meta,
                   bool withRevisionSlot, size_t* revisionOffset) {
    w.StartObject();
    for (std::string_view field : kMetadataOrder) {
        if (field == "resourceVersion") {
            if (withRevisionSlot) {
                key(w, field);
                w.String("");
                *revisionOffset = buf.GetSize() - 1;  // between the quotes
            }
            continue;
        }
        if (const json::Value* v = json::member(meta, field)) {
            key(w, field);
            v->Accept(w);
        }
    }
    for (const auto& m : meta.GetObject()) {
        if (!isKnownMetadataField(json::view(m.name))) {
            m.name.Accept(w);
            m.value.Accept(w);
        }
    }
    w.EndObject();
}

}  // namespace

EncodedObject encodeObject(const json::Value& obj, bool withRevisionSlot) {
    EncodedObject out;
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    for (std::string_view k : {"kind", "apiVersion"}) {
        if (const json::Value* v = json::member(obj, k)) {
            key(w, k);
            v->Accept(w);
        }
    }
    static const json::Value emptyMeta(rapidjson::kObjectType);
    const json::Value* meta = json::member(obj, "metadata");
    key(w, "metadata");
    writeMetadata(w, buf, meta && meta->IsObject() ? *meta : emptyMeta, withRevisionSlot,
                  &out.revisionOffset);
    // Then the kind's own fields as given, and status last (Go's order:
    // every built-in kind declares Status after its other fields).
    for (const auto& m : obj.GetObject()) {
        std::string_view name = json::view(m.name);
        if (name != "kind" && name != "apiVersion" && name != "metadata" && name != "status") {
            m.name.Accept(w);
            m.value.Accept(w);
        }
    }
    if (const json::Value* status = json::member(obj, "status")) {
        key(w, "status");
        status->Accept(w);
    }
    w.EndObject();
    out.bytes.assign(buf.GetString(), buf.GetSize());
    return out;
}

std::string storedPrefix(const KindInfo& kind) {
    std::string p = "{\"kind\":";
    json::appendQuoted(p, kind.kind);
    p += ",\"apiVersion\":";
    json::appendQuoted(p, kind.storageApiVersion());
    p += ",";
    return p;
}

std::string servedObject(const KindInfo& kind, std::string_view stored) {
    std::string from = storedPrefix(kind);
    if (kind.servedAtStorageVersion() || !stored.starts_with(from)) {
        return std::string(stored);
    }
    if (kind.storedAs) {
        json::Document doc;
        if (json::parse(stored, doc) || !doc.IsObject()) {
            return std::string(stored);
        }
        kind.storedAs->fromStorage(doc, doc.GetAllocator());
        return json::serialize(doc);
    }
    std::string out = "{\"kind\":";
    json::appendQuoted(out, kind.kind);
    out += ",\"apiVersion\":";
    json::appendQuoted(out, kind.apiVersion());
    out += ",";
    out.append(stored.substr(from.size()));
    return out;
}

std::string_view appendListItemHead(std::string& out, std::string_view stored,
                                    std::string_view prefix) {
    if (!stored.starts_with(prefix)) {
        return stored;
    }
    out += '{';
    return stored.substr(prefix.size());
}

void appendListItem(std::string& out, std::string_view stored, std::string_view prefix) {
    out.append(appendListItemHead(out, stored, prefix));
}

std::string withResourceVersion(std::string_view stored, uint64_t revision) {
    // Stored objects are written by encodeObject: metadata's keys before
    // resourceVersion (name, generateName, namespace, selfLink, uid) are
    // names and UIDs, which cannot hold a quote, so the first match after
    // "metadata" is the field itself.
    constexpr std::string_view field = "\"resourceVersion\":\"";
    size_t meta = stored.find("\"metadata\":{");
    size_t at = meta == std::string_view::npos ? meta : stored.find(field, meta);
    size_t end = at == std::string_view::npos ? at : stored.find('"', at + field.size());
    if (end != std::string_view::npos) {
        std::string out;
        out.reserve(stored.size() + 20);
        out.append(stored.substr(0, at + field.size()));
        out += std::to_string(revision);
        out.append(stored.substr(end));
        return out;
    }
    json::Document doc;
    if (json::parse(stored, doc) || !doc.IsObject()) {
        return std::string(stored);
    }
    json::Value* m = json::member(doc, "metadata");
    if (!m || !m->IsObject()) {
        return std::string(stored);
    }
    auto& a = doc.GetAllocator();
    m->RemoveMember("resourceVersion");
    m->AddMember("resourceVersion", json::stringValue(std::to_string(revision), a), a);
    return encodeObject(doc, false).bytes;
}

std::string objectKey(const KindInfo& kind, std::string_view ns, std::string_view name) {
    std::string k = collectionPrefix(kind, ns);
    k.append(name);
    return k;
}

std::string collectionPrefix(const KindInfo& kind, std::string_view ns) {
    // Built-in kinds live under /registry/<resource>/, custom resources
    // under /registry/<group>/<resource>/, as in kube's etcd (a group always
    // holds a dot, a resource never does).
    std::string k = "/registry/";
    if (kind.custom) {
        k += kind.group;
        k += '/';
    }
    k += kind.resource;
    k += '/';
    if (kind.namespaced && !ns.empty()) {
        k.append(ns);
        k += '/';
    }
    return k;
}

}  // namespace kube::registry
