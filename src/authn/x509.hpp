#pragma once

#include <openssl/x509.h>

#include "authn/user.hpp"

namespace kube::authn {

// The user a verified client certificate names: CN is the user name, each O
// a group, plus system:authenticated. Mirrors x509.CommonNameUserConversion.
// An empty CN yields an unauthenticated (empty) UserInfo.
UserInfo userFromCertificate(X509* cert);

}  // namespace kube::authn
