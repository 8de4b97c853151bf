#include "util/json_path.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "util/hex.hpp"

// Mirrors client-go's util/jsonpath: parser.go (the grammar and its
// messages) and jsonpath.go (FindResults and its walk), with the comparisons
// of its forked text/template funcs.
namespace kube::util {

struct JsonPath::Node {
    enum class Kind {
        List,        // an action, or a part of a filter or union: lists[0]
        Text,        // literal text: literal
        Field,       // name
        Wildcard,    // .*
        Array,       // params
        Filter,      // lists[0] op lists[1]; op "exists" with one list
        Int,         // literal
        Float,       // literal
        Bool,        // client-go's walk knows no bool node: evaluating one fails
        Recursive,   // ..
        Union,       // lists
        Identifier,  // range, end, anything else: not evaluated here
    };
    struct Param {
        bool known = false;
        int64_t value = 0;
        bool derived = false;  // [n] stands for [n:n+1]
    };

    Kind kind = Kind::List;
    std::string name = {};  // a field, an identifier, a filter's operator
    int literal = -1;       // index into the path's literals
    std::array<Param, 3> params = {};
    std::vector<List> lists = {};
};

namespace {

using Node = JsonPath::Node;
using List = JsonPath::List;
using Kind = Node::Kind;

// Filters and unions parse their parts as templates of their own; a part
// nests no deeper than this.
constexpr int kMaxParseDepth = 64;

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// isAlphaNumeric: letters (any non-ASCII byte counts as part of one), digits, '_'.
bool isAlphaNumeric(char c) {
    return c == '_' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           static_cast<unsigned char>(c) >= 0x80;
}

bool isTerminator(char c) {
    switch (c) {
        case ' ':
        case '\t':
        case '\r':
        case '\n':
        case '.':
        case ',':
        case '[':
        case ']':
        case '$':
        case '@':
        case '{':
        case '}':
            return true;
        default:
            return false;
    }
}

std::optional<int64_t> parseInt(std::string_view s) {
    if (!s.empty() && s[0] == '+') {
        s.remove_prefix(1);
        if (!s.empty() && s[0] == '-') {
            return std::nullopt;
        }
    }
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

std::optional<double> parseFloat(std::string_view s) {
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return negative ? -v : v;
}

void appendRune(std::string& out, uint32_t r) {
    if (r < 0x80) {
        out += static_cast<char>(r);
    } else if (r < 0x800) {
        out += static_cast<char>(0xC0 | (r >> 6));
        out += static_cast<char>(0x80 | (r & 0x3F));
    } else if (r < 0x10000) {
        out += static_cast<char>(0xE0 | (r >> 12));
        out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (r & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (r >> 18));
        out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (r & 0x3F));
    }
}

// UnquoteExtend: strconv.Unquote for either quote; nullopt on a bad escape
// or an unescaped quote inside.
std::optional<std::string> unquote(std::string_view s) {
    if (s.size() < 2 || s.front() != s.back()) {
        return std::nullopt;
    }
    char quote = s.front();
    s = s.substr(1, s.size() - 2);
    std::string out;
    size_t i = 0;
    while (i < s.size()) {
        char c = s[i++];
        if (c == quote) {
            return std::nullopt;
        }
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i >= s.size()) {
            return std::nullopt;
        }
        char e = s[i++];
        // The one-letter escapes and an escaped backslash.
        static constexpr std::string_view kFrom = "abfnrtv\\", kTo = "\a\b\f\n\r\t\v\\";
        if (size_t k = kFrom.find(e); k != std::string_view::npos) {
            out += kTo[k];
            continue;
        }
        switch (e) {
            case '\'':
            case '"':
                if (e != quote) {
                    return std::nullopt;
                }
                out += e;
                break;
            case 'x':
            case 'u':
            case 'U': {
                size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                if (i + n > s.size()) {
                    return std::nullopt;
                }
                uint32_t r = 0;
                for (size_t k = 0; k < n; ++k) {
                    int h = util::hexDigitValue(s[i + k]);
                    if (h < 0) {
                        return std::nullopt;
                    }
                    r = r * 16 + static_cast<uint32_t>(h);
                }
                i += n;
                if (e == 'x') {
                    out += static_cast<char>(r);
                } else if (r > 0x10FFFF || (r >= 0xD800 && r < 0xE000)) {
                    return std::nullopt;
                } else {
                    appendRune(out, r);
                }
                break;
            }
            default: {
                // Three octal digits, at most \377.
                if (e < '0' || e > '7' || i + 2 > s.size()) {
                    return std::nullopt;
                }
                uint32_t r = static_cast<uint32_t>(e - '0');
                for (int k = 0; k < 2; ++k) {
                    char o = s[i++];
                    if (o < '0' || o > '7') {
                        return std::nullopt;
                    }
                    r = r * 8 + static_cast<uint32_t>(o - '0');
                }
                if (r > 255) {
                    return std::nullopt;
                }
                out += static_cast<char>(r);
                break;
            }
        }
    }
    return out;
}

// One template (or a filter's or union's part of one) being parsed; mirrors
// client-go's Parser, without its recursion per token.
class Parser {
  public:
    Parser(std::string_view input, json::Document& literals, int depth)
        : in_(input), literals_(literals), depth_(depth) {}

