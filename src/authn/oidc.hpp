#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "authn/jwt.hpp"
#include "authn/token_authenticator.hpp"

namespace kube::authn {

// One claim mapping of kube's AuthenticationConfiguration: a claim name
// (claim:) or, in place of CEL, an expression that names one claim
// ("claims.email", "claims['x']"), and the prefix put before its values.
struct ClaimMapping {
    std::string claim;
    std::string prefix;
    bool prefixSet = false;
};

struct ExtraMapping {
    std::string key;
    std::string claim;
};

// One `jwt` entry of AuthenticationConfiguration (apiserver.config.k8s.io
// v1alpha1/v1beta1/v1); keys come from the JWKS file named by our own
// `issuer.jwksFile` field, never from the network.
struct JwtAuthenticatorConfig {
    std::string issuerUrl;
    std::vector<std::string> audiences;
    std::string audienceMatchPolicy;
    std::string jwksFile;
    ClaimMapping username;
    ClaimMapping groups;
    ClaimMapping uid;
    std::vector<ExtraMapping> extra;
    std::vector<KeyRef> keys;
};

// Reads an AuthenticationConfiguration file (YAML or JSON) and the JWKS
// files its jwt entries name, validating as kube's
// ValidateAuthenticationConfiguration does. Empty with `error` set
// ("jwt[0].issuer.url: Required value") on failure.
std::vector<JwtAuthenticatorConfig> loadAuthenticationConfiguration(const std::string& path,
                                                                    std::string* error);
// The same for text already read; relative jwksFile paths are taken from `dir`.
std::vector<JwtAuthenticatorConfig> parseAuthenticationConfiguration(std::string_view text,
                                                                     const std::string& dir,
                                                                     std::string* error);

// Authenticates the ID tokens of one issuer; mirrors
// plugin/pkg/authenticator/token/oidc with go-oidc's verification (5 minutes
// of clock skew for exp and nbf).
class OidcAuthenticator : public TokenAuthenticator {
public:
    OidcAuthenticator(std::shared_ptr<const JwtAuthenticatorConfig> config,
                      std::function<std::chrono::system_clock::time_point()> clock);

    void authenticateToken(std::string_view token, const std::vector<std::string>& audiences,
                           AuthCallback done) const override;

private:
    AuthResult authenticate(std::string_view token) const;

    std::shared_ptr<const JwtAuthenticatorConfig> config_;
    std::function<std::chrono::system_clock::time_point()> clock_;
};

}  // namespace kube::authn
