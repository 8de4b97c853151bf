#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/json.hpp"

namespace google::protobuf {
class Descriptor;
class FieldDescriptor;
class Message;
}

// Kubernetes protobuf bodies (application/vnd.kubernetes.protobuf), read
// generically through the schema in src/apis/proto: no code per kind. This
// header keeps protobuf's own headers away from its includers.
namespace kube::endpoints {

// The four bytes ("k8s\0") in front of every Kubernetes protobuf body.
inline constexpr std::string_view kProtobufMagic{"k8s\0", 4};

// What the envelope (a runtime.Unknown after the magic) carries.
struct ProtobufEnvelope {
    std::string apiVersion;  // typeMeta.apiVersion, "" when absent
    std::string kind;        // typeMeta.kind, "" when absent
    std::string raw;         // the object without its apiVersion and kind
};

// Mirrors the first half of protobuf.Serializer.Decode: checks the magic and
// parses the Unknown. On failure returns Go's wording ("empty data",
// "provided data does not appear to be a protobuf message, expected prefix
// [107 56 115 0]", "unexpected EOF", ...).
std::optional<std::string> parseProtobufEnvelope(std::string_view body, ProtobufEnvelope* out);

// The fields of a UNION message (src/apis/proto/kapi/opts.proto), each null
// when the union has none: the repeated one (a JSON array), the message one
// (an object) and the bool one (a boolean).
struct UnionFields {
    const google::protobuf::FieldDescriptor* list = nullptr;
    const google::protobuf::FieldDescriptor* object = nullptr;
    const google::protobuf::FieldDescriptor* flag = nullptr;
};
UnionFields unionFields(const google::protobuf::Descriptor* d);

// Builds, once, the tables the codec and the schema walkers read lazily
// otherwise (messages by kind, each message's members): called at start-up,
// so that no request, on the loop or a pool thread, builds or waits for them.
void prepareProtobufSchemas();

// Whether the schema has a message for apiVersion + kind (its `gvk` option).
bool hasProtobufSchema(std::string_view apiVersion, std::string_view kind);

// The schema's message for apiVersion + kind; nullptr when there is none.
const google::protobuf::Descriptor* protobufSchema(std::string_view apiVersion,
                                                   std::string_view kind);

// Decodes `envelope.raw` as the message of its apiVersion + kind and writes
// the object's JSON form into `out`: kind and apiVersion first, then the
// fields as kube-apiserver's JSON would show them (omitempty, pointers,
// Time, IntOrString, Quantity, base64 bytes, sorted map keys). On failure
// returns why (no schema for the kind, malformed or truncated bytes).
std::optional<std::string> protobufToJson(const ProtobufEnvelope& envelope,
                                          util::json::Document& out);

// The JSON form of any message of the schema by the same rules (no kind or
// apiVersion added): what a Status or WatchEvent message shows as JSON.
std::optional<std::string> protobufMessageToJson(const google::protobuf::Message& m,
                                                 util::json::Document& out);

}  // namespace kube::endpoints
