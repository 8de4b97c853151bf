#pragma once

#include <memory>
#include <string_view>

#include "admission/interface.hpp"
#include "authz/authorizer.hpp"
#include "registry/kind.hpp"

// The certificates.k8s.io admission plugins; mirror
// plugin/pkg/admission/certificates (approval, signing, subjectrestriction).
namespace kube::admission {

// The authorizer the certificate plugins ask whether a user may approve or
// sign for a signer; set once the server's authorization chain exists.
// Unset (no authorization configured): every user may.
struct SignerAuthorizer {
    const authz::Authorizer* authorizer = nullptr;

    // Mirrors certificates.IsAuthorizedForSignerName: `verb` on the signers
    // resource named `signerName`, else on "<domain>/*".
    bool allowed(const authn::UserInfo& user, std::string_view verb,
                 std::string_view signerName) const;
};

// CertificateApproval: an update of a request's approval needs the approve
// verb on its signer.
class CertificateApproval : public ValidationInterface {
  public:
    CertificateApproval(const registry::KindInfo& csrs,
                        std::shared_ptr<const SignerAuthorizer> authorizer)
        : csrs_(csrs), authorizer_(std::move(authorizer)) {}
    std::string_view name() const override { return "CertificateApproval"; }
    bool handles(const Attributes& a) const override;
    void validate(const Attributes& a, Callback done) override;

  private:
    const registry::KindInfo& csrs_;
    std::shared_ptr<const SignerAuthorizer> authorizer_;
};

// CertificateSigning: a status update that changes the certificate needs the
// sign verb on its signer.
class CertificateSigning : public ValidationInterface {
  public:
    CertificateSigning(const registry::KindInfo& csrs,
                       std::shared_ptr<const SignerAuthorizer> authorizer)
        : csrs_(csrs), authorizer_(std::move(authorizer)) {}
    std::string_view name() const override { return "CertificateSigning"; }
    bool handles(const Attributes& a) const override;
    void validate(const Attributes& a, Callback done) override;

  private:
    const registry::KindInfo& csrs_;
    std::shared_ptr<const SignerAuthorizer> authorizer_;
};

// CertificateSubjectRestriction: no request to the kube-apiserver-client
// signer for the system:masters group.
class CertificateSubjectRestriction : public ValidationInterface {
  public:
    explicit CertificateSubjectRestriction(const registry::KindInfo& csrs) : csrs_(csrs) {}
    std::string_view name() const override { return "CertificateSubjectRestriction"; }
    bool handles(const Attributes& a) const override;
    void validate(const Attributes& a, Callback done) override;

  private:
    const registry::KindInfo& csrs_;
};

}  // namespace kube::admission
