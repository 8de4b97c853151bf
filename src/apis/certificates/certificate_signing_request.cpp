// certificates.k8s.io/v1 CertificateSigningRequests; mirrors
// pkg/registry/certificates/certificates (strategy: who asks is recorded on
// create, the spec never changes, approval and status change only their
// conditions and the certificate) and pkg/apis/certificates/validation.

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "apis/certificates/kinds.hpp"
#include "apis/core/field_errors.hpp"
#include "authn/user.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "util/base64.hpp"
#include "util/time.hpp"

namespace kube::apis::certificates {

namespace {

namespace json = util::json;
namespace field = core::field;
namespace cells = registry::cells;
namespace validation = registry::validation;
using registry::TableContext;

const std::vector<std::string>& validUsages() {
    static const std::vector<std::string> usages = {
        "any",
        "cert sign",
        "client auth",
        "code signing",
        "content commitment",
        "crl sign",
        "data encipherment",
        "decipher only",
        "digital signature",
        "email protection",
        "encipher only",
        "ipsec end system",
        "ipsec tunnel",
        "ipsec user",
        "key agreement",
        "key encipherment",
        "microsoft sgc",
        "netscape sgc",
        "ocsp signing",
        "s/mime",
        "server auth",
        "signing",
        "timestamping",
    };
    return usages;
}

bool isValidUsage(std::string_view u) {
    const auto& all = validUsages();
    return std::find(all.begin(), all.end(), u) != all.end();
}

// Go's %#v of a []byte: "[]byte{0x68, 0x65}", "[]byte(nil)" when empty.
validation::BadValue goBytes(std::string_view bytes) {
    if (bytes.empty()) {
        return validation::BadValue::raw("[]byte(nil)");
    }
    std::string out = "[]byte{";
    char hex[8];
    for (size_t i = 0; i < bytes.size(); ++i) {
        std::snprintf(hex, sizeof hex, "%s0x%x", i ? ", " : "",
                      static_cast<unsigned>(static_cast<unsigned char>(bytes[i])));
        out += hex;
    }
    out += '}';
    return validation::BadValue::raw(std::move(out));
}

// A base64 `bytes` field's content ("" when absent or not base64).
std::string bytesField(const json::Value& obj, std::initializer_list<std::string_view> path) {
    return util::decodeBase64(cells::text(obj, path)).value_or(std::string());
}

struct BioFree {
    void operator()(BIO* b) const { BIO_free(b); }
};
struct ReqFree {
    void operator()(X509_REQ* r) const { X509_REQ_free(r); }
};
struct CertFree {
    void operator()(X509* c) const { X509_free(c); }
};

// One PEM block of `pem` from `offset` (Go's pem.Decode skips what comes
// before it); false when there is none.
struct PemBlock {
    std::string type;
    bool hasHeaders = false;
    std::string der;
};
bool nextPemBlock(std::string_view pem, size_t& offset, PemBlock& out) {
    if (offset >= pem.size()) {
        return false;
    }
    std::string_view rest = pem.substr(offset);
    std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(rest.data(), static_cast<int>(rest.size())));
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (!bio || PEM_read_bio(bio.get(), &name, &header, &data, &len) != 1) {
        return false;
    }
    out.type = name;
    out.hasHeaders = header && header[0] != '\0';
    out.der.assign(reinterpret_cast<const char*>(data), static_cast<size_t>(len));
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
    offset += rest.size() - static_cast<size_t>(BIO_pending(bio.get()));
    return true;
}

// Mirrors validateCSR: a PEM CERTIFICATE REQUEST whose signature verifies;
// the error, or "".
std::string csrError(std::string_view pem) {
    PemBlock block;
    size_t offset = 0;
    if (!nextPemBlock(pem, offset, block) || block.type != "CERTIFICATE REQUEST") {
        return "PEM block type must be CERTIFICATE REQUEST";
    }
    const unsigned char* p = reinterpret_cast<const unsigned char*>(block.der.data());
    std::unique_ptr<X509_REQ, ReqFree> req(
        d2i_X509_REQ(nullptr, &p, static_cast<long>(block.der.size())));
    if (!req) {
        return "x509: malformed certificate request";
    }
    EVP_PKEY* key = X509_REQ_get0_pubkey(req.get());
    if (!key) {
        return "x509: unsupported public key algorithm";
    }
    if (X509_REQ_verify(req.get(), key) != 1) {
        return "x509: signature verification failure";
    }
    return "";
}

// Mirrors validateCertificate: "" when empty or only CERTIFICATE blocks.
std::string certificateError(std::string_view pem) {
    if (pem.empty()) {
        return "";
    }
    size_t offset = 0;
    int blocks = 0;
    PemBlock block;
    while (nextPemBlock(pem, offset, block)) {
        if (block.type != "CERTIFICATE") {
            return "only CERTIFICATE PEM blocks are allowed, found " + validation::goQuote(block.type);
        }
        if (block.hasHeaders) {
            return "no PEM block headers are permitted";
        }
        blocks++;
        const unsigned char* p = reinterpret_cast<const unsigned char*>(block.der.data());
        std::unique_ptr<X509, CertFree> cert(
            d2i_X509(nullptr, &p, static_cast<long>(block.der.size())));
        if (!cert) {
            return "x509: malformed certificate";
        }
    }
    if (blocks == 0) {
        return "must contain at least one CERTIFICATE PEM block";
    }
    return "";
}

const json::Value* conditionsOf(const json::Value& obj) {
    const json::Value* c = json::at(obj, {"status", "conditions"});
    return c && c->IsArray() ? c : nullptr;
}

// The conditions of `type`, as JSON (for comparison).
std::vector<const json::Value*> findConditions(const json::Value& obj, std::string_view type) {
    std::vector<const json::Value*> out;
    if (const json::Value* conds = conditionsOf(obj)) {
        for (const json::Value& c : conds->GetArray()) {
            if (c.IsObject() && json::stringMember(c, "type") == type) {
                out.push_back(&c);
            }
        }
    }
    return out;
}

// certificateValidationOptions: what a write path may do, and what is
// tolerated because the stored object already has it.
struct Options {
    bool allowSettingApprovalConditions = false;
    bool allowSettingCertificate = false;
    bool allowBothApprovedAndDenied = false;
    bool allowLegacySignerName = false;
    bool allowDuplicateConditionTypes = false;
    bool allowEmptyConditionType = false;
    bool allowArbitraryCertificate = false;
    bool allowUnknownUsages = false;
    bool allowDuplicateUsages = false;
};

constexpr std::string_view kLegacySigner = "kubernetes.io/legacy-unknown";

// Mirrors getValidationOptions.
Options optionsFor(const json::Value& obj, const json::Value* old) {
    Options o;
    if (!old) {
        return o;
    }
    bool approved = !findConditions(*old, "Approved").empty();
    bool denied = !findConditions(*old, "Denied").empty();
    o.allowBothApprovedAndDenied = approved && denied;
    o.allowLegacySignerName = cells::text(*old, {"spec", "signerName"}) == kLegacySigner;
    std::set<std::string> seen;
    if (const json::Value* conds = conditionsOf(*old)) {
        for (const json::Value& c : conds->GetArray()) {
            std::string t(json::stringMember(c, "type"));
            if (!seen.insert(t).second) {
                o.allowDuplicateConditionTypes = true;
            }
            if (t.empty()) {
                o.allowEmptyConditionType = true;
            }
        }
    }
    std::string cert = bytesField(obj, {"status", "certificate"});
    std::string oldCert = bytesField(*old, {"status", "certificate"});
    o.allowArbitraryCertificate = cert == oldCert || !certificateError(oldCert).empty();
    std::set<std::string_view> usages;
    if (const json::Value* u = json::at(*old, {"spec", "usages"}); u && u->IsArray()) {
        for (const json::Value& v : u->GetArray()) {
            std::string_view s = v.IsString() ? json::view(v) : "";
            o.allowUnknownUsages = o.allowUnknownUsages || !isValidUsage(s);
            o.allowDuplicateUsages = o.allowDuplicateUsages || !usages.insert(s).second;
        }
    }
    return o;
}

// Mirrors ValidateCertificateSigningRequestSignerName.
void validateSignerName(std::string_view signerName, field::Causes& out) {
    const std::string path = "spec.signerName";
    if (signerName.empty()) {
        out.push_back(field::required(path));
        return;
    }
    size_t slash = signerName.find('/');
    if (slash == std::string_view::npos || signerName.find('/', slash + 1) != std::string_view::npos) {
        out.push_back(field::invalid(
            path, signerName,
            "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
        return;
    }
    std::string_view domain = signerName.substr(0, slash);
    std::string_view rest = signerName.substr(slash + 1);
    if (domain.size() > 253) {
        out.push_back(field::tooLong(path, 253));
    }
    auto labels = [](std::string_view s) {
        std::vector<std::string_view> parts;
        size_t start = 0;
        while (true) {
            size_t dot = s.find('.', start);
            parts.push_back(s.substr(start, dot == std::string_view::npos ? dot : dot - start));
            if (dot == std::string_view::npos) {
                return parts;
            }
            start = dot + 1;
        }
    };
    std::vector<std::string_view> domainLabels = labels(domain);
    for (std::string_view l : domainLabels) {
        std::vector<std::string> errs = validation::isDNS1123Label(l);
        for (const std::string& e : errs) {
            out.push_back(field::invalid(path, domain,
                                         "validating label " + validation::goQuote(l) + ": " + e));
        }
        if (!errs.empty()) {
            break;
        }
    }
    if (domainLabels.size() < 2) {
        out.push_back(
            field::invalid(path, domain, "should be a domain with at least two segments separated by dots"));
    }
    for (std::string_view l : labels(rest)) {
        std::vector<std::string> errs = validation::isDNS1123Subdomain(l);
        for (const std::string& e : errs) {
            out.push_back(field::invalid(path, rest,
                                         "validating label " + validation::goQuote(l) + ": " + e));
        }
        if (!errs.empty()) {
            break;
        }
    }
    constexpr size_t kMax = 253 + (253 + 63 + 1) + 1;
    if (signerName.size() > kMax) {
        out.push_back(field::tooLong(path, kMax));
    }
}

// Mirrors validateConditions.
void validateConditions(const json::Value& obj, const Options& o, field::Causes& out) {
    const json::Value* conds = conditionsOf(obj);
    if (!conds) {
        return;
    }
    std::set<std::string> seen;
    bool approved = false, denied = false;
    for (size_t i = 0; i < conds->Size(); ++i) {
        const json::Value& c = (*conds)[static_cast<rapidjson::SizeType>(i)];
        std::string base = field::index("status.conditions", i);
        std::string type(c.IsObject() ? json::stringMember(c, "type") : "");
        std::string status(c.IsObject() ? json::stringMember(c, "status") : "");
        if (!o.allowEmptyConditionType && type.empty()) {
            out.push_back(field::required(field::child(base, "type")));
        }
        bool trueOnly = type == "Approved" || type == "Denied" || type == "Failed";
        std::vector<std::string> allowed =
            trueOnly ? std::vector<std::string>{"True"}
                     : std::vector<std::string>{"False", "True", "Unknown"};
        if (status.empty()) {
            out.push_back(field::required(field::child(base, "status")));
        } else if (std::find(allowed.begin(), allowed.end(), status) == allowed.end()) {
            out.push_back(field::notSupported(field::child(base, "status"), status, allowed));
        }
        if (!o.allowBothApprovedAndDenied) {
            if (type == "Approved") {
                approved = true;
                if (denied) {
                    out.push_back(field::invalid(field::child(base, "type"), type,
                                                 "Approved and Denied conditions are mutually exclusive"));
                }
            } else if (type == "Denied") {
                denied = true;
                if (approved) {
                    out.push_back(field::invalid(field::child(base, "type"), type,
                                                 "Approved and Denied conditions are mutually exclusive"));
                }
            }
        }
        if (!o.allowDuplicateConditionTypes && !seen.insert(type).second) {
            out.push_back(field::duplicate(field::child(base, "type"), type));
        }
    }
}

// Mirrors validateCertificateSigningRequest (the metadata checks are the store's).
field::Causes validateWith(const json::Value& obj, const Options& o) {
    field::Causes out;
    std::string request = bytesField(obj, {"spec", "request"});
    if (std::string err = csrError(request); !err.empty()) {
        out.push_back(field::invalid("spec.request", goBytes(request), err));
    }
    const json::Value* usages = json::at(obj, {"spec", "usages"});
    if (!usages || !usages->IsArray() || usages->Empty()) {
        out.push_back(field::required("spec.usages"));
    } else {
        std::set<std::string_view> seen;
        for (size_t i = 0; i < usages->Size(); ++i) {
            const json::Value& u = (*usages)[static_cast<rapidjson::SizeType>(i)];
            std::string_view s = u.IsString() ? json::view(u) : "";
            if (!o.allowUnknownUsages && !isValidUsage(s)) {
                out.push_back(field::notSupported(field::index("spec.usages", i), s, validUsages()));
            }
            if (!o.allowDuplicateUsages && !seen.insert(s).second) {
                out.push_back(field::duplicate(field::index("spec.usages", i), s));
            }
        }
    }
    std::string_view signer = cells::text(obj, {"spec", "signerName"});
    if (!o.allowLegacySignerName && signer == kLegacySigner) {
        out.push_back(field::invalid("spec.signerName", signer,
                                     "the legacy signerName is not allowed via this API version"));
    } else {
        validateSignerName(signer, out);
    }
    if (const json::Value* e = json::at(obj, {"spec", "expirationSeconds"});
        e && e->IsInt64() && e->GetInt64() < 600) {
        out.push_back(field::invalid("spec.expirationSeconds", e->GetInt64(),
                                     "may not specify a duration less than 600 seconds (10 minutes)"));
    }
    validateConditions(obj, o, out);
    if (!o.allowArbitraryCertificate) {
        if (std::string err = certificateError(bytesField(obj, {"status", "certificate"}));
            !err.empty()) {
            out.push_back(field::invalid("status.certificate", "<certificate data>", err));
        }
    }
    return out;
}

field::Causes validateCreate(const json::Value& obj) {
    return validateWith(obj, optionsFor(obj, nullptr));
}

// Mirrors validateCertificateSigningRequestUpdate.
field::Causes validateUpdateWith(const json::Value& obj, const json::Value& old, Options o) {
    field::Causes out = validateWith(obj, o);
    for (std::string_view t : {"Approved", "Denied", "Failed"}) {
        if (findConditions(obj, t).size() < findConditions(old, t).size()) {
            out.push_back(field::forbidden("status.conditions",
                                           "updates may not remove a condition of type \"" +
                                               std::string(t) + "\""));
        }
    }
    if (!o.allowSettingApprovalConditions) {
        for (std::string_view t : {"Approved", "Denied"}) {
            auto now = findConditions(obj, t);
            auto before = findConditions(old, t);
            if (now.size() > before.size()) {
                out.push_back(field::forbidden("status.conditions",
                                               "updates may not add a condition of type \"" +
                                                   std::string(t) + "\""));
            } else if (now.size() == before.size()) {
                for (size_t i = 0; i < now.size(); ++i) {
                    if (*now[i] != *before[i]) {
                        out.push_back(field::forbidden(
                            "status.conditions",
                            "updates may not modify a condition of type \"" + std::string(t) + "\""));
                        break;
                    }
                }
            }
        }
    }
    std::string cert = bytesField(obj, {"status", "certificate"});
    std::string oldCert = bytesField(old, {"status", "certificate"});
    if (cert != oldCert) {
        if (!o.allowSettingCertificate) {
            out.push_back(
                field::forbidden("status.certificate", "updates may not set certificate content"));
        } else if (!oldCert.empty()) {
            out.push_back(field::forbidden("status.certificate",
                                           "updates may not modify existing certificate content"));
        }
    }
    return out;
}

// Removes member `name` of `obj`, keeping the others in their order.
void eraseMember(json::Value& obj, std::string_view name) {
    if (auto it = obj.FindMember(json::ref(name)); it != obj.MemberEnd()) {
        obj.EraseMember(it);
    }
}

// Member `name` of `obj` set to a copy of the same member of `old`, or removed.
void keepMember(json::Value& obj, const json::Value& old, std::string_view name,
                json::Allocator& a) {
    if (const json::Value* v = json::member(old, name)) {
        json::setMember(obj, name, json::Value(*v, a), a);
    } else {
        eraseMember(obj, name);
    }
}

json::Value& statusOf(json::Value& obj, json::Allocator& a) {
    json::Value* s = json::member(obj, "status");
    if (!s || !s->IsObject()) {
        json::setMember(obj, "status", json::Value(rapidjson::kObjectType), a);
        s = json::member(obj, "status");
    }
    return *s;
}

// The conditions of `obj` of `type` replaced by those of `old` (preserveConditionInstances).
void preserveConditions(json::Value& obj, const json::Value& old, std::string_view type,
                        json::Allocator& a) {
    json::Value& status = statusOf(obj, a);
    json::Value kept(rapidjson::kArrayType);
    if (json::Value* conds = json::member(status, "conditions"); conds && conds->IsArray()) {
        for (json::Value& c : conds->GetArray()) {
            if (!(c.IsObject() && json::stringMember(c, "type") == type)) {
                kept.PushBack(json::Value(c, a), a);
            }
        }
    }
    for (const json::Value* c : findConditions(old, type)) {
        kept.PushBack(json::Value(*c, a), a);
    }
    if (kept.Empty() && !json::member(status, "conditions")) {
        return;
    }
    json::setMember(status, "conditions", std::move(kept), a);
}

// Mirrors populateConditionTimestamps.
void populateConditionTimestamps(json::Value& obj, const json::Value& old,
                                 std::chrono::system_clock::time_point now, json::Allocator& a) {
    json::Value* conds = json::at(obj, {"status", "conditions"})
                             ? json::member(*json::member(obj, "status"), "conditions")
                             : nullptr;
    if (!conds || !conds->IsArray()) {
        return;
    }
    std::string stamp = util::time::formatRFC3339(now);
    for (json::Value& c : conds->GetArray()) {
        if (!c.IsObject()) {
            continue;
        }
        if (json::stringMember(c, "lastUpdateTime").empty()) {
            json::setMember(c, "lastUpdateTime", json::stringValue(stamp, a), a);
        }
        if (json::stringMember(c, "lastTransitionTime").empty()) {
            std::string transition = stamp;
            for (const json::Value* o : findConditions(old, json::stringMember(c, "type"))) {
                if (json::stringMember(*o, "status") == json::stringMember(c, "status") &&
                    !json::stringMember(*o, "lastTransitionTime").empty()) {
                    transition = std::string(json::stringMember(*o, "lastTransitionTime"));
                    break;
                }
            }
            json::setMember(c, "lastTransitionTime", json::stringValue(transition, a), a);
        }
    }
}

// SetDefaults_CertificateSigningRequestCondition: a condition's status is True.
void setDefaults(json::Value& obj, json::Allocator& a) {
    json::Value* status = json::member(obj, "status");
    json::Value* conds = status && status->IsObject() ? json::member(*status, "conditions") : nullptr;
    if (!conds || !conds->IsArray()) {
        return;
    }
    for (json::Value& c : conds->GetArray()) {
        if (c.IsObject() && json::stringMember(c, "status").empty()) {
            json::setMember(c, "status", json::stringValue("True", a), a);
        }
    }
}

// PrepareForCreate: no status yet, and who asks.
void prepareForCreate(json::Value& obj, json::Allocator& a) {
    json::setMember(obj, "status", json::Value(rapidjson::kObjectType), a);
    if (json::Value* spec = json::member(obj, "spec"); spec && spec->IsObject()) {
        for (std::string_view f : {"username", "uid", "groups", "extra"}) {
            eraseMember(*spec, f);
        }
    }
}

void recordRequester(json::Value& obj, const authn::UserInfo& user, json::Allocator& a) {
    json::Value* spec = json::member(obj, "spec");
    if (!spec || !spec->IsObject()) {
        return;
    }
    if (!user.name.empty()) {
        json::setMember(*spec, "username", json::stringValue(user.name, a), a);
    }
    if (!user.uid.empty()) {
        json::setMember(*spec, "uid", json::stringValue(user.uid, a), a);
    }
    if (!user.groups.empty()) {
        json::Value groups(rapidjson::kArrayType);
        for (const std::string& g : user.groups) {
            groups.PushBack(json::stringValue(g, a), a);
        }
        json::setMember(*spec, "groups", std::move(groups), a);
    }
    if (!user.extra.empty()) {
        json::Value extra(rapidjson::kObjectType);
        for (const auto& [k, values] : user.extra) {
            json::Value list(rapidjson::kArrayType);
            for (const std::string& v : values) {
                list.PushBack(json::stringValue(v, a), a);
            }
            extra.AddMember(json::stringValue(k, a), std::move(list), a);
        }
        json::setMember(*spec, "extra", std::move(extra), a);
    }
}

// Condition column: extractCSRStatus.
std::string condition(const json::Value& obj) {
    bool approved = !findConditions(obj, "Approved").empty();
    bool denied = !findConditions(obj, "Denied").empty();
    bool failed = !findConditions(obj, "Failed").empty();
    std::string s = denied ? "Denied" : approved ? "Approved" : "Pending";
    if (failed) {
        s += ",Failed";
    }
    if (!cells::text(obj, {"status", "certificate"}).empty()) {
        s += ",Issued";
    }
    return s;
}

std::string requestedDuration(const json::Value& obj) {
    const json::Value* e = json::at(obj, {"spec", "expirationSeconds"});
    if (!e || !e->IsInt64()) {
        return "<none>";
    }
    return util::time::humanDuration(std::chrono::seconds(e->GetInt64()));
}

registry::SubresourceInfo approvalSubresource() {
    registry::SubresourceInfo s{"approval", "", "", "", {"get", "patch", "update"}};
    // csrApprovalStrategy: only the conditions change.
    s.prepareForUpdate = [](json::Value& obj, const json::Value& old,
                            const registry::StatusUpdateContext& ctx, json::Allocator& a) {
        json::Value conditions(rapidjson::kArrayType);
        bool hadConditions = false;
        if (const json::Value* c = json::at(obj, {"status", "conditions"})) {
            conditions.CopyFrom(*c, a);
            hadConditions = true;
        }
        keepMember(obj, old, "status", a);
        json::Value& status = statusOf(obj, a);
        if (hadConditions) {
            json::setMember(status, "conditions", std::move(conditions), a);
        } else {
            eraseMember(status, "conditions");
        }
        populateConditionTimestamps(obj, old, ctx.now, a);
    };
    s.validateUpdate = [](const json::Value& obj, const json::Value& old) {
        Options o = optionsFor(obj, &old);
        o.allowSettingApprovalConditions = true;
        return validateUpdateWith(obj, old, o);
    };
    return s;
}

}  // namespace

registry::KindInfo certificateSigningRequestKind() {
    registry::KindInfo k;
    k.group = "certificates.k8s.io";
    k.version = "v1";
    k.kind = "CertificateSigningRequest";
    k.resource = "certificatesigningrequests";
    k.singular = "certificatesigningrequest";
    k.namespaced = false;
    k.shortNames = {"csr"};
    // ValidateCertificateRequestName: any name that is a path segment.
    k.nameRule = registry::NameRule::PathSegment;
    k.subresources = {approvalSubresource(), registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::ageColumn(),
        cells::textColumn("SignerName", "string", "Requested signer for the request.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "signerName"}));
                          }),
        cells::textColumn("Requestor", "string", "Base64-encoded PKCS#10 CSR data",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "username"}));
                          }),
        cells::textColumn("RequestedDuration", "string",
                          "The requested duration of validity of the issued certificate.",
                          [](const json::Value& obj, const TableContext&) {
                              return requestedDuration(obj);
                          }),
        cells::textColumn("Condition", "string",
                          "Conditions applied to the request, such as approval or denial.",
                          [](const json::Value& obj, const TableContext&) {
                              return condition(obj);
                          }),
    };
    k.selectableFields = {{"metadata.name"}, {"spec.signerName"}};
    k.defaults = setDefaults;
    k.prepareForCreate = prepareForCreate;
    k.prepareForCreateBy = recordRequester;
    // csrStrategy.PrepareForUpdate: the spec and status stay.
    k.prepareForUpdate = [](json::Value& obj, const json::Value& old, json::Allocator& a) {
        keepMember(obj, old, "spec", a);
        keepMember(obj, old, "status", a);
    };
    k.validate = validateCreate;
    k.validateUpdate = [](const json::Value& obj, const json::Value& old) {
        return validateUpdateWith(obj, old, optionsFor(obj, &old));
    };
    // csrStatusStrategy: the certificate and conditions other than approval.
    k.prepareForStatusUpdate = [](json::Value& obj, const json::Value& old,
                                  const registry::StatusUpdateContext& ctx, json::Allocator& a) {
        preserveConditions(obj, old, "Approved", a);
        preserveConditions(obj, old, "Denied", a);
        populateConditionTimestamps(obj, old, ctx.now, a);
    };
    k.validateStatusUpdate = [](const json::Value& obj, const json::Value& old) {
        Options o = optionsFor(obj, &old);
        o.allowSettingCertificate = true;
        return validateUpdateWith(obj, old, o);
    };
    return k;
}

}  // namespace kube::apis::certificates
