// kube's strings extension (cel-go ext.Strings as kube-apiserver 1.26
// enables it): indices count code points; errors as cel-go words them.
#include <string>
#include <vector>

#include "cel/functions.hpp"

namespace kube::cel {

namespace {

using Args = std::span<const Value>;

// The byte offset of each code point, plus the end.
std::vector<size_t> runeOffsets(const std::string& s) {
    std::vector<size_t> at;
    for (size_t i = 0; i < s.size(); i++) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            at.push_back(i);
        }
    }
    at.push_back(s.size());
    return at;
}

Value outOfRange(int64_t i) {
    return Value::error("index out of range: " + std::to_string(i));
}

Value charAt(Args a) {
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::Int) {
        return Value::noSuchOverload();
    }
    std::vector<size_t> at = runeOffsets(a[0].str());
    int64_t i = a[1].asInt();
    int64_t n = static_cast<int64_t>(at.size()) - 1;
    if (i < 0 || i > n) {
        return outOfRange(i);
    }
    if (i == n) {
        return Value::string("");
    }
    return Value::string(a[0].str().substr(at[i], at[i + 1] - at[i]));
}

// The code point index of a byte offset.
int64_t runeIndex(const std::vector<size_t>& at, size_t byte) {
    size_t lo = 0;
    size_t hi = at.size();
    while (lo + 1 < hi) {
        size_t mid = (lo + hi) / 2;
        (at[mid] <= byte ? lo : hi) = mid;
    }
    return static_cast<int64_t>(lo);
}

template <bool Last>
Value indexOf(Args a) {
    if (a[0].kind() == Kind::List && a.size() == 2) {
        // The lists library's indexOf on a list receiver.
        return FunctionRegistry::instance().impl(Last ? "listLastIndexOf" : "listIndexOf", true,
                                                 2)(a);
    }
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::String ||
        (a.size() == 3 && a[2].kind() != Kind::Int)) {
        return Value::noSuchOverload();
    }
    const std::string& s = a[0].str();
    const std::string& sub = a[1].str();
    std::vector<size_t> at = runeOffsets(s);
    int64_t n = static_cast<int64_t>(at.size()) - 1;
    int64_t offset = a.size() == 3 ? a[2].asInt() : (Last ? n : 0);
    if (offset < 0 || offset > n) {
        return outOfRange(offset);
    }
    size_t found;
    if (Last) {
        // The match may start at `offset` at the latest.
        found = s.rfind(sub, at[offset]);
    } else {
        found = s.find(sub, at[offset]);
    }
    if (found == std::string::npos) {
        return Value::integer(-1);
    }
    return Value::integer(runeIndex(at, found));
}

template <bool Lower>
Value changeCase(Args a) {
    if (a[0].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    std::string s = a[0].str();
    for (char& c : s) {
        if (Lower && c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c + 32);
        } else if (!Lower && c >= 'a' && c <= 'z') {
            c = static_cast<char>(c - 32);
        }
    }
    return Value::string(std::move(s));
}

// Go's strings.Replace(s, old, new, n): n < 0 replaces all; an empty old
// matches before each code point and at the end.
Value replace(Args a) {
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::String || a[2].kind() != Kind::String ||
        (a.size() == 4 && a[3].kind() != Kind::Int)) {
        return Value::noSuchOverload();
    }
    const std::string& s = a[0].str();
    const std::string& from = a[1].str();
    const std::string& to = a[2].str();
    int64_t n = a.size() == 4 ? a[3].asInt() : -1;
    std::string out;
    size_t pos = 0;
    int64_t done = 0;
    if (from.empty()) {
        std::vector<size_t> at = runeOffsets(s);
        for (size_t i = 0; i < at.size(); i++) {
            if (n < 0 || done < n) {
                out += to;
                done++;
            }
            if (i + 1 < at.size()) {
                out += s.substr(at[i], at[i + 1] - at[i]);
            }
        }
        return Value::string(std::move(out));
    }
    while (n < 0 || done < n) {
        size_t found = s.find(from, pos);
        if (found == std::string::npos) {
            break;
        }
        out += s.substr(pos, found - pos);
        out += to;
        pos = found + from.size();
        done++;
    }
    out += s.substr(pos);
    return Value::string(std::move(out));
}

// Go's strings.SplitN(s, sep, n): n == 0 gives an empty list, n < 0 all
// parts; an empty separator splits into code points.
Value split(Args a) {
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::String ||
        (a.size() == 3 && a[2].kind() != Kind::Int)) {
        return Value::noSuchOverload();
    }
    const std::string& s = a[0].str();
    const std::string& sep = a[1].str();
    int64_t n = a.size() == 3 ? a[2].asInt() : -1;
    List parts;
    if (n == 0) {
        return Value::list(std::move(parts));
    }
    if (sep.empty()) {
        std::vector<size_t> at = runeOffsets(s);
        for (size_t i = 0; i + 1 < at.size(); i++) {
            if (n > 0 && static_cast<int64_t>(parts.size()) == n - 1) {
                parts.push_back(Value::string(s.substr(at[i])));
                break;
            }
            parts.push_back(Value::string(s.substr(at[i], at[i + 1] - at[i])));
        }
        return Value::list(std::move(parts));
    }
    size_t pos = 0;
    while (n < 0 || static_cast<int64_t>(parts.size()) < n - 1) {
        size_t found = s.find(sep, pos);
        if (found == std::string::npos) {
            break;
        }
        parts.push_back(Value::string(s.substr(pos, found - pos)));
        pos = found + sep.size();
    }
    parts.push_back(Value::string(s.substr(pos)));
    return Value::list(std::move(parts));
}

