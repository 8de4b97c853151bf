#pragma once

#include <memory>
#include <string_view>

#include "apis/meta/status.hpp"
#include "endpoints/negotiation.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

namespace kube::endpoints {

// Decodes a create/update body into an object of `kind`; mirrors the decode
// step of handlers/create.go: JSON, YAML or protobuf, apiVersion/kind
// defaulted from the path when absent and rejected when they name something
// else, with kube-apiserver's BadRequest messages. The object returned always has a
// metadata object. nullptr with `error` set on failure.
std::shared_ptr<util::json::Document> decodeObject(std::string_view body, InputForm form,
                                                   const registry::KindInfo& kind,
                                                   meta::Status* error);

// kube's summarizeData: the body as text (cut at 30 bytes) for the message.
std::string summarizeBody(std::string_view body);

}  // namespace kube::endpoints
