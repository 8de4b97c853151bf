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

void marshalScalar(std::string& out, const json::Value& v) {
    if (v.IsString()) {
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

void marshalKey(std::string& out, std::string_view name) {
    marshalString(out, name);
    out += ':';
}

// fmt's %v of a decoded scalar.
void printScalar(std::string& out, const json::Value& v) {
    if (v.IsString()) {
        out += json::view(v);
    } else if (v.IsBool()) {
        out += v.GetBool() ? "true" : "false";
    } else if (isGoInt(v)) {
        out += intText(v);
    } else if (v.IsNumber()) {
        out += validation::BadValue(v.GetDouble()).text();
    } else {
        out += "<nil>";
    }
}

void printKey(std::string& out, std::string_view name) {
    out += name;
    out += ':';
}

// How one of Go's printers writes maps, slices and scalars.
struct Printer {
    std::string_view openMap;  // "map[" or "{"
    char closeMap;             // ']' or '}'
    char separator;            // between elements: ' ' or ','
    void (*key)(std::string& out, std::string_view name);
    void (*scalar)(std::string& out, const json::Value& v);
};

constexpr Printer kFmtPrinter{"map[", ']', ' ', printKey, printScalar};
constexpr Printer kJsonPrinter{"{", '}', ',', marshalKey, marshalScalar};

// Writes `root` as `p` does, keys sorted, without recursion: how deep a
// value nests is up to the client that sent it.
void print(std::string& out, const json::Value& root, const Printer& p) {
    struct Open {
        const json::Value* container;
        std::vector<const json::Value::Member*> members;  // sorted; an object's
        size_t next = 0;
    };
    std::vector<Open> open;
    const json::Value* v = &root;
    for (;;) {
        if (v != nullptr) {
            if (v->IsObject()) {
                out += p.openMap;
                open.push_back({v, sortedMembers(*v)});
            } else if (v->IsArray()) {
                out += '[';
                open.push_back({v, {}});
            } else {
                p.scalar(out, *v);
            }
            v = nullptr;
        }
        if (open.empty()) {
            return;
        }
        Open& top = open.back();
        bool isObject = top.container->IsObject();
        size_t size = isObject ? top.members.size() : top.container->Size();
        if (top.next == size) {
            out += isObject ? p.closeMap : ']';
            open.pop_back();
            continue;
        }
        if (top.next > 0) {
            out += p.separator;
        }
        if (isObject) {
            const json::Value::Member* m = top.members[top.next];
            p.key(out, json::view(m->name));
            v = &m->value;
        } else {
            v = &(*top.container)[static_cast<rapidjson::SizeType>(top.next)];
        }
        top.next++;
    }
}

}  // namespace

std::string goValue(const json::Value& v) {
    std::string out;
    print(out, v, kFmtPrinter);
    return out;
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
    print(out, v, kJsonPrinter);
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
