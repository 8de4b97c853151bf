#include "apis/apiextensions/cel_rules.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "apis/apiextensions/json_members.hpp"
#include "cel/cost.hpp"
#include "cel/escaping.hpp"
#include "cel/object_value.hpp"
#include "cel/program.hpp"
#include "util/deep_stack.hpp"

namespace kube::apis::apiextensions {

namespace {

namespace json = util::json;
namespace field = core::field;
using field::BadValue;
using field::Causes;

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// kube's MaxRequestSizeBytes: what bounds how often a node under an
// unbounded list or map can occur.
constexpr uint64_t kMaxRequestSizeBytes = 3 * 1024 * 1024;

uint64_t mulSat(uint64_t a, uint64_t b) {
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) {
        return std::numeric_limits<uint64_t>::max();
    }
    return a * b;
}

uint64_t addSat(uint64_t a, uint64_t b) {
    return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                        : a + b;
}

std::string_view trimSpace(std::string_view s) {
    const char* space = " \t\n\r\v\f";
    size_t begin = s.find_first_not_of(space);
    if (begin == std::string_view::npos) {
        return {};
    }
    return s.substr(begin, s.find_last_not_of(space) - begin + 1);
}

bool hasNewlines(std::string_view s) {
    return s.find_first_of("\r\n") != std::string_view::npos;
}

// A field path built one step per level and spelled out only for an error:
// a string per level would cost O(depth²) on a schema thousands deep.
class PathStack {
  public:
    explicit PathStack(std::string root) : root_(std::move(root)) {}

    void child(std::string_view name) { steps_.push_back({Step::Child, std::string(name)}); }
    void key(std::string_view key) { steps_.push_back({Step::Key, std::string(key)}); }
    void index(size_t i) { steps_.push_back({Step::Index, std::to_string(i)}); }
    void pop() { steps_.pop_back(); }
    size_t depth() const { return steps_.size(); }
    void truncate(size_t depth) { steps_.resize(depth); }

    std::string str() const {
        std::string out = root_;
        for (const auto& [kind, name] : steps_) {
            if (kind == Step::Child) {
                if (!out.empty()) {
                    out += '.';
                }
                out += name;
            } else {
                out += '[' + name + ']';
            }
        }
        return out;
    }

  private:
    enum class Step { Child, Key, Index };
    std::string root_;
    std::vector<std::pair<Step, std::string>> steps_;
};

// One step of a rule's fieldPath: a property (.name or ['name']) or a map key.
struct FieldStep {
    bool isKey = false;
    std::string name;
};

struct CompiledRule {
    std::string rule;
    std::string message;
    std::shared_ptr<const cel::Program> program;
    std::shared_ptr<const cel::Program> messageProgram;
    // FieldValueInvalid when empty.
    std::string reason;
    std::vector<FieldStep> fieldPath;
};

// A schema node on the way to some rule.
struct Node {
    std::string schemaType;
    cel::TypePtr type;
    std::vector<CompiledRule> rules;
    std::vector<std::pair<std::string, size_t>> properties;
    size_t additionalProperties = kNone;
    size_t items = kNone;
    // A map list's keys: its old items correspond to new ones by them.
    std::vector<std::string> listMapKeys;
};

}  // namespace

class CelRules {
  public:
    std::vector<Node> nodes;
    size_t root = kNone;
};

bool hasCelRules(const CelRules& rules) {
    return rules.root != kNone;
}

namespace {

// Mirrors TotalCost: the sum of every rule's cost, and the (at most four)
// rules that contribute at least 1% of the CRD limit.
struct TotalCost {
    uint64_t total = 0;
    std::vector<std::pair<uint64_t, std::string>> mostExpensive;

