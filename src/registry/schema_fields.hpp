#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace google::protobuf {
class Descriptor;
class FieldDescriptor;
}  // namespace google::protobuf

// The members of a schema message's JSON object (src/apis/proto): each
// field by its JSON name (the kapi.opt.json option, else the field's name),
// and in place of a flattened field (Go's inline struct) the members of its
// message.
namespace kube::registry {

struct SchemaFields {
    // Declaration order; of two fields with one name, the first is kept.
    std::vector<std::pair<std::string, const google::protobuf::FieldDescriptor*>> ordered;
    std::unordered_map<std::string, const google::protobuf::FieldDescriptor*> byName;
};

// The members of `message`, built once per message (any thread may call);
// descriptors live as long as the program.
const SchemaFields& schemaFields(const google::protobuf::Descriptor* message);

}  // namespace kube::registry
