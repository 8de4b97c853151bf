// matches() (standard) and kube's regex library (find, findAll), on RE2.
#include <list>
#include <unordered_map>

#include "cel/functions.hpp"
#include "cel/regex.hpp"

namespace kube::cel {

namespace {

using Args = std::span<const Value>;

const char* goErrorText(re2::RE2::ErrorCode code) {
    switch (code) {
        case re2::RE2::ErrorBadEscape:
            return "invalid escape sequence";
        case re2::RE2::ErrorBadCharClass:
            return "invalid character class";
        case re2::RE2::ErrorBadCharRange:
            return "invalid character class range";
        case re2::RE2::ErrorMissingBracket:
            return "missing closing ]";
        case re2::RE2::ErrorMissingParen:
            return "missing closing )";
        case re2::RE2::ErrorUnexpectedParen:
            return "unexpected )";
        case re2::RE2::ErrorTrailingBackslash:
            return "trailing backslash at end of expression";
        case re2::RE2::ErrorRepeatArgument:
            return "missing argument to repetition operator";
        case re2::RE2::ErrorRepeatSize:
            return "invalid repeat count";
        case re2::RE2::ErrorRepeatOp:
            return "invalid nested repetition operator";
        case re2::RE2::ErrorBadPerlOp:
            return "invalid or unsupported Perl syntax";
        case re2::RE2::ErrorBadUTF8:
            return "invalid UTF-8";
        case re2::RE2::ErrorBadNamedCapture:
            return "invalid named capture";
        default:
            return "invalid regular expression";
    }
}

constexpr size_t kCacheSize = 64;

}  // namespace

std::shared_ptr<const re2::RE2> compileRegex(const std::string& pattern, std::string* error) {
    thread_local std::unordered_map<std::string, std::shared_ptr<const re2::RE2>> cache;
    thread_local std::list<std::string> order;
    auto it = cache.find(pattern);
    if (it != cache.end()) {
        return it->second;
    }
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<const re2::RE2>(pattern, options);
    if (!re->ok()) {
        *error = std::string("error parsing regexp: ") + goErrorText(re->error_code()) + ": `" +
                 re->error_arg() + "`";
        return nullptr;
    }
    if (cache.size() >= kCacheSize) {
        cache.erase(order.front());
        order.pop_front();
    }
    cache.emplace(pattern, re);
    order.push_back(pattern);
    return re;
}

namespace {

Value matches(Args a) {
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    std::string error;
    auto re = compileRegex(a[1].str(), &error);
    if (!re) {
        return Value::error(error);
    }
    return Value::boolean(re2::RE2::PartialMatch(a[0].str(), *re));
}

// The matches of `re` in `s`, at most `limit` (< 0: all), leftmost first,
// as Go's FindAllString (an empty match right after a match is skipped).
List findAllIn(const std::string& s, const re2::RE2& re, int64_t limit) {
    List out;
    re2::StringPiece input(s);
    size_t pos = 0;
    size_t lastEnd = std::string::npos;
    while (pos <= s.size() && (limit < 0 || static_cast<int64_t>(out.size()) < limit)) {
        re2::StringPiece m;
        if (!re.Match(input, pos, s.size(), re2::RE2::UNANCHORED, &m, 1)) {
            break;
        }
        size_t start = static_cast<size_t>(m.data() - s.data());
        size_t end = start + m.size();
        if (!(m.empty() && start == lastEnd)) {
            out.push_back(Value::string(std::string(m.data(), m.size())));
        }
        lastEnd = end;
        if (end > pos) {
            pos = end;
        } else {
            // An empty match: step over one code point.
            pos++;
            while (pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) {
                pos++;
            }
        }
    }
    return out;
}

Value find(Args a) {
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    std::string error;
    auto re = compileRegex(a[1].str(), &error);
    if (!re) {
        return Value::error(error);
    }
    List found = findAllIn(a[0].str(), *re, 1);
    return found.empty() ? Value::string("") : found[0];
}

Value findAll(Args a) {
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::String ||
        (a.size() == 3 && a[2].kind() != Kind::Int)) {
        return Value::noSuchOverload();
    }
    std::string error;
    auto re = compileRegex(a[1].str(), &error);
    if (!re) {
        return Value::error(error);
    }
    int64_t limit = a.size() == 3 ? a[2].asInt() : -1;
    return Value::list(findAllIn(a[0].str(), *re, limit));
}

}  // namespace

void addRegexLibrary(FunctionRegistry& r) {
    TypePtr s = Type::string();
    TypePtr i = Type::integer();
    r.add({"matches", false, {s, s}, Type::boolean()});
    r.add({"matches", true, {s, s}, Type::boolean()});
    r.add("matches", false, 2, matches);
    r.add("matches", true, 2, matches);
    r.add({"find", true, {s, s}, s});
    r.add("find", true, 2, find);
    r.add({"findAll", true, {s, s}, Type::list(s)});
    r.add({"findAll", true, {s, s, i}, Type::list(s)});
    r.add("findAll", true, 2, findAll);
    r.add("findAll", true, 3, findAll);
}

}  // namespace kube::cel
