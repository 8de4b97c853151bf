#include "storage/cacher/follower.hpp"

namespace kube::storage::cacher {

namespace json = util::json;

namespace {

Follower::Handlers parsing(Follower::JsonHandlers h) {
    Follower::Handlers out;
    out.replacing = [replacing = std::move(h.replacing)] {
        if (replacing) {
            replacing();
        }
        return true;
    };
    out.put = [put = std::move(h.put)](const CachedObject& obj) {
        json::Document doc;
        if (json::parse(obj.bytes, doc) || !doc.IsObject()) {
            return false;
        }
        if (put) {
            put(doc);
        }
        return true;
    };
    out.remove = [remove = std::move(h.remove)](const CachedObject& obj) {
        json::Document doc;
        if (json::parse(obj.bytes, doc) || !doc.IsObject()) {
            return false;
        }
        const json::Value* meta = json::member(doc, "metadata");
        if (meta && remove) {
            remove(json::stringMember(*meta, "namespace"), json::stringMember(*meta, "name"));
        }
        return true;
    };
    out.changed = std::move(h.changed);
    return out;
}

}  // namespace

Follower::Follower(WatchCache& cache, Handlers handlers)
    : cache_(cache), handlers_(std::move(handlers)) {
    replay();
    cache_.addWatcher(this);
}

Follower::Follower(WatchCache& cache, JsonHandlers handlers)
    : Follower(cache, parsing(std::move(handlers))) {}

Follower::~Follower() {
    cache_.removeWatcher(this);
}

void Follower::onEvent(const EventRef& event) {
    if (!event->object) {
        return;
    }
    const auto& handle =
        event->type == WatchEvent::Type::Deleted ? handlers_.remove : handlers_.put;
    if (handle && handle(*event->object) && handlers_.changed) {
        handlers_.changed();
    }
}

void Follower::onReset() {
    if (replay() && handlers_.changed) {
        handlers_.changed();
    }
}

bool Follower::replay() {
    if (handlers_.replacing && !handlers_.replacing()) {
        return false;
    }
    WatchCache::Page page;
    if (!cache_.list(cache_.prefix(), "", 0, nullptr, 0, &page) || !handlers_.put) {
        return true;
    }
    for (const ObjectRef& obj : page.items) {
        handlers_.put(*obj);
    }
    return true;
}

}  // namespace kube::storage::cacher
