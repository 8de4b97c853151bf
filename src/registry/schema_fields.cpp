#include "registry/schema_fields.hpp"

#include <google/protobuf/descriptor.h>

#include <atomic>
#include <mutex>

#include "kapi/opts.pb.h"

namespace kube::registry {

namespace pb = google::protobuf;

namespace {

using Table = std::unordered_map<const pb::Descriptor*, SchemaFields>;

// Written once by prepareSchemaFields, then only read: `gReady` publishes it.
Table gTable;
std::atomic<bool> gReady{false};
std::once_flag gPrepare;

// The JSON name of `f`: its json option, else the field's name.
const std::string& jsonName(const pb::FieldDescriptor* f) {
    const std::string& json = f->options().GetExtension(kapi::opt::json);
    return json.empty() ? f->name() : json;
}

void collect(const pb::Descriptor* d, SchemaFields& out) {
    for (int i = 0; i < d->field_count(); ++i) {
        const pb::FieldDescriptor* f = d->field(i);
        if (f->options().GetExtension(kapi::opt::flatten) && f->message_type()) {
            collect(f->message_type(), out);
            continue;
        }
        const std::string& name = jsonName(f);
        if (out.byName.emplace(name, f).second) {
            out.ordered.emplace_back(name, f);
        }
    }
}

// The members of `d` and the options of the message and its own fields.
SchemaFields build(const pb::Descriptor* d) {
    SchemaFields out;
    collect(d, out);
    out.form = d->options().GetExtension(kapi::opt::form);
    out.options.resize(static_cast<size_t>(d->field_count()));
    for (int i = 0; i < d->field_count(); ++i) {
        const pb::FieldDescriptor* f = d->field(i);
        const pb::FieldOptions& o = f->options();
        SchemaFields::FieldOptions& fo = out.options[static_cast<size_t>(i)];
        fo.always = o.GetExtension(kapi::opt::always);
        fo.flatten = o.GetExtension(kapi::opt::flatten);
        fo.ptr = o.GetExtension(kapi::opt::ptr);
        fo.json = &jsonName(f);
    }
    return out;
}

}  // namespace

void prepareSchemaFields(const std::vector<const pb::Descriptor*>& roots) {
    std::call_once(gPrepare, [&roots] {
        std::vector<const pb::Descriptor*> pending(roots.begin(), roots.end());
        while (!pending.empty()) {
            const pb::Descriptor* d = pending.back();
            pending.pop_back();
            auto [it, added] = gTable.try_emplace(d);
            if (!added) {
                continue;
            }
            it->second = build(d);
            for (int i = 0; i < d->field_count(); ++i) {
                if (const pb::Descriptor* m = d->field(i)->message_type()) {
                    pending.push_back(m);
                }
            }
        }
        gReady.store(true, std::memory_order_release);
    });
}

const SchemaFields& schemaFields(const pb::Descriptor* message) {
    if (gReady.load(std::memory_order_acquire)) {
        if (auto it = gTable.find(message); it != gTable.end()) {
            return it->second;
        }
    }
    // Not prepared (a unit test that never started a server): this thread's
    // own table, so that no thread ever waits for another.
    thread_local Table local;
    auto [it, added] = local.try_emplace(message);
    if (added) {
        it->second = build(message);
    }
    return it->second;
}

}  // namespace kube::registry
