#pragma once

#include <string>
#include <string_view>

#include "apis/core/field_errors.hpp"

namespace kube::apis::storage {

// Mirrors core validation's ValidateCSIDriverName, for the places that name
// a driver (a VolumeAttachment's attacher, a CSINode's drivers): required, at
// most 63 characters, and a DNS subdomain once lowercased.
void validateCSIDriverName(std::string_view name, const std::string& path,
                           core::field::Causes& out);

}  // namespace kube::apis::storage
