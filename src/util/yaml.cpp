#include "util/yaml.hpp"

#include <yaml.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace kube::util::yaml {

namespace {

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";
constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";
constexpr std::string_view kBoolTag = "tag:yaml.org,2002:bool";
constexpr std::string_view kIntTag = "tag:yaml.org,2002:int";
constexpr std::string_view kFloatTag = "tag:yaml.org,2002:float";
constexpr std::string_view kNullTag = "tag:yaml.org,2002:null";
constexpr std::string_view kTimestampTag = "tag:yaml.org,2002:timestamp";
constexpr std::string_view kBinaryTag = "tag:yaml.org,2002:binary";
constexpr std::string_view kMergeTag = "tag:yaml.org,2002:merge";

constexpr const char* kErrorPrefix = "error converting YAML to JSON: ";
// Nesting limit (collections and alias expansion), so hostile input cannot
// exhaust the stack; kube objects nest a few dozen levels at most.
constexpr int kMaxDepth = 1000;

// ---------------------------------------------------------------------------
// The node tree go-yaml's parser builds for one document.

enum class NodeKind { Scalar, Mapping, Sequence, Alias };

struct Node {
    NodeKind kind = NodeKind::Scalar;
    std::string value;      // scalar text; the anchor name of an alias
    std::string tag;        // long form ("tag:yaml.org,2002:int"), "" when absent
    bool implicit = false;  // plain scalar without a tag (or with "!")
    const Node* alias = nullptr;
    std::vector<const Node*> children;  // mapping: key, value, key, value, ...
};

struct Tree {
    std::deque<Node> nodes;
    std::unordered_map<std::string, const Node*> anchors;
    const Node* root = nullptr;
};

std::string cstr(const yaml_char_t* s) {
    return s == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(s));
}

// libyaml's event stream; error() words a failure as go-yaml's parser.fail().
class Events {
  public:
    explicit Events(std::string_view text) {
        static const unsigned char kEmpty[] = "";
        yaml_parser_initialize(&parser_);
        const auto* data =
            text.empty() ? kEmpty : reinterpret_cast<const unsigned char*>(text.data());
        yaml_parser_set_input_string(&parser_, data, text.size());
    }
    ~Events() {
        clear();
        yaml_parser_delete(&parser_);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;

    bool next() {
        clear();
        if (!yaml_parser_parse(&parser_, &event_)) {
            return false;
        }
        has_ = true;
        return true;
    }
    const yaml_event_t& event() const { return event_; }
    yaml_event_type_t type() const { return event_.type; }

    // go-yaml reports the problem line, 1-based for scanner errors but
    // 0-based for parser errors, and no line at all for line 0.
    std::string error() const {
        size_t line = 0;
        if (parser_.problem_mark.line != 0) {
            line = parser_.problem_mark.line + (parser_.error == YAML_SCANNER_ERROR ? 1 : 0);
        } else if (parser_.context_mark.line != 0) {
            line = parser_.context_mark.line;
        }
        std::string msg = "yaml: ";
        if (line != 0) {
            msg += "line " + std::to_string(line) + ": ";
        }
        msg +=
            parser_.problem != nullptr ? parser_.problem : "unknown problem parsing YAML content";
        return msg;
    }

  private:
    void clear() {
        if (has_) {
            yaml_event_delete(&event_);
            has_ = false;
        }
    }
    yaml_parser_t parser_{};
    yaml_event_t event_{};
    bool has_ = false;
};

// Builds the tree of the document whose DOCUMENT-START is the current event;
// mirrors go-yaml's parser (anchors are bound before their children are read,
// so a self-referencing alias is caught by the decoder).
class TreeReader {
  public:
    TreeReader(Events& events, Tree& tree) : events_(events), tree_(tree) {}

    bool document() {
        if (!advance()) {
            return false;
        }
        tree_.root = node(0);
        return tree_.root != nullptr && advance();
    }
    const std::string& error() const { return err_; }

  private:
    bool advance() {
        if (!events_.next()) {
            err_ = events_.error();
            return false;
        }
        return true;
    }

    Node& add(NodeKind kind, const yaml_char_t* anchor, const yaml_char_t* tag) {
        Node& n = tree_.nodes.emplace_back();
        n.kind = kind;
        n.tag = cstr(tag);
        if (anchor != nullptr) {
            tree_.anchors[cstr(anchor)] = &n;
        }
        return n;
    }

