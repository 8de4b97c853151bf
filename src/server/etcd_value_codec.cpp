#include "server/etcd_value_codec.hpp"

#include "apis/apiextensions/v1beta1_conversion.hpp"
#include "endpoints/protobuf_codec.hpp"
#include "endpoints/protobuf_encoder.hpp"
#include "registry/encoding.hpp"
#include "util/json.hpp"

namespace kube::server {

namespace {

namespace json = util::json;

// kube-apiserver stores these groups' kinds with a JSON codec of their own.
bool storedAsJson(std::string_view apiVersion) {
    return apiVersion.starts_with("apiextensions.k8s.io/") ||
           apiVersion.starts_with("apiregistration.k8s.io/");
}

// Versions whose messages are the same on the wire (fields renamed, none
// renumbered): kube 1.26 stores API priority and fairness at v1beta2, which
// it reads and this server's v1 messages read alike.
struct SameWire {
    std::string_view here;    // the version this server stores at
    std::string_view stored;  // the version kube 1.26 stores at, written in the envelope
};
constexpr SameWire kSameWire[] = {
    {"flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta2"},
};
// Versions read with this server's messages for another one.
constexpr SameWire kReadAs[] = {
    {"flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta2"},
    {"flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta3"},
};

std::string_view envelopeVersion(std::string_view apiVersion) {
    for (const SameWire& v : kSameWire) {
        if (v.here == apiVersion) {
            return v.stored;
        }
    }
    return apiVersion;
}

void readAs(std::string& apiVersion) {
    for (const SameWire& v : kReadAs) {
        if (v.stored == apiVersion) {
            apiVersion = v.here;
            return;
        }
    }
}

bool encode(std::string_view, std::string_view value, std::string* out, std::string* error) {
    json::Document doc;
    if (auto err = json::parse(value, doc)) {
        *error = *err;
        return false;
    }
    if (!doc.IsObject()) {
        *error = "not a JSON object";
        return false;
    }
    std::string apiVersion(json::stringMember(doc, "apiVersion"));
    std::string kind(json::stringMember(doc, "kind"));
    if (!storedAsJson(apiVersion) && endpoints::hasProtobufSchema(apiVersion, kind)) {
        // The registry's empty resourceVersion is what kube writes too: its
        // store clears the field before encoding, and gogo writes an empty
        // string field all the same.
        std::string raw;
        if (!endpoints::encodeProtobufRaw(doc, apiVersion, kind, &raw)) {
            *out = endpoints::protobufEnvelope(envelopeVersion(apiVersion), kind, raw);
            return true;
        }
        // An object the schema cannot hold stays JSON, which kube reads too.
    }
    *out = registry::encodeObject(doc, false).bytes;
    return true;
}

bool decode(std::string_view, std::string_view stored, std::string* out, std::string* error) {
    json::Document doc;
    if (stored.starts_with(endpoints::kProtobufMagic)) {
        endpoints::ProtobufEnvelope envelope;
        if (auto err = endpoints::parseProtobufEnvelope(stored, &envelope)) {
            *error = *err;
            return false;
        }
        readAs(envelope.apiVersion);
        if (auto err = endpoints::protobufToJson(envelope, doc)) {
            *error = *err;
            return false;
        }
    } else if (auto err = json::parse(stored, doc)) {
        *error = *err;
        return false;
    }
    if (!doc.IsObject()) {
        *error = "not a JSON object";
        return false;
    }
    // kube 1.26 stores CRDs at v1beta1, which this server reads as v1.
    apis::apiextensions::convertStoredV1beta1(doc, doc.GetAllocator());
    *out = registry::encodeObject(doc, true).bytes;
    return true;
}

}  // namespace

storage::etcd::ValueCodec kubeValueCodec() {
    return {encode, decode};
}

}  // namespace kube::server
