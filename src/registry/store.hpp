#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "admission/chain.hpp"
#include "apis/meta/status.hpp"
#include "authn/user.hpp"
#include "registry/apply/field_manager.hpp"
#include "registry/encoding.hpp"
#include "registry/kind.hpp"
#include "registry/resource_version.hpp"
#include "registry/stored_decoding.hpp"
#include "storage/cacher/cacher.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"
#include "util/field_selector.hpp"
#include "util/json.hpp"
#include "util/label_selector.hpp"

namespace kube::registry {

struct CreateOptions {
    bool dryRun = false;
    // Who asks (null for the server's own writes); for the write guard.
    const authn::UserInfo* user = nullptr;
    // The field manager recorded in managedFields as having written the
    // object (operation Update); unset when the request recorded itself (an
    // apply) or for the server's own writes, whose managedFields stay as given.
    std::optional<std::string> manager = std::nullopt;
    // The request body's size: a large one's object is validated off the
    // loop, as a large update's object is built there.
    size_t requestBytes = 0;
};

struct UpdateOptions {
    bool dryRun = false;
    // Through the status subresource: the kind's status strategy decides what
    // changes (status and some metadata), and the generation stays.
    bool status = false;
    // The request body's size: with the stored object's, whether the new
    // object is built off the loop.
    size_t requestBytes = 0;
    // The request may build an object far larger than itself and the stored
    // one (a JSON patch's copy operations): it is built off the loop
    // whatever their sizes.
    bool mayGrow = false;
    // Who asks (null for the server's own writes); for the write guard.
    const authn::UserInfo* user = nullptr;
    // As CreateOptions::manager.
    std::optional<std::string> manager = std::nullopt;
    // With `status`: the Parent subresource written when it is not status
    // (a CertificateSigningRequest's approval), whose strategy applies.
    std::string subresource = {};
};

// Mirrors metav1.DeleteOptions, all of which the store honours.
struct DeleteOptions {
    bool dryRun = false;
    // preconditions.uid and preconditions.resourceVersion: compared as strings.
    std::optional<std::string> uid;
    std::optional<std::string> resourceVersion;
    std::optional<int64_t> gracePeriodSeconds;
    std::optional<bool> orphanDependents;
    std::optional<std::string> propagationPolicy;
};

struct ListOptions {
    size_t limit = 0;
    std::string continueToken;
    // Only objects matching both are listed (or deleted). With either set, a
    // page is filled to `limit` matching objects as kube's etcd3 store does,
    // and carries no remainingItemCount.
    util::LabelSelector labelSelector;
    util::FieldSelector fieldSelector;
    // Which state to list (resourceVersion, resourceVersionMatch).
    ReadVersion version;
};

// Parses the labelSelector and fieldSelector parameters into `opts` and
// checks the selected fields against the kind's, as kube-apiserver decodes
// ListOptions; false with a 400 BadRequest in `error`.
bool parseSelectors(const KindInfo& kind, std::string_view labelSelector,
                    std::string_view fieldSelector, ListOptions& opts, meta::Status* error);

// The value fieldSelector `field` sees in `obj` ("" when unset).
std::string selectableFieldValue(const KindInfo& kind, const json::Value& obj,
                                 std::string_view field);

// The selector attributes of a stored object (labels and the kind's
// selectable fields), as a watch cache memoizes them.
storage::cacher::Attrs objectAttrs(const KindInfo& kind, std::string_view bytes);

// True when the object passes both selectors of `opts`.
bool selectorsMatch(const KindInfo& kind, const ListOptions& opts,
                    const storage::cacher::CachedObject& obj);

// One page of a list. Item views are valid only inside the callback.
struct ListPage {
    std::span<const storage::ObjectView> items;
    storage::Revision revision = 0;
    std::string continueToken;
    std::optional<uint64_t> remainingItemCount;
    // When the page came from the watch cache: the items' objects, which
    // the views point into; a caller may keep them beyond the callback.
    std::vector<storage::cacher::ObjectRef> objects;
};

// What a delete answers with: the object (when deletion is graceful, as for
// namespaces and objects with finalizers, or the kind returns deleted
// objects) or a success Status.
struct DeleteResult {
    bool returnsObject = false;
    std::string object;
    meta::Status status;
    // The object is gone (not only marked for deletion).
    bool deleted = true;
};

// The generic store of one kind; mirrors genericregistry.Store. Everything
// kind-specific comes from the KindInfo (defaults, validation, generation),
// everything durable from storage::Interface.
//
// Called on the loop; callbacks run on the loop (reads possibly inline).
// Errors are Status values with kube-apiserver's reasons and messages.
struct CollectionDelete;

class Store {
  public:
    using ObjectCallback = std::function<void(const meta::Status* error, std::string_view object)>;
    // The page is the callee's: it may move the objects out (a streamed list).
    using ListCallback = std::function<void(const meta::Status* error, ListPage&& page)>;
    using DeleteCallback = std::function<void(const meta::Status* error, const DeleteResult&)>;

