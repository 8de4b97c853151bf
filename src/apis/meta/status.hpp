#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kube::meta {

// A group and resource, as in errors' "configmaps" or "deployments.apps".
struct GroupResource {
    std::string group;
    std::string resource;

    // "configmaps", or "deployments.apps" when the group is set.
    std::string toString() const { return group.empty() ? resource : resource + "." + group; }
};

struct GroupKind {
    std::string group;
    std::string kind;

    std::string toString() const { return group.empty() ? kind : kind + "." + group; }
};

// One field error; mirrors metav1.StatusCause.
struct StatusCause {
    std::string reason;  // FieldValueInvalid, FieldValueRequired, ...
    std::string message;
    std::string field;
};

// Mirrors metav1.StatusDetails.
struct StatusDetails {
    std::string name;
    std::string group;
    std::string kind;
    std::string uid;
    std::vector<StatusCause> causes;
    int retryAfterSeconds = 0;
};

// A request outcome as kube-apiserver reports it: the metav1.Status object
// plus its HTTP code. Built by the named constructors below, which mirror
// k8s.io/apimachinery/pkg/api/errors; returned as a value, never thrown.
class Status {
  public:
    int code = 500;
    bool success = false;
    std::string reason;
    std::string message;
    // Absent details are left out of the JSON; present-but-empty ones are "{}".
    std::optional<StatusDetails> details;

    static Status successful(StatusDetails details);

    static Status notFound(const GroupResource& gr, std::string_view name);
    static Status alreadyExists(const GroupResource& gr, std::string_view name);
    static Status conflict(const GroupResource& gr, std::string_view name, std::string_view err);
    // The stale-resourceVersion conflict of an update.
    static Status optimisticLockConflict(const GroupResource& gr, std::string_view name);
    static Status invalid(const GroupKind& gk, std::string_view name,
                          std::vector<StatusCause> causes);
    static Status badRequest(std::string message);
    static Status forbidden(const GroupResource& gr, std::string_view name, std::string_view err);
    static Status unauthorized(std::string message = "Unauthorized");
    static Status methodNotSupported();
    static Status notAcceptable(std::string message);
    static Status unsupportedMediaType(std::string message);
    static Status requestEntityTooLarge(std::string message);
    static Status internalError(std::string_view err);
    static Status expired(std::string message);
    static Status tooManyRequests(std::string message, int retryAfterSeconds);
    static Status serviceUnavailable(std::string message);
    static Status timeout(std::string message);
    // The plain "the server could not find the requested resource".
    static Status notFoundGeneric();

    // The Status object as JSON (compact, or indented for pretty=true).
    std::string toJson(bool pretty = false) const;
};

}  // namespace kube::meta
