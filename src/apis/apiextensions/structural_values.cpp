// Go's view of unstructured values (printing, equality, marshalling) and
// kube's field.Path, for the structural-schema walks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "apis/apiextensions/structural_walks.hpp"
#include "registry/validation.hpp"

namespace kube::apis::apiextensions::structural {

namespace {

// Go decodes an integral JSON number that fits int64 as int64 (unstructured
// JSON), anything else as float64.
bool isGoInt(const json::Value& v) {
    return v.IsInt64();
}

std::string goNumber(const json::Value& v) {
    if (isGoInt(v)) {
        return std::to_string(v.GetInt64());
    }
    return core::field::BadValue(v.GetDouble()).text();
}

std::vector<const json::Value::Member*> sortedMembers(const json::Value& obj) {
    std::vector<const json::Value::Member*> out;
    out.reserve(obj.MemberCount());
    for (const auto& m : obj.GetObject()) {
        out.push_back(&m);
    }
    std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
        return json::view(a->name) < json::view(b->name);
    });
    return out;
}

void appendSharpV(std::string& out, const json::Value& v) {
    if (v.IsNull()) {
        out += "interface {}(nil)";
    } else if (v.IsString()) {
        out += registry::validation::goQuote(json::view(v));
    } else if (v.IsBool()) {
        out += v.GetBool() ? "true" : "false";
    } else if (v.IsNumber()) {
        out += goNumber(v);
    } else if (v.IsArray()) {
        out += "[]interface {}{";
        bool first = true;
        for (const json::Value& e : v.GetArray()) {
            out += first ? "" : ", ";
            first = false;
            appendSharpV(out, e);
        }
        out += "}";
    } else {
        out += "map[string]interface {}{";
        bool first = true;
        for (const auto* m : sortedMembers(v)) {
            out += first ? "" : ", ";
            first = false;
            out += registry::validation::goQuote(json::view(m->name));
            out += ':';
            appendSharpV(out, m->value);
        }
        out += "}";
    }
}

// encoding/json's float format: shortest, exponent form outside
// [1e-6, 1e21), the exponent without leading zeros.
std::string goJSONFloat(double f) {
    double a = std::fabs(f);
    char buf[64];
    if (a != 0 && (a < 1e-6 || a >= 1e21)) {
        for (int prec = 1; prec <= 17; ++prec) {
            std::snprintf(buf, sizeof buf, "%.*e", prec - 1, f);
            if (std::strtod(buf, nullptr) == f) {
                break;
            }
        }
        std::string s = buf;
        size_t e = s.find('e');
        if (e != std::string::npos && e + 2 < s.size() && s[e + 2] == '0') {
            s.erase(e + 2, 1);
        }
        return s;
    }
    for (int prec = 1; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, f);
        if (std::strtod(buf, nullptr) == f) {
            break;
        }
    }
    return buf;
}

void appendMarshal(std::string& out, const json::Value& v) {
    if (v.IsNull()) {
        out += "null";
    } else if (v.IsString()) {
        json::appendQuoted(out, json::view(v));
    } else if (v.IsBool()) {
        out += v.GetBool() ? "true" : "false";
    } else if (v.IsNumber()) {
        out += isGoInt(v) ? std::to_string(v.GetInt64()) : goJSONFloat(v.GetDouble());
    } else if (v.IsArray()) {
        out += '[';
        bool first = true;
        for (const json::Value& e : v.GetArray()) {
            out += first ? "" : ",";
            first = false;
            appendMarshal(out, e);
        }
        out += ']';
    } else {
        out += '{';
        bool first = true;
        for (const auto* m : sortedMembers(v)) {
            out += first ? "" : ",";
            first = false;
            json::appendQuoted(out, json::view(m->name));
            out += ':';
            appendMarshal(out, m->value);
        }
        out += '}';
    }
}

}  // namespace

bool FieldPath::nil() const {
    return nil_ && !parent_;
}

std::string FieldPath::str() const {
    if (nil()) {
        return "<nil>";
    }
    std::vector<const FieldPath*> steps;
    const FieldPath* p = this;
    for (; p->parent_; p = p->parent_) {
        steps.push_back(p);
    }
    std::string out(p->nil_ ? std::string_view() : p->root_);
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
        const FieldPath& s = **it;
        if (s.step_ == Step::Index) {
            out += "[" + std::to_string(s.index_) + "]";
        } else if (s.step_ == Step::Key) {
            out += "[";
            out += s.name_;
            out += "]";
        } else {
            if (!out.empty()) {
                out += '.';
            }
            out += s.name_;
        }
    }
    return out;
}

core::field::BadValue goValue(const json::Value& v) {
    if (v.IsNull()) {
        return core::field::BadValue("null");
    }
    if (v.IsString()) {
        return core::field::BadValue(json::view(v));
    }
    if (v.IsBool()) {
        return core::field::BadValue(v.GetBool());
    }
    if (v.IsNumber()) {
        return core::field::BadValue::raw(goNumber(v));
    }
    return core::field::BadValue::raw(goSharpV(v));
}

std::string goSharpV(const json::Value& v) {
    std::string out;
    appendSharpV(out, v);
    return out;
}

std::string goMarshal(const json::Value& v) {
    std::string out;
    appendMarshal(out, v);
    return out;
}

bool goDeepEqual(const json::Value& a, const json::Value& b) {
    if (a.IsNumber() && b.IsNumber()) {
        if (isGoInt(a) != isGoInt(b)) {
            return false;
        }
        return isGoInt(a) ? a.GetInt64() == b.GetInt64() : a.GetDouble() == b.GetDouble();
    }
    if (a.GetType() != b.GetType()) {
        // RapidJSON keeps true and false apart as types.
        return a.IsBool() && b.IsBool() && a.GetBool() == b.GetBool();
    }
    if (a.IsString()) {
        return json::view(a) == json::view(b);
    }
    if (a.IsArray()) {
        if (a.Size() != b.Size()) {
            return false;
        }
        for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
            if (!goDeepEqual(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }
    if (a.IsObject()) {
        if (a.MemberCount() != b.MemberCount()) {
            return false;
        }
        for (const auto& m : a.GetObject()) {
            const json::Value* other = json::member(b, json::view(m.name));
            if (!other || !goDeepEqual(m.value, *other)) {
                return false;
            }
        }
        return true;
    }
    return true;  // null, or the same boolean type
}

}  // namespace kube::apis::apiextensions::structural
