#include "registry/store.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include "registry/continue_token.hpp"
#include "registry/deletion.hpp"
#include "registry/encoding.hpp"
#include "registry/object_meta.hpp"
#include "registry/status_strategy.hpp"
#include "registry/validation.hpp"
#include "util/deep_stack.hpp"
#include "util/time.hpp"
#include "util/uid.hpp"

namespace kube::registry {

namespace {

// A guaranteed update retries this often on a concurrent write before giving up.
constexpr int kMaxUpdateAttempts = 8;

std::optional<storage::Revision> parseRevision(std::string_view rv) {
    storage::Revision r = 0;
    auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), r);
    if (ec != std::errc() || end != rv.data() + rv.size()) {
        return std::nullopt;
    }
    return r;
}

// The batch failed on one of the companion's ops, which come before the
// object's own at `own` (a range another write changed first): the
// companion plans again.
bool companionRaced(const storage::WriteResult& res, size_t own) {
    using storage::ErrorCode;
    ErrorCode c = res.error.code;
    return !res.error.ok() && res.failedOp != own &&
           (c == ErrorCode::Conflict || c == ErrorCode::KeyExists || c == ErrorCode::NotFound);
}

// The companion's ops, then the object's own, which so gets the batch's
// last revision (its resourceVersion is the store's revision after it, as
// with etcd's one-revision transactions).
size_t appendOwn(std::vector<storage::WriteOp>& ops, storage::WriteOp own) {
    ops.push_back(std::move(own));
    return ops.size() - 1;
}

std::shared_ptr<json::Document> parseStored(std::string_view bytes) {
    auto doc = std::make_shared<json::Document>();
    doc->Parse(bytes.data(), bytes.size());
    return doc;
}

// Everything but metadata and status: what a generation bump is about.
bool specChanged(const json::Value& a, const json::Value& b) {
    auto significant = [](const json::Value& obj) {
        size_t n = 0;
        for (const auto& m : obj.GetObject()) {
            std::string_view k = json::view(m.name);
            if (k != "metadata" && k != "status" && k != "kind" && k != "apiVersion") {
                n++;
            }
        }
        return n;
    };
    if (significant(a) != significant(b)) {
        return true;
    }
    for (const auto& m : a.GetObject()) {
        std::string_view k = json::view(m.name);
        if (k == "metadata" || k == "status" || k == "kind" || k == "apiVersion") {
            continue;
        }
        const json::Value* other = json::member(b, k);
        if (!other || *other != m.value) {
            return true;
        }
    }
    return false;
}

}  // namespace

// How large a stored object plus the request must be for an update's new
// object to be built on a thread rather than the loop.
constexpr size_t kBuildOffLoopBytes = 256 * 1024;

struct Store::UpdateState {
    std::string ns;
    std::string name;
    std::shared_ptr<json::Document> obj;
    UpdateOptions opts;
    ObjectCallback cb;
    std::optional<storage::Revision> precondition;  // from the body's resourceVersion
    PatchFn patch;  // set for a patch: builds `obj` anew on every attempt
    int attempt = 0;
    // The read was made again once the replica caught up (StaleRead), and
    // whether from etcd itself.
    StaleRead stale;
};

struct Store::CreateState {
    std::shared_ptr<json::Document> obj;
    std::string ns;
    std::string name;
    CreateOptions opts;
    ObjectCallback cb;
    admission::Attributes attrs;
    // With a write companion: the object as admitted, before the companion
    // changed it (each attempt starts from it), and the attempts made.
    std::shared_ptr<json::Document> pristine;
    int attempt = 0;
};

struct Store::Attempt {
    storage::Revision revision = 0;
    // The stored object's bytes, kept while the attempt outlives the read.
    std::string stored;
    std::optional<meta::Status> error;
    json::Document next;
    EncodedObject enc;
    // The stored object parsed, for the write guard and admission.
    json::Document old;
    admission::Attributes attrs;
    // The update takes the last finalizer off an object being deleted: it
    // is deleted instead of written.
    bool remove = false;
};

// The patched object of one attempt. Its resourceVersion, when it has one,
// must be the stored object's: kube's GuaranteedUpdate compares the two.
std::optional<meta::Status> Store::patchedObject(const UpdateState& state, const json::Value& old,
                                                 storage::Revision current,
                                                 json::Document& next) const {
    if (kind_.storedAs) {
        // The patch applies to the object as the client sees it.
        json::Document served;
        served.CopyFrom(old, served.GetAllocator());
        kind_.storedAs->fromStorage(served, served.GetAllocator());
        if (std::optional<meta::Status> bad = state.patch(served, next)) {
            return bad;
        }
        kind_.storedAs->toStorage(next, next.GetAllocator());
    } else if (std::optional<meta::Status> bad = state.patch(old, next)) {
        return bad;
    }
    std::string_view rv = json::stringMember(ensureMetadata(next), "resourceVersion");
    if (rv.empty() || rv == "0") {
        return std::nullopt;
    }
    std::optional<storage::Revision> wanted = parseRevision(rv);
    if (!wanted) {
        return meta::Status::badRequest("invalid resourceVersion: " + std::string(rv));
    }
    if (*wanted != current) {
        return meta::Status::optimisticLockConflict(kind_.groupResource(), state.name);
    }
    return std::nullopt;
}

