#include "registry/apply/type_ref.hpp"

#include <google/protobuf/descriptor.h>

#include <unordered_map>

#include "apis/apiextensions/structural_schema.hpp"
#include "kapi/opts.pb.h"
#include "registry/schema_fields.hpp"

namespace kube::registry::apply {

namespace pb = google::protobuf;

namespace {

struct ListInfo {
    TypeRef::ListType type = TypeRef::ListType::Atomic;
    std::vector<std::string> keys;
};

std::vector<std::string> splitComma(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos) {
            comma = s.size();
        }
        if (comma > start) {
            out.push_back(s.substr(start, comma - start));
        }
        start = comma + 1;
    }
    return out;
}

// Per thread, so that no thread waits on another; descriptors live as long
// as the program.
const ListInfo& listInfo(const pb::FieldDescriptor* f) {
    thread_local std::unordered_map<const pb::FieldDescriptor*, ListInfo> cache;
    auto [it, added] = cache.try_emplace(f);
    if (!added) {
        return it->second;
    }
    ListInfo& info = it->second;
    const pb::FieldOptions& o = f->options();
    const std::string& listType = o.GetExtension(kapi::opt::list_type);
    const std::string& mergeKey = o.GetExtension(kapi::opt::merge_key);
    if (listType == "map") {
        info.type = TypeRef::ListType::Map;
        info.keys = splitComma(o.GetExtension(kapi::opt::map_keys));
        if (info.keys.empty() && !mergeKey.empty()) {
            info.keys = {mergeKey};
        }
    } else if (listType == "set") {
        info.type = TypeRef::ListType::Set;
    } else if (listType.empty()) {
        std::string strategy = o.GetExtension(kapi::opt::patch_strategy);
        if (strategy.empty() && !mergeKey.empty()) {
            strategy = "merge";
        }
        for (const std::string& s : splitComma(strategy)) {
            if (s == "merge") {
                info.type = mergeKey.empty() ? TypeRef::ListType::Set : TypeRef::ListType::Map;
                if (!mergeKey.empty()) {
                    info.keys = {mergeKey};
                }
            }
        }
    }
    return info;
}

const std::vector<std::string>& noKeys() {
    static const std::vector<std::string> none;
    return none;
}

}  // namespace

TypeRef TypeRef::forMessage(const pb::Descriptor* message) {
    TypeRef t;
    if (!message) {
        return t;
    }
    t.kind_ = Kind::Struct;
    t.message_ = message;
    t.atomic_ = message->options().GetExtension(kapi::opt::struct_type) == "atomic";
    return t;
}

// The type of one value of field `f` (an item when `f` is repeated).
TypeRef TypeRef::ofValue(const pb::FieldDescriptor* f) {
    TypeRef t;
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        t.kind_ = Kind::Scalar;
        return t;
    }
    const pb::Descriptor* m = f->message_type();
    switch (m->options().GetExtension(kapi::opt::form)) {
        case kapi::opt::OBJECT:
            t = forMessage(m);
            break;
        case kapi::opt::RAW_JSON:
        case kapi::opt::ANY_JSON:
        case kapi::opt::UNION:
            break;
        case kapi::opt::STRING_LIST:
            t.kind_ = Kind::List;
            t.atomic_ = true;
            t.scalarItems_ = true;
            break;
        default:
            t.kind_ = Kind::Scalar;
            break;
    }
    return t;
}

TypeRef TypeRef::ofField(const pb::FieldDescriptor* f) {
    TypeRef t;
    const std::string& mapType = f->options().GetExtension(kapi::opt::map_type);
    if (f->is_map()) {
        t.kind_ = Kind::Map;
        t.field_ = f;
        t.atomic_ = mapType == "atomic";
        return t;
    }
    if (f->is_repeated()) {
        t.kind_ = Kind::List;
        t.field_ = f;
        t.listType_ = listInfo(f).type;
        t.atomic_ = t.listType_ == ListType::Atomic;
        return t;
    }
    t = ofValue(f);
    if (t.kind_ == Kind::Struct && !mapType.empty()) {
        t.atomic_ = mapType == "atomic";
    }
    return t;
}

TypeRef TypeRef::member(std::string_view name, bool* declared) const {
    *declared = false;
    if (node_) {
        return nodeMember(name, declared);
    }
    if (kind_ == Kind::Map) {
        if (!field_) {
            return untyped();
        }
        return ofValue(field_->message_type()->map_value());
    }
    if (kind_ != Kind::Struct) {
        return untyped();
    }
    const SchemaFields& fields = schemaFields(message_);
    auto it = fields.byName.find(std::string(name));
    if (it == fields.byName.end()) {
        return untyped();
    }
    *declared = true;
    return ofField(it->second);
}

TypeRef TypeRef::item() const {
    if (kind_ != Kind::List) {
        return untyped();
    }
    if (node_) {
        return ofNode(node_->items);
    }
    if (scalarItems_ || !field_) {
        TypeRef t;
        t.kind_ = scalarItems_ ? Kind::Scalar : Kind::Untyped;
        return t;
    }
    return ofValue(field_);
}

const std::vector<std::string>& TypeRef::keys() const {
    if (kind_ == Kind::List && node_ && listType_ == ListType::Map) {
        return node_->listMapKeys;
    }
    if (kind_ != Kind::List || !field_) {
        return noKeys();
    }
    return listInfo(field_).keys;
}

std::optional<ItemValue> TypeRef::keyDefault(const std::string& name) const {
    if (node_) {
        return nodeKeyDefault(name);
    }
    if (kind_ != Kind::List || !field_ || !field_->message_type()) {
        return std::nullopt;
    }
    const SchemaFields& fields = schemaFields(field_->message_type());
    auto it = fields.byName.find(name);
    if (it == fields.byName.end()) {
        return std::nullopt;
    }
    const std::string& def = it->second->options().GetExtension(kapi::opt::default_json);
    if (def.empty()) {
        return std::nullopt;
    }
    util::json::Document d;
    if (util::json::parse(def, d)) {
        return std::nullopt;
    }
    return ItemValue::from(d);
}

}  // namespace kube::registry::apply
