#include "registry/validation.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace kube::registry::validation {

namespace json = util::json;

namespace {

constexpr int kDNS1123LabelMaxLength = 63;
constexpr int kDNS1123SubdomainMaxLength = 253;
constexpr int kDNS1035LabelMaxLength = 63;
constexpr int kQualifiedNameMaxLength = 63;
constexpr int kLabelValueMaxLength = 63;

constexpr const char* kDNS1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr const char* kDNS1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr const char* kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr const char* kDNS1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr const char* kDNS1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr const char* kDNS1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr const char* kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr const char* kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr const char* kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr const char* kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr const char* kConfigMapKeyFmt = "[-._a-zA-Z0-9]+";
constexpr const char* kConfigMapKeyErrMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

bool isLowerAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool isAlnum(char c) {
    return isLowerAlnum(c) || (c >= 'A' && c <= 'Z');
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool matchesDNS1123Label(std::string_view s) {
    if (s.empty() || !isLowerAlnum(s.front()) || !isLowerAlnum(s.back())) {
        return false;
    }
    return std::all_of(s.begin(), s.end(), [](char c) { return isLowerAlnum(c) || c == '-'; });
}

bool matchesDNS1123Subdomain(std::string_view s) {
    while (true) {
        size_t dot = s.find('.');
        if (!matchesDNS1123Label(s.substr(0, dot))) {
            return false;
        }
        if (dot == std::string_view::npos) {
            return true;
        }
        s = s.substr(dot + 1);
    }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool matchesQualifiedName(std::string_view s) {
    if (s.empty() || !isAlnum(s.front()) || !isAlnum(s.back())) {
        return false;
    }
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

std::string maxLenError(int length) {
    return "must be no more than " + std::to_string(length) + " characters";
}

std::string regexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<const char*> examples) {
    std::string out(msg);
    if (examples.size() == 0) {
        return out + " (regex used for validation is '" + std::string(fmt) + "')";
    }
    out += " (e.g. ";
    bool first = true;
    for (const char* e : examples) {
        if (!first) {
            out += " or ";
        }
        first = false;
        out += "'" + std::string(e) + "', ";
    }
    return out + "regex used for validation is '" + std::string(fmt) + "')";
}

std::vector<std::string> prefixed(std::vector<std::string> msgs, std::string_view prefix) {
    for (std::string& m : msgs) {
        m.insert(0, prefix);
    }
    return msgs;
}

// generateName may end in '-': the check runs on the name with its last two
// characters replaced by "a" (kube's maskTrailingDash, quirk included).
std::string maskTrailingDash(std::string_view name) {
    if (name.size() > 1 && name.back() == '-') {
        return std::string(name.substr(0, name.size() - 2)) + "a";
    }
    return std::string(name);
}

// Go's %v of a float64 (strconv's shortest 'g'): exponent form below 1e-4
// and from 1e6 on.
std::string goFloat(double d) {
    if (std::isnan(d)) {
        return "NaN";
    }
    if (std::isinf(d)) {
        return d > 0 ? "+Inf" : "-Inf";
    }
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    size_t e = sci.find('e');
    int exp = std::stoi(sci.substr(e + 1));
    if (exp < -4 || exp >= 6) {
        return sci;
    }
    bool negative = sci[0] == '-';
    std::string digits;
    for (char c : sci.substr(0, e)) {
        if (c >= '0' && c <= '9') {
            digits.push_back(c);
        }
    }
    std::string out = negative ? "-" : "";
    if (exp < 0) {
        out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
        out += digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0');
    } else {
        out += digits.substr(0, static_cast<size_t>(exp) + 1) + "." +
               digits.substr(static_cast<size_t>(exp) + 1);
    }
    return out;
}

// Decodes the UTF-8 sequence at the start of `s` (a non-ASCII lead byte);
// *len is 0 when it is not valid UTF-8.
uint32_t decodeRune(std::string_view s, size_t* len) {
    auto c = static_cast<unsigned char>(s[0]);
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    static constexpr uint32_t kMinRune[] = {0, 0, 0x80, 0x800, 0x10000};
    uint32_t rune = n == 4 ? (c & 0x07u) : n == 3 ? (c & 0x0fu) : (c & 0x1fu);
    bool valid = n != 0 && c < 0xf5 && n <= s.size();
    for (size_t k = 1; valid && k < n; k++) {
        auto cc = static_cast<unsigned char>(s[k]);
        valid = (cc & 0xc0) == 0x80;
        rune = (rune << 6) | (cc & 0x3fu);
    }
    valid = valid && rune >= kMinRune[n] && rune <= 0x10ffff && !(rune >= 0xd800 && rune <= 0xdfff);
    *len = valid ? n : 0;
    return rune;
}

meta::StatusCause cause(const char* reason, std::string_view path, std::string message) {
    return meta::StatusCause{reason, std::move(message), std::string(path)};
}

std::string withDetail(std::string body, std::string_view detail) {
    if (!detail.empty()) {
        body += ": ";
        body += detail;
    }
    return body;
}

}  // namespace

std::vector<std::string> isDNS1123Label(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > kDNS1123LabelMaxLength) {
        errs.push_back(maxLenError(kDNS1123LabelMaxLength));
    }
    if (!matchesDNS1123Label(value)) {
        if (matchesDNS1123Subdomain(value)) {
            errs.push_back("must not contain dots");
        } else {
            errs.push_back(
                regexError(kDNS1123LabelErrMsg, kDNS1123LabelFmt, {"my-name", "123-abc"}));
        }
    }
    return errs;
}

std::vector<std::string> isDNS1123Subdomain(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > kDNS1123SubdomainMaxLength) {
        errs.push_back(maxLenError(kDNS1123SubdomainMaxLength));
    }
    if (!matchesDNS1123Subdomain(value)) {
        errs.push_back(regexError(kDNS1123SubdomainErrMsg, kDNS1123SubdomainFmt, {"example.com"}));
    }
    return errs;
}