    // Parses the whole input into `root`; the error message, or "".
    std::string parse(List& root) {
        while (pos_ < in_.size()) {
            size_t brace = in_.find('{', pos_);
            if (brace == std::string_view::npos) {
                root.push_back(text(std::string(in_.substr(pos_))));
                return "";
            }
            if (brace > pos_) {
                root.push_back(text(std::string(in_.substr(pos_, brace - pos_))));
            }
            pos_ = brace + 1;
            root.push_back(list({}));
            if (std::string err = action(root.back().lists[0]); !err.empty()) {
                return err;
            }
        }
        return "";
    }

  private:
    static Node list(List nodes) {
        Node n{Kind::List};
        n.lists.push_back(std::move(nodes));
        return n;
    }

    int addLiteral(json::Value v) {
        literals_.PushBack(v, literals_.GetAllocator());
        return static_cast<int>(literals_.Size()) - 1;
    }

    Node text(const std::string& s) {
        Node n{Kind::Text};
        n.literal = addLiteral(json::stringValue(s, literals_.GetAllocator()));
        return n;
    }

    // parseAction: `text` as the inside of an action of its own.
    std::string sub(const std::string& text, List& out) {
        if (depth_ >= kMaxParseDepth) {
            return "jsonpath nested too deeply";
        }
        List root;
        std::string wrapped = "{" + text + "}";
        Parser p(wrapped, literals_, depth_ + 1);
        if (std::string err = p.parse(root); !err.empty()) {
            return err;
        }
        out = std::move(root.front().lists[0]);
        return "";
    }

    // parseInsideAction up to and including the closing brace.
    std::string action(List& cur) {
        for (;;) {
            std::string_view rest = in_.substr(pos_);
            if (rest.starts_with('}')) {
                ++pos_;
                return "";
            }
            if (rest.starts_with("[?(")) {
                if (std::string err = filter(cur); !err.empty()) {
                    return err;
                }
                continue;
            }
            if (rest.starts_with("..")) {
                if (!cur.empty() && cur.back().kind == Kind::Recursive) {
                    return "invalid multiple recursive descent";
                }
                pos_ += 2;
                cur.push_back(Node{Kind::Recursive});
                if (pos_ < in_.size() && isAlphaNumeric(in_[pos_])) {
                    field(cur);
                }
                continue;
            }
            if (rest.empty()) {
                return "unclosed action";
            }
            char c = in_[pos_++];
            std::string err;
            if (c == '\r' || c == '\n') {
                return "unclosed action";
            } else if (c == ' ' || c == '@' || c == '$') {
                continue;
            } else if (c == '[') {
                err = array(cur);
            } else if (c == '"' || c == '\'') {
                err = quoted(cur, c);
            } else if (c == '.') {
                field(cur);
            } else if (c == '+' || c == '-' || isDigit(c)) {
                --pos_;
                err = number(cur);
            } else if (isAlphaNumeric(c)) {
                --pos_;
                identifier(cur);
            } else {
                return std::string("unrecognized character in action: '") + c + "'";
            }
            if (!err.empty()) {
                return err;
            }
        }
    }

    // parseField: up to the next unescaped terminator.
    void field(List& cur) {
        size_t start = pos_;
        while (pos_ < in_.size()) {
            char c = in_[pos_];
            if (c == '\\') {
                pos_ = std::min(pos_ + 2, in_.size());
            } else if (isTerminator(c)) {
                break;
            } else {
                ++pos_;
            }
        }
        std::string_view value = in_.substr(start, pos_ - start);
        if (value == "*") {
            cur.push_back(Node{Kind::Wildcard});
            return;
        }
        Node n{Kind::Field};
        for (char c : value) {
            if (c != '\\') {
                n.name += c;
            }
        }
        cur.push_back(std::move(n));
    }