Value substring(Args a) {
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::Int ||
        (a.size() == 3 && a[2].kind() != Kind::Int)) {
        return Value::noSuchOverload();
    }
    std::vector<size_t> at = runeOffsets(a[0].str());
    int64_t n = static_cast<int64_t>(at.size()) - 1;
    int64_t start = a[1].asInt();
    int64_t end = a.size() == 3 ? a[2].asInt() : n;
    if (start < 0 || start > n) {
        return outOfRange(start);
    }
    if (end < 0 || end > n) {
        return outOfRange(end);
    }
    if (start > end) {
        return Value::error("invalid substring range. start: " + std::to_string(start) +
                            ", end: " + std::to_string(end));
    }
    return Value::string(a[0].str().substr(at[start], at[end] - at[start]));
}

bool isSpaceAt(const std::string& s, size_t i, size_t* len) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) {
        *len = 1;
        return true;
    }
    // U+0085, U+00A0, and the Unicode spaces of Go's unicode.IsSpace.
    static const char* const kSpaces[] = {
        "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x81",
        "\xE2\x80\x82", "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86",
        "\xE2\x80\x87", "\xE2\x80\x88", "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8",
        "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80"};
    for (const char* sp : kSpaces) {
        std::string_view v(sp);
        if (s.compare(i, v.size(), v) == 0) {
            *len = v.size();
            return true;
        }
    }
    return false;
}

Value trim(Args a) {
    if (a[0].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    const std::string& s = a[0].str();
    size_t start = 0;
    size_t len = 0;
    while (start < s.size() && isSpaceAt(s, start, &len)) {
        start += len;
    }
    size_t end = s.size();
    while (end > start) {
        size_t p = end - 1;
        while (p > start && (static_cast<unsigned char>(s[p]) & 0xC0) == 0x80) {
            p--;
        }
        if (!isSpaceAt(s, p, &len) || p + len != end) {
            break;
        }
        end = p;
    }
    return Value::string(s.substr(start, end - start));
}

Value join(Args a) {
    if (a[0].kind() != Kind::List || (a.size() == 2 && a[1].kind() != Kind::String)) {
        return Value::noSuchOverload();
    }
    std::string sep = a.size() == 2 ? a[1].str() : "";
    std::string out;
    bool first = true;
    for (const Value& e : a[0].list()) {
        if (e.kind() != Kind::String) {
            return Value::noSuchOverload();
        }
        if (!first) {
            out += sep;
        }
        first = false;
        out += e.str();
    }
    return Value::string(std::move(out));
}

}  // namespace

void addStringsLibrary(FunctionRegistry& r) {
    TypePtr s = Type::string();
    TypePtr i = Type::integer();
    TypePtr ls = Type::list(s);
    r.add({"charAt", true, {s, i}, s});
    r.add("charAt", true, 2, charAt);
    r.add({"indexOf", true, {s, s}, i});
    r.add({"indexOf", true, {s, s, i}, i});
    r.add("indexOf", true, 2, indexOf<false>);
    r.add("indexOf", true, 3, indexOf<false>);
    r.add({"lastIndexOf", true, {s, s}, i});
    r.add({"lastIndexOf", true, {s, s, i}, i});
    r.add("lastIndexOf", true, 2, indexOf<true>);
    r.add("lastIndexOf", true, 3, indexOf<true>);
    r.add({"lowerAscii", true, {s}, s});
    r.add("lowerAscii", true, 1, changeCase<true>);
    r.add({"upperAscii", true, {s}, s});
    r.add("upperAscii", true, 1, changeCase<false>);
    r.add({"replace", true, {s, s, s}, s});
    r.add({"replace", true, {s, s, s, i}, s});
    r.add("replace", true, 3, replace);
    r.add("replace", true, 4, replace);
    r.add({"split", true, {s, s}, ls});
    r.add({"split", true, {s, s, i}, ls});
    r.add("split", true, 2, split);
    r.add("split", true, 3, split);
    r.add({"substring", true, {s, i}, s});
    r.add({"substring", true, {s, i, i}, s});
    r.add("substring", true, 2, substring);
    r.add("substring", true, 3, substring);
    r.add({"trim", true, {s}, s});
    r.add("trim", true, 1, trim);
    r.add({"join", true, {ls}, s});
    r.add({"join", true, {ls, s}, s});
    r.add("join", true, 1, join);
    r.add("join", true, 2, join);
}

}  // namespace kube::cel
