// TypeRef of a custom resource, read from its version's structural schema.
// Mirrors the smd schema kube's CRD handler gives a custom resource's field
// manager (the OpenAPI its builder makes from the structural schema, read by
// kube-openapi's schemaconv):
//   - an object is a struct of its properties, or a map of its
//     additionalProperties schema; granular unless x-kubernetes-map-type is
//     "atomic"; x-kubernetes-preserve-unknown-fields without properties makes
//     it untyped (deduced), with properties its unknown members untyped
//     (the resource's root stays a struct, for its metadata);
//   - an array is atomic unless x-kubernetes-list-type says "set" or "map"
//     (keyed by x-kubernetes-list-map-keys);
//   - the resource's and each embedded resource's metadata is an ObjectMeta,
//     apiVersion and kind are strings;
//   - a node without a type (and int-or-string) is a scalar unless it
//     preserves unknown fields.
#include "apis/apiextensions/structural_schema.hpp"
#include "kapi/meta.pb.h"
#include "registry/apply/type_ref.hpp"

namespace kube::registry::apply {

using apis::apiextensions::StructuralNode;

TypeRef TypeRef::forStructural(const StructuralNode* root) {
    TypeRef t = ofNode(root);
    if (root && t.kind_ == Kind::Untyped) {
        // An object that keeps every field still has its ObjectMeta.
        t.kind_ = Kind::Struct;
        t.node_ = root;
    }
    if (t.kind_ == Kind::Struct) {
        t.resourceRoot_ = true;
    }
    return t;
}

TypeRef TypeRef::ofNode(const StructuralNode* n) {
    TypeRef t;
    if (!n) {
        return t;
    }
    if (n->intOrString) {
        t.kind_ = Kind::Scalar;
        return t;
    }
    if (n->hasType("array")) {
        t.kind_ = Kind::List;
        t.node_ = n;
        if (n->listType == "set") {
            t.listType_ = ListType::Set;
        } else if (n->listType == "map") {
            t.listType_ = ListType::Map;
        }
        t.atomic_ = t.listType_ == ListType::Atomic;
        return t;
    }
    bool object = n->hasType("object") || n->embeddedResource;
    if (!object) {
        if (!n->preserveUnknownFields) {
            t.kind_ = Kind::Scalar;
        }
        return t;
    }
    if (n->embeddedResource || !n->properties.empty()) {
        t.kind_ = Kind::Struct;
        t.resourceRoot_ = n->embeddedResource;
    } else if (n->additionalProperties) {
        t.kind_ = Kind::Map;
    } else if (n->preserveUnknownFields) {
        return t;
    } else {
        // No properties at all: a struct without fields (or a map of any
        // values when additionalProperties is true).
        t.kind_ =
            n->hasAdditionalProperties && n->additionalPropertiesAllowed ? Kind::Map : Kind::Struct;
    }
    t.node_ = n;
    t.atomic_ = n->mapType == "atomic";
    return t;
}

TypeRef TypeRef::nodeMember(std::string_view name, bool* declared) const {
    if (kind_ == Kind::Map) {
        return ofNode(node_->additionalProperties);
    }
    if (kind_ != Kind::Struct) {
        return untyped();
    }
    if (resourceRoot_) {
        if (name == "metadata") {
            *declared = true;
            return forMessage(kapi::meta::v1::ObjectMeta::descriptor());
        }
        if ((name == "apiVersion" || name == "kind") && !node_->property(name)) {
            *declared = true;
            TypeRef t;
            t.kind_ = Kind::Scalar;
            return t;
        }
    }
    if (const StructuralNode* p = node_->property(name)) {
        *declared = true;
        return ofNode(p);
    }
    // Members the schema lacks (kept by x-kubernetes-preserve-unknown-fields)
    // are deduced, as smd's element type of such an object.
    return untyped();
}

std::optional<ItemValue> TypeRef::nodeKeyDefault(const std::string& name) const {
    if (kind_ != Kind::List || !node_->items) {
        return std::nullopt;
    }
    const StructuralNode* key = node_->items->property(name);
    if (!key || !key->defaultValue) {
        return std::nullopt;
    }
    return ItemValue::from(*key->defaultValue);
}

}  // namespace kube::registry::apply
