// The audit event and its JSON line; mirrors k8s.io/apiserver/pkg/audit
// (request.go's NewEventFromRequest, LogRequestMetadata) and the JSON form
// the log backend writes.

#include "audit/event.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace kube::audit {

namespace {

constexpr size_t kMaxUserAgentLength = 1024;
constexpr std::string_view kUserAgentTruncateSuffix = "...TRUNCATED";

// The length of the valid UTF-8 sequence at s[i], or 0.
size_t utf8Length(std::string_view s, size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n;
    unsigned min;
    if (c < 0x80) {
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + n > s.size()) {
        return 0;
    }
    unsigned cp = c & (0xFF >> (n + 1));
    for (size_t k = 1; k < n; ++k) {
        auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0;
    }
    return n;
}

// A JSON string as Go's encoding/json writes it with HTML escaping on.
void appendGoString(std::string& out, std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
                case '"':
                    out += "\\\"";
                    break;
                case '\\':
                    out += "\\\\";
                    break;
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                case '\t':
                    out += "\\t";
                    break;
                default:
                    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                        out += "\\u00";
                        out += hex[c >> 4];
                        out += hex[c & 0xF];
                    } else {
                        out += static_cast<char>(c);
                    }
            }
            ++i;
            continue;
        }
        size_t n = utf8Length(s, i);
        if (n == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        if (n == 3 && c == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
            (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xA8) {
            out += (s[i + 2] & 1) ? "\\u2029" : "\\u2028";
        } else {
            out.append(s.substr(i, n));
        }
        i += n;
    }
    out += '"';
}

// Appends `,"name":` (without the comma for the first member).
void key(std::string& out, std::string_view name) {
    if (out.back() != '{') {
        out += ',';
    }
    out += '"';
    out += name;
    out += "\":";
}

void stringMember(std::string& out, std::string_view name, std::string_view value) {
    key(out, name);
    appendGoString(out, value);
}

void optionalString(std::string& out, std::string_view name, std::string_view value) {
    if (!value.empty()) {
        stringMember(out, name, value);
    }
}

void stringArray(std::string& out, const std::vector<std::string>& values) {
    out += '[';
    for (size_t i = 0; i < values.size(); ++i) {
        if (i) {
            out += ',';
        }
        appendGoString(out, values[i]);
    }
    out += ']';
}

// authenticationv1.UserInfo: every member omitted when empty
void userInfo(std::string& out, std::string_view name, const authn::UserInfo& u) {
    key(out, name);
    out += '{';
    optionalString(out, "username", u.name);
    optionalString(out, "uid", u.uid);
    if (!u.groups.empty()) {
        key(out, "groups");
        stringArray(out, u.groups);
    }
    if (!u.extra.empty()) {
        key(out, "extra");
        out += '{';
        for (const auto& [k, v] : u.extra) {
            if (out.back() != '{') {
                out += ',';
            }
            appendGoString(out, k);
            out += ':';
            stringArray(out, v);
        }
        out += '}';
    }
    out += '}';
}

void objectReference(std::string& out, const ObjectReference& ref) {
    key(out, "objectRef");
    out += '{';
    optionalString(out, "resource", ref.resource);
    optionalString(out, "namespace", ref.namespace_);
    optionalString(out, "name", ref.name);
    optionalString(out, "uid", ref.uid);
    optionalString(out, "apiGroup", ref.apiGroup);
    optionalString(out, "apiVersion", ref.apiVersion);
    optionalString(out, "resourceVersion", ref.resourceVersion);
    optionalString(out, "subresource", ref.subresource);
    out += '}';
}

// An address in net.IP.String()'s form, or "" when `s` is not one.
std::string canonicalIP(std::string_view s) {
    std::string text(s);
    unsigned char buf[16];
    char printed[INET6_ADDRSTRLEN];
    if (inet_pton(AF_INET, text.c_str(), buf) == 1) {
        return inet_ntop(AF_INET, buf, printed, sizeof(printed)) ? printed : "";
    }
    if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
        static const unsigned char v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (std::equal(buf, buf + 12, v4mapped)) {
            return inet_ntop(AF_INET, buf + 12, printed, sizeof(printed)) ? printed : "";
        }
        return inet_ntop(AF_INET6, buf, printed, sizeof(printed)) ? printed : "";
    }
    return "";
}

std::string_view trim(std::string_view s) {
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) {
        return {};
    }
    size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

}  // namespace

std::string formatMicroTime(MicroTime t) {
    auto secs = std::chrono::floor<std::chrono::seconds>(t);
    auto micros = (t - secs).count();
    std::time_t tt = static_cast<std::time_t>(secs.time_since_epoch().count());
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long long>(micros));
    return buf;
}

