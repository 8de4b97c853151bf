#include "controller/apiregistration/local_api_services.hpp"

#include <map>
#include <optional>
#include <set>
#include <utility>

#include "apis/apiregistration/kinds.hpp"
#include "util/json.hpp"
#include "util/time.hpp"

namespace kube::controller::apiregistration {

namespace json = util::json;
using apis::apiregistration::kAutomanagedLabel;

namespace {

constexpr std::string_view kAvailableMessage = "Local APIServices are always available";

// What an APIService of a served group/version says: its spec, and its label's value.
struct Wanted {
    std::string group;
    std::string version;
    int32_t groupPriority = 0;
    int32_t versionPriority = 0;
    std::string automanaged;  // "onstart" or "true"
};

json::Value wantedSpec(const Wanted& w, json::Allocator& a) {
    json::Value spec(rapidjson::kObjectType);
    if (!w.group.empty()) {
        spec.AddMember("group", json::stringValue(w.group, a), a);
    }
    spec.AddMember("version", json::stringValue(w.version, a), a);
    spec.AddMember("groupPriorityMinimum", w.groupPriority, a);
    spec.AddMember("versionPriority", w.versionPriority, a);
    return spec;
}

// The spec and label as kube's autoregister controller compares them.
bool inStep(const json::Value& obj, const Wanted& w) {
    json::Document want;
    json::Value spec = wantedSpec(w, want.GetAllocator());
    const json::Value* have = json::member(obj, "spec");
    const json::Value* labels = json::at(obj, {"metadata", "labels"});
    return have && *have == spec && labels && labels->IsObject() &&
           json::stringMember(*labels, kAutomanagedLabel) == w.automanaged;
}

bool availableLocal(const json::Value& obj) {
    const json::Value* conds = json::at(obj, {"status", "conditions"});
    if (!conds || !conds->IsArray()) {
        return false;
    }
    for (const json::Value& c : conds->GetArray()) {
        if (c.IsObject() && json::stringMember(c, "type") == "Available") {
            return json::stringMember(c, "status") == "True" &&
                   json::stringMember(c, "reason") == "Local";
        }
    }
    return false;
}

// Sets the Available condition of a local APIService (kube's availability controller).
void setAvailable(json::Document& obj, const std::string& now) {
    auto& a = obj.GetAllocator();
    json::Value cond(rapidjson::kObjectType);
    cond.AddMember("type", "Available", a);
    cond.AddMember("status", "True", a);
    cond.AddMember("lastTransitionTime", json::stringValue(now, a), a);
    cond.AddMember("reason", "Local", a);
    cond.AddMember("message", json::stringValue(kAvailableMessage, a), a);
    json::Value conds(rapidjson::kArrayType);
    conds.PushBack(cond, a);
    json::Value status(rapidjson::kObjectType);
    status.AddMember("conditions", conds, a);
    json::setMember(obj, "status", std::move(status), a);
}

// The server's own writes, recorded in managedFields as kube-apiserver's.
registry::UpdateOptions ownWrite() {
    registry::UpdateOptions opts;
    opts.manager = "kube-apiserver";
    return opts;
}

}  // namespace

LocalApiServices::LocalApiServices(util::EventLoop& loop, registry::Store& apiServices,
                                   std::function<std::vector<ServedGroupVersion>()> served)
    : loop_(loop), store_(apiServices), served_(std::move(served)) {}

LocalApiServices::~LocalApiServices() {
    *alive_ = false;
}

void LocalApiServices::sync(std::function<void()> done) {
    if (done) {
        waiting_.push_back(std::move(done));
    }
    if (running_) {
        again_ = true;
        return;
    }
    running_ = true;
    // Not inside the caller: a kind comes and goes from a cache's dispatch.
    loop_.post([this, alive = alive_] {
        if (*alive) {
            run();
        }
    });
}

void LocalApiServices::run() {
    std::map<std::string, Wanted> wanted;
    for (const ServedGroupVersion& gv : served_()) {
        if (gv.group == "apiregistration.k8s.io") {
            continue;  // the aggregator's own group has none
        }
        apis::apiregistration::ApiServicePriority p =
            apis::apiregistration::apiServicePriority(gv.group, gv.version, gv.builtin);
        if (p.group == 0) {
            continue;  // kube skips a built-in group/version it has no priority for
        }
        Wanted w{gv.group, gv.version, p.group, p.version, gv.builtin ? "onstart" : "true"};
        wanted.emplace(gv.version + "." + gv.group, std::move(w));
    }
    pending_ = 1;
    store_.list(
        "", {},
        [this, alive = alive_, wanted = std::move(wanted)](const meta::Status* err,
                                                           registry::ListPage&& page) mutable {
            if (!*alive) {
                return;
            }
            if (err) {
                finish();
                return;
            }
            std::string now = util::time::formatRFC3339(loop_.now());
            std::set<std::string> seen;
            for (const storage::ObjectView& item : page.items) {
                json::Document doc;
                if (json::parse(item.value, doc) || !doc.IsObject()) {
                    continue;
                }
                const json::Value* nameValue = json::at(doc, {"metadata", "name"});
                std::string name(nameValue && nameValue->IsString() ? json::view(*nameValue) : "");
                const json::Value* labels = json::at(doc, {"metadata", "labels"});
                bool automanaged = labels && labels->IsObject() &&
                                   !json::stringMember(*labels, kAutomanagedLabel).empty();
                auto it = wanted.find(name);
                if (it == wanted.end()) {
                    if (automanaged) {
                        pending_++;
                        store_.remove(
                            "", name, {},
                            [this, alive](const meta::Status*, const registry::DeleteResult&) {
                                if (*alive) {
                                    finish();
                                }
                            });
                    }
                    continue;
                }
                seen.insert(name);
                const Wanted& w = it->second;
                if (!inStep(doc, w) || !availableLocal(doc)) {
                    // Spec and label through the object, then the condition through status.
                    pending_++;
                    store_.patch(
                        "", name,
                        [w](const json::Value& current, json::Document& patched) {
                            patched.CopyFrom(current, patched.GetAllocator());
                            auto& a = patched.GetAllocator();
                            json::setMember(patched, "spec", wantedSpec(w, a), a);
                            json::Value* meta = json::member(patched, "metadata");
                            json::Value* labels = meta ? json::member(*meta, "labels") : nullptr;
                            if (meta && (!labels || !labels->IsObject())) {
                                json::setMember(*meta, "labels",
                                                json::Value(rapidjson::kObjectType), a);
                                labels = json::member(*meta, "labels");
                            }
                            if (labels) {
                                json::setMember(*labels, kAutomanagedLabel,
                                                json::stringValue(w.automanaged, a), a);
                            }
                            return std::optional<meta::Status>();
                        },
                        ownWrite(),
                        [this, alive, name, now](const meta::Status*, std::string_view) {
                            if (*alive) {
                                markAvailable(name, now);
                            }
                        });
                }
            }
            for (const auto& [name, w] : wanted) {
                if (seen.count(name)) {
                    continue;
                }
                auto doc = std::make_shared<json::Document>(rapidjson::kObjectType);
                auto& a = doc->GetAllocator();
                json::Value meta(rapidjson::kObjectType);
                meta.AddMember("name", json::stringValue(name, a), a);
                json::Value labels(rapidjson::kObjectType);
                labels.AddMember(json::stringValue(kAutomanagedLabel, a),
                                 json::stringValue(w.automanaged, a), a);
                meta.AddMember("labels", labels, a);
                doc->AddMember("metadata", meta, a);
                doc->AddMember("spec", wantedSpec(w, a), a);
                pending_++;
                registry::CreateOptions create;
                create.manager = "kube-apiserver";
                store_.create(
                    "", doc, create,
                    [this, alive, name = name, now](const meta::Status* err, std::string_view) {
                        if (!*alive) {
                            return;
                        }
                        if (err) {
                            finish();
                            return;
                        }
                        markAvailable(name, now);
                    });
            }
            finish();
        });
}

// The Available condition through status, unless it already says Local; one
// of the pending writes.
void LocalApiServices::markAvailable(const std::string& name, const std::string& now) {
    registry::UpdateOptions opts = ownWrite();
    opts.status = true;
    store_.patch(
        "", name,
        [now](const json::Value& current, json::Document& patched) {
            patched.CopyFrom(current, patched.GetAllocator());
            if (!availableLocal(patched)) {
                setAvailable(patched, now);
            }
            return std::optional<meta::Status>();
        },
        opts,
        [this, alive = alive_](const meta::Status*, std::string_view) {
            if (*alive) {
                finish();
            }
        });
}

void LocalApiServices::finish() {
    if (--pending_ > 0) {
        return;
    }
    if (again_) {
        again_ = false;
        run();
        return;
    }
    running_ = false;
    std::vector<std::function<void()>> waiting = std::move(waiting_);
    waiting_.clear();
    for (auto& done : waiting) {
        done();
    }
}

}  // namespace kube::controller::apiregistration
