#pragma once

#include "authn/authentication.hpp"
#include "endpoints/handlers/scope.hpp"

// The authentication.k8s.io requests: answered from the request and the
// authenticators, never stored.
namespace kube::endpoints {

// Mirrors TokenREST.Create (pkg/registry/core/serviceaccount/storage/
// token.go): POST serviceaccounts/<name>/token. The scope's store is the
// serviceaccounts store, its render options TokenRequest's. `getter` reads
// the Pod or Secret the token is bound to.
void createToken(Scope s, const authn::Authentication& auth, const authn::ObjectGetter& getter);

// Mirrors tokenreview REST.Create: the spec's token through the server's
// authenticators, the answer in status.
void createTokenReview(Scope s, const authn::Authentication& auth);

// Mirrors selfsubjectreview REST.Create: the caller's own user.
void createSelfSubjectReview(Scope s);

}  // namespace kube::endpoints
