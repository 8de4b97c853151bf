#include "util/json.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "util/utf8.hpp"

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

// Feeds a Document (any rapidjson handler) while enforcing kMaxNestingDepth and
// replacing invalid UTF-8 in strings and keys with U+FFFD, as Go's decoder
// does; returning false stops the reader with kParseErrorTermination.
template <class Handler>
class BoundedHandler {
  public:
    explicit BoundedHandler(Handler& next) : next_(next) {}

    bool tooDeep() const { return tooDeep_; }
    bool numberTooBig() const { return numberTooBig_; }

    bool Null() { return next_.Null(); }
    bool Bool(bool b) { return next_.Bool(b); }
    bool Int(int i) { return next_.Int(i); }
    bool Uint(unsigned u) { return next_.Uint(u); }
    bool Int64(int64_t i) { return next_.Int64(i); }
    bool Uint64(uint64_t u) { return next_.Uint64(u); }
    bool Double(double d) { return next_.Double(d); }
    // The reader hands numbers over as text (kParseNumbersAsStringsFlag) and
    // they are converted here, correctly rounded as Go's strconv does:
    // integers that fit 64 bits stay integers, the rest become doubles.
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
        const char* end = s + n;
        if (std::find_if(s, end, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) ==
            end) {
            if (*s == '-') {
                int64_t i = 0;
                if (std::from_chars(s, end, i).ec == std::errc()) {
                    return next_.Int64(i);
                }
            } else {
                uint64_t u = 0;
                if (std::from_chars(s, end, u).ec == std::errc()) {
                    return next_.Uint64(u);
                }
            }
        }
        double d = 0;
        if (std::from_chars(s, end, d).ec == std::errc()) {
            return next_.Double(d);
        }
        // Out of range: past the largest double is an error, as in Go; below
        // the smallest it is zero (or the nearest subnormal).
        d = std::strtod(std::string(s, n).c_str(), nullptr);
        if (std::isinf(d)) {
            numberTooBig_ = true;
            return false;
        }
        return next_.Double(d);
    }
    bool String(const char* s, rapidjson::SizeType n, bool copy) {
        return valid(s, n) ? next_.String(s, n, copy) : next_.String(fixed_.data(), size(), true);
    }
    bool Key(const char* s, rapidjson::SizeType n, bool copy) {
        return valid(s, n) ? next_.Key(s, n, copy) : next_.Key(fixed_.data(), size(), true);
    }
    bool StartObject() { return enter() && next_.StartObject(); }
    bool EndObject(rapidjson::SizeType n) {
        depth_--;
        return next_.EndObject(n);
    }
    bool StartArray() { return enter() && next_.StartArray(); }
    bool EndArray(rapidjson::SizeType n) {
        depth_--;
        return next_.EndArray(n);
    }

  private:
    bool enter() {
        if (++depth_ > kMaxNestingDepth) {
            tooDeep_ = true;
            return false;
        }
        return true;
    }
    // Whether the string is valid; if not, its repair is left in fixed_.
    bool valid(const char* s, rapidjson::SizeType n) {
        std::string_view v(s, n);
        if (utf8::valid(v)) {
            return true;
        }
        fixed_ = utf8::toValid(v);
        return false;
    }
    rapidjson::SizeType size() const { return static_cast<rapidjson::SizeType>(fixed_.size()); }

    Handler& next_;
    std::string fixed_;
    int depth_ = 0;
    bool tooDeep_ = false;
    bool numberTooBig_ = false;
};

bool isHex4(std::string_view s, size_t i) {
    if (s.size() - i < 4) {
        return false;
    }
    for (size_t k = i; k < i + 4; k++) {
        if (!std::isxdigit(static_cast<unsigned char>(s[k]))) {
            return false;
        }
    }
    return true;
}

// The code unit of the \uXXXX escape at `i` (the backslash), or -1.
int escapedUnit(std::string_view s, size_t i) {
    if (s.size() - i < 6 || s[i] != '\\' || s[i + 1] != 'u' || !isHex4(s, i + 2)) {
        return -1;
    }
    return static_cast<int>(std::strtol(std::string(s.substr(i + 2, 4)).c_str(), nullptr, 16));
}

