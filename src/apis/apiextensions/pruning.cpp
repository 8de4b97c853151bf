#include "apis/apiextensions/pruning.hpp"

#include <algorithm>

#include "apis/apiextensions/structural_walks.hpp"

namespace kube::apis::apiextensions {

namespace json = util::json;

namespace {

bool isMetaField(std::string_view k) {
    return k == "apiVersion" || k == "kind" || k == "metadata";
}

// Mirrors pruning.prune and skipPrune, with UnknownFieldPathOptions' path:
// one buffer grown and cut back as the walk goes, copied only for a field
// that is removed.
class Pruner {
  public:
    explicit Pruner(std::vector<std::string>* paths) : paths_(paths) {}

    void prune(json::Value& x, const StructuralNode* s, bool embedded) {
        if (s && s->preserveUnknownFields) {
            skipPrune(x, s, embedded);
            return;
        }
        size_t orig = path_.size();
        if (x.IsObject()) {
            if (!s) {
                for (const auto& m : x.GetObject()) {
                    record(json::view(m.name));
                }
                x.RemoveAllMembers();
                return;
            }
            std::vector<bool> drop(x.MemberCount(), false);
            rapidjson::SizeType i = 0;
            for (auto& m : x.GetObject()) {
                std::string_view k = json::view(m.name);
                if (embedded && isMetaField(k)) {
                    ++i;
                    continue;
                }
                if (const StructuralNode* p = s->property(k)) {
                    appendKey(k);
                    prune(m.value, p, p->embeddedResource);
                    path_.resize(orig);
                } else if (s->hasAdditionalProperties) {
                    const StructuralNode* ap = s->additionalProperties;
                    appendKey(k);
                    prune(m.value, ap, ap && ap->embeddedResource);
                    path_.resize(orig);
                } else {
                    if (!isMetaField(k) || !path_.empty()) {
                        record(k);
                    }
                    drop[i] = true;
                }
                ++i;
            }
            json::eraseMembersIf(x, [&](rapidjson::SizeType j, const auto&) { return drop[j]; });
        } else if (x.IsArray()) {
            const StructuralNode* items = s ? s->items : nullptr;
            for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
                appendIndex(i);
                prune(x[i], items, items && items->embeddedResource);
                path_.resize(orig);
            }
        }
    }

  private:
    void skipPrune(json::Value& x, const StructuralNode* s, bool embedded) {
        if (!s) {
            return;
        }
        size_t orig = path_.size();
        if (x.IsObject()) {
            for (auto& m : x.GetObject()) {
                std::string_view k = json::view(m.name);
                if (embedded && isMetaField(k)) {
                    continue;
                }
                if (const StructuralNode* p = s->property(k)) {
                    appendKey(k);
                    prune(m.value, p, p->embeddedResource);
                    path_.resize(orig);
                } else if (s->hasAdditionalProperties) {
                    const StructuralNode* ap = s->additionalProperties;
                    appendKey(k);
                    prune(m.value, ap, ap && ap->embeddedResource);
                    path_.resize(orig);
                }
            }
        } else if (x.IsArray()) {
            const StructuralNode* items = s->items;
            for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
                appendIndex(i);
                skipPrune(x[i], items, items && items->embeddedResource);
                path_.resize(orig);
            }
        }
    }

    void appendKey(std::string_view k) {
        if (!paths_) {
            return;
        }
        if (!path_.empty()) {
            path_ += '.';
        }
        path_ += k;
    }

    void appendIndex(size_t i) {
        if (!paths_) {
            return;
        }
        path_ += '[';
        path_ += std::to_string(i);
        path_ += ']';
    }

    void record(std::string_view k) {
        if (!paths_) {
            return;
        }
        size_t orig = path_.size();
        appendKey(k);
        paths_->push_back(path_);
        path_.resize(orig);
    }

    std::vector<std::string>* paths_;
    std::string path_;
};

