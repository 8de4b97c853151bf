#include "authn/impersonation.hpp"

#include <algorithm>

namespace kube::authn {

namespace {

constexpr std::string_view kUserHeader = "Impersonate-User";
constexpr std::string_view kGroupHeader = "Impersonate-Group";
constexpr std::string_view kUidHeader = "Impersonate-Uid";
constexpr std::string_view kExtraPrefix = "Impersonate-Extra-";
constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
constexpr std::string_view kAuthenticationGroup = "authentication.k8s.io";

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// serviceaccount.SplitUsername: "system:serviceaccount:<ns>:<name>", both
// parts non-empty and without further colons.
bool splitServiceAccount(std::string_view user, std::string* ns, std::string* name) {
    if (!startsWith(user, kServiceAccountPrefix)) {
        return false;
    }
    std::string_view rest = user.substr(kServiceAccountPrefix.size());
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size() ||
        rest.find(':', colon + 1) != std::string_view::npos) {
        return false;
    }
    *ns = std::string(rest.substr(0, colon));
    *name = std::string(rest.substr(colon + 1));
    return true;
}

// Go's %v of the ObjectReference kube builds for a request: its seven string
// fields (Kind Namespace Name UID APIVersion ResourceVersion FieldPath).
std::string describe(const ImpersonationRequest& r) {
    std::string kind, apiVersion, fieldPath;
    switch (r.kind) {
        case ImpersonationRequest::Kind::User:
            kind = "User";
            break;
        case ImpersonationRequest::Kind::ServiceAccount:
            kind = "ServiceAccount";
            break;
        case ImpersonationRequest::Kind::Group:
            kind = "Group";
            break;
        case ImpersonationRequest::Kind::UserExtra:
            kind = "UserExtra";
            apiVersion = "authentication.k8s.io/v1";
            fieldPath = r.extraKey;
            break;
        case ImpersonationRequest::Kind::Uid:
            kind = "UID";
            apiVersion = "authentication.k8s.io/v1";
            break;
    }
    return "{" + kind + " " + r.namespace_ + " " + r.name + "  " + apiVersion + "  " + fieldPath +
           "}";
}

}  // namespace

bool isImpersonationHeader(std::string_view name) {
    return headerNameEquals(name, kUserHeader) || headerNameEquals(name, kGroupHeader) ||
           headerNameEquals(name, kUidHeader) || headerNameHasPrefix(name, kExtraPrefix);
}

ImpersonationParse parseImpersonation(const std::vector<Header>& headers) {
    ImpersonationParse out;
    // Go's Header.Get: the first value; an empty one is no user.
    for (const auto& [name, value] : headers) {
        if (headerNameEquals(name, kUserHeader)) {
            if (!value.empty()) {
                ImpersonationRequest r;
                if (splitServiceAccount(value, &r.namespace_, &r.name)) {
                    r.kind = ImpersonationRequest::Kind::ServiceAccount;
                } else {
                    r.kind = ImpersonationRequest::Kind::User;
                    r.name = std::string(value);
                }
                out.requests.push_back(std::move(r));
            }
            break;
        }
    }
    bool hasUser = !out.requests.empty();
    bool others = false;
    for (const auto& [name, value] : headers) {
        if (headerNameEquals(name, kGroupHeader)) {
            others = true;
            out.requests.push_back({ImpersonationRequest::Kind::Group, "", std::string(value), ""});
        }
    }
    for (const auto& [name, value] : headers) {
        if (headerNameHasPrefix(name, kExtraPrefix)) {
            others = true;
            out.requests.push_back({ImpersonationRequest::Kind::UserExtra, "", std::string(value),
                                    extraKeyOf(name.substr(kExtraPrefix.size()))});
        }
    }
    for (const auto& [name, value] : headers) {
        if (headerNameEquals(name, kUidHeader)) {
            if (!value.empty()) {
                others = true;
                out.requests.push_back(
                    {ImpersonationRequest::Kind::Uid, "", std::string(value), ""});
            }
            break;
        }
    }
    if (others && !hasUser) {
        std::string list;
        for (const ImpersonationRequest& r : out.requests) {
            list += (list.empty() ? "" : " ") + describe(r);
        }
        out.error = "requested [" + list + "] without impersonating a user";
        out.requests.clear();
    }
    return out;
}

authz::Attributes impersonationAttributes(const UserInfo& requestor,
                                          const ImpersonationRequest& request) {
    authz::Attributes attrs;
    attrs.user = requestor;
    attrs.verb = "impersonate";
    attrs.isResourceRequest = true;
    attrs.name = request.name;
    switch (request.kind) {
        case ImpersonationRequest::Kind::User:
            attrs.resource = "users";
            break;
        case ImpersonationRequest::Kind::ServiceAccount:
            attrs.resource = "serviceaccounts";
            attrs.namespace_ = request.namespace_;
            break;
        case ImpersonationRequest::Kind::Group:
            attrs.resource = "groups";
            break;
        case ImpersonationRequest::Kind::UserExtra:
            attrs.apiGroup = kAuthenticationGroup;
            attrs.resource = "userextras";
            attrs.subresource = request.extraKey;
            break;
        case ImpersonationRequest::Kind::Uid:
            attrs.apiGroup = kAuthenticationGroup;
            attrs.resource = "uids";
            break;
    }
    return attrs;
}

UserInfo impersonatedUser(const std::vector<ImpersonationRequest>& requests) {
    UserInfo user;
    bool groupsSpecified = std::any_of(requests.begin(), requests.end(), [](const auto& r) {
        return r.kind == ImpersonationRequest::Kind::Group;
    });
    for (const ImpersonationRequest& r : requests) {
        switch (r.kind) {
            case ImpersonationRequest::Kind::ServiceAccount:
                user.name = std::string(kServiceAccountPrefix) + r.namespace_ + ":" + r.name;
                if (!groupsSpecified) {
                    user.groups = {"system:serviceaccounts",
                                   "system:serviceaccounts:" + r.namespace_};
                }
                break;
            case ImpersonationRequest::Kind::User:
                user.name = r.name;
                break;
            case ImpersonationRequest::Kind::Group:
                user.groups.push_back(r.name);
                break;
            case ImpersonationRequest::Kind::UserExtra:
                user.extra[r.extraKey].push_back(r.name);
                break;
            case ImpersonationRequest::Kind::Uid:
                user.uid = r.name;
                break;
        }
    }
    auto has = [&](std::string_view g) {
        return std::find(user.groups.begin(), user.groups.end(), g) != user.groups.end();
    };
    if (user.name != kAnonymousUser) {
        if (!has(kAllAuthenticated) && !has(kAllUnauthenticated)) {
            user.groups.emplace_back(kAllAuthenticated);
        }
    } else if (!has(kAllUnauthenticated)) {
        user.groups.emplace_back(kAllUnauthenticated);
    }
    return user;
}

}  // namespace kube::authn