    // Reads the node starting at the current event; on return the current
    // event is the node's last one.
    const Node* node(int depth) {
        const yaml_event_t& e = events_.event();
        switch (e.type) {
            case YAML_SCALAR_EVENT: {
                Node& n = add(NodeKind::Scalar, e.data.scalar.anchor, e.data.scalar.tag);
                n.value.assign(reinterpret_cast<const char*>(e.data.scalar.value),
                               e.data.scalar.length);
                n.implicit = e.data.scalar.plain_implicit != 0;
                return &n;
            }
            case YAML_ALIAS_EVENT: {
                std::string name = cstr(e.data.alias.anchor);
                auto it = tree_.anchors.find(name);
                if (it == tree_.anchors.end()) {
                    err_ = "yaml: unknown anchor '" + name + "' referenced";
                    return nullptr;
                }
                Node& n = add(NodeKind::Alias, nullptr, nullptr);
                n.value = std::move(name);
                n.alias = it->second;
                return &n;
            }
            case YAML_SEQUENCE_START_EVENT:
                return collection(NodeKind::Sequence, e.data.sequence_start.anchor,
                                  e.data.sequence_start.tag, YAML_SEQUENCE_END_EVENT, depth);
            case YAML_MAPPING_START_EVENT:
                return collection(NodeKind::Mapping, e.data.mapping_start.anchor,
                                  e.data.mapping_start.tag, YAML_MAPPING_END_EVENT, depth);
            default:
                err_ = "yaml: unexpected event in document";
                return nullptr;
        }
    }

    const Node* collection(NodeKind kind, const yaml_char_t* anchor, const yaml_char_t* tag,
                           yaml_event_type_t end, int depth) {
        if (depth >= kMaxDepth) {
            err_ = "yaml: exceeded max depth of " + std::to_string(kMaxDepth);
            return nullptr;
        }
        Node& n = add(kind, anchor, tag);
        while (true) {
            if (!advance()) {
                return nullptr;
            }
            if (events_.type() == end) {
                return &n;
            }
            const Node* child = node(depth + 1);
            if (child == nullptr) {
                return nullptr;
            }
            n.children.push_back(child);
        }
    }

    Events& events_;
    Tree& tree_;
    std::string err_;
};

// ---------------------------------------------------------------------------
// Scalar resolution, as go-yaml v2's resolve() and decoder.scalar().

enum class ScalarType { Null, Bool, Int, Uint, Float, BigInt, String };

struct Scalar {
    ScalarType type = ScalarType::Null;
    bool b = false;
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0;   // Float, and BigInt's nearest double
    std::string s;  // String, and BigInt's text
};

enum class ParseStatus { Ok, Syntax, Range };

// strconv.ParseUint(s, 0, 64): Go base prefixes, leading 0 is octal.
ParseStatus parseGoUint(std::string_view s, uint64_t* out) {
    if (s.empty()) {
        return ParseStatus::Syntax;
    }
    unsigned base = 10;
    if (s[0] == '0') {
        char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : 0;
        base = p == 'b' ? 2 : p == 'o' ? 8 : p == 'x' ? 16 : 8;
        s.remove_prefix(base == 8 && p != 'o' ? 1 : 2);
    }
    uint64_t n = 0;
    for (char c : s) {
        unsigned d = c >= '0' && c <= '9' ? static_cast<unsigned>(c - '0')
                     : (c | 0x20) >= 'a' && (c | 0x20) <= 'z'
                         ? static_cast<unsigned>((c | 0x20) - 'a' + 10)
                         : 99;
        if (d >= base) {
            return ParseStatus::Syntax;
        }
        if (n > (UINT64_MAX - d) / base) {
            return ParseStatus::Range;
        }
        n = n * base + d;
    }
    *out = n;
    return ParseStatus::Ok;
}

// strconv.ParseInt(s, 0, 64).
ParseStatus parseGoInt(std::string_view s, int64_t* out) {
    bool negative = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        s.remove_prefix(1);
    }
    uint64_t u = 0;
    ParseStatus st = parseGoUint(s, &u);
    if (st != ParseStatus::Ok) {
        return st;
    }
    if (negative ? u > 9223372036854775808ULL : u > 9223372036854775807ULL) {
        return ParseStatus::Range;
    }
    *out = negative ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
    return ParseStatus::Ok;
}

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool isYamlStyleFloat(std::string_view s) {
    size_t i = 0;
    auto digits = [&] {
        size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            i++;
        }
        return i - start;
    };
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
        i++;
    }
    if (i < s.size() && s[i] == '.') {
        i++;
        if (digits() == 0) {
            return false;
        }
    } else {
        if (digits() == 0) {
            return false;
        }
        if (i < s.size() && s[i] == '.') {
            i++;
            digits();
        }
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
            i++;
        }
        if (digits() == 0) {
            return false;
        }
    }
    return i == s.size();
}