    void identifier(List& cur) {
        size_t start = pos_;
        while (pos_ < in_.size() && !isTerminator(in_[pos_])) {
            ++pos_;
        }
        std::string value(in_.substr(start, pos_ - start));
        Node n{value == "true" || value == "false" ? Kind::Bool : Kind::Identifier};
        n.name = std::move(value);
        cur.push_back(std::move(n));
    }

    std::string number(List& cur) {
        size_t start = pos_;
        if (in_[pos_] == '+' || in_[pos_] == '-') {
            ++pos_;
        }
        while (pos_ < in_.size() && (in_[pos_] == '.' || isDigit(in_[pos_]))) {
            ++pos_;
        }
        std::string_view value = in_.substr(start, pos_ - start);
        if (auto i = parseInt(value)) {
            Node n{Kind::Int};
            n.literal = addLiteral(json::Value(*i));
            cur.push_back(std::move(n));
            return "";
        }
        if (auto d = parseFloat(value)) {
            Node n{Kind::Float};
            n.literal = addLiteral(json::Value(*d));
            cur.push_back(std::move(n));
            return "";
        }
        return "cannot parse number " + std::string(value);
    }

    std::string quoted(List& cur, char quote) {
        size_t start = pos_ - 1;
        for (;;) {
            if (pos_ >= in_.size() || in_[pos_] == '\n') {
                return "unterminated quoted string";
            }
            char c = in_[pos_++];
            if (c == quote && in_[pos_ - 2] != '\\') {
                break;
            }
        }
        std::string_view value = in_.substr(start, pos_ - start);
        std::optional<std::string> s = unquote(value);
        if (!s) {
            return "unquote string " + std::string(value) + " error invalid syntax";
        }
        cur.push_back(text(*s));
        return "";
    }

    // parseArray: an index, a slice, a union of them or a quoted key.
    std::string array(List& cur) {
        size_t close = pos_;
        while (close < in_.size() && in_[close] != ']' && in_[close] != '\n') {
            ++close;
        }
        if (close >= in_.size() || in_[close] == '\n') {
            return "unterminated array";
        }
        std::string text(in_.substr(pos_, close - pos_));
        pos_ = close + 1;
        if (text == "*") {
            text = ":";
        }
        if (text.find(',') != std::string::npos) {
            Node u{Kind::Union};
            size_t from = 0;
            for (;;) {
                size_t comma = text.find(',', from);
                std::string part =
                    text.substr(from, comma == std::string::npos ? comma : comma - from);
                size_t b = part.find_first_not_of(' ');
                part = b == std::string::npos ? ""
                                              : part.substr(b, part.find_last_not_of(' ') - b + 1);
                List member;
                if (std::string err = sub("[" + part + "]", member); !err.empty()) {
                    return err;
                }
                u.lists.push_back(std::move(member));
                if (comma == std::string::npos) {
                    break;
                }
                from = comma + 1;
            }
            cur.push_back(std::move(u));
            return "";
        }
        if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'' &&
            text.find('\'', 1) == text.size() - 1) {
            // ['key'] is .key (dots in it still separate fields).
            List nodes;
            if (std::string err = sub("." + text.substr(1, text.size() - 2), nodes); !err.empty()) {
                return err;
            }
            for (Node& n : nodes) {
                cur.push_back(std::move(n));
            }
            return "";
        }
        return slice(text, cur);
    }

    // ^(-?\d*)(:-?\d*)?(:-?\d*)?$
    static std::string slice(const std::string& text, List& cur) {
        std::array<std::optional<std::string>, 3> groups;
        size_t i = 0;
        auto group = [&]() {
            size_t b = i;
            if (i < text.size() && text[i] == '-') {
                ++i;
            }
            while (i < text.size() && isDigit(text[i])) {
                ++i;
            }
            return text.substr(b, i - b);
        };
        groups[0] = group();
        for (int g = 1; g < 3 && i < text.size() && text[i] == ':'; ++g) {
            ++i;
            groups[g] = group();
        }
        if (i != text.size()) {
            return "invalid array index " + text;
        }
        Node n{Kind::Array};
        for (int g = 0; g < 3; ++g) {
            Node::Param& p = n.params[g];
            bool present = g == 0 ? !groups[0]->empty() : groups[g].has_value();
            if (present) {
                if (g > 0 && groups[g]->empty()) {
                    continue;  // a bare ':' leaves the bound open
                }
                std::optional<int64_t> v = parseInt(*groups[g]);
                if (!v) {
                    return "array index " + *groups[g] + " is not a number";
                }
                p.known = true;
                p.value = *v;
            } else if (g == 1) {
                p.known = true;
                p.value = n.params[0].value + 1;
                p.derived = true;
            }
        }
        cur.push_back(std::move(n));
        return "";
    }

