#include "endpoints/field_validation.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

#include <google/protobuf/descriptor.h>

#include "endpoints/protobuf_codec.hpp"
#include "kapi/opts.pb.h"
#include "registry/schema_fields.hpp"
#include "registry/validation.hpp"
#include "util/base64.hpp"
#include "util/deep_stack.hpp"
#include "util/quantity.hpp"
#include "util/time.hpp"

namespace kube::endpoints {

namespace json = util::json;
namespace pb = google::protobuf;

namespace {

kapi::opt::JsonForm formOf(const pb::FieldDescriptor* f) {
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        return kapi::opt::OBJECT;
    }
    return f->message_type()->options().GetExtension(kapi::opt::form);
}

// The Go package name a message lives in, for Go's type names ("v1").
std::string goPackage(const pb::Descriptor* d) {
    switch (d->options().GetExtension(kapi::opt::form)) {
        case kapi::opt::INT_OR_STRING:
            return "intstr";
        case kapi::opt::QUANTITY:
            return "resource";
        default:
            break;
    }
    const std::string& package = d->file()->package();
    size_t dot = package.rfind('.');
    return dot == std::string::npos ? package : package.substr(dot + 1);
}

// The Go type a field's single value decodes into ("int32", "v1.Probe").
std::string goScalarType(const pb::FieldDescriptor* f) {
    switch (f->type()) {
        case pb::FieldDescriptor::TYPE_STRING:
            return "string";
        case pb::FieldDescriptor::TYPE_BYTES:
            return "[]uint8";
        case pb::FieldDescriptor::TYPE_BOOL:
            return "bool";
        case pb::FieldDescriptor::TYPE_INT32:
        case pb::FieldDescriptor::TYPE_SINT32:
        case pb::FieldDescriptor::TYPE_SFIXED32:
            return "int32";
        case pb::FieldDescriptor::TYPE_INT64:
        case pb::FieldDescriptor::TYPE_SINT64:
        case pb::FieldDescriptor::TYPE_SFIXED64:
            return "int64";
        case pb::FieldDescriptor::TYPE_UINT32:
        case pb::FieldDescriptor::TYPE_FIXED32:
            return "uint32";
        case pb::FieldDescriptor::TYPE_UINT64:
        case pb::FieldDescriptor::TYPE_FIXED64:
            return "uint64";
        case pb::FieldDescriptor::TYPE_DOUBLE:
            return "float64";
        case pb::FieldDescriptor::TYPE_FLOAT:
            return "float32";
        case pb::FieldDescriptor::TYPE_MESSAGE:
        case pb::FieldDescriptor::TYPE_GROUP:
            return goPackage(f->message_type()) + "." + f->message_type()->name();
        case pb::FieldDescriptor::TYPE_ENUM:
            return "int32";
    }
    return "string";
}

// A number as its shortest text that reads back the same (Go quotes the
// literal; this is the closest the parsed value allows).
std::string numberText(const json::Value& v) {
    if (v.IsInt64()) {
        return std::to_string(v.GetInt64());
    }
    if (v.IsUint64()) {
        return std::to_string(v.GetUint64());
    }
    double d = v.GetDouble();
    char buf[40];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, d);
        if (std::strtod(buf, nullptr) == d) {
            break;
        }
    }
    return buf;
}

bool integerIn(const json::Value& v, int64_t lo, uint64_t hi) {
    if (v.IsInt64()) {
        int64_t n = v.GetInt64();
        return n >= lo && (n < 0 || static_cast<uint64_t>(n) <= hi);
    }
    if (v.IsUint64()) {
        return v.GetUint64() <= hi;
    }
    return false;
}

constexpr const char* kQuantityFormat =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// Where the walk is: the strict-error path ("spec.containers[0].image"),
// Go's field path without indices ("spec.containers.image") and the Go
// struct whose field it is. A place is a link to its parent plus one step,
// spelled out only for a message: building each level's path as a string
// cost O(depth²) for an object nested thousands deep.
struct Place {
    enum class Step { Root, Field, Key, Index };
    const Place* parent = nullptr;
    Step step = Step::Root;
    std::string_view name;  // a field's name or a map's key
    size_t index = 0;
    std::string_view goStruct;

    Place field(std::string_view field, std::string_view goStructName) const {
        return Place{this, Step::Field, field, 0, goStructName};
    }
    Place key(std::string_view key) const { return Place{this, Step::Key, key, 0, goStruct}; }
    Place at(size_t i) const { return Place{this, Step::Index, {}, i, goStruct}; }

    std::string path() const { return spell(false); }
    std::string goPath() const { return spell(true); }

