#include "endpoints/protobuf_map_free_schema.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

namespace kube::endpoints {

namespace {

namespace pb = google::protobuf;

// A map whose values are messages: the one kind of map reflection fills slowly.
bool isMessageMap(const pb::FieldDescriptor* f) {
    return f->is_map() &&
           f->message_type()->map_value()->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE;
}

// Whether a message reachable from `root` has a map of messages (walked with
// a work list: schemas are recursive).
bool reachesMessageMap(const pb::Descriptor* root) {
    std::set<const pb::Descriptor*> seen{root};
    std::vector<const pb::Descriptor*> work{root};
    while (!work.empty()) {
        const pb::Descriptor* d = work.back();
        work.pop_back();
        for (int i = 0; i < d->field_count(); ++i) {
            const pb::FieldDescriptor* f = d->field(i);
            if (isMessageMap(f)) {
                return true;
            }
            if (const pb::Descriptor* t = f->message_type(); t && seen.insert(t).second) {
                work.push_back(t);
            }
        }
    }
    return false;
}

void clearMapEntries(pb::DescriptorProto& m) {
    if (m.options().map_entry()) {
        m.mutable_options()->clear_map_entry();
    }
    for (pb::DescriptorProto& nested : *m.mutable_nested_type()) {
        clearMapEntries(nested);
    }
}

// The writer's pool: every schema file (and what it imports) again, with
// map entries as plain messages. Options keep their kapi.opt extensions.
class MapFreePool {
  public:
    const pb::Descriptor* find(const pb::Descriptor* d) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!add(d->file())) {
            return nullptr;
        }
        return pool_.FindMessageTypeByName(d->full_name());
    }

    pb::Message* make(const pb::Descriptor* d, pb::Arena* arena) {
        const pb::Message* prototype;
        {
            std::lock_guard<std::mutex> lock(mu_);
            prototype = factory_.GetPrototype(d);
        }
        return prototype->New(arena);
    }

    bool owns(const pb::Descriptor* d) const { return d->file()->pool() == &pool_; }

    bool wasMap(const pb::FieldDescriptor* f) {
        std::lock_guard<std::mutex> lock(mu_);
        return maps_.count(f) > 0;
    }

  private:
    // Adds `file` after its imports; false if the pool refuses it.
    bool add(const pb::FileDescriptor* file) {
        if (pool_.FindFileByName(file->name())) {
            return true;
        }
        for (int i = 0; i < file->dependency_count(); ++i) {
            if (!add(file->dependency(i))) {
                return false;
            }
        }
        pb::FileDescriptorProto proto;
        file->CopyTo(&proto);
        for (pb::DescriptorProto& m : *proto.mutable_message_type()) {
            clearMapEntries(m);
        }
        const pb::FileDescriptor* built = pool_.BuildFile(proto);
        if (!built) {
            return false;
        }
        for (int i = 0; i < file->message_type_count(); ++i) {
            noteMaps(file->message_type(i));
        }
        return true;
    }

    void noteMaps(const pb::Descriptor* generated) {
        for (int i = 0; i < generated->nested_type_count(); ++i) {
            noteMaps(generated->nested_type(i));
        }
        for (int i = 0; i < generated->field_count(); ++i) {
            const pb::FieldDescriptor* f = generated->field(i);
            if (f->is_map()) {
                maps_.insert(pool_.FindFieldByName(f->full_name()));
            }
        }
    }

    std::mutex mu_;
    pb::DescriptorPool pool_;
    pb::DynamicMessageFactory factory_{&pool_};
    std::set<const pb::FieldDescriptor*> maps_;
};

MapFreePool& mapFreePool() {
    static MapFreePool* pool = new MapFreePool();
    return *pool;
}

}  // namespace

const pb::Descriptor* mapFreeSchema(const pb::Descriptor* d) {
    static std::mutex mu;
    static std::map<const pb::Descriptor*, const pb::Descriptor*> cache;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(d);
    if (it == cache.end()) {
        const pb::Descriptor* twin = reachesMessageMap(d) ? mapFreePool().find(d) : nullptr;
        it = cache.emplace(d, twin ? twin : d).first;
    }
    return it->second;
}

pb::Message* newMessage(const pb::Descriptor* d, pb::Arena* arena) {
    if (mapFreePool().owns(d)) {
        return mapFreePool().make(d, arena);
    }
    return pb::MessageFactory::generated_factory()->GetPrototype(d)->New(arena);
}

bool isMapField(const pb::FieldDescriptor* f) {
    if (f->is_map()) {
        return true;
    }
    return f->is_repeated() && f->message_type() && mapFreePool().owns(f->containing_type()) &&
           mapFreePool().wasMap(f);
}

}  // namespace kube::endpoints
