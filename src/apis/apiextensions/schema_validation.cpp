#include "apis/apiextensions/schema_validation.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "apis/apiextensions/default_validation.hpp"
#include "apis/apiextensions/json_members.hpp"
#include "cel/regex.hpp"
#include "util/deep_stack.hpp"

namespace kube::apis::apiextensions {

namespace {

namespace json = util::json;
namespace field = core::field;
using field::BadValue;
using field::Causes;

// Members of an object or elements of an array; 0 otherwise.
size_t count(const json::Value* v) {
    if (!v) {
        return 0;
    }
    if (v->IsObject()) {
        return v->MemberCount();
    }
    return v->IsArray() ? v->Size() : 0;
}

// A value Go would hold as its zero value: nothing the schema says.
bool isZero(const json::Value& v) {
    return v.IsNull() || (v.IsBool() && !v.GetBool()) ||
           (v.IsString() && v.GetStringLength() == 0) ||
           ((v.IsObject() || v.IsArray()) && count(&v) == 0);
}

// The members of an object, by name (kube walks Go maps in random order;
// name order keeps the answer stable).
std::vector<std::pair<std::string_view, const json::Value*>> sortedMembers(const json::Value* obj) {
    std::vector<std::pair<std::string_view, const json::Value*>> out;
    if (obj && obj->IsObject()) {
        for (const auto& m : obj->GetObject()) {
            out.emplace_back(json::view(m.name), &m.value);
        }
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}

std::string childPath(const std::string& path, std::string_view name) {
    return field::child(path, name);
}

// Every schema directly below `s`, in any position.
void forEachChild(const json::Value& s, const std::function<void(const json::Value&)>& f) {
    if (!s.IsObject()) {
        return;
    }
    if (const json::Value* items = member(s, "items")) {
        if (items->IsArray()) {
            for (const json::Value& item : items->GetArray()) {
                f(item);
            }
        } else {
            f(*items);
        }
    }
    for (std::string_view list : {"allOf", "anyOf", "oneOf"}) {
        if (const json::Value* a = arrayAt(s, list)) {
            for (const json::Value& item : a->GetArray()) {
                f(item);
            }
        }
    }
    for (std::string_view one : {"not", "additionalProperties", "additionalItems"}) {
        if (const json::Value* o = objectAt(s, one)) {
            f(*o);
        }
    }
    for (std::string_view map :
         {"properties", "patternProperties", "definitions", "dependencies"}) {
        for (const auto& [name, v] : sortedMembers(objectAt(s, map))) {
            if (v->IsObject()) {
                f(*v);
            }
        }
    }
}

// Mirrors SchemaHas: the predicate holds at some node.
bool schemaHas(const json::Value& s, const std::function<bool(const json::Value&)>& pred) {
    if (pred(s)) {
        return true;
    }
    bool found = false;
    forEachChild(s, [&](const json::Value& child) { found = found || schemaHas(child, pred); });
    return found;
}

const std::vector<std::string>& openAPIV3Types() {
    static const std::vector<std::string> types = {"array",  "boolean", "integer",
                                                   "number", "object",  "string"};
    return types;
}

bool isOpenAPIV3Type(std::string_view type) {
    const auto& types = openAPIV3Types();
    return std::find(types.begin(), types.end(), type) != types.end();
}

// What NewStructural cannot turn into a structural schema; the OpenAPI
// rules report each of these, and the structural checks are then skipped.
bool convertible(const json::Value& s) {
    bool ok = !member(s, "$ref") && text(s, "id").empty() && !member(s, "additionalItems") &&
              count(member(s, "patternProperties")) == 0 && count(member(s, "definitions")) == 0 &&
              !member(s, "dependencies") && !arrayAt(s, "items");
    forEachChild(s, [&](const json::Value& child) { ok = ok && convertible(child); });
    return ok;
}

enum class Level { Root, Item, Field };

// A field path as kube's field.Path: a link to its parent and one step,
// spelled out only for an error. A path string built at every node cost
// O(depth²) for a schema nested thousands deep.
class Path {
  public:
    explicit Path(const std::string& root) : root_(&root) {}

    Path child(std::string_view name) const { return Path(this, Step::Child, name, 0); }
    Path key(std::string_view key) const { return Path(this, Step::Key, key, 0); }
    Path index(size_t i) const { return Path(this, Step::Index, {}, i); }

    std::string str() const {
        std::vector<const Path*> steps;
        const Path* p = this;
        for (; p->parent_; p = p->parent_) {
            steps.push_back(p);
        }
        std::string out = *p->root_;
        for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
            const Path& s = **it;
            if (s.step_ == Step::Index) {
                out += "[" + std::to_string(s.index_) + "]";
            } else if (s.step_ == Step::Key) {
                out += "[" + std::string(s.name_) + "]";
            } else {
                if (!out.empty()) {
                    out += '.';
                }
                out += s.name_;
            }
        }
        return out;
    }

  private:
    enum class Step { Child, Key, Index };
    Path(const Path* parent, Step step, std::string_view name, size_t index)
        : parent_(parent), step_(step), name_(name), index_(index) {}

    const Path* parent_ = nullptr;
    const std::string* root_ = nullptr;
    Step step_ = Step::Child;
    std::string_view name_;
    size_t index_ = 0;
};

Path childPath(const Path& path, std::string_view name) {
    return path.child(name);
}

Path keyPath(const Path& path, std::string_view key) {
    return path.key(key);
}

Path indexPath(const Path& path, size_t i) {
    return path.index(i);
}

// The field errors at a Path.
namespace at {

meta::StatusCause invalid(const Path& p, const BadValue& value, std::string_view detail) {
    return field::invalid(p.str(), value, detail);
}

meta::StatusCause required(const Path& p, std::string_view detail) {
    return field::required(p.str(), detail);
}

meta::StatusCause forbidden(const Path& p, std::string_view detail) {
    return field::forbidden(p.str(), detail);
}

meta::StatusCause notSupported(const Path& p, const BadValue& value,
                               const std::vector<std::string>& validValues) {
    return field::notSupported(p.str(), value, validValues);
}

}  // namespace at

// Mirrors apiserver/schema validateStructuralInvariants and its helpers.
class StructuralCheck {
  public:
    explicit StructuralCheck(Causes& out) : out_(out) {}