// strconv.ParseFloat on a YAML-style float: fails on overflow, underflow
// rounds to zero.
bool parseFloat(std::string_view s, double* out) {
    bool negative = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        s.remove_prefix(1);
    }
    double d = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec == std::errc::result_out_of_range) {
        if (std::isinf(std::strtod(std::string(s).c_str(), nullptr))) {
            return false;
        }
        d = 0;
    } else if (ec != std::errc() || ptr != s.data() + s.size()) {
        return false;
    }
    *out = negative ? -d : d;
    return true;
}

// A base-prefixed integer too big for 64 bits (go-yaml keeps a big.Int),
// as the nearest double.
bool parseBigInt(std::string_view s, double* out) {
    bool negative = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        s.remove_prefix(1);
    }
    unsigned base = 10;
    if (s.size() >= 2 && s[0] == '0') {
        char p = static_cast<char>(s[1] | 0x20);
        base = p == 'b' ? 2 : p == 'o' ? 8 : p == 'x' ? 16 : 8;
        s.remove_prefix(p == 'b' || p == 'o' || p == 'x' ? 2 : 1);
    }
    if (s.empty()) {
        return false;
    }
    long double n = 0;
    for (char c : s) {
        unsigned d = c >= '0' && c <= '9' ? static_cast<unsigned>(c - '0')
                     : (c | 0x20) >= 'a' && (c | 0x20) <= 'f'
                         ? static_cast<unsigned>((c | 0x20) - 'a' + 10)
                         : 99;
        if (d >= base) {
            return false;
        }
        n = n * base + d;
    }
    *out = static_cast<double>(negative ? -n : n);
    return true;
}

// The YAML timestamp forms go-yaml accepts: 2006-1-2, optionally followed by
// [Tt ]15:4:5[.frac] and, after T/t, a Z or ±07:00 zone.
bool isTimestamp(std::string_view s) {
    size_t i = 0;
    auto number = [&](size_t minDigits, size_t maxDigits, int lo, int hi) {
        size_t start = i;
        int v = 0;
        while (i < s.size() && i - start < maxDigits && s[i] >= '0' && s[i] <= '9') {
            v = v * 10 + (s[i++] - '0');
        }
        return i - start >= minDigits && v >= lo && v <= hi;
    };
    auto literal = [&](char c) { return i < s.size() && s[i] == c && ++i; };
    if (!number(4, 4, 0, 9999) || !literal('-') || !number(1, 2, 1, 12) || !literal('-') ||
        !number(1, 2, 1, 31)) {
        return false;
    }
    if (i == s.size()) {
        return true;
    }
    char sep = s[i++];
    if (sep != 'T' && sep != 't' && sep != ' ') {
        return false;
    }
    if (!number(1, 2, 0, 23) || !literal(':') || !number(1, 2, 0, 59) || !literal(':') ||
        !number(1, 2, 0, 59)) {
        return false;
    }
    if (literal('.') && !number(1, 9, 0, 999999999)) {
        return false;
    }
    if (sep == ' ') {
        return i == s.size();
    }
    if (literal('Z')) {
        return i == s.size();
    }
    if (!literal('+') && !literal('-')) {
        return false;
    }
    return number(2, 2, 0, 23) && literal(':') && number(2, 2, 0, 59) && i == s.size();
}

