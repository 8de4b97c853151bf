// Lists served from the watch cache; mirrors the cacher's GetList, with the
// pagination of kube's etcd store: every page of a paginated list is read at
// the first page's revision, reconstructed from the cache's event buffer.

#include <algorithm>

#include "registry/continue_token.hpp"
#include "registry/encoding.hpp"
#include "registry/store.hpp"

namespace kube::registry {

namespace {

// kube's storage layer answers these when a list's version is gone.
constexpr const char* kContinueExpired =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list.";
constexpr const char* kListExpired = "The resourceVersion for the provided list is too old.";

meta::Status storageStatus(const storage::Error& err) {
    if (err.code == storage::ErrorCode::Unavailable) {
        return meta::Status::serviceUnavailable("storage is unavailable: " + err.message);
    }
    return meta::Status::internalError(err.message);
}

}  // namespace

storage::cacher::Attrs objectAttrs(const KindInfo& kind, std::string_view bytes) {
    storage::cacher::Attrs attrs;
    json::Document doc;
    doc.Parse(bytes.data(), bytes.size());
    if (doc.HasParseError() || !doc.IsObject()) {
        return attrs;
    }
    if (const json::Value* labels = json::at(doc, {"metadata", "labels"});
        labels && labels->IsObject()) {
        for (const auto& m : labels->GetObject()) {
            if (m.value.IsString()) {
                attrs.labels.emplace_back(json::view(m.name), json::view(m.value));
            }
        }
    }
    for (std::string_view field : {"metadata.name", "metadata.namespace"}) {
        attrs.fields.emplace_back(field, selectableFieldValue(kind, doc, field));
    }
    for (const SelectableField& f : kind.selectableFields) {
        attrs.fields.emplace_back(f.name, selectableFieldValue(kind, doc, f.name));
    }
    return attrs;
}

bool selectorsMatch(const KindInfo& kind, const ListOptions& opts,
                    const storage::cacher::CachedObject& obj) {
    if (opts.labelSelector.empty() && opts.fieldSelector.empty()) {
        return true;
    }
    // The memo is shared with the kind stored there, whose fields differ.
    storage::cacher::Attrs own;
    if (kind.storedAs) {
        own = objectAttrs(kind, obj.bytes);
    } else if (!obj.attrs) {
        obj.attrs = std::make_shared<const storage::cacher::Attrs>(objectAttrs(kind, obj.bytes));
    }
    const storage::cacher::Attrs& a = kind.storedAs ? own : *obj.attrs;
    bool labelsMatch =
        opts.labelSelector.matches([&a](std::string_view key) -> std::optional<std::string_view> {
            for (const auto& [k, v] : a.labels) {
                if (k == key) {
                    return std::string_view(v);
                }
            }
            return std::nullopt;
        });
    return labelsMatch && opts.fieldSelector.matches([&a](std::string_view field) {
        for (const auto& [f, v] : a.fields) {
            if (f == field) {
                return v;
            }
        }
        return std::string();
    });
}

storage::cacher::WatchCache* Store::watchCache(meta::Status* error) {
    if (!cacher_) {
        *error = meta::Status::internalError("no watch cache for " + kind_.resource);
        return nullptr;
    }
    storage::Error err;
    // Named as kube's metrics name it: "configmaps", "deployments.apps".
    std::string resource =
        kind_.group.empty() ? kind_.resource : kind_.resource + "." + kind_.group;
    storage::cacher::WatchCache* cache =
        cacher_->cache(collectionPrefix(kind_, ""), &err, resource);
    if (!cache) {
        *error = storageStatus(err);
    }
    return cache;
}

void Store::listFromCache(std::string_view ns, const ListOptions& opts, ListCallback cb) {
    meta::Status status;
    storage::cacher::WatchCache* cache = watchCache(&status);
    if (!cache) {
        cb(&status, {});
        return;
    }
    ListRange range;
    meta::Status invalid;
    if (!listRange(ns, opts, &range, &invalid)) {
        cb(&invalid, {});
        return;
    }
    storage::Revision at = range.tokenRevision;
    if (opts.continueToken.empty()) {
        const ReadVersion& v = opts.version;
        if (v.match == ReadVersion::Match::MostRecent || v.revision > cache->revision()) {
            storage::Error err = cacher_->sync();
            if (!err.ok()) {
                meta::Status s = storageStatus(err);
                cb(&s, {});
                return;
            }
        }
        if (v.revision > cache->revision()) {
            meta::Status s = tooLargeResourceVersion(v.revision, cache->revision());
            cb(&s, {});
            return;
        }
        if (v.match == ReadVersion::Match::Exact) {
            at = v.revision;
        }
    }
    bool filtering = !opts.labelSelector.empty() || !opts.fieldSelector.empty();
    storage::cacher::WatchCache::Filter filter;
    if (filtering) {
        filter = [this, &opts](const storage::cacher::CachedObject& o) {
            return selectorsMatch(kind_, opts, o);
        };
    }
    storage::cacher::WatchCache::Page page;
    // A revision the store compacted is gone, even where the cache could
    // still rebuild it: kube's etcd answers the same.
    bool compacted = at != 0 && at < storage_.compactedRevision();
    if (compacted || !cache->list(range.scan, range.startKey, opts.limit, filter, at, &page)) {
        meta::Status s =
            meta::Status::expired(opts.continueToken.empty() ? kListExpired : kContinueExpired);
        cb(&s, {});
        return;
    }
    std::vector<storage::ObjectView> views;
    views.reserve(page.items.size());
    for (const auto& o : page.items) {
        views.push_back(o->view());
    }
    ListPage out;
    out.items = views;
    out.objects = std::move(page.items);
    out.revision = page.revision;
    if (page.more && !views.empty()) {
        out.continueToken = ContinueToken::after(page.revision, views.back().key, range.prefix);
        if (!filtering) {
            out.remainingItemCount = page.remaining;
        }
    }
    cb(nullptr, std::move(out));
}

namespace {

// `bytes` as the object at `at`'s key and revisions.
storage::cacher::ObjectRef cachedObject(std::string_view key, std::string bytes,
                                        const storage::ObjectView& at) {
    auto o = std::make_shared<storage::cacher::CachedObject>();
    o->key = std::string(key);
    o->bytes = std::move(bytes);
    o->modRevision = at.modRevision;
    o->createRevision = at.createRevision;
    return o;
}

}  // namespace

void Store::decodeListPage(ListPage&& page, ListCallback cb) {
    struct State {
        ListPage page;
        // The objects read otherwise than stored and not remembered.
        std::vector<size_t> unknown;
        std::vector<std::optional<std::string>> decoded;
        std::vector<storage::ObjectView> views;
        std::optional<meta::Status> error;
    };
    auto state = std::make_shared<State>();
    std::vector<std::pair<size_t, storage::cacher::ObjectRef>> recalled;
    size_t unknownBytes = 0;
    bool heavy = false;
    for (size_t i = 0; i < page.items.size(); ++i) {
        const storage::ObjectView& item = page.items[i];
        if (!decoding_->needed(item.modRevision)) {
            continue;
        }
        storage::cacher::ObjectRef read;
        if (decoding_->recall(item, &read)) {
            if (read) {
                recalled.emplace_back(i, std::move(read));
            }
            continue;
        }
        state->unknown.push_back(i);
        unknownBytes += item.value.size();
        heavy = heavy || StoredDecoding::offLoop(item.value);
    }
    if (recalled.empty() && state->unknown.empty()) {
        cb(nullptr, std::move(page));
        return;
    }
    // The page's objects, owned: a page read from the store holds views
    // into its read, gone once this returns.
    if (page.objects.size() != page.items.size()) {
        page.objects.clear();
        for (const storage::ObjectView& v : page.items) {
            page.objects.push_back(cachedObject(v.key, std::string(v.value), v));
        }
    }
    for (auto& [i, read] : recalled) {
        page.objects[i] = std::move(read);
    }
    state->page = std::move(page);
    state->decoded.resize(state->unknown.size());
    // Touches the page's objects only: it may run on a thread.
    auto decode = [state, d = decoding_] {
        try {
            for (size_t j = 0; j < state->unknown.size(); ++j) {
                state->decoded[j] = d->decode(state->page.objects[state->unknown[j]]->bytes);
            }
        } catch (const std::exception& e) {
            state->error = meta::Status::internalError(e.what());
        }
    };
    auto done = [state, d = decoding_, cb = std::move(cb)] {
        if (state->error) {
            cb(&*state->error, {});
            return;
        }
        for (size_t j = 0; j < state->unknown.size(); ++j) {
            storage::cacher::ObjectRef& o = state->page.objects[state->unknown[j]];
            storage::cacher::ObjectRef read;
            if (state->decoded[j]) {
                read = cachedObject(o->key, std::move(*state->decoded[j]), o->view());
            }
            d->remember(o->view(), read);
            if (read) {
                o = std::move(read);
            }
        }
        state->views.reserve(state->page.objects.size());
        for (const auto& o : state->page.objects) {
            state->views.push_back(o->view());
        }
        state->page.items = state->views;
        cb(nullptr, std::move(state->page));
    };
    // A page whose decoding would hold the loop is decoded on a thread, as
    // an object that large is rendered there.
    if (heavy || unknownBytes >= StoredDecoding::kDecodeOffLoopBytes) {
        loop_.runBlocking(std::move(decode), std::move(done));
        return;
    }
    decode();
    done();
}

}  // namespace kube::registry
