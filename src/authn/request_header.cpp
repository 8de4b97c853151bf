#include "authn/request_header.hpp"

#include <algorithm>

#include "authn/x509.hpp"

namespace kube::authn {

namespace {

// The first non-empty value of the first of `names` that has one (Header.Get
// for each name in turn).
std::string firstValue(const std::vector<std::string>& names, const std::vector<Header>& headers) {
    for (const std::string& name : names) {
        for (const auto& [n, v] : headers) {
            if (headerNameEquals(n, name)) {
                if (!v.empty()) {
                    return std::string(v);
                }
                break;  // Header.Get looks at the first value only
            }
        }
    }
    return {};
}

}  // namespace

std::optional<UserInfo> userFromRequestHeaders(const RequestHeaderConfig& config,
                                               const std::vector<Header>& headers) {
    UserInfo user;
    user.name = firstValue(config.usernameHeaders, headers);
    if (user.name.empty()) {
        return std::nullopt;
    }
    user.uid = firstValue(config.uidHeaders, headers);
    for (const std::string& name : config.groupHeaders) {
        for (const auto& [n, v] : headers) {
            if (headerNameEquals(n, name) && !v.empty()) {
                user.groups.emplace_back(v);
            }
        }
    }
    for (const std::string& prefix : config.extraHeaderPrefixes) {
        for (const auto& [n, v] : headers) {
            if (headerNameHasPrefix(n, prefix)) {
                user.extra[extraKeyOf(n.substr(prefix.size()))].emplace_back(v);
            }
        }
    }
    return user;
}

bool isRequestHeader(const RequestHeaderConfig& config, std::string_view name) {
    auto named = [&](const std::vector<std::string>& names) {
        return std::any_of(names.begin(), names.end(),
                           [&](const std::string& h) { return headerNameEquals(h, name); });
    };
    return named(config.usernameHeaders) || named(config.uidHeaders) ||
           named(config.groupHeaders) ||
           std::any_of(config.extraHeaderPrefixes.begin(), config.extraHeaderPrefixes.end(),
                       [&](const std::string& p) { return headerNameHasPrefix(name, p); });
}

bool proxyCertificateAllowed(const RequestHeaderConfig& config, X509_STORE* trusted, X509* cert,
                             STACK_OF(X509) * chain, std::string* error) {
    if (trusted == nullptr || cert == nullptr) {
        *error = "no client certificate";
        return false;
    }
    if (!verifyClientCertificate(trusted, cert, chain, error)) {
        return false;
    }
    if (!config.allowedNames.empty()) {
        std::string cn = userFromCertificate(cert).name;
        if (std::find(config.allowedNames.begin(), config.allowedNames.end(), cn) ==
            config.allowedNames.end()) {
            *error = "x509: subject with cn=" + cn + " is not in the allowed list";
            return false;
        }
    }
    return true;
}

}  // namespace kube::authn
