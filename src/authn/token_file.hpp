#pragma once

#include <map>
#include <memory>
#include <string>

#include "authn/token_authenticator.hpp"

namespace kube::authn {

// The users of kube-apiserver's --token-auth-file: a CSV of token, user
// name, uid and optionally a quoted, comma-separated group list; further
// columns are ignored. Mirrors plugin/pkg/auth/authenticator/token/tokenfile.
// Read once at configuration time; immutable after.
class TokenFile : public TokenAuthenticator {
public:
    // Nullptr with kube's message in `error` (a CSV syntax error with its
    // line and column, a record with fewer than 3 columns with its line).
    // Empty tokens are skipped and a duplicate token's last line wins, as
    // kube does (kube only warns); `warnings` gets those warnings.
    static std::shared_ptr<const TokenFile> load(const std::string& path, std::string* error,
                                                 std::vector<std::string>* warnings = nullptr);
    // The same for CSV text already read (`path` names it in messages).
    static std::shared_ptr<const TokenFile> parse(std::string_view text, const std::string& path,
                                                  std::string* error,
                                                  std::vector<std::string>* warnings = nullptr);

    void authenticateToken(std::string_view token, const std::vector<std::string>& audiences,
                           AuthCallback done) const override;

    size_t size() const { return tokens_.size(); }

private:
    std::map<std::string, UserInfo, std::less<>> tokens_;
};

}  // namespace kube::authn