    void invariants(const json::Value& s, Level level, const Path& path) {
        if (!s.IsObject()) {
            return;
        }
        std::string_view type = text(s, "type");
        if (type == "array" && !member(s, "items")) {
            out_.push_back(at::required(childPath(path, "items"), "must be specified"));
        }
        if (const json::Value* items = objectAt(s, "items")) {
            invariants(*items, Level::Item, childPath(path, "items"));
        }
        Path properties = childPath(path, "properties");
        for (const auto& [name, v] : sortedMembers(objectAt(s, "properties"))) {
            invariants(*v, Level::Field, keyPath(properties, name));
        }
        if (const json::Value* ap = member(s, "additionalProperties")) {
            if (level == Level::Root) {
                out_.push_back(at::forbidden(childPath(path, "additionalProperties"),
                                             "must not be used at the root"));
            }
            if (ap->IsObject()) {
                invariants(*ap, Level::Field, childPath(path, "additionalProperties"));
            }
        }
        extensions(s, path);
        valueValidation(s, isIntOrStringAnyOf(s), isIntOrStringAllOf(s), level, path);

        bool embedded = isTrue(s, "x-kubernetes-embedded-resource");
        bool checkMetadata = level == Level::Root || embedded;
        Path typePath = childPath(path, "type");
        if (embedded && type != "object") {
            const char* why = "must be object if x-kubernetes-embedded-resource is true";
            out_.push_back(type.empty() ? at::required(typePath, why)
                                        : at::invalid(typePath, type, why));
        } else if (type.empty() && !isTrue(s, "x-kubernetes-int-or-string") &&
                   !isTrue(s, "x-kubernetes-preserve-unknown-fields")) {
            const char* why = level == Level::Root ? "must not be empty at the root"
                              : level == Level::Item
                                  ? "must not be empty for specified array items"
                                  : "must not be empty for specified object fields";
            out_.push_back(at::required(typePath, why));
        }
        if (embedded && member(s, "additionalProperties")) {
            out_.push_back(
                at::forbidden(childPath(path, "additionalProperties"),
                              "must not be used if x-kubernetes-embedded-resource is set"));
        }
        if (level == Level::Root && !type.empty() && type != "object") {
            out_.push_back(at::invalid(typePath, type, "must be object at the root"));
        }
        const json::Value* props = objectAt(s, "properties");
        for (std::string_view name : {"kind", "apiVersion"}) {
            const json::Value* p = props ? member(*props, name) : nullptr;
            if (p && checkMetadata && text(*p, "type") != "string") {
                out_.push_back(at::invalid(childPath(keyPath(properties, name), "type"),
                                           text(*p, "type"), "must be string"));
            }
        }
        if (const json::Value* metadata = props ? member(*props, "metadata") : nullptr) {
            metadataInvariants(*metadata, checkMetadata, level, keyPath(properties, "metadata"));
        }
        if (embedded && !isTrue(s, "x-kubernetes-preserve-unknown-fields") &&
            count(member(s, "properties")) == 0) {
            out_.push_back(at::required(properties,
                                        "must not be empty if x-kubernetes-embedded-resource is "
                                        "true without x-kubernetes-preserve-unknown-fields"));
        }
    }

