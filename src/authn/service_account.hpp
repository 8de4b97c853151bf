#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authn/jwt.hpp"
#include "authn/token_authenticator.hpp"
#include "util/json.hpp"

namespace kube::authn {

inline constexpr const char* kLegacyServiceAccountIssuer = "kubernetes/serviceaccount";
inline constexpr const char* kServiceAccountUsernamePrefix = "system:serviceaccount:";
inline constexpr const char* kAllServiceAccountsGroup = "system:serviceaccounts";
inline constexpr const char* kPodNameKey = "authentication.kubernetes.io/pod-name";
inline constexpr const char* kPodUidKey = "authentication.kubernetes.io/pod-uid";
inline constexpr const char* kNodeNameKey = "authentication.kubernetes.io/node-name";
inline constexpr const char* kNodeUidKey = "authentication.kubernetes.io/node-uid";
inline constexpr const char* kCredentialIdKey = "authentication.kubernetes.io/credential-id";

// The live objects a service-account token is checked against; mirrors
// ServiceAccountTokenGetter. `resource` is "serviceaccounts", "pods",
// "secrets" or "nodes" ("" namespace for nodes). `done` gets the stored
// object, or null and the getter's error (kube's NotFound message,
// `serviceaccounts "x" not found`). Called on the loop; `done` inline or
// later on the loop.
class ObjectGetter {
public:
    virtual ~ObjectGetter() = default;
    virtual void get(std::string_view resource, std::string_view ns, std::string_view name,
                     std::function<void(const util::json::Value* obj, std::string_view error)>
                         done) const = 0;
};

// kube's serviceaccount.MakeUsername and MakeGroupNames, and
// ServiceAccountInfo.UserInfo.
struct ServiceAccountInfo {
    std::string namespace_, name, uid;
    std::string podName, podUid;
    std::string nodeName, nodeUid;
    std::string credentialId;

    UserInfo userInfo() const;
};

// The server's service-account token settings (kube-apiserver's
// --service-account-* flags).
struct ServiceAccountOptions {
    // --service-account-issuer: the first one issues, all are accepted.
    std::vector<std::string> issuers;
    // --api-audiences; empty means the first issuer.
    std::vector<std::string> apiAudiences;
    // --service-account-key-file (public or private keys) plus the signing key's public half.
    std::vector<KeyRef> keys;
    // --service-account-signing-key-file.
    KeyRef signingKey;
    // --service-account-max-token-expiration; zero: no cap.
    std::chrono::seconds maxExpiration{0};
    // --service-account-extend-token-expiration.
    bool extendExpiration = true;
    // --service-account-jwks-uri; empty: https://<request host>/openid/v1/jwks.
    std::string jwksUri;

    // The audiences the API server accepts: apiAudiences, else the first issuer.
    std::vector<std::string> audiences() const;
};

// Authenticates service-account JWTs: bound tokens of the configured
// issuers and legacy Secret-based tokens (issuer "kubernetes/serviceaccount"),
// each checked against the live ServiceAccount (and Pod, Secret) by uid.
// Mirrors JWTTokenAuthenticator with the bound and legacy validators.
class ServiceAccountAuthenticator : public TokenAuthenticator {
public:
    // `clock` gives the current time (the loop's clock in the server, a fake
    // one in tests). `getter` must outlive this object.
    ServiceAccountAuthenticator(std::shared_ptr<const ServiceAccountOptions> options,
                                const ObjectGetter& getter,
                                std::function<std::chrono::system_clock::time_point()> clock);

    void authenticateToken(std::string_view token, const std::vector<std::string>& audiences,
                           AuthCallback done) const override;

private:
    void validateBound(std::shared_ptr<Jws> jws, std::vector<std::string> auds,
                       AuthCallback done) const;
    void validateLegacy(std::shared_ptr<Jws> jws, std::string token, std::vector<std::string> auds,
                        AuthCallback done) const;

    std::shared_ptr<const ServiceAccountOptions> options_;
    const ObjectGetter& getter_;
    std::function<std::chrono::system_clock::time_point()> clock_;
};

// What a TokenRequest asks for, after defaulting and validation; mirrors the
// inputs of serviceaccount.Claims.
struct TokenClaims {
    std::string namespace_;
    std::string serviceAccountName, serviceAccountUid;
    // At most one of pod or secret; a pod may name its node.
    std::string podName, podUid;
    std::string secretName, secretUid;
    std::string nodeName, nodeUid;
    std::vector<std::string> audiences;
    int64_t expirationSeconds = 3600;
    // Non-zero: the kubernetes.io.warnafter claim, seconds from now.
    int64_t warnAfterSeconds = 0;
};

// A signed bound token for `claims` issued at `now` by the first issuer with
// the signing key, with a fresh jti; "" when there is no signing key.
// `jti` gets the token's id.
std::string issueToken(const ServiceAccountOptions& options, const TokenClaims& claims,
                       std::chrono::system_clock::time_point now, std::string* jti = nullptr);

}  // namespace kube::authn