Store::Store(const KindInfo& kind, storage::Interface& storage, util::EventLoop& loop)
    : kind_(kind), storage_(storage), loop_(loop), prefix_(storedPrefix(kind)) {}

meta::GroupKind Store::invalidKind() const {
    if (!kind_.storedAs) {
        return kind_.groupKind();
    }
    // kube validates the stored (internal) kind and names it.
    const std::string& v = kind_.storedAs->apiVersion;
    size_t slash = v.find('/');
    return {slash == std::string::npos ? std::string() : v.substr(0, slash), kind_.kind};
}

meta::Status Store::statusFromStorage(const storage::Error& err, std::string_view name) const {
    switch (err.code) {
        case storage::ErrorCode::NotFound:
            return meta::Status::notFound(kind_.groupResource(), name);
        case storage::ErrorCode::KeyExists:
            return meta::Status::alreadyExists(kind_.groupResource(), name);
        case storage::ErrorCode::Conflict:
            return meta::Status::optimisticLockConflict(kind_.groupResource(), name);
        case storage::ErrorCode::NoSpace:
            return meta::Status::internalError("storage is full: " + err.message);
        case storage::ErrorCode::Unavailable:
            return meta::Status::serviceUnavailable("storage is unavailable: " + err.message);
        default:
            return meta::Status::internalError(err.message);
    }
}

void Store::recordManagedFields(const json::Value& live, json::Document& obj,
                                const std::optional<std::string>& manager, bool status,
                                std::chrono::system_clock::time_point now) const {
    const apply::FieldManager* fm = fieldManager(status);
    if (!fm) {
        if (json::Value* m = json::member(obj, "metadata"); m && m->IsObject()) {
            json::removeMember(*m, "managedFields");
        }
        return;
    }
    if (!manager) {
        return;
    }
    std::string time = util::time::formatRFC3339(now);
    if (!kind_.storedAs) {
        fm->update(live, obj, *manager, time, obj.GetAllocator());
        return;
    }
    // The managers record fields of the served shape, under its apiVersion
    // (kube's field manager runs on the request's version): both objects
    // are read in that shape, and the managedFields found go back to `obj`.
    json::Document served;
    served.CopyFrom(obj, served.GetAllocator());
    kind_.storedAs->fromStorage(served, served.GetAllocator());
    json::Document servedLive;
    servedLive.CopyFrom(live, servedLive.GetAllocator());
    if (json::member(live, "metadata")) {
        kind_.storedAs->fromStorage(servedLive, servedLive.GetAllocator());
    }
    fm->update(servedLive, served, *manager, time, served.GetAllocator());
    json::Value& metadata = ensureMetadata(obj);
    if (const json::Value* m = json::at(served, {"metadata", "managedFields"})) {
        json::setMember(metadata, "managedFields", json::Value(*m, obj.GetAllocator()),
                        obj.GetAllocator());
    } else {
        json::removeMember(metadata, "managedFields");
    }
}

void Store::get(std::string_view ns, std::string_view name, ObjectCallback cb) {
    readObject(ns, name, false, std::move(cb));
}

void Store::getConsistent(std::string_view ns, std::string_view name, ObjectCallback cb) {
    storage_.waitFresh([this, ns = std::string(ns), n = std::string(name),
                        cb = std::move(cb)](const storage::Error& err) mutable {
        readObject(ns, n, !err.ok(), std::move(cb));
    });
}

void Store::readObject(std::string_view ns, std::string_view name, bool linearizable,
                       ObjectCallback cb) {
    std::string n(name);
    auto found = [this, n, cb = std::move(cb)](const storage::Error& err,
                                               const storage::ObjectView* obj) {
        if (!err.ok()) {
            meta::Status s = statusFromStorage(err, n);
            cb(&s, {});
            return;
        }
        if (!decoding_ || !decoding_->needed(obj->modRevision)) {
            cb(nullptr, obj->value);
            return;
        }
        decodeObject(*obj, std::move(cb));
    };
    if (linearizable) {
        storage_.getLinearizable(objectKey(kind_, ns, name), std::move(found));
    } else {
        storage_.get(objectKey(kind_, ns, name), std::move(found));
    }
}

bool Store::readAgain(StaleRead& stale, std::function<void()> again) {
    if (stale.readAgain || !storage_.readsMayLag()) {
        return false;
    }
    stale.readAgain = true;
    storage_.waitFresh([&stale, again = std::move(again)](const storage::Error& err) {
        stale.linearizable = !err.ok();
        again();
    });
    return true;
}

void Store::readCurrent(const std::string& key, const StaleRead& stale,
                        storage::Interface::GetCallback cb) {
    if (stale.linearizable) {
        storage_.getLinearizable(key, std::move(cb));
    } else {
        storage_.getLatest(key, std::move(cb));
    }
}