    Store(const KindInfo& kind, storage::Interface& storage, util::EventLoop& loop);

    const KindInfo& kind() const { return kind_; }

    // Server-side apply and managedFields for the resource and its status
    // subresource (registry/apply); set once at start-up for kinds with a
    // schema. A kind without keeps no managedFields.
    void setFieldManagers(std::shared_ptr<const apply::FieldManager> main,
                          std::shared_ptr<const apply::FieldManager> status) {
        fieldManager_ = std::move(main);
        statusFieldManager_ = std::move(status);
    }
    // Null when the kind has none.
    const apply::FieldManager* fieldManager(bool status) const {
        return status ? statusFieldManager_.get() : fieldManager_.get();
    }
    storage::Interface& storage() { return storage_; }

    // What reads make of the stored objects (a custom resource's schema);
    // set once, before the store serves. Gets, lists, the objects updates
    // and patches start from, and (through the watch handler) watch events
    // are decoded with it. Null: objects are served as stored.
    void setStoredDecoding(std::shared_ptr<const StoredDecoding> d) { decoding_ = std::move(d); }
    const std::shared_ptr<const StoredDecoding>& storedDecoding() const { return decoding_; }

    // The admission chain every create, update and patch passes through
    // (status updates too, as the "status" subresource); mirrors the
    // admission kube's handlers run around the store. Mutating plugins see
    // the object after the strategy's PrepareForCreate/Update and defaulting,
    // before its validation; validating ones the validated object, before it
    // is written. Null: none.
    void setAdmission(admission::Chain* chain) { admission_ = chain; }
    admission::Chain* admission() { return admission_; }

    // What a write guard judges: the object to be written, the stored one on
    // update, who asks, and the request's namespace and name ("" on create).
    struct WriteCheck {
        const util::json::Value& obj;
        const util::json::Value* old;
        const authn::UserInfo* user;
        std::string_view ns;
        std::string_view name;
    };
    // Checks a create, update or patch (not a status update) before
    // admission, with the requesting user; mirrors the policybased storage
    // kube wraps the RBAC kinds in. `done` with a Status refuses the request.
    using GuardFn = std::function<void(const WriteCheck& check,
                                       std::function<void(const meta::Status* denied)> done)>;
    void setWriteGuard(GuardFn guard) { guard_ = std::move(guard); }

    // Writes that go in the same atomic batch as the store's own write of an
    // object: the service REST's allocators (registry/service), which take
    // ClusterIPs and node ports from ranges stored beside the services.
    // Mirrors the BeginCreate/BeginUpdate/AfterDelete hooks kube's service
    // storage sets, with one batch where kube writes twice and repairs.
    //
    // Each change is an object about to be created (`old` null), updated,
    // or deleted (`obj` null); the companion may change `obj` (fill in what
    // it allocates) and answers, on the loop, with a Status that fails the
    // request or the ops to add (none on dry run). When one of those ops
    // fails on a concurrent write the store asks again, from the object as
    // it was before the companion changed it.
    struct CompanionChange {
        const json::Value* old = nullptr;
        json::Value* obj = nullptr;
        json::Allocator* allocator = nullptr;
    };
    using CompanionDone =
        std::function<void(const meta::Status* error, std::vector<storage::WriteOp> ops)>;
    using CompanionFn = std::function<void(const std::vector<CompanionChange>& changes, bool dryRun,
                                           CompanionDone done)>;
    void setWriteCompanion(CompanionFn fn) { companion_ = std::move(fn); }

    // The scheme of the server; outlives the store.
    void setScheme(const Scheme* scheme) { scheme_ = scheme; }

    // For a kind whose objects terminate (KindInfo::beginTerminating): told
    // the name of each object a delete has marked terminating (on the loop,
    // before the delete answers); it removes what the object holds and then
    // the object (the namespace controller). Unset: marked objects stay.
    void setTerminator(std::function<void(const std::string& name)> fn) {
        terminator_ = std::move(fn);
    }

    // Watches are served from `cacher`'s watch cache of this kind, and so
    // are lists when `lists` is set (kube's cacher in front of etcd);
    // otherwise every list reads the store.
    void setCacher(storage::cacher::Cacher* cacher, bool lists) {
        cacher_ = cacher;
        listsFromCache_ = lists;
    }
    storage::cacher::Cacher* cacher() { return cacher_; }