// Go decodes an escaped UTF-16 surrogate that is not half of a pair as
// U+FFFD, where RapidJSON refuses a lone high one and writes a lone low one
// as invalid UTF-8: such escapes become \ufffd before parsing. nullopt when
// `text` has none (the common case, found without copying).
std::optional<std::string> replaceLoneSurrogates(std::string_view text) {
    std::optional<std::string> out;
    size_t copied = 0;
    size_t i = text.find('\\');
    while (i != std::string_view::npos && i + 1 < text.size()) {
        int unit = escapedUnit(text, i);
        if (unit < 0xd800 || unit > 0xdfff) {
            i = text.find('\\', i + 2);
            continue;
        }
        int next = escapedUnit(text, i + 6);
        if (unit < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) {
            i = text.find('\\', i + 12);
            continue;
        }
        if (!out) {
            out.emplace();
            out->reserve(text.size());
        }
        out->append(text.substr(copied, i - copied));
        out->append("\\ufffd");
        copied = i + 6;
        i = text.find('\\', i + 6);
    }
    if (out) {
        out->append(text.substr(copied));
    }
    return out;
}

// The bytes PrettyWriter's indentation adds to the compact text of `v`: a
// newline and two spaces a level before each element and before the closing
// bracket of a non-empty container, a space after each colon. Walks without
// recursion, and stops counting once past `limit`.
size_t indentation(const Value& v, size_t limit) {
    struct Open {
        const Value* container;
        rapidjson::SizeType next = 0;
    };
    auto filled = [](const Value& c) {
        return (c.IsArray() && !c.Empty()) || (c.IsObject() && c.MemberCount() > 0);
    };
    std::vector<Open> open;
    if (filled(v)) {
        open.push_back({&v});
    }
    size_t extra = 0;
    while (!open.empty() && extra <= limit) {
        Open& top = open.back();
        size_t level = open.size();
        bool object = top.container->IsObject();
        rapidjson::SizeType size = object ? top.container->MemberCount() : top.container->Size();
        if (top.next == size) {
            extra += 1 + 2 * (level - 1);
            open.pop_back();
            continue;
        }
        const Value& child =
            object ? (top.container->MemberBegin() + top.next)->value : (*top.container)[top.next];
        top.next++;
        extra += 1 + 2 * level + (object ? 1 : 0);
        if (filled(child)) {
            open.push_back({&child});
        }
    }
    return extra;
}

template <class Writer>
void writeTo(const Value& v, rapidjson::StringBuffer& buf) {
    Writer w(buf);
    v.Accept(w);
}

}  // namespace

std::optional<std::string> parse(std::string_view text, Document& doc) {
    std::string rewritten;
    if (std::optional<std::string> fixed = replaceLoneSurrogates(text)) {
        rewritten = std::move(*fixed);
        text = rewritten;
    }
    std::optional<std::string> error;
    // Populate hands the reader's events to `doc` through BoundedHandler and
    // takes the root only when the whole text parsed.
    auto generate = [&](Document& target) {
        BoundedHandler handler(target);
        rapidjson::MemoryStream ms(text.data(), text.size());
        rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> is(ms);
        rapidjson::Reader reader;
        rapidjson::ParseResult r =
            reader.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag>(
                is, handler);
        if (!r) {
            if (r.Code() == rapidjson::kParseErrorTermination && handler.numberTooBig()) {
                error = goMessage(rapidjson::kParseErrorNumberTooBig, text, r.Offset());
            } else if (r.Code() == rapidjson::kParseErrorTermination && handler.tooDeep()) {
                error = describeChar(text, r.Offset()) + " exceeded max depth";
            } else {
                error = goMessage(r.Code(), text, r.Offset());
            }
            return false;
        }
        // The reader stops at a NUL byte as at the end of the text; Go reads on.
        if (std::memchr(text.data(), '\0', text.size()) != nullptr) {
            error = "invalid character '\\x00' after top-level value";
            return false;
        }
        return true;
    };
    doc.Populate(generate);
    if (error) {
        doc.SetNull();
        doc.GetAllocator().Clear();
    }
    return error;
}

std::string serialize(const Value& v) {
    rapidjson::StringBuffer buf;
    writeTo<rapidjson::Writer<rapidjson::StringBuffer>>(v, buf);
    return std::string(buf.GetString(), buf.GetSize());
}

std::string serializePretty(const Value& v) {
    std::string compact = serialize(v);
    size_t limit = kPrettyGrowth * compact.size() + kPrettySlack;
    if (indentation(v, limit) > limit) {
        return compact;
    }
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
    auto it = v.FindMember(Value(ref(name)));
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

Value& objectMember(Value& obj, std::string_view name, Allocator& a) {
    Value* m = member(obj, name);
    if (!m || !m->IsObject()) {
        setMember(obj, name, Value(rapidjson::kObjectType), a);
        m = member(obj, name);
    }
    return *m;
}

void removeMember(Value& obj, std::string_view name) {
    if (obj.IsObject()) {
        obj.RemoveMember(Value(ref(name)));
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
