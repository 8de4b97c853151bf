#include "admission/certificates.hpp"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "util/base64.hpp"

namespace kube::admission {

namespace json = util::json;

namespace {

std::string_view signerNameOf(const json::Value* obj) {
    const json::Value* spec = obj ? json::member(*obj, "spec") : nullptr;
    return spec && spec->IsObject() ? json::stringMember(*spec, "signerName") : "";
}

std::string quoted(std::string_view s) {
    std::string out;
    json::appendQuoted(out, s);
    return out;
}

// The organizations of the subject of the PEM CSR in `obj`'s spec.request.
std::vector<std::string> requestOrganizations(const json::Value& obj) {
    std::vector<std::string> out;
    const json::Value* spec = json::member(obj, "spec");
    std::optional<std::string> pem =
        util::decodeBase64(spec && spec->IsObject() ? json::stringMember(*spec, "request") : "");
    if (!pem) {
        return out;
    }
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size())), BIO_free);
    if (!bio) {
        return out;
    }
    std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req(
        PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr), X509_REQ_free);
    X509_NAME* subject = req ? X509_REQ_get_subject_name(req.get()) : nullptr;
    if (!subject) {
        return out;
    }
    for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
        ASN1_STRING* s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
        unsigned char* utf8 = nullptr;
        int n = ASN1_STRING_to_UTF8(&utf8, s);
        if (n >= 0) {
            out.emplace_back(reinterpret_cast<const char*>(utf8), static_cast<size_t>(n));
            OPENSSL_free(utf8);
        }
    }
    return out;
}

}  // namespace

bool SignerAuthorizer::allowed(const authn::UserInfo& user, std::string_view verb,
                               std::string_view signerName) const {
    if (!authorizer) {
        return true;
    }
    authz::Attributes attrs;
    attrs.user = user;
    attrs.verb = verb;
    attrs.isResourceRequest = true;
    attrs.apiGroup = "certificates.k8s.io";
    attrs.apiVersion = "*";
    attrs.resource = "signers";
    attrs.name = signerName;
    if (authorizer->authorize(attrs).decision == authz::Decision::Allow) {
        return true;
    }
    size_t slash = signerName.find('/');
    attrs.name = std::string(signerName.substr(0, slash)) + "/*";
    return authorizer->authorize(attrs).decision == authz::Decision::Allow;
}

bool CertificateApproval::handles(const Attributes& a) const {
    return a.kind == &csrs_ && a.operation == Operation::Update && a.subresource == "approval";
}

void CertificateApproval::validate(const Attributes& a, Callback done) {
    std::string_view signer = signerNameOf(a.object);
    if (a.user && !authorizer_->allowed(*a.user, "approve", signer)) {
        meta::Status s = forbidden(
            a, "user not permitted to approve requests with signerName " + quoted(signer));
        done(&s);
        return;
    }
    done(nullptr);
}

bool CertificateSigning::handles(const Attributes& a) const {
    return a.kind == &csrs_ && a.operation == Operation::Update && a.subresource == "status";
}

void CertificateSigning::validate(const Attributes& a, Callback done) {
    auto certificate = [](const json::Value* obj) -> std::string_view {
        const json::Value* status = obj ? json::member(*obj, "status") : nullptr;
        return status && status->IsObject() ? json::stringMember(*status, "certificate") : "";
    };
    if (certificate(a.object) == certificate(a.oldObject)) {
        done(nullptr);
        return;
    }
    std::string_view signer = signerNameOf(a.oldObject);
    if (a.user && !authorizer_->allowed(*a.user, "sign", signer)) {
        meta::Status s =
            forbidden(a, "user not permitted to sign requests with signerName " + quoted(signer));
        done(&s);
        return;
    }
    done(nullptr);
}

bool CertificateSubjectRestriction::handles(const Attributes& a) const {
    return a.kind == &csrs_ && a.operation == Operation::Create && a.subresource.empty();
}

void CertificateSubjectRestriction::validate(const Attributes& a, Callback done) {
    if (!a.object || signerNameOf(a.object) != "kubernetes.io/kube-apiserver-client") {
        done(nullptr);
        return;
    }
    for (const std::string& org : requestOrganizations(*a.object)) {
        if (org == "system:masters") {
            meta::Status s = forbidden(a, "use of kubernetes.io/kube-apiserver-client signer with "
                                          "system:masters group is not allowed");
            done(&s);
            return;
        }
    }
    done(nullptr);
}

}  // namespace kube::admission