// base64.StdEncoding.DecodeString, which skips CR and LF.
std::optional<std::string> decodeBase64(std::string_view in) {
    std::string clean;
    for (char c : in) {
        if (c != '\r' && c != '\n') {
            clean.push_back(c);
        }
    }
    if (clean.size() % 4 != 0) {
        return std::nullopt;
    }
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        return c == '+' ? 62 : c == '/' ? 63 : -1;
    };
    std::string out;
    for (size_t i = 0; i < clean.size(); i += 4) {
        bool last = i + 4 == clean.size();
        int pad = last ? (clean[i + 3] == '=') + (clean[i + 2] == '=') : 0;
        if (pad == 1 && clean[i + 2] == '=') {
            return std::nullopt;
        }
        uint32_t bits = 0;
        for (int k = 0; k < 4 - pad; k++) {
            int v = value(clean[i + static_cast<size_t>(k)]);
            if (v < 0) {
                return std::nullopt;
            }
            bits |= static_cast<uint32_t>(v) << (18 - 6 * k);
        }
        out.push_back(static_cast<char>(bits >> 16));
        if (pad < 2) {
            out.push_back(static_cast<char>(bits >> 8));
        }
        if (pad < 1) {
            out.push_back(static_cast<char>(bits));
        }
    }
    return out;
}

// Go's encoding/json replaces invalid UTF-8 with U+FFFD.
std::string toValidUtf8(std::string_view s) {
    std::string out;
    size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        size_t n = c < 0x80                ? 1
                   : c >= 0xc2 && c < 0xe0 ? 2
                   : c >= 0xe0 && c < 0xf0 ? 3
                   : c >= 0xf0 && c < 0xf5 ? 4
                                           : 0;
        bool ok = n != 0 && i + n <= s.size();
        for (size_t k = 1; ok && k < n; k++) {
            ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
        }
        if (ok && n == 3) {
            auto c1 = static_cast<unsigned char>(s[i + 1]);
            ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);
        } else if (ok && n == 4) {
            auto c1 = static_cast<unsigned char>(s[i + 1]);
            ok = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
        }
        if (ok) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            out += "\xef\xbf\xbd";
            i++;
        }
    }
    return out;
}

std::string shortTag(std::string_view tag) {
    if (tag.starts_with(kTagPrefix)) {
        return "!!" + std::string(tag.substr(kTagPrefix.size()));
    }
    return std::string(tag);
}

bool resolvableTag(std::string_view tag) {
    return tag.empty() || tag == kStrTag || tag == kBoolTag || tag == kIntTag || tag == kFloatTag ||
           tag == kNullTag || tag == kTimestampTag;
}

// YAML 1.1 words go-yaml resolves to booleans and null.
bool lookupWord(std::string_view in, Scalar* out, std::string_view* rtag) {
    static const std::unordered_map<std::string_view, int> kWords = {
        {"y", 1},     {"Y", 1},     {"yes", 1},   {"Yes", 1},   {"YES", 1},   {"true", 1},
        {"True", 1},  {"TRUE", 1},  {"on", 1},    {"On", 1},    {"ON", 1},    {"n", 0},
        {"N", 0},     {"no", 0},    {"No", 0},    {"NO", 0},    {"false", 0}, {"False", 0},
        {"FALSE", 0}, {"off", 0},   {"Off", 0},   {"OFF", 0},   {"", 2},      {"~", 2},
        {"null", 2},  {"Null", 2},  {"NULL", 2},  {".nan", 3},  {".NaN", 3},  {".NAN", 3},
        {".inf", 4},  {".Inf", 4},  {".INF", 4},  {"+.inf", 4}, {"+.Inf", 4}, {"+.INF", 4},
        {"-.inf", 5}, {"-.Inf", 5}, {"-.INF", 5},
    };
    auto it = kWords.find(in);
    if (it == kWords.end()) {
        return false;
    }
    switch (it->second) {
        case 0:
        case 1:
            out->type = ScalarType::Bool;
            out->b = it->second == 1;
            *rtag = kBoolTag;
            return true;
        case 2:
            out->type = ScalarType::Null;
            *rtag = kNullTag;
            return true;
        default:
            out->type = ScalarType::Float;
            out->f = it->second == 3 ? NAN : it->second == 4 ? INFINITY : -INFINITY;
            *rtag = kFloatTag;
            return true;
    }
}

