#include "apis/apiextensions/default_validation.hpp"

#include <vector>

#include "apis/apiextensions/structural_schema.hpp"
#include "apis/apiextensions/structural_walks.hpp"
#include "util/deep_stack.hpp"

namespace kube::apis::apiextensions {

namespace json = util::json;
namespace field = core::field;

namespace {

// The object a default inside apiVersion, kind or metadata ends up in:
// kube's RootObjectFunc with the TypeMeta validation/v1 Validation, the
// default placed at its path from the resource.
void surroundingObject(const StructuralSchema::Defaulted& d, json::Document& obj) {
    json::Allocator& a = obj.GetAllocator();
    json::Value v(*d.original, a);
    for (auto it = d.pathFromResource.rbegin(); it != d.pathFromResource.rend(); ++it) {
        json::Value outer;
        if (*it == "[]") {
            outer.SetArray();
            outer.PushBack(v, a);
        } else {
            outer.SetObject();
            outer.AddMember(json::stringValue(*it, a), v, a);
        }
        v = outer;
    }
    obj.SetObject();
    obj.AddMember("apiVersion", "validation/v1", a);
    obj.AddMember("kind", "Validation", a);
    if (v.IsObject()) {
        for (auto& m : v.GetObject()) {
            json::setMember(obj, json::view(m.name), json::Value(m.value, a), a);
        }
    }
}

// Whether some object in `v` has a member "default" (a property so named
// counts too: then the schema is compiled for nothing). Iterative, so that it
// costs no thread for a deep schema; most schemas have no default at all.
bool mayHaveDefaults(const json::Value& v) {
    std::vector<const json::Value*> stack{&v};
    while (!stack.empty()) {
        const json::Value* x = stack.back();
        stack.pop_back();
        if (x->IsObject()) {
            for (const auto& m : x->GetObject()) {
                if (json::view(m.name) == "default") {
                    return true;
                }
                stack.push_back(&m.value);
            }
        } else if (x->IsArray()) {
            for (const json::Value& e : x->GetArray()) {
                stack.push_back(&e);
            }
        }
    }
    return false;
}

// field.ErrorList.ToAggregate().Error().
std::string aggregate(const field::Causes& errs) {
    std::string out = errs.size() > 1 ? "[" : "";
    for (size_t i = 0; i < errs.size(); ++i) {
        out += (i ? ", " : "") + errs[i].field + ": " + errs[i].message;
    }
    return out + (errs.size() > 1 ? "]" : "");
}

void validateDefault(const StructuralSchema::Defaulted& d, const std::string& path,
                     bool requirePrunedDefaults, field::Causes& out) {
    std::string at = path + d.schemaPath + ".default";
    const json::Value& def = *d.original;
    structural::FieldPath defaultPath(at);
    if (d.insideMeta) {
        json::Document obj;
        surroundingObject(d, obj);
        structural::FieldPath nil;
        if (auto err = structural::coerceEmbeddedObjectMeta(nil, obj, d.resourceRoot, true)) {
            out.push_back(field::invalid(
                at, structural::goValue(def),
                "must result in valid metadata: " + err->field + ": " + err->message));
            return;
        }
        field::Causes errs;
        structural::validateEmbeddedObjectMeta(nil, obj, d.resourceRoot, true, errs);
        if (!errs.empty()) {
            out.push_back(field::invalid(at, structural::goValue(def),
                                         "must result in valid metadata: " + aggregate(errs)));
            return;
        }
        structural::validateOpenAPI(*d.node, def, defaultPath, out);
        return;
    }
    bool embedded = d.node->embeddedResource;
    if (requirePrunedDefaults) {
        json::Document pruned;
        pruned.CopyFrom(def, pruned.GetAllocator());
        structural::prune(pruned, d.node, embedded, false);
        if (!structural::goDeepEqual(pruned, def)) {
            out.push_back(
                field::invalid(at, structural::goValue(def), "must not have unknown fields"));
        }
    }
    if (auto err = structural::coerceEmbeddedObjectMeta(defaultPath, def, d.node, embedded)) {
        out.push_back(std::move(*err));
        return;
    }
    field::Causes errs;
    structural::validateEmbeddedObjectMeta(defaultPath, def, d.node, embedded, errs);
    if (!errs.empty()) {
        out.insert(out.end(), errs.begin(), errs.end());
        return;
    }
    structural::validateOpenAPI(*d.node, def, defaultPath, out);
}

}  // namespace

void validateDefaults(const json::Value& schema, const std::string& path,
                      bool requirePrunedDefaults, field::Causes& out) {
    if (!mayHaveDefaults(schema)) {
        return;
    }
    std::shared_ptr<const StructuralSchema> s = compileStructuralSchema(schema);
    // The checks recurse per level of the defaults, which are in the schema.
    util::runWithStackFor(schema, [&] {
        for (const StructuralSchema::Defaulted& d : s->defaulted()) {
            validateDefault(d, path, requirePrunedDefaults, out);
        }
    });
}

bool schemaHasUnprunedDefaults(const json::Value& schema) {
    if (!mayHaveDefaults(schema)) {
        return false;
    }
    std::shared_ptr<const StructuralSchema> s = compileStructuralSchema(schema);
    bool unpruned = false;
    util::runWithStackFor(schema, [&] {
        for (const StructuralSchema::Defaulted& d : s->defaulted()) {
            unpruned = unpruned || !structural::goDeepEqual(*d.original, *d.node->defaultValue);
        }
    });
    return unpruned;
}

}  // namespace kube::apis::apiextensions