  private:
    // At the root only name and generateName may be restricted: metadata is
    // the server's.
    void metadataInvariants(const json::Value& m, bool checkMetadata, Level level,
                            const Path& path) {
        if (checkMetadata && text(m, "type") != "object") {
            out_.push_back(at::invalid(childPath(path, "type"), text(m, "type"), "must be object"));
        }
        if (level != Level::Root || !m.IsObject()) {
            return;
        }
        bool other = false;
        for (const auto& member : m.GetObject()) {
            std::string_view name = json::view(member.name);
            if (name == "type" || name == "default" || isZero(member.value)) {
                continue;
            }
            if (name == "properties" && member.value.IsObject()) {
                bool onlyNames = true;
                for (const auto& p : member.value.GetObject()) {
                    std::string_view n = json::view(p.name);
                    onlyNames = onlyNames && (n == "name" || n == "generateName");
                }
                if (onlyNames) {
                    continue;
                }
            }
            other = true;
        }
        if (other) {
            out_.push_back(at::forbidden(path,
                                         "must not specify anything other than name and "
                                         "generateName, but metadata is implicitly specified"));
        }
    }

    void extensions(const json::Value& s, const Path& path) {
        if (!isTrue(s, "x-kubernetes-int-or-string")) {
            return;
        }
        if (isTrue(s, "x-kubernetes-preserve-unknown-fields")) {
            out_.push_back(at::invalid(childPath(path, "x-kubernetes-preserve-unknown-fields"),
                                       true,
                                       "must be false if x-kubernetes-int-or-string is true"));
        }
        if (isTrue(s, "x-kubernetes-embedded-resource")) {
            out_.push_back(at::invalid(childPath(path, "x-kubernetes-embedded-resource"), true,
                                       "must be false if x-kubernetes-int-or-string is true"));
        }
    }

    // anyOf: [{type: integer}, {type: string}] and nothing more.
    static bool isIntOrStringTerms(const json::Value* anyOf) {
        if (!anyOf || !anyOf->IsArray() || anyOf->Size() != 2) {
            return false;
        }
        const char* types[] = {"integer", "string"};
        for (rapidjson::SizeType i = 0; i < 2; ++i) {
            const json::Value& term = (*anyOf)[i];
            if (!term.IsObject() || term.MemberCount() != 1 || text(term, "type") != types[i]) {
                return false;
            }
        }
        return true;
    }

    static bool isIntOrStringAnyOf(const json::Value& s) {
        return isIntOrStringTerms(arrayAt(s, "anyOf"));
    }

    static bool isIntOrStringAllOf(const json::Value& s) {
        const json::Value* allOf = arrayAt(s, "allOf");
        return allOf && allOf->Size() >= 1 && isIntOrStringTerms(arrayAt((*allOf)[0], "anyOf"));
    }

    void valueValidation(const json::Value& v, bool skipAnyOf, bool skipFirstAllOfAnyOf,
                         Level level, const Path& path) {
        if (!skipAnyOf) {
            junctor(v, "anyOf", level, path, -1);
        }
        junctor(v, "allOf", level, path, skipFirstAllOfAnyOf ? 0 : -1);
        junctor(v, "oneOf", level, path, -1);
        if (const json::Value* n = objectAt(v, "not")) {
            nested(*n, false, level, childPath(path, "not"));
        }
        std::string pattern(text(v, "pattern"));
        if (!pattern.empty()) {
            std::string error;
            if (!cel::compileRegex(pattern, &error)) {
                out_.push_back(
                    at::invalid(childPath(path, "pattern"), pattern,
                                "must be a valid regular expression, but isn't: " + error));
            }
        }
    }

    // The terms of allOf/anyOf/oneOf; term `skipAnyOfAt` is the int-or-string
    // pattern's anyOf.
    void junctor(const json::Value& v, std::string_view name, Level level, const Path& path,
                 int skipAnyOfAt) {
        const json::Value* terms = arrayAt(v, name);
        if (!terms) {
            return;
        }
        Path at = childPath(path, name);
        for (rapidjson::SizeType i = 0; i < terms->Size(); ++i) {
            nested((*terms)[i], static_cast<int>(i) == skipAnyOfAt, level, indexPath(at, i));
        }
    }

