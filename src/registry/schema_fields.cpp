#include "registry/schema_fields.hpp"

#include <google/protobuf/descriptor.h>

#include <mutex>

#include "kapi/opts.pb.h"

namespace kube::registry {

namespace pb = google::protobuf;

namespace {

void collect(const pb::Descriptor* d, SchemaFields& out) {
    for (int i = 0; i < d->field_count(); ++i) {
        const pb::FieldDescriptor* f = d->field(i);
        if (f->options().GetExtension(kapi::opt::flatten) && f->message_type()) {
            collect(f->message_type(), out);
            continue;
        }
        const std::string& json = f->options().GetExtension(kapi::opt::json);
        std::string name = json.empty() ? f->name() : json;
        if (out.byName.emplace(name, f).second) {
            out.ordered.emplace_back(name, f);
        }
    }
}

}  // namespace

const SchemaFields& schemaFields(const pb::Descriptor* message) {
    static std::mutex mu;
    static std::unordered_map<const pb::Descriptor*, SchemaFields> cache;
    std::lock_guard lock(mu);
    auto [it, added] = cache.try_emplace(message);
    if (added) {
        collect(message, it->second);
    }
    return it->second;
}

}  // namespace kube::registry
