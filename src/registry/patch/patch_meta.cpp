#include "registry/patch/patch_meta.hpp"

#include <google/protobuf/descriptor.h>

#include <mutex>
#include <unordered_map>

#include "kapi/opts.pb.h"

namespace kube::registry::patch {

namespace pb = google::protobuf;

namespace {

// A message's fields by JSON name, the fields of flattened members included,
// in declaration order (the first of two same-named fields wins, as Go's
// encoding/json prefers the shallower one).
struct Fields {
    std::vector<std::pair<std::string, const pb::FieldDescriptor*>> ordered;
    std::unordered_map<std::string, const pb::FieldDescriptor*> byName;
};

void collect(const pb::Descriptor* d, Fields& out) {
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

const Fields& fieldsOf(const pb::Descriptor* d) {
    static std::mutex mu;
    static std::unordered_map<const pb::Descriptor*, Fields> cache;
    std::lock_guard lock(mu);
    auto [it, added] = cache.try_emplace(d);
    if (added) {
        collect(d, it->second);
    }
    return it->second;
}

bool equalFold(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
        char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
        if (x != y) {
            return false;
        }
    }
    return true;
}

std::vector<std::string> splitComma(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        size_t comma = s.find(',', start);
        out.push_back(s.substr(start, comma == std::string::npos ? comma : comma - start));
        if (comma == std::string::npos) {
            return out;
        }
        start = comma + 1;
    }
}

// The schema of a message-typed value: its fields, unless the message has a
// JSON form of its own (a time, a quantity: scalars; raw JSON: unknown).
const pb::Descriptor* objectMessage(const pb::FieldDescriptor* f) {
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        return nullptr;
    }
    const pb::Descriptor* m = f->message_type();
    return m->options().GetExtension(kapi::opt::form) == kapi::opt::OBJECT ? m : nullptr;
}

}  // namespace

std::optional<PatchField> PatchSchema::lookup(std::string_view key) const {
    if (!message_) {
        return std::nullopt;
    }
    PatchField out;
    if (mapValues_) {
        out.schema = PatchSchema(message_);
        return out;
    }
    const Fields& fields = fieldsOf(message_);
    const pb::FieldDescriptor* f = nullptr;
    if (auto it = fields.byName.find(std::string(key)); it != fields.byName.end()) {
        f = it->second;
    } else {
        for (const auto& [name, field] : fields.ordered) {
            if (equalFold(name, key)) {
                f = field;
                break;
            }
        }
    }
    if (!f) {
        return std::nullopt;
    }
    const std::string& strategy = f->options().GetExtension(kapi::opt::patch_strategy);
    out.meta.mergeKey = f->options().GetExtension(kapi::opt::merge_key);
    if (!strategy.empty()) {
        out.meta.strategies = splitComma(strategy);
    } else if (!out.meta.mergeKey.empty()) {
        out.meta.strategies = {"merge"};
    }
    if (f->is_map()) {
        out.schema = PatchSchema::mapOf(objectMessage(f->message_type()->map_value()));
    } else {
        out.schema = PatchSchema(objectMessage(f));
    }
    return out;
}

std::string PatchSchema::name() const {
    if (!message_) {
        return "interface";
    }
    return mapValues_ ? "map" : "struct";
}

}  // namespace kube::registry::patch
