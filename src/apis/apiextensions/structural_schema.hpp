#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/json.hpp"

namespace re2 {
class RE2;
}

// The structural schema of a CustomResourceDefinition version: its
// openAPIV3Schema read once into a tree the custom resources' validation,
// pruning and defaulting walk (mirrors apiserver/schema.Structural together
// with the kube-openapi validator kube builds from the same schema).
namespace kube::apis::apiextensions {

// One node of the schema. Read-only once compiled; the validators and walks
// of the other files follow these links.
struct StructuralNode {
    // `type`, or integer,string for x-kubernetes-int-or-string ("" when none).
    std::string type;
    bool nullable = false;
    bool preserveUnknownFields = false;
    bool embeddedResource = false;
    bool intOrString = false;
    // Only the formats kube validates (StripUnsupportedFormatsPostProcess).
    std::string format;

    std::optional<double> maximum;
    std::optional<double> minimum;
    bool exclusiveMaximum = false;
    bool exclusiveMinimum = false;
    std::optional<double> multipleOf;
    std::optional<int64_t> maxLength;
    std::optional<int64_t> minLength;
    std::optional<int64_t> maxItems;
    std::optional<int64_t> minItems;
    std::optional<int64_t> maxProperties;
    std::optional<int64_t> minProperties;
    std::string pattern;
    // Null when the pattern does not compile (the check reports that).
    std::shared_ptr<const re2::RE2> patternRegex;
    std::string patternError;
    bool uniqueItems = false;
    // Values in the schema's own document.
    std::vector<const util::json::Value*> enumValues;
    bool hasEnum = false;
    std::vector<std::string> required;

    // Sorted by name, and indexed by name (views into `properties`).
    std::vector<std::pair<std::string, const StructuralNode*>> properties;
    std::unordered_map<std::string_view, const StructuralNode*> propertyIndex;
    const StructuralNode* items = nullptr;
    // additionalProperties: absent, a boolean, or a schema.
    bool hasAdditionalProperties = false;
    bool additionalPropertiesAllowed = true;
    const StructuralNode* additionalProperties = nullptr;

    std::vector<const StructuralNode*> allOf;
    std::vector<const StructuralNode*> anyOf;
    std::vector<const StructuralNode*> oneOf;
    const StructuralNode* notSchema = nullptr;

    // x-kubernetes-list-type ("" when unset) and x-kubernetes-list-map-keys.
    std::string listType;
    std::vector<std::string> listMapKeys;
    // x-kubernetes-map-type ("" when unset).
    std::string mapType;

    // The default, pruned as kube prunes defaults (PruneDefaults); null when
    // there is none. Points into the schema's own document.
    const util::json::Value* defaultValue = nullptr;

    // Whether `type` names `t` (several types are comma-separated).
    bool hasType(std::string_view t) const;
    // properties[name], or null.
    const StructuralNode* property(std::string_view name) const;
    // The schema of member `name` of an object: its property, else the
    // additionalProperties schema (null for none or a boolean).
    const StructuralNode* fieldSchema(std::string_view name) const;
};

// Compiled once per CRD version; immutable, shared between threads.
class StructuralSchema {
  public:
    const StructuralNode& root() const { return *root_; }
    // Whether walks of this schema may recurse deeper than a worker's stack
    // allows (schemas nested more than a few hundred levels).
    bool deep() const { return deep_; }
    // Every node that has a default, with its path in the schema
    // ("properties[spec].properties[replicas]"), in name order.
    struct Defaulted {
        std::string schemaPath;
        const StructuralNode* node;
        // The node's nearest embedded resource (or the root), its path from
        // there, and whether it lies inside that resource's apiVersion, kind
        // or metadata.
        const StructuralNode* resourceRoot;
        std::vector<std::string> pathFromResource;  // "*" a key, "[]" an item
        bool insideMeta;
        // The default as the CRD wrote it, before pruning.
        const util::json::Value* original;
    };
    const std::vector<Defaulted>& defaulted() const { return defaulted_; }

    // Runs `fn` (a walk of `obj` along this schema), on a thread with a deep
    // stack when `obj` or the schema nests deeply: the walks recurse once per
    // level of both.
    void walk(const util::json::Value& obj, const std::function<void()>& fn) const;

  private:
    friend std::shared_ptr<const StructuralSchema> compileStructuralSchema(
        const util::json::Value& openAPIV3Schema);
    friend class SchemaCompiler;

    util::json::Document doc_;
    // The pruned defaults, allocated with doc_'s allocator.
    std::vector<std::unique_ptr<util::json::Value>> prunedDefaults_;
    std::vector<std::unique_ptr<StructuralNode>> nodes_;
    const StructuralNode* root_ = nullptr;
    bool deep_ = false;
    std::vector<Defaulted> defaulted_;
};

// From a version's openAPIV3Schema that passed CRD validation (validateSchema
// in schema_validation.hpp). Never fails: what kube would refuse earlier is
// read as best it can be.
std::shared_ptr<const StructuralSchema> compileStructuralSchema(
    const util::json::Value& openAPIV3Schema);

}  // namespace kube::apis::apiextensions
