// A Kubernetes protobuf request body ("k8s\0" + runtime.Unknown) on any
// bytes: the envelope, then the object as the message its apiVersion and kind
// name (seeds from kube's wire for several kinds), then its JSON form.
#include <cstdlib>
#include <string>

#include "endpoints/protobuf_codec.hpp"
#include "fuzz_input.hpp"
#include "util/json.hpp"

namespace json = kube::util::json;
namespace endpoints = kube::endpoints;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    endpoints::ProtobufEnvelope envelope;
    if (endpoints::parseProtobufEnvelope(kube::fuzz::text(data, size), &envelope)) {
        return 0;
    }
    json::Document doc;
    if (endpoints::protobufToJson(envelope, doc)) {
        return 0;
    }
    json::Document back;
    if (json::parse(json::serialize(doc), back)) {
        std::abort();  // the JSON form of a protobuf object is not JSON
    }
    return 0;
}