std::vector<std::string> isDNS1035Label(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > kDNS1035LabelMaxLength) {
        errs.push_back(maxLenError(kDNS1035LabelMaxLength));
    }
    if (!matchesDNS1123Label(value) || !(value.front() >= 'a' && value.front() <= 'z')) {
        errs.push_back(regexError(kDNS1035LabelErrMsg, kDNS1035LabelFmt, {"my-name", "abc-123"}));
    }
    return errs;
}

std::vector<std::string> isQualifiedName(std::string_view value) {
    std::vector<std::string> errs;
    std::string_view name = value;
    size_t slash = value.find('/');
    if (slash != std::string_view::npos) {
        if (value.find('/', slash + 1) != std::string_view::npos) {
            errs.push_back("a qualified name " +
                           regexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                      {"MyName", "my.name", "123-abc"}) +
                           " with an optional DNS subdomain prefix and '/' (e.g. "
                           "'example.com/MyName')");
            return errs;
        }
        std::string_view prefix = value.substr(0, slash);
        name = value.substr(slash + 1);
        if (prefix.empty()) {
            errs.push_back("prefix part must be non-empty");
        } else {
            for (std::string& m : prefixed(isDNS1123Subdomain(prefix), "prefix part ")) {
                errs.push_back(std::move(m));
            }
        }
    }
    if (name.empty()) {
        errs.push_back("name part must be non-empty");
    } else if (name.size() > kQualifiedNameMaxLength) {
        errs.push_back("name part " + maxLenError(kQualifiedNameMaxLength));
    }
    if (!matchesQualifiedName(name)) {
        errs.push_back("name part " + regexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                                 {"MyName", "my.name", "123-abc"}));
    }
    return errs;
}

std::vector<std::string> isValidLabelValue(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > kLabelValueMaxLength) {
        errs.push_back(maxLenError(kLabelValueMaxLength));
    }
    if (!value.empty() && !matchesQualifiedName(value)) {
        errs.push_back(
            regexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
    }
    return errs;
}

std::vector<std::string> isConfigMapKey(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > kDNS1123SubdomainMaxLength) {
        errs.push_back(maxLenError(kDNS1123SubdomainMaxLength));
    }
    bool charsOk = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
        return isAlnum(c) || c == '-' || c == '_' || c == '.';
    });
    if (!charsOk) {
        errs.push_back(regexError(kConfigMapKeyErrMsg, kConfigMapKeyFmt,
                                  {"key.name", "KEY_NAME", "key-name"}));
    }
    if (value == ".") {
        errs.push_back("must not be '.'");
    } else if (value == "..") {
        errs.push_back("must not be '..'");
    } else if (value.starts_with("..")) {
        errs.push_back("must not start with '..'");
    }
    return errs;
}

