#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/apiextensions/structural_schema.hpp"
#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// What the structural-schema files share: kube's field.Path, Go's printing
// and equality of unstructured values, and the walks the CRD checks reuse
// on defaults (pruning, the OpenAPI validator, embedded ObjectMeta).
namespace kube::apis::apiextensions::structural {

namespace json = util::json;

// A field.Path as a chain of steps on the stack, spelled out only for an
// error: building a string at every node of a walk would allocate per node.
class FieldPath {
  public:
    // The nil path (kube prints it "<nil>").
    FieldPath() = default;
    explicit FieldPath(std::string_view root) : root_(root), nil_(false) {}

    FieldPath child(std::string_view name) const { return FieldPath(this, Step::Child, name, 0); }
    FieldPath key(std::string_view k) const { return FieldPath(this, Step::Key, k, 0); }
    FieldPath index(size_t i) const { return FieldPath(this, Step::Index, {}, i); }

    bool nil() const;
    // Rendered as field.Path.String: "spec.ports[0].name", "metadata.labels[a]".
    std::string str() const;

  private:
    enum class Step { Child, Key, Index };
    FieldPath(const FieldPath* parent, Step step, std::string_view name, size_t i)
        : parent_(parent), step_(step), name_(name), index_(i), nil_(false) {}

    const FieldPath* parent_ = nullptr;
    std::string_view root_;
    Step step_ = Step::Child;
    std::string_view name_;
    size_t index_ = 0;
    bool nil_ = true;
};

// Go's %v of an unstructured value inside a field error (field.Error's
// ErrorBody): strings quoted, numbers and booleans bare, null as "null",
// maps and slices as %#v (`map[string]interface {}{"a":1}`).
core::field::BadValue goValue(const json::Value& v);
// Go's %#v of an unstructured value.
std::string goSharpV(const json::Value& v);
// reflect.DeepEqual of two unstructured values: an int64 never equals a
// float64, members compare by name.
bool goDeepEqual(const json::Value& a, const json::Value& b);
// json.Marshal of an unstructured value (keys sorted).
std::string goMarshal(const json::Value& v);

// Mirrors pruning.PruneWithOptions; the paths of the removed fields, sorted.
std::vector<std::string> prune(json::Value& x, const StructuralNode* s, bool isResourceRoot,
                               bool trackPaths);

// Mirrors apiservervalidation.ValidateCustomResource with a kube-openapi
// validator of `s` rooted at "": causes under `fldPath` (nil for a custom
// resource, ".default" of a schema node for its default).
void validateOpenAPI(const StructuralNode& s, const json::Value& x, const FieldPath& fldPath,
                     core::field::Causes& out);

// Mirrors objectmeta.Validate: apiVersion, kind and metadata of embedded
// resources (and of `x` itself when isResourceRoot).
void validateEmbeddedObjectMeta(const FieldPath& pth, const json::Value& x, const StructuralNode* s,
                                bool isResourceRoot, core::field::Causes& out);

// Mirrors objectmeta.Coerce without dropping: the first apiVersion or kind
// that is no string, or metadata that is no ObjectMeta, in an embedded
// resource.
std::optional<meta::StatusCause> coerceEmbeddedObjectMeta(const FieldPath& pth,
                                                          const json::Value& x,
                                                          const StructuralNode* s,
                                                          bool isResourceRoot);

// Mirrors listtype.ValidateListSetsAndMaps.
void validateListSetsAndMaps(const FieldPath& pth, const StructuralNode& s, const json::Value& obj,
                             core::field::Causes& out);

// Whether `format` is one kube validates, and whether `value` is of it.
bool isSupportedFormat(std::string_view format);
bool isOfFormat(std::string_view format, std::string_view value);

}  // namespace kube::apis::apiextensions::structural
