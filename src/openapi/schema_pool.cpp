#include "openapi/schema_pool.hpp"

#include <stdexcept>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include "kapi/opts.pb.h"

// The descriptor set protoc wrote at build time (build/gen/kapi.desc),
// embedded by build/gen/kapi_desc.S.
extern "C" {
__attribute__((visibility("hidden"))) extern const char kube_schema_descriptor_set[];
__attribute__((visibility("hidden"))) extern const char kube_schema_descriptor_set_end[];
}

namespace kube::openapi {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

// protoc keeps a comment as its lines, each without the "//" but with the
// space after it; a description is prose, so lines are joined and only
// paragraph breaks survive.
std::string joinComment(const std::string& comment) {
    std::string out;
    bool paragraphBreak = false;
    std::string_view rest = comment;
    while (!rest.empty()) {
        size_t nl = rest.find('\n');
        std::string_view line = trim(rest.substr(0, nl));
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        if (line.empty()) {
            paragraphBreak = !out.empty();
            continue;
        }
        if (!out.empty()) {
            out += paragraphBreak ? "\n\n" : " ";
        }
        paragraphBreak = false;
        out += line;
    }
    return out;
}

}  // namespace

const SchemaPool& SchemaPool::builtin() {
    static const SchemaPool pool(std::string_view(
        kube_schema_descriptor_set,
        static_cast<size_t>(kube_schema_descriptor_set_end - kube_schema_descriptor_set)));
    return pool;
}

SchemaPool::SchemaPool(std::string_view descriptorSet) : pool_(new pb::DescriptorPool) {
    pb::FileDescriptorSet set;
    if (!set.ParseFromArray(descriptorSet.data(), static_cast<int>(descriptorSet.size()))) {
        throw std::logic_error("openapi: the embedded schema descriptor set does not parse");
    }
    for (const pb::FileDescriptorProto& file : set.file()) {
        const pb::FileDescriptor* fd = pool_->BuildFile(file);
        if (!fd) {
            throw std::logic_error("openapi: schema file " + file.name() + " does not build");
        }
        bool fallback = fd->options().GetExtension(kapi::opt::openapi_fallback);
        for (int i = 0; i < fd->message_type_count(); ++i) {
            index(fd->message_type(i), fallback);
        }
    }
}

SchemaPool::~SchemaPool() = default;

void SchemaPool::index(const pb::Descriptor* message, bool fallback) {
    if (message->options().map_entry()) {
        return;
    }
    const std::string& gvk = message->options().GetExtension(kapi::opt::gvk);
    if (!gvk.empty()) {
        byKind_.emplace(gvk, message);
    }
    std::string name = definitionName(message);
    if (!name.empty()) {
        auto it = byName_.find(name);
        if (it == byName_.end()) {
            byName_.emplace(std::move(name), std::make_pair(message, fallback));
        } else if (it->second.second && !fallback) {
            it->second = {message, false};
        }
    }
    for (int i = 0; i < message->nested_type_count(); ++i) {
        index(message->nested_type(i), fallback);
    }
}

const pb::Descriptor* SchemaPool::forKind(std::string_view apiVersion,
                                          std::string_view kind) const {
    std::string key(apiVersion);
    key += '/';
    key += kind;
    auto it = byKind_.find(key);
    return it == byKind_.end() ? nullptr : it->second;
}

const pb::Descriptor* SchemaPool::forDefinition(std::string_view name) const {
    auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : it->second.first;
}

std::string SchemaPool::definitionName(const pb::Descriptor* message) {
    if (message->options().map_entry()) {
        return "";
    }
    const std::string& explicitName = message->options().GetExtension(kapi::opt::openapi_name);
    if (!explicitName.empty()) {
        return explicitName;
    }
    const pb::FileDescriptor* file = message->file();
    std::string package = file->options().GetExtension(kapi::opt::openapi_package);
    if (package.empty()) {
        std::string_view proto = file->package();
        if (!proto.starts_with("kapi.")) {
            return "";
        }
        package = "io.k8s.api." + std::string(proto.substr(5));
    }
    // A nested message keeps its outer names: "Outer.Inner".
    std::string_view full = message->full_name();
    full.remove_prefix(file->package().empty() ? 0 : file->package().size() + 1);
    return package + "." + std::string(full);
}

std::string SchemaPool::description(const pb::Descriptor* message) {
    pb::SourceLocation where;
    return message->GetSourceLocation(&where) ? joinComment(where.leading_comments) : "";
}

std::string SchemaPool::description(const pb::FieldDescriptor* field) {
    pb::SourceLocation where;
    return field->GetSourceLocation(&where) ? joinComment(where.leading_comments) : "";
}

}  // namespace kube::openapi
