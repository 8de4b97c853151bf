#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "audit/policy.hpp"
#include "authn/user.hpp"
#include "authz/authorizer.hpp"

namespace kube::audit {

using Clock = std::chrono::system_clock;
using MicroTime = std::chrono::time_point<Clock, std::chrono::microseconds>;

// The response's header and headers are out: kube's WithAuditInit header.
inline constexpr const char* kAuditIdHeader = "Audit-Id";

// Annotations the authorization filter adds (kube's decisionAnnotationKey,
// reasonAnnotationKey) and their decision values.
inline constexpr const char* kDecisionAnnotation = "authorization.k8s.io/decision";
inline constexpr const char* kReasonAnnotation = "authorization.k8s.io/reason";
inline constexpr const char* kDecisionAllow = "allow";
inline constexpr const char* kDecisionForbid = "forbid";

// mirrors audit.ObjectReference
struct ObjectReference {
    std::string resource;
    std::string namespace_;
    std::string name;
    std::string uid;
    std::string apiGroup;
    std::string apiVersion;
    std::string resourceVersion;
    std::string subresource;
};

// What the event says of the response; mirrors the metav1.Status kube keeps
// in Event.responseStatus. `fields` are the members of an error (or other)
// Status answer after its metadata (`"status":"Failure","message":...`),
// compact JSON, empty for any other answer.
struct ResponseStatus {
    int code = 0;
    std::string fields;
};

// One audit event; mirrors audit.k8s.io/v1 Event. The request and response
// objects are compact JSON text, written as they are.
struct Event {
    Level level = Level::None;
    std::string auditID;
    Stage stage = Stage::RequestReceived;
    std::string requestURI;
    std::string verb;
    authn::UserInfo user;
    // Set by impersonation (kube's LogImpersonatedUser): the user the
    // request acts as, while `user` stays the one who authenticated.
    std::optional<authn::UserInfo> impersonatedUser;
    std::vector<std::string> sourceIPs;
    std::string userAgent;
    std::optional<ObjectReference> objectRef;
    std::optional<ResponseStatus> responseStatus;
    std::optional<std::string> requestObject;
    std::optional<std::string> responseObject;
    MicroTime requestReceivedTimestamp;
    MicroTime stageTimestamp;
    std::map<std::string, std::string> annotations;
};

// What newEventFromRequest reads of the request beside its attributes.
struct RequestFacts {
    std::string_view auditID;
    std::string_view requestURI;  // path and query, as the client sent them
    std::string_view userAgent;
    std::vector<std::string> sourceIPs;
    MicroTime received;
};

// A new event at `level` for a request; mirrors audit.NewEventFromRequest +
// LogRequestMetadata: the user, the verb and, for a resource request, the
// object reference. The user agent is cut at 1,024 bytes ("...TRUNCATED").
Event newEventFromRequest(const RequestFacts& facts, Level level, const authz::Attributes& attrs);

// The event as one line of kube's JSON-lines log (audit.k8s.io/v1, with the
// trailing newline): members in kube's order, empty ones omitted, strings
// escaped as Go's encoding/json escapes them (<, > and & included), times
// as RFC 3339 with six fractional digits.
std::string serialize(const Event& ev);

// kube's MicroTime wire form: "2026-11-25T23:10:03.962149Z".
std::string formatMicroTime(MicroTime t);

// Compact JSON with <, >, &, U+2028 and U+2029 escaped inside strings, as Go
// re-encodes an embedded json.RawMessage.
std::string escapeRawJson(std::string_view json);

// The request's source addresses; mirrors utilnet.SourceIPs: the valid
// X-Forwarded-For entries, X-Real-Ip when not already among them, then the
// peer's address unless it repeats the last one. Addresses are printed in
// their canonical form.
std::vector<std::string> sourceIPs(std::string_view forwardedFor, std::string_view realIp,
                                   std::string_view remoteAddr);

}  // namespace kube::audit
