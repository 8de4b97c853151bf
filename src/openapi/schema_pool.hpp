#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace google::protobuf {
class Descriptor;
class DescriptorPool;
class FieldDescriptor;
}  // namespace google::protobuf

namespace kube::openapi {

namespace pb = google::protobuf;

// The schema of src/apis/proto as the OpenAPI generator reads it: the
// descriptor set the build embeds (with the .proto comments, which the
// generated code drops), loaded into a pool of its own and indexed by the
// kind each top-level message is served as and by OpenAPI definition name.
// Read-only once built; a new .proto file is picked up with no code here.
class SchemaPool {
  public:
    // The embedded schema, loaded on first use. A descriptor set that does
    // not load is a build defect: throws std::logic_error.
    static const SchemaPool& builtin();

    // Loads a serialized FileDescriptorSet (files in dependency order, as
    // protoc --include_imports writes them); throws std::logic_error when a
    // file does not parse or build.
    explicit SchemaPool(std::string_view descriptorSet);
    ~SchemaPool();

    SchemaPool(const SchemaPool&) = delete;
    SchemaPool& operator=(const SchemaPool&) = delete;

    // The message served as apiVersion + kind (its `gvk` option); nullptr
    // when the schema has none.
    const pb::Descriptor* forKind(std::string_view apiVersion, std::string_view kind) const;

    // The message of an OpenAPI definition ("io.k8s.api.core.v1.Pod"); when
    // two files name the same definition, the one not marked
    // openapi_fallback. nullptr when no message has that name.
    const pb::Descriptor* forDefinition(std::string_view name) const;

    // The OpenAPI definition name of a message: its openapi_name option, or
    // <openapi_package of its file>.<message>; a file without that option
    // and a proto package "kapi.<rest>" gets "io.k8s.api.<rest>". Empty for
    // map entries and messages of other packages.
    static std::string definitionName(const pb::Descriptor* message);

    // The leading comment of a message or field as one description: lines
    // joined with spaces, blank lines kept as paragraph breaks ("\n\n").
    static std::string description(const pb::Descriptor* message);
    static std::string description(const pb::FieldDescriptor* field);

  private:
    void index(const pb::Descriptor* message, bool fallback);

    std::unique_ptr<pb::DescriptorPool> pool_;
    std::map<std::string, const pb::Descriptor*, std::less<>> byKind_;
    // The definition's message and whether it came from a fallback file.
    std::map<std::string, std::pair<const pb::Descriptor*, bool>, std::less<>> byName_;
};

}  // namespace kube::openapi