    // A schema under a logic junctor may only validate values: it may not
    // say what the value is (type, defaults, descriptions, extensions).
    void nested(const json::Value& v, bool skipAnyOf, Level level, const Path& path) {
        if (!v.IsObject()) {
            return;
        }
        valueValidation(v, skipAnyOf, false, level, path);
        if (const json::Value* items = objectAt(v, "items")) {
            nested(*items, false, level, childPath(path, "items"));
        }
        Path properties = childPath(path, "properties");
        for (const auto& [name, p] : sortedMembers(objectAt(v, "properties"))) {
            nested(*p, false, Level::Field, keyPath(properties, name));
        }
        auto forbid = [&](std::string_view member, const char* why) {
            out_.push_back(at::forbidden(childPath(path, member), why));
        };
        if (!text(v, "type").empty()) {
            forbid("type", "must be empty to be structural");
        }
        if (member(v, "additionalProperties")) {
            forbid("additionalProperties", "must be undefined to be structural");
        }
        if (member(v, "default")) {
            forbid("default", "must be undefined to be structural");
        }
        if (!text(v, "title").empty()) {
            forbid("title", "must be empty to be structural");
        }
        if (!text(v, "description").empty()) {
            forbid("description", "must be empty to be structural");
        }
        if (isTrue(v, "nullable")) {
            forbid("nullable", "must be false to be structural");
        }
        if (member(v, "externalDocs")) {
            forbid("externalDocs", "must be undefined to be structural");
        }
        for (std::string_view x :
             {"x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
              "x-kubernetes-int-or-string"}) {
            if (isTrue(v, x)) {
                forbid(x, "must be false to be structural");
            }
        }
        if (count(member(v, "x-kubernetes-list-map-keys")) > 0) {
            forbid("x-kubernetes-list-map-keys", "must be empty to be structural");
        }
        if (member(v, "x-kubernetes-list-type")) {
            forbid("x-kubernetes-list-type", "must be undefined to be structural");
        }
        if (member(v, "x-kubernetes-map-type")) {
            forbid("x-kubernetes-map-type", "must be undefined to be structural");
        }
        if (count(member(v, "x-kubernetes-validations")) > 0) {
            forbid("x-kubernetes-validations", "must be empty to be structural");
        }
        const json::Value* props = objectAt(v, "properties");
        if (props && member(*props, "metadata")) {
            out_.push_back(at::forbidden(keyPath(properties, "metadata"),
                                         "must not be specified in a nested context"));
        }
    }

    Causes& out_;
};

// What the OpenAPI rules allow where they are (kube's specStandardValidatorV3).
struct Context {
    bool allowDefaults = true;
    std::string disallowDefaultsReason;
    bool insideResourceMeta = false;
    bool requireValidPropertyType = true;

    Context withForbiddenDefaults(std::string reason) const {
        Context c = *this;
        c.allowDefaults = false;
        c.disallowDefaultsReason = std::move(reason);
        return c;
    }
};

bool hasNewlines(std::string_view s) {
    return s.find_first_of("\r\n") != std::string_view::npos;
}

std::string_view trimSpace(std::string_view s) {
    size_t from = s.find_first_not_of(" \t\n\v\f\r");
    if (from == std::string_view::npos) {
        return {};
    }
    size_t to = s.find_last_not_of(" \t\n\v\f\r");
    return s.substr(from, to - from + 1);
}

// Mirrors ValidateCustomResourceDefinitionOpenAPISchema.
class OpenAPICheck {
  public:
    explicit OpenAPICheck(Causes& out) : out_(out) {}

