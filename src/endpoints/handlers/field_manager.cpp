#include <cstdio>

#include "endpoints/handlers/scope.hpp"
#include "registry/validation.hpp"

namespace kube::endpoints {

namespace field = registry::validation::field;

namespace {

// metav1's FieldManagerMaxLength, in bytes.
constexpr size_t kFieldManagerMaxLength = 128;

// Go's unicode.IsPrint, closely enough for a field manager name: controls,
// spaces other than ' ' and format characters are not printable.
bool isPrint(uint32_t r) {
    if (r < 0x20 || (r >= 0x7f && r <= 0xa0) || r == 0xad || r == 0x1680 || r == 0x3000 ||
        r == 0xfeff) {
        return false;
    }
    return !((r >= 0x2000 && r <= 0x200f) || (r >= 0x2028 && r <= 0x202f) ||
             (r >= 0x205f && r <= 0x2064) || (r >= 0xfff9 && r <= 0xfffb));
}

// One UTF-8 sequence at the start of `s`: its rune (U+FFFD when invalid) and length.
uint32_t decodeRune(std::string_view s, size_t* len) {
    auto c = static_cast<unsigned char>(s[0]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || n > s.size()) {
        *len = 1;
        return 0xfffd;
    }
    uint32_t r = n == 1 ? c : c & (0x7f >> n);
    for (size_t i = 1; i < n; ++i) {
        auto cc = static_cast<unsigned char>(s[i]);
        if ((cc & 0xc0) != 0x80) {
            *len = 1;
            return 0xfffd;
        }
        r = (r << 6) | (cc & 0x3f);
    }
    *len = n;
    return r;
}

// Go's %#U of a rune that is not printable: "U+0007".
std::string runeName(uint32_t r) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", r);
    return buf;
}

}  // namespace

std::vector<meta::StatusCause> fieldManagerCauses(std::string_view manager) {
    std::vector<meta::StatusCause> causes;
    if (manager.size() > kFieldManagerMaxLength) {
        causes.push_back(field::tooLong("fieldManager", kFieldManagerMaxLength));
    }
    for (size_t i = 0; i < manager.size();) {
        size_t len = 0;
        uint32_t r = decodeRune(manager.substr(i), &len);
        if (!isPrint(r)) {
            causes.push_back(field::invalid(
                "fieldManager", std::string(manager),
                "invalid character " + runeName(r) + " (at position " + std::to_string(i) + ")"));
        }
        i += len;
    }
    return causes;
}

std::optional<std::string> requestFieldManager(const Scope& s, std::string_view optionsKind) {
    std::optional<std::string> manager = s->query.get("fieldManager");
    std::vector<meta::StatusCause> causes = fieldManagerCauses(manager.value_or(""));
    if (!causes.empty()) {
        s->fail(meta::Status::invalid({"meta.k8s.io", std::string(optionsKind)}, "",
                                      std::move(causes)));
        return std::nullopt;
    }
    if (manager && !manager->empty()) {
        return manager;
    }
    return managerFromUserAgent(s->req.userAgent);
}

std::string managerFromUserAgent(std::string_view userAgent) {
    std::string_view prefix = userAgent.substr(0, userAgent.find('/'));
    return std::string(prefix.substr(0, kFieldManagerMaxLength));
}

}  // namespace kube::endpoints
