#include "authn/x509.hpp"

#include <openssl/asn1.h>
#include <openssl/objects.h>

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

}  // namespace kube::authn
