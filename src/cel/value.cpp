#include "cel/value.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cel/unstructured_list.hpp"

namespace kube::cel {

Value Value::boolean(bool b) {
    Value v;
    v.kind_ = Kind::Bool;
    v.b_ = b;
    return v;
}

Value Value::integer(int64_t i) {
    Value v;
    v.kind_ = Kind::Int;
    v.i_ = i;
    return v;
}

Value Value::uinteger(uint64_t u) {
    Value v;
    v.kind_ = Kind::Uint;
    v.u_ = u;
    return v;
}

Value Value::dbl(double d) {
    Value v;
    v.kind_ = Kind::Double;
    v.d_ = d;
    return v;
}

Value Value::string(std::string s) {
    Value v;
    v.kind_ = Kind::String;
    v.data_ = std::make_shared<const std::string>(std::move(s));
    return v;
}

Value Value::bytes(std::string s) {
    Value v = string(std::move(s));
    v.kind_ = Kind::Bytes;
    return v;
}

Value Value::type(std::string name) {
    Value v = string(std::move(name));
    v.kind_ = Kind::Type;
    return v;
}

Value Value::url(std::string text) {
    Value v = string(std::move(text));
    v.kind_ = Kind::Url;
    return v;
}

Value Value::error(std::string message) {
    Value v = string(std::move(message));
    v.kind_ = Kind::Error;
    return v;
}

Value Value::duration(int64_t nanos) {
    Value v;
    v.kind_ = Kind::Duration;
    v.i_ = nanos;
    return v;
}

Value Value::timestamp(int64_t seconds, int32_t nanos) {
    Value v;
    v.kind_ = Kind::Timestamp;
    v.i_ = seconds;
    v.nanos_ = nanos;
    return v;
}

Value Value::list(List items) {
    Value v;
    v.kind_ = Kind::List;
    v.data_ = std::make_shared<const List>(std::move(items));
    return v;
}

Value Value::map(MapData data) {
    Value v;
    v.kind_ = Kind::Map;
    v.data_ = std::make_shared<const MapData>(std::move(data));
    return v;
}

std::string Value::typeName() const {
    switch (kind_) {
        case Kind::Null:
            return "null_type";
        case Kind::Bool:
            return "bool";
        case Kind::Int:
            return "int";
        case Kind::Uint:
            return "uint";
        case Kind::Double:
            return "double";
        case Kind::String:
            return "string";
        case Kind::Bytes:
            return "bytes";
        case Kind::Duration:
            return "google.protobuf.Duration";
        case Kind::Timestamp:
            return "google.protobuf.Timestamp";
        case Kind::List:
            return "list";
        case Kind::Map:
            return "map";
        case Kind::Type:
            return "type";
        case Kind::Url:
            return "kubernetes.URL";
        case Kind::Error:
            return "error";
    }
    return "dyn";
}

bool MapData::insert(Value key, Value value) {
    if (find(key) != nullptr) {
        return false;
    }
    entries.emplace_back(std::move(key), std::move(value));
    if (entries.size() == kIndexFrom) {
        // The keys' strings are shared and immutable: views into them stay
        // valid as the entries vector moves.
        for (size_t i = 0; i < entries.size(); i++) {
            if (entries[i].first.kind() == Kind::String) {
                stringKeys.emplace(entries[i].first.str(), i);
            }
        }
    } else if (entries.size() > kIndexFrom && entries.back().first.kind() == Kind::String) {
        stringKeys.emplace(entries.back().first.str(), entries.size() - 1);
    }
    return true;
}

const Value* MapData::find(const Value& key) const {
    if (key.kind() == Kind::String) {
        if (entries.size() >= kIndexFrom) {
            auto it = stringKeys.find(key.str());
            return it == stringKeys.end() ? nullptr : &entries[it->second].second;
        }
        for (const auto& [k, v] : entries) {
            if (k.kind() == Kind::String && k.str() == key.str()) {
                return &v;
            }
        }
        return nullptr;
    }
    for (const auto& [k, v] : entries) {
        Value eq = equals(k, key);
        if (eq.kind() == Kind::Bool && eq.asBool()) {
            return &v;
        }
    }
    return nullptr;
}

namespace {

bool isNumber(Kind k) {
    return k == Kind::Int || k == Kind::Uint || k == Kind::Double;
}

// -1, 0, 1 for a < b, a == b, a > b; 2 when unordered (NaN).
int compareNumbers(const Value& a, const Value& b) {
    if (a.kind() == Kind::Double || b.kind() == Kind::Double) {
        double x = a.kind() == Kind::Double ? a.asDouble()
                   : a.kind() == Kind::Int  ? static_cast<double>(a.asInt())
                                            : static_cast<double>(a.asUint());
        double y = b.kind() == Kind::Double ? b.asDouble()
                   : b.kind() == Kind::Int  ? static_cast<double>(b.asInt())
                                            : static_cast<double>(b.asUint());
        if (std::isnan(x) || std::isnan(y)) {
            return 2;
        }
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a.kind() == Kind::Int && b.kind() == Kind::Int) {
        return a.asInt() < b.asInt() ? -1 : a.asInt() > b.asInt() ? 1 : 0;
    }
    if (a.kind() == Kind::Uint && b.kind() == Kind::Uint) {
        return a.asUint() < b.asUint() ? -1 : a.asUint() > b.asUint() ? 1 : 0;
    }
    if (a.kind() == Kind::Int) {
        return a.asInt() < 0 ? -1 : -compareNumbers(b, a);
    }
    // a uint, b int
    if (b.asInt() < 0) {
        return 1;
    }
    uint64_t y = static_cast<uint64_t>(b.asInt());
    return a.asUint() < y ? -1 : a.asUint() > y ? 1 : 0;
}

}  // namespace

Value equals(const Value& a, const Value& b) {
    if (a.isError()) {
        return a;
    }
    if (b.isError()) {
        return b;
    }
    if (isNumber(a.kind()) && isNumber(b.kind())) {
        return Value::boolean(compareNumbers(a, b) == 0);
    }
    if (a.kind() != b.kind()) {
        return Value::boolean(false);
    }
    switch (a.kind()) {
        case Kind::Null:
            return Value::boolean(true);
        case Kind::Bool:
            return Value::boolean(a.asBool() == b.asBool());
        case Kind::String:
        case Kind::Bytes:
        case Kind::Type:
        case Kind::Url:
            return Value::boolean(a.str() == b.str());
        case Kind::Duration:
            return Value::boolean(a.asInt() == b.asInt());
        case Kind::Timestamp:
            return Value::boolean(a.asInt() == b.asInt() && a.nanos() == b.nanos());
        case Kind::List: {
            if (isUnorderedList(a)) {
                return equalUnorderedList(a, b);
            }
            if (a.list().size() != b.list().size()) {
                return Value::boolean(false);
            }
            Value result = Value::boolean(true);
            for (size_t i = 0; i < a.list().size(); i++) {
                Value eq = equals(a.list()[i], b.list()[i]);
                if (eq.isError()) {
                    result = eq;
                } else if (!eq.asBool()) {
                    return eq;
                }
            }
            return result;
        }
        case Kind::Map: {
            if (a.map().size() != b.map().size()) {
                return Value::boolean(false);
            }
            Value result = Value::boolean(true);
            for (const auto& [k, v] : a.map().entries) {
                const Value* other = b.map().find(k);
                if (other == nullptr) {
                    return Value::boolean(false);
                }
                Value eq = equals(v, *other);
                if (eq.isError()) {
                    result = eq;
                } else if (!eq.asBool()) {
                    return eq;
                }
            }
            return result;
        }
        default:
            return Value::boolean(false);
    }
}

int compareValues(const Value& a, const Value& b) {
    if (isNumber(a.kind()) && isNumber(b.kind())) {
        return compareNumbers(a, b);
    }
    if (a.kind() != b.kind()) {
        return 2;
    }
    switch (a.kind()) {
        case Kind::Bool:
            return a.asBool() == b.asBool() ? 0 : a.asBool() ? 1 : -1;
        case Kind::String:
        case Kind::Bytes: {
            int c = a.str().compare(b.str());
            return c < 0 ? -1 : c > 0 ? 1 : 0;
        }
        case Kind::Duration:
            return a.asInt() < b.asInt() ? -1 : a.asInt() > b.asInt() ? 1 : 0;
        case Kind::Timestamp:
            if (a.asInt() != b.asInt()) {
                return a.asInt() < b.asInt() ? -1 : 1;
            }
            return a.nanos() < b.nanos() ? -1 : a.nanos() > b.nanos() ? 1 : 0;
        default:
            return 2;
    }
}

std::string formatDouble(double d) {
    // Go's strconv.FormatFloat(d, 'g', -1, 64), as cel-go's string(double):
    // the shortest digits that read back as the same double, in exponent
    // form when the exponent is below -4 or at least 6 ("1e+06",
    // "1.23456789e+08", "100000", "1e-05").
    if (std::isnan(d)) {
        return "NaN";
    }
    if (std::isinf(d)) {
        return d > 0 ? "+Inf" : "-Inf";
    }
    if (d == 0) {
        return std::signbit(d) ? "-0" : "0";
    }
    char buf[64];
    int precision = 0;
    for (; precision < 17; precision++) {
        std::snprintf(buf, sizeof buf, "%.*e", precision, d);
        if (std::strtod(buf, nullptr) == d) {
            break;
        }
    }
    // buf: [-]D.DDDDe[+-]XX
    std::string text = buf;
    size_t e = text.find('e');
    int exponent = std::atoi(text.c_str() + e + 1);
    std::string mantissa = text.substr(0, e);
    bool negative = mantissa[0] == '-';
    std::string digits;
    for (char c : mantissa) {
        if (c >= '0' && c <= '9') {
            digits += c;
        }
    }
    while (digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
    }
    std::string out = negative ? "-" : "";
    if (exponent < -4 || exponent >= 6) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) {
            out += "." + digits.substr(1);
        }
        char exp[16];
        std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        return out + exp;
    }
    if (exponent < 0) {
        return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    size_t intDigits = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= intDigits) {
        return out + digits + std::string(intDigits - digits.size(), '0');
    }
    return out + digits.substr(0, intDigits) + "." + digits.substr(intDigits);
}

}  // namespace kube::cel