// The implicit type of a plain scalar (or one tagged with a core tag): the
// first character hints at the candidates, as in go-yaml's resolveTable.
std::string_view resolveImplicit(std::string_view tag, std::string_view in, Scalar* out) {
    std::string_view rtag;
    char first = in.empty() ? 'N' : in[0];
    bool hinted = in.empty() || std::string_view("yYnNtTfFoO~.+-0123456789").find(first) !=
                                    std::string_view::npos;
    if (!hinted || tag == kStrTag) {
        return kStrTag;
    }
    if (lookupWord(in, out, &rtag)) {
        return rtag;
    }
    if (first == '.') {
        if (isYamlStyleFloat(in) && parseFloat(in, &out->f)) {
            out->type = ScalarType::Float;
            return kFloatTag;
        }
        return kStrTag;
    }
    bool numeric = first == '+' || first == '-' || (first >= '0' && first <= '9');
    if (!numeric) {
        return kStrTag;
    }
    if ((tag.empty() || tag == kTimestampTag) && isTimestamp(in)) {
        return kTimestampTag;
    }
    std::string plain;
    for (char c : in) {
        if (c != '_') {
            plain.push_back(c);
        }
    }
    ParseStatus intStatus = parseGoInt(plain, &out->i);
    if (intStatus == ParseStatus::Ok) {
        out->type = ScalarType::Int;
        return kIntTag;
    }
    ParseStatus uintStatus = parseGoUint(plain, &out->u);
    if (uintStatus == ParseStatus::Ok) {
        out->type = ScalarType::Uint;
        return kIntTag;
    }
    if (isYamlStyleFloat(plain) && parseFloat(plain, &out->f)) {
        out->type = ScalarType::Float;
        return kFloatTag;
    }
    if (plain.starts_with("0b") || plain.starts_with("-0b")) {
        bool negative = plain[0] == '-';
        std::string_view digits = std::string_view(plain).substr(negative ? 3 : 2);
        uint64_t u = 0;
        std::string prefixed = "0b" + std::string(digits);
        if (!digits.empty() && parseGoUint(prefixed, &u) == ParseStatus::Ok) {
            if (negative) {
                out->type = ScalarType::Int;
                out->i = static_cast<int64_t>(0 - u);
            } else if (u <= INT64_MAX) {
                out->type = ScalarType::Int;
                out->i = static_cast<int64_t>(u);
            } else {
                out->type = ScalarType::Uint;
                out->u = u;
            }
            return kIntTag;
        }
    }
    if (uintStatus == ParseStatus::Range && parseBigInt(plain, &out->f)) {
        out->type = ScalarType::BigInt;
        out->s = plain;
        return kIntTag;
    }
    return kStrTag;
}

// ---------------------------------------------------------------------------
// Decoding the tree into JSON, as go-yaml's decoder fills an interface{} and
// sigs.k8s.io/yaml then turns it into JSON.

std::string goFloat(double d, bool asFloat32) {
    if (std::isnan(d)) {
        return "NaN";
    }
    if (std::isinf(d)) {
        return d > 0 ? "+Inf" : "-Inf";
    }
    char buf[64];
    auto res = asFloat32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d),
                                         std::chars_format::scientific)
                         : std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    size_t e = sci.find('e');
    int exp = std::atoi(sci.c_str() + e + 1);
    // strconv.FormatFloat(f, 'g', -1, n): exponent form below 1e-4 and from 1e6.
    if (exp < -4 || exp >= 6) {
        return sci;
    }
    std::string digits;
    for (char c : sci.substr(0, e)) {
        if (c >= '0' && c <= '9') {
            digits.push_back(c);
        }
    }
    std::string out = sci[0] == '-' ? "-" : "";
    auto point = static_cast<size_t>(exp + 1);
    if (exp < 0) {
        out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (point >= digits.size()) {
        out += digits + std::string(point - digits.size(), '0');
    } else {
        out += digits.substr(0, point) + "." + digits.substr(point);
    }
    return out;
}

// An approximation of Go's %#v of a decoded value, for error messages.
std::string goSyntax(const json::Value& v) {
    if (v.IsNull()) {
        return "<nil>";
    }
    if (v.IsString()) {
        std::string out;
        json::appendQuoted(out, json::view(v));
        return out;
    }
    if (v.IsArray()) {
        std::string out = "[]interface {}{";
        for (const json::Value& e : v.GetArray()) {
            out += (out.back() == '{' ? "" : ", ") + goSyntax(e);
        }
        return out + "}";
    }
    if (v.IsObject()) {
        std::string out = "map[interface {}]interface {}{";
        for (const auto& m : v.GetObject()) {
            out += out.back() == '{' ? "" : ", ";
            json::appendQuoted(out, json::view(m.name));
            out += ":" + goSyntax(m.value);
        }
        return out + "}";
    }
    return json::serialize(v);
}

