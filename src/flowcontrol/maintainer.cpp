#include "flowcontrol/maintainer.hpp"

#include "flowcontrol/bootstrap.hpp"
#include "util/time.hpp"

namespace kube::flowcontrol {

namespace json = util::json;

namespace {

// kube re-ensures the bootstrap configuration once a minute.
constexpr std::chrono::minutes kEnsurePeriod{1};

// The Dangling condition kube's config controller writes.
json::Value danglingCondition(const DanglingChange& c, const std::string& now, json::Allocator& a) {
    json::Value cond(rapidjson::kObjectType);
    cond.AddMember("type", "Dangling", a);
    cond.AddMember("status", rapidjson::StringRef(c.dangling ? "True" : "False"), a);
    cond.AddMember("lastTransitionTime", json::stringValue(now, a), a);
    cond.AddMember("reason", rapidjson::StringRef(c.dangling ? "NotFound" : "Found"), a);
    std::string message = "This FlowSchema references the PriorityLevelConfiguration object named \"" +
                          c.level + (c.dangling ? "\" but there is no such object"
                                                : "\" and it exists");
    cond.AddMember("message", json::stringValue(message, a), a);
    return cond;
}

}  // namespace

Maintainer::Maintainer(util::EventLoop& loop, authz::RbacStores stores, Controller& controller)
    : loop_(loop), stores_(std::move(stores)), controller_(controller) {
    controller_.onDanglingChanges(
        [this](const std::vector<DanglingChange>& changes) { writeConditions(changes); });
}

Maintainer::~Maintainer() {
    *alive_ = false;
    controller_.onDanglingChanges(nullptr);
}

void Maintainer::start(std::function<void(authz::BootstrapSummary)> done) {
    ensure(std::move(done));
    controller_.rebuild();  // conditions of what the caches already hold
}

void Maintainer::ensure(std::function<void(authz::BootstrapSummary)> done) {
    ensureBootstrapConfiguration(
        stores_, [this, alive = alive_, done = std::move(done)](authz::BootstrapSummary s) {
            if (done) {
                done(std::move(s));
            }
            if (!*alive) {
                return;
            }
            timer_ = loop_.startTimer(kEnsurePeriod, [this] { ensure(nullptr); });
        });
}

void Maintainer::writeConditions(const std::vector<DanglingChange>& changes) {
    for (const DanglingChange& c : changes) {
        if (!writing_.insert(c.flowSchema).second) {
            continue;
        }
        std::string now = util::time::formatRFC3339(loop_.now());
        registry::UpdateOptions opts;
        opts.status = true;
        stores_("flowschemas")
            .patch(
                "", c.flowSchema,
                [c, now](const json::Value& current, json::Document& patched) {
                    patched.CopyFrom(current, patched.GetAllocator());
                    auto& a = patched.GetAllocator();
                    json::Value* status = json::member(patched, "status");
                    if (!status || !status->IsObject()) {
                        json::setMember(patched, "status", json::Value(rapidjson::kObjectType), a);
                        status = json::member(patched, "status");
                    }
                    json::Value* conds = json::member(*status, "conditions");
                    if (!conds || !conds->IsArray()) {
                        json::setMember(*status, "conditions", json::Value(rapidjson::kArrayType),
                                        a);
                        conds = json::member(*status, "conditions");
                    }
                    json::Value cond = danglingCondition(c, now, a);
                    bool replaced = false;
                    for (json::Value& old : conds->GetArray()) {
                        if (old.IsObject() && json::stringMember(old, "type") == "Dangling") {
                            old = cond;
                            replaced = true;
                            break;
                        }
                    }
                    if (!replaced) {
                        conds->PushBack(cond, a);
                    }
                    return std::optional<meta::Status>();
                },
                opts,
                [this, alive = alive_, name = c.flowSchema](const meta::Status*, std::string_view) {
                    // A failed write (the schema went) is retried by the next event.
                    if (*alive) {
                        writing_.erase(name);
                    }
                });
    }
}

}  // namespace kube::flowcontrol
