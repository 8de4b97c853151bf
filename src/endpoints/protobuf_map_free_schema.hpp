#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

// The protobuf writer's view of a schema whose maps hold messages: the same
// messages with each such map declared as the list of entries it is on the
// wire (repeated XxxEntry {key = 1; value = 2}). Filling a map through
// reflection keeps its entries as a list that serialization then copies, whole
// subtree and all, into the map at every level: a JSONSchemaProps nested N deep
// cost O(N²) (2,500 levels: 12 s). Entries of a plain list are added and
// serialized once each. The writer sorts the entries by key itself, as
// deterministic serialization (and Go) sort map keys.
namespace kube::endpoints {

// The message to build in place of `d` (from the writer's own pool), or `d`
// itself when no message it reaches has a map of messages (generated code is
// faster). Thread-safe; built once.
const google::protobuf::Descriptor* mapFreeSchema(const google::protobuf::Descriptor* d);

// A new, empty message of `d` (generated or from mapFreeSchema) on `arena`.
google::protobuf::Message* newMessage(const google::protobuf::Descriptor* d,
                                      google::protobuf::Arena* arena);

// Whether `f` is a map, or a list of entries that mapFreeSchema made of one.
bool isMapField(const google::protobuf::FieldDescriptor* f);

}  // namespace kube::endpoints
