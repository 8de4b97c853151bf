#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kube::openapi {

// The protobuf form of a /openapi/v2 JSON document made by buildV2: gnostic's
// OpenAPIv2 Document (src/apis/proto/kapi/openapi_v2.proto), as kube-openapi's
// ToProtoBinary makes it from the JSON. Extensions and defaults go in as
// their JSON text, which is YAML too. nullopt when `json` does not parse.
std::optional<std::string> v2Protobuf(std::string_view json);

}  // namespace kube::openapi
