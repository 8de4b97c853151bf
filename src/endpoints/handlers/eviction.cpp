#include "endpoints/handlers/eviction.hpp"

#include "apis/policy/eviction.hpp"
#include "util/time.hpp"

namespace kube::endpoints {

namespace json = util::json;
namespace policy = apis::policy;

namespace {

// EvictionsRetry: how many times a write that lost a race is tried again.
constexpr int kMaxAttempts = 20;

struct EvictionPlan {
    registry::Store& pods;
    registry::Store& budgets;
    std::string ns;
    std::string name;
    // The Eviction's deleteOptions, dryRun propagated from the request.
    registry::DeleteOptions options;
    int attempts = 0;
    // The pod as last read.
    std::shared_ptr<json::Document> pod;
    std::string budget;  // the covering budget's name, once known
};
using Plan = std::shared_ptr<EvictionPlan>;

void answerSuccess(const Scope& s) {
    meta::Status done;
    done.success = true;
    done.code = 201;
    s->fail(done);
}

std::shared_ptr<json::Document> parsed(std::string_view obj) {
    auto doc = std::make_shared<json::Document>();
    if (json::parse(obj, *doc) || !doc->IsObject()) {
        return nullptr;
    }
    return doc;
}

// A policy/v1beta1 Eviction is the same object: read it as a policy/v1 one
// (EvictionREST.AcceptsGroupVersion). `owned` keeps the rewritten body.
void acceptV1beta1(const Scope& s, std::string& owned) {
    std::string_view ct = s->req.contentType;
    if (!ct.empty() && !ct.starts_with("application/json")) {
        return;
    }
    json::Document body;
    if (json::parse(s->req.body, body) || !body.IsObject() ||
        json::stringMember(body, "apiVersion") != "policy/v1beta1") {
        return;
    }
    json::setMember(body, "apiVersion", json::Value("policy/v1"), body.GetAllocator());
    owned = json::serialize(body);
    s->req.body = owned;
}

// propagateDryRun, then the options as the store takes them.
std::optional<meta::Status> deleteOptionsOf(const json::Value& eviction, bool queryDryRun,
                                            registry::DeleteOptions* out) {
    const json::Value* opts = json::member(eviction, "deleteOptions");
    if (!opts || !opts->IsObject()) {
        out->dryRun = queryDryRun;
        return std::nullopt;
    }
    std::vector<std::string> body;
    if (const json::Value* d = json::member(*opts, "dryRun"); d && d->IsArray()) {
        for (const json::Value& v : d->GetArray()) {
            body.emplace_back(v.IsString() ? json::view(v) : "");
        }
    }
    if (!body.empty() && queryDryRun && body != std::vector<std::string>{"All"}) {
        std::string list;
        for (const std::string& v : body) {
            list += (list.empty() ? "" : " ") + v;
        }
        meta::Status s;
        s.code = 500;
        s.message = "Non-matching dry-run options in request and content: [All] and [" + list + "]";
        return s;
    }
    out->dryRun = queryDryRun || !body.empty();
    if (const json::Value* g = json::member(*opts, "gracePeriodSeconds"); g && g->IsInt64()) {
        out->gracePeriodSeconds = g->GetInt64();
    }
    if (const json::Value* p = json::member(*opts, "preconditions"); p && p->IsObject()) {
        if (const json::Value* uid = json::member(*p, "uid"); uid && uid->IsString()) {
            out->uid = std::string(json::view(*uid));
        }
        if (const json::Value* rv = json::member(*p, "resourceVersion"); rv && rv->IsString()) {
            out->resourceVersion = std::string(json::view(*rv));
        }
    }
    if (const json::Value* o = json::member(*opts, "orphanDependents"); o && o->IsBool()) {
        out->orphanDependents = o->GetBool();
    }
    if (const json::Value* p = json::member(*opts, "propagationPolicy"); p && p->IsString()) {
        out->propagationPolicy = std::string(json::view(*p));
    }
    return std::nullopt;
}

void readPod(const Scope& s, const Plan& p);

// The store's delete of the pod with `opts`. A conflict is tried again from
// the read of the pod when `retry` (the request set no resourceVersion), or
// answered `onConflict` when given.
void deletePod(const Scope& s, const Plan& p, const registry::DeleteOptions& opts, bool retry,
               std::optional<meta::Status> onConflict) {
    p->pods.remove(
        p->ns, p->name, opts,
        [s, p, retry, onConflict](const meta::Status* err, const registry::DeleteResult&) {
            if (!err) {
                answerSuccess(s);
            } else if (err->reason == "Conflict" && onConflict) {
                s->fail(*onConflict);
            } else if (err->reason == "Conflict" && retry && ++p->attempts < kMaxAttempts) {
                readPod(s, p);
            } else {
                s->fail(*err);
            }
        });
}

// The options with the pod's resourceVersion as a precondition.
registry::DeleteOptions atReadVersion(const Plan& p) {
    registry::DeleteOptions opts = p->options;
    opts.resourceVersion =
        std::string(json::stringMember((*p->pod)["metadata"], "resourceVersion"));
    return opts;
}

// checkAndDecrement's read-verify-write of budget `name`, tried again on a
// conflict with the budget read anew; then the pod's delete.
void decrementBudget(const Scope& s, const Plan& p, int attempt) {
    p->budgets.get(
        p->ns, p->budget, [s, p, attempt](const meta::Status* err, std::string_view obj) {
            if (err) {
                s->fail(*err);
                return;
            }
            auto budget = parsed(obj);
            if (!budget) {
                s->fail(meta::Status::internalError("stored budget cannot be read"));
                return;
            }
            std::string now = util::time::formatRFC3339(s->render.table.now);
            if (auto refused = policy::checkAndDecrement(*budget, p->name, now, p->options.dryRun,
                                                         budget->GetAllocator())) {
                s->fail(*refused);
                return;
            }
            if (p->options.dryRun) {
                deletePod(s, p, p->options, false, std::nullopt);
                return;
            }
            registry::UpdateOptions opts;
            opts.status = true;
            opts.manager = "kube-apiserver";
            p->budgets.update(
                p->ns, p->budget, budget, opts,
                [s, p, attempt](const meta::Status* err, std::string_view) {
                    if (err && err->reason == "Conflict" && attempt + 1 < kMaxAttempts) {
                        decrementBudget(s, p, attempt + 1);
                        return;
                    }
                    if (err && err->reason == "Conflict") {
                        s->fail(meta::Status::timeout("couldn't update PodDisruptionBudget \"" +
                                                      p->budget + "\" due to conflicts"));
                        return;
                    }
                    if (err) {
                        s->fail(*err);
                        return;
                    }
                    deletePod(s, p, p->options, false, std::nullopt);
                });
        });
}

// The budgets of the pod's namespace, the one covering it, and what it allows.
void consultBudgets(const Scope& s, const Plan& p) {
    p->budgets.list(p->ns, {}, [s, p](const meta::Status* err, registry::ListPage&& page) {
        if (err) {
            s->fail(*err);
            return;
        }
        std::vector<json::Document> docs(page.items.size());
        std::vector<const json::Value*> all;
        for (size_t i = 0; i < page.items.size(); ++i) {
            if (!json::parse(page.items[i].value, docs[i]) && docs[i].IsObject()) {
                all.push_back(&docs[i]);
            }
        }
        std::vector<const json::Value*> covering = policy::budgetsOf(*p->pod, all);
        if (covering.size() > 1) {
            s->fail(policy::moreThanOneBudget());
            return;
        }
        if (covering.empty()) {
            deletePod(s, p, p->options, false, std::nullopt);
            return;
        }
        p->budget = std::string(json::stringMember((*covering[0])["metadata"], "name"));
        if (policy::decideBudget(*p->pod, *covering[0]) ==
            policy::BudgetDecision::DeleteUnhealthy) {
            // The pod must not have become ready since: at the version read,
            // and a lost race is a 429 the client retries.
            std::optional<meta::Status> onConflict;
            if (!p->options.resourceVersion) {
                onConflict = policy::budgetBeingProcessed(p->budget);
            }
            deletePod(s, p, atReadVersion(p), false, onConflict);
            return;
        }
        decrementBudget(s, p, 0);
    });
}

void readPod(const Scope& s, const Plan& p) {
    p->pods.get(p->ns, p->name, [s, p](const meta::Status* err, std::string_view obj) {
        if (err) {
            s->fail(*err);
            return;
        }
        p->pod = parsed(obj);
        if (!p->pod) {
            s->fail(meta::Status::internalError("stored pod cannot be read"));
            return;
        }
        if (!policy::canIgnoreBudgets(*p->pod)) {
            consultBudgets(s, p);
            return;
        }
        // Terminal or terminating pods have disrupted already: no budget.
        bool retry = !p->options.resourceVersion;
        registry::DeleteOptions opts = p->options;
        if (policy::shouldEnforceResourceVersion(*p->pod) && retry) {
            opts = atReadVersion(p);
        }
        deletePod(s, p, opts, retry, std::nullopt);
    });
}

}  // namespace

void createEviction(Scope s, registry::Store& pods, registry::Store& budgets) {
    std::string v1beta1Body;
    std::string_view body = s->req.body;
    acceptV1beta1(s, v1beta1Body);
    bool dryRun = false;
    std::shared_ptr<json::Document> eviction =
        readRequestObject(s, policy::evictionRequestKind(), "CreateOptions", &dryRun);
    s->req.body = body;
    if (!eviction) {
        return;
    }
    const json::Value* meta = json::member(*eviction, "metadata");
    std::string_view bodyNs = meta ? json::stringMember(*meta, "namespace") : "";
    if (!bodyNs.empty() && bodyNs != s->info.namespace_) {
        s->fail(meta::Status::badRequest(
            "the namespace of the provided object does not match the namespace sent on the "
            "request"));
        return;
    }
    if ((meta ? json::stringMember(*meta, "name") : "") != s->info.name) {
        s->fail(meta::Status::badRequest("name in URL does not match name in Eviction object"));
        return;
    }
    auto p = std::make_shared<EvictionPlan>(
        EvictionPlan{pods, budgets, s->info.namespace_, s->info.name, {}, 0, nullptr, ""});
    if (auto refused = deleteOptionsOf(*eviction, dryRun, &p->options)) {
        s->fail(*refused);
        return;
    }
    readPod(s, p);
}

}  // namespace kube::endpoints
