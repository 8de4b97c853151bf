#include "registry/deletion.hpp"

#include <algorithm>
#include <set>

#include "registry/object_meta.hpp"
#include "registry/validation.hpp"
#include "util/time.hpp"

namespace kube::registry {

namespace {

std::optional<int64_t> intMember(const json::Value& obj, std::string_view name) {
    const json::Value* v = json::member(obj, name);
    if (!v || !v->IsInt64()) {
        return std::nullopt;
    }
    return v->GetInt64();
}

void bumpGeneration(json::Value& metadata, json::Allocator& a) {
    if (std::optional<int64_t> gen = intMember(metadata, "generation"); gen && *gen > 0) {
        json::setMember(metadata, "generation", json::Value(*gen + 1), a);
    }
}

std::string timestamp(std::chrono::system_clock::time_point t) {
    return util::time::formatRFC3339(t);
}

// A metav1.Time as a field error prints it: Go's Time.String().
validation::BadValue timeValue(const json::Value& v) {
    if (!v.IsString()) {
        return validation::BadValue(v);
    }
    std::optional<util::time::TimePoint> t = util::time::parseRFC3339(json::view(v));
    if (!t) {
        return validation::BadValue(v);
    }
    std::string s = util::time::formatRFC3339(*t);  // 2030-01-01T00:00:00Z
    if (s.size() >= 20 && s.back() == 'Z') {
        s[s.size() - 10] = ' ';
        s.pop_back();
        s += " +0000 UTC";
    }
    return validation::BadValue::raw(std::move(s));
}

bool sameMember(const json::Value& a, const json::Value& b, std::string_view name) {
    const json::Value* x = json::member(a, name);
    const json::Value* y = json::member(b, name);
    if (!x || x->IsNull()) {
        return !y || y->IsNull();
    }
    return y && *x == *y;
}

}  // namespace

BeforeDelete beforeDelete(const KindInfo& kind, json::Document& obj, std::optional<int64_t>& grace,
                          std::chrono::system_clock::time_point now) {
    auto& a = obj.GetAllocator();
    json::Value& metadata = ensureMetadata(obj);
    if (grace && *grace < 0) {
        grace = 1;
    }
    if (std::optional<int64_t> g = intMember(metadata, "deletionGracePeriodSeconds");
        g && *g < 0) {
        json::setMember(metadata, "deletionGracePeriodSeconds", json::Value(int64_t{1}), a);
    }
    if (!kind.checkGracefulDelete) {
        return {};
    }
    if (const json::Value* ts = json::member(metadata, "deletionTimestamp");
        ts && !ts->IsNull()) {
        // Already being deleted: only a shorter grace period changes anything.
        std::optional<int64_t> current = intMember(metadata, "deletionGracePeriodSeconds");
        if (!current || *current == 0) {
            return {};
        }
        if (!grace) {
            grace = current;
            return {false, true};
        }
        if (*grace >= *current) {
            return {false, true};
        }
        std::optional<util::time::TimePoint> at =
            ts->IsString() ? util::time::parseRFC3339(json::view(*ts)) : std::nullopt;
        util::time::TimePoint start =
            (at ? *at : std::chrono::floor<util::time::Duration>(now)) -
            std::chrono::seconds(*current);
        json::setMember(metadata, "deletionTimestamp",
                        json::stringValue(util::time::formatRFC3339(
                                              start + std::chrono::seconds(*grace)),
                                          a),
                        a);
        json::setMember(metadata, "deletionGracePeriodSeconds", json::Value(*grace), a);
        return {true, false};
    }
    grace = kind.checkGracefulDelete(obj, grace);
    json::setMember(metadata, "deletionTimestamp",
                    json::stringValue(timestamp(now + std::chrono::seconds(*grace)), a), a);
    json::setMember(metadata, "deletionGracePeriodSeconds", json::Value(*grace), a);
    bumpGeneration(metadata, a);
    return {true, false};
}

void markAsDeleting(json::Document& obj, std::chrono::system_clock::time_point now) {
    auto& a = obj.GetAllocator();
    json::Value& metadata = ensureMetadata(obj);
    const json::Value* ts = json::member(metadata, "deletionTimestamp");
    bool marked = ts && !ts->IsNull();
    if (!marked) {
        bumpGeneration(metadata, a);
    }
    std::optional<util::time::TimePoint> at =
        marked && ts->IsString() ? util::time::parseRFC3339(json::view(*ts)) : std::nullopt;
    if (!at || *at > now) {
        json::setMember(metadata, "deletionTimestamp", json::stringValue(timestamp(now), a), a);
    }
    json::setMember(metadata, "deletionGracePeriodSeconds", json::Value(int64_t{0}), a);
}

std::vector<std::string> finalizersOf(const json::Value& obj) {
    std::vector<std::string> out;
    const json::Value* f = json::at(obj, {"metadata", "finalizers"});
    if (f && f->IsArray()) {
        for (const auto& v : f->GetArray()) {
            if (v.IsString()) {
                out.emplace_back(json::view(v));
            }
        }
    }
    return out;
}

bool hasFinalizer(const json::Value& obj, std::string_view finalizer) {
    const json::Value* f = json::at(obj, {"metadata", "finalizers"});
    if (!f || !f->IsArray()) {
        return false;
    }
    return std::any_of(f->GetArray().begin(), f->GetArray().end(), [finalizer](const auto& v) {
        return v.IsString() && json::view(v) == finalizer;
    });
}

void setFinalizers(json::Document& obj, const std::vector<std::string>& finalizers) {
    auto& a = obj.GetAllocator();
    json::Value& metadata = ensureMetadata(obj);
    if (finalizers.empty()) {
        json::removeMember(metadata, "finalizers");
        return;
    }
    json::Value list(rapidjson::kArrayType);
    for (const std::string& f : finalizers) {
        list.PushBack(json::stringValue(f, a), a);
    }
    json::setMember(metadata, "finalizers", std::move(list), a);
}

std::optional<std::vector<std::string>> finalizersForPropagation(const KindInfo& kind,
                                                                 const json::Value& obj,
                                                                 const Propagation& p) {
    if (kind.gcPolicy == GarbageCollectionPolicy::Unsupported) {
        return std::nullopt;
    }
    std::vector<std::string> old = finalizersOf(obj);
    // shouldOrphanDependents and shouldDeleteDependents: the request, then a
    // finalizer already there, then the kind's default.
    bool orphan = false;
    bool foreground = false;
    if (p.orphanDependents) {
        orphan = *p.orphanDependents;
    } else if (p.propagationPolicy && (*p.propagationPolicy == "Orphan" ||
                                       *p.propagationPolicy == "Background" ||
                                       *p.propagationPolicy == "Foreground")) {
        orphan = *p.propagationPolicy == "Orphan";
        foreground = *p.propagationPolicy == "Foreground";
    } else {
        auto first = std::find_if(old.begin(), old.end(), [](const std::string& f) {
            return f == kFinalizerOrphan || f == kFinalizerForeground;
        });
        if (first != old.end()) {
            orphan = *first == kFinalizerOrphan;
            foreground = *first == kFinalizerForeground;
        } else {
            orphan = kind.gcPolicy == GarbageCollectionPolicy::OrphanDependents;
        }
    }
    std::vector<std::string> next;
    for (const std::string& f : old) {
        if (f != kFinalizerOrphan && f != kFinalizerForeground) {
            next.push_back(f);
        }
    }
    if (orphan) {
        next.emplace_back(kFinalizerOrphan);
    }
    if (foreground) {
        next.emplace_back(kFinalizerForeground);
    }
    if (std::set<std::string>(old.begin(), old.end()) ==
        std::set<std::string>(next.begin(), next.end())) {
        return std::nullopt;
    }
    return next;
}

bool shouldDeleteDuringUpdate(const json::Value& next, const json::Value& old) {
    if (!finalizersOf(next).empty()) {
        return false;
    }
    const json::Value& oldMeta = old["metadata"];
    const json::Value* ts = json::member(oldMeta, "deletionTimestamp");
    if (!ts || ts->IsNull()) {
        return false;
    }
    std::optional<int64_t> grace = intMember(oldMeta, "deletionGracePeriodSeconds");
    return !grace || *grace == 0;
}

void keepDeletionFields(json::Value& newMeta, const json::Value& oldMeta, json::Allocator& a) {
    if (const json::Value* ts = json::member(oldMeta, "deletionTimestamp"); ts && !ts->IsNull()) {
        json::setMember(newMeta, "deletionTimestamp", json::Value(*ts, a), a);
    }
    const json::Value* grace = json::member(oldMeta, "deletionGracePeriodSeconds");
    const json::Value* mine = json::member(newMeta, "deletionGracePeriodSeconds");
    if (grace && !grace->IsNull() && (!mine || mine->IsNull())) {
        json::setMember(newMeta, "deletionGracePeriodSeconds", json::Value(*grace, a), a);
    }
}

std::vector<meta::StatusCause> validateDeletionUpdate(const json::Value& newMeta,
                                                      const json::Value& oldMeta) {
    namespace field = validation::field;
    std::vector<meta::StatusCause> causes;
    if (!sameMember(newMeta, oldMeta, "deletionTimestamp")) {
        const json::Value* v = json::member(newMeta, "deletionTimestamp");
        causes.push_back(field::invalid("metadata.deletionTimestamp",
                                        v ? timeValue(*v) : validation::BadValue::null(),
                                        "field is immutable"));
    }
    if (!sameMember(newMeta, oldMeta, "deletionGracePeriodSeconds")) {
        const json::Value* v = json::member(newMeta, "deletionGracePeriodSeconds");
        causes.push_back(field::invalid("metadata.deletionGracePeriodSeconds",
                                        v ? validation::BadValue(*v) : validation::BadValue::null(),
                                        "field is immutable"));
    }
    if (const json::Value* ts = json::member(oldMeta, "deletionTimestamp"); ts && !ts->IsNull()) {
        // ValidateNoNewFinalizers: the new ones, sorted, as Go's %#v prints a []string.
        std::set<std::string> old;
        if (const json::Value* f = json::member(oldMeta, "finalizers"); f && f->IsArray()) {
            for (const auto& v : f->GetArray()) {
                if (v.IsString()) {
                    old.emplace(json::view(v));
                }
            }
        }
        std::set<std::string> extra;
        if (const json::Value* f = json::member(newMeta, "finalizers"); f && f->IsArray()) {
            for (const auto& v : f->GetArray()) {
                if (v.IsString() && !old.contains(std::string(json::view(v)))) {
                    extra.emplace(json::view(v));
                }
            }
        }
        if (!extra.empty()) {
            std::string list = "[]string{";
            bool first = true;
            for (const std::string& f : extra) {
                list += (first ? "" : ", ") + validation::goQuote(f);
                first = false;
            }
            list += "}";
            causes.push_back(field::forbidden(
                "metadata.finalizers",
                "no new finalizers can be added if the object is being deleted, found new "
                "finalizers " +
                    list));
        }
    }
    return causes;
}

}  // namespace kube::registry
