// kube's url library (k8s.io/apiserver/pkg/cel/library/urls.go): url(),
// isURL() and the URL's parts, parsed as Go's url.ParseRequestURI parses:
// an absolute URI or an absolute path.
#include <optional>

#include "cel/functions.hpp"

namespace kube::cel {

namespace {

using Args = std::span<const Value>;

struct ParsedUrl {
    std::string scheme;
    std::string host;  // with the port
    std::string path;
    std::string query;
};

bool isAlpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

std::optional<ParsedUrl> parseUrl(const std::string& s, std::string* error) {
    auto invalid = [&](const std::string& why) {
        *error = "parse \"" + s + "\": " + why;
        return std::nullopt;
    };
    if (s.empty()) {
        return invalid("empty url");
    }
    for (char c : s) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            return invalid("net/url: invalid control character in URL");
        }
    }
    ParsedUrl u;
    std::string rest = s;
    size_t q = rest.find('?');
    if (q != std::string::npos) {
        u.query = rest.substr(q + 1);
        rest = rest.substr(0, q);
    }
    if (isAlpha(rest[0])) {
        size_t i = 1;
        while (i < rest.size() && (isAlpha(rest[i]) || (rest[i] >= '0' && rest[i] <= '9') ||
                                   rest[i] == '+' || rest[i] == '-' || rest[i] == '.')) {
            i++;
        }
        if (i < rest.size() && rest[i] == ':') {
            u.scheme = rest.substr(0, i);
            for (char& c : u.scheme) {
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
            rest = rest.substr(i + 1);
        }
    }
    if (rest[0] == ':') {
        return invalid("missing protocol scheme");
    }
    if (u.scheme.empty() && (rest.empty() || rest[0] != '/')) {
        return invalid("invalid URI for request");
    }
    if (rest.compare(0, 2, "//") == 0) {
        rest = rest.substr(2);
        size_t slash = rest.find('/');
        std::string authority = rest.substr(0, slash);
        rest = slash == std::string::npos ? "" : rest.substr(slash);
        size_t at = authority.rfind('@');
        u.host = at == std::string::npos ? authority : authority.substr(at + 1);
        if (u.host.find_first_of(" <>\"{}|\\^`") != std::string::npos) {
            return invalid("invalid character \"" +
                           std::string(1, u.host[u.host.find_first_of(" <>\"{}|\\^`")]) +
                           "\" in host name");
        }
        size_t colon = u.host.rfind(':');
        if (colon != std::string::npos && u.host.find(']', colon) == std::string::npos) {
            std::string port = u.host.substr(colon + 1);
            for (char c : port) {
                if (c < '0' || c > '9') {
                    return invalid("invalid port \":" + port + "\" after host");
                }
            }
        }
    }
    u.path = rest;
    return u;
}

Value urlOf(Args a) {
    if (a[0].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    std::string error;
    if (!parseUrl(a[0].str(), &error)) {
        return Value::error("URL parse error during conversion from string: " + error);
    }
    return Value::url(a[0].str());
}

Value isUrl(Args a) {
    if (a[0].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    std::string error;
    return Value::boolean(parseUrl(a[0].str(), &error).has_value());
}

std::string hostname(const std::string& host) {
    if (!host.empty() && host[0] == '[') {
        size_t close = host.find(']');
        return host.substr(1, close == std::string::npos ? std::string::npos : close - 1);
    }
    size_t colon = host.rfind(':');
    return colon == std::string::npos ? host : host.substr(0, colon);
}

std::string port(const std::string& host) {
    size_t colon = host.rfind(':');
    if (colon == std::string::npos || host.find(']', colon) != std::string::npos) {
        return "";
    }
    return host.substr(colon + 1);
}

std::string unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); i++) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(s[i + 1]) &&
                   std::isxdigit(s[i + 2])) {
            out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

enum class Part { Scheme, Host, Hostname, Port, EscapedPath, Query };

template <Part P>
Value urlPart(Args a) {
    if (a[0].kind() != Kind::Url) {
        return Value::noSuchOverload();
    }
    std::string error;
    std::optional<ParsedUrl> u = parseUrl(a[0].str(), &error);
    if (!u) {
        return Value::error(error);
    }
    switch (P) {
        case Part::Scheme:
            return Value::string(u->scheme);
        case Part::Host:
            return Value::string(u->host);
        case Part::Hostname:
            return Value::string(hostname(u->host));
        case Part::Port:
            return Value::string(port(u->host));
        case Part::EscapedPath:
            return Value::string(u->path);
        case Part::Query: {
            // Go's url.ParseQuery: key=value pairs split on &, each unescaped.
            std::vector<std::pair<std::string, List>> params;
            size_t pos = 0;
            while (pos <= u->query.size() && !u->query.empty()) {
                size_t amp = u->query.find('&', pos);
                std::string pair = u->query.substr(pos, amp == std::string::npos ? amp : amp - pos);
                if (!pair.empty()) {
                    size_t eq = pair.find('=');
                    std::string key = unescape(pair.substr(0, eq));
                    std::string value =
                        eq == std::string::npos ? "" : unescape(pair.substr(eq + 1));
                    bool added = false;
                    for (auto& [k, vs] : params) {
                        if (k == key) {
                            vs.push_back(Value::string(value));
                            added = true;
                        }
                    }
                    if (!added) {
                        params.push_back({key, List{Value::string(value)}});
                    }
                }
                if (amp == std::string::npos) {
                    break;
                }
                pos = amp + 1;
            }
            MapData m;
            for (auto& [k, vs] : params) {
                m.insert(Value::string(k), Value::list(std::move(vs)));
            }
            return Value::map(std::move(m));
        }
    }
    return Value::noSuchOverload();
}

}  // namespace

void addUrlLibrary(FunctionRegistry& r) {
    TypePtr s = Type::string();
    TypePtr u = Type::url();
    r.add({"url", false, {s}, u});
    r.add("url", false, 1, urlOf);
    r.add({"isURL", false, {s}, Type::boolean()});
    r.add("isURL", false, 1, isUrl);
    r.add({"getScheme", true, {u}, s});
    r.add("getScheme", true, 1, urlPart<Part::Scheme>);
    r.add({"getHost", true, {u}, s});
    r.add("getHost", true, 1, urlPart<Part::Host>);
    r.add({"getHostname", true, {u}, s});
    r.add("getHostname", true, 1, urlPart<Part::Hostname>);
    r.add({"getPort", true, {u}, s});
    r.add("getPort", true, 1, urlPart<Part::Port>);
    r.add({"getEscapedPath", true, {u}, s});
    r.add("getEscapedPath", true, 1, urlPart<Part::EscapedPath>);
    r.add({"getQuery", true, {u}, Type::map(s, Type::list(s))});
    r.add("getQuery", true, 1, urlPart<Part::Query>);
}

}  // namespace kube::cel