  private:
    // Fields (and, outside Go's path, keys) joined by dots; indexes in brackets.
    std::string spell(bool goOnly) const {
        std::vector<const Place*> steps;
        for (const Place* p = this; p && p->step != Step::Root; p = p->parent) {
            steps.push_back(p);
        }
        std::string out;
        for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
            const Place& p = **it;
            if (p.step == Step::Index) {
                if (!goOnly) {
                    out += "[" + std::to_string(p.index) + "]";
                }
            } else if (p.step == Step::Field || !goOnly) {
                if (!out.empty()) {
                    out += '.';
                }
                out += p.name;
            }
        }
        return out;
    }
};

class Walker {
  public:
    // `unionAt`: the walk is inside a JSON-schema union (a UNION message),
    // which Go decodes with a plain json.Unmarshal of its own: unknown and
    // duplicate fields are dropped without a word, and a type error names
    // the union's place in the outer walk.
    explicit Walker(json::Allocator& a, const Place* unionAt = nullptr)
        : a_(a), unionAt_(unionAt) {}

    void object(json::Value& obj, const pb::Descriptor* d, const Place& at, bool topLevel) {
        const auto& fields = registry::schemaFields(d).byName;
        std::map<std::string_view, size_t> seen;
        std::vector<size_t> shadowed;  // earlier copies of a repeated key
        size_t index = 0;
        for (auto m = obj.MemberBegin(); m != obj.MemberEnd(); ++m, ++index) {
            std::string_view name = json::view(m->name);
            Place here = at.field(name, d->name());
            auto [it, first] = seen.emplace(name, index);
            if (!first) {
                strict_.push_back("duplicate field " + registry::validation::goQuote(here.path()));
                shadowed.push_back(it->second);
                it->second = index;
            }
            if (topLevel && (name == "apiVersion" || name == "kind")) {
                continue;
            }
            auto f = fields.find(std::string(name));
            if (f == fields.end()) {
                strict_.push_back("unknown field " + registry::validation::goQuote(here.path()));
                shadowed.push_back(index);
                continue;
            }
            field(m->value, f->second, here);
        }
        eraseMembers(obj, shadowed);
    }

    std::vector<std::string>& strictErrors() { return strict_; }
    std::optional<std::string>& typeError() { return typeError_; }

  private:
    // Removes the members at `indexes` (any order, repeats allowed), keeping
    // the order of the rest.
    static void eraseMembers(json::Value& obj, std::vector<size_t>& indexes) {
        if (indexes.empty()) {
            return;
        }
        std::sort(indexes.begin(), indexes.end());
        indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
        for (auto i = indexes.rbegin(); i != indexes.rend(); ++i) {
            obj.EraseMember(obj.MemberBegin() + static_cast<std::ptrdiff_t>(*i));
        }
    }

    void fail(std::string message) {
        if (!typeError_) {
            typeError_ = std::move(message);
        }
    }

    void mismatch(const json::Value& v, const Place& at, const std::string& goType,
                  bool withLiteral = false) {
        std::string value(json::typeName(v));
        if (withLiteral) {
            value += " " + numberText(v);
        }
        const Place& where = unionAt_ ? *unionAt_ : at;
        fail("json: cannot unmarshal " + value + " into Go struct field " +
             std::string(where.goStruct) + "." + where.goPath() + " of type " + goType);
    }