std::vector<std::string> isValidPathSegmentName(std::string_view name) {
    if (name == "." || name == "..") {
        return {"may not be '" + std::string(name) + "'"};
    }
    return isValidPathSegmentPrefix(name);
}

std::vector<std::string> isValidPathSegmentPrefix(std::string_view name) {
    std::vector<std::string> errs;
    for (const char* illegal : {"/", "%"}) {
        if (name.find(illegal) != std::string_view::npos) {
            errs.push_back("may not contain '" + std::string(illegal) + "'");
        }
    }
    return errs;
}

std::vector<std::string> validateName(NameRule rule, std::string_view name, bool prefix) {
    switch (rule) {
        case NameRule::DNS1123Subdomain:
            return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : std::string(name));
        case NameRule::DNS1123Label:
            return isDNS1123Label(prefix ? maskTrailingDash(name) : std::string(name));
        case NameRule::DNS1035Label:
            return isDNS1035Label(prefix ? maskTrailingDash(name) : std::string(name));
        case NameRule::PathSegment:
            return prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
    }
    return {};
}

std::string goQuote(std::string_view s) {
    static const char kHex[] = "0123456789abcdef";
    // Escapes Go writes as a backslash and a letter, and that letter.
    static const std::string_view kShort = "\aa\bb\ff\nn\rr\tt\vv\\\\\"\"";
    std::string out = "\"";
    auto hexByte = [&](unsigned char c) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
    };
    size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            size_t at = kShort.find(static_cast<char>(c));
            if (at != std::string_view::npos && at % 2 == 0) {
                out += '\\';
                out += kShort[at + 1];
            } else if (c < 0x20 || c == 0x7f) {
                hexByte(c);
            } else {
                out += static_cast<char>(c);
            }
            i++;
            continue;
        }
        size_t len = 0;
        uint32_t rune = decodeRune(s.substr(i), &len);
        if (len == 0) {
            hexByte(c);
            i++;
            continue;
        }
        // Go keeps printable runes; C1 controls and a few invisible format
        // characters are escaped.
        bool printable = !(rune < 0xa0 || rune == 0xad || rune == 0x2028 || rune == 0x2029 ||
                           rune == 0xfeff || (rune >= 0x200b && rune <= 0x200f));
        if (printable) {
            out.append(s.substr(i, len));
        } else {
            char buf[16];
            std::snprintf(buf, sizeof buf, "\\u%04x", rune);
            out += buf;
        }
        i += len;
    }
    return out + "\"";
}

BadValue::BadValue(std::string_view s) : text_(goQuote(s)) {}

BadValue::BadValue(double d) : text_(goFloat(d)) {}

BadValue::BadValue(const json::Value& v) {
    if (v.IsString()) {
        text_ = goQuote(json::view(v));
    } else if (v.IsNull()) {
        text_ = "null";
    } else if (v.IsBool()) {
        text_ = v.GetBool() ? "true" : "false";
    } else if (v.IsInt64()) {
        text_ = std::to_string(v.GetInt64());
    } else if (v.IsUint64()) {
        text_ = std::to_string(v.GetUint64());
    } else if (v.IsNumber()) {
        text_ = goFloat(v.GetDouble());
    } else {
        text_ = json::serialize(v);
    }
}

