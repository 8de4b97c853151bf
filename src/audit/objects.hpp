#pragma once

#include <string>
#include <string_view>

#include "audit/event.hpp"
#include "util/json.hpp"

namespace kube::audit {

// Request and response bodies as an event records them (kube's
// LogRequestObject, LogRequestPatch, LogResponseObject). kube encodes the
// decoded object again as JSON; here the body itself is decoded (JSON, YAML
// or Kubernetes protobuf, by its content type or protobuf magic) and written
// compact, so a request object shows what the client sent.

// Decodes `body` into `doc`; false (doc null) when it is empty or is not
// one of those forms.
bool decodeBody(std::string_view contentType, std::string_view body, util::json::Document& doc);

// The compact JSON an event embeds for `obj`: with omitManagedFields,
// metadata.managedFields is left out of the object and of a list's items.
std::string eventObject(util::json::Value& obj, bool omitManagedFields);

// The responseStatus of an answer with HTTP status `code`: a Status body
// gives its status, message, reason and details as well.
ResponseStatus responseStatusOf(int code, const util::json::Value* body);

// mirrors LogRequestObject's use of the object's metadata: the namespace,
// name, uid and resourceVersion fill what `ref` does not have yet.
void fillObjectRef(ObjectReference& ref, const util::json::Value& obj);

}  // namespace kube::audit
