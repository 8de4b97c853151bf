#pragma once

#include <string>

namespace kube::server {

// The Kubernetes API level this server implements, as /version reports it.
inline constexpr const char* kKubeMajor = "1";
inline constexpr const char* kKubeMinor = "32";
inline constexpr const char* kGitVersion = "v1.32.0+nginx-kube-apiserver.0.1.0";

// The /version document (version.Info), indented as kube-apiserver sends it.
std::string versionDocument();

}  // namespace kube::server
