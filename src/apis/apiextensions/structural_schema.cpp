#include "apis/apiextensions/structural_schema.hpp"

#include <algorithm>

#include "apis/apiextensions/json_members.hpp"
#include "apis/apiextensions/structural_walks.hpp"
#include "cel/regex.hpp"
#include "util/deep_stack.hpp"

namespace kube::apis::apiextensions {

namespace json = util::json;

bool StructuralNode::hasType(std::string_view t) const {
    std::string_view rest = type;
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        if (rest.substr(0, comma) == t) {
            return true;
        }
        if (comma == std::string_view::npos) {
            break;
        }
        rest.remove_prefix(comma + 1);
    }
    return false;
}

const StructuralNode* StructuralNode::property(std::string_view name) const {
    if (properties.empty()) {
        return nullptr;
    }
    auto it = propertyIndex.find(name);
    return it != propertyIndex.end() ? it->second : nullptr;
}

const StructuralNode* StructuralNode::fieldSchema(std::string_view name) const {
    if (const StructuralNode* p = property(name)) {
        return p;
    }
    return additionalProperties;
}

// Schemas nested deeper than this are walked on a deep stack.
constexpr int kShallowSchemaDepth = 200;

// Builds the nodes of a schema that passed CRD validation; recursion per
// schema level (the caller gives it a stack for the schema's depth).
class SchemaCompiler {
  public:
    explicit SchemaCompiler(StructuralSchema& out) : out_(out) {}

    const StructuralNode* build(const json::Value& s, int depth) {
        maxDepth_ = std::max(maxDepth_, depth);
        auto owned = std::make_unique<StructuralNode>();
        StructuralNode& n = *owned;
        out_.nodes_.push_back(std::move(owned));
        if (!s.IsObject()) {
            return &n;
        }
        n.intOrString = isTrue(s, "x-kubernetes-int-or-string");
        n.type = n.intOrString ? "integer,string" : std::string(text(s, "type"));
        n.nullable = isTrue(s, "nullable");
        n.preserveUnknownFields = isTrue(s, "x-kubernetes-preserve-unknown-fields");
        n.embeddedResource = isTrue(s, "x-kubernetes-embedded-resource");
        if (structural::isSupportedFormat(text(s, "format"))) {
            n.format = text(s, "format");
        }
        n.maximum = number(s, "maximum");
        n.minimum = number(s, "minimum");
        n.exclusiveMaximum = isTrue(s, "exclusiveMaximum");
        n.exclusiveMinimum = isTrue(s, "exclusiveMinimum");
        n.multipleOf = number(s, "multipleOf");
        n.maxLength = integer(s, "maxLength");
        n.minLength = integer(s, "minLength");
        n.maxItems = integer(s, "maxItems");
        n.minItems = integer(s, "minItems");
        n.maxProperties = integer(s, "maxProperties");
        n.minProperties = integer(s, "minProperties");
        n.pattern = text(s, "pattern");
        if (!n.pattern.empty()) {
            n.patternRegex = cel::compileRegex(n.pattern, &n.patternError);
        }
        n.uniqueItems = isTrue(s, "uniqueItems");
        if (const json::Value* e = arrayAt(s, "enum")) {
            n.hasEnum = e->Size() > 0;
            for (const json::Value& v : e->GetArray()) {
                n.enumValues.push_back(&v);
            }
        }
        if (const json::Value* r = arrayAt(s, "required")) {
            for (const json::Value& name : r->GetArray()) {
                if (name.IsString()) {
                    n.required.emplace_back(json::view(name));
                }
            }
        }
        if (const json::Value* props = objectAt(s, "properties")) {
            for (const auto& m : props->GetObject()) {
                n.properties.emplace_back(std::string(json::view(m.name)),
                                          build(m.value, depth + 1));
            }
            std::sort(n.properties.begin(), n.properties.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
            n.propertyIndex.reserve(n.properties.size());
            for (const auto& [name, p] : n.properties) {
                n.propertyIndex.emplace(name, p);
            }
        }
        if (const json::Value* items = objectAt(s, "items")) {
            n.items = build(*items, depth + 1);
        }
        if (const json::Value* ap = member(s, "additionalProperties")) {
            n.hasAdditionalProperties = true;
            if (ap->IsBool()) {
                n.additionalPropertiesAllowed = ap->GetBool();
            } else if (ap->IsObject()) {
                n.additionalProperties = build(*ap, depth + 1);
            }
        }
        junctor(s, "allOf", n.allOf, depth);
        junctor(s, "anyOf", n.anyOf, depth);
        junctor(s, "oneOf", n.oneOf, depth);
        if (const json::Value* no = objectAt(s, "not")) {
            n.notSchema = build(*no, depth + 1);
        }
        n.listType = text(s, "x-kubernetes-list-type");
        n.mapType = text(s, "x-kubernetes-map-type");
        if (const json::Value* keys = arrayAt(s, "x-kubernetes-list-map-keys")) {
            for (const json::Value& k : keys->GetArray()) {
                if (k.IsString()) {
                    n.listMapKeys.emplace_back(json::view(k));
                }
            }
        }
        if (const json::Value* d = json::member(s, "default"); d && !d->IsNull()) {
            n.defaultValue = d;
        }
        return &n;
    }

    int maxDepth() const { return maxDepth_; }

  private:
    static std::optional<double> number(const json::Value& s, std::string_view name) {
        const json::Value* v = member(s, name);
        return v && v->IsNumber() ? std::optional<double>(v->GetDouble()) : std::nullopt;
    }

    static std::optional<int64_t> integer(const json::Value& s, std::string_view name) {
        const json::Value* v = member(s, name);
        if (!v || !v->IsNumber()) {
            return std::nullopt;
        }
        return v->IsInt64() ? v->GetInt64() : static_cast<int64_t>(v->GetDouble());
    }

    void junctor(const json::Value& s, std::string_view name,
                 std::vector<const StructuralNode*>& out, int depth) {
        if (const json::Value* terms = arrayAt(s, name)) {
            for (const json::Value& t : terms->GetArray()) {
                out.push_back(build(t, depth + 1));
            }
        }
    }

    StructuralSchema& out_;
    int maxDepth_ = 0;
};

namespace {

// Mirrors the order and paths of defaulting.ValidateDefaults: the node,
// its items, then its properties (additionalProperties may not default).
// The paths are kept as stacks of steps and spelled out only at a default:
// a string per level would cost O(depth²) on a schema nested thousands deep.
class DefaultsWalk {
  public:
    explicit DefaultsWalk(std::vector<StructuralSchema::Defaulted>& out) : out_(out) {}