void Store::decodeObject(const storage::ObjectView& stored, ObjectCallback cb) {
    try {
        storage::cacher::ObjectRef read;
        if (decoding_->recall(stored, &read) || !StoredDecoding::offLoop(stored.value)) {
            if (!read) {
                read = decoding_->read(stored);
            }
            cb(nullptr, read ? std::string_view(read->bytes) : stored.value);
            return;
        }
    } catch (const std::exception& e) {
        meta::Status s = meta::Status::internalError(e.what());
        cb(&s, {});
        return;
    }
    struct Job {
        storage::cacher::CachedObject stored;
        std::optional<std::string> decoded;
        std::optional<meta::Status> error;
    };
    auto job = std::make_shared<Job>();
    job->stored.key.assign(stored.key);
    job->stored.bytes.assign(stored.value);
    job->stored.modRevision = stored.modRevision;
    job->stored.createRevision = stored.createRevision;
    loop_.runBlocking(
        [job, d = decoding_] {
            try {
                job->decoded = d->decode(job->stored.bytes);
            } catch (const std::exception& e) {
                job->error = meta::Status::internalError(e.what());
            }
        },
        [job, d = decoding_, cb = std::move(cb)] {
            if (job->error) {
                cb(&*job->error, {});
                return;
            }
            storage::cacher::ObjectRef read;
            if (job->decoded) {
                auto o = std::make_shared<storage::cacher::CachedObject>();
                o->key = job->stored.key;
                o->bytes = std::move(*job->decoded);
                o->modRevision = job->stored.modRevision;
                o->createRevision = job->stored.createRevision;
                read = std::move(o);
            }
            d->remember(job->stored.view(), read);
            cb(nullptr, read ? read->bytes : job->stored.bytes);
        });
}

bool parseSelectors(const KindInfo& kind, std::string_view labelSelector,
                    std::string_view fieldSelector, ListOptions& opts, meta::Status* error) {
    std::string why;
    auto labels = util::LabelSelector::parse(labelSelector, &why);
    if (!labels) {
        *error = meta::Status::badRequest(why);
        return false;
    }
    auto fields = util::FieldSelector::parse(fieldSelector, &why);
    if (!fields) {
        *error = meta::Status::badRequest(why);
        return false;
    }
    // Mirrors the field label conversion the list and deletecollection handlers
    // apply: the kind's own, or metav1's default for kinds that register none.
    for (const util::FieldRequirement& r : fields->requirements()) {
        if (kind.selectableFields.empty()) {
            if (r.field != "metadata.name" && r.field != "metadata.namespace") {
                *error = meta::Status::badRequest(
                    validation::goQuote(r.field) +
                    " is not a known field selector: only \"metadata.name\", "
                    "\"metadata.namespace\"");
                return false;
            }
            continue;
        }
        bool known = std::any_of(kind.selectableFields.begin(), kind.selectableFields.end(),
                                 [&r](const SelectableField& f) { return f.name == r.field; });
        if (!known) {
            *error = meta::Status::badRequest("field label not supported: " + r.field);
            return false;
        }
    }
    opts.labelSelector = std::move(*labels);
    opts.fieldSelector = std::move(*fields);
    return true;
}

std::string selectableFieldValue(const KindInfo& kind, const json::Value& obj,
                                 std::string_view field) {
    if (field == "metadata.name" || field == "metadata.namespace") {
        const json::Value* v = json::at(obj, {"metadata", field.substr(9)});
        return v && v->IsString() ? std::string(json::view(*v)) : std::string();
    }
    for (const SelectableField& f : kind.selectableFields) {
        if (f.name != field) {
            continue;
        }
        std::string_view path = f.path.empty() ? f.name : f.path;
        const json::Value* v = &obj;
        while (v && !path.empty()) {
            size_t dot = path.find('.');
            v = v->IsObject() ? json::member(*v, path.substr(0, dot)) : nullptr;
            path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
        }
        if (!v || v->IsNull()) {
            return f.absent;
        }
        if (v->IsString()) {
            return std::string(json::view(*v));
        }
        if (v->IsBool()) {
            return v->GetBool() ? "true" : "false";
        }
        if (v->IsInt64()) {
            return std::to_string(v->GetInt64());
        }
        if (v->IsUint64()) {
            return std::to_string(v->GetUint64());
        }
        return f.absent;
    }
    return {};
}

namespace {

bool selected(const KindInfo& kind, const ListOptions& opts, std::string_view bytes) {
    json::Document doc;
    doc.Parse(bytes.data(), bytes.size());
    if (doc.HasParseError() || !doc.IsObject()) {
        return false;
    }
    if (!opts.labelSelector.matches(json::at(doc, {"metadata", "labels"}))) {
        return false;
    }
    return opts.fieldSelector.matches(
        [&kind, &doc](std::string_view field) { return selectableFieldValue(kind, doc, field); });
}

}  // namespace

// Mirrors the etcd3 store's GetList: without selectors a page is `limit` keys;
// with them it is filled with up to `limit` matching objects, read from one
// snapshot, and the continue token resumes after the last one returned.
void Store::list(std::string_view ns, const ListOptions& opts, ListCallback cb) {
    if (decoding_) {
        cb = [this, cb = std::move(cb)](const meta::Status* err, ListPage&& page) {
            if (err) {
                cb(err, std::move(page));
                return;
            }
            decodeListPage(std::move(page), cb);
        };
    }
    if (opts.version.match == ReadVersion::Match::MostRecent && opts.continueToken.empty()) {
        storage_.waitFresh([this, ns = std::string(ns), opts,
                            cb = std::move(cb)](const storage::Error& err) mutable {
            if (!err.ok()) {
                listFromStore(ns, opts, true, std::move(cb));
            } else if (cacher_ && listsFromCache_) {
                listFromCache(ns, opts, std::move(cb));
            } else {
                listFromStore(ns, opts, false, std::move(cb));
            }
        });
        return;
    }
    if (cacher_ && listsFromCache_) {
        listFromCache(ns, opts, std::move(cb));
    } else {
        listFromStore(ns, opts, false, std::move(cb));
    }
}