// Allowed share of decoded nodes that came through aliases (go-yaml's
// allowedAliasRatio): generous for small documents, 10% for huge ones.
double allowedAliasRatio(int64_t decodeCount) {
    constexpr double kLow = 400000;
    constexpr double kHigh = 4000000;
    if (decodeCount <= kLow) {
        return 0.99;
    }
    if (decodeCount >= kHigh) {
        return 0.10;
    }
    return 0.99 - 0.89 * ((static_cast<double>(decodeCount) - kLow) / (kHigh - kLow));
}

class Decoder {
  public:
    explicit Decoder(json::Allocator& a) : a_(a) {}

    // Decodes `root` (null for an empty stream) into `out`; on failure
    // returns the full message.
    std::optional<std::string> decode(const Node* root, json::Value& out) {
        out.SetNull();
        if (root != nullptr && !unmarshal(*root, Target{&out, nullptr, nullptr})) {
            return kErrorPrefix + yamlErr_;
        }
        if (keyErr_) {
            return kErrorPrefix + *keyErr_;
        }
        if (jsonErr_) {
            return kErrorPrefix + *jsonErr_;
        }
        return std::nullopt;
    }

  private:
    // A Go map[interface{}]interface{} being filled: typed keys, later
    // assignments (and merges) overwriting earlier ones.
    struct Map {
        std::vector<std::pair<Scalar, json::Value>> entries;
        std::unordered_map<std::string, size_t> index;

        void set(Scalar key, json::Value value) {
            std::string id(1, static_cast<char>('0' + static_cast<int>(key.type)));
            switch (key.type) {
                case ScalarType::Bool:
                    id += key.b ? "1" : "0";
                    break;
                case ScalarType::Int:
                    id += std::to_string(key.i);
                    break;
                case ScalarType::Uint:
                    id += std::to_string(key.u);
                    break;
                case ScalarType::Float:
                    id += goFloat(key.f, false);
                    break;
                case ScalarType::BigInt:
                case ScalarType::String:
                    id += key.s;
                    break;
                case ScalarType::Null:
                    break;
            }
            auto [it, fresh] = index.emplace(std::move(id), entries.size());
            if (fresh) {
                entries.emplace_back(std::move(key), std::move(value));
            } else {
                entries[it->second].second = std::move(value);
            }
        }
    };

    // Where a node decodes to: a new value, an existing map (merge), or a
    // map key (which must be a scalar).
    struct Target {
        json::Value* value;
        Map* map;
        Scalar* key;
    };

    bool fail(std::string msg) {
        yamlErr_ = "yaml: " + std::move(msg);
        return false;
    }

    bool unmarshal(const Node& n, Target t) {
        decodeCount_++;
        if (aliasDepth_ > 0) {
            aliasCount_++;
        }
        if (aliasCount_ > 100 && decodeCount_ > 1000 &&
            static_cast<double>(aliasCount_) / static_cast<double>(decodeCount_) >
                allowedAliasRatio(decodeCount_)) {
            return fail("document contains excessive aliasing");
        }
        if (depth_ >= kMaxDepth) {
            return fail("exceeded max depth of " + std::to_string(kMaxDepth));
        }
        depth_++;
        bool ok = dispatch(n, t);
        depth_--;
        return ok;
    }

    bool dispatch(const Node& n, Target t) {
        switch (n.kind) {
            case NodeKind::Scalar:
                return scalar(n, t);
            case NodeKind::Alias:
                return alias(n, t);
            case NodeKind::Mapping:
                if (t.map != nullptr) {
                    return fill(n, *t.map);
                }
                [[fallthrough]];
            case NodeKind::Sequence: {
                json::Value v;
                bool ok = n.kind == NodeKind::Mapping ? mapping(n, v) : sequence(n, v);
                if (!ok) {
                    return false;
                }
                if (t.key != nullptr) {
                    return fail("invalid map key: " + goSyntax(v));
                }
                *t.value = std::move(v);
                return true;
            }
        }
        return false;
    }

    bool alias(const Node& n, Target t) {
        if (activeAliases_.count(&n) != 0) {
            return fail("anchor '" + n.value + "' value contains itself");
        }
        activeAliases_.insert(&n);
        aliasDepth_++;
        bool ok = unmarshal(*n.alias, t);
        aliasDepth_--;
        activeAliases_.erase(&n);
        return ok;
    }

    bool scalar(const Node& n, Target t) {
        Scalar s;
        if (!resolveScalar(n, &s)) {
            return false;
        }
        if (t.key != nullptr) {
            *t.key = std::move(s);
            return true;
        }
        toJson(s, *t.value);
        return true;
    }