    // The key prefix a list or watch in `ns` reads: the namespace's, the one
    // a metadata.namespace field selector pins (across all namespaces), or
    // the whole resource's.
    std::string selectionPrefix(std::string_view ns, const util::FieldSelector& fields) const;
    util::EventLoop& loop() { return loop_; }

    // This kind's watch cache, filled on first use; null with a Status in
    // `error` when the store cannot be read. Needs a cacher (watch does).
    storage::cacher::WatchCache* watchCache(meta::Status* error);

    void get(std::string_view ns, std::string_view name, ObjectCallback cb);
    // A consistent read (resourceVersion unset): the object as of every
    // write acknowledged before the call, on any host; from this process's
    // view once it has caught up with the storage (kube 1.31's consistent
    // read from the cache), else from the storage itself. A list whose
    // version is MostRecent (and no continue token) is read the same way.
    void getConsistent(std::string_view ns, std::string_view name, ObjectCallback cb);
    void list(std::string_view ns, const ListOptions& opts, ListCallback cb);
    // `obj` is the decoded body; its namespace already checked by the caller.
    void create(std::string_view ns, std::shared_ptr<json::Document> obj, const CreateOptions& opts,
                ObjectCallback cb);
    void update(std::string_view ns, std::string_view name, std::shared_ptr<json::Document> obj,
                const UpdateOptions& opts, ObjectCallback cb);
    // Builds the object to write from the stored one (`current`, as clients
    // see it) into `patched`, or fails the request with a Status.
    using PatchFn = std::function<std::optional<meta::Status>(const json::Value& current,
                                                              json::Document& patched)>;
    // An update whose object is `fn` applied to the stored object, run again
    // on every attempt of the guaranteed update (a concurrent write makes it
    // re-read and re-apply); mirrors Store.Update with the patch handler's
    // UpdatedObjectInfo. A resourceVersion in the result that is not the
    // stored object's is a 409 Conflict; none means no precondition.
    void patch(std::string_view ns, std::string_view name, PatchFn fn, const UpdateOptions& opts,
               ObjectCallback cb);
    // Mirrors Store.Delete: preconditions, the kind's graceful deletion,
    // finalizers (the object is marked and kept while it has any) and the
    // propagation finalizers the options ask for. An update that takes the
    // last finalizer off a marked object deletes it (update and patch).
    void remove(std::string_view ns, std::string_view name, const DeleteOptions& opts,
                DeleteCallback cb);
    // Deletes every object in `ns` (all namespaces when empty) that `opts`
    // selects (its selectors, and its limit and continue token: one page),
    // and answers with them. Each must meet the preconditions of
    // `deleteOpts`, or nothing is deleted (409). Objects that go at once
    // go in one atomic batch; the others (finalizers, graceful deletion,
    // propagation finalizers) as `remove` deletes them. With dryRun nothing
    // is deleted, and the answer is the same.
    void deleteCollection(std::string_view ns, const ListOptions& opts,
                          const DeleteOptions& deleteOpts, ListCallback cb);

  private:
    struct DeleteState;
    void terminate(std::shared_ptr<DeleteState> state, const storage::ObjectView& cur);
    void readForDelete(std::shared_ptr<DeleteState> state);
    void deleteBatches(std::shared_ptr<CollectionDelete> c, size_t from);
    void updateForDeletion(std::shared_ptr<DeleteState> state);
    void deleteNow(std::shared_ptr<DeleteState> state, storage::Revision expected,
                   std::string lastState, bool ignoreNotFound);
    void writeDelete(std::shared_ptr<DeleteState> state, storage::Revision expected,
                     std::string lastState, bool ignoreNotFound,
                     std::vector<storage::WriteOp> extra);
    DeleteResult finalizeDelete(std::string_view object, bool deleted) const;
    bool deletesAtOnce(const json::Value& obj, const DeleteOptions& opts) const;
    // rest.BeforeDelete's precondition check of object `name` (409 Conflict).
    std::optional<meta::Status> preconditionFailure(const DeleteOptions& opts,
                                                    std::string_view name, std::string_view uid,
                                                    storage::Revision revision) const;
    struct UpdateState;
    struct Attempt;

