#include "authn/authentication.hpp"

#include <algorithm>

#include "util/go_text.hpp"

namespace kube::authn {

namespace {

constexpr const char* kInvalidBearerToken = "invalid bearer token";

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

// One step of the token union: authenticator `i` onwards.
struct UnionState {
    std::string token;
    std::vector<std::string> audiences;
    std::vector<std::string> errors;
    AuthCallback done;
};

}  // namespace

Authentication::Authentication(std::shared_ptr<const AuthenticationConfig> config,
                               const ObjectGetter& getter, Clock clock)
    : config_(std::move(config)), clock_(std::move(clock)) {
    if (config_->tokenFile) {
        // The file is shared and immutable: a non-owning alias of it.
        struct FileRef : TokenAuthenticator {
            std::shared_ptr<const TokenFile> file;
            void authenticateToken(std::string_view t, const std::vector<std::string>& a,
                                   AuthCallback d) const override {
                file->authenticateToken(t, a, std::move(d));
            }
        };
        auto ref = std::make_unique<FileRef>();
        ref->file = config_->tokenFile;
        tokenAuthenticators_.push_back(std::move(ref));
        audienceAgnostic_.push_back(true);
    }
    if (!config_->serviceAccounts->keys.empty()) {
        tokenAuthenticators_.push_back(std::make_unique<ServiceAccountAuthenticator>(
            config_->serviceAccounts, getter, clock_));
        audienceAgnostic_.push_back(false);
    }
    for (const auto& jwt : config_->jwt) {
        tokenAuthenticators_.push_back(std::make_unique<OidcAuthenticator>(jwt, clock_));
        audienceAgnostic_.push_back(true);
    }
}

void Authentication::authenticateToken(std::string_view token,
                                       const std::vector<std::string>& audiences,
                                       AuthCallback done) const {
    TokenCache::Key key = tokenCache_.keyOf(token, audiences);
    if (const AuthResult* hit = tokenCache_.find(key, clock_())) {
        done(AuthResult(*hit));
        return;
    }
    authenticateUncached(token, audiences,
                         [this, key = std::move(key), done = std::move(done)](AuthResult&& r) {
                             if (r.ok()) {
                                 tokenCache_.put(key, r, clock_());
                             }
                             done(std::move(r));
                         });
}

void Authentication::authenticateUncached(std::string_view token,
                                          const std::vector<std::string>& audiences,
                                          AuthCallback done) const {
    auto state = std::make_shared<UnionState>();
    state->token = std::string(token);
    state->audiences = audiences;
    state->done = std::move(done);
    std::vector<std::string> implicit = config_->serviceAccounts->audiences();
    // The audiences an audience-agnostic authenticator's user is good for
    // (authenticator.WrapAudienceAgnosticToken): the API server's, narrowed
    // to those asked; none in common means the token is not for it.
    std::vector<std::string> agnostic;
    if (audiences.empty()) {
        agnostic = implicit;
    } else {
        for (const std::string& a : audiences) {
            if (std::find(implicit.begin(), implicit.end(), a) != implicit.end()) {
                agnostic.push_back(a);
            }
        }
    }
    bool agnosticApplies = audiences.empty() || implicit.empty() || !agnostic.empty();
    auto step = std::make_shared<std::function<void(size_t)>>();
    std::weak_ptr<std::function<void(size_t)>> weakStep = step;
    *step = [this, state, agnostic, agnosticApplies, weakStep](size_t i) {
        for (; i < tokenAuthenticators_.size(); i++) {
            if (audienceAgnostic_[i] && !agnosticApplies) {
                continue;
            }
            auto next = weakStep.lock();
            // The authenticator may answer inline (the loop continues here)
            // or later (its callback continues the union).
            auto inlineAnswer = std::make_shared<std::optional<AuthResult>>();
            auto inside = std::make_shared<bool>(true);
            bool agnosticOne = audienceAgnostic_[i];
            tokenAuthenticators_[i]->authenticateToken(
                state->token, state->audiences,
                [state, next, inlineAnswer, inside, agnosticOne, agnostic, i](AuthResult&& r) {
                    if (r.ok() && agnosticOne) {
                        r.audiences = agnostic;
                    }
                    if (*inside) {
                        *inlineAnswer = std::move(r);
                        return;
                    }
                    if (r.ok()) {
                        state->done(std::move(r));
                        return;
                    }
                    if (r.outcome == AuthResult::Outcome::Failed) {
                        state->errors.push_back(r.error);
                    }
                    (*next)(i + 1);
                });
            *inside = false;
            if (!*inlineAnswer) {
                return;  // continues in the callback
            }
            AuthResult r = std::move(**inlineAnswer);
            if (r.ok()) {
                state->done(std::move(r));
                return;
            }
            if (r.outcome == AuthResult::Outcome::Failed) {
                state->errors.push_back(r.error);
            }
        }
        if (state->errors.empty()) {
            state->done(AuthResult::notMine());
            return;
        }
        state->done(AuthResult::failed(util::aggregateErrors(state->errors)));
    };
    // The step function lives as long as a pending callback holds it.
    auto keep = step;
    (*keep)(0);
}

void Authentication::authenticateRequest(const RequestCredentials& creds, AuthCallback done) const {
    std::vector<std::string> errors;
    if (creds.requestHeaderUser && creds.requestHeaderUser->authenticated()) {
        UserInfo user = *creds.requestHeaderUser;
        addAuthenticatedGroup(user);
        done(AuthResult::authenticated(std::move(user), config_->serviceAccounts->audiences()));
        return;
    }
    if (!creds.requestHeaderError.empty()) {
        errors.push_back(creds.requestHeaderError);
    }
    if (creds.certificateUser && creds.certificateUser->authenticated()) {
        UserInfo user = *creds.certificateUser;
        addAuthenticatedGroup(user);
        done(AuthResult::authenticated(std::move(user), config_->serviceAccounts->audiences()));
        return;
    }
    if (!creds.certificateError.empty()) {
        errors.push_back(creds.certificateError);
    }
    std::optional<std::string_view> token;
    if (creds.authorization) {
        token = bearerToken(*creds.authorization);
    }
    if (!token || tokenAuthenticators_.empty()) {
        if (token) {
            errors.push_back(kInvalidBearerToken);
        }
        done(errors.empty() ? AuthResult::notMine()
                            : AuthResult::failed(util::aggregateErrors(errors)));
        return;
    }
    authenticateToken(*token, {}, [errors, done = std::move(done)](AuthResult&& r) mutable {
        if (r.ok()) {
            addAuthenticatedGroup(r.user);
            done(std::move(r));
            return;
        }
        // bearertoken: a token no authenticator took is an error of its own
        errors.push_back(kInvalidBearerToken);
        if (r.outcome == AuthResult::Outcome::Failed) {
            errors.push_back(r.error);
        }
        done(AuthResult::failed(util::aggregateErrors(errors)));
    });
}

void addAuthenticatedGroup(UserInfo& user) {
    for (const std::string& g : user.groups) {
        if (g == kAllAuthenticated || g == kAllUnauthenticated) {
            return;
        }
    }
    user.groups.push_back(kAllAuthenticated);
}

std::optional<std::string_view> bearerToken(std::string_view auth) {
    // strings.Fields: runs of white space separate; the first field is the
    // scheme, the second the token.
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < auth.size() && fields.size() < 3) {
        while (i < auth.size() && isSpace(auth[i])) {
            i++;
        }
        size_t start = i;
        while (i < auth.size() && !isSpace(auth[i])) {
            i++;
        }
        if (i > start) {
            fields.push_back(auth.substr(start, i - start));
        }
    }
    if (fields.size() < 2 || fields[0].size() != 6) {
        return std::nullopt;
    }
    std::string scheme(fields[0]);
    std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (scheme != "bearer") {
        return std::nullopt;
    }
    return fields[1];
}

}  // namespace kube::authn
