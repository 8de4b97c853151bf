#include "endpoints/decode.hpp"

#include "endpoints/protobuf_codec.hpp"
#include "util/json_depth.hpp"
#include "util/yaml.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

constexpr size_t kSummaryLength = 30;

// What kube's version/kind sniffing decodes a JSON body into, as Go names it.
constexpr std::string_view kTypeMetaStruct =
    R"(struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string )"
    R"("json:\"kind,omitempty\"" })";

// sigs.k8s.io/yaml's Unmarshal puts this before its errors; YAMLToJSON, which
// the decoder calls, does not.
constexpr std::string_view kYamlErrorPrefix = "error converting YAML to JSON: ";

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
        *error = meta::Status::badRequest(
            "the API version in the data (" + std::string(apiVersion) +
            ") does not match the expected API version (" + kind.apiVersion() + ")");
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
        *error =
            meta::Status::badRequest("the object provided is unrecognized (must be of type " +
                                     kind.kind + "): " + *why + " (" + summarizeBody(body) + ")");
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

// The first type error of kube's version/kind sniffing (encoding/json into
// kTypeMetaStruct): a body that is not an object, or an apiVersion or kind
// that is not a string (null is no value at all).
std::optional<std::string> typeMetaError(const json::Value& doc) {
    if (!doc.IsObject()) {
        return "json: cannot unmarshal " + std::string(json::typeName(doc)) +
               " into Go value of type " + std::string(kTypeMetaStruct);
    }
    for (const auto& m : doc.GetObject()) {
        std::string_view name = json::view(m.name);
        if ((name == "apiVersion" || name == "kind") && !m.value.IsString() && !m.value.IsNull()) {
            return "json: cannot unmarshal " + std::string(json::typeName(m.value)) +
                   " into Go struct field ." + std::string(name) + " of type string";
        }
    }
    return std::nullopt;
}

// The JSON text kube makes of a YAML body is decoded with encoding/json's
// depth limit too.
std::optional<std::string> depthError(const json::Value& doc) {
    if (std::optional<char> open = json::firstTooDeep(doc)) {
        return std::string("invalid character '") + *open + "' exceeded max depth";
    }
    return std::nullopt;
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
                                             const registry::KindInfo& kind, meta::Status* error) {
    auto doc = std::make_shared<json::Document>();
    std::optional<std::string> parseError;
    if (form == InputForm::Protobuf) {
        if (!decodeProtobuf(body, kind, *doc, error)) {
            return nullptr;
        }
    } else if (form == InputForm::Yaml) {
        parseError = util::yaml::toJson(body, *doc);
        if (parseError && parseError->starts_with(kYamlErrorPrefix)) {
            parseError->erase(0, kYamlErrorPrefix.size());
        }
    } else {
        parseError = json::parse(body, *doc);
    }
    // YAML is converted to JSON first and reports its own error; the JSON
    // fails where kube sniffs the version and kind.
    std::optional<std::string> sniffError;
    if (!parseError && form == InputForm::Yaml) {
        sniffError = depthError(*doc);
    }
    if (!parseError && !sniffError && doc->IsNull()) {
        doc->SetObject();  // a null body decodes as an empty object
    }
    if (!parseError && !sniffError) {
        sniffError = typeMetaError(*doc);
    }
    if (parseError || sniffError) {
        std::string why = parseError ? *parseError : *sniffError;
        if (form == InputForm::Json || sniffError) {
            why = "couldn't get version/kind; json parse error: " + why;
        }
        *error =
            meta::Status::badRequest("the object provided is unrecognized (must be of type " +
                                     kind.kind + "): " + why + " (" + summarizeBody(body) + ")");
        return nullptr;
    }
    auto& a = doc->GetAllocator();
    std::string_view apiVersion = json::stringMember(*doc, "apiVersion");
    std::string_view objKind = json::stringMember(*doc, "kind");
    if (!checkTypeMeta(apiVersion, objKind, kind, error)) {
        return nullptr;
    }
    if (const json::Value* m = json::member(*doc, "metadata");
        m && !m->IsObject() && !m->IsNull()) {
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
