#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/x509.h>

#include "authn/headers.hpp"
#include "authn/user.hpp"

// kube's request-header authenticator (an authenticating proxy in front of
// the server): the user named by X-Remote-User and friends, believed only
// from a connection whose client certificate the request-header CA signed.
namespace kube::authn {

struct RequestHeaderConfig {
    // kube-apiserver's --requestheader-* flags, with kubeadm's usual values
    // as defaults.
    std::vector<std::string> usernameHeaders{"X-Remote-User"};
    std::vector<std::string> uidHeaders;
    std::vector<std::string> groupHeaders{"X-Remote-Group"};
    std::vector<std::string> extraHeaderPrefixes{"X-Remote-Extra-"};
    // CNs a proxy's certificate may have; empty allows any the CA signed.
    std::vector<std::string> allowedNames;
};

// The user the headers name (without system:authenticated, which the
// authenticator union adds), or nullopt when no username header has a value.
// Group headers give one group per value (each header, every value, in the
// configured order); extra headers give lowercased, unescaped keys.
std::optional<UserInfo> userFromRequestHeaders(const RequestHeaderConfig& config,
                                               const std::vector<Header>& headers);

// Whether a header carries request-header identity (to remove them once
// used, and to strip them when the connection may not set them).
bool isRequestHeader(const RequestHeaderConfig& config, std::string_view name);

// Whether `cert` (with the peer's `chain`, may be null) verifies against
// `trusted`, the request-header CA, for client authentication, and its CN is
// allowed. `error` says why not, in kube's words where it has them.
bool proxyCertificateAllowed(const RequestHeaderConfig& config, X509_STORE* trusted, X509* cert,
                             STACK_OF(X509) * chain, std::string* error);

}  // namespace kube::authn