namespace field {

meta::StatusCause invalid(std::string_view path, const BadValue& value, std::string_view detail) {
    return cause("FieldValueInvalid", path, withDetail("Invalid value: " + value.text(), detail));
}

meta::StatusCause typeInvalid(std::string_view path, const BadValue& value,
                              std::string_view detail) {
    return cause("FieldValueTypeInvalid", path,
                 withDetail("Invalid value: " + value.text(), detail));
}

meta::StatusCause required(std::string_view path, std::string_view detail) {
    return cause("FieldValueRequired", path, withDetail("Required value", detail));
}

meta::StatusCause forbidden(std::string_view path, std::string_view detail) {
    return cause("FieldValueForbidden", path, withDetail("Forbidden", detail));
}

meta::StatusCause duplicate(std::string_view path, const BadValue& value) {
    return cause("FieldValueDuplicate", path, "Duplicate value: " + value.text());
}

meta::StatusCause notFound(std::string_view path, const BadValue& value) {
    return cause("FieldValueNotFound", path, "Not found: " + value.text());
}

meta::StatusCause notSupported(std::string_view path, const BadValue& value,
                               const std::vector<std::string>& validValues) {
    std::string detail;
    for (const std::string& v : validValues) {
        detail += detail.empty() ? "supported values: " : ", ";
        detail += goQuote(v);
    }
    return cause("FieldValueNotSupported", path,
                 withDetail("Unsupported value: " + value.text(), detail));
}

meta::StatusCause tooLong(std::string_view path, int64_t maxLength) {
    return cause("FieldValueTooLong", path,
                 "Too long: must have at most " + std::to_string(maxLength) + " bytes");
}

meta::StatusCause tooMany(std::string_view path, int64_t actual, int64_t maxQuantity) {
    std::string msg = "Too many";
    if (actual >= 0) {
        msg += ": " + std::to_string(actual);
    }
    msg += maxQuantity >= 0 ? ": must have at most " + std::to_string(maxQuantity) + " items"
                            : ": has too many items";
    return cause("FieldValueTooMany", path, std::move(msg));
}

meta::StatusCause internalError(std::string_view path, std::string_view detail) {
    return cause("InternalError", path, withDetail("Internal error", detail));
}

std::string child(std::string_view path, std::string_view name) {
    return path.empty() ? std::string(name) : std::string(path) + "." + std::string(name);
}

std::string index(std::string_view path, size_t i) {
    return std::string(path) + "[" + std::to_string(i) + "]";
}

std::string key(std::string_view path, std::string_view k) {
    return std::string(path) + "[" + std::string(k) + "]";
}

}  // namespace field

namespace {

// Reads a metadata stanza the way decoding into metav1.ObjectMeta would:
// null is the zero value, and a member of the wrong JSON type becomes a
// FieldValueTypeInvalid cause (and is then ignored).
class MetaReader {
  public:
    explicit MetaReader(std::vector<meta::StatusCause>& errs) : errs_(errs) {}

    // The member, or nullptr when absent, null, or not of the wanted type.
    const json::Value* get(const json::Value& obj, std::string_view name, std::string_view path,
                           bool (json::Value::*isType)() const, std::string_view want) {
        const json::Value* v = json::member(obj, name);
        if (v == nullptr || v->IsNull()) {
            return nullptr;
        }
        if (!(v->*isType)()) {
            errs_.push_back(field::typeInvalid(path, BadValue(*v), want));
            return nullptr;
        }
        return v;
    }

    std::string_view string(const json::Value& obj, std::string_view name, std::string_view path) {
        const json::Value* v = get(obj, name, path, &json::Value::IsString, "must be a string");
        return v == nullptr ? std::string_view() : json::view(*v);
    }

    // A map of strings (labels, annotations) as (key, value) pairs in
    // document order; null values read as "".
    std::vector<std::pair<std::string_view, std::string_view>> stringMap(const json::Value& obj,
                                                                         std::string_view name,
                                                                         std::string_view path) {
        std::vector<std::pair<std::string_view, std::string_view>> out;
        const json::Value* m = get(obj, name, path, &json::Value::IsObject, "must be an object");
        if (m == nullptr) {
            return out;
        }
        for (const auto& member : m->GetObject()) {
            std::string_view k = json::view(member.name);
            if (!member.value.IsString() && !member.value.IsNull()) {
                errs_.push_back(field::typeInvalid(field::key(path, k), BadValue(member.value),
                                                   "must be a string"));
                continue;
            }
            out.emplace_back(k, json::view(member.value));
        }
        return out;
    }