std::string Store::selectionPrefix(std::string_view ns, const util::FieldSelector& fields) const {
    std::string listNs(ns);
    if (auto selNs = fields.requiresExactMatch("metadata.namespace");
        selNs && kind_.namespaced && ns.empty()) {
        listNs = *selNs;
    }
    return collectionPrefix(kind_, listNs);
}

bool Store::listRange(std::string_view ns, const ListOptions& opts, ListRange* range,
                      meta::Status* error) const {
    range->prefix = selectionPrefix(ns, opts.fieldSelector);
    range->scan = range->prefix;
    if (!opts.continueToken.empty()) {
        auto token = ContinueToken::decode(opts.continueToken, error);
        if (!token) {
            return false;
        }
        range->startKey = range->prefix + token->start;
        range->tokenRevision = std::max<storage::Revision>(token->revision, 1);
    } else if (auto name = opts.fieldSelector.requiresExactMatch("metadata.name");
               name && !name->empty() &&
               (!kind_.namespaced || range->prefix != collectionPrefix(kind_, ""))) {
        // One name in one namespace: read only the keys that can hold it.
        range->scan = range->prefix + *name;
    }
    return true;
}

void Store::listFromStore(std::string_view ns, const ListOptions& opts, bool linearizable,
                          ListCallback cb) {
    bool filtering = !opts.labelSelector.empty() || !opts.fieldSelector.empty();
    ListRange range;
    meta::Status invalid;
    if (!listRange(ns, opts, &range, &invalid)) {
        cb(&invalid, {});
        return;
    }
    std::string prefix = range.prefix;
    storage::ListOptions so;
    so.prefix = range.scan;
    so.startKey = range.startKey;
    so.limit = filtering ? 0 : opts.limit;
    size_t limit = opts.limit;
    auto read = [this, cb = std::move(cb), opts, prefix, filtering, limit](
                    const storage::Error& err, const storage::ListResult& res) {
        if (!err.ok()) {
            meta::Status s =
                err.code == storage::ErrorCode::Unavailable
                    ? meta::Status::serviceUnavailable("storage is unavailable: " + err.message)
                    : meta::Status::internalError(err.message);
            cb(&s, {});
            return;
        }
        ListPage page;
        page.revision = res.revision;
        if (!filtering) {
            page.items = res.items;
            if (res.more && !res.items.empty()) {
                std::string_view last = res.items.back().key;
                page.continueToken = ContinueToken::after(res.revision, last, prefix);
                page.remainingItemCount = res.remaining;
            }
            cb(nullptr, std::move(page));
            return;
        }
        std::vector<storage::ObjectView> matched;
        bool more = false;
        for (const storage::ObjectView& item : res.items) {
            if (limit > 0 && matched.size() >= limit) {
                more = true;
                break;
            }
            if (selected(kind_, opts, item.value)) {
                matched.push_back(item);
            }
        }
        page.items = matched;
        if (more) {
            std::string_view last = matched.back().key;
            page.continueToken = ContinueToken::after(res.revision, last, prefix);
        }
        cb(nullptr, std::move(page));
    };
    if (linearizable) {
        storage_.listLinearizable(so, std::move(read));
    } else {
        storage_.list(so, std::move(read));
    }
}

void Store::create(std::string_view ns, std::shared_ptr<json::Document> obj,
                   const CreateOptions& opts, ObjectCallback cb) {
    json::Document& doc = *obj;
    auto& a = doc.GetAllocator();
    if (kind_.storedAs) {
        kind_.storedAs->toStorage(doc, a);
    }
    json::Value& metadata = ensureMetadata(doc);
    if (const json::Value* rv = json::member(metadata, "resourceVersion");
        rv && !json::view(*rv).empty()) {
        meta::Status s =
            meta::Status::badRequest("resourceVersion should not be set on objects to be created");
        cb(&s, {});
        return;
    }
    auto state = std::make_shared<CreateState>();
    state->obj = obj;
    state->ns = std::string(ns);
    state->opts = opts;
    state->cb = std::move(cb);
    // Admission sees the name the request gave (none yet for generateName).
    state->attrs.name = json::stringMember(metadata, "name");
    prepareObjectMetaForCreate(kind_, doc, ns, loop_.now());
    // Defaulting happens at decode in kube, before the strategy's PrepareForCreate.
    if (kind_.defaults) {
        kind_.defaults(doc, a);
    }
    recordManagedFields(json::Value(rapidjson::kObjectType), doc, opts.manager, false, loop_.now());
    if (kind_.prepareForCreate) {
        kind_.prepareForCreate(doc, a);
    }
    if (kind_.prepareForCreateBy && opts.user) {
        kind_.prepareForCreateBy(doc, *opts.user, a);
    }
    admission::Attributes& attrs = state->attrs;
    attrs.operation = admission::Operation::Create;
    attrs.kind = &kind_;
    attrs.ns = state->ns;
    attrs.object = &doc;
    attrs.allocator = &a;
    attrs.user = opts.user;
    attrs.dryRun = opts.dryRun;
    if (!admission_ || !admission_->mutates(attrs)) {
        validateCreate(std::move(state));
        return;
    }
    admission_->admit(attrs, [this, state](const meta::Status* denied) {
        if (denied) {
            state->cb(denied, {});
            return;
        }
        validateCreate(state);
    });
}