    void schema(const json::Value& s, const Path& path, const Context& ctx, bool isRoot) {
        if (!s.IsObject()) {
            return;
        }
        standard(s, path, ctx);
        if (isTrue(s, "uniqueItems")) {
            out_.push_back(at::forbidden(childPath(path, "uniqueItems"),
                                         "uniqueItems cannot be set to true since the runtime "
                                         "complexity becomes quadratic"));
        }
        std::string_view type = text(s, "type");
        if (const json::Value* ap = member(s, "additionalProperties")) {
            if (count(member(s, "properties")) != 0 &&
                ((ap->IsBool() && !ap->GetBool()) || ap->IsObject())) {
                out_.push_back(
                    at::forbidden(childPath(path, "additionalProperties"),
                                  "additionalProperties and properties are mutual exclusive"));
            }
            if (ap->IsObject()) {
                Context sub = ctx.insideResourceMeta
                                  ? ctx.withForbiddenDefaults(
                                        "inside additionalProperties applying to object metadata")
                                  : ctx;
                schema(*ap, childPath(path, "additionalProperties"), sub, false);
            }
        }
        bool embedded = isTrue(s, "x-kubernetes-embedded-resource");
        Path properties = childPath(path, "properties");
        for (const auto& [name, p] : sortedMembers(objectAt(s, "properties"))) {
            Context sub = ctx;
            if ((isRoot || embedded) &&
                (name == "metadata" || name == "kind" || name == "apiVersion")) {
                sub.insideResourceMeta = true;
                if (isRoot) {
                    sub = sub.withForbiddenDefaults("in top-level " + std::string(name));
                }
            }
            schema(*p, keyPath(properties, name), sub, false);
        }
        if (const json::Value* n = objectAt(s, "not")) {
            schema(*n, childPath(path, "not"), ctx, false);
        }
        for (std::string_view junctor : {"allOf", "oneOf", "anyOf"}) {
            if (const json::Value* terms = arrayAt(s, junctor)) {
                Path at = childPath(path, junctor);
                for (rapidjson::SizeType i = 0; i < terms->Size(); ++i) {
                    schema((*terms)[i], indexPath(at, i), ctx, false);
                }
            }
        }
        Path definitions = childPath(path, "definitions");
        for (const auto& [name, d] : sortedMembers(objectAt(s, "definitions"))) {
            schema(*d, keyPath(definitions, name), ctx, false);
        }
        if (const json::Value* items = member(s, "items")) {
            if (items->IsArray()) {
                for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
                    schema((*items)[i], indexPath(childPath(path, "items"), i), ctx, false);
                }
            } else {
                schema(*items, childPath(path, "items"), ctx, false);
            }
        }
        Path dependencies = childPath(path, "dependencies");
        for (const auto& [name, d] : sortedMembers(objectAt(s, "dependencies"))) {
            schema(*d, keyPath(dependencies, name), ctx, false);
        }
        if (const json::Value* p = member(s, "x-kubernetes-preserve-unknown-fields");
            p && p->IsBool() && !p->GetBool()) {
            out_.push_back(at::invalid(childPath(path, "x-kubernetes-preserve-unknown-fields"),
                                       false, "must be true or undefined"));
        }
        mapType(s, path, type);
        listType(s, path, type);
        validationRules(s, path);
    }

  private:
    // specStandardValidatorV3.validate: what OpenAPI v3 in Kubernetes leaves out.
    void standard(const json::Value& s, const Path& path, const Context& ctx) {
        std::string_view type = text(s, "type");
        auto forbid = [&](std::string_view member, std::string why) {
            out_.push_back(at::forbidden(childPath(path, member), why));
        };
        if (ctx.requireValidPropertyType && !type.empty() && !isOpenAPIV3Type(type)) {
            out_.push_back(at::notSupported(childPath(path, "type"), type, openAPIV3Types()));
        }
        if (member(s, "default") && !ctx.allowDefaults) {
            std::string detail = "must not be set";
            if (!ctx.disallowDefaultsReason.empty()) {
                detail += " " + ctx.disallowDefaultsReason;
            }
            forbid("default", detail);
        }
        if (!text(s, "id").empty()) {
            forbid("id", "id is not supported");
        }
        if (member(s, "additionalItems")) {
            forbid("additionalItems", "additionalItems is not supported");
        }
        if (count(member(s, "patternProperties")) != 0) {
            forbid("patternProperties", "patternProperties is not supported");
        }
        if (count(member(s, "definitions")) != 0) {
            forbid("definitions", "definitions is not supported");
        }
        if (member(s, "dependencies")) {
            forbid("dependencies", "dependencies is not supported");
        }
        if (member(s, "$ref")) {
            forbid("$ref", "$ref is not supported");
        }
        if (type == "null") {
            forbid("type", "type cannot be set to null, use nullable as an alternative");
        }
        if (count(arrayAt(s, "items")) != 0) {
            forbid("items", "items must be a schema object and not an array");
        }
        if (ctx.insideResourceMeta && isTrue(s, "x-kubernetes-embedded-resource")) {
            forbid("x-kubernetes-embedded-resource", "must not be used inside of resource meta");
        }
    }

    void mapType(const json::Value& s, const Path& path, std::string_view type) {
        const json::Value* mt = member(s, "x-kubernetes-map-type");
        if (!mt) {
            return;
        }
        Path typePath = childPath(path, "type");
        const char* why = "must be object if x-kubernetes-map-type is specified";
        if (type != "object") {
            out_.push_back(type.empty() ? at::required(typePath, why)
                                        : at::invalid(typePath, type, why));
        }
        std::string_view value = mt->IsString() ? json::view(*mt) : std::string_view();
        if (value != "atomic" && value != "granular") {
            out_.push_back(at::notSupported(childPath(path, "x-kubernetes-map-type"), value,
                                            {"atomic", "granular"}));
        }
    }