    void tryUpdate(std::shared_ptr<UpdateState> state);
    // kube's GuaranteedUpdate (and Delete) reads etcd again when what its
    // cache held fails the request: no object (readCurrent), or another
    // revision than the client named (readAgain). Where the storage's reads
    // may lag other hosts' writes (etcd's replica), such an answer is read
    // again once the replica has caught up with etcd (etcd itself when it
    // cannot in time).
    struct StaleRead {
        bool readAgain = false;
        bool linearizable = false;
    };
    // Calls `again` once the replica caught up, the first time per request
    // and only where reads may lag; false otherwise (the answer stands).
    // `stale` must outlive the wait (it sits in the request's state).
    bool readAgain(StaleRead& stale, std::function<void()> again);
    // Reads what a write starts from: from etcd itself once
    // `stale.linearizable`, else by storage's getLatest() (a NotFound is
    // only answered once the replica has caught up).
    void readCurrent(const std::string& key, const StaleRead& stale,
                     storage::Interface::GetCallback cb);
    // The strategy's and metadata's validation of an update's object.
    std::vector<meta::StatusCause> updateCauses(const UpdateOptions& opts, const json::Value& next,
                                                const json::Value& old) const;
    void buildUpdate(const UpdateState& state, std::string_view stored,
                     std::chrono::system_clock::time_point now, Attempt& out) const;
    void finishUpdate(std::shared_ptr<UpdateState> state, std::shared_ptr<Attempt> attempt,
                      std::string_view stored);
    void writeUpdate(std::shared_ptr<UpdateState> state, EncodedObject enc,
                     storage::Revision revision, std::string_view current, bool remove,
                     std::vector<storage::WriteOp> extra = {});
    struct CreateState;
    void validateCreate(std::shared_ptr<CreateState> state);
    void guardCreate(std::shared_ptr<CreateState> state, std::vector<meta::StatusCause> causes);
    void admitCreate(std::shared_ptr<CreateState> state);
    void admitUpdate(std::shared_ptr<UpdateState> state, std::shared_ptr<Attempt> attempt);
    void validateMutatedUpdate(std::shared_ptr<UpdateState> state,
                               std::shared_ptr<Attempt> attempt);
    void allocateCreate(std::shared_ptr<CreateState> state);
    void writeCreate(std::shared_ptr<CreateState> state, std::vector<storage::WriteOp> extra);
    void allocateUpdate(std::shared_ptr<UpdateState> state, std::shared_ptr<Attempt> attempt);
    std::optional<meta::Status> patchedObject(const UpdateState& state, const json::Value& old,
                                              storage::Revision current,
                                              json::Document& next) const;
    meta::Status statusFromStorage(const storage::Error& err, std::string_view name) const;
    // The kind an Invalid error names.
    meta::GroupKind invalidKind() const;
    // metadata.managedFields of `obj`, about to replace `live` (an empty
    // object on create): `manager` recorded by the field manager, or kept as
    // the request left them when it has none; none for a kind without one.
    void recordManagedFields(const json::Value& live, json::Document& obj,
                             const std::optional<std::string>& manager, bool status,
                             std::chrono::system_clock::time_point now) const;
    // The keys one list page reads; mirrors the etcd3 store's GetList range.
    struct ListRange {
        std::string prefix;    // the selection's prefix (continue tokens are relative to it)
        std::string scan;      // keys read: the prefix, or one name's keys
        std::string startKey;  // from a continue token; empty otherwise
        storage::Revision tokenRevision = 0;
    };
    bool listRange(std::string_view ns, const ListOptions& opts, ListRange* range,
                   meta::Status* error) const;
    // `linearizable`: from the storage itself rather than this process's
    // view (a consistent read whose view did not catch up).
    void listFromStore(std::string_view ns, const ListOptions& opts, bool linearizable,
                       ListCallback cb);
    void readObject(std::string_view ns, std::string_view name, bool linearizable,
                    ObjectCallback cb);
    void listFromCache(std::string_view ns, const ListOptions& opts, ListCallback cb);
    // `stored` as reads make it (decoding_), to `cb`: on the loop, or for
    // a large or deep object, on a thread.
    void decodeObject(const storage::ObjectView& stored, ObjectCallback cb);
    // `page` with its objects as reads make them (decoding_), then `cb`.
    void decodeListPage(ListPage&& page, ListCallback cb);

    const KindInfo& kind_;
    storage::Interface& storage_;
    util::EventLoop& loop_;
    const Scheme* scheme_ = nullptr;
    admission::Chain* admission_ = nullptr;
    GuardFn guard_;
    CompanionFn companion_;
    std::function<void(const std::string& name)> terminator_;
    std::string prefix_;
    storage::cacher::Cacher* cacher_ = nullptr;
    bool listsFromCache_ = false;
    std::shared_ptr<const apply::FieldManager> fieldManager_;
    std::shared_ptr<const apply::FieldManager> statusFieldManager_;
    std::shared_ptr<const StoredDecoding> decoding_;
};

}  // namespace kube::registry
