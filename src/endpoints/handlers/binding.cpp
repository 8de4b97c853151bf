#include "endpoints/handlers/binding.hpp"

#include "apis/core/binding.hpp"
#include "registry/encoding.hpp"
#include "util/time.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

// How often a write that lost a race with another writer of the pod is
// tried again (GuaranteedUpdate retries until it wins).
constexpr int kMaxAttempts = 16;

struct BindingPlan {
    std::shared_ptr<json::Document> binding;
    std::string ns;
    std::string name;
    std::string key;
    bool dryRun = false;
    int attempts = 0;
};

// The precondition failure of a Binding's uid or resourceVersion, in the
// words of kube's storage error.
meta::Status preconditionFailed(const BindingPlan& p, std::string_view what,
                                std::string_view wanted, std::string_view actual) {
    return meta::Status::conflict(
        {"", "pods"}, p.name,
        "StorageError: invalid object, Code: 4, Key: " + p.key +
            ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: " + std::string(what) +
            " in precondition: " + std::string(wanted) + ", " + std::string(what) +
            " in object meta: " + std::string(actual));
}

void attempt(Scope s, registry::Store& pods, std::shared_ptr<BindingPlan> p) {
    pods.storage().get(
        p->key, [s, &pods, p](const storage::Error& err, const storage::ObjectView* stored) {
            if (!stored || err.code == storage::ErrorCode::NotFound) {
                s->fail(meta::Status::notFound({"", "pods"}, p->name));
                return;
            }
            if (!err.ok()) {
                s->fail(meta::Status::internalError(err.message));
                return;
            }
            json::Document pod;
            if (auto why = json::parse(stored->value, pod); why || !pod.IsObject()) {
                s->fail(meta::Status::internalError(why ? *why : "stored pod is not an object"));
                return;
            }
            const json::Value& bmeta = (*p->binding)["metadata"];
            std::string_view uid = json::stringMember(bmeta, "uid");
            std::string_view podUid = json::stringMember(pod["metadata"], "uid");
            if (!uid.empty() && uid != podUid) {
                s->fail(preconditionFailed(*p, "UID", uid, podUid));
                return;
            }
            std::string_view rv = json::stringMember(bmeta, "resourceVersion");
            std::string revision = std::to_string(stored->modRevision);
            if (!rv.empty() && rv != revision) {
                s->fail(preconditionFailed(*p, "ResourceVersion", rv, revision));
                return;
            }
            std::string now = util::time::formatRFC3339(s->render.table.now);
            auto& a = pod.GetAllocator();
            if (auto refused = apis::core::bindPod(
                    pod, p->name, json::stringMember((*p->binding)["target"], "name"),
                    json::member(bmeta, "annotations"), now, a)) {
                s->fail(*refused);
                return;
            }
            meta::Status done;
            done.success = true;
            done.code = 201;
            if (p->dryRun) {
                s->fail(done);
                return;
            }
            registry::EncodedObject enc = registry::encodeObject(pod);
            storage::WriteOp op;
            op.type = storage::WriteOp::Type::Update;
            op.key = p->key;
            op.expectedModRevision = stored->modRevision;
            op.value = std::move(enc.bytes);
            op.revisionOffset = enc.revisionOffset;
            pods.storage().write({std::move(op)}, [s, &pods, p, done](storage::WriteResult&& res) {
                if (res.error.ok()) {
                    s->fail(done);
                } else if (res.error.code == storage::ErrorCode::Conflict &&
                           ++p->attempts < kMaxAttempts) {
                    attempt(s, pods, p);
                } else if (res.error.code == storage::ErrorCode::NotFound) {
                    s->fail(meta::Status::notFound({"", "pods"}, p->name));
                } else {
                    s->fail(meta::Status::internalError(res.error.message));
                }
            });
        });
}

}  // namespace

void createBinding(Scope s, registry::Store& pods) {
    auto p = std::make_shared<BindingPlan>();
    p->binding =
        readRequestObject(s, apis::core::bindingRequestKind(), "CreateOptions", &p->dryRun);
    if (!p->binding) {
        return;
    }
    json::Document& binding = *p->binding;
    if (!json::member(binding, "metadata") || !binding["metadata"].IsObject()) {
        json::setMember(binding, "metadata", json::Value(rapidjson::kObjectType),
                        binding.GetAllocator());
    }
    if (!json::member(binding, "target") || !binding["target"].IsObject()) {
        json::setMember(binding, "target", json::Value(rapidjson::kObjectType),
                        binding.GetAllocator());
    }
    const json::Value& bmeta = binding["metadata"];
    std::string_view bodyNs = json::stringMember(bmeta, "namespace");
    if (!bodyNs.empty() && bodyNs != s->info.namespace_) {
        s->fail(
            meta::Status::badRequest("the namespace of the provided object does not match "
                                     "the namespace sent on the request"));
        return;
    }
    std::string_view bodyName = json::stringMember(bmeta, "name");
    // pods/<name>/binding names the pod in its path; bindings in the body.
    bool named = !s->info.subresource.empty();
    p->name = named ? s->info.name : std::string(bodyName);
    if (p->name.empty()) {
        s->fail(meta::Status::badRequest("Name parameter required."));
        return;
    }
    if (p->name != bodyName) {
        s->fail(meta::Status::badRequest("name in URL does not match name in Binding object"));
        return;
    }
    if (auto invalid = apis::core::validateBinding(binding)) {
        s->fail(*invalid);
        return;
    }
    p->ns = s->info.namespace_;
    p->key = registry::objectKey(pods.kind(), p->ns, p->name);
    attempt(s, pods, p);
}

}  // namespace kube::endpoints