    // parseFilter: [?(left op right)] or [?(left)].
    std::string filter(List& cur) {
        pos_ += 3;
        size_t start = pos_;
        bool begin = false, end = false;
        char pair = 0;
        for (;;) {
            if (pos_ >= in_.size() || in_[pos_] == '\n') {
                return "unterminated filter";
            }
            char c = in_[pos_++];
            if (c == '"' || c == '\'') {
                if (!begin) {
                    begin = true;
                    pair = c;
                    continue;
                }
                if (in_[pos_ - 2] != '\\' && c == pair) {
                    end = true;
                }
            } else if (c == ')' && begin == end) {
                break;
            }
        }
        if (pos_ >= in_.size() || in_[pos_] != ']') {
            return "unclosed array expect ]";
        }
        ++pos_;
        std::string text(in_.substr(start, pos_ - 2 - start));
        // ^([^!<>=]+)([!<>=]+)(.+?)$
        size_t opAt = text.find_first_of("!<>=");
        size_t opEnd = opAt == std::string::npos ? opAt : text.find_first_not_of("!<>=", opAt);
        Node f{Kind::Filter};
        f.lists.resize(2);
        if (opAt == 0 || opAt == std::string::npos || opEnd == std::string::npos) {
            f.name = "exists";
            if (std::string err = sub(text, f.lists[0]); !err.empty()) {
                return err;
            }
        } else {
            f.name = text.substr(opAt, opEnd - opAt);
            if (std::string err = sub(text.substr(0, opAt), f.lists[0]); !err.empty()) {
                return err;
            }
            if (std::string err = sub(text.substr(opEnd), f.lists[1]); !err.empty()) {
                return err;
            }
        }
        cur.push_back(std::move(f));
        return "";
    }

    std::string_view in_;
    size_t pos_ = 0;
    json::Document& literals_;
    int depth_;
};

// Go template's basicKind of a JSON value as kube decodes it: integers that
// fit int64 are ints, other numbers floats.
enum class Basic { Bool, Int, Float, String, Invalid };

Basic basicKind(const json::Value* v) {
    if (v->IsBool()) {
        return Basic::Bool;
    }
    if (v->IsInt64()) {
        return Basic::Int;
    }
    if (v->IsNumber()) {
        return Basic::Float;
    }
    if (v->IsString()) {
        return Basic::String;
    }
    return Basic::Invalid;
}

// template.Equal / template.Less; nullopt for values they refuse.
std::optional<bool> equal(const json::Value* a, const json::Value* b) {
    Basic ka = basicKind(a), kb = basicKind(b);
    if (ka == Basic::Invalid || ka != kb) {
        return std::nullopt;
    }
    switch (ka) {
        case Basic::Bool:
            return a->GetBool() == b->GetBool();
        case Basic::Int:
            return a->GetInt64() == b->GetInt64();
        case Basic::Float:
            return a->GetDouble() == b->GetDouble();
        default:
            return json::view(*a) == json::view(*b);
    }
}

std::optional<bool> less(const json::Value* a, const json::Value* b) {
    Basic ka = basicKind(a), kb = basicKind(b);
    if (ka == Basic::Invalid || ka == Basic::Bool || ka != kb) {
        return std::nullopt;
    }
    switch (ka) {
        case Basic::Int:
            return a->GetInt64() < b->GetInt64();
        case Basic::Float:
            return a->GetDouble() < b->GetDouble();
        default:
            return json::view(*a) < json::view(*b);
    }
}