    void observe(const std::string& path, uint64_t cost) {
        total = addSat(total, cost);
        if (cost < cel::kStaticEstimatedCRDCostLimit / 100) {
            return;
        }
        mostExpensive.emplace_back(cost, path);
        std::stable_sort(mostExpensive.begin(), mostExpensive.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        if (mostExpensive.size() > 4) {
            mostExpensive.resize(4);
        }
    }
};

// Go's %#v of a 1.26 apiextensions.ValidationRule: the bad value of a rule
// that does not compile.
std::string goValidationRule(std::string_view rule, std::string_view message) {
    return "apiextensions.ValidationRule{Rule:" + BadValue(rule).text() +
           ", Message:" + BadValue(message).text() + "}";
}

// Parses a rule's fieldPath (".spec.a", ".m['key']") against the schema
// below `schema`; empty with `error` set when it is not a path there.
std::vector<FieldStep> parseFieldPath(std::string_view text, const json::Value* schema,
                                      std::string* error) {
    std::vector<FieldStep> steps;
    size_t i = 0;
    while (i < text.size()) {
        std::string name;
        if (text[i] == '.') {
            size_t end = text.find_first_of(".[", i + 1);
            name = std::string(text.substr(
                i + 1, end == std::string_view::npos ? std::string_view::npos : end - i - 1));
            i = end == std::string_view::npos ? text.size() : end;
        } else if (text.compare(i, 2, "['") == 0) {
            size_t end = text.find("']", i + 2);
            if (end == std::string_view::npos) {
                *error = "unexpected format: " + std::string(text);
                return {};
            }
            name = std::string(text.substr(i + 2, end - i - 2));
            i = end + 2;
        } else {
            *error = "expected [ or . at " + std::to_string(i);
            return {};
        }
        if (name.empty()) {
            *error = "empty field name";
            return {};
        }
        const json::Value* props = objectAt(schema, "properties");
        const json::Value* additional = objectAt(schema, "additionalProperties");
        if (const json::Value* p = props ? member(*props, name) : nullptr) {
            steps.push_back({false, name});
            schema = p;
        } else if (additional) {
            steps.push_back({true, name});
            schema = additional;
        } else {
            *error = "does not refer to a valid field";
            return {};
        }
    }
    if (steps.empty()) {
        *error = "empty field path";
    }
    return steps;
}

class Compiler {
  public:
    Compiler(CelRules& out, Causes* errors, const std::string& schemaPath)
        : out_(out), errors_(errors), path_(schemaPath) {}

    // Returns the node's index, or kNone when nothing below has rules.
    // `cardinality`: how often the node can occur (nullopt: unbounded);
    // `uncorrelatable`: the depth of the path of the first list above whose
    // items old and new objects cannot pair (kNone: none).
    size_t visit(const json::Value& s, cel::TypePtr type, bool resourceRoot,
                 std::optional<uint64_t> cardinality, size_t uncorrelatable) {
        if (!s.IsObject()) {
            return kNone;
        }
        // Types are built where rules are, as kube's CELSchemaContext does:
        // the nodes below take theirs from it.
        const json::Value* rules = arrayAt(s, "x-kubernetes-validations");
        if (!type && rules != nullptr && rules->Size() > 0) {
            type = cel::Type::fromSchema(s, resourceRoot);
        }
        Node node;
        node.schemaType = std::string(text(s, "type"));
        std::optional<uint64_t> childCardinality = childrenCardinality(s, cardinality);
        if (const json::Value* ap = objectAt(s, "additionalProperties")) {
            path_.child("additionalProperties");
            node.additionalProperties = visit(*ap, childType(type, cel::TypeKind::Map, nullptr),
                                              isTrue(*ap, "x-kubernetes-embedded-resource"),
                                              childCardinality, uncorrelatable);
            path_.pop();
        }
        if (const json::Value* props = objectAt(s, "properties")) {
            std::vector<std::pair<std::string_view, const json::Value*>> sorted;
            for (const auto& m : props->GetObject()) {
                sorted.emplace_back(json::view(m.name), &m.value);
            }
            // kube visits them in Go's map order; name order keeps answers stable.
            std::sort(sorted.begin(), sorted.end());
            for (const auto& [name, p] : sorted) {
                path_.child("properties");
                path_.key(name);
                size_t child = visit(*p, childType(type, cel::TypeKind::Object, &name),
                                     isTrue(*p, "x-kubernetes-embedded-resource"), childCardinality,
                                     uncorrelatable);
                path_.pop();
                path_.pop();
                if (child != kNone) {
                    node.properties.emplace_back(std::string(name), child);
                }
            }
        }
        if (const json::Value* items = objectAt(s, "items")) {
            bool mapList = text(s, "x-kubernetes-list-type") == "map";
            size_t itemsUncorrelatable =
                uncorrelatable == kNone && !mapList ? path_.depth() : uncorrelatable;
            path_.child("items");
            node.items = visit(*items, childType(type, cel::TypeKind::List, nullptr),
                               isTrue(*items, "x-kubernetes-embedded-resource"), childCardinality,
                               itemsUncorrelatable);
            path_.pop();
            if (mapList) {
                if (const json::Value* keys = arrayAt(s, "x-kubernetes-list-map-keys")) {
                    for (const json::Value& k : keys->GetArray()) {
                        if (k.IsString()) {
                            node.listMapKeys.emplace_back(json::view(k));
                        }
                    }
                }
            }
        }
        if (rules != nullptr && rules->Size() > 0) {
            compileRules(s, *rules, type, cardinality, uncorrelatable, node);
        }
        if (node.rules.empty() && node.properties.empty() && node.additionalProperties == kNone &&
            node.items == kNone) {
            return kNone;
        }
        node.type = std::move(type);
        out_.nodes.push_back(std::move(node));
        return out_.nodes.size() - 1;
    }