    // go-yaml's decoder.scalar for an interface{} target.
    bool resolveScalar(const Node& n, Scalar* out) {
        if (n.tag.empty() && !n.implicit) {
            out->type = ScalarType::String;
            out->s = n.value;
            return true;
        }
        if (!resolvableTag(n.tag)) {
            if (n.tag == kBinaryTag) {
                std::optional<std::string> data = decodeBase64(n.value);
                if (!data) {
                    return fail("!!binary value contains invalid base64 data");
                }
                out->type = ScalarType::String;
                out->s = toValidUtf8(*data);
                return true;
            }
            out->type = ScalarType::String;
            out->s = n.value;
            return true;
        }
        std::string_view rtag = resolveImplicit(n.tag, n.value, out);
        if (rtag == kStrTag || rtag == kTimestampTag) {
            // Timestamps stay strings in an interface{} (go-yaml v2 compatibility).
            out->type = ScalarType::String;
            out->s = n.value;
        }
        if (n.tag.empty() || n.tag == rtag || n.tag == kStrTag) {
            return true;
        }
        if (n.tag == kFloatTag && rtag == kIntTag && out->type == ScalarType::Int) {
            out->type = ScalarType::Float;
            out->f = static_cast<double>(out->i);
            return true;
        }
        return fail("cannot decode " + shortTag(rtag) + " `" + n.value + "` as a " +
                    shortTag(n.tag));
    }

    // A scalar as json.Marshal writes it and a JSON parser reads it back.
    void toJson(const Scalar& s, json::Value& v) {
        switch (s.type) {
            case ScalarType::Null:
                v.SetNull();
                break;
            case ScalarType::Bool:
                v.SetBool(s.b);
                break;
            case ScalarType::Int:
                v.SetInt64(s.i);
                break;
            case ScalarType::Uint:
                v.SetUint64(s.u);
                break;
            case ScalarType::BigInt:
                v.SetDouble(s.f);
                break;
            case ScalarType::String:
                v.SetString(s.s.data(), static_cast<rapidjson::SizeType>(s.s.size()), a_);
                break;
            case ScalarType::Float:
                floatToJson(s.f, v);
                break;
        }
    }

