#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace google::protobuf {
class Descriptor;
}

namespace kube::registry::patch {

// How a strategic merge patch treats one field; mirrors strategicpatch.PatchMeta
// (the Go struct tags patchStrategy and patchMergeKey).
struct PatchMeta {
    // "merge", "retainKeys", "replace", or two of them ("merge,retainKeys").
    std::vector<std::string> strategies;
    // The key that identifies the items of a merging list of objects.
    std::string mergeKey;
};

struct PatchField;

// The fields of one JSON object as a strategic merge patch sees them; mirrors
// strategicpatch.PatchMetaFromStruct, read from the schema's descriptors
// (src/apis/proto): a field's merge_key and patch_strategy options (a
// merge_key alone means "merge"), the members of flattened (inline) structs
// in the enclosing object, and for a map field its values' schema. A default
// PatchSchema knows nothing: every key of it is merged as in a plain JSON
// merge patch (kube's typed objects have no such keys; ours may have fields
// the schema lacks). A small value; descriptors live as long as the program.
class PatchSchema {
  public:
    PatchSchema() = default;
    // The fields of `message` (null: nothing known).
    explicit PatchSchema(const google::protobuf::Descriptor* message) : message_(message) {}

    // LookupPatchMetadataForStruct / LookupPatchMetadataForSlice: the field
    // named `key` (as Go's JSON matching finds it: exactly, else ignoring
    // ASCII case); nullopt when the schema has no such field.
    std::optional<PatchField> lookup(std::string_view key) const;

    // The Go kind of the described type, as errors name it ("struct").
    std::string name() const;

    // The values of a map, each of `message`.
    static PatchSchema mapOf(const google::protobuf::Descriptor* message) {
        PatchSchema s(message);
        s.mapValues_ = message != nullptr;
        return s;
    }

  private:
    const google::protobuf::Descriptor* message_ = nullptr;
    // Describes the values of a map: any key has the schema of `message_`.
    bool mapValues_ = false;
};

// One field of a PatchSchema: how it is patched and what its value (for a
// list, each item) is.
struct PatchField {
    PatchMeta meta;
    PatchSchema schema;
};

}  // namespace kube::registry::patch
