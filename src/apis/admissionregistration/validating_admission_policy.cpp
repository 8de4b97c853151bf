#include <cctype>
#include <set>
#include <string>
#include <string_view>

#include "apis/admissionregistration/kinds.hpp"
#include "apis/admissionregistration/rules.hpp"
#include "apis/core/defaulting.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::admissionregistration {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace json = util::json;
using registry::TableContext;

constexpr size_t kMaxAuditAnnotations = 20;
constexpr size_t kMaxAuditValueExpressionBytes = 5 * 1024;

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
        s.remove_prefix(1);
    }
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
        s.remove_suffix(1);
    }
    return s;
}

std::string joined(const std::vector<std::string>& errs) {
    std::string out;
    for (const std::string& e : errs) {
        out += (out.empty() ? "" : ",") + e;
    }
    return out;
}

// SetDefaults_MatchResources.
void defaultMatchResources(json::Value& match, json::Allocator& a) {
    defaulting::setString(match, "matchPolicy", "Equivalent", a);
    defaulting::setDefault(match, "namespaceSelector", json::Value(rapidjson::kObjectType), a);
    defaulting::setDefault(match, "objectSelector", json::Value(rapidjson::kObjectType), a);
    for (const char* list : {"resourceRules", "excludeResourceRules"}) {
        defaulting::forEachElement(
            match, list, [&](json::Value& rule) { defaulting::setString(rule, "scope", "*", a); });
    }
}

// SetDefaults_ValidatingAdmissionPolicySpec and the match resources' defaults.
void defaultPolicy(json::Value& obj, json::Allocator& a) {
    json::Value* spec = json::member(obj, "spec");
    if (!spec || !spec->IsObject()) {
        return;
    }
    defaulting::setString(*spec, "failurePolicy", "Fail", a);
    json::Value* match = json::member(*spec, "matchConstraints");
    if (match && match->IsObject()) {
        defaultMatchResources(*match, a);
    }
}

// SetDefaults_ParamRef and the match resources' defaults.
void defaultBinding(json::Value& obj, json::Allocator& a) {
    json::Value* spec = json::member(obj, "spec");
    if (!spec || !spec->IsObject()) {
        return;
    }
    json::Value* match = json::member(*spec, "matchResources");
    if (match && match->IsObject()) {
        defaultMatchResources(*match, a);
    }
    json::Value* ref = json::member(*spec, "paramRef");
    if (ref && ref->IsObject()) {
        defaulting::setString(*ref, "parameterNotFoundAction", "Deny", a);
    }
}

// validateParamKind.
void validateParamKind(const json::Value& kind, const std::string& path, field::Causes& out) {
    std::string_view apiVersion = cells::text(kind, {"apiVersion"});
    std::string avPath = field::child(path, "apiVersion");
    if (apiVersion.empty()) {
        out.push_back(field::required(avPath));
    } else if (std::count(apiVersion.begin(), apiVersion.end(), '/') > 1) {
        out.push_back(field::invalid(avPath, apiVersion,
                                     "unexpected GroupVersion string: " + std::string(apiVersion)));
    } else if (apiVersion != "/") {
        size_t slash = apiVersion.find('/');
        std::string_view group = slash == std::string_view::npos ? "" : apiVersion.substr(0, slash);
        std::string_view version =
            slash == std::string_view::npos ? apiVersion : apiVersion.substr(slash + 1);
        if (!group.empty()) {
            if (auto errs = registry::validation::isDNS1123Subdomain(group); !errs.empty()) {
                out.push_back(field::invalid(avPath, group, joined(errs)));
            }
        }
        if (version.empty()) {
            out.push_back(field::invalid(avPath, apiVersion, "version must be specified"));
        } else if (auto errs = registry::validation::isDNS1035Label(version); !errs.empty()) {
            out.push_back(field::invalid(avPath, version, joined(errs)));
        }
    }
    std::string_view kindName = cells::text(kind, {"kind"});
    std::string kindPath = field::child(path, "kind");
    if (kindName.empty()) {
        out.push_back(field::required(kindPath));
    } else {
        std::string lower(kindName);
        for (char& c : lower) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        if (auto errs = registry::validation::isDNS1035Label(lower); !errs.empty()) {
            out.push_back(
                field::invalid(kindPath, kindName,
                               "may have mixed case, but should otherwise match: " + joined(errs)));
        }
    }
}

