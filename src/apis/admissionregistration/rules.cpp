#include "apis/admissionregistration/rules.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "cel/checker.hpp"
#include "cel/parser.hpp"
#include "cel/type.hpp"

namespace kube::apis::admissionregistration {

namespace json = util::json;

namespace {

constexpr size_t kMaxMatchConditions = 64;

std::vector<std::string_view> strings(const json::Value* list) {
    std::vector<std::string_view> out;
    if (list && list->IsArray()) {
        for (const json::Value& v : list->GetArray()) {
            out.push_back(v.IsString() ? json::view(v) : std::string_view());
        }
    }
    return out;
}

bool hasWildcard(const std::vector<std::string_view>& list) {
    return std::find(list.begin(), list.end(), "*") != list.end();
}

// validateResources: resources with subresources, where wildcards may not overlap.
void validateResources(const json::Value* list, const std::string& path, field::Causes& out) {
    std::vector<std::string_view> resources = strings(list);
    if (resources.empty()) {
        out.push_back(field::required(path));
    }
    std::set<std::string_view> wildcardSubresources;  // "x/*"
    std::set<std::string_view> wildcardResources;     // "*/x"
    bool doubleWildcard = false;
    bool singleWildcard = false;
    bool withoutSubresource = false;
    for (size_t i = 0; i < resources.size(); i++) {
        std::string_view r = resources[i];
        if (r.empty()) {
            out.push_back(field::required(field::index(path, i)));
            continue;
        }
        doubleWildcard = doubleWildcard || r == "*/*";
        singleWildcard = singleWildcard || r == "*";
        size_t slash = r.find('/');
        if (slash == std::string_view::npos) {
            withoutSubresource = r != "*";
            continue;
        }
        std::string_view res = r.substr(0, slash);
        std::string_view sub = r.substr(slash + 1);
        if (wildcardSubresources.count(res)) {
            out.push_back(field::invalid(field::index(path, i), r,
                                         "if '" + std::string(res) + "/*' is present, must not " +
                                             "specify " + std::string(r)));
        }
        if (wildcardResources.count(sub)) {
            out.push_back(field::invalid(field::index(path, i), r,
                                         "if '*/" + std::string(sub) + "' is present, must not " +
                                             "specify " + std::string(r)));
        }
        if (sub == "*") {
            wildcardSubresources.insert(res);
        }
        if (res == "*") {
            wildcardResources.insert(sub);
        }
    }
    if (resources.size() > 1 && doubleWildcard) {
        out.push_back(field::invalid(path, field::goStringList(list),
                                     "if '*/*' is present, must not specify other resources"));
    }
    if (singleWildcard && withoutSubresource) {
        out.push_back(field::invalid(
            path, field::goStringList(list),
            "if '*' is present, must not specify other resources without subresources"));
    }
}

}  // namespace

field::BadValue goTypedList(const json::Value* list, std::string_view goType) {
    std::string text = field::goStringList(list).text();
    return field::BadValue::raw("[]" + std::string(goType) + text.substr(text.find_first_of("{(")));
}

void validateRuleWithOperations(const json::Value& rule, const std::string& path,
                                field::Causes& out) {
    const json::Value* ops = json::member(rule, "operations");
    std::vector<std::string_view> operations = strings(ops);
    std::string opsPath = field::child(path, "operations");
    if (operations.empty()) {
        out.push_back(field::required(opsPath));
    }
    if (operations.size() > 1 && hasWildcard(operations)) {
        out.push_back(field::invalid(opsPath,
                                     goTypedList(ops, "admissionregistration.OperationType"),
                                     "if '*' is present, must not specify other operations"));
    }
    for (size_t i = 0; i < operations.size(); i++) {
        std::string_view op = operations[i];
        if (op != "*" && op != "CREATE" && op != "UPDATE" && op != "DELETE" && op != "CONNECT") {
            out.push_back(field::notSupported(field::index(opsPath, i), op,
                                              {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}));
        }
    }
    // validateRule
    const json::Value* groupsList = json::member(rule, "apiGroups");
    std::vector<std::string_view> groups = strings(groupsList);
    std::string groupsPath = field::child(path, "apiGroups");
    if (groups.empty()) {
        out.push_back(field::required(groupsPath));
    }
    if (groups.size() > 1 && hasWildcard(groups)) {
        out.push_back(field::invalid(groupsPath, field::goStringList(groupsList),
                                     "if '*' is present, must not specify other API groups"));
    }
    const json::Value* versionsList = json::member(rule, "apiVersions");
    std::vector<std::string_view> versions = strings(versionsList);
    std::string versionsPath = field::child(path, "apiVersions");
    if (versions.empty()) {
        out.push_back(field::required(versionsPath));
    }
    if (versions.size() > 1 && hasWildcard(versions)) {
        out.push_back(field::invalid(versionsPath, field::goStringList(versionsList),
                                     "if '*' is present, must not specify other API versions"));
    }
    for (size_t i = 0; i < versions.size(); i++) {
        if (versions[i].empty()) {
            out.push_back(field::required(field::index(versionsPath, i)));
        }
    }
    validateResources(json::member(rule, "resources"), field::child(path, "resources"), out);
    field::validateEnum(json::member(rule, "scope"), field::child(path, "scope"),
                        {"*", "Cluster", "Namespaced"}, out);
}

std::string compileAdmissionExpression(std::string_view expression, const ExpressionScope& scope,
                                       ExpressionResult result) {
    std::vector<cel::Issue> issues;
    cel::ExprPtr expr = cel::parse(expression, &issues);
    if (!expr) {
        return "compilation failed: " + cel::formatIssues(expression, issues);
    }
    bool callsAuthorizer = scope.authorizer && expression.find("authorizer") != std::string::npos;
    if (callsAuthorizer) {
        return "";
    }
    std::vector<cel::Declaration> declared = {
        {"object", cel::Type::dyn()},
        {"oldObject", cel::Type::dyn()},
        {"request", cel::Type::dyn()},
        {"namespaceObject", cel::Type::dyn()},
    };
    if (scope.params) {
        declared.push_back({"params", cel::Type::dyn()});
    }
    if (scope.variables) {
        declared.push_back({"variables", cel::Type::map(cel::Type::string(), cel::Type::dyn())});
    }
    cel::CheckedExpr checked = cel::check(*expr, declared, &issues);
    if (!issues.empty()) {
        return "compilation failed: " + cel::formatIssues(expression, issues);
    }
    cel::TypeKind kind = checked.resultType->kind;
    if (kind == cel::TypeKind::Dyn) {
        return "";
    }
    switch (result) {
        case ExpressionResult::Bool:
            if (kind != cel::TypeKind::Bool) {
                return "must evaluate to bool";
            }
            break;
        case ExpressionResult::String:
            if (kind != cel::TypeKind::String) {
                return "must evaluate to string";
            }
            break;
        case ExpressionResult::StringOrNull:
            if (kind != cel::TypeKind::String && kind != cel::TypeKind::Null) {
                return "must evaluate to one of [string null_type]";
            }
            break;
    }
    return "";
}

void validateMatchConditions(const json::Value* conditions, const std::string& path, bool params,
                             field::Causes& out) {
    if (!conditions || !conditions->IsArray()) {
        return;
    }
    if (conditions->Size() > kMaxMatchConditions) {
        out.push_back(
            registry::validation::field::tooMany(path, conditions->Size(), kMaxMatchConditions));
    }
    std::set<std::string_view> names;
    for (size_t i = 0; i < conditions->Size(); i++) {
        const json::Value& c = (*conditions)[static_cast<rapidjson::SizeType>(i)];
        std::string idx = field::index(path, i);
        const json::Value* exprValue = json::member(c, "expression");
        std::string_view expression =
            exprValue && exprValue->IsString() ? json::view(*exprValue) : std::string_view();
        std::string_view trimmed = expression;
        while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
            trimmed.remove_prefix(1);
        }
        while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
            trimmed.remove_suffix(1);
        }
        std::string exprPath = field::child(idx, "expression");
        if (trimmed.empty()) {
            out.push_back(field::required(exprPath));
        } else {
            ExpressionScope scope;
            scope.params = params;
            std::string why = compileAdmissionExpression(trimmed, scope, ExpressionResult::Bool);
            if (!why.empty()) {
                out.push_back(field::invalid(exprPath, trimmed, why));
            }
        }
        const json::Value* nameValue = json::member(c, "name");
        std::string_view name =
            nameValue && nameValue->IsString() ? json::view(*nameValue) : std::string_view();
        std::string namePath = field::child(idx, "name");
        if (name.empty()) {
            out.push_back(field::required(namePath));
        } else {
            for (const std::string& msg : registry::validation::isQualifiedName(name)) {
                out.push_back(field::invalid(namePath, name, msg));
            }
            if (!names.insert(name).second) {
                out.push_back(field::duplicate(namePath, name));
            }
        }
    }
}

void validateFullyQualifiedName(std::string_view name, const std::string& path,
                                field::Causes& out) {
    if (name.empty()) {
        out.push_back(field::required(path));
        return;
    }
    std::vector<std::string> errs = registry::validation::isDNS1123Subdomain(name);
    if (!errs.empty()) {
        std::string joined;
        for (const std::string& e : errs) {
            joined += (joined.empty() ? "" : ",") + e;
        }
        out.push_back(field::invalid(path, name, joined));
        return;
    }
    if (std::count(name.begin(), name.end(), '.') < 2) {
        out.push_back(field::invalid(path, name,
                                     "should be a domain with at least three segments separated "
                                     "by dots"));
    }
}

}  // namespace kube::apis::admissionregistration