    // The root counts as an embedded resource (isResourceRoot).
    void visit(const StructuralNode& s, const StructuralNode* root, size_t rootAt, bool insideMeta,
               bool isRoot = false) {
        bool embedded = isRoot || s.embeddedResource;
        if (embedded) {
            root = &s;
            rootAt = steps_.size();
            insideMeta = false;
        }
        if (s.defaultValue) {
            StructuralSchema::Defaulted d{{}, &s, root, {}, insideMeta, s.defaultValue};
            for (size_t i = 0; i < steps_.size(); ++i) {
                const Step& step = steps_[i];
                d.schemaPath += step.item ? std::string(".items")
                                          : ".properties[" + std::string(step.name) + "]";
                if (i >= rootAt) {
                    d.pathFromResource.emplace_back(step.item ? "[]" : std::string(step.name));
                }
            }
            out_.push_back(std::move(d));
        }
        if (s.items) {
            steps_.push_back({true, {}});
            visit(*s.items, root, rootAt, insideMeta);
            steps_.pop_back();
        }
        for (const auto& [name, p] : s.properties) {
            bool meta =
                insideMeta ||
                (embedded && (name == "metadata" || name == "apiVersion" || name == "kind"));
            steps_.push_back({false, name});
            visit(*p, root, rootAt, meta);
            steps_.pop_back();
        }
    }

  private:
    struct Step {
        bool item;
        std::string_view name;
    };
    std::vector<StructuralSchema::Defaulted>& out_;
    std::vector<Step> steps_;
};

// Mirrors PruneDefaults: every default is pruned as the object it would be
// part of, from the root; inside the apiVersion, kind or metadata of the
// root or of an embedded resource nothing is pruned.
void pruneDefaults(StructuralSchema& schema, std::vector<std::unique_ptr<json::Value>>& out,
                   json::Allocator& a) {
    for (const StructuralSchema::Defaulted& d : schema.defaulted()) {
        auto copy = std::make_unique<json::Value>(*d.original, a);
        bool underMeta = d.insideMeta;
        if (!underMeta) {
            structural::prune(*copy, d.node, false, false);
        }
        const_cast<StructuralNode*>(d.node)->defaultValue = copy.get();
        out.push_back(std::move(copy));
    }
}

}  // namespace

void StructuralSchema::walk(const json::Value& obj, const std::function<void()>& fn) const {
    util::runWithStackFor(deep_ ? doc_ : obj, fn);
}

std::shared_ptr<const StructuralSchema> compileStructuralSchema(
    const json::Value& openAPIV3Schema) {
    auto schema = std::make_shared<StructuralSchema>();
    util::runWithStackFor(openAPIV3Schema, [&] {
        schema->doc_.CopyFrom(openAPIV3Schema, schema->doc_.GetAllocator());
        SchemaCompiler compiler(*schema);
        schema->root_ = compiler.build(schema->doc_, 1);
        schema->deep_ = compiler.maxDepth() > kShallowSchemaDepth;
        DefaultsWalk(schema->defaulted_).visit(*schema->root_, schema->root_, 0, false, true);
        pruneDefaults(*schema, schema->prunedDefaults_, schema->doc_.GetAllocator());
    });
    return schema;
}

}  // namespace kube::apis::apiextensions