    // The per-CRD total, after every node.
    void finish(const std::string& schemaPath) {
        if (errors_ == nullptr || total_.total <= cel::kStaticEstimatedCRDCostLimit) {
            return;
        }
        for (const auto& [cost, path] : total_.mostExpensive) {
            errors_->push_back(field::forbidden(
                path,
                "contributed to estimated rule cost total exceeding cost limit for entire "
                "OpenAPIv3 schema"));
        }
        errors_->push_back(field::forbidden(
            schemaPath, cel::costErrorMessage("x-kubernetes-validations estimated rule cost total "
                                              "for entire OpenAPIv3 schema",
                                              total_.total, cel::kStaticEstimatedCRDCostLimit)));
    }

  private:
    // Mirrors CELSchemaContext.childContext: objects add nothing, lists and
    // maps multiply by their bound, and an unbounded one makes every node
    // below unbounded.
    static std::optional<uint64_t> childrenCardinality(const json::Value& s,
                                                       std::optional<uint64_t> cardinality) {
        if (!cardinality) {
            return std::nullopt;
        }
        std::string_view type = text(s, "type");
        const char* bound = nullptr;
        if (type == "object" && member(s, "additionalProperties")) {
            bound = "maxProperties";
        } else if (type == "array") {
            bound = "maxItems";
        }
        if (bound == nullptr) {
            return cardinality;
        }
        const json::Value* max = member(s, bound);
        if (max == nullptr || !max->IsInt64()) {
            return std::nullopt;
        }
        return mulSat(*cardinality, static_cast<uint64_t>(std::max<int64_t>(0, max->GetInt64())));
    }

    // The type of a child from the parent's, or null (built from the
    // child's schema) when the parent's does not have it.
    static cel::TypePtr childType(const cel::TypePtr& parent, cel::TypeKind kind,
                                  const std::string_view* property) {
        if (!parent || parent->kind != kind) {
            return nullptr;
        }
        if (kind != cel::TypeKind::Object) {
            return parent->elem && parent->elem->kind != cel::TypeKind::Dyn ? parent->elem
                                                                            : nullptr;
        }
        std::optional<std::string> escaped = cel::escapePropertyName(*property);
        if (!escaped) {
            return nullptr;
        }
        auto it = parent->fields.find(*escaped);
        if (it == parent->fields.end() || it->second->kind == cel::TypeKind::Dyn) {
            return nullptr;
        }
        return it->second;
    }

    void error(meta::StatusCause cause) {
        if (errors_ != nullptr) {
            errors_->push_back(std::move(cause));
        }
    }

    void compileRules(const json::Value& s, const json::Value& rules, const cel::TypePtr& type,
                      std::optional<uint64_t> cardinality, size_t uncorrelatable, Node& node) {
        path_.child("x-kubernetes-validations");
        for (rapidjson::SizeType i = 0; i < rules.Size(); ++i) {
            const json::Value& r = rules[i];
            std::string_view rule = text(r, "rule");
            if (trimSpace(rule).empty()) {
                continue;
            }
            path_.index(i);
            compileRule(s, r, rule, type, cardinality, uncorrelatable, node);
            path_.pop();
        }
        path_.pop();
    }

