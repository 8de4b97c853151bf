#include "registry/patch/go_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "registry/validation.hpp"

namespace kube::registry::patch {

namespace json = util::json;

namespace {

bool isGoInt(const json::Value& v) {
    return v.IsInt64() || v.IsUint64();
}

std::string intText(const json::Value& v) {
    return v.IsInt64() ? std::to_string(v.GetInt64()) : std::to_string(v.GetUint64());
}

// The members of an object sorted by name, as Go visits a map's keys when it
// prints or marshals it.
std::vector<const json::Value::Member*> sortedMembers(const json::Value& obj) {
    std::vector<const json::Value::Member*> out;
    for (const auto& m : obj.GetObject()) {
        out.push_back(&m);
    }
    std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
        return json::view(a->name) < json::view(b->name);
    });
    return out;
}

// encoding/json's float encoding: 'f' between 1e-6 and 1e21, else 'e' with
// a one-digit negative exponent shortened ("1e-07" → "1e-7").
std::string marshalFloat(double d) {
    char buf[64];
    double abs = std::fabs(d);
    bool exponent = abs != 0 && (abs < 1e-6 || abs >= 1e21);
    auto res = std::to_chars(buf, buf + sizeof buf, d,
                             exponent ? std::chars_format::scientific : std::chars_format::fixed);
    std::string out(buf, res.ptr);
    size_t n = out.size();
    if (exponent && n >= 4 && out[n - 4] == 'e' && out[n - 3] == '-' && out[n - 2] == '0') {
        out.erase(n - 2, 1);
    }
    return out;
}

void marshalString(std::string& out, std::string_view s) {
    static const char kHex[] = "0123456789abcdef";
    out += '"';
    for (size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"':
                out += "\\\"";
                continue;
            case '\\':
                out += "\\\\";
                continue;
            case '\n':
                out += "\\n";
                continue;
            case '\r':
                out += "\\r";
                continue;
            case '\t':
                out += "\\t";
                continue;
            case '\b':
                out += "\\b";
                continue;
            case '\f':
                out += "\\f";
                continue;
            default:
                break;
        }
        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xf];
            continue;
        }
        // U+2028 and U+2029 (E2 80 A8/A9) are escaped too.
        if (c == 0xe2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
            (static_cast<unsigned char>(s[i + 2]) & 0xfe) == 0xa8) {
            out += static_cast<unsigned char>(s[i + 2]) == 0xa8 ? "\\u2028" : "\\u2029";
            i += 2;
            continue;
        }
        out += static_cast<char>(c);
    }
    out += '"';
}

void marshal(std::string& out, const json::Value& v) {
    if (v.IsObject()) {
        out += '{';
        bool first = true;
        for (const auto* m : sortedMembers(v)) {
            if (!first) {
                out += ',';
            }
            first = false;
            marshalString(out, json::view(m->name));
            out += ':';
            marshal(out, m->value);
        }
        out += '}';
    } else if (v.IsArray()) {
        out += '[';
        bool first = true;
        for (const auto& e : v.GetArray()) {
            if (!first) {
                out += ',';
            }
            first = false;
            marshal(out, e);
        }
        out += ']';
    } else if (v.IsString()) {
        marshalString(out, json::view(v));
    } else if (v.IsBool()) {
        out += v.GetBool() ? "true" : "false";
    } else if (isGoInt(v)) {
        out += intText(v);
    } else if (v.IsNumber()) {
        out += marshalFloat(v.GetDouble());
    } else {
        out += "null";
    }
}

}  // namespace

std::string goValue(const json::Value& v) {
    if (v.IsObject()) {
        std::string out = "map[";
        bool first = true;
        for (const auto* m : sortedMembers(v)) {
            if (!first) {
                out += ' ';
            }
            first = false;
            out += json::view(m->name);
            out += ':';
            out += goValue(m->value);
        }
        return out + "]";
    }
    if (v.IsArray()) {
        std::string out = "[";
        bool first = true;
        for (const auto& e : v.GetArray()) {
            if (!first) {
                out += ' ';
            }
            first = false;
            out += goValue(e);
        }
        return out + "]";
    }
    if (v.IsString()) {
        return std::string(json::view(v));
    }
    if (v.IsBool()) {
        return v.GetBool() ? "true" : "false";
    }
    if (isGoInt(v)) {
        return intText(v);
    }
    if (v.IsNumber()) {
        return validation::BadValue(v.GetDouble()).text();
    }
    return "<nil>";
}

std::string goTypeName(const json::Value& v) {
    if (v.IsObject()) {
        return "map[string]interface {}";
    }
    if (v.IsArray()) {
        return "[]interface {}";
    }
    if (v.IsString()) {
        return "string";
    }
    if (v.IsBool()) {
        return "bool";
    }
    if (isGoInt(v)) {
        return "int64";
    }
    if (v.IsNumber()) {
        return "float64";
    }
    return "%!s(<nil>)";
}

std::string goMarshal(const json::Value& v) {
    std::string out;
    marshal(out, v);
    return out;
}

bool goEqual(const json::Value& a, const json::Value& b) {
    if (a.IsNull() || b.IsNull()) {
        return a.IsNull() && b.IsNull();
    }
    if (a.IsString() && b.IsString()) {
        return json::view(a) == json::view(b);
    }
    if (a.IsBool() && b.IsBool()) {
        return a.GetBool() == b.GetBool();
    }
    if (a.IsNumber() && b.IsNumber()) {
        if (isGoInt(a) != isGoInt(b)) {
            return false;
        }
        if (isGoInt(a)) {
            return intText(a) == intText(b);
        }
        return a.GetDouble() == b.GetDouble();
    }
    return false;
}

}  // namespace kube::registry::patch
