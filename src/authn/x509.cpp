#include "authn/x509.hpp"

#include <openssl/asn1.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

namespace kube::authn {

namespace {

std::string entryText(X509_NAME_ENTRY* entry) {
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (len < 0) {
        return {};
    }
    std::string out(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
    OPENSSL_free(utf8);
    return out;
}

}  // namespace

UserInfo anonymousUser() {
    return UserInfo{kAnonymousUser, "", {kAllUnauthenticated}, {}};
}

UserInfo userFromCertificate(X509* cert) {
    UserInfo user;
    X509_NAME* subject = cert ? X509_get_subject_name(cert) : nullptr;
    if (!subject) {
        return user;
    }
    int cn = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
    if (cn < 0) {
        return user;
    }
    user.name = entryText(X509_NAME_get_entry(subject, cn));
    if (user.name.empty()) {
        return user;
    }
    for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
        user.groups.push_back(entryText(X509_NAME_get_entry(subject, i)));
    }
    user.groups.push_back(kAllAuthenticated);
    return user;
}

std::shared_ptr<X509_STORE> loadCertificatePool(const std::string& path, std::string* error,
                                                const std::string& crlPath) {
    std::shared_ptr<X509_STORE> pool(X509_STORE_new(), X509_STORE_free);
    X509_LOOKUP* lookup = pool ? X509_STORE_add_lookup(pool.get(), X509_LOOKUP_file()) : nullptr;
    if (lookup == nullptr) {
        ERR_clear_error();
        *error = "cannot make a certificate store";
        return nullptr;
    }
    for (const std::string& file : {path, crlPath}) {
        if (!file.empty() &&
            X509_load_cert_crl_file(lookup, file.c_str(), X509_FILETYPE_PEM) <= 0) {
            ERR_clear_error();
            *error = "\"" + file + "\": no PEM certificate or CRL could be read";
            return nullptr;
        }
    }
    if (!crlPath.empty()) {
        X509_STORE_set_flags(pool.get(), X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
    }
    return pool;
}

bool verifyClientCertificate(X509_STORE* pool, X509* cert, STACK_OF(X509) * chain,
                             std::string* error) {
    std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                        X509_STORE_CTX_free);
    if (!ctx || X509_STORE_CTX_init(ctx.get(), pool, cert, chain) != 1) {
        ERR_clear_error();
        *error = "x509: cannot verify the certificate";
        return false;
    }
    X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
    if (X509_verify_cert(ctx.get()) != 1) {
        ERR_clear_error();
        *error = std::string("x509: ") +
                 X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
        return false;
    }
    return true;
}

}  // namespace kube::authn