std::optional<bool> compare(std::string_view op, const json::Value* l, const json::Value* r) {
    auto lessEqual = [&]() -> std::optional<bool> {
        std::optional<bool> lt = less(l, r);
        if (!lt) {
            return std::nullopt;
        }
        return *lt ? true : equal(l, r);
    };
    if (op == "==") {
        return equal(l, r);
    }
    if (op == "!=") {
        std::optional<bool> eq = equal(l, r);
        return eq ? std::optional<bool>(!*eq) : std::nullopt;
    }
    if (op == "<") {
        return less(l, r);
    }
    if (op == "<=") {
        return lessEqual();
    }
    if (op == ">") {
        std::optional<bool> le = lessEqual();
        return le ? std::optional<bool>(!*le) : std::nullopt;
    }
    if (op == ">=") {
        std::optional<bool> lt = less(l, r);
        return lt ? std::optional<bool>(!*lt) : std::nullopt;
    }
    return std::nullopt;
}

using Values = std::vector<const json::Value*>;

// JSONPath.walk over one template; nullopt on an evaluation error.
class Evaluator {
  public:
    explicit Evaluator(const json::Value& literals) : literals_(literals) {}

    std::optional<Values> list(const Values& input, const List& nodes) const {
        Values cur = input;
        for (const Node& n : nodes) {
            std::optional<Values> next = walk(cur, n);
            if (!next) {
                return std::nullopt;
            }
            cur = std::move(*next);
        }
        return cur;
    }

    std::optional<Values> walk(const Values& input, const Node& n) const {
        switch (n.kind) {
            case Kind::List:
                return list(input, n.lists[0]);
            case Kind::Text:
                return Values{&literals_[n.literal]};
            case Kind::Int:
            case Kind::Float:
                return Values(input.size(), &literals_[n.literal]);
            case Kind::Field:
                return field(input, n.name);
            case Kind::Wildcard:
                return wildcard(input);
            case Kind::Array:
                return array(input, n);
            case Kind::Filter:
                return filter(input, n);
            case Kind::Recursive:
                return recursive(input);
            case Kind::Union: {
                Values out;
                for (const List& member : n.lists) {
                    std::optional<Values> part = list(input, member);
                    if (!part) {
                        return std::nullopt;
                    }
                    out.insert(out.end(), part->begin(), part->end());
                }
                return out;
            }
            case Kind::Bool:
            case Kind::Identifier:
                return std::nullopt;
        }
        return std::nullopt;
    }

  private:
    static Values field(const Values& input, const std::string& name) {
        Values out;
        for (const json::Value* v : input) {
            if (const json::Value* m = json::member(*v, name)) {
                out.push_back(m);
            }
        }
        return out;
    }

    static Values wildcard(const Values& input) {
        Values out;
        for (const json::Value* v : input) {
            if (v->IsObject()) {
                for (const auto& m : v->GetObject()) {
                    out.push_back(&m.value);
                }
            } else if (v->IsArray()) {
                for (const auto& e : v->GetArray()) {
                    out.push_back(&e);
                }
            }
        }
        return out;
    }

    static std::optional<Values> array(const Values& input, const Node& n) {
        Values out;
        for (const json::Value* v : input) {
            if (v->IsNull()) {
                continue;
            }
            if (!v->IsArray()) {
                return std::nullopt;
            }
            int64_t len = v->Size();
            std::array<Node::Param, 3> p = n.params;
            int64_t start = p[0].known ? p[0].value : 0;
            if (start < 0) {
                start += len;
            }
            int64_t end = p[1].known ? p[1].value : len;
            if (end < 0 || (end == 0 && p[1].derived)) {
                end += len;
            }
            if (end != start && (start >= len || end > len)) {
                return std::nullopt;  // "array index out of bounds"
            }
            // Go's slice expressions panic (here: fail) on bounds that
            // cross; a third bound is the slice's capacity, not a step.
            if (start < 0 || end < start || end > len ||
                (p[2].known && (p[2].value < end || p[2].value > len))) {
                return std::nullopt;
            }
            for (int64_t i = start; i < end; ++i) {
                out.push_back(&(*v)[static_cast<rapidjson::SizeType>(i)]);
            }
        }
        return out;
    }

    std::optional<Values> filter(const Values& input, const Node& n) const {
        Values out;
        for (const json::Value* v : input) {
            if (!v->IsArray()) {
                return std::nullopt;
            }
            for (const auto& e : v->GetArray()) {
                Values item{&e};
                std::optional<Values> lefts = list(item, n.lists[0]);
                if (n.name == "exists") {
                    if (lefts && !lefts->empty()) {
                        out.push_back(&e);
                    }
                    continue;
                }
                if (!lefts || lefts->size() != 1) {
                    return std::nullopt;
                }
                std::optional<Values> rights = list(item, n.lists[1]);
                if (!rights || rights->size() != 1) {
                    return std::nullopt;
                }
                std::optional<bool> pass = compare(n.name, lefts->front(), rights->front());
                if (!pass) {
                    return std::nullopt;
                }
                if (*pass) {
                    out.push_back(&e);
                }
            }
        }
        return out;
    }