    void listType(const json::Value& s, const Path& path, std::string_view type) {
        const json::Value* lt = member(s, "x-kubernetes-list-type");
        std::string_view listType = lt && lt->IsString() ? json::view(*lt) : std::string_view();
        const json::Value* items = member(s, "items");
        const json::Value* itemSchema = items && items->IsObject() ? items : nullptr;
        Path typePath = childPath(path, "type");
        Path ltPath = childPath(path, "x-kubernetes-list-type");
        Path itemsPath = childPath(path, "items");
        if (lt && type != "array") {
            const char* why = "must be array if x-kubernetes-list-type is specified";
            out_.push_back(type.empty() ? at::required(typePath, why)
                                        : at::invalid(typePath, type, why));
        } else if (lt && listType == "set" && itemSchema) {
            std::string_view itemType = text(*itemSchema, "type");
            const char* why = "must be atomic as item of a list with x-kubernetes-list-type=set";
            if (itemType == "array") {
                const json::Value* inner = member(*itemSchema, "x-kubernetes-list-type");
                if (inner && !(inner->IsString() && json::view(*inner) == "atomic")) {
                    out_.push_back(at::invalid(childPath(itemsPath, "x-kubernetes-list-type"),
                                               BadValue(*inner), why));
                }
            } else if (itemType == "object" &&
                       text(*itemSchema, "x-kubernetes-map-type") != "atomic") {
                // kube shows the items' list type here, which an object has
                // not: a nil *string, printed as the string "null".
                const json::Value* shown = member(*itemSchema, "x-kubernetes-list-type");
                out_.push_back(at::invalid(childPath(itemsPath, "x-kubernetes-map-type"),
                                           shown ? BadValue(*shown) : BadValue("null"), why));
            }
        }
        if (lt && listType != "atomic" && listType != "set" && listType != "map") {
            out_.push_back(at::notSupported(ltPath, listType, {"atomic", "set", "map"}));
        }
        const json::Value* keys = arrayAt(s, "x-kubernetes-list-map-keys");
        if (count(keys) > 0) {
            const char* why = "must be map if x-kubernetes-list-map-keys is non-empty";
            if (!lt) {
                out_.push_back(at::required(ltPath, why));
            } else if (listType != "map") {
                out_.push_back(at::invalid(ltPath, listType, why));
            }
        }
        if (lt && listType == "map") {
            mapList(path, keys, items, itemSchema);
        }
        if (lt && (listType == "set" || listType == "map") && itemSchema) {
            mapListKeysMapSet(*itemSchema, path, listType, keys);
        }
    }

    void mapList(const Path& path, const json::Value* keys, const json::Value* items,
                 const json::Value* itemSchema) {
        Path itemsPath = childPath(path, "items");
        Path keysPath = childPath(path, "x-kubernetes-list-map-keys");
        if (count(keys) == 0) {
            out_.push_back(
                at::required(keysPath, "must not be empty if x-kubernetes-list-type is map"));
        }
        if (!items) {
            out_.push_back(
                at::required(itemsPath, "must have a schema if x-kubernetes-list-type is map"));
        }
        if (items && !itemSchema) {
            out_.push_back(
                at::invalid(itemsPath, BadValue(*items),
                            "must only have a single schema if x-kubernetes-list-type is map"));
        }
        if (!itemSchema) {
            return;
        }
        std::string_view itemType = text(*itemSchema, "type");
        if (itemType != "object") {
            out_.push_back(
                at::invalid(childPath(itemsPath, "type"), itemType,
                            "must be object if parent array's x-kubernetes-list-type is map"));
            return;
        }
        if (!keys) {
            return;
        }
        const json::Value* props = objectAt(*itemSchema, "properties");
        std::set<std::string_view> seen;
        for (const json::Value& k : keys->GetArray()) {
            std::string_view key = k.IsString() ? json::view(k) : std::string_view();
            if (const json::Value* p = props ? member(*props, key) : nullptr) {
                std::string_view t = text(*p, "type");
                if (t == "array" || t == "object") {
                    // kube shows the items' type ("object") as the bad value.
                    out_.push_back(at::invalid(
                        childPath(keyPath(childPath(itemsPath, "properties"), key), "type"),
                        itemType,
                        "must be a scalar type if parent array's x-kubernetes-list-type is map"));
                }
            } else {
                out_.push_back(at::invalid(keysPath, field::goStringList(keys),
                                           "entries must all be names of item properties"));
            }
            if (!seen.insert(key).second) {
                out_.push_back(at::invalid(keysPath, field::goStringList(keys),
                                           "must not contain duplicate entries"));
            }
        }
    }