  private:
    std::vector<meta::StatusCause>& errs_;
};

void validateLabels(const std::vector<std::pair<std::string_view, std::string_view>>& labels,
                    std::string_view path, std::vector<meta::StatusCause>& errs) {
    for (const auto& [k, v] : labels) {
        for (const std::string& msg : isQualifiedName(k)) {
            errs.push_back(field::invalid(path, k, msg));
        }
        for (const std::string& msg : isValidLabelValue(v)) {
            errs.push_back(field::invalid(path, v, msg));
        }
    }
}

void validateAnnotations(
    const std::vector<std::pair<std::string_view, std::string_view>>& annotations,
    std::string_view path, std::vector<meta::StatusCause>& errs) {
    int64_t total = 0;
    for (const auto& [k, v] : annotations) {
        // Annotation keys are qualified names in any case.
        std::string lowered(k);
        std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        for (const std::string& msg : isQualifiedName(lowered)) {
            errs.push_back(field::invalid(path, k, msg));
        }
        total += static_cast<int64_t>(k.size() + v.size());
    }
    if (total > kTotalAnnotationSizeLimit) {
        errs.push_back(field::tooLong(path, kTotalAnnotationSizeLimit));
    }
}

// "v1" -> version "v1"; "apps/v1" -> group "apps", version "v1"; more than
// one '/' is not a group/version (schema.ParseGroupVersion).
std::pair<std::string_view, std::string_view> splitAPIVersion(std::string_view apiVersion) {
    if (apiVersion.empty() || apiVersion == "/") {
        return {};
    }
    size_t slash = apiVersion.find('/');
    if (slash == std::string_view::npos) {
        return {"", apiVersion};
    }
    if (apiVersion.find('/', slash + 1) != std::string_view::npos) {
        return {};
    }
    return {apiVersion.substr(0, slash), apiVersion.substr(slash + 1)};
}

void validateOwnerReferences(const json::Value& refs, std::string_view path,
                             std::vector<meta::StatusCause>& errs) {
    MetaReader read(errs);
    std::string firstController;
    for (const json::Value& ref : refs.GetArray()) {
        if (!ref.IsObject()) {
            errs.push_back(field::typeInvalid(path, BadValue(ref), "must be an object"));
            continue;
        }
        std::string_view apiVersion =
            read.string(ref, "apiVersion", field::child(path, "apiVersion"));
        std::string_view kind = read.string(ref, "kind", field::child(path, "kind"));
        std::string_view name = read.string(ref, "name", field::child(path, "name"));
        std::string_view uid = read.string(ref, "uid", field::child(path, "uid"));
        auto [group, version] = splitAPIVersion(apiVersion);
        if (version.empty()) {
            errs.push_back(field::invalid(field::child(path, "apiVersion"), apiVersion,
                                          "version must not be empty"));
        }
        if (kind.empty()) {
            errs.push_back(field::invalid(field::child(path, "kind"), kind, "must not be empty"));
        }
        if (name.empty()) {
            errs.push_back(field::invalid(field::child(path, "name"), name, "must not be empty"));
        }
        if (uid.empty()) {
            errs.push_back(field::invalid(field::child(path, "uid"), uid, "must not be empty"));
        }
        if (group.empty() && version == "v1" && kind == "Event") {
            errs.push_back(field::invalid(path, BadValue(ref),
                                          "/v1, Kind=Event is disallowed from being an owner"));
        }
        const json::Value* controller =
            read.get(ref, "controller", field::child(path, "controller"), &json::Value::IsBool,
                     "must be a boolean");
        if (controller != nullptr && controller->GetBool()) {
            std::string current = std::string(kind) + "/" + std::string(name);
            if (firstController.empty()) {
                firstController = current;
            } else {
                errs.push_back(field::invalid(
                    path, BadValue(refs),
                    "Only one reference can have Controller set to true. Found \"true\" in "
                    "references for " +
                        firstController + " and " + current));
            }
        }
    }
}

void validateFinalizers(const json::Value& finalizers, std::string_view path,
                        std::vector<meta::StatusCause>& errs) {
    bool orphan = false;
    bool foreground = false;
    std::string goSlice = "[]string{";
    for (const json::Value& f : finalizers.GetArray()) {
        if (!f.IsString()) {
            errs.push_back(field::typeInvalid(path, BadValue(f), "must be a string"));
            continue;
        }
        std::string_view name = json::view(f);
        for (const std::string& msg : isQualifiedName(name)) {
            errs.push_back(field::invalid(path, name, msg));
        }
        orphan = orphan || name == "orphan";
        foreground = foreground || name == "foregroundDeletion";
        goSlice += (goSlice.back() == '{' ? "" : ", ") + goQuote(name);
    }
    if (orphan && foreground) {
        errs.push_back(
            field::invalid(path, BadValue::raw(goSlice + "}"),
                           "finalizer orphan and foregroundDeletion cannot be both set"));
    }
}

}  // namespace

