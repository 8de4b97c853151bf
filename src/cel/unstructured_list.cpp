#include "cel/unstructured_list.hpp"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "cel/type.hpp"

namespace kube::cel {

namespace {

bool isSet(const Value& v) {
    return v.fromObject() && v.schema() != nullptr && v.schema()->listType == "set";
}

bool isMapList(const Value& v) {
    return v.fromObject() && v.schema() != nullptr && v.schema()->listType == "map" &&
           !v.schema()->listMapKeys.empty();
}

// A scalar as a hashable text: its kind and value. Numbers that CEL calls
// equal (1, 1u, 1.0) share a text.
std::string scalarKey(const Value& v) {
    switch (v.kind()) {
        case Kind::Null:
            return "n";
        case Kind::Bool:
            return v.asBool() ? "t" : "f";
        case Kind::Int:
            return "#" + formatDouble(static_cast<double>(v.asInt())) + ":" +
                   std::to_string(v.asInt());
        case Kind::Uint:
            return "#" + formatDouble(static_cast<double>(v.asUint())) + ":" +
                   std::to_string(v.asUint());
        case Kind::Double: {
            double d = v.asDouble();
            std::string exact =
                (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d)))
                    ? std::to_string(static_cast<int64_t>(d))
                    : "";
            return "#" + formatDouble(d) + ":" + exact;
        }
        case Kind::String:
            return "s" + v.str();
        case Kind::Bytes:
            return "b" + v.str();
        default:
            // Not a scalar: never equal to anything by key.
            return "?" + std::to_string(reinterpret_cast<uintptr_t>(&v));
    }
}

// The text of a map list item's key fields.
std::string itemKey(const Value& item, const std::vector<std::string>& keys) {
    std::string out;
    for (const std::string& k : keys) {
        const Value* v = item.kind() == Kind::Map ? item.map().find(Value::string(k)) : nullptr;
        std::string part = v == nullptr ? "-" : scalarKey(*v);
        out += std::to_string(part.size()) + ":" + part;
    }
    return out;
}

}  // namespace

bool isUnorderedList(const Value& list) {
    return list.kind() == Kind::List && (isSet(list) || isMapList(list));
}

Value equalUnorderedList(const Value& a, const Value& b) {
    if (b.kind() != Kind::List) {
        return Value::noSuchOverload();
    }
    if (a.list().size() != b.list().size()) {
        return Value::boolean(false);
    }
    if (isSet(a)) {
        std::unordered_set<std::string> items;
        for (const Value& v : a.list()) {
            items.insert(scalarKey(v));
        }
        for (const Value& v : b.list()) {
            if (items.count(scalarKey(v)) == 0) {
                return Value::boolean(false);
            }
        }
        return Value::boolean(true);
    }
    const std::vector<std::string>& keys = a.schema()->listMapKeys;
    std::unordered_map<std::string, const Value*> byKey;
    for (const Value& v : a.list()) {
        byKey.emplace(itemKey(v, keys), &v);
    }
    for (const Value& v : b.list()) {
        auto it = byKey.find(itemKey(v, keys));
        if (it == byKey.end()) {
            return Value::boolean(false);
        }
        Value eq = equals(*it->second, v);
        if (eq.isError() || !eq.asBool()) {
            return eq;
        }
    }
    return Value::boolean(true);
}

Value addUnorderedList(const Value& a, const Value& b) {
    if (b.kind() != Kind::List) {
        return Value::noSuchOverload();
    }
    List out;
    out.reserve(a.list().size() + b.list().size());
    if (isSet(a)) {
        std::unordered_set<std::string> seen;
        for (const Value& v : a.list()) {
            seen.insert(scalarKey(v));
            out.push_back(v);
        }
        for (const Value& v : b.list()) {
            if (seen.insert(scalarKey(v)).second) {
                out.push_back(v);
            }
        }
    } else {
        const std::vector<std::string>& keys = a.schema()->listMapKeys;
        std::unordered_map<std::string, const Value*> overrides;
        for (const Value& v : b.list()) {
            overrides[itemKey(v, keys)] = &v;
        }
        std::unordered_set<std::string> used;
        for (const Value& v : a.list()) {
            std::string k = itemKey(v, keys);
            auto it = overrides.find(k);
            if (it != overrides.end()) {
                used.insert(k);
                out.push_back(*it->second);
            } else {
                out.push_back(v);
            }
        }
        for (const Value& v : b.list()) {
            if (used.count(itemKey(v, keys)) == 0) {
                out.push_back(v);
            }
        }
    }
    Value result = Value::list(std::move(out));
    result.markFromObject(a.schema());
    return result;
}

}  // namespace kube::cel
