#include "registry/apply/managed_fields.hpp"

#include <algorithm>

#include "registry/apply/fields_v1.hpp"
#include "registry/patch/go_format.hpp"
#include "registry/validation.hpp"

namespace kube::registry::apply {

namespace json = util::json;

namespace {

std::string goJsonString(std::string_view s) {
    return patch::goMarshal(json::Value(json::ref(s)));
}

void addString(json::Value& obj, const char* name, std::string_view v, json::Allocator& a) {
    obj.AddMember(json::Value(name, a), json::stringValue(v, a), a);
}

}  // namespace

std::string ManagerId::identifier() const {
    // encoding/json of a ManagedFieldsEntry holding only these (all
    // omitempty, in the struct's order).
    std::string out = "{";
    auto field = [&out](const char* name, const std::string& v) {
        if (v.empty()) {
            return;
        }
        if (out.size() > 1) {
            out += ',';
        }
        out += '"';
        out += name;
        out += "\":";
        out += goJsonString(v);
    };
    field("manager", manager);
    field("operation", operation);
    field("apiVersion", operation == kOperationApply ? std::string() : apiVersion);
    field("subresource", subresource);
    return out + "}";
}

std::string ManagerId::describe() const {
    std::string out = validation::goQuote(manager);
    if (!subresource.empty()) {
        out += " with subresource " + validation::goQuote(subresource);
    }
    if (operation == kOperationUpdate) {
        out += " using " + apiVersion;
    }
    return out;
}

std::optional<std::string> decodeManagedFields(const json::Value* list, Managers& out) {
    out.clear();
    if (!list || list->IsNull()) {
        return std::nullopt;
    }
    if (!list->IsArray()) {
        return "managedFields must be a list";
    }
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
        const json::Value& e = (*list)[i];
        std::string_view operation = json::stringMember(e, "operation");
        if (operation != kOperationApply && operation != kOperationUpdate) {
            return "operation must be `Apply` or `Update`";
        }
        std::string_view apiVersion = json::stringMember(e, "apiVersion");
        if (apiVersion.empty()) {
            return "apiVersion must not be empty";
        }
        std::string_view fieldsType = json::stringMember(e, "fieldsType");
        if (fieldsType.empty()) {
            return "missing fieldsType in managed fields entry " + std::to_string(i);
        }
        if (fieldsType != "FieldsV1") {
            return "invalid fieldsType " + validation::goQuote(fieldsType) +
                   " in managed fields entry " + std::to_string(i);
        }
        ManagedSet ms;
        ms.id.manager = std::string(json::stringMember(e, "manager"));
        ms.id.operation = std::string(operation);
        ms.id.apiVersion = std::string(apiVersion);
        ms.id.subresource = std::string(json::stringMember(e, "subresource"));
        ms.apiVersion = ms.id.apiVersion;
        ms.applied = operation == kOperationApply;
        ms.time = std::string(json::stringMember(e, "time"));
        if (const json::Value* f = json::member(e, "fieldsV1"); f && !f->IsNull()) {
            std::string error;
            auto set = fromFieldsV1(*f, &error);
            if (!set) {
                return "error decoding versioned set from entry " + std::to_string(i) +
                       ": error decoding set: " + error;
            }
            ms.set = std::move(*set);
        }
        // Two entries of one identity: the later wins, as in kube's map.
        out[ms.id.identifier()] = std::move(ms);
    }
    return std::nullopt;
}

json::Value encodeManagedFields(const Managers& managers, json::Allocator& a) {
    std::vector<const ManagedSet*> order;
    order.reserve(managers.size());
    for (const auto& [key, ms] : managers) {
        order.push_back(&ms);
    }
    // RFC 3339 in UTC to the second sorts as its Unix time; none sorts as 0.
    std::stable_sort(order.begin(), order.end(), [](const ManagedSet* p, const ManagedSet* q) {
        std::string_view po = p->applied ? kOperationApply : kOperationUpdate;
        std::string_view qo = q->applied ? kOperationApply : kOperationUpdate;
        if (po != qo) {
            return po < qo;
        }
        if (p->time != q->time) {
            return p->time < q->time;
        }
        if (p->id.manager != q->id.manager) {
            return p->id.manager < q->id.manager;
        }
        if (p->apiVersion != q->apiVersion) {
            return p->apiVersion < q->apiVersion;
        }
        return p->id.subresource < q->id.subresource;
    });
    json::Value list(rapidjson::kArrayType);
    for (const ManagedSet* ms : order) {
        json::Value e(rapidjson::kObjectType);
        addString(e, "manager", ms->id.manager, a);
        addString(e, "operation", ms->applied ? kOperationApply : kOperationUpdate, a);
        addString(e, "apiVersion", ms->apiVersion, a);
        if (!ms->time.empty()) {
            addString(e, "time", ms->time, a);
        }
        addString(e, "fieldsType", "FieldsV1", a);
        e.AddMember(json::Value("fieldsV1", a), toFieldsV1(ms->set, a), a);
        if (!ms->id.subresource.empty()) {
            addString(e, "subresource", ms->id.subresource, a);
        }
        list.PushBack(e, a);
    }
    return list;
}

meta::Status conflictStatus(const std::vector<Conflict>& conflicts) {
    meta::Status s;
    s.code = 409;
    s.reason = "Conflict";
    meta::StatusDetails details;
    for (const Conflict& c : conflicts) {
        details.causes.push_back(
            {"FieldManagerConflict", "conflict with " + c.manager.describe(), pathString(c.path)});
    }
    s.details = std::move(details);
    if (conflicts.size() == 1) {
        s.message = "Apply failed with 1 conflict: conflict with " +
                    conflicts[0].manager.describe() + ": " + pathString(conflicts[0].path);
        return s;
    }
    std::map<std::string, std::vector<const Conflict*>> byManager;
    for (const Conflict& c : conflicts) {
        byManager[c.manager.identifier()].push_back(&c);
    }
    std::string lines;
    for (const auto& [id, list] : byManager) {
        if (!lines.empty()) {
            lines += '\n';
        }
        lines += "conflicts with " + list.front()->manager.describe() + ":";
        for (const Conflict* c : list) {
            lines += "\n- " + pathString(c->path);
        }
    }
    s.message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
    return s;
}

}  // namespace kube::registry::apply