// validateNamedRuleWithOperations.
void validateNamedRule(const json::Value& rule, const std::string& path, field::Causes& out) {
    const json::Value* names = json::member(rule, "resourceNames");
    if (names && names->IsArray()) {
        std::set<std::string_view> seen;
        std::string namesPath = field::child(path, "resourceNames");
        for (size_t i = 0; i < names->Size(); i++) {
            const json::Value& n = (*names)[static_cast<rapidjson::SizeType>(i)];
            std::string_view name = n.IsString() ? json::view(n) : std::string_view();
            for (const std::string& msg : registry::validation::isValidPathSegmentName(name)) {
                out.push_back(field::invalid(field::index(namesPath, i), name, msg));
            }
            if (!seen.insert(name).second) {
                out.push_back(field::duplicate(field::index(namesPath, i), name));
            }
        }
    }
    validateRuleWithOperations(rule, path, out);
}

// validateMatchResources.
void validateMatchResources(const json::Value& match, const std::string& path, field::Causes& out) {
    const json::Value* policy = json::member(match, "matchPolicy");
    if (!policy || policy->IsNull()) {
        out.push_back(field::required(field::child(path, "matchPolicy")));
    } else {
        field::validateEnum(policy, field::child(path, "matchPolicy"), {"Equivalent", "Exact"},
                            out);
    }
    for (const char* selector : {"namespaceSelector", "objectSelector"}) {
        const json::Value* s = json::member(match, selector);
        if (!s || s->IsNull()) {
            out.push_back(field::required(field::child(path, selector)));
        } else {
            field::validateLabelSelector(s, field::child(path, selector), false, out);
        }
    }
    for (const char* list : {"resourceRules", "excludeResourceRules"}) {
        const json::Value* rules = json::member(match, list);
        if (!rules || !rules->IsArray()) {
            continue;
        }
        for (size_t i = 0; i < rules->Size(); i++) {
            validateNamedRule((*rules)[static_cast<rapidjson::SizeType>(i)],
                              field::index(field::child(path, list), i), out);
        }
    }
}

// A CEL expression of the policy: refused with kube's Invalid when it does not compile.
void compileInto(std::string_view expression, const ExpressionScope& scope, ExpressionResult result,
                 const std::string& path, field::Causes& out) {
    std::string why = compileAdmissionExpression(expression, scope, result);
    if (!why.empty()) {
        out.push_back(field::invalid(path, expression, why));
    }
}

bool isCelIdentifier(std::string_view name) {
    static const std::set<std::string_view> reserved = {
        "true",     "false",   "null",      "in",       "as",  "break",  "const",
        "continue", "else",    "for",       "function", "if",  "import", "let",
        "loop",     "package", "namespace", "return",   "var", "void",   "while"};
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
        return false;
    }
    for (char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
            return false;
        }
    }
    return !reserved.count(name);
}

// validateValidation.
void validateValidation(const json::Value& v, const ExpressionScope& scope, const std::string& path,
                        field::Causes& out) {
    std::string_view expression = cells::text(v, {"expression"});
    std::string_view message = cells::text(v, {"message"});
    std::string_view messageExpression = cells::text(v, {"messageExpression"});
    if (trimmed(expression).empty()) {
        out.push_back(
            field::required(field::child(path, "expression"), "expression is not specified"));
    } else {
        compileInto(expression, scope, ExpressionResult::Bool, field::child(path, "expression"),
                    out);
    }
    if (!messageExpression.empty() && trimmed(messageExpression).empty()) {
        out.push_back(field::invalid(field::child(path, "messageExpression"), messageExpression,
                                     "must be non-empty if specified"));
    } else if (!messageExpression.empty()) {
        ExpressionScope messageScope = scope;
        messageScope.authorizer = false;
        compileInto(messageExpression, messageScope, ExpressionResult::String,
                    field::child(path, "messageExpression"), out);
    }
    if (!message.empty() && trimmed(message).empty()) {
        out.push_back(field::invalid(field::child(path, "message"), message,
                                     "message must be non-empty if specified"));
    } else if (trimmed(message).find_first_of("\r\n") != std::string_view::npos) {
        out.push_back(field::invalid(field::child(path, "message"), message,
                                     "message must not contain line breaks"));
    }
    field::validateEnum(json::member(v, "reason"), field::child(path, "reason"),
                        {"Forbidden", "Invalid", "RequestEntityTooLarge"}, out);
}

