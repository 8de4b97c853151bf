#pragma once

#include <string>
#include <string_view>

#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// What webhook configurations and admission policies share: their rules' checks, their match
// conditions' checks, and the compile check of their CEL expressions. Mirrors the helpers of
// kube's pkg/apis/admissionregistration/validation.
namespace kube::apis::admissionregistration {

namespace field = core::field;

// Go's %#v of a string list of the internal type `goType` ("[]admissionregistration.
// OperationType{"CREATE", "*"}"), the bad value kube shows for a list.
field::BadValue goTypedList(const util::json::Value* list, std::string_view goType);

// validateRuleWithOperations: operations, then the rule's groups, versions, resources (with
// subresources) and scope, all under `path` (the rule is inlined there).
void validateRuleWithOperations(const util::json::Value& rule, const std::string& path,
                                field::Causes& out);

// Which variables an admission expression may name.
struct ExpressionScope {
    bool params = false;     // the policy has a paramKind
    bool variables = false;  // the policy declares variables
    bool authorizer = true;  // not for messageExpression
};

// What an expression must give.
enum class ExpressionResult { Bool, String, StringOrNull };

// Compiles an admission CEL expression with object, oldObject, request, namespaceObject (dyn)
// and whatever `scope` adds; "" when it compiles, else kube's detail ("compilation failed:
// ERROR: <input>:1:3: ..."). The variables are dynamically typed here, where kube types object,
// request and namespaceObject: an expression kube refuses for naming an unknown member of
// request may pass. One that calls the authorizer is only parsed (its functions are not
// declared here).
std::string compileAdmissionExpression(std::string_view expression, const ExpressionScope& scope,
                                       ExpressionResult result);

// validateMatchConditions: at most 64, each with a qualified name (unique) and an expression
// that compiles.
void validateMatchConditions(const util::json::Value* conditions, const std::string& path,
                             bool params, field::Causes& out);

// IsFullyQualifiedName: a DNS-1123 subdomain of at least three segments.
void validateFullyQualifiedName(std::string_view name, const std::string& path, field::Causes& out);

}  // namespace kube::apis::admissionregistration
