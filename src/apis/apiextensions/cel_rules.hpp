#pragma once

#include <memory>
#include <string>

#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// The x-kubernetes-validations rules of a CustomResourceDefinition version:
// compiled once when the CRD is validated or served, run on every write of
// its custom resources. Mirrors kube 1.26's apiextensions-apiserver
// schema/cel (Compile, Validator.Validate) and the CEL part of
// ValidateCustomResourceDefinitionOpenAPISchema (cost limits per rule and
// per CRD, transition rules).
namespace kube::apis::apiextensions {

// Every rule of one schema, each compiled against the type of the schema
// node it sits on (`self`, and `oldSelf` for transition rules). Immutable
// once built: share it between threads and requests.
class CelRules;

// Compiles every rule of `openAPIV3Schema` (a structural schema, already
// checked by validateSchema). Each problem is added to `errors` (when not
// null) at the rule's path below `schemaPath`
// ("spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"),
// in kube's order (a node's children before the node) and words:
// compilation failures, rules that are not bool, an estimated cost past
// kStaticEstimatedCostLimit (the rule's cost times how often its node can
// occur), oldSelf below a list that is not a map list, a
// messageExpression that does not compile, and at the end the per-CRD
// total past kStaticEstimatedCRDCostLimit. Rules that fail to compile are
// left out of the result. Any depth of schema: the walk runs on a stack
// sized for it.
std::shared_ptr<const CelRules> compileCelRules(const util::json::Value& openAPIV3Schema,
                                                const std::string& schemaPath,
                                                core::field::Causes* errors);

// Whether there is any rule to run.
bool hasCelRules(const CelRules& rules);

// Runs the rules on a custom resource (`obj`, the whole object). `old` is
// the stored object on update, null on create: transition rules run only
// where an old value corresponds (same property, same map key, same key of
// a map list). Each failing rule gives a cause at its node's path
// ("spec.replicas", "spec.ports[0]"), of type FieldValueInvalid with the
// node's schema type as value (or the rule's reason), and its message,
// messageExpression's result or "failed rule: <rule>". Evaluation errors
// and the limits are worded as kube words them: one evaluation stops at
// kPerCallLimit ("call cost exceeds limit for rule"), and once the rules of
// one object have spent kRuntimeCostBudget no further rule runs
// ("validation failed due to running out of cost budget, no further
// validation rules will be run").
core::field::Causes validateWithCelRules(const CelRules& rules, const util::json::Value& obj,
                                         const util::json::Value* old);

}  // namespace kube::apis::apiextensions