// validateAuditAnnotation.
void validateAuditAnnotation(const json::Value& obj, const json::Value& ann,
                             const ExpressionScope& scope, const std::string& path,
                             field::Causes& out) {
    std::string_view name = cells::text(obj, {"metadata", "name"});
    std::string_view key = cells::text(ann, {"key"});
    std::string keyPath = field::child(path, "key");
    if (!name.empty()) {
        std::string qualified = std::string(name) + "/" + std::string(key);
        for (const std::string& msg : registry::validation::isQualifiedName(qualified)) {
            out.push_back(field::invalid(keyPath, qualified, msg));
        }
    } else {
        out.push_back(field::invalid(keyPath, key, "requires metadata.name be non-empty"));
    }
    std::string_view value = trimmed(cells::text(ann, {"valueExpression"}));
    std::string valuePath = field::child(path, "valueExpression");
    if (value.empty()) {
        out.push_back(field::required(valuePath, "valueExpression is not specified"));
    } else if (value.size() > kMaxAuditValueExpressionBytes) {
        out.push_back(field::required(valuePath, "must not exceed 5120 bytes in length"));
    } else {
        std::string why = compileAdmissionExpression(value, scope, ExpressionResult::StringOrNull);
        if (!why.empty()) {
            out.push_back(field::invalid(valuePath, cells::text(ann, {"valueExpression"}), why));
        }
    }
}

// validateValidatingAdmissionPolicySpec (the metadata checks are the store's). Match conditions
// are checked again on update only when they or paramKind changed.
field::Causes validatePolicy(const json::Value& obj, bool checkMatchConditions) {
    field::Causes out;
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value* specValue = json::member(obj, "spec");
    const json::Value& spec = specValue && specValue->IsObject() ? *specValue : kEmpty;
    const json::Value* failurePolicy = json::member(spec, "failurePolicy");
    if (!failurePolicy || failurePolicy->IsNull()) {
        out.push_back(field::required("spec.failurePolicy"));
    } else {
        field::validateEnum(failurePolicy, "spec.failurePolicy", {"Fail", "Ignore"}, out);
    }
    const json::Value* paramKind = json::member(spec, "paramKind");
    bool params = paramKind && paramKind->IsObject();
    if (params) {
        validateParamKind(*paramKind, "spec.paramKind", out);
    }
    const json::Value* match = json::member(spec, "matchConstraints");
    if (!match || !match->IsObject()) {
        out.push_back(field::required("spec.matchConstraints"));
    } else {
        validateMatchResources(*match, "spec.matchConstraints", out);
        const json::Value* rules = json::member(*match, "resourceRules");
        if (!rules || !rules->IsArray() || rules->Empty()) {
            out.push_back(field::required("spec.matchConstraints.resourceRules"));
        }
    }
    if (checkMatchConditions) {
        validateMatchConditions(json::member(spec, "matchConditions"), "spec.matchConditions",
                                params, out);
    }
    ExpressionScope scope;
    scope.params = params;
    const json::Value* variables = json::member(spec, "variables");
    scope.variables = variables && variables->IsArray() && !variables->Empty();
    if (scope.variables) {
        for (size_t i = 0; i < variables->Size(); i++) {
            const json::Value& v = (*variables)[static_cast<rapidjson::SizeType>(i)];
            std::string path = field::index("spec.variables", i);
            std::string_view name = cells::text(v, {"name"});
            if (trimmed(name).empty()) {
                out.push_back(field::required(field::child(path, "name"), "name is not specified"));
            } else if (!isCelIdentifier(name)) {
                out.push_back(field::invalid(field::child(path, "name"), name,
                                             "name is not a valid CEL identifier"));
            }
            std::string_view expression = cells::text(v, {"expression"});
            if (trimmed(expression).empty()) {
                out.push_back(field::required(field::child(path, "expression"),
                                              "expression is not specified"));
            } else {
                std::string why =
                    compileAdmissionExpression(expression, scope, ExpressionResult::StringOrNull);
                // A variable may give any type: only compile errors count.
                if (why.rfind("compilation failed", 0) == 0) {
                    out.push_back(
                        field::invalid(field::child(path, "expression"), expression, why));
                }
            }
        }
    }
    const json::Value* validations = json::member(spec, "validations");
    const json::Value* annotations = json::member(spec, "auditAnnotations");
    bool hasValidations = validations && validations->IsArray() && !validations->Empty();
    bool hasAnnotations = annotations && annotations->IsArray() && !annotations->Empty();
    if (!hasValidations && !hasAnnotations) {
        const char* why = "validations or auditAnnotations must contain at least one item";
        out.push_back(field::required("spec.validations", why));
        out.push_back(field::required("spec.auditAnnotations", why));
        return out;
    }
    if (hasValidations) {
        for (size_t i = 0; i < validations->Size(); i++) {
            validateValidation((*validations)[static_cast<rapidjson::SizeType>(i)], scope,
                               field::index("spec.validations", i), out);
        }
    }
    if (annotations && annotations->IsArray()) {
        if (annotations->Size() > kMaxAuditAnnotations) {
            out.push_back(field::invalid("spec.auditAnnotations", *annotations,
                                         "must not have more than 20 auditAnnotations"));
        }
        std::set<std::string_view> keys;
        for (size_t i = 0; i < annotations->Size(); i++) {
            const json::Value& ann = (*annotations)[static_cast<rapidjson::SizeType>(i)];
            std::string path = field::index("spec.auditAnnotations", i);
            validateAuditAnnotation(obj, ann, scope, path, out);
            std::string_view key = cells::text(ann, {"key"});
            if (!keys.insert(key).second) {
                out.push_back(field::duplicate(field::child(path, "key"), key));
            }
        }
    }
    return out;
}

