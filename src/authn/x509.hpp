#pragma once

#include <memory>
#include <string>

#include <openssl/x509.h>

#include "authn/user.hpp"

namespace kube::authn {

// The user a verified client certificate names: CN is the user name, each O
// a group, plus system:authenticated. Mirrors x509.CommonNameUserConversion.
// An empty CN yields an unauthenticated (empty) UserInfo.
UserInfo userFromCertificate(X509* cert);

// A set of trusted CA certificates (and any CRLs) read from a PEM file, as
// kube reads --client-ca-file, with the CRLs of `crlPath` when not empty
// (then every certificate of a chain is checked against them, as nginx's
// ssl_crl does); null with `error` set when a file cannot be read. Immutable
// once loaded: verifying against it from several threads is safe.
std::shared_ptr<X509_STORE> loadCertificatePool(const std::string& path, std::string* error,
                                                const std::string& crlPath = "");

// Whether `cert` (with the intermediates the peer sent, `chain`, may be
// null) chains to a CA of `pool` and may authenticate a TLS client; mirrors
// x509.Certificate.Verify with ExtKeyUsageClientAuth. `error` is "x509: "
// and why not.
bool verifyClientCertificate(X509_STORE* pool, X509* cert, STACK_OF(X509) * chain,
                             std::string* error);

}  // namespace kube::authn
