#include "util/json.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>

#include <cstring>

namespace kube::util::json {

namespace {

std::string describeChar(std::string_view text, size_t offset) {
    if (offset >= text.size()) {
        return "unexpected end of JSON input";
    }
    unsigned char c = static_cast<unsigned char>(text[offset]);
    std::string quoted;
    if (c == '\'') {
        quoted = "'\\''";
    } else if (c == '"') {
        quoted = "'\"'";
    } else if (c < 0x20 || c >= 0x7f) {
        char buf[16];
        snprintf(buf, sizeof buf, "'\\x%02x'", c);
        quoted = buf;
    } else {
        quoted = std::string("'") + static_cast<char>(c) + "'";
    }
    return "invalid character " + quoted;
}

// Go's encoding/json wording for the errors RapidJSON reports.
std::string goMessage(rapidjson::ParseErrorCode code, std::string_view text, size_t offset) {
    using namespace rapidjson;
    if (offset >= text.size() && code != kParseErrorDocumentRootNotSingular) {
        return "unexpected end of JSON input";
    }
    std::string at = describeChar(text, offset);
    switch (code) {
        case kParseErrorDocumentEmpty:
        case kParseErrorValueInvalid:
            return at + " looking for beginning of value";
        case kParseErrorDocumentRootNotSingular:
            return at + " after top-level value";
        case kParseErrorObjectMissName:
            return at + " looking for beginning of object key string";
        case kParseErrorObjectMissColon:
            return at + " after object key";
        case kParseErrorObjectMissCommaOrCurlyBracket:
            return at + " after object key:value pair";
        case kParseErrorArrayMissCommaOrSquareBracket:
            return at + " after array element";
        case kParseErrorStringMissQuotationMark:
        case kParseErrorStringInvalidEncoding:
        case kParseErrorStringEscapeInvalid:
        case kParseErrorStringUnicodeEscapeInvalidHex:
        case kParseErrorStringUnicodeSurrogateInvalid:
            return at + " in string literal";
        case kParseErrorNumberMissFraction:
            return at + " after decimal point in numeric literal";
        case kParseErrorNumberMissExponent:
            return at + " in exponent of numeric literal";
        case kParseErrorNumberTooBig:
            return "number out of range";
        default:
            return at + " (" + GetParseError_En(code) + ")";
    }
}

template <class Writer>
void writeTo(const Value& v, rapidjson::StringBuffer& buf) {
    Writer w(buf);
    v.Accept(w);
}

}  // namespace

std::optional<std::string> parse(std::string_view text, Document& doc) {
    doc.Parse(text.data(), text.size());
    if (doc.HasParseError()) {
        return goMessage(doc.GetParseError(), text, doc.GetErrorOffset());
    }
    return std::nullopt;
}

std::string serialize(const Value& v) {
    rapidjson::StringBuffer buf;
    writeTo<rapidjson::Writer<rapidjson::StringBuffer>>(v, buf);
    return std::string(buf.GetString(), buf.GetSize());
}

std::string serializePretty(const Value& v) {
    rapidjson::StringBuffer buf;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(' ', 2);
    v.Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
}

const Value* member(const Value& v, std::string_view name) {
    if (!v.IsObject()) {
        return nullptr;
    }
    auto it = v.FindMember(Value(rapidjson::StringRef(name.data(), name.size())));
    return it == v.MemberEnd() ? nullptr : &it->value;
}

Value* member(Value& v, std::string_view name) {
    return const_cast<Value*>(member(static_cast<const Value&>(v), name));
}

std::string_view stringMember(const Value& v, std::string_view name) {
    const Value* m = member(v, name);
    return m ? view(*m) : std::string_view();
}

const Value* at(const Value& v, std::initializer_list<std::string_view> path) {
    const Value* cur = &v;
    for (std::string_view p : path) {
        cur = member(*cur, p);
        if (!cur) {
            return nullptr;
        }
    }
    return cur;
}

void setMember(Value& obj, std::string_view name, Value value, Allocator& a) {
    if (Value* m = member(obj, name)) {
        *m = std::move(value);
        return;
    }
    obj.AddMember(stringValue(name, a), value, a);
}

void removeMember(Value& obj, std::string_view name) {
    if (obj.IsObject()) {
        obj.RemoveMember(Value(rapidjson::StringRef(name.data(), name.size())));
    }
}

void appendQuoted(std::string& out, std::string_view s) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    out.append(buf.GetString(), buf.GetSize());
}

std::string_view typeName(const Value& v) {
    if (v.IsObject()) {
        return "object";
    }
    if (v.IsArray()) {
        return "array";
    }
    if (v.IsString()) {
        return "string";
    }
    if (v.IsNumber()) {
        return "number";
    }
    if (v.IsBool()) {
        return "bool";
    }
    return "null";
}

}  // namespace kube::util::json