std::vector<meta::StatusCause> validateObjectMeta(const json::Value& metadata, bool namespaced,
                                                  NameRule rule) {
    std::vector<meta::StatusCause> errs;
    if (!metadata.IsObject() && !metadata.IsNull()) {
        errs.push_back(field::typeInvalid("metadata", BadValue(metadata), "must be an object"));
        return errs;
    }
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value& m = metadata.IsObject() ? metadata : kEmpty;
    MetaReader read(errs);

    std::string_view generateName = read.string(m, "generateName", "metadata.generateName");
    if (!generateName.empty()) {
        for (const std::string& msg : validateName(rule, generateName, true)) {
            errs.push_back(field::invalid("metadata.generateName", generateName, msg));
        }
    }
    size_t before = errs.size();
    std::string_view name = read.string(m, "name", "metadata.name");
    bool nameMistyped = errs.size() != before;
    if (name.empty() && !nameMistyped) {
        errs.push_back(field::required("metadata.name", "name or generateName is required"));
    } else if (!name.empty()) {
        for (const std::string& msg : validateName(rule, name, false)) {
            errs.push_back(field::invalid("metadata.name", name, msg));
        }
    }

    std::string_view ns = read.string(m, "namespace", "metadata.namespace");
    if (namespaced) {
        if (ns.empty()) {
            errs.push_back(field::required("metadata.namespace", ""));
        } else {
            for (const std::string& msg : isDNS1123Label(ns)) {
                errs.push_back(field::invalid("metadata.namespace", ns, msg));
            }
        }
    } else if (!ns.empty()) {
        errs.push_back(field::forbidden("metadata.namespace", "not allowed on this type"));
    }

    if (const json::Value* gen = read.get(m, "generation", "metadata.generation",
                                          &json::Value::IsInt64, "must be an integer")) {
        if (gen->GetInt64() < 0) {
            errs.push_back(field::invalid("metadata.generation", gen->GetInt64(),
                                          "must be greater than or equal to 0"));
        }
    }
    validateLabels(read.stringMap(m, "labels", "metadata.labels"), "metadata.labels", errs);
    validateAnnotations(read.stringMap(m, "annotations", "metadata.annotations"),
                        "metadata.annotations", errs);
    if (const json::Value* refs = read.get(m, "ownerReferences", "metadata.ownerReferences",
                                           &json::Value::IsArray, "must be an array")) {
        validateOwnerReferences(*refs, "metadata.ownerReferences", errs);
    }
    if (const json::Value* fins = read.get(m, "finalizers", "metadata.finalizers",
                                           &json::Value::IsArray, "must be an array")) {
        validateFinalizers(*fins, "metadata.finalizers", errs);
    }
    return errs;
}

std::vector<meta::StatusCause> validateObjectMetaUpdate(const json::Value& metadata,
                                                        const json::Value& old) {
    std::vector<meta::StatusCause> out;
    if (!metadata.IsObject() || !old.IsObject()) {
        return out;
    }
    for (std::string_view f : {"name", "namespace", "uid", "creationTimestamp"}) {
        const json::Value* now = json::member(metadata, f);
        const json::Value* was = json::member(old, f);
        std::string_view a = now && now->IsString() ? json::view(*now) : std::string_view();
        std::string_view b = was && was->IsString() ? json::view(*was) : std::string_view();
        if (a != b) {
            std::string path = "metadata." + std::string(f);
            out.push_back(field::invalid(path, BadValue(a), "field is immutable"));
            out.push_back(field::invalid(path, BadValue(a), "field is immutable"));
        }
    }
    return out;
}

}  // namespace kube::registry::validation