// Mirrors PruneNonNullableNullsWithoutDefaults; below a field the schema
// does not know nothing can be removed, so the walk stops there.
void pruneNulls(json::Value& x, const StructuralNode* s) {
    if (!s) {
        return;
    }
    if (x.IsObject()) {
        json::eraseMembersIf(x, [&](rapidjson::SizeType, const auto& m) {
            const StructuralNode* f = s->fieldSchema(json::view(m.name));
            return m.value.IsNull() && f && !f->nullable && !f->defaultValue;
        });
        for (auto& m : x.GetObject()) {
            pruneNulls(m.value, s->fieldSchema(json::view(m.name)));
        }
    } else if (x.IsArray()) {
        for (json::Value& item : x.GetArray()) {
            pruneNulls(item, s->items);
        }
    }
}

// The members of metav1.ObjectMeta.
bool isObjectMetaField(std::string_view k) {
    static constexpr std::string_view kFields[] = {"name",
                                                   "generateName",
                                                   "namespace",
                                                   "selfLink",
                                                   "uid",
                                                   "resourceVersion",
                                                   "generation",
                                                   "creationTimestamp",
                                                   "deletionTimestamp",
                                                   "deletionGracePeriodSeconds",
                                                   "labels",
                                                   "annotations",
                                                   "ownerReferences",
                                                   "finalizers",
                                                   "managedFields"};
    return std::find(std::begin(kFields), std::end(kFields), k) != std::end(kFields);
}

// The part of objectmeta.CoerceWithOptions that changes a valid object: an
// embedded resource's metadata goes through an ObjectMeta, which drops the
// fields it does not have (reported) and a null creationTimestamp.
void coerceMetadata(json::Value& x, const StructuralNode* s, bool embedded,
                    const structural::FieldPath& pth, std::vector<std::string>& paths) {
    if (!s) {
        return;
    }
    if (x.IsObject()) {
        if (embedded) {
            if (json::Value* m = json::member(x, "metadata"); m && m->IsObject()) {
                json::eraseMembersIf(*m, [&](rapidjson::SizeType, const auto& f) {
                    std::string_view k = json::view(f.name);
                    if (!isObjectMetaField(k)) {
                        paths.push_back(pth.child("metadata").child(k).str());
                        return true;
                    }
                    return k == "creationTimestamp" && f.value.IsNull();
                });
            }
        }
        for (auto& m : x.GetObject()) {
            std::string_view k = json::view(m.name);
            if (const StructuralNode* p = s->property(k)) {
                coerceMetadata(m.value, p, p->embeddedResource, pth.child(k), paths);
            } else if (s->hasAdditionalProperties) {
                const StructuralNode* ap = s->additionalProperties;
                coerceMetadata(m.value, ap, ap && ap->embeddedResource, pth.key(k), paths);
            }
        }
    } else if (x.IsArray()) {
        for (rapidjson::SizeType i = 0; i < x.Size(); ++i) {
            const StructuralNode* items = s->items;
            coerceMetadata(x[i], items, items && items->embeddedResource, pth.index(i), paths);
        }
    }
}

}  // namespace

namespace structural {

std::vector<std::string> prune(json::Value& x, const StructuralNode* s, bool isResourceRoot,
                               bool trackPaths) {
    std::vector<std::string> paths;
    static const StructuralNode kEmpty;
    if (isResourceRoot && !s) {
        s = &kEmpty;
    }
    Pruner(trackPaths ? &paths : nullptr).prune(x, s, isResourceRoot || (s && s->embeddedResource));
    std::sort(paths.begin(), paths.end());
    return paths;
}

}  // namespace structural

std::vector<std::string> pruneCustomResource(const StructuralSchema& s, json::Value& obj) {
    std::vector<std::string> paths;
    s.walk(obj, [&] {
        paths = structural::prune(obj, &s.root(), true, true);
        pruneNulls(obj, &s.root());
        coerceMetadata(obj, &s.root(), s.root().embeddedResource, structural::FieldPath(""), paths);
    });
    return paths;
}

}  // namespace kube::apis::apiextensions
