#include "apis/apiextensions/crd_conditions.hpp"

#include "util/time.hpp"

namespace kube::apis::apiextensions {

namespace json = util::json;

namespace {

json::Value* mutableCondition(json::Value& crd, std::string_view type) {
    json::Value* conditions = crd.IsObject() ? json::member(crd, "status") : nullptr;
    conditions =
        conditions && conditions->IsObject() ? json::member(*conditions, "conditions") : nullptr;
    if (!conditions || !conditions->IsArray()) {
        return nullptr;
    }
    for (json::Value& c : conditions->GetArray()) {
        if (c.IsObject() && json::stringMember(c, "type") == type) {
            return &c;
        }
    }
    return nullptr;
}

// The condition as Go writes CustomResourceDefinitionCondition: type,
// status, lastTransitionTime, then reason and message unless empty.
json::Value conditionValue(const CrdCondition& c, std::string_view transition, json::Allocator& a) {
    json::Value v(rapidjson::kObjectType);
    v.AddMember("type", json::stringValue(c.type, a), a);
    v.AddMember("status", json::stringValue(c.status, a), a);
    if (!transition.empty()) {
        v.AddMember("lastTransitionTime", json::stringValue(transition, a), a);
    }
    if (!c.reason.empty()) {
        v.AddMember("reason", json::stringValue(c.reason, a), a);
    }
    if (!c.message.empty()) {
        v.AddMember("message", json::stringValue(c.message, a), a);
    }
    return v;
}

json::Value* finalizers(json::Value& crd) {
    json::Value* metadata = crd.IsObject() ? json::member(crd, "metadata") : nullptr;
    json::Value* list =
        metadata && metadata->IsObject() ? json::member(*metadata, "finalizers") : nullptr;
    return list && list->IsArray() ? list : nullptr;
}

}  // namespace

const json::Value* findCondition(const json::Value& crd, std::string_view type) {
    return mutableCondition(const_cast<json::Value&>(crd), type);
}

bool isConditionTrue(const json::Value& crd, std::string_view type) {
    const json::Value* c = findCondition(crd, type);
    return c && json::stringMember(*c, "status") == "True";
}

bool conditionEquivalent(const json::Value& crd, const CrdCondition& c) {
    const json::Value* have = findCondition(crd, c.type);
    return have && json::stringMember(*have, "status") == c.status &&
           json::stringMember(*have, "reason") == c.reason &&
           json::stringMember(*have, "message") == c.message;
}

void setCondition(json::Value& crd, const CrdCondition& c,
                  std::chrono::system_clock::time_point now, json::Allocator& a) {
    std::string time = util::time::formatRFC3339(now);
    if (json::Value* have = mutableCondition(crd, c.type)) {
        std::string transition(json::stringMember(*have, "lastTransitionTime"));
        if (json::stringMember(*have, "status") != c.status || transition.empty()) {
            transition = time;
        }
        *have = conditionValue(c, transition, a);
        return;
    }
    json::Value* status = json::member(crd, "status");
    if (!status || !status->IsObject()) {
        json::setMember(crd, "status", json::Value(rapidjson::kObjectType), a);
        status = json::member(crd, "status");
    }
    json::Value* conditions = json::member(*status, "conditions");
    if (!conditions || !conditions->IsArray()) {
        json::setMember(*status, "conditions", json::Value(rapidjson::kArrayType), a);
        conditions = json::member(*status, "conditions");
    }
    conditions->PushBack(conditionValue(c, time, a), a);
}

bool hasFinalizer(const json::Value& crd, std::string_view finalizer) {
    const json::Value* list = finalizers(const_cast<json::Value&>(crd));
    if (!list) {
        return false;
    }
    for (const json::Value& f : list->GetArray()) {
        if (f.IsString() && json::view(f) == finalizer) {
            return true;
        }
    }
    return false;
}

void addFinalizer(json::Value& crd, std::string_view finalizer, json::Allocator& a) {
    if (hasFinalizer(crd, finalizer)) {
        return;
    }
    json::Value* list = finalizers(crd);
    if (!list) {
        json::Value* metadata = json::member(crd, "metadata");
        if (!metadata || !metadata->IsObject()) {
            return;
        }
        json::setMember(*metadata, "finalizers", json::Value(rapidjson::kArrayType), a);
        list = finalizers(crd);
    }
    list->PushBack(json::stringValue(finalizer, a), a);
}

void removeFinalizer(json::Value& crd, std::string_view finalizer) {
    json::Value* list = finalizers(crd);
    if (!list) {
        return;
    }
    for (auto it = list->Begin(); it != list->End();) {
        if (it->IsString() && json::view(*it) == finalizer) {
            it = list->Erase(it);
        } else {
            ++it;
        }
    }
    if (list->Empty()) {
        json::removeMember(crd["metadata"], "finalizers");
    }
}

}  // namespace kube::apis::apiextensions