// The strategy's validation of the (mutated) object, then the write guard.
void Store::validateCreate(std::shared_ptr<CreateState> state) {
    json::Document& doc = *state->obj;
    // Hooks and plugins may have grown the root object: look metadata up again.
    const json::Value& finalMeta = doc["metadata"];
    state->name = std::string(json::stringMember(finalMeta, "name"));
    std::vector<meta::StatusCause> causes =
        validation::validateObjectMeta(finalMeta, kind_.namespaced, kind_.nameRule);
    if (!kind_.validate) {
        guardCreate(std::move(state), std::move(causes));
        return;
    }
    if (state->opts.requestBytes < kBuildOffLoopBytes) {
        for (meta::StatusCause& c : kind_.validate(doc)) {
            causes.push_back(std::move(c));
        }
        guardCreate(std::move(state), std::move(causes));
        return;
    }
    // A large object's validation (a CustomResourceDefinition's megabyte of
    // schema, its rules compiled and costed) would hold the loop, and every
    // other request on it, for tens of milliseconds: it runs on a thread,
    // which alone touches the object until it is done.
    struct Checked {
        std::vector<meta::StatusCause> causes;
        std::optional<std::string> failure;
    };
    auto checked = std::make_shared<Checked>(Checked{std::move(causes), std::nullopt});
    loop_.runBlocking(
        [this, state, checked] {
            try {
                for (meta::StatusCause& c : kind_.validate(*state->obj)) {
                    checked->causes.push_back(std::move(c));
                }
            } catch (const std::exception& e) {
                checked->failure = e.what();
            }
        },
        [this, state, checked] {
            if (checked->failure) {
                meta::Status s = meta::Status::internalError(*checked->failure);
                state->cb(&s, {});
                return;
            }
            guardCreate(state, std::move(checked->causes));
        });
}

void Store::guardCreate(std::shared_ptr<CreateState> state, std::vector<meta::StatusCause> causes) {
    if (!causes.empty()) {
        meta::Status s = meta::Status::invalid(invalidKind(), state->name, std::move(causes));
        state->cb(&s, {});
        return;
    }
    if (!guard_) {
        admitCreate(std::move(state));
        return;
    }
    const json::Document& doc = *state->obj;
    guard_({doc, nullptr, state->opts.user, state->ns, ""},
           [this, state](const meta::Status* denied) {
               if (denied) {
                   state->cb(denied, {});
                   return;
               }
               admitCreate(state);
           });
}

void Store::admitCreate(std::shared_ptr<CreateState> state) {
    if (!admission_ || !admission_->validates(state->attrs)) {
        allocateCreate(std::move(state));
        return;
    }
    admission_->validate(state->attrs, [this, state](const meta::Status* denied) {
        if (denied) {
            state->cb(denied, {});
            return;
        }
        allocateCreate(state);
    });
}

// The write companion's changes and ops, then the write.
void Store::allocateCreate(std::shared_ptr<CreateState> state) {
    if (!companion_) {
        writeCreate(std::move(state), {});
        return;
    }
    json::Document& doc = *state->obj;
    if (!state->pristine) {
        state->pristine = std::make_shared<json::Document>();
        state->pristine->CopyFrom(doc, state->pristine->GetAllocator());
    } else {
        doc.CopyFrom(*state->pristine, doc.GetAllocator());
    }
    companion_({{nullptr, &doc, &doc.GetAllocator()}}, state->opts.dryRun,
               [this, state](const meta::Status* err, std::vector<storage::WriteOp> ops) {
                   if (err) {
                       state->cb(err, {});
                       return;
                   }
                   writeCreate(state, std::move(ops));
               });
}

void Store::writeCreate(std::shared_ptr<CreateState> state, std::vector<storage::WriteOp> extra) {
    const json::Document& doc = *state->obj;
    if (state->opts.dryRun) {
        EncodedObject enc = encodeObject(doc, false);
        state->cb(nullptr, enc.bytes);
        return;
    }
    EncodedObject enc = encodeObject(doc);
    storage::WriteOp op;
    op.type = storage::WriteOp::Type::Create;
    op.key = objectKey(kind_, state->ns, state->name);
    op.value = std::move(enc.bytes);
    op.revisionOffset = enc.revisionOffset;
    size_t own = appendOwn(extra, std::move(op));
    storage_.write(std::move(extra), [this, state, own](storage::WriteResult&& res) {
        if (companionRaced(res, own) && ++state->attempt < kMaxUpdateAttempts) {
            allocateCreate(state);
            return;
        }
        if (!res.error.ok()) {
            meta::Status s = statusFromStorage(res.error, state->name);
            state->cb(&s, {});
            return;
        }
        state->cb(nullptr, res.objects.at(own).value);
    });
}

