#include "admission/priority.hpp"

#include <optional>
#include <string>

#include "registry/encoding.hpp"

namespace kube::admission {

namespace json = util::json;

namespace {

struct DefaultClass {
    std::string name;
    int64_t value = 0;
};

// getDefaultPriorityClass: of several defaults (left by a race), the one of
// the lowest value.
std::optional<DefaultClass> findDefault(const storage::ListResult& res) {
    std::optional<DefaultClass> found;
    for (const storage::ObjectView& item : res.items) {
        json::Document doc;
        doc.Parse(item.value.data(), item.value.size());
        if (doc.HasParseError() || !doc.IsObject()) {
            continue;
        }
        const json::Value* global = json::member(doc, "globalDefault");
        if (!global || !global->IsBool() || !global->GetBool()) {
            continue;
        }
        const json::Value* value = json::member(doc, "value");
        int64_t v = value && value->IsInt64() ? value->GetInt64() : 0;
        if (!found || found->value > v) {
            found = DefaultClass{std::string(json::stringMember(doc["metadata"], "name")), v};
        }
    }
    return found;
}

}  // namespace

Priority::Priority(storage::Interface& storage, const registry::KindInfo& priorityClasses)
    : storage_(storage), priorityClasses_(priorityClasses) {}

bool Priority::handles(const Attributes& a) const {
    return a.kind == &priorityClasses_ && a.subresource.empty() &&
           (a.operation == Operation::Create || a.operation == Operation::Update);
}

void Priority::validate(const Attributes& a, Callback cb) {
    const json::Value* global = a.object ? json::member(*a.object, "globalDefault") : nullptr;
    if (!global || !global->IsBool() || !global->GetBool()) {
        cb(nullptr);
        return;
    }
    bool update = a.operation == Operation::Update;
    std::string name = requestName(a);
    meta::GroupResource gr = priorityClasses_.groupResource();
    storage::ListOptions opts;
    opts.prefix = registry::collectionPrefix(priorityClasses_, "");
    storage_.list(opts, [name, update, gr, cb = std::move(cb)](const storage::Error& err,
                                                               const storage::ListResult& res) {
        if (!err.ok()) {
            meta::Status s =
                meta::Status::internalError("failed to get default priority class: " + err.message);
            cb(&s);
            return;
        }
        std::optional<DefaultClass> existing = findDefault(res);
        // Marking the existing default again is no second default.
        if (!existing || (update && existing->name == name)) {
            cb(nullptr);
            return;
        }
        meta::Status s = meta::Status::forbidden(
            gr, name,
            "PriorityClass " + existing->name +
                " is already marked as default. Only one default can exist");
        cb(&s);
    });
}

}  // namespace kube::admission