    // validateMapListKeysMapSet: the items of a set or map list, and the keys
    // of a map list, are never null; the keys are always there.
    void mapListKeysMapSet(const json::Value& itemSchema, const Path& path,
                           std::string_view listType, const json::Value* keys) {
        Path itemsPath = childPath(path, "items");
        if (isTrue(itemSchema, "nullable")) {
            out_.push_back(at::forbidden(
                childPath(itemsPath, "nullable"),
                "cannot be nullable when x-kubernetes-list-type is " + std::string(listType)));
        }
        if (listType != "map" || !keys) {
            return;
        }
        std::set<std::string_view> required;
        if (const json::Value* r = arrayAt(itemSchema, "required")) {
            for (const json::Value& name : r->GetArray()) {
                if (name.IsString()) {
                    required.insert(json::view(name));
                }
            }
        }
        const json::Value* props = objectAt(itemSchema, "properties");
        for (const json::Value& k : keys->GetArray()) {
            std::string_view key = k.IsString() ? json::view(k) : std::string_view();
            const json::Value* p = props ? member(*props, key) : nullptr;
            if (!p) {
                continue;
            }
            Path properties = childPath(itemsPath, "properties");
            Path at = keyPath(properties, key);
            if (!required.count(key) && !member(*p, "default")) {
                out_.push_back(at::required(childPath(at, "default"),
                                            "this property is in x-kubernetes-list-map-keys, so "
                                            "it must have a default or be a required property"));
            }
            if (isTrue(*p, "nullable")) {
                out_.push_back(at::forbidden(
                    childPath(at, "nullable"),
                    "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"));
            }
        }
    }

    // The static checks of x-kubernetes-validations (the CEL compilation is
    // not done here).
    void validationRules(const json::Value& s, const Path& path) {
        const json::Value* rules = arrayAt(s, "x-kubernetes-validations");
        if (!rules) {
            return;
        }
        Path at = childPath(path, "x-kubernetes-validations");
        for (rapidjson::SizeType i = 0; i < rules->Size(); ++i) {
            const json::Value& r = (*rules)[i];
            Path rulePath = indexPath(at, i);
            std::string_view rule = trimSpace(text(r, "rule"));
            std::string_view rawMessage = text(r, "message");
            std::string_view message = trimSpace(rawMessage);
            Path messagePath = childPath(rulePath, "message");
            if (rule.empty()) {
                out_.push_back(at::required(childPath(rulePath, "rule"), "rule is not specified"));
            } else if (!rawMessage.empty() && message.empty()) {
                out_.push_back(
                    at::invalid(messagePath, rawMessage, "message must be non-empty if specified"));
            } else if (hasNewlines(message)) {
                out_.push_back(
                    at::invalid(messagePath, rawMessage, "message must not contain line breaks"));
            } else if (hasNewlines(rule) && message.empty()) {
                out_.push_back(at::required(
                    messagePath, "message must be specified if rule contains line breaks"));
            }
            std::string_view messageExpression = text(r, "messageExpression");
            if (!messageExpression.empty() && trimSpace(messageExpression).empty()) {
                out_.push_back(at::required(childPath(rulePath, "messageExpression"),
                                            "messageExpression must be non-empty if specified"));
            }
            if (const json::Value* reason = member(r, "reason")) {
                std::string_view value =
                    reason->IsString() ? json::view(*reason) : std::string_view();
                if (value != "FieldValueDuplicate" && value != "FieldValueForbidden" &&
                    value != "FieldValueInvalid" && value != "FieldValueRequired") {
                    out_.push_back(at::notSupported(childPath(rulePath, "reason"), value,
                                                    {"FieldValueDuplicate", "FieldValueForbidden",
                                                     "FieldValueInvalid", "FieldValueRequired"}));
                }
            }
            std::string_view fieldPath = text(r, "fieldPath");
            Path fieldPathAt = childPath(rulePath, "fieldPath");
            if (!fieldPath.empty() && trimSpace(fieldPath).empty()) {
                out_.push_back(
                    at::invalid(fieldPathAt, fieldPath, "must be non-empty if specified"));
            }
            if (hasNewlines(fieldPath)) {
                out_.push_back(at::invalid(fieldPathAt, fieldPath, "must not contain line breaks"));
            }
        }
    }