// ignoreValidatingAdmissionPolicyMatchConditions: neither paramKind nor matchConditions changed.
bool matchConditionsUnchanged(const json::Value& obj, const json::Value& old) {
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value* spec = json::member(obj, "spec");
    const json::Value* oldSpec = json::member(old, "spec");
    const json::Value& a = spec && spec->IsObject() ? *spec : kEmpty;
    const json::Value& b = oldSpec && oldSpec->IsObject() ? *oldSpec : kEmpty;
    return core::field::sameMember(a, b, "paramKind") &&
           core::field::sameMember(a, b, "matchConditions");
}

// validateParamRef.
void validateParamRef(const json::Value& ref, field::Causes& out) {
    std::string_view name = cells::text(ref, {"name"});
    const json::Value* selector = json::member(ref, "selector");
    bool hasSelector = selector && selector->IsObject();
    if (!name.empty()) {
        for (const std::string& msg : registry::validation::isValidPathSegmentName(name)) {
            out.push_back(field::invalid("spec.paramRef.name", name, msg));
        }
        if (hasSelector) {
            out.push_back(
                field::forbidden("spec.paramRef.name", "name and selector are mutually exclusive"));
        }
    }
    if (hasSelector) {
        field::validateLabelSelector(selector, "spec.paramRef.selector", false, out);
        if (!name.empty()) {
            out.push_back(field::forbidden("spec.paramRef.selector",
                                           "name and selector are mutually exclusive"));
        }
    }
    if (name.empty() && !hasSelector) {
        out.push_back(
            field::required("spec.paramRef", "one of name or selector must be specified"));
    }
    std::string_view action = cells::text(ref, {"parameterNotFoundAction"});
    if (action.empty()) {
        out.push_back(field::required("spec.paramRef.parameterNotFoundAction"));
    } else if (action != "Deny" && action != "Allow") {
        out.push_back(field::notSupported("spec.paramRef.parameterNotFoundAction",
                                          field::BadValue::raw("&\"" + std::string(action) + "\""),
                                          {"Deny", "Allow"}));
    }
}

// validateValidationActions.
void validateValidationActions(const json::Value* list, field::Causes& out) {
    const char* path = "spec.validationActions";
    std::set<std::string_view> actions;
    if (list && list->IsArray()) {
        for (size_t i = 0; i < list->Size(); i++) {
            const json::Value& a = (*list)[static_cast<rapidjson::SizeType>(i)];
            std::string_view action = a.IsString() ? json::view(a) : std::string_view();
            if (action != "Deny" && action != "Warn" && action != "Audit") {
                out.push_back(
                    field::notSupported(field::index(path, i), action, {"Audit", "Deny", "Warn"}));
            }
            if (!actions.insert(action).second) {
                out.push_back(field::duplicate(field::index(path, i), action));
            }
        }
    }
    if (actions.count("Deny") && actions.count("Warn")) {
        out.push_back(field::invalid(path,
                                     goTypedList(list, "admissionregistration.ValidationAction"),
                                     "must not contain both Deny and Warn (repeating the same "
                                     "validation failure information in the API response and "
                                     "headers serves no purpose)"));
    }
    if (actions.empty()) {
        out.push_back(field::required(path, "at least one validation action is required"));
    }
}