    void field(json::Value& v, const pb::FieldDescriptor* f, const Place& at) {
        if (v.IsNull()) {
            return;
        }
        if (f->is_map()) {
            const pb::FieldDescriptor* valueField = f->message_type()->map_value();
            if (!v.IsObject()) {
                mismatch(v, at, "map[string]" + goScalarType(valueField));
                return;
            }
            std::map<std::string_view, size_t> seen;
            std::vector<size_t> shadowed;
            size_t index = 0;
            for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m, ++index) {
                std::string_view key = json::view(m->name);
                auto [it, first] = seen.emplace(key, index);
                if (!first) {
                    strict_.push_back("duplicate field " +
                                      registry::validation::goQuote(at.key(key).path()));
                    shadowed.push_back(it->second);
                    it->second = index;
                }
                if (valueField->type() == pb::FieldDescriptor::TYPE_MESSAGE &&
                    formOf(valueField) == kapi::opt::QUANTITY) {
                    // Every map of quantities is a core ResourceList.
                    if (!m->value.IsNull()) {
                        quantity(m->value, true);
                    }
                    continue;
                }
                Place here = at.key(key);
                single(m->value, valueField, here);
            }
            eraseMembers(v, shadowed);
            return;
        }
        if (f->is_repeated()) {
            if (!v.IsArray()) {
                mismatch(v, at, "[]" + goScalarType(f));
                return;
            }
            for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
                Place here = at.at(i);
                single(v[i], f, here);
            }
            return;
        }
        single(v, f, at);
    }

    // One value of `f`'s type (a list item, a map value or a plain field).
    void single(json::Value& v, const pb::FieldDescriptor* f, const Place& at) {
        if (v.IsNull()) {
            return;
        }
        switch (f->type()) {
            case pb::FieldDescriptor::TYPE_MESSAGE:
            case pb::FieldDescriptor::TYPE_GROUP:
                message(v, f, at);
                return;
            case pb::FieldDescriptor::TYPE_STRING:
                if (!v.IsString()) {
                    mismatch(v, at, "string");
                }
                return;
            case pb::FieldDescriptor::TYPE_BYTES:
                if (!v.IsString()) {
                    mismatch(v, at, "[]uint8");
                } else if (!util::decodeBase64(json::view(v))) {
                    fail("illegal base64 data at input byte " + std::to_string(badByte(v)));
                }
                return;
            case pb::FieldDescriptor::TYPE_BOOL:
                if (!v.IsBool()) {
                    mismatch(v, at, "bool");
                }
                return;
            case pb::FieldDescriptor::TYPE_DOUBLE:
            case pb::FieldDescriptor::TYPE_FLOAT:
                if (!v.IsNumber()) {
                    mismatch(v, at, goScalarType(f));
                }
                return;
            default:
                integer(v, f, at);
                return;
        }
    }

    void integer(const json::Value& v, const pb::FieldDescriptor* f, const Place& at) {
        std::string type = goScalarType(f);
        if (!v.IsNumber()) {
            mismatch(v, at, type);
            return;
        }
        int64_t lo = 0;
        uint64_t hi = 0;
        if (type == "int32") {
            lo = std::numeric_limits<int32_t>::min();
            hi = std::numeric_limits<int32_t>::max();
        } else if (type == "int64") {
            lo = std::numeric_limits<int64_t>::min();
            hi = std::numeric_limits<int64_t>::max();
        } else if (type == "uint32") {
            hi = std::numeric_limits<uint32_t>::max();
        } else {
            hi = std::numeric_limits<uint64_t>::max();
        }
        if (!integerIn(v, lo, hi)) {
            mismatch(v, at, type, true);
        }
    }

    // Go reports the offset of the first byte that is not base64.
    static size_t badByte(const json::Value& v) {
        std::string_view s = json::view(v);
        for (size_t i = 0; i < s.size(); ++i) {
            char c = s[i];
            bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '+' || c == '/' || c == '\r' || c == '\n' ||
                      (c == '=' && i + 2 >= s.size());
            if (!ok) {
                return i;
            }
        }
        return s.size() - s.size() % 4;
    }

    void message(json::Value& v, const pb::FieldDescriptor* f, const Place& at) {
        switch (formOf(f)) {
            case kapi::opt::TIME_RFC3339:
            case kapi::opt::MICRO_TIME_RFC3339:
                time(v, formOf(f) == kapi::opt::TIME_RFC3339);
                return;
            case kapi::opt::INT_OR_STRING:
                if (v.IsString()) {
                    return;
                }
                if (!v.IsNumber()) {
                    fail("json: cannot unmarshal " + std::string(json::typeName(v)) +
                         " into Go value of type int32");
                } else if (!integerIn(v, std::numeric_limits<int32_t>::min(),
                                      std::numeric_limits<int32_t>::max())) {
                    fail("json: cannot unmarshal number " + numberText(v) +
                         " into Go value of type int32");
                }
                return;
            case kapi::opt::QUANTITY:
                quantity(v);
                return;
            case kapi::opt::RAW_JSON:
            case kapi::opt::ANY_JSON:
                return;
            case kapi::opt::UNION:
                unionValue(v, f->message_type(), at);
                return;
            case kapi::opt::STRING_LIST:
                if (!v.IsArray()) {
                    mismatch(v, at, goScalarType(f));
                    return;
                }
                for (const json::Value& item : v.GetArray()) {
                    if (!item.IsString() && !item.IsNull()) {
                        mismatch(item, at, "string");
                        return;
                    }
                }
                return;
            case kapi::opt::OBJECT:
                break;
        }
        if (!v.IsObject()) {
            mismatch(v, at, goScalarType(f));
            return;
        }
        object(v, f->message_type(), at, false);
    }

    // JSONSchemaPropsOrBool, OrArray, OrStringArray: the UnmarshalJSON of
    // each picks the field by the value's first byte. A value of no
    // alternative is an error for OrBool and decodes to nothing (null) for
    // the others.
    void unionValue(json::Value& v, const pb::Descriptor* d, const Place& at) {
        auto [list, object, flag] = unionFields(d);
        Walker inner(a_, unionAt_ ? unionAt_ : &at);
        if (v.IsObject() && object) {
            inner.object(v, object->message_type(), at, false);
        } else if (v.IsArray() && list) {
            inner.field(v, list, at);
        } else if (v.IsBool() && flag) {
            return;
        } else if (flag) {
            fail("boolean or JSON schema expected");
            return;
        } else {
            v.SetNull();
            return;
        }
        if (inner.typeError_) {
            fail(*inner.typeError_);
        }
    }

    // metav1.Time and MicroTime read a string and parse it as RFC 3339;
    // Time keeps only whole seconds in UTC, as it is written back.
    void time(json::Value& v, bool seconds) {
        if (!v.IsString()) {
            fail("json: cannot unmarshal " + std::string(json::typeName(v)) +
                 " into Go value of type string");
            return;
        }
        std::string_view text = json::view(v);
        auto t = util::time::parseRFC3339(text);
        if (!t) {
            std::string quoted = "\"" + std::string(text) + "\"";
            fail("parsing time " + quoted + " as \"2006-01-02T15:04:05Z07:00\": cannot parse " +
                 quoted + " as \"2006\"");
            return;
        }
        if (seconds) {
            v = json::stringValue(util::time::formatRFC3339(*t), a_);
        }
    }

    // resource.Quantity reads a string (without surrounding white space) or
    // a bare number and is written back in its canonical form ("1.5" becomes
    // "1500m"); a value of a ResourceList is rounded up to the milli unit, as
    // the core/v1 conversion does.
    void quantity(json::Value& v, bool resourceList = false) {
        std::optional<util::Quantity> q;
        std::string why = kQuantityFormat;
        if (v.IsNumber()) {
            q = util::Quantity::parse(numberText(v), &why);
        } else if (v.IsString()) {
            q = util::Quantity::parse(trimSpace(json::view(v)), &why);
        }
        if (!q) {
            fail(why);
            return;
        }
        if (resourceList) {
            q->roundUpToMilli();
        }
        v = json::stringValue(q->string(), a_);
    }

    // Go's strings.TrimSpace: ASCII white space and Unicode's spaces.
    static std::string_view trimSpace(std::string_view s) {
        static constexpr std::string_view spaces[] = {
            " ",      "\t",     "\n",     "\v",     "\f",     "\r",     "\u0085",
            "\u00a0", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003", "\u2004",
            "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a", "\u2028",
            "\u2029", "\u202f", "\u205f", "\u3000"};
        for (bool trimmed = true; trimmed && !s.empty();) {
            trimmed = false;
            for (std::string_view sp : spaces) {
                if (s.starts_with(sp)) {
                    s.remove_prefix(sp.size());
                    trimmed = true;
                }
                if (s.ends_with(sp)) {
                    s.remove_suffix(sp.size());
                    trimmed = true;
                }
            }
        }
        return s;
    }

    json::Allocator& a_;
    std::vector<std::string> strict_;
    std::optional<std::string> typeError_;
    const Place* unionAt_;
};

}  // namespace

