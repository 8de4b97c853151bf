#include "controller/serviceaccount/default_service_accounts.hpp"

#include "util/json.hpp"

namespace kube::controller::serviceaccount {

namespace cacher = storage::cacher;
namespace json = util::json;

namespace {

constexpr std::string_view kDefault = "default";

// An active namespace: neither deleting nor Terminating.
bool activeNamespace(std::string_view bytes) {
    json::Document doc;
    if (json::parse(bytes, doc) || !doc.IsObject()) {
        return false;
    }
    const json::Value* deleting = json::at(doc, {"metadata", "deletionTimestamp"});
    if (deleting && !deleting->IsNull()) {
        return false;
    }
    const json::Value* phase = json::at(doc, {"status", "phase"});
    return !(phase && phase->IsString() && json::view(*phase) == "Terminating");
}

}  // namespace

// Tells the controller of one cache's changes: a namespace that appears or
// changes is checked, and so is the namespace of a default account deleted.
class DefaultServiceAccounts::Follower : public cacher::CacheWatcher {
  public:
    Follower(DefaultServiceAccounts& owner, cacher::WatchCache& cache, bool accounts)
        : owner_(owner), cache_(cache), accounts_(accounts) {
        cache_.addWatcher(this);
    }
    ~Follower() override { cache_.removeWatcher(this); }

    void onEvent(const cacher::EventRef& event) override {
        if (!event->object) {
            return;
        }
        std::string_view key = event->object->key;
        if (!key.starts_with(cache_.prefix())) {
            return;
        }
        key.remove_prefix(cache_.prefix().size());
        if (!accounts_) {
            if (event->type != cacher::WatchEvent::Type::Deleted) {
                owner_.check(std::string(key));
            }
            return;
        }
        size_t slash = key.find('/');
        if (event->type == cacher::WatchEvent::Type::Deleted && slash != std::string_view::npos &&
            key.substr(slash + 1) == kDefault) {
            owner_.check(std::string(key.substr(0, slash)));
        }
    }

    // Refilled: anything may have changed.
    void onReset() override { owner_.start(); }

  private:
    DefaultServiceAccounts& owner_;
    cacher::WatchCache& cache_;
    bool accounts_;
};

DefaultServiceAccounts::DefaultServiceAccounts(util::EventLoop& loop,
                                               cacher::WatchCache& namespaces,
                                               cacher::WatchCache& accounts,
                                               std::string accountsPrefix, CreateFn create)
    : loop_(loop),
      namespaces_(namespaces),
      accounts_(accounts),
      accountsPrefix_(std::move(accountsPrefix)),
      create_(std::move(create)) {
    namespaceFollower_ = std::make_unique<Follower>(*this, namespaces_, false);
    accountFollower_ = std::make_unique<Follower>(*this, accounts_, true);
}

DefaultServiceAccounts::~DefaultServiceAccounts() {
    *alive_ = false;
}

void DefaultServiceAccounts::start() {
    cacher::WatchCache::Page page;
    if (!namespaces_.list(namespaces_.prefix(), "", 0, nullptr, 0, &page)) {
        return;
    }
    for (const cacher::ObjectRef& ns : page.items) {
        if (ns->key.starts_with(namespaces_.prefix())) {
            check(ns->key.substr(namespaces_.prefix().size()));
        }
    }
}

bool DefaultServiceAccounts::active(const std::string& ns) const {
    std::string key = namespaces_.prefix() + ns;
    cacher::WatchCache::Page page;
    if (!namespaces_.list(key, "", 1, nullptr, 0, &page) || page.items.empty() ||
        page.items.front()->key != key) {
        return false;
    }
    return activeNamespace(page.items.front()->bytes);
}

bool DefaultServiceAccounts::hasDefault(const std::string& ns) const {
    std::string key = accountsPrefix_ + ns + "/" + std::string(kDefault);
    cacher::WatchCache::Page page;
    return accounts_.list(key, "", 1, nullptr, 0, &page) && !page.items.empty() &&
           page.items.front()->key == key;
}

void DefaultServiceAccounts::check(const std::string& ns) {
    if (queued_.insert(ns).second) {
        schedule();
    }
}

void DefaultServiceAccounts::schedule() {
    if (scheduled_ || queued_.empty() || inFlight_ >= kMaxInFlight) {
        return;
    }
    scheduled_ = true;
    loop_.post([this, alive = alive_] {
        if (*alive) {
            scheduled_ = false;
            run();
        }
    });
}

// Creates what the queued namespaces lack, a few at a time; a namespace is
// looked at again when it is taken from the queue, not when it was queued.
void DefaultServiceAccounts::run() {
    while (!queued_.empty() && inFlight_ < kMaxInFlight) {
        std::string ns = *queued_.begin();
        queued_.erase(queued_.begin());
        if (!active(ns) || hasDefault(ns)) {
            continue;
        }
        ++inFlight_;
        create_(ns, [this, ns, alive = alive_](bool ok) {
            if (!*alive) {
                return;
            }
            --inFlight_;
            if (!ok) {
                retryLater(ns);
            }
            schedule();
        });
    }
}

void DefaultServiceAccounts::retryLater(const std::string& ns) {
    failed_.insert(ns);
    if (retrying_) {
        return;
    }
    retrying_ = true;
    retry_ = loop_.startTimer(std::chrono::seconds(1), [this, alive = alive_] {
        if (!*alive) {
            return;
        }
        retrying_ = false;
        queued_.merge(failed_);
        failed_.clear();
        schedule();
    });
}

}  // namespace kube::controller::serviceaccount