    void compileRule(const json::Value& s, const json::Value& r, std::string_view rule,
                     const cel::TypePtr& type, std::optional<uint64_t> cardinality,
                     size_t uncorrelatable, Node& node) {
        std::string_view message = text(r, "message");
        path_.child("rule");
        std::string rulePath = path_.str();
        path_.pop();
        std::string compileError;
        auto program = cel::compile(rule, type, &compileError);
        uint64_t cost = program ? program->estimatedMaxCost() : 0;
        // Mirrors getExpressionCost: unbounded, a node occurs at most as
        // often as its smallest JSON form fits in a request.
        uint64_t times =
            cardinality
                ? *cardinality
                : kMaxRequestSizeBytes /
                      (static_cast<uint64_t>(std::max<int64_t>(0, type->minSerializedSize)) + 1);
        uint64_t expressionCost = cost == 0 ? 0 : mulSat(cost, times);
        if (expressionCost > cel::kStaticEstimatedCostLimit) {
            error(field::forbidden(rulePath,
                                   cel::costErrorMessage("estimated rule cost", expressionCost,
                                                         cel::kStaticEstimatedCostLimit)));
        }
        total_.observe(rulePath, expressionCost);
        if (!program) {
            error(field::invalid(rulePath, BadValue::raw(goValidationRule(rule, message)),
                                 compileError));
            return;
        }
        if (program->isTransitionRule() && uncorrelatable != kNone) {
            PathStack within = path_;
            within.truncate(uncorrelatable);
            error(field::invalid(rulePath, rule,
                                 "oldSelf cannot be used on the uncorrelatable portion of the "
                                 "schema within " +
                                     within.str()));
        }
        CompiledRule compiled;
        compiled.rule = std::string(rule);
        compiled.message = std::string(message);
        compiled.program = program;
        std::string_view messageExpression = text(r, "messageExpression");
        if (!trimSpace(messageExpression).empty()) {
            path_.child("messageExpression");
            std::string at = path_.str();
            path_.pop();
            std::string why;
            compiled.messageProgram =
                cel::compile(messageExpression, type, &why, cel::Purpose::MessageExpression);
            if (!compiled.messageProgram) {
                error(field::invalid(
                    at, BadValue::raw(goValidationRule(rule, message)),
                    why.rfind("messageExpression", 0) == 0 ? why : "messageExpression " + why));
            } else if (uint64_t c = mulSat(compiled.messageProgram->estimatedMaxCost(), times);
                       c > cel::kStaticEstimatedCostLimit) {
                error(
                    field::forbidden(at, cel::costErrorMessage("estimated messageExpression cost",
                                                               c, cel::kStaticEstimatedCostLimit)));
            }
        }
        compiled.reason = std::string(text(r, "reason"));
        if (std::string_view fieldPath = text(r, "fieldPath");
            !fieldPath.empty() && !trimSpace(fieldPath).empty() && !hasNewlines(fieldPath)) {
            std::string why;
            compiled.fieldPath = parseFieldPath(fieldPath, &s, &why);
            if (!why.empty()) {
                path_.child("fieldPath");
                error(field::invalid(path_.str(), fieldPath,
                                     "fieldPath must be a valid path: " + why));
                path_.pop();
            }
        }
        node.rules.push_back(std::move(compiled));
    }

    CelRules& out_;
    Causes* errors_;
    PathStack path_;
    TotalCost total_;
};

// Runs a CelRules over one object; mirrors Validator.Validate.
class Validation {
  public:
    explicit Validation(const CelRules& rules) : rules_(rules), path_("") {}

    Causes run(const json::Value& obj, const json::Value* old) {
        visit(rules_.root, obj, old);
        return std::move(errors_);
    }