void Store::update(std::string_view ns, std::string_view name, std::shared_ptr<json::Document> obj,
                   const UpdateOptions& opts, ObjectCallback cb) {
    auto state = std::make_shared<UpdateState>();
    state->ns = std::string(ns);
    state->name = std::string(name);
    state->obj = std::move(obj);
    state->opts = opts;
    state->cb = std::move(cb);
    if (kind_.storedAs) {
        kind_.storedAs->toStorage(*state->obj, state->obj->GetAllocator());
    }
    json::Value& metadata = ensureMetadata(*state->obj);
    std::string_view rv = json::stringMember(metadata, "resourceVersion");
    if (!rv.empty()) {
        state->precondition = parseRevision(rv);
        if (!state->precondition) {
            meta::Status s =
                meta::Status::badRequest("invalid resourceVersion: " + std::string(rv));
            state->cb(&s, {});
            return;
        }
    }
    tryUpdate(std::move(state));
}

void Store::patch(std::string_view ns, std::string_view name, PatchFn fn, const UpdateOptions& opts,
                  ObjectCallback cb) {
    auto state = std::make_shared<UpdateState>();
    state->ns = std::string(ns);
    state->name = std::string(name);
    state->patch = std::move(fn);
    state->opts = opts;
    state->cb = std::move(cb);
    tryUpdate(std::move(state));
}

// Mirrors Store.Update over storage.GuaranteedUpdate: read the current object,
// build the new one from it and the request, write it if the current object is
// still the one read, and start over when another write came first.
void Store::tryUpdate(std::shared_ptr<UpdateState> state) {
    auto again = [this, state] { tryUpdate(state); };
    readCurrent(
        objectKey(kind_, state->ns, state->name), state->stale,
        [this, state, again](const storage::Error& err, const storage::ObjectView* cur) {
            if (!err.ok()) {
                meta::Status s = statusFromStorage(err, state->name);
                state->cb(&s, {});
                return;
            }
            if (state->precondition && *state->precondition != cur->modRevision) {
                if (readAgain(state->stale, again)) {
                    return;
                }
                meta::Status s =
                    meta::Status::optimisticLockConflict(kind_.groupResource(), state->name);
                state->cb(&s, {});
                return;
            }
            auto attempt = std::make_shared<Attempt>();
            attempt->revision = cur->modRevision;
            auto now = loop_.now();
            // A large object (or request) is built on a thread: parsing,
            // patching, validating and encoding megabytes would hold the
            // loop, and every other request on it, for tens of milliseconds.
            if (cur->value.size() + state->opts.requestBytes >= kBuildOffLoopBytes ||
                state->opts.mayGrow) {
                attempt->stored.assign(cur->value);
                loop_.runBlocking(
                    [this, state, attempt, now] {
                        buildUpdate(*state, attempt->stored, now, *attempt);
                    },
                    [this, state, attempt] { finishUpdate(state, attempt, attempt->stored); });
                return;
            }
            buildUpdate(*state, cur->value, now, *attempt);
            finishUpdate(state, attempt, cur->value);
        });
}

// One attempt's new object, from the stored one: what is written, or why
// not. Touches nothing the loop owns: it may run on a thread.
void Store::buildUpdate(const UpdateState& state, std::string_view stored,
                        std::chrono::system_clock::time_point now, Attempt& out) const {
    try {
        auto old = parseStored(stored);
        // The update starts from the object as a read makes it (kube's
        // GuaranteedUpdate decodes the stored object with the storage codec).
        if (decoding_ && decoding_->needed(out.revision) && old->IsObject()) {
            util::runWithStackFor(*old, [&] { decoding_->apply()(*old, old->GetAllocator()); });
        }
        // Each attempt starts from the request's object, not a previous attempt's.
        json::Document& next = out.next;
        if (state.patch) {
            if (std::optional<meta::Status> bad = patchedObject(state, *old, out.revision, next)) {
                out.error = std::move(bad);
                return;
            }
        } else {
            next.CopyFrom(*state.obj, next.GetAllocator());
        }
        auto& a = next.GetAllocator();
        if (std::optional<meta::Status> bad =
                prepareObjectMetaForUpdate(kind_, next, *old, state.name, bool(state.patch))) {
            out.error = std::move(bad);
            return;
        }
        if (state.opts.status) {
            prepareForStatusUpdate(kind_, next, *old, {now},
                                   kind_.subresource(state.opts.subresource));
        } else if (kind_.statusIsSubresource()) {
            if (const json::Value* oldStatus = json::member(*old, "status")) {
                json::setMember(next, "status", json::Value(*oldStatus, a), a);
            } else {
                json::removeMember(next, "status");
            }
        }
        if (kind_.defaults) {
            kind_.defaults(next, a);
        }
        // the field manager sees the request's object, as kube's handler
        // records managedFields before the strategy prepares the update
        recordManagedFields(*old, next, state.opts.manager, state.opts.status, now);
        if (kind_.prepareForUpdate && !state.opts.status) {
            kind_.prepareForUpdate(next, *old, a);
        }
        if (kind_.tracksGeneration) {
            int64_t gen = 1;
            if (const json::Value* g = json::at(*old, {"metadata", "generation"});
                g && g->IsInt64()) {
                gen = g->GetInt64();
            }
            if (!state.opts.status && specChanged(*old, next)) {
                gen++;
            }
            json::setMember(next["metadata"], "generation", json::Value(gen), a);
        }
        std::vector<meta::StatusCause> causes = updateCauses(state.opts, next, *old);
        if (!causes.empty()) {
            out.error = meta::Status::invalid(invalidKind(), state.name, std::move(causes));
            return;
        }
        out.remove = shouldDeleteDuringUpdate(next, *old);
        out.enc = encodeObject(next);
    } catch (const std::exception& e) {
        out.error = meta::Status::internalError(e.what());
    }
}

