#include "registry/namespace_finalizer.hpp"

#include <memory>
#include <vector>

#include "registry/encoding.hpp"

namespace kube::registry {

namespace {

// Concurrent writes into a terminating namespace are refused by admission,
// but an update racing the listing can still move a revision; retry then.
constexpr int kMaxAttempts = 5;

struct Pass {
    const Scheme& scheme;
    storage::Interface& storage;
    std::string ns;
    std::function<void(const meta::Status*)> done;
    std::vector<const KindInfo*> kinds;
    size_t next = 0;
    std::vector<storage::WriteOp> ops;
    int attempt = 0;
};

void step(std::shared_ptr<Pass> pass);

void commit(std::shared_ptr<Pass> pass) {
    if (pass->ops.empty()) {
        pass->done(nullptr);
        return;
    }
    std::vector<storage::WriteOp> ops = std::move(pass->ops);
    pass->storage.write(std::move(ops), [pass](storage::WriteResult&& res) {
        if (res.error.ok()) {
            pass->done(nullptr);
            return;
        }
        if ((res.error.code == storage::ErrorCode::Conflict ||
             res.error.code == storage::ErrorCode::NotFound) &&
            ++pass->attempt < kMaxAttempts) {
            pass->next = 0;
            pass->ops.clear();
            step(pass);
            return;
        }
        meta::Status s = meta::Status::internalError("deleting the contents of namespace " +
                                                     pass->ns + ": " + res.error.message);
        pass->done(&s);
    });
}

void step(std::shared_ptr<Pass> pass) {
    if (pass->next == pass->kinds.size()) {
        commit(pass);
        return;
    }
    const KindInfo* kind = pass->kinds[pass->next++];
    storage::ListOptions opts;
    opts.prefix = collectionPrefix(*kind, pass->ns);
    pass->storage.list(opts, [pass](const storage::Error& err, const storage::ListResult& res) {
        if (!err.ok()) {
            meta::Status s = meta::Status::internalError(err.message);
            pass->done(&s);
            return;
        }
        for (const storage::ObjectView& item : res.items) {
            storage::WriteOp op;
            op.type = storage::WriteOp::Type::Delete;
            op.key = std::string(item.key);
            op.expectedModRevision = item.modRevision;
            pass->ops.push_back(std::move(op));
        }
        step(pass);
    });
}

}  // namespace

void deleteNamespaceContents(const Scheme& scheme, storage::Interface& storage, std::string ns,
                             std::function<void(const meta::Status*)> done) {
    auto pass =
        std::make_shared<Pass>(Pass{scheme, storage, std::move(ns), std::move(done), {}, 0, {}, 0});
    for (const auto& k : scheme.all()) {
        if (k->namespaced) {
            pass->kinds.push_back(k.get());
        }
    }
    step(pass);
}

}  // namespace kube::registry