  private:
    // False once the budget is spent: nothing more runs.
    bool visit(size_t index, const json::Value& v, const json::Value* old) {
        if (v.IsNull()) {
            // Rules see only values that are there; a rule on the parent
            // checks for null.
            return true;
        }
        const Node& node = rules_.nodes[index];
        if (old != nullptr && old->IsNull()) {
            old = nullptr;
        }
        if (!node.rules.empty() && !runRules(node, v, old)) {
            return false;
        }
        if (v.IsObject()) {
            return visitMembers(node, v, old);
        }
        if (v.IsArray() && node.items != kNone) {
            return visitItems(node, v, old);
        }
        return true;
    }

    bool visitMembers(const Node& node, const json::Value& v, const json::Value* old) {
        const json::Value* oldObject = old != nullptr && old->IsObject() ? old : nullptr;
        if (node.additionalProperties != kNone) {
            for (const auto& m : v.GetObject()) {
                std::string_view key = json::view(m.name);
                path_.key(key);
                bool more = visit(node.additionalProperties, m.value,
                                  oldObject ? json::member(*oldObject, key) : nullptr);
                path_.pop();
                if (!more) {
                    return false;
                }
            }
            return true;
        }
        for (const auto& [name, child] : node.properties) {
            const json::Value* value = json::member(v, name);
            if (value == nullptr) {
                continue;
            }
            path_.child(name);
            bool more = visit(child, *value, oldObject ? json::member(*oldObject, name) : nullptr);
            path_.pop();
            if (!more) {
                return false;
            }
        }
        return true;
    }

    // The identity of a map list's item: its keys' values.
    static std::string itemKey(const json::Value& item, const std::vector<std::string>& keys) {
        std::string out;
        for (const std::string& k : keys) {
            const json::Value* v = item.IsObject() ? json::member(item, k) : nullptr;
            out += v != nullptr ? json::serialize(*v) : "?";
            out += '\0';
        }
        return out;
    }

    bool visitItems(const Node& node, const json::Value& v, const json::Value* old) {
        // Only a map list's items correspond between old and new.
        std::unordered_map<std::string, const json::Value*> oldItems;
        if (old != nullptr && old->IsArray() && !node.listMapKeys.empty()) {
            for (const json::Value& item : old->GetArray()) {
                oldItems.emplace(itemKey(item, node.listMapKeys), &item);
            }
        }
        for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
            const json::Value* oldItem = nullptr;
            if (!oldItems.empty()) {
                auto it = oldItems.find(itemKey(v[i], node.listMapKeys));
                oldItem = it == oldItems.end() ? nullptr : it->second;
            }
            path_.index(i);
            bool more = visit(node.items, v[i], oldItem);
            path_.pop();
            if (!more) {
                return false;
            }
        }
        return true;
    }

    // The path of the node being validated; the object's root is a nil
    // field.Path, which kube prints as "<nil>".
    std::string fieldAt() const { return path_.depth() == 0 ? "<nil>" : path_.str(); }

    meta::StatusCause budgetSpent() const {
        return field::invalid(fieldAt(), currentType_,
                              "validation failed due to running out of cost budget, no further "
                              "validation rules will be run");
    }

    // Spends `cost` from the budget; false (with kube's error) past it.
    bool spend(uint64_t cost) {
        if (cost > remaining_) {
            errors_.push_back(budgetSpent());
            return false;
        }
        remaining_ -= cost;
        return true;
    }

    bool runRules(const Node& node, const json::Value& v, const json::Value* old) {
        currentType_ = node.schemaType;
        if (remaining_ == 0) {
            errors_.push_back(budgetSpent());
            return false;
        }
        cel::Value self = cel::objectValue(v, node.type.get());
        std::optional<cel::Value> oldSelf;
        for (const CompiledRule& rule : node.rules) {
            if (rule.program->isTransitionRule() && old == nullptr) {
                continue;
            }
            if (rule.program->isTransitionRule() && !oldSelf) {
                oldSelf = cel::objectValue(*old, node.type.get());
            }
            cel::EvalOutcome out = cel::evaluate(
                *rule.program, self, rule.program->isTransitionRule() ? &*oldSelf : nullptr);
            if (!spend(out.cost)) {
                return false;
            }
            if (out.value.isError()) {
                const std::string& error = out.value.str();
                if (error.rfind(cel::kCostLimitExceeded, 0) == 0) {
                    // kube 1.26 stops there: no later rule runs.
                    errors_.push_back(field::invalid(
                        fieldAt(), node.schemaType,
                        "'" + error +
                            "': no further validation rules will be run due to call cost exceeds "
                            "limit for rule: " +
                            ruleErrorString(rule)));
                    return false;
                }
                errors_.push_back(
                    field::invalid(fieldAt(), node.schemaType, evaluationError(error, rule)));
                continue;
            }
            if (out.value.kind() == cel::Kind::Bool && out.value.asBool()) {
                continue;
            }
            std::optional<std::string> message = messageOf(rule, self, oldSelf);
            if (!message) {
                return false;
            }
            errors_.push_back(failure(rule, node.schemaType, *message));
        }
        return true;
    }

