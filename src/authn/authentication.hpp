#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/x509.h>

#include "authn/oidc.hpp"
#include "authn/request_header.hpp"
#include "authn/service_account.hpp"
#include "authn/token_authenticator.hpp"
#include "authn/token_cache.hpp"
#include "authn/token_file.hpp"

namespace kube::authn {

// What nginx.conf configures for authentication; built once at
// configuration time (files read and checked then, never on a request) and
// immutable after, so the master builds it and the workers share it.
struct AuthenticationConfig {
    // kube_token_auth_file
    std::shared_ptr<const TokenFile> tokenFile;
    // kube_service_account_*: never null, possibly without keys.
    std::shared_ptr<const ServiceAccountOptions> serviceAccounts =
        std::make_shared<ServiceAccountOptions>();
    // kube_authentication_config
    std::vector<std::shared_ptr<const JwtAuthenticatorConfig>> jwt;
    // kube_requestheader_*: the authenticating proxy's headers and the CAs
    // (kube_requestheader_client_ca_file) that sign its certificate; both
    // null when no CA file is configured.
    std::shared_ptr<const RequestHeaderConfig> requestHeader;
    std::shared_ptr<X509_STORE> requestHeaderCAs;
};

// The credentials of one request, as the module finds them.
struct RequestCredentials {
    // The user an authenticating proxy named in its headers, when the
    // connection's certificate is the proxy's (requestheader.go).
    std::optional<UserInfo> requestHeaderUser;
    // Why a presented certificate is not the proxy's ("" when it is, when no
    // certificate was sent, or without kube_requestheader_client_ca_file).
    std::string requestHeaderError;
    // A verified client certificate's user (x509.CommonNameUserConversion).
    std::optional<UserInfo> certificateUser;
    // Why a presented certificate did not authenticate ("" when it did or none was sent).
    std::string certificateError;
    // The Authorization header, when sent.
    std::optional<std::string_view> authorization;
};

// One worker's authenticators over the shared configuration: kube-apiserver's
// union (pkg/kubeapiserver/authenticator/config.go) of the request-header
// authenticator (an authenticating proxy), x509, then the bearer
// token over the token union (token file, service-account tokens, JWT
// issuers, in that order), with the authenticated group added and anonymous
// last (union.NewFailOnError: an authenticator's error is a 401 even when
// anonymous requests are allowed).
class Authentication {
  public:
    using Clock = std::function<std::chrono::system_clock::time_point()>;

    // `getter` reads the live ServiceAccounts, Pods and Secrets bound tokens
    // are checked against; it must outlive this object.
    Authentication(std::shared_ptr<const AuthenticationConfig> config, const ObjectGetter& getter,
                   Clock clock);

    // The token union; mirrors tokenunion.New with the audience-agnostic
    // wrapping of the token file and JWT issuers, behind kube's cache of
    // successes (tokencache.New: 10 s, never past the token's expiry).
    // `audiences` empty means the API server's own. The error of a failure
    // aggregates every authenticator's error. The user gets no
    // authenticated group here.
    void authenticateToken(std::string_view token, const std::vector<std::string>& audiences,
                           AuthCallback done) const;

    // A request: Authenticated (user with system:authenticated), Failed (a
    // 401, with the errors for the log), or NotMine when no authenticator
    // recognised anything and anonymous access decides. Mirrors
    // WithAuthentication's AuthenticateRequest minus anonymous.
    void authenticateRequest(const RequestCredentials& creds, AuthCallback done) const;

    const ServiceAccountOptions& serviceAccounts() const { return *config_->serviceAccounts; }
    const AuthenticationConfig& config() const { return *config_; }

  private:
    void authenticateUncached(std::string_view token, const std::vector<std::string>& audiences,
                              AuthCallback done) const;

    std::shared_ptr<const AuthenticationConfig> config_;
    Clock clock_;
    std::vector<std::unique_ptr<TokenAuthenticator>> tokenAuthenticators_;
    // Which of tokenAuthenticators_ are audience-agnostic (not service accounts).
    std::vector<bool> audienceAgnostic_;
    // Successes of the token union (this worker's; loop thread only).
    mutable TokenCache tokenCache_;
};

// Mirrors group.AuthenticatedGroupAdder: system:authenticated is added
// unless the user already has it or system:unauthenticated.
void addAuthenticatedGroup(UserInfo& user);

// Mirrors bearertoken.Authenticator's reading of the header: the token of
// "Bearer <token>" (scheme case-insensitive, white space around), or
// nullopt when the header carries no bearer token at all.
std::optional<std::string_view> bearerToken(std::string_view authorization);

}  // namespace kube::authn
