// Bodies as audit events record them; mirrors the object logging of
// k8s.io/apiserver/pkg/audit/request.go.

#include "audit/objects.hpp"

#include <cctype>

#include "endpoints/protobuf_codec.hpp"
#include "util/yaml.hpp"

namespace kube::audit {

namespace {

namespace json = util::json;

std::string mediaType(std::string_view contentType) {
    std::string_view mt = contentType.substr(0, contentType.find(';'));
    std::string out;
    for (char c : mt) {
        if (c != ' ' && c != '\t') {
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return out;
}

void dropManagedFields(json::Value& obj) {
    if (json::Value* meta = json::member(obj, "metadata")) {
        json::removeMember(*meta, "managedFields");
    }
}

}  // namespace

bool decodeBody(std::string_view contentType, std::string_view body, json::Document& doc) {
    doc.SetNull();
    if (body.empty()) {
        return false;
    }

    if (body.substr(0, endpoints::kProtobufMagic.size()) == endpoints::kProtobufMagic) {
        endpoints::ProtobufEnvelope envelope;
        if (endpoints::parseProtobufEnvelope(body, &envelope) ||
            endpoints::protobufToJson(envelope, doc)) {
            doc.SetNull();
            return false;
        }
        return true;
    }

    std::string mt = mediaType(contentType);
    std::optional<std::string> err;
    if (mt.find("yaml") != std::string::npos) {
        err = util::yaml::toJson(body, doc);
    } else {
        err = json::parse(body, doc);
    }
    if (err) {
        doc.SetNull();
        return false;
    }
    return !doc.IsNull();
}

std::string eventObject(json::Value& obj, bool omitManagedFields) {
    if (omitManagedFields && obj.IsObject()) {
        dropManagedFields(obj);
        if (json::Value* items = json::member(obj, "items"); items && items->IsArray()) {
            for (json::Value& item : items->GetArray()) {
                dropManagedFields(item);
            }
        }
    }
    return escapeRawJson(json::serialize(obj));
}

ResponseStatus responseStatusOf(int code, const json::Value* body) {
    ResponseStatus rs;
    rs.code = code;
    if (body == nullptr || json::stringMember(*body, "kind") != "Status") {
        return rs;
    }
    // metav1.Status's members after metadata, in its order
    for (std::string_view name : {"status", "message", "reason", "details"}) {
        const json::Value* v = json::member(*body, name);
        if (v == nullptr || v->IsNull()) {
            continue;
        }
        if (!rs.fields.empty()) {
            rs.fields += ',';
        }
        rs.fields += '"';
        rs.fields += name;
        rs.fields += "\":";
        rs.fields += escapeRawJson(json::serialize(*v));
    }
    return rs;
}

void fillObjectRef(ObjectReference& ref, const json::Value& obj) {
    const json::Value* meta = json::member(obj, "metadata");
    if (meta == nullptr) {
        return;
    }
    auto fill = [&](std::string& field, std::string_view name) {
        if (field.empty()) {
            field = json::stringMember(*meta, name);
        }
    };
    fill(ref.namespace_, "namespace");
    fill(ref.name, "name");
    fill(ref.uid, "uid");
    fill(ref.resourceVersion, "resourceVersion");
}

}  // namespace kube::audit
