#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"
#include "util/query.hpp"

// What kube-apiserver's typed JSON decoding does to a request body, done on
// our JSON form with the schema of src/apis/proto: fields the kind does not
// have and keys written twice are found (and reported as fieldValidation
// asks), and a value of the wrong JSON type is refused with Go's message.
namespace kube::endpoints {

// The fieldValidation directive of a create or update; mirrors
// metav1.FieldValidation{Ignore,Warn,Strict}.
enum class FieldValidation { Ignore, Warn, Strict };

// Reads `fieldValidation`: absent or empty → Warn (kube's default when the
// client sends nothing); any other unknown value → 422 naming `optionsKind`
// (CreateOptions, UpdateOptions), as ValidateFieldValidation reports it.
std::optional<FieldValidation> parseFieldValidation(const util::Query& q,
                                                    std::string_view optionsKind,
                                                    meta::Status* error);

struct SchemaCheck {
    // Whether the kind has a schema at all; without one nothing was checked.
    bool checked = false;
    // In document order: `unknown field "spec.foo"`, `duplicate field
    // "metadata.name"` (paths with [i] for list items, as sigs.k8s.io/json
    // writes them).
    std::vector<std::string> strictErrors;
    // The first value Go could not decode into its field: `json: cannot
    // unmarshal string into Go struct field DeploymentSpec.spec.replicas of
    // type int32`. It fails the request whatever the directive.
    std::optional<std::string> typeError;
};

// Walks `obj` (a whole object of apiVersion/kind) against its schema and
// leaves it as Go's decoding would: unknown fields removed, only the last of
// duplicated keys kept, times in their canonical UTC form and numeric
// quantities as strings.
SchemaCheck checkAgainstSchema(util::json::Value& obj, util::json::Allocator& a,
                               std::string_view apiVersion, std::string_view kind);

// The same for an object of `kind`: a custom resource is checked with its
// structural schema (KindInfo::decodeCustom), its unknown fields removed and
// reported as `unknown field "spec.foo"`; others as above.
SchemaCheck checkAgainstSchema(util::json::Value& obj, util::json::Allocator& a,
                               const registry::KindInfo& kind);

}  // namespace kube::endpoints
