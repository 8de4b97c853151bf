#include "authz/reconcile.hpp"

#include <optional>

#include "authz/bootstrap_policy.hpp"
#include "authz/covers.hpp"
#include "authz/policy_json.hpp"

namespace kube::authz {

namespace json = util::json;

namespace {

using Doc = std::shared_ptr<json::Document>;

Doc copyOf(const json::Value& v) {
    auto d = std::make_shared<json::Document>();
    d->CopyFrom(v, d->GetAllocator());
    return d;
}

bool isProtected(const json::Value& existing) {
    const json::Value* v = json::at(existing, {"metadata", "annotations", kAutoUpdateAnnotation});
    return v != nullptr && v->IsString() && json::view(*v) == "false";
}

// Adds the entries of `expected`'s metadata.<field> that `obj` lacks (the
// stored values win, as kube's merge puts them last); true when any was added.
bool mergeMap(json::Document& obj, const json::Value& expected, const char* field) {
    const json::Value* want = json::at(expected, {"metadata", field});
    if (want == nullptr || !want->IsObject() || want->ObjectEmpty()) {
        return false;
    }
    auto& a = obj.GetAllocator();
    json::Value& meta = obj["metadata"];
    json::Value* have = json::member(meta, field);
    if (have == nullptr || !have->IsObject()) {
        json::setMember(meta, field, json::Value(rapidjson::kObjectType), a);
        have = json::member(meta, field);
    }
    bool changed = false;
    for (const auto& m : want->GetObject()) {
        if (json::member(*have, json::view(m.name)) == nullptr) {
            have->AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
            changed = true;
        }
    }
    return changed;
}

bool mergeMetadata(json::Document& obj, const json::Value& expected) {
    bool annotations = mergeMap(obj, expected, "annotations");
    bool labels = mergeMap(obj, expected, "labels");
    return annotations || labels;
}

const json::Value* selectorsOf(const json::Value& role) {
    const json::Value* s = json::at(role, {"aggregationRule", "clusterRoleSelectors"});
    return s != nullptr && s->IsArray() ? s : nullptr;
}

// Adds the expected aggregation selectors the stored role lacks, and drops an
// aggregation rule the bootstrap role does not have.
bool reconcileAggregation(json::Document& obj, const json::Value& expected) {
    auto& a = obj.GetAllocator();
    const json::Value* want = selectorsOf(expected);
    if (json::member(expected, "aggregationRule") == nullptr) {
        if (json::member(obj, "aggregationRule") != nullptr) {
            json::removeMember(obj, "aggregationRule");
            return true;
        }
        return false;
    }
    if (want == nullptr) {
        return false;
    }
    bool changed = false;
    for (const json::Value& sel : want->GetArray()) {
        json::Value* have = const_cast<json::Value*>(selectorsOf(obj));
        bool found = false;
        if (have != nullptr) {
            for (const json::Value& h : have->GetArray()) {
                found = found || h == sel;
            }
        }
        if (found) {
            continue;
        }
        if (have == nullptr) {
            json::Value rule(rapidjson::kObjectType);
            rule.AddMember("clusterRoleSelectors", json::Value(rapidjson::kArrayType), a);
            json::setMember(obj, "aggregationRule", std::move(rule), a);
            have = json::member(obj["aggregationRule"], "clusterRoleSelectors");
        }
        have->PushBack(json::Value(sel, a), a);
        changed = true;
    }
    return changed;
}

bool sameSubject(const json::Value& a, const json::Value& b) {
    for (const char* f : {"kind", "apiGroup", "name", "namespace"}) {
        if (json::stringMember(a, f) != json::stringMember(b, f)) {
            return false;
        }
    }
    return true;
}

// What both kinds do first: create a missing object, leave a protected one
// (autoupdate "false") alone; nullopt when the stored object is to be merged.
std::optional<Reconciled> createOrKeep(const json::Value& expected, const json::Value* existing) {
    Reconciled r;
    if (existing == nullptr) {
        r.operation = ReconcileOperation::Create;
        r.object = copyOf(expected);
        return r;
    }
    if (isProtected(*existing)) {
        r.isProtected = true;
        return r;
    }
    return std::nullopt;
}

}  // namespace

Reconciled reconcileRole(const json::Value& expected, const json::Value* existing) {
    if (std::optional<Reconciled> r = createOrKeep(expected, existing)) {
        return *r;
    }
    Reconciled r;
    Doc obj = copyOf(*existing);
    bool changed = mergeMetadata(*obj, expected);
    changed = reconcileAggregation(*obj, expected) || changed;
    // The expected rules the stored ones do not cover, broken down, appended.
    std::vector<PolicyRule> missing = uncoveredRules(rulesOf(*existing), rulesOf(expected));
    if (!missing.empty()) {
        auto& a = obj->GetAllocator();
        json::Value* rules = json::member(*obj, "rules");
        if (rules == nullptr || !rules->IsArray()) {
            json::setMember(*obj, "rules", json::Value(rapidjson::kArrayType), a);
            rules = json::member(*obj, "rules");
        }
        json::Value added = rulesJson(missing, a);
        for (json::Value& rule : added.GetArray()) {
            rules->PushBack(rule, a);
        }
        changed = true;
    }
    if (changed) {
        r.operation = ReconcileOperation::Update;
        r.object = obj;
    }
    return r;
}

Reconciled reconcileBinding(const json::Value& expected, const json::Value* existing) {
    if (std::optional<Reconciled> r = createOrKeep(expected, existing)) {
        return *r;
    }
    Reconciled r;
    Doc obj = copyOf(*existing);
    auto& a = obj->GetAllocator();
    bool changed = mergeMetadata(*obj, expected);
    const json::Value* wantRef = json::member(expected, "roleRef");
    const json::Value* haveRef = json::member(*existing, "roleRef");
    bool recreate = wantRef && (haveRef == nullptr || !(*haveRef == *wantRef));
    if (recreate) {
        json::setMember(*obj, "roleRef", json::Value(*wantRef, a), a);
    }
    const json::Value* want = json::member(expected, "subjects");
    if (want != nullptr && want->IsArray()) {
        json::Value* have = json::member(*obj, "subjects");
        if (have == nullptr || !have->IsArray()) {
            json::setMember(*obj, "subjects", json::Value(rapidjson::kArrayType), a);
            have = json::member(*obj, "subjects");
        }
        for (const json::Value& s : want->GetArray()) {
            bool found = false;
            for (const json::Value& h : have->GetArray()) {
                found = found || sameSubject(h, s);
            }
            if (!found) {
                have->PushBack(json::Value(s, a), a);
                changed = true;
            }
        }
    }
    if (recreate) {
        // A new object: the stored one's identity goes with it.
        json::Value& meta = (*obj)["metadata"];
        for (const char* f : {"resourceVersion", "uid", "creationTimestamp", "managedFields"}) {
            json::removeMember(meta, f);
        }
        r.operation = ReconcileOperation::Recreate;
        r.object = obj;
    } else if (changed) {
        r.operation = ReconcileOperation::Update;
        r.object = obj;
    }
    return r;
}

}  // namespace kube::authz
