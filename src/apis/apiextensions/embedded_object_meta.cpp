// The apiVersion, kind and metadata of x-kubernetes-embedded-resource
// objects in custom resources; mirrors apiserver/schema/objectmeta
// (Validate and Coerce).
#include "apis/apiextensions/json_members.hpp"
#include "apis/apiextensions/structural_walks.hpp"
#include "registry/validation.hpp"

namespace kube::apis::apiextensions::structural {

namespace {

namespace field = core::field;
using field::BadValue;

// The members of metav1.ObjectMeta that are strings.
constexpr std::string_view kStringFields[] = {
    "name", "generateName",    "namespace",         "selfLink",
    "uid",  "resourceVersion", "creationTimestamp", "deletionTimestamp"};

std::string_view goJSONType(const json::Value& v) {
    return json::typeName(v);
}

// What json.Unmarshal into a metav1.ObjectMeta says of `metadata`, for the
// mistakes a client can make in the fields it writes; nullopt when it
// decodes.
std::optional<std::string> objectMetaError(const json::Value& metadata) {
    if (metadata.IsNull()) {
        return std::nullopt;
    }
    if (!metadata.IsObject()) {
        return "json: cannot unmarshal " + std::string(goJSONType(metadata)) +
               " into Go value of type v1.ObjectMeta";
    }
    auto fieldError = [](const json::Value& v, std::string_view name, std::string_view type) {
        return "json: cannot unmarshal " + std::string(goJSONType(v)) +
               " into Go struct field ObjectMeta." + std::string(name) + " of type " +
               std::string(type);
    };
    for (const auto& m : metadata.GetObject()) {
        std::string_view name = json::view(m.name);
        const json::Value& v = m.value;
        if (v.IsNull()) {
            continue;
        }
        for (std::string_view f : kStringFields) {
            if (name == f && !v.IsString()) {
                return fieldError(
                    v, name, f.find("Timestamp") != std::string_view::npos ? "v1.Time" : "string");
            }
        }
        if ((name == "generation" || name == "deletionGracePeriodSeconds") &&
            !(v.IsInt64() ||
              (v.IsNumber() && v.GetDouble() == static_cast<int64_t>(v.GetDouble())))) {
            return fieldError(v, name, "int64");
        }
        if (name == "labels" || name == "annotations") {
            if (!v.IsObject()) {
                return fieldError(v, name, "map[string]string");
            }
            for (const auto& kv : v.GetObject()) {
                if (!kv.value.IsString() && !kv.value.IsNull()) {
                    return fieldError(kv.value, name, "string");
                }
            }
        }
        if ((name == "ownerReferences" || name == "finalizers" || name == "managedFields") &&
            !v.IsArray()) {
            return fieldError(v, name,
                              name == "finalizers"        ? "[]string"
                              : name == "ownerReferences" ? "[]v1.OwnerReference"
                                                          : "[]v1.ManagedFieldsEntry");
        }
    }
    return std::nullopt;
}

// schema.ParseGroupVersion's error, if any.
std::optional<std::string> parseGroupVersionError(std::string_view gv) {
    size_t slash = gv.find('/');
    if (slash != std::string_view::npos && gv.find('/', slash + 1) != std::string_view::npos) {
        return "unexpected GroupVersion string: " + std::string(gv);
    }
    return std::nullopt;
}

void validateEmbeddedResource(const FieldPath& pth, const json::Value& x, field::Causes& out) {
    if (!json::member(x, "apiVersion")) {
        out.push_back(field::required(pth.child("apiVersion").str(), "must not be empty"));
    }
    if (!json::member(x, "kind")) {
        out.push_back(field::required(pth.child("kind").str(), "must not be empty"));
    }
    if (const json::Value* v = json::member(x, "apiVersion")) {
        std::string path = pth.child("apiVersion").str();
        if (!v->IsString()) {
            out.push_back(field::invalid(path, goValue(*v), "must be a string"));
        } else if (v->GetStringLength() == 0) {
            out.push_back(field::invalid(path, "", "must not be empty"));
        } else if (auto err = parseGroupVersionError(json::view(*v))) {
            out.push_back(field::invalid(path, json::view(*v), *err));
        }
    }
    if (const json::Value* v = json::member(x, "kind")) {
        std::string path = pth.child("kind").str();
        if (!v->IsString()) {
            out.push_back(field::invalid(path, goValue(*v), "must be a string"));
        } else if (v->GetStringLength() == 0) {
            out.push_back(field::invalid(path, "", "must not be empty"));
        } else {
            std::string lower(json::view(*v));
            for (char& c : lower) {
                c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            }
            std::vector<std::string> errs = registry::validation::isDNS1035Label(lower);
            if (!errs.empty()) {
                std::string joined;
                for (const std::string& e : errs) {
                    joined += (joined.empty() ? "" : ",") + e;
                }
                out.push_back(
                    field::invalid(path, json::view(*v),
                                   "may have mixed case, but should otherwise match: " + joined));
            }
        }
    }
    if (const json::Value* m = json::member(x, "metadata")) {
        std::string path = pth.child("metadata").str();
        if (auto err = objectMetaError(*m)) {
            out.push_back(field::invalid(path, goValue(*m), *err));
            return;
        }
        // kube names a nameless embedded object "fakename" to validate the rest.
        json::Document named;
        const json::Value* meta = m;
        if (text(m, "name").empty()) {
            named.SetObject();
            if (m->IsObject()) {
                named.CopyFrom(*m, named.GetAllocator());
            }
            json::setMember(named, "name", json::Value("fakename"), named.GetAllocator());
            meta = &named;
        }
        bool namespaced = !text(meta, "namespace").empty();
        for (meta::StatusCause& c : registry::validation::validateObjectMeta(
                 *meta, namespaced, registry::NameRule::PathSegment)) {
            if (c.field.rfind("metadata", 0) == 0) {
                c.field = path + c.field.substr(8);
            }
            out.push_back(std::move(c));
        }
    }
}

void validateWalk(const FieldPath& pth, const json::Value& x, const StructuralNode* s,
                  bool embedded, field::Causes& out) {
    if (!s) {
        return;
    }
    if (x.IsObject()) {
        if (embedded) {
            validateEmbeddedResource(pth, x, out);
        }
        for (const auto& m : x.GetObject()) {
            std::string_view k = json::view(m.name);
            if (const StructuralNode* p = s->property(k)) {
                validateWalk(pth.child(k), m.value, p, p->embeddedResource, out);
            } else if (s->hasAdditionalProperties) {
                const StructuralNode* ap = s->additionalProperties;
                validateWalk(pth.key(k), m.value, ap, ap && ap->embeddedResource, out);
            }
        }
    } else if (x.IsArray() && s->items) {
        for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
            validateWalk(pth.index(i), x[i], s->items, s->items->embeddedResource, out);
        }
    }
}

std::optional<meta::StatusCause> coerceWalk(const FieldPath& pth, const json::Value& x,
                                            const StructuralNode* s, bool embedded) {
    if (!s) {
        return std::nullopt;
    }
    if (x.IsObject()) {
        for (const auto& m : x.GetObject()) {
            std::string_view k = json::view(m.name);
            if (embedded && (k == "apiVersion" || k == "kind") && !m.value.IsString()) {
                return field::invalid(pth.child(k).str(), goValue(m.value), "must be a string");
            }
            if (embedded && k == "metadata") {
                if (auto err = objectMetaError(m.value)) {
                    return field::invalid(pth.child(k).str(), goValue(m.value), *err);
                }
            }
            std::optional<meta::StatusCause> e;
            if (const StructuralNode* p = s->property(k)) {
                e = coerceWalk(pth.child(k), m.value, p, p->embeddedResource);
            } else if (s->hasAdditionalProperties) {
                const StructuralNode* ap = s->additionalProperties;
                e = coerceWalk(pth.key(k), m.value, ap, ap && ap->embeddedResource);
            }
            if (e) {
                return e;
            }
        }
    } else if (x.IsArray() && s->items) {
        for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
            if (auto e = coerceWalk(pth.index(i), x[i], s->items, s->items->embeddedResource)) {
                return e;
            }
        }
    }
    return std::nullopt;
}

}  // namespace

void validateEmbeddedObjectMeta(const FieldPath& pth, const json::Value& x, const StructuralNode* s,
                                bool isResourceRoot, field::Causes& out) {
    static const StructuralNode kEmpty;
    if (isResourceRoot && !s) {
        s = &kEmpty;
    }
    validateWalk(pth, x, s, isResourceRoot || (s && s->embeddedResource), out);
}

std::optional<meta::StatusCause> coerceEmbeddedObjectMeta(const FieldPath& pth,
                                                          const json::Value& x,
                                                          const StructuralNode* s,
                                                          bool isResourceRoot) {
    static const StructuralNode kEmpty;
    if (isResourceRoot && !s) {
        s = &kEmpty;
    }
    return coerceWalk(pth, x, s, isResourceRoot || (s && s->embeddedResource));
}

}  // namespace kube::apis::apiextensions::structural