std::optional<FieldValidation> parseFieldValidation(const util::Query& q,
                                                    std::string_view optionsKind,
                                                    meta::Status* error) {
    std::string value = q.get("fieldValidation").value_or("");
    if (value.empty() || value == "Warn") {
        return FieldValidation::Warn;
    }
    if (value == "Strict") {
        return FieldValidation::Strict;
    }
    if (value == "Ignore") {
        return FieldValidation::Ignore;
    }
    *error =
        meta::Status::invalid({"meta.k8s.io", std::string(optionsKind)}, "",
                              {{"FieldValueNotSupported",
                                "Unsupported value: " + registry::validation::goQuote(value) +
                                    ": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"",
                                "fieldValidation"}});
    return std::nullopt;
}

SchemaCheck checkAgainstSchema(json::Value& obj, json::Allocator& a, std::string_view apiVersion,
                               std::string_view kind) {
    SchemaCheck out;
    const pb::Descriptor* d = protobufSchema(apiVersion, kind);
    if (!d || !obj.IsObject()) {
        return out;
    }
    out.checked = true;
    Walker walker(a);
    Place root;
    root.goStruct = d->name();
    // The walk recurses per level: a deep object gets a stack for it.
    util::runWithStackFor(obj, [&] { walker.object(obj, d, root, true); });
    out.strictErrors = std::move(walker.strictErrors());
    out.typeError = std::move(walker.typeError());
    return out;
}

SchemaCheck checkAgainstSchema(json::Value& obj, json::Allocator& a,
                               const registry::KindInfo& kind) {
    if (!kind.decodeCustom) {
        return checkAgainstSchema(obj, a, kind.apiVersion(), kind.kind);
    }
    SchemaCheck out;
    out.checked = true;
    std::vector<std::string> unknown;
    out.typeError = kind.decodeCustom(obj, unknown);
    if (!out.typeError) {
        for (const std::string& path : unknown) {
            out.strictErrors.push_back("unknown field \"" + path + "\"");
        }
    }
    return out;
}

}  // namespace kube::endpoints
