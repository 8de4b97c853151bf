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

DefaultServiceAccounts::DefaultServiceAccounts(util::EventLoop& loop,
                                               cacher::WatchCache& namespaces,
                                               cacher::WatchCache& accounts,
                                               std::string accountsPrefix, CreateFn create)
    : loop_(loop),
      namespaces_(namespaces),
      accounts_(accounts),
      accountsPrefix_(std::move(accountsPrefix)),
      create_(std::move(create)) {}

DefaultServiceAccounts::~DefaultServiceAccounts() {
    *alive_ = false;
}

// Every namespace the cache holds, and one that appears or changes, is
// checked; so is the namespace of a deleted default account. A refilled
// accounts cache may have missed such a delete: every namespace is checked
// then, and at the start (an account is read when its check runs, so the
// hand-over of the accounts is not taken).
void DefaultServiceAccounts::start() {
    cacher::Follower::Handlers namespaces;
    namespaces.put = [this](const cacher::CachedObject& obj) {
        if (obj.key.starts_with(namespaces_.prefix())) {
            check(obj.key.substr(namespaces_.prefix().size()));
        }
        return false;
    };
    namespaceFollower_ = std::make_unique<cacher::Follower>(namespaces_, std::move(namespaces));

    cacher::Follower::Handlers accounts;
    accounts.replacing = [this] {
        checkAll();
        return false;
    };
    accounts.remove = [this](const cacher::CachedObject& obj) {
        std::string_view key = obj.key;
        if (!key.starts_with(accounts_.prefix())) {
            return false;
        }
        key.remove_prefix(accounts_.prefix().size());
        size_t slash = key.find('/');
        if (slash != std::string_view::npos && key.substr(slash + 1) == kDefault) {
            check(std::string(key.substr(0, slash)));
        }
        return false;
    };
    accountFollower_ = std::make_unique<cacher::Follower>(accounts_, std::move(accounts));
}

void DefaultServiceAccounts::checkAll() {
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