std::vector<meta::StatusCause> Store::updateCauses(const UpdateOptions& opts,
                                                   const json::Value& next,
                                                   const json::Value& old) const {
    // kube validates the metadata twice on update (rest.BeforeUpdate's
    // common fields, then the strategy's ValidateObjectMetaUpdate), so a
    // deletion field error is listed twice, as kube lists it.
    std::vector<meta::StatusCause> deletion =
        validateDeletionUpdate(next["metadata"], old["metadata"]);
    std::vector<meta::StatusCause> causes = deletion;
    for (meta::StatusCause& c :
         validation::validateObjectMeta(next["metadata"], kind_.namespaced, kind_.nameRule)) {
        causes.push_back(std::move(c));
    }
    causes.insert(causes.end(), deletion.begin(), deletion.end());
    for (meta::StatusCause& c :
         validation::validateObjectMetaUpdate(next["metadata"], old["metadata"])) {
        causes.push_back(std::move(c));
    }
    const SubresourceInfo* sub = kind_.subresource(opts.subresource);
    if (opts.status && sub && sub->validateUpdate) {
        for (meta::StatusCause& c : sub->validateUpdate(next, old)) {
            causes.push_back(std::move(c));
        }
    } else if (opts.status) {
        if (kind_.validateStatusUpdate) {
            for (meta::StatusCause& c : kind_.validateStatusUpdate(next, old)) {
                causes.push_back(std::move(c));
            }
        }
    } else if (kind_.validateUpdate || kind_.validate) {
        for (meta::StatusCause& c :
             kind_.validateUpdate ? kind_.validateUpdate(next, old) : kind_.validate(next)) {
            causes.push_back(std::move(c));
        }
    }
    return causes;
}

// The rest of an attempt, on the loop: the write guard, admission, then the write.
void Store::finishUpdate(std::shared_ptr<UpdateState> state, std::shared_ptr<Attempt> attempt,
                         std::string_view stored) {
    if (attempt->error) {
        // A resourceVersion the patch names may be newer than the replica.
        if (attempt->error->code == 409 &&
            readAgain(state->stale, [this, state] { tryUpdate(state); })) {
            return;
        }
        state->cb(&*attempt->error, {});
        return;
    }
    admission::Attributes& attrs = attempt->attrs;
    attrs.operation = admission::Operation::Update;
    attrs.kind = &kind_;
    attrs.subresource = !state->opts.status               ? ""
                        : state->opts.subresource.empty() ? "status"
                                                          : state->opts.subresource;
    attrs.ns = state->ns;
    attrs.name = state->name;
    attrs.object = &attempt->next;
    attrs.allocator = &attempt->next.GetAllocator();
    attrs.user = state->opts.user;
    attrs.dryRun = state->opts.dryRun;
    bool guarded = guard_ && !state->opts.status;
    bool admitted = admission_ && (admission_->mutates(attrs) || admission_->validates(attrs));
    if (!guarded && !admitted && !companion_) {
        writeUpdate(state, std::move(attempt->enc), attempt->revision, stored, attempt->remove);
        return;
    }
    // The stored bytes are the read's, gone once the read's callback returns.
    if (attempt->stored.empty()) {
        attempt->stored.assign(stored);
    }
    if (json::parse(attempt->stored, attempt->old)) {
        meta::Status s = meta::Status::internalError("stored object is not JSON");
        state->cb(&s, {});
        return;
    }
    if (decoding_ && decoding_->needed(attempt->revision) && attempt->old.IsObject()) {
        try {
            util::runWithStackFor(attempt->old, [&] {
                decoding_->apply()(attempt->old, attempt->old.GetAllocator());
            });
        } catch (const std::exception& e) {
            meta::Status s = meta::Status::internalError(e.what());
            state->cb(&s, {});
            return;
        }
    }
    attrs.oldObject = &attempt->old;
    if (!guarded && !admitted) {
        allocateUpdate(state, attempt);
        return;
    }
    if (!guarded) {
        admitUpdate(state, attempt);
        return;
    }
    guard_({attempt->next, &attempt->old, state->opts.user, state->ns, state->name},
           [this, state, attempt](const meta::Status* denied) {
               if (denied) {
                   state->cb(denied, {});
                   return;
               }
               admitUpdate(state, attempt);
           });
}