    // evalRecursive: every object or array with members, in pre-order,
    // without recursion (documents nest up to 10,000 levels).
    static Values recursive(const Values& input) {
        Values out;
        std::vector<const json::Value*> stack;
        auto hasChildren = [](const json::Value* v) {
            return (v->IsObject() && v->MemberCount() > 0) || (v->IsArray() && !v->Empty());
        };
        for (const json::Value* root : input) {
            stack.push_back(root);
            while (!stack.empty()) {
                const json::Value* v = stack.back();
                stack.pop_back();
                if (!hasChildren(v)) {
                    continue;
                }
                out.push_back(v);
                size_t mark = stack.size();
                if (v->IsObject()) {
                    for (const auto& m : v->GetObject()) {
                        stack.push_back(&m.value);
                    }
                } else {
                    for (const auto& e : v->GetArray()) {
                        stack.push_back(&e);
                    }
                }
                std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(mark), stack.end());
            }
        }
        return out;
    }

    const json::Value& literals_;
};

// Go's strconv shortest digits of `d` (d != 0, finite): the digits and the
// position of the decimal point (0.0123 is "123", -1).
std::pair<std::string, int> shortestDigits(double d) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view s(buf, static_cast<size_t>(end - buf));
    if (s.starts_with('-')) {
        s.remove_prefix(1);
    }
    size_t e = s.find('e');
    std::string digits;
    for (char c : s.substr(0, e)) {
        if (c != '.') {
            digits += c;
        }
    }
    int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
    return {digits, exp + 1};
}

// strconv's %e and %f layouts of shortest digits.
std::string layoutE(const std::string& digits, int dp) {
    std::string out(1, digits[0]);
    if (digits.size() > 1) {
        out += '.';
        out += digits.substr(1);
    }
    int exp = dp - 1;
    out += exp < 0 ? "e-" : "e+";
    std::string e = std::to_string(exp < 0 ? -exp : exp);
    if (e.size() < 2) {
        e = "0" + e;
    }
    return out + e;
}

std::string layoutF(const std::string& digits, int dp) {
    int nd = static_cast<int>(digits.size());
    std::string out;
    if (dp > 0) {
        out = digits.substr(0, static_cast<size_t>(std::min(dp, nd)));
        out.append(static_cast<size_t>(std::max(dp - nd, 0)), '0');
    } else {
        out = "0";
    }
    int frac = std::max(nd - dp, 0);
    if (frac > 0) {
        out += '.';
        for (int i = 0; i < frac; ++i) {
            int at = dp + i;
            out += at >= 0 && at < nd ? digits[static_cast<size_t>(at)] : '0';
        }
    }
    return out;
}

// fmt's %v of a float64.
std::string goFloatText(double d) {
    if (d == 0) {
        return std::signbit(d) ? "-0" : "0";
    }
    auto [digits, dp] = shortestDigits(d);
    int exp = dp - 1;
    std::string body = exp < -4 || exp >= 6 ? layoutE(digits, dp) : layoutF(digits, dp);
    return d < 0 ? "-" + body : body;
}

// encoding/json's form of a float64.
std::string goJsonFloat(double d) {
    if (d == 0) {
        return std::signbit(d) ? "-0" : "0";
    }
    double abs = d < 0 ? -d : d;
    auto [digits, dp] = shortestDigits(d);
    std::string body;
    if (abs < 1e-6 || abs >= 1e21) {
        body = layoutE(digits, dp);
        // e-09 is written e-9.
        size_t n = body.size();
        if (n >= 4 && body[n - 4] == 'e' && body[n - 3] == '-' && body[n - 2] == '0') {
            body.erase(n - 2, 1);
        }
    } else {
        body = layoutF(digits, dp);
    }
    return d < 0 ? "-" + body : body;
}

std::string numberText(const json::Value& v, bool asJson) {
    if (v.IsInt64()) {
        return std::to_string(v.GetInt64());
    }
    return asJson ? goJsonFloat(v.GetDouble()) : goFloatText(v.GetDouble());
}

