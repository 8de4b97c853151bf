#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authn/user.hpp"

namespace kube::authn {

// What one authenticator says of a credential; mirrors the (Response, ok,
// error) triple of authenticator.Token: NotMine is (nil, false, nil), Failed
// carries the error, Authenticated the user and the audiences it is valid for.
struct AuthResult {
    enum class Outcome { NotMine, Authenticated, Failed };
    Outcome outcome = Outcome::NotMine;
    UserInfo user;
    std::vector<std::string> audiences;
    std::string error;
    // When the credential stops being valid (a JWT's exp), if it says: a
    // cached success is never used from then on (TokenCache).
    std::optional<std::chrono::system_clock::time_point> expires;

    static AuthResult notMine() { return {}; }
    static AuthResult failed(std::string error) {
        AuthResult r;
        r.outcome = Outcome::Failed;
        r.error = std::move(error);
        return r;
    }
    static AuthResult authenticated(UserInfo user, std::vector<std::string> audiences = {}) {
        AuthResult r;
        r.outcome = Outcome::Authenticated;
        r.user = std::move(user);
        r.audiences = std::move(audiences);
        return r;
    }
    bool ok() const { return outcome == Outcome::Authenticated; }
};

using AuthCallback = std::function<void(AuthResult&&)>;

// Authenticates a bearer token; mirrors authenticator.Token. `audiences` are
// the audiences the caller asks for (a TokenReview's spec.audiences), empty
// for the API server's own. Called on the loop; `done` is called exactly
// once, inline or later on the loop (a store read may be deferred), never
// from another thread.
class TokenAuthenticator {
  public:
    virtual ~TokenAuthenticator() = default;
    virtual void authenticateToken(std::string_view token,
                                   const std::vector<std::string>& audiences,
                                   AuthCallback done) const = 0;
};

}  // namespace kube::authn