    Causes& out_;
};

// The JSONSchemaProps fields in Go's declaration order, with whether the
// status subresource allows them at the root (allowedFieldsAtRootSchema).
struct RootField {
    std::string_view json;
    bool allowed;
};

constexpr RootField kRootFields[] = {
    {"id", false},
    {"$schema", false},
    {"$ref", false},
    {"description", true},
    {"type", true},
    {"nullable", false},
    {"format", true},
    {"title", true},
    {"default", false},
    {"maximum", true},
    {"exclusiveMaximum", true},
    {"minimum", true},
    {"exclusiveMinimum", true},
    {"maxLength", true},
    {"minLength", true},
    {"pattern", true},
    {"maxItems", true},
    {"minItems", true},
    {"uniqueItems", true},
    {"multipleOf", true},
    {"enum", false},
    {"maxProperties", false},
    {"minProperties", false},
    {"required", true},
    {"items", true},
    {"allOf", false},
    {"oneOf", false},
    {"anyOf", false},
    {"not", false},
    {"properties", true},
    {"additionalProperties", false},
    {"patternProperties", false},
    {"dependencies", false},
    {"additionalItems", false},
    {"definitions", false},
    {"externalDocs", true},
    {"example", true},
    {"x-kubernetes-preserve-unknown-fields", true},
    {"x-kubernetes-embedded-resource", false},
    {"x-kubernetes-int-or-string", false},
    {"x-kubernetes-list-map-keys", false},
    {"x-kubernetes-list-type", false},
    {"x-kubernetes-map-type", false},
    {"x-kubernetes-validations", true},
};

// With the status subresource, status's schema is taken from
// properties["status"]: the root may not validate anything that would be lost.
void statusRoot(const json::Value& schema, const std::string& path, Causes& out) {
    for (const RootField& f : kRootFields) {
        const json::Value* v = member(schema, f.json);
        if (!v || isZero(*v)) {
            continue;
        }
        if (f.json == "type") {
            std::string_view type = text(schema, "type");
            if (type != "object") {
                out.push_back(field::invalid(childPath(path, "type"), type,
                                             "only \"object\" is allowed as the type at the root "
                                             "of the schema if the status subresource is enabled"));
                return;
            }
            continue;
        }
        if (!f.allowed) {
            out.push_back(field::invalid(
                path, BadValue(schema),
                "only [Description Type Format Title Maximum ExclusiveMaximum Minimum "
                "ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems "
                "MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields "
                "XValidations] fields are allowed at the root of the schema if the status "
                "subresource is enabled"));
            return;
        }
    }
}

}  // namespace

namespace {

void validateSchemaHere(const json::Value& schema, const std::string& path,
                        const SchemaOptions& opts, Causes& out) {
    if (opts.statusEnabled) {
        statusRoot(schema, path, out);
    }
    if (isTrue(schema, "nullable")) {
        out.push_back(
            field::forbidden(childPath(path, "nullable"), "nullable cannot be true at the root"));
    }
    if (convertible(schema)) {
        Causes structural;
        StructuralCheck(structural).invariants(schema, Level::Root, Path(path));
        // kube sorts these by their error text: the field, then the message.
        std::stable_sort(structural.begin(), structural.end(),
                         [](const meta::StatusCause& a, const meta::StatusCause& b) {
                             return a.field + ": " + a.message < b.field + ": " + b.message;
                         });
        out.insert(out.end(), structural.begin(), structural.end());
        if (structural.empty()) {
            validateDefaults(schema, path, opts.requirePrunedDefaults, out);
        }
    }
    Context ctx;
    ctx.requireValidPropertyType = opts.requireValidPropertyType;
    OpenAPICheck(out).schema(schema, Path(path), ctx, true);
}

}  // namespace

// The walks recurse per schema level: a deep schema gets a stack for it.
void validateSchema(const json::Value& schema, const std::string& path, const SchemaOptions& opts,
                    Causes& out) {
    util::runWithStackFor(schema, [&] { validateSchemaHere(schema, path, opts, out); });
}

bool schemaHasDefaults(const json::Value& schema) {
    bool has = false;
    util::runWithStackFor(schema, [&] {
        has =
            schemaHas(schema, [](const json::Value& s) { return member(s, "default") != nullptr; });
    });
    return has;
}

bool schemaHasValidTypes(const json::Value& schema) {
    bool invalid = false;
    util::runWithStackFor(schema, [&] {
        invalid = schemaHas(schema, [](const json::Value& s) {
            std::string_view type = text(s, "type");
            return !type.empty() && !isOpenAPIV3Type(type);
        });
    });
    return !invalid;
}

}  // namespace kube::apis::apiextensions
