#include "endpoints/decode.hpp"

#include "endpoints/protobuf_codec.hpp"
#include "util/yaml.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

constexpr size_t kSummaryLength = 30;

std::string hex(std::string_view s) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

// The apiVersion and kind a body names (empty: not named) against the
// endpoint's; mirrors the version check of handlers/create.go and the kind
// check of the versioning decoder.
bool checkTypeMeta(std::string_view apiVersion, std::string_view objKind,
                   const registry::KindInfo& kind, meta::Status* error) {
    if (!apiVersion.empty() && apiVersion != kind.apiVersion()) {
        *error = meta::Status::badRequest("the API version in the data (" +
                                          std::string(apiVersion) +
                                          ") does not match the expected API version (" +
                                          kind.apiVersion() + ")");
        return false;
    }
    if (!objKind.empty() && objKind != kind.kind) {
        std::string version = kind.version;
        *error = meta::Status::badRequest(
            std::string(objKind) + " in version \"" + version + "\" cannot be handled as a " +
            kind.kind + ": the kind of the object (" + std::string(objKind) +
            ") does not match the kind of the resource (" + kind.kind + ")");
        return false;
    }
    return true;
}

// Mirrors protobuf.Serializer.Decode as the create handler reports it: a
// broken envelope is "unrecognized", a broken object "cannot be handled".
// The envelope's apiVersion and kind default to the endpoint's.
bool decodeProtobuf(std::string_view body, const registry::KindInfo& kind, json::Document& doc,
                    meta::Status* error) {
    ProtobufEnvelope envelope;
    if (auto why = parseProtobufEnvelope(body, &envelope)) {
        *error = meta::Status::badRequest("the object provided is unrecognized (must be of type " +
                                          kind.kind + "): " + *why + " (" + summarizeBody(body) +
                                          ")");
        return false;
    }
    if (envelope.apiVersion.empty()) {
        envelope.apiVersion = kind.apiVersion();
    }
    if (envelope.kind.empty()) {
        envelope.kind = kind.kind;
    }
    if (!checkTypeMeta(envelope.apiVersion, envelope.kind, kind, error)) {
        return false;
    }
    if (auto why = protobufToJson(envelope, doc)) {
        *error = meta::Status::badRequest(kind.kind + " in version \"" + kind.version +
                                          "\" cannot be handled as a " + kind.kind + ": " + *why);
        return false;
    }
    return true;
}

}  // namespace

std::string summarizeBody(std::string_view body) {
    if (body.empty()) {
        return "<empty>";
    }
    bool text = body.front() == '{';
    std::string_view cut = body.substr(0, kSummaryLength);
    std::string out = text ? std::string(cut) : hex(cut);
    if (body.size() > kSummaryLength) {
        out += " ...";
    }
    return out;
}

std::shared_ptr<json::Document> decodeObject(std::string_view body, InputForm form,
                                             const registry::KindInfo& kind,
                                             meta::Status* error) {
    auto doc = std::make_shared<json::Document>();
    std::optional<std::string> parseError;
    if (form == InputForm::Protobuf) {
        if (!decodeProtobuf(body, kind, *doc, error)) {
            return nullptr;
        }
    } else if (form == InputForm::Yaml) {
        parseError = util::yaml::toJson(body, *doc);
    } else {
        parseError = json::parse(body, *doc);
    }
    if (parseError || !doc->IsObject()) {
        // YAML is converted to JSON first and reports its own error; JSON
        // fails where kube sniffs the version and kind.
        std::string why = parseError ? *parseError : "the body is not a JSON object";
        if (form == InputForm::Json || !parseError) {
            why = "couldn't get version/kind; json parse error: " + why;
        }
        *error = meta::Status::badRequest("the object provided is unrecognized (must be of type " +
                                          kind.kind + "): " + why + " (" + summarizeBody(body) +
                                          ")");
        return nullptr;
    }
    auto& a = doc->GetAllocator();
    std::string_view apiVersion = json::stringMember(*doc, "apiVersion");
    std::string_view objKind = json::stringMember(*doc, "kind");
    if (!checkTypeMeta(apiVersion, objKind, kind, error)) {
        return nullptr;
    }
    if (const json::Value* m = json::member(*doc, "metadata"); m && !m->IsObject() && !m->IsNull()) {
        *error = meta::Status::badRequest(
            kind.kind + " in version \"" + kind.version + "\" cannot be handled as a " + kind.kind +
            ": json: cannot unmarshal " + std::string(json::typeName(*m)) +
            " into Go struct field " + kind.kind + ".metadata of type v1.ObjectMeta");
        return nullptr;
    }
    if (!json::member(*doc, "metadata") || (*doc)["metadata"].IsNull()) {
        json::setMember(*doc, "metadata", json::Value(rapidjson::kObjectType), a);
    }
    json::setMember(*doc, "apiVersion", json::stringValue(kind.apiVersion(), a), a);
    json::setMember(*doc, "kind", json::stringValue(kind.kind, a), a);
    return doc;
}

}  // namespace kube::endpoints
