#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apis/meta/status.hpp"
#include "util/json.hpp"

// Responses in protobuf (application/vnd.kubernetes.protobuf): our JSON form
// of an object written as the message its kind's schema names, the mirror
// image of protobufToJson, plus the envelope, list, Status and watch framing
// around it. Generic over src/apis/proto: no code per kind.
namespace kube::endpoints {

// Mirrors the gogo Marshal of the kind's Go struct: `obj` (our JSON form,
// kind and apiVersion included or not) becomes the message of apiVersion +
// kind, serialized deterministically without its TypeMeta. Plain Go fields
// are written even when zero or absent, pointers only when set, maps sorted
// by key; Time, MicroTime, IntOrString, Quantity, raw JSON and base64 bytes
// take their wire forms. On failure returns why (no schema for the kind, a
// value of the wrong JSON type at a named field).
std::optional<std::string> encodeProtobufRaw(const util::json::Value& obj,
                                             std::string_view apiVersion, std::string_view kind,
                                             std::string* raw);

// Mirrors protobuf.Serializer.Encode: "k8s\0" and a runtime.Unknown with
// typeMeta, `raw`, and the empty contentEncoding and contentType written out.
std::string protobufEnvelope(std::string_view apiVersion, std::string_view kind,
                             std::string_view raw);

// The envelope split around raw bytes that are written separately (a list
// streamed item by item): the head ends with the length of raw, so
// `rawSize` must be known first; the tail follows the raw bytes.
std::string protobufEnvelopeHead(std::string_view apiVersion, std::string_view kind,
                                 size_t rawSize);
inline constexpr std::string_view kProtobufEnvelopeTail{"\x1a\x00\x22\x00", 4};

// A stored object (JSON bytes) as a whole protobuf body of apiVersion + kind.
std::optional<std::string> encodeProtobufObject(std::string_view stored,
                                                std::string_view apiVersion, std::string_view kind,
                                                std::string* out);

// A Status as kube writes it in protobuf: apiVersion "v1", kind "Status"
// whatever the request's group; a success has code 0, as its JSON has none.
std::string encodeProtobufStatus(const meta::Status& s);

// A <Kind>List's raw bytes are `metadata = 1` (ListMeta) then `items = 2`
// (each the item's raw bytes, without TypeMeta): the same for every kind, so
// lists need no message of their own. These write the two fields.
std::string protobufListMeta(std::string_view resourceVersion, std::string_view continueToken,
                             std::optional<uint64_t> remainingItemCount);
void appendProtobufListItem(std::string& out, std::string_view itemRaw);
// What precedes an item of `size` bytes (its field's tag and length), for an
// item written from where it is.
void appendProtobufListItemHead(std::string& out, size_t size);

// One event of a protobuf watch (mirrors the watch encoder with protobuf's
// stream serializer and length-delimited framer): a 4-byte big-endian length,
// then a WatchEvent, not enveloped, whose object is `objectEnvelope` (the
// object's or Status's whole protobuf body).
std::string protobufWatchFrame(std::string_view type, std::string_view objectEnvelope);

}  // namespace kube::endpoints