    // kube's ruleErrorString: the message, else the rule, trimmed.
    static std::string ruleErrorString(const CompiledRule& rule) {
        return std::string(trimSpace(rule.message.empty() ? rule.rule : rule.message));
    }

    static std::string evaluationError(const std::string& error, const CompiledRule& rule) {
        if (error.rfind("no such overload", 0) == 0) {
            return "'" + error +
                   "': call arguments did not match a supported operator, function or macro "
                   "signature for rule: " +
                   ruleErrorString(rule);
        }
        return error + " evaluating rule: " + ruleErrorString(rule);
    }

    // The failure's message: the messageExpression's string when it gives
    // a usable one, else the message, else "failed rule: <rule>". Null when
    // the messageExpression spent the rest of the budget.
    std::optional<std::string> messageOf(const CompiledRule& rule, const cel::Value& self,
                                         const std::optional<cel::Value>& oldSelf) {
        std::string fallback =
            rule.message.empty() ? "failed rule: " + ruleErrorString(rule) : rule.message;
        if (!rule.messageProgram) {
            return fallback;
        }
        cel::EvalOutcome out =
            cel::evaluate(*rule.messageProgram, self, oldSelf ? &*oldSelf : nullptr);
        if (!spend(out.cost)) {
            return std::nullopt;
        }
        if (out.value.kind() != cel::Kind::String || trimSpace(out.value.str()).empty() ||
            hasNewlines(out.value.str())) {
            return fallback;
        }
        return out.value.str();
    }

    // The cause of a failed rule: at its fieldPath when it names one, of
    // the type its reason names.
    meta::StatusCause failure(const CompiledRule& rule, const std::string& schemaType,
                              const std::string& message) {
        size_t depth = path_.depth();
        for (const FieldStep& step : rule.fieldPath) {
            if (step.isKey) {
                path_.key(step.name);
            } else {
                path_.child(step.name);
            }
        }
        std::string at = fieldAt();
        path_.truncate(depth);
        if (rule.reason == "FieldValueForbidden") {
            return field::forbidden(at, message);
        }
        if (rule.reason == "FieldValueRequired") {
            return field::required(at, message);
        }
        if (rule.reason == "FieldValueDuplicate") {
            return field::duplicate(at, schemaType);
        }
        return field::invalid(at, schemaType, message);
    }

    const CelRules& rules_;
    PathStack path_;
    Causes errors_;
    uint64_t remaining_ = cel::kRuntimeCostBudget;
    std::string currentType_;
};

}  // namespace

std::shared_ptr<const CelRules> compileCelRules(const json::Value& openAPIV3Schema,
                                                const std::string& schemaPath, Causes* errors) {
    auto rules = std::make_shared<CelRules>();
    util::runWithStackFor(openAPIV3Schema, [&] {
        Compiler compiler(*rules, errors, schemaPath);
        rules->root = compiler.visit(openAPIV3Schema, nullptr, true, 1, kNone);
        compiler.finish(schemaPath);
    });
    return rules;
}

Causes validateWithCelRules(const CelRules& rules, const json::Value& obj, const json::Value* old) {
    if (rules.root == kNone) {
        return {};
    }
    Causes out;
    util::runWithStackFor(obj, [&] { out = Validation(rules).run(obj, old); });
    return out;
}

}  // namespace kube::apis::apiextensions
