#include "registry/patch/patch_meta.hpp"

#include <google/protobuf/descriptor.h>

#include "kapi/opts.pb.h"
#include "registry/schema_fields.hpp"

namespace kube::registry::patch {

namespace pb = google::protobuf;

namespace {

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
    const SchemaFields& fields = schemaFields(message_);
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
