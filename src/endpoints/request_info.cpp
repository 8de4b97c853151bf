#include "endpoints/request_info.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "util/field_selector.hpp"
#include "util/query.hpp"

namespace kube::endpoints {

namespace {

// Segments of a URL path with leading and trailing slashes trimmed; inner
// empty segments are kept (Go's strings.Split after strings.Trim).
std::vector<std::string> splitPath(std::string_view path) {
    size_t first = path.find_first_not_of('/');
    if (first == std::string_view::npos) {
        return {};
    }
    size_t last = path.find_last_not_of('/');
    path = path.substr(first, last - first + 1);
    std::vector<std::string> parts;
    while (true) {
        size_t slash = path.find('/');
        parts.emplace_back(path.substr(0, slash));
        if (slash == std::string_view::npos) {
            break;
        }
        path = path.substr(slash + 1);
    }
    return parts;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// Go's Convert_Slice_string_To_bool: anything but "0" or "false" (any case) is true.
bool queryBool(std::string_view v) {
    return !(v == "0" || lower(v) == "false");
}

// strconv.ParseInt(s, 10, 64) succeeds.
bool isInt64(std::string_view s) {
    size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    if (i == s.size()) {
        return false;
    }
    bool negative = s[0] == '-';
    unsigned long long limit = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
    unsigned long long n = 0;
    for (; i < s.size(); i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        unsigned digit = static_cast<unsigned>(s[i] - '0');
        if (n > (limit - digit) / 10) {
            return false;
        }
        n = n * 10 + digit;
    }
    return true;
}

// Mirrors path.IsValidPathSegmentName returning no errors.
bool isValidPathSegment(std::string_view name) {
    return name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('%') == std::string_view::npos;
}

// What kube-apiserver reads from a list/watch query: decoding the query as
// metav1.ListOptions (which fails on a malformed limit, timeoutSeconds or
// fieldSelector) and, when that succeeds, the name a fieldSelector pins.
std::optional<std::string> selectedName(const util::Query& q) {
    for (const char* intParam : {"timeoutSeconds", "limit"}) {
        std::optional<std::string> v = q.get(intParam);
        if (v && !isInt64(*v)) {
            return std::nullopt;
        }
    }
    std::optional<std::string> selector = q.get("fieldSelector");
    if (!selector) {
        return std::nullopt;
    }
    std::string error;
    std::optional<util::FieldSelector> parsed = util::FieldSelector::parse(*selector, &error);
    if (!parsed) {
        return std::nullopt;
    }
    std::optional<std::string> name = parsed->requiresExactMatch("metadata.name");
    if (name && isValidPathSegment(*name)) {
        return name;
    }
    return std::nullopt;
}

std::string verbForMethod(std::string_view method) {
    if (method == "POST") {
        return "create";
    }
    if (method == "GET" || method == "HEAD") {
        return "get";
    }
    if (method == "PUT") {
        return "update";
    }
    if (method == "PATCH") {
        return "patch";
    }
    if (method == "DELETE") {
        return "delete";
    }
    return "";
}

}  // namespace

RequestInfo resolveRequestInfo(std::string_view method, std::string_view path,
                               std::string_view query) {
    RequestInfo info;
    info.path = std::string(path);
    info.verb = lower(method);

    std::vector<std::string> parts = splitPath(path);
    if (parts.size() < 3 || (parts[0] != "api" && parts[0] != "apis")) {
        return info;
    }
    size_t at = 0;
    info.apiPrefix = parts[at++];
    if (info.apiPrefix == "apis") {
        // The group needs one more segment: /apis/<group>/<version>/<resource>.
        if (parts.size() < 4) {
            return info;
        }
        info.apiGroup = parts[at++];
    }
    info.isResourceRequest = true;
    info.apiVersion = parts[at++];

    // The legacy /watch/ and /proxy/ path prefixes name the verb themselves.
    if (parts[at] == "watch" || parts[at] == "proxy") {
        if (parts.size() - at < 2) {
            // kube-apiserver fails the request here ("unable to determine
            // kind and namespace from url"); without a resource the handler
            // answers 404.
            return info;
        }
        info.verb = parts[at++];
    } else {
        info.verb = verbForMethod(method);
    }

    if (parts[at] == "namespaces") {
        if (parts.size() - at > 1) {
            info.namespace_ = parts[at + 1];
            // namespaces/<ns>/<resource>... unless the third segment is a
            // subresource of the namespace itself.
            if (parts.size() - at > 2 && parts[at + 2] != "status" && parts[at + 2] != "finalize") {
                at += 2;
            }
        }
    }
    info.parts.assign(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());

    // resource/name/subresource/anything-else; proxy takes no subresource.
    const std::vector<std::string>& p = info.parts;
    if (p.size() >= 3 && info.verb != "proxy") {
        info.subresource = p[2];
    }
    if (p.size() >= 2) {
        info.name = p[1];
    }
    if (!p.empty()) {
        info.resource = p[0];
    }

    if (info.name.empty() && info.verb == "get") {
        util::Query q = util::Query::parse(query);
        std::optional<std::string> watch = q.get("watch");
        info.verb = watch && queryBool(*watch) ? "watch" : "list";
        if (std::optional<std::string> name = selectedName(q)) {
            info.name = std::move(*name);
        }
    }
    if (info.name.empty() && info.verb == "delete") {
        info.verb = "deletecollection";
    }
    return info;
}

}  // namespace kube::endpoints