void Store::admitUpdate(std::shared_ptr<UpdateState> state, std::shared_ptr<Attempt> attempt) {
    if (!admission_ || !admission_->mutates(attempt->attrs)) {
        validateMutatedUpdate(state, attempt);
        return;
    }
    admission_->admit(attempt->attrs, [this, state, attempt](const meta::Status* denied) {
        if (denied) {
            state->cb(denied, {});
            return;
        }
        // The mutated object is validated and encoded again.
        std::vector<meta::StatusCause> causes =
            updateCauses(state->opts, attempt->next, attempt->old);
        if (!causes.empty()) {
            meta::Status s = meta::Status::invalid(invalidKind(), state->name, causes);
            state->cb(&s, {});
            return;
        }
        attempt->enc = encodeObject(attempt->next);
        validateMutatedUpdate(state, attempt);
    });
}

void Store::validateMutatedUpdate(std::shared_ptr<UpdateState> state,
                                  std::shared_ptr<Attempt> attempt) {
    if (!admission_ || !admission_->validates(attempt->attrs)) {
        allocateUpdate(state, attempt);
        return;
    }
    admission_->validate(attempt->attrs, [this, state, attempt](const meta::Status* denied) {
        if (denied) {
            state->cb(denied, {});
            return;
        }
        allocateUpdate(state, attempt);
    });
}

// The write companion's changes and ops (not for status updates, which keep
// the spec), then the write; the object is encoded again after its changes.
void Store::allocateUpdate(std::shared_ptr<UpdateState> state, std::shared_ptr<Attempt> attempt) {
    if (!companion_ || state->opts.status) {
        writeUpdate(state, std::move(attempt->enc), attempt->revision, attempt->stored,
                    attempt->remove);
        return;
    }
    json::Document& next = attempt->next;
    companion_({{&attempt->old, attempt->remove ? nullptr : &next, &next.GetAllocator()}},
               state->opts.dryRun,
               [this, state, attempt](const meta::Status* err, std::vector<storage::WriteOp> ops) {
                   if (err) {
                       state->cb(err, {});
                       return;
                   }
                   EncodedObject enc = encodeObject(attempt->next);
                   writeUpdate(state, std::move(enc), attempt->revision, attempt->stored,
                               attempt->remove, std::move(ops));
               });
}

// The last step of an attempt: `enc` replaces `current`, stored at `revision`,
// unless it changes nothing (kube keeps the old resourceVersion for such an
// update) or the update is a dry run. With `remove` the object is deleted
// instead (deleteWithoutFinalizers) and the answer is the updated object at
// the stored revision, as kube answers such an update.
void Store::writeUpdate(std::shared_ptr<UpdateState> state, EncodedObject enc,
                        storage::Revision revision, std::string_view current, bool remove,
                        std::vector<storage::WriteOp> extra) {
    if (remove) {
        std::string answer = storage::spliceRevision(enc.bytes, enc.revisionOffset, revision);
        if (state->opts.dryRun) {
            state->cb(nullptr, answer);
            return;
        }
        storage::WriteOp op;
        op.type = storage::WriteOp::Type::Delete;
        op.key = objectKey(kind_, state->ns, state->name);
        op.expectedModRevision = revision;
        size_t own = appendOwn(extra, std::move(op));
        storage_.write(std::move(extra), [this, state, answer, own](storage::WriteResult&& res) {
            if ((res.error.code == storage::ErrorCode::Conflict || companionRaced(res, own)) &&
                (!state->precondition || companionRaced(res, own)) &&
                ++state->attempt < kMaxUpdateAttempts) {
                tryUpdate(state);
                return;
            }
            if (res.error.code == storage::ErrorCode::NotFound) {
                state->cb(nullptr, answer);  // deleted by a racing update: the same outcome
                return;
            }
            if (!res.error.ok()) {
                meta::Status s = statusFromStorage(res.error, state->name);
                state->cb(&s, {});
                return;
            }
            state->cb(nullptr, answer);
        });
        return;
    }
    if (storage::spliceRevision(enc.bytes, enc.revisionOffset, revision) == current) {
        state->cb(nullptr, current);
        return;
    }
    if (state->opts.dryRun) {
        state->cb(nullptr, storage::spliceRevision(enc.bytes, enc.revisionOffset, revision));
        return;
    }
    storage::WriteOp op;
    op.type = storage::WriteOp::Type::Update;
    op.key = objectKey(kind_, state->ns, state->name);
    op.expectedModRevision = revision;
    op.value = std::move(enc.bytes);
    op.revisionOffset = enc.revisionOffset;
    size_t own = appendOwn(extra, std::move(op));
    storage_.write(std::move(extra), [this, state, own](storage::WriteResult&& res) {
        if ((res.error.code == storage::ErrorCode::Conflict || companionRaced(res, own)) &&
            (!state->precondition || companionRaced(res, own)) &&
            ++state->attempt < kMaxUpdateAttempts) {
            tryUpdate(state);
            return;
        }
        if (!res.error.ok()) {
            meta::Status s = statusFromStorage(res.error, state->name);
            state->cb(&s, {});
            return;
        }
        state->cb(nullptr, res.objects.at(own).value);
    });
}

}  // namespace kube::registry