// validateValidatingAdmissionPolicyBindingSpec. kube spells the match resources' path
// "matchResouces": kept.
field::Causes validateBinding(const json::Value& obj) {
    field::Causes out;
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value* specValue = json::member(obj, "spec");
    const json::Value& spec = specValue && specValue->IsObject() ? *specValue : kEmpty;
    std::string_view policyName = cells::text(spec, {"policyName"});
    if (policyName.empty()) {
        out.push_back(field::required("spec.policyName"));
    } else {
        for (const std::string& msg : registry::validation::isDNS1123Subdomain(policyName)) {
            out.push_back(field::invalid("spec.policyName", policyName, msg));
        }
    }
    const json::Value* ref = json::member(spec, "paramRef");
    if (ref && ref->IsObject()) {
        validateParamRef(*ref, out);
    }
    const json::Value* match = json::member(spec, "matchResources");
    if (match && match->IsObject()) {
        validateMatchResources(*match, "spec.matchResouces", out);
    }
    validateValidationActions(json::member(spec, "validationActions"), out);
    return out;
}

// The printers' ParamKind and ParamRef cells.
std::string paramKindCell(const json::Value& obj) {
    const json::Value* kind = json::at(obj, {"spec", "paramKind"});
    if (!kind || !kind->IsObject()) {
        return "<unset>";
    }
    return std::string(cells::text(*kind, {"apiVersion"})) + "/" +
           std::string(cells::text(*kind, {"kind"}));
}

std::string paramRefCell(const json::Value& obj) {
    const json::Value* ref = json::at(obj, {"spec", "paramRef"});
    if (!ref || !ref->IsObject()) {
        return "<unset>";
    }
    std::string_view name = cells::text(*ref, {"name"});
    if (!name.empty()) {
        std::string_view ns = cells::text(*ref, {"namespace"});
        return (ns.empty() ? std::string("*") : std::string(ns)) + "/" + std::string(name);
    }
    const json::Value* selector = json::member(*ref, "selector");
    return selector && selector->IsObject() ? cells::labelSelectorString(selector) : "<unset>";
}

}  // namespace

registry::KindInfo validatingAdmissionPolicyKind() {
    registry::KindInfo k;
    k.group = "admissionregistration.k8s.io";
    k.version = "v1";
    k.kind = "ValidatingAdmissionPolicy";
    k.resource = "validatingadmissionpolicies";
    k.singular = "validatingadmissionpolicy";
    k.namespaced = false;
    k.categories = {"api-extensions"};
    k.tracksGeneration = true;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::countColumn("Validations", "integer",
                           "Validations indicates the number of validation rules defined in this "
                           "configuration",
                           [](const json::Value& obj) {
                               return cells::count(json::at(obj, {"spec", "validations"}));
                           }),
        cells::textColumn(
            "ParamKind", "string",
            "ParamKind specifies the kind of resources used to parameterize this "
            "policy",
            [](const json::Value& obj, const TableContext&) { return paramKindCell(obj); }),
        cells::ageColumn(),
    };
    k.defaults = defaultPolicy;
    k.validate = [](const json::Value& obj) { return validatePolicy(obj, true); };
    k.validateUpdate = [](const json::Value& obj, const json::Value& old) {
        return validatePolicy(obj, !matchConditionsUnchanged(obj, old));
    };
    return k;
}

registry::KindInfo validatingAdmissionPolicyBindingKind() {
    registry::KindInfo k;
    k.group = "admissionregistration.k8s.io";
    k.version = "v1";
    k.kind = "ValidatingAdmissionPolicyBinding";
    k.resource = "validatingadmissionpolicybindings";
    k.singular = "validatingadmissionpolicybinding";
    k.namespaced = false;
    k.categories = {"api-extensions"};
    k.tracksGeneration = true;
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("PolicyName", "string",
                          "PolicyName indicates the policy definition which the policy binding "
                          "binded to",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "policyName"}));
                          }),
        cells::textColumn(
            "ParamRef", "string",
            "ParamRef indicates the param resource which sets the configration "
            "param",
            [](const json::Value& obj, const TableContext&) { return paramRefCell(obj); }),
        cells::ageColumn(),
    };
    k.defaults = defaultBinding;
    k.validate = validateBinding;
    return k;
}

}  // namespace kube::apis::admissionregistration
