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

    // The kapi.opt options of the message and of its own fields (by field
    // index, flattened ones included), read from the descriptors once: the
    // protobuf codecs consult them for every field of every object.
    struct FieldOptions {
        bool always = false;
        bool flatten = false;
        bool ptr = false;
        // The JSON name: the json option, else the field's name.
        const std::string* json = nullptr;
    };
    int form = 0;  // kapi::opt::JsonForm
    std::vector<FieldOptions> options;
};

// Builds the members of `roots` and of every message reachable from them
// through message-typed fields, once (later calls do nothing). Call it at
// start-up, before requests are served: schemaFields() then reads a table
// no thread writes, and neither the event loop nor a pool thread ever waits
// on a lock for it.
void prepareSchemaFields(const std::vector<const google::protobuf::Descriptor*>& roots);

// The members of `message`; any thread may call, and none waits. A message
// prepareSchemaFields did not reach (only in unit tests that prepare
// nothing) is built into a table of the calling thread. Descriptors live as
// long as the program.
const SchemaFields& schemaFields(const google::protobuf::Descriptor* message);

}  // namespace kube::registry