    void floatToJson(double d, json::Value& v) {
        if (!std::isfinite(d)) {
            if (!jsonErr_) {
                jsonErr_ = "json: unsupported value: " + goFloat(d, false);
            }
            v.SetNull();
        } else if (d == std::trunc(d) && std::fabs(d) < 1e21) {
            // Go writes it without a fraction, so it reads back as an integer.
            if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
                v.SetInt64(static_cast<int64_t>(d));
            } else if (d >= 0 && d < 18446744073709551616.0) {
                v.SetUint64(static_cast<uint64_t>(d));
            } else {
                v.SetDouble(d);
            }
        } else {
            v.SetDouble(d);
        }
    }

    bool mapping(const Node& n, json::Value& out) {
        Map m;
        if (!fill(n, m)) {
            return false;
        }
        // JSON keys are strings; Go's encoding/json writes them sorted.
        std::map<std::string, json::Value*> sorted;
        for (auto& [key, value] : m.entries) {
            std::optional<std::string> k = keyString(key, value);
            if (k) {
                sorted[*k] = &value;
            }
        }
        out.SetObject();
        for (auto& [k, value] : sorted) {
            out.AddMember(json::stringValue(k, a_), std::move(*value), a_);
        }
        return true;
    }

    bool fill(const Node& n, Map& m) {
        for (size_t i = 0; i + 1 < n.children.size(); i += 2) {
            const Node& k = *n.children[i];
            const Node& v = *n.children[i + 1];
            bool isMerge =
                k.kind == NodeKind::Scalar && k.value == "<<" && (k.implicit || k.tag == kMergeTag);
            if (isMerge) {
                if (!merge(v, m)) {
                    return false;
                }
                continue;
            }
            Scalar key;
            json::Value value;
            if (!unmarshal(k, Target{nullptr, nullptr, &key}) ||
                !unmarshal(v, Target{&value, nullptr, nullptr})) {
                return false;
            }
            m.set(std::move(key), std::move(value));
        }
        return true;
    }

    // A '<<' key: a mapping, an alias of one, or a sequence of those, whose
    // entries are assigned into `m` (earlier sequence items win).
    bool merge(const Node& n, Map& m) {
        auto isMap = [](const Node& x) {
            return x.kind == NodeKind::Mapping ||
                   (x.kind == NodeKind::Alias && x.alias->kind == NodeKind::Mapping);
        };
        if (n.kind == NodeKind::Sequence) {
            for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
                if (!isMap(**it)) {
                    return fail("map merge requires map or sequence of maps as the value");
                }
                if (!unmarshal(**it, Target{nullptr, &m, nullptr})) {
                    return false;
                }
            }
            return true;
        }
        if (!isMap(n)) {
            return fail("map merge requires map or sequence of maps as the value");
        }
        return unmarshal(n, Target{nullptr, &m, nullptr});
    }

    bool sequence(const Node& n, json::Value& out) {
        out.SetArray();
        out.Reserve(static_cast<rapidjson::SizeType>(n.children.size()), a_);
        for (const Node* child : n.children) {
            json::Value v;
            if (!unmarshal(*child, Target{&v, nullptr, nullptr})) {
                return false;
            }
            out.PushBack(std::move(v), a_);
        }
        return true;
    }

    // sigs.k8s.io/yaml's conversion of a map key to a JSON object key.
    std::optional<std::string> keyString(const Scalar& key, const json::Value& value) {
        switch (key.type) {
            case ScalarType::String:
                return key.s;
            case ScalarType::Int:
                return std::to_string(key.i);
            case ScalarType::Bool:
                return key.b ? "true" : "false";
            case ScalarType::Float: {
                std::string s = goFloat(key.f, true);
                return s == "+Inf" ? ".inf" : s == "-Inf" ? "-.inf" : s == "NaN" ? ".nan" : s;
            }
            case ScalarType::Uint: {
                char hex[32];
                std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(key.u));
                unsupportedKey("uint64", hex, value);
                return std::nullopt;
            }
            case ScalarType::BigInt:
                unsupportedKey("*big.Int", key.s, value);
                return std::nullopt;
            case ScalarType::Null:
                unsupportedKey("%!s(<nil>)", "<nil>", value);
                return std::nullopt;
        }
        return std::nullopt;
    }

    void unsupportedKey(std::string_view type, std::string_view key, const json::Value& value) {
        if (!keyErr_) {
            keyErr_ = "unsupported map key of type: " + std::string(type) +
                      ", key: " + std::string(key) + ", value: " + goSyntax(value);
        }
    }

    json::Allocator& a_;
    std::string yamlErr_;
    std::optional<std::string> keyErr_;   // reported after any yaml error
    std::optional<std::string> jsonErr_;  // reported last, as json.Marshal runs last
    int64_t decodeCount_ = 0;
    int64_t aliasCount_ = 0;
    int aliasDepth_ = 0;
    int depth_ = 0;
    std::unordered_set<const Node*> activeAliases_;
};

// Reads documents from `text` until the stream ends (or after the first when
// `firstOnly`), converting each into a json::Document.
std::optional<std::string> convert(std::string_view text, bool firstOnly,
                                   std::vector<json::Document>& docs) {
    Events events(text);
    if (!events.next()) {
        return kErrorPrefix + events.error();
    }
    while (true) {
        if (!events.next()) {
            return kErrorPrefix + events.error();
        }
        if (events.type() != YAML_DOCUMENT_START_EVENT) {
            return std::nullopt;
        }
        Tree tree;
        TreeReader reader(events, tree);
        if (!reader.document()) {
            return kErrorPrefix + reader.error();
        }
        json::Document& doc = docs.emplace_back();
        Decoder decoder(doc.GetAllocator());
        if (std::optional<std::string> err = decoder.decode(tree.root, doc)) {
            return err;
        }
        if (firstOnly) {
            return std::nullopt;
        }
    }
}

}  // namespace

std::optional<std::string> toJson(std::string_view text, json::Document& doc) {
    std::vector<json::Document> docs;
    std::optional<std::string> err = convert(text, true, docs);
    if (err) {
        return err;
    }
    if (docs.empty()) {
        doc.SetNull();
    } else {
        doc.Swap(docs.front());
    }
    return std::nullopt;
}

std::optional<std::string> toJsonStream(std::string_view text, std::vector<json::Document>& docs) {
    docs.clear();
    std::optional<std::string> err = convert(text, false, docs);
    if (err) {
        docs.clear();
    }
    return err;
}

}  // namespace kube::util::yaml