std::string escapeRawJson(std::string_view json) {
    std::string out;
    out.reserve(json.size());
    for (size_t i = 0; i < json.size(); ++i) {
        char c = json[i];
        if (c == '<') {
            out += "\\u003c";
        } else if (c == '>') {
            out += "\\u003e";
        } else if (c == '&') {
            out += "\\u0026";
        } else if (static_cast<unsigned char>(c) == 0xE2 && i + 2 < json.size() &&
                   static_cast<unsigned char>(json[i + 1]) == 0x80 &&
                   (static_cast<unsigned char>(json[i + 2]) & 0xFE) == 0xA8) {
            out += (json[i + 2] & 1) ? "\\u2029" : "\\u2028";
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

std::vector<std::string> sourceIPs(std::string_view forwardedFor, std::string_view realIp,
                                   std::string_view remoteAddr) {
    std::vector<std::string> ips;
    while (!forwardedFor.empty()) {
        size_t comma = forwardedFor.find(',');
        std::string ip = canonicalIP(trim(forwardedFor.substr(0, comma)));
        if (!ip.empty()) {
            ips.push_back(std::move(ip));
        }
        forwardedFor = comma == std::string_view::npos ? "" : forwardedFor.substr(comma + 1);
    }
    if (!realIp.empty()) {
        std::string ip = canonicalIP(realIp);
        if (!ip.empty() && std::find(ips.begin(), ips.end(), ip) == ips.end()) {
            ips.push_back(std::move(ip));
        }
    }
    std::string remote = canonicalIP(remoteAddr);
    if (!remote.empty() && (ips.empty() || ips.back() != remote)) {
        ips.push_back(std::move(remote));
    }
    return ips;
}

Event newEventFromRequest(const RequestFacts& facts, Level level, const authz::Attributes& attrs) {
    Event ev;
    ev.level = level;
    ev.auditID = facts.auditID;
    ev.stage = Stage::RequestReceived;
    ev.requestURI = facts.requestURI;
    ev.verb = attrs.verb;
    ev.user = attrs.user;
    ev.sourceIPs = facts.sourceIPs;
    ev.requestReceivedTimestamp = facts.received;
    ev.stageTimestamp = facts.received;

    std::string_view ua = facts.userAgent;
    if (ua.size() > kMaxUserAgentLength) {
        ev.userAgent = std::string(ua.substr(0, kMaxUserAgentLength));
        ev.userAgent += kUserAgentTruncateSuffix;
    } else {
        ev.userAgent = ua;
    }

    if (attrs.isResourceRequest) {
        ObjectReference ref;
        ref.namespace_ = attrs.namespace_;
        ref.name = attrs.name;
        ref.resource = attrs.resource;
        ref.subresource = attrs.subresource;
        ref.apiGroup = attrs.apiGroup;
        ref.apiVersion = attrs.apiVersion;
        ev.objectRef = std::move(ref);
    }
    return ev;
}

std::string serialize(const Event& ev) {
    std::string out = "{";
    out.reserve(1024 + (ev.requestObject ? ev.requestObject->size() : 0) +
                (ev.responseObject ? ev.responseObject->size() : 0));

    stringMember(out, "kind", "Event");
    stringMember(out, "apiVersion", "audit.k8s.io/v1");
    stringMember(out, "level", levelName(ev.level));
    stringMember(out, "auditID", ev.auditID);
    stringMember(out, "stage", stageName(ev.stage));
    stringMember(out, "requestURI", ev.requestURI);
    stringMember(out, "verb", ev.verb);
    userInfo(out, "user", ev.user);
    if (ev.impersonatedUser) {
        userInfo(out, "impersonatedUser", *ev.impersonatedUser);
    }
    if (!ev.sourceIPs.empty()) {
        key(out, "sourceIPs");
        stringArray(out, ev.sourceIPs);
    }
    optionalString(out, "userAgent", ev.userAgent);
    if (ev.objectRef) {
        objectReference(out, *ev.objectRef);
    }
    if (ev.responseStatus) {
        key(out, "responseStatus");
        out += "{\"metadata\":{}";
        if (!ev.responseStatus->fields.empty()) {
            out += ',';
            out += ev.responseStatus->fields;
        }
        if (ev.responseStatus->code != 0) {
            out += ",\"code\":" + std::to_string(ev.responseStatus->code);
        }
        out += '}';
    }
    if (ev.requestObject) {
        key(out, "requestObject");
        out += *ev.requestObject;
    }
    if (ev.responseObject) {
        key(out, "responseObject");
        out += *ev.responseObject;
    }
    stringMember(out, "requestReceivedTimestamp", formatMicroTime(ev.requestReceivedTimestamp));
    stringMember(out, "stageTimestamp", formatMicroTime(ev.stageTimestamp));
    if (!ev.annotations.empty()) {
        key(out, "annotations");
        out += '{';
        for (const auto& [k, v] : ev.annotations) {
            if (out.back() != '{') {
                out += ',';
            }
            appendGoString(out, k);
            out += ':';
            appendGoString(out, v);
        }
        out += '}';
    }
    out += "}\n";
    return out;
}

}  // namespace kube::audit
