#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kube::endpoints {

// What a request is about; mirrors k8s.io/apiserver/pkg/endpoints/request.RequestInfo.
// Computed once per request and shared by every filter and the handler.
struct RequestInfo {
    // True for /api and /apis paths that name a resource (or a collection).
    bool isResourceRequest = false;
    // The URL path, unescaped.
    std::string path;
    // Resource requests: get, list, watch, create, update, patch, delete,
    // deletecollection (and proxy/connect forms). Non-resource requests: the
    // lowercased HTTP method.
    std::string verb;

    std::string apiPrefix;   // "api" or "apis"
    std::string apiGroup;    // "" for the core group
    std::string apiVersion;  // "v1"
    std::string namespace_;
    std::string resource;     // "configmaps"
    std::string subresource;  // "status", "scale", ...
    std::string name;
    // The path segments after the namespace/resource prefix was consumed.
    std::vector<std::string> parts;
};

// Mirrors request.RequestInfoFactory with kube-apiserver's settings:
// APIPrefixes {"api", "apis"}, GrouplessAPIPrefixes {"api"}.
//
// `query` is the raw query string (without '?'); the resolver reads `watch`
// and `fieldSelector` from it exactly as kube-apiserver does.
RequestInfo resolveRequestInfo(std::string_view method, std::string_view path,
                               std::string_view query);

}  // namespace kube::endpoints
