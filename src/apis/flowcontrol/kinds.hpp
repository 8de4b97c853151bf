#pragma once

#include <string_view>

#include "registry/kind.hpp"

// The flowcontrol.apiserver.k8s.io kinds, served at v1 (stored) and v1beta3.
namespace kube::apis::flowcontrol {

registry::KindInfo flowSchemaKind(std::string_view version);
registry::KindInfo priorityLevelConfigurationKind(std::string_view version);

}  // namespace kube::apis::flowcontrol