// encoding/json's string encoding: HTML characters and U+2028/U+2029
// escaped, invalid UTF-8 as U+FFFD.
void appendGoString(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if (c == '"' || c == '\\') {
                out += '\\';
                out += static_cast<char>(c);
            } else if (c == '\n') {
                out += "\\n";
            } else if (c == '\r') {
                out += "\\r";
            } else if (c == '\t') {
                out += "\\t";
            } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // One UTF-8 sequence, checked as Go's utf8.DecodeRuneInString does.
        size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        uint32_t r = n == 4 ? c & 0x07 : n == 3 ? c & 0x0F : c & 0x1F;
        bool ok = n > 0 && c <= 0xF4 && c != 0xC0 && c != 0xC1 && i + n <= s.size();
        for (size_t k = 1; ok && k < n; ++k) {
            unsigned char cc = static_cast<unsigned char>(s[i + k]);
            ok = (cc & 0xC0) == 0x80;
            r = (r << 6) | (cc & 0x3F);
        }
        ok = ok && !(n == 3 && r < 0x800) && !(n == 4 && (r < 0x10000 || r > 0x10FFFF)) &&
             !(r >= 0xD800 && r < 0xE000);
        if (!ok) {
            out += "\\ufffd";
            ++i;
        } else if (r == 0x2028 || r == 0x2029) {
            out += r == 0x2028 ? "\\u2028" : "\\u2029";
            i += n;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    out += '"';
}

// json.Marshal of a decoded value: map keys sorted. Iterative, for values
// nested up to 10,000 levels.
std::string goJson(const json::Value& root) {
    struct Frame {
        const json::Value* v;
        std::vector<const json::Value::Member*> members;  // objects: sorted
        size_t next = 0;
    };
    std::string out;
    std::vector<Frame> stack;
    auto open = [&](const json::Value* v) {
        if (v->IsObject()) {
            Frame f{v, {}};
            for (const auto& m : v->GetObject()) {
                f.members.push_back(&m);
            }
            std::stable_sort(f.members.begin(), f.members.end(), [](auto* a, auto* b) {
                return json::view(a->name) < json::view(b->name);
            });
            out += '{';
            stack.push_back(std::move(f));
        } else if (v->IsArray()) {
            out += '[';
            stack.push_back(Frame{v, {}});
        } else if (v->IsString()) {
            appendGoString(out, json::view(*v));
        } else if (v->IsNumber()) {
            out += numberText(*v, true);
        } else if (v->IsBool()) {
            out += v->GetBool() ? "true" : "false";
        } else {
            out += "null";
        }
    };
    open(&root);
    while (!stack.empty()) {
        Frame& f = stack.back();
        size_t count = f.v->IsObject() ? f.members.size() : f.v->Size();
        if (f.next == count) {
            out += f.v->IsObject() ? '}' : ']';
            stack.pop_back();
            continue;
        }
        if (f.next > 0) {
            out += ',';
        }
        size_t i = f.next++;
        if (f.v->IsObject()) {
            appendGoString(out, json::view(f.members[i]->name));
            out += ':';
            open(&f.members[i]->value);
        } else {
            open(&(*f.v)[static_cast<rapidjson::SizeType>(i)]);
        }
    }
    return out;
}

}  // namespace

JsonPath JsonPath::parse(std::string_view text) {
    JsonPath p;
    auto literals = std::make_shared<json::Document>(rapidjson::kArrayType);
    auto root = std::make_shared<List>();
    p.error_ = Parser(text, *literals, 0).parse(*root);
    p.root_ = std::move(root);
    p.literals_ = std::move(literals);
    return p;
}

std::optional<JsonPath::Results> JsonPath::findResults(const json::Value& data) const {
    if (!valid()) {
        return std::nullopt;
    }
    Evaluator eval(*literals_);
    Results out;
    for (const Node& n : *root_) {
        std::optional<Values> r = eval.walk(Values{&data}, n);
        if (!r) {
            return std::nullopt;
        }
        out.push_back(std::move(*r));
    }
    return out;
}

std::string jsonPathText(const json::Value& v) {
    if (v.IsNull()) {
        return "<no value>";
    }
    if (v.IsString()) {
        return std::string(json::view(v));
    }
    if (v.IsBool()) {
        return v.GetBool() ? "true" : "false";
    }
    if (v.IsNumber()) {
        return numberText(v, false);
    }
    return goJson(v);
}

}  // namespace kube::util
