#include "server/server.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "apis/apiextensions/custom_resource_schema_hooks.hpp"
#include "authz/policy_json.hpp"
#include "endpoints/field_managers.hpp"
#include "endpoints/handlers/authentication.hpp"
#include "endpoints/handlers/authorization.hpp"
#include "endpoints/handlers/binding.hpp"
#include "endpoints/handlers/core_subresources.hpp"
#include "endpoints/handlers/eviction.hpp"
#include "endpoints/handlers/scope.hpp"
#include "endpoints/protobuf_codec.hpp"
#include "endpoints/warning.hpp"
#include "flowcontrol/bootstrap.hpp"
#include "registry/encoding.hpp"
#include "server/version.hpp"
#include "storage/cacher/metrics.hpp"
#include "util/json.hpp"
#include "util/uid.hpp"

namespace kube::server {

namespace json = util::json;

namespace {

// How long one pass of the loop spends on the worker's large responses, all
// of them together, before it serves its other connections again. Short: a
// new connection is accepted on one pass and read on the next, so requests
// arriving among running lists wait about two slices for their first byte.
constexpr std::chrono::microseconds kLargeResponseSlice{250};

const char* const kDefaultNamespaces[] = {"default", "kube-system", "kube-public",
                                          "kube-node-lease"};

bool pathIs(std::string_view path, std::string_view root) {
    return path == root ||
           (path.starts_with(root) && path.size() > root.size() && path[root.size()] == '/');
}

endpoints::HttpResponse text(int status, std::string body) {
    endpoints::HttpResponse r;
    r.status = status;
    r.contentType = "text/plain; charset=utf-8";
    r.body = std::move(body);
    return r;
}

}  // namespace

Route routeFor(std::string_view path) {
    if (pathIs(path, "/api") || pathIs(path, "/apis")) {
        return Route::Api;
    }
    if (path == "/version" || path == "/version/" || path == "/metrics" ||
        HealthChecks::handles(path) ||
        openapi::Service::handles(path) || path == "/.well-known/openid-configuration" ||
        path == "/openid/v1/jwks") {
        return Route::NonResource;
    }
    return Route::None;
}

Server::Server(util::EventLoop& loop, storage::Interface& storage, ServerOptions options)
    : loop_(loop),
      storage_(storage),
      options_(options),
      openapi_(loop, kGitVersion),
      cacher_(storage, loop, registry::withResourceVersion, options.watchCacheHistory),
      rbac_(std::make_unique<authz::RbacAuthorizer>()),
      flowControl_(std::make_unique<flowcontrol::Controller>()),
      turns_(loop, kLargeResponseSlice) {
    endpoints::prepareProtobufSchemas();
    registry::addBuiltinKinds(scheme_);
    if (options_.compactor && options_.compactionInterval.count() > 0) {
        compactor_ =
            std::make_unique<storage::Compactor>(storage_, loop_, options_.compactionInterval);
    }
    admission_ = admission::defaultChain(
        storage_, cacher_, scheme_,
        [this](const std::string& ns, std::function<void(const meta::Status*)> done) {
            ensureDefaultServiceAccount(ns, std::move(done));
        },
        signers_);
    for (const auto& k : scheme_.all()) {
        installStore(k);
    }
    installServiceAllocators();
    routesChanged();
    startNamespaceController();
    setAuthentication(std::make_shared<authn::AuthenticationConfig>());
    addHealthChecks();
}

// The store of `kind`; the store refers to its kind, so it holds it: a kind
// removed at run time lives as long as its store.
void Server::installStore(std::shared_ptr<const registry::KindInfo> kind) {
    const registry::KindInfo* key = kind.get();
    auto* raw = new registry::Store(*key, storage_, loop_);
    std::shared_ptr<registry::Store> store(
        raw, [kind = std::move(kind)](registry::Store* s) { delete s; });
    store->setCacher(&cacher_, options_.watchCache);
    store->setScheme(&scheme_);
    store->setAdmission(admission_.get());
    endpoints::installFieldManagers(*store);
    store->setStoredDecoding(apis::apiextensions::storedDecodingOf(*key));
    stores_.emplace(key, std::move(store));
}

void Server::routesChanged() {
    routes_ = std::make_shared<const endpoints::RouteTable>(scheme_);
    discovery_.setRoutes(routes_);
    openapi_.setRoutes(routes_);
    if (localApiServices_) {
        localApiServices_->sync();
    }
}

const registry::KindInfo* Server::addKind(registry::KindInfo kind) {
    if (scheme_.find(kind.group, kind.version, kind.resource)) {
        return nullptr;
    }
    const registry::KindInfo& added = scheme_.add(std::move(kind));
    std::shared_ptr<const registry::KindInfo> shared = scheme_.all().back();
    addedKinds_.insert(&added);
    installStore(std::move(shared));
    if (started_ && options_.watchCache && added.stored()) {
        meta::Status ignored;
        stores_.at(&added)->watchCache(&ignored);
    }
    // The garbage collector and the quota controller follow the new
    // resource (at its storage version) as they follow those of start().
    if (garbageCollector_ && added.stored() && added.servedAtStorageVersion()) {
        meta::Status err;
        if (storage::cacher::WatchCache* cache = stores_.at(&added)->watchCache(&err)) {
            garbageCollector_->follow(added, *cache);
            quotaController_->follow(added, *cache);
        }
    }
    routesChanged();
    return &added;
}

size_t Server::removeKind(std::string_view group, std::string_view resource) {
    const registry::KindInfo* builtin = nullptr;
    for (const auto& k : scheme_.all()) {
        if (k->group == group && k->resource == resource && !addedKinds_.count(k.get())) {
            builtin = k.get();
        }
    }
    if (builtin) {
        return 0;
    }
    // Before the kinds go: the controllers keep no reference to them.
    for (const auto& k : scheme_.all()) {
        if (k->group == group && k->resource == resource && garbageCollector_) {
            garbageCollector_->unfollow(*k);
            quotaController_->unfollow(*k);
        }
    }
    std::vector<std::shared_ptr<const registry::KindInfo>> removed =
        scheme_.remove(group, resource);
    std::set<std::string> prefixes;
    for (const auto& k : removed) {
        addedKinds_.erase(k.get());
        // Requests still running hold the store (and it the kind).
        stores_.erase(k.get());
        prefixes.insert(registry::collectionPrefix(*k, ""));
    }
    // Watches on the resource end, as kube's end when it tears the storage down.
    for (const std::string& prefix : prefixes) {
        if (storage::cacher::WatchCache* cache = cacher_.find(prefix)) {
            cache->endWatches();
        }
    }
    if (!removed.empty()) {
        routesChanged();
    }
    return removed.size();
}

// What kube's serviceaccounts controller keeps in every namespace: a
// ServiceAccount called default. The controller makes it when a namespace
// appears; a pod admitted before it did makes it itself.
void Server::ensureDefaultServiceAccount(const std::string& ns,
                                         std::function<void(const meta::Status*)> done) {
    auto doc = std::make_shared<json::Document>(rapidjson::kObjectType);
    auto& a = doc->GetAllocator();
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("name", "default", a);
    doc->AddMember("metadata", meta, a);
    stores_.at(scheme_.find("", "v1", "serviceaccounts"))
        ->create(ns, doc, {}, [done = std::move(done)](const meta::Status* err, std::string_view) {
            done(err && err->reason != "AlreadyExists" ? err : nullptr);
        });
}

// kube-apiserver's checks, in its order: ping and log always pass; the
// storage's answers a read; informer-sync (readiness) waits for the watch
// caches; the PostStartHooks for what start() creates.
void Server::addHealthChecks() {
    health_.add("ping", [] { return std::string(); });
    health_.add("log", [] { return std::string(); });
    health_.add(options_.storageName, [this] {
        try {
            storage_.currentRevision();
            return storage_.health();
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
    });
    health_.add(
        "informer-sync",
        [this] { return started_ ? std::string() : std::string("the watch caches are not filled"); },
        kReadyz);
    namespacesCreated_ = health_.addPostStartHook("bootstrap-controller");
    rbacReconciled_ = health_.addPostStartHook("rbac/bootstrap-roles");
    flowControlBootstrapped_ = health_.addPostStartHook("priority-and-fairness-config-producer");
}

void Server::setAuthentication(std::shared_ptr<const authn::AuthenticationConfig> config) {
    authentication_ = std::make_unique<authn::Authentication>(
        std::move(config), getter_, [this] { return loop_.now(); });
}

void Server::StoreGetter::get(
    std::string_view resource, std::string_view ns, std::string_view name,
    std::function<void(const util::json::Value*, std::string_view)> done) const {
    const registry::KindInfo* kind = server_.scheme_.find("", "v1", resource);
    if (!kind) {
        done(nullptr, std::string(resource) + " cannot be read");
        return;
    }
    server_.stores_.at(kind)->get(
        ns, name, [done = std::move(done)](const meta::Status* err, std::string_view obj) {
            if (err) {
                done(nullptr, err->message);
                return;
            }
            json::Document doc;
            if (json::parse(obj, doc)) {
                done(nullptr, "stored object cannot be read");
                return;
            }
            done(&doc, "");
        });
}

// Mirrors serviceaccount's openidmetadata.go: the issuer's discovery
// document and its keys, public and cacheable for an hour; 404 without an
// issuer or keys.
void Server::serveOpenIdMetadata(const endpoints::HttpRequest& req,
                                 const endpoints::Responder& respond) {
    const authn::ServiceAccountOptions& sa = authentication_->serviceAccounts();
    if (sa.issuers.empty() || sa.keys.empty()) {
        respond(endpoints::HttpResponse::fromStatus(meta::Status::notFoundGeneric()));
        return;
    }
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    endpoints::HttpResponse r;
    if (req.path == "/openid/v1/jwks") {
        json::Value keys(rapidjson::kArrayType);
        for (const authn::KeyRef& k : sa.keys) {
            keys.PushBack(k->toJwk(a), a);
        }
        doc.AddMember("keys", keys, a);
        r.contentType = "application/jwk-set+json";
    } else {
        std::string jwks = sa.jwksUri.empty()
                               ? "https://" + std::string(req.host) + "/openid/v1/jwks"
                               : sa.jwksUri;
        doc.AddMember("issuer", json::stringValue(sa.issuers.front(), a), a);
        doc.AddMember("jwks_uri", json::stringValue(jwks, a), a);
        json::Value types(rapidjson::kArrayType);
        types.PushBack("id_token", a);
        doc.AddMember("response_types_supported", types, a);
        json::Value subjects(rapidjson::kArrayType);
        subjects.PushBack("public", a);
        doc.AddMember("subject_types_supported", subjects, a);
        std::set<std::string> algs;
        for (const authn::KeyRef& k : sa.keys) {
            algs.insert(k->signingAlgorithm());
        }
        json::Value list(rapidjson::kArrayType);
        for (const std::string& alg : algs) {
            list.PushBack(json::stringValue(alg, a), a);
        }
        doc.AddMember("id_token_signing_alg_values_supported", list, a);
        r.contentType = "application/json";
    }
    r.body = json::serialize(doc);
    r.headers.emplace_back("Cache-Control", "public, max-age=3600");
    respond(std::move(r));
}

void Server::start() {
    openapi_.buildNow();
    // Every watch cache starts now, as kube's cacher starts its reflectors:
    // a list at an exact older revision or a continue page then finds the
    // revisions since this worker started whichever worker it reaches.
    if (options_.watchCache) {
        for (auto& [kind, store] : stores_) {
            if (!kind->stored()) {
                continue;  // answered, never stored: nothing to watch
            }
            meta::Status ignored;
            store->watchCache(&ignored);
        }
    }
    followRbac();
    const registry::KindInfo* ns = scheme_.find("", "v1", "namespaces");
    registry::Store& store = *stores_.at(ns);
    started_ = true;
    namespacesPending_ = static_cast<int>(std::size(kDefaultNamespaces));
    if (options_.rbacPolicyOwner) {
        startRbacPolicy();
    } else {
        // The owner worker reconciles; this one is ready when its caches,
        // which its authorizer reads, hold what the owner wrote.
        rbacSync_ = syncBootstrap("rbac.authorization.k8s.io", authz::bootstrapPolicy(),
                                  rbacReconciled_);
    }
    startFlowControl();
    if (options_.rbacPolicyOwner) {
        startGarbageCollector();
        startServiceAccountsController();
        startRangeRepair();
    }
    followRegisteredHooks();
    // After the garbage collector and the quota controller took the kinds
    // they follow: custom resources' kinds come and go.
    startCustomResources();
    // After the custom resources' kinds of the definitions the cache holds
    // were added, so its first sync does not delete their APIServices (kube
    // waits for the crd registration controller's first sync likewise).
    if (options_.rbacPolicyOwner) {
        startLocalApiServices();
    }
    for (const char* name : kDefaultNamespaces) {
        auto doc = std::make_shared<json::Document>(rapidjson::kObjectType);
        auto& a = doc->GetAllocator();
        json::Value meta(rapidjson::kObjectType);
        meta.AddMember("name", rapidjson::StringRef(name), a);
        doc->AddMember("metadata", meta, a);
        store.create("", doc, {}, [this](const meta::Status* err, std::string_view) {
            // AlreadyExists is the normal case after the first start.
            if (!err || err->reason == "AlreadyExists") {
                if (--namespacesPending_ == 0) {
                    namespacesCreated_();
                }
            }
        });
    }
}

// The RBAC authorizer reads the RBAC kinds from their watch caches, as
// kube's reads them from its informers, whether or not lists are served
// from the caches.
void Server::followRbac() {
    using authz::RbacResource;
    const std::pair<const char*, RbacResource> kinds[] = {
        {"roles", RbacResource::Roles},
        {"clusterroles", RbacResource::ClusterRoles},
        {"rolebindings", RbacResource::RoleBindings},
        {"clusterrolebindings", RbacResource::ClusterRoleBindings},
    };
    for (const auto& [resource, which] : kinds) {
        const registry::KindInfo* kind = scheme_.find("rbac.authorization.k8s.io", "v1", resource);
        meta::Status err;
        if (storage::cacher::WatchCache* cache = stores_.at(kind)->watchCache(&err)) {
            rbac_->follow(which, *cache);
        }
    }
}

// APF's classifier reads its objects from the watch caches; worker 0 also
// keeps the bootstrap objects (one more start task) and the conditions.
void Server::startFlowControl() {
    auto store = [this](std::string_view resource) -> registry::Store& {
        return *stores_.at(scheme_.find("flowcontrol.apiserver.k8s.io", "v1", resource));
    };
    meta::Status err;
    storage::cacher::WatchCache* schemas = store("flowschemas").watchCache(&err);
    storage::cacher::WatchCache* levels = store("prioritylevelconfigurations").watchCache(&err);
    if (schemas && levels) {
        flowControl_->follow(*schemas, *levels);
    }
    auto synced = [this] {
        flowControlSync_ = syncBootstrap("flowcontrol.apiserver.k8s.io",
                                         flowcontrol::bootstrapConfiguration(),
                                         flowControlBootstrapped_);
    };
    if (!options_.rbacPolicyOwner) {
        synced();  // the owner worker keeps the objects
        return;
    }
    flowMaintainer_ = std::make_unique<flowcontrol::Maintainer>(loop_, store, *flowControl_);
    flowMaintainer_->start([synced](authz::BootstrapSummary) { synced(); });
}

// Every worker finishes the namespace deletes it answered; the owner also
// follows the namespaces (startGarbageCollector) to finish any left.
void Server::startNamespaceController() {
    const registry::KindInfo* ns = scheme_.find("", "v1", "namespaces");
    namespaceController_ = std::make_unique<namespacecontroller::NamespaceController>(
        loop_, storage_, scheme_, *ns, [this](const registry::KindInfo& kind) -> registry::Store* {
            auto it = stores_.find(&kind);
            return it == stores_.end() || !kind.stored() ? nullptr : it->second.get();
        });
    stores_.at(ns)->setTerminator(
        [this](const std::string& name) { namespaceController_->enqueue(name); });
}

// Every worker serves the custom resources of the established definitions
// its cache holds; the owner also runs their naming, establishing and
// finalizer controllers.
void Server::startCustomResources() {
    const registry::KindInfo* crds =
        scheme_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    meta::Status err;
    storage::cacher::WatchCache* cache = stores_.at(crds)->watchCache(&err);
    if (!cache) {
        return;
    }
    customResources_ = std::make_unique<controller::apiextensions::CustomResourceServing>(
        *cache, [this](registry::KindInfo kind) { return addKind(std::move(kind)) != nullptr; },
        [this](std::string_view group, std::string_view resource) { removeKind(group, resource); });
    if (options_.rbacPolicyOwner) {
        definitions_ = std::make_unique<controller::apiextensions::DefinitionController>(
            loop_, storage_, *cache, *stores_.at(crds));
    }
}

// Admission webhooks and policies are followed from this worker's caches, as kube's admission
// plugins follow them from informers.
void Server::followRegisteredHooks() {
    using Source = admission::RegisteredHooks::Source;
    registeredHooks_ = std::make_unique<admission::RegisteredHooks>();
    const std::pair<const char*, Source> kinds[] = {
        {"mutatingwebhookconfigurations", Source::MutatingWebhooks},
        {"validatingwebhookconfigurations", Source::ValidatingWebhooks},
        {"validatingadmissionpolicies", Source::Policies},
        {"validatingadmissionpolicybindings", Source::PolicyBindings},
    };
    for (const auto& [resource, source] : kinds) {
        const registry::KindInfo* kind =
            scheme_.find("admissionregistration.k8s.io", "v1", resource);
        meta::Status err;
        if (storage::cacher::WatchCache* cache = kind ? stores_.at(kind)->watchCache(&err) : nullptr) {
            registeredHooks_->follow(source, *cache);
        }
    }
}

// Until webhooks are called and policies evaluated, a write they would have matched is answered
// with a Warning per webhook or bound policy (admission::RegisteredHooks).
void Server::warnOfRegisteredHooks(const registry::KindInfo& kind, endpoints::RequestScope& scope) {
    if (!registeredHooks_ || !kind.stored()) {
        return;
    }
    const std::string& verb = scope.info.verb;
    std::string_view operation = verb == "create"                     ? "CREATE"
                                 : verb == "update" || verb == "patch" ? "UPDATE"
                                 : verb == "delete" || verb == "deletecollection" ? "DELETE"
                                                                                   : "";
    if (operation.empty()) {
        return;
    }
    std::vector<std::string> texts = registeredHooks_->warnings(
        {operation, kind.group, kind.version, kind.resource, scope.info.subresource,
         scope.info.name, kind.namespaced});
    if (texts.empty()) {
        return;
    }
    scope.respond = [respond = std::move(scope.respond),
                     headers = endpoints::warningHeaders(texts)](endpoints::HttpResponse&& r) {
        for (const std::string& h : headers) {
            r.headers.emplace_back("Warning", h);
        }
        respond(std::move(r));
    };
}

// What kube-apiserver's aggregator keeps from start (apiServicesToRegister) and its crd
// registration controller adds: an APIService per group/version served, built-in or custom.
void Server::startLocalApiServices() {
    const registry::KindInfo* kind = scheme_.find("apiregistration.k8s.io", "v1", "apiservices");
    localApiServices_ = std::make_unique<controller::apiregistration::LocalApiServices>(
        loop_, *stores_.at(kind), [this] {
            std::vector<controller::apiregistration::ServedGroupVersion> served;
            std::set<std::pair<std::string, std::string>> seen;
            for (const auto& k : scheme_.all()) {
                if (seen.emplace(k->group, k->version).second) {
                    served.push_back({k->group, k->version, !addedKinds_.count(k.get())});
                }
            }
            return served;
        });
    localApiServices_->sync();
}

// The garbage collector and the quota controller follow the watch cache of
// every stored resource (once per resource, whichever versions serve it).
void Server::startGarbageCollector() {
    garbageCollector_ = std::make_unique<garbagecollector::GarbageCollector>(
        loop_, scheme_, [this](const registry::KindInfo& kind) -> std::shared_ptr<registry::Store> {
            auto it = stores_.find(&kind);
            return it == stores_.end() || !kind.stored() ? nullptr : it->second;
        });
    quotaController_ = std::make_unique<resourcequota::ResourceQuotaController>(
        loop_, storage_, *scheme_.find("", "v1", "resourcequotas"));
    std::set<std::string> followed;
    for (auto& [kind, store] : stores_) {
        if (!kind->stored() || !kind->servedAtStorageVersion() ||
            !followed.insert(registry::collectionPrefix(*kind, "")).second) {
            continue;
        }
        meta::Status err;
        if (storage::cacher::WatchCache* cache = store->watchCache(&err)) {
            garbageCollector_->follow(*kind, *cache);
            quotaController_->follow(*kind, *cache);
            if (kind == scheme_.find("", "v1", "namespaces")) {
                namespaceController_->follow(*cache);
            }
        }
    }
}

// kube-controller-manager's serviceaccounts controller, run here: every
// active namespace gets its default ServiceAccount.
void Server::startServiceAccountsController() {
    const registry::KindInfo* namespaces = scheme_.find("", "v1", "namespaces");
    const registry::KindInfo* accounts = scheme_.find("", "v1", "serviceaccounts");
    meta::Status err;
    storage::cacher::WatchCache* nsCache = stores_.at(namespaces)->watchCache(&err);
    storage::cacher::WatchCache* saCache = stores_.at(accounts)->watchCache(&err);
    if (!nsCache || !saCache) {
        return;
    }
    serviceAccounts_ = std::make_unique<controller::serviceaccount::DefaultServiceAccounts>(
        loop_, *nsCache, *saCache, registry::collectionPrefix(*accounts, ""),
        [this](const std::string& ns, std::function<void(bool)> done) {
            ensureDefaultServiceAccount(
                ns, [done = std::move(done)](const meta::Status* e) { done(!e); });
        });
    serviceAccounts_->start();
}

// Services take their ClusterIPs and node ports from the configured ranges,
// stored beside them (registry/service); a range that does not parse (the
// module checks the directives) falls back to kube's default.
void Server::installServiceAllocators() {
    std::string error;
    std::optional<registry::service::IpRange> ips =
        registry::service::IpRange::parse(options_.serviceClusterIPRange, &error);
    if (!ips) {
        ips = registry::service::IpRange::parse("10.0.0.0/24", &error);
    }
    std::optional<registry::service::PortRange> ports =
        registry::service::PortRange::parse(options_.serviceNodePortRange, &error);
    if (!ports) {
        ports = registry::service::PortRange::parse("30000-32767", &error);
    }
    serviceAllocators_ =
        std::make_unique<registry::service::ServiceAllocators>(storage_, *ips, *ports);
    stores_.at(scheme_.find("", "v1", "services"))
        ->setWriteCompanion([this](const std::vector<registry::Store::CompanionChange>& changes,
                                   bool dryRun, registry::Store::CompanionDone done) {
            serviceAllocators_->plan(changes, dryRun, std::move(done));
        });
}

// The owner worker makes the ranges and keeps them, and the IPAddresses,
// matching the services.
void Server::startRangeRepair() {
    const registry::KindInfo* services = scheme_.find("", "v1", "services");
    std::string servicesPrefix = registry::collectionPrefix(*services, "");
    rangeRepair_ = std::make_unique<controller::serviceallocation::RangeRepair>(
        loop_, storage_, *serviceAllocators_, servicesPrefix);
    ipAddressRepair_ = std::make_unique<controller::serviceallocation::IPAddressRepair>(
        loop_, storage_, serviceAllocators_->ips(), servicesPrefix);
    rangeRepair_->start([this] {
        ipAddressRepair_->start();
        startControlPlaneObjects();
    });
}

// The owner worker keeps the `kubernetes` Service, its Endpoints and
// EndpointSlice, the `kubernetes` ServiceCIDR, the server's identity Lease
// and the extension-apiserver-authentication ConfigMap.
void Server::startControlPlaneObjects() {
    if (controlPlane_) {
        return;
    }
    controller::controlplane::Options o;
    o.clusterIP = registry::service::formatIPv4(serviceAllocators_->ips().first());
    o.serviceCIDR = serviceAllocators_->ips().spec;
    o.advertiseAddress = options_.advertiseAddress;
    o.securePort = options_.securePort;
    o.endpointReconciler = options_.endpointLeases
                               ? controller::controlplane::EndpointReconciler::Lease
                               : controller::controlplane::EndpointReconciler::None;
    o.masterLeases = options_.sharedStorage ? &storage_ : nullptr;
    o.masterLeaseTtl = options_.endpointReconcilerTtl;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) {
        std::strcpy(host, "localhost");
    }
    o.hostname = host;
    o.leaseName = controller::controlplane::identityLeaseName(o.hostname);
    o.holderIdentity = o.leaseName + "_" + util::newUid();
    o.clientCA = options_.clientCA;
    if (const auto& rh = authentication_->config().requestHeader) {
        o.requestHeader = true;
        o.requestHeaderCA = options_.requestHeaderCA;
        o.usernameHeaders = rh->usernameHeaders;
        o.groupHeaders = rh->groupHeaders;
        o.extraHeaderPrefixes = rh->extraHeaderPrefixes;
        o.allowedNames = rh->allowedNames;
    }
    controlPlane_ = std::make_unique<controller::controlplane::ControlPlaneObjects>(
        loop_,
        [this](std::string_view group, std::string_view resource) -> registry::Store* {
            const registry::KindInfo* kind = scheme_.find(group, "v1", resource);
            return kind ? stores_.at(kind).get() : nullptr;
        },
        std::move(o));
    controlPlane_->start();
}

void Server::stop(std::function<void()> done) {
    if (controlPlane_) {
        controlPlane_->stop(std::move(done));
        return;
    }
    loop_.post(std::move(done));
}

// Calls `hook` once this worker's watch caches of `group`'s kinds hold every
// object of `objects` (at once when there are no caches to wait for).
std::unique_ptr<BootstrapSync> Server::syncBootstrap(
    std::string_view group, const std::vector<authz::BootstrapObject>& objects,
    std::function<void()> hook) {
    std::vector<storage::cacher::WatchCache*> caches;
    std::vector<std::string> keys;
    std::set<const registry::KindInfo*> kinds;
    for (const authz::BootstrapObject& o : objects) {
        const registry::KindInfo* kind = scheme_.find(group, "v1", o.resource);
        meta::Status err;
        storage::cacher::WatchCache* cache = kind ? stores_.at(kind)->watchCache(&err) : nullptr;
        if (!cache) {
            hook();
            return nullptr;
        }
        if (kinds.insert(kind).second) {
            caches.push_back(cache);
        }
        keys.push_back(registry::objectKey(*kind, o.namespace_, o.name));
    }
    return std::make_unique<BootstrapSync>(caches, std::move(keys), std::move(hook));
}

registry::Store& Server::rbacStore(std::string_view resource) {
    return *stores_.at(scheme_.find("rbac.authorization.k8s.io", "v1", resource));
}

// The server is ready once the bootstrap policy is reconciled, as kube's
// readyz waits for the PostStartHook.
void Server::startRbacPolicy() {
    authz::reconcileBootstrapPolicy(
        [this](std::string_view resource) -> registry::Store& { return rbacStore(resource); },
        [this](authz::BootstrapSummary summary) {
            bootstrapSummary_ = std::move(summary);
            rbacSync_ = syncBootstrap("rbac.authorization.k8s.io", authz::bootstrapPolicy(),
                                      rbacReconciled_);
        });
    aggregator_ = std::make_unique<authz::ClusterRoleAggregator>(rbacStore("clusterroles"));
    aggregator_->start();
}

void Server::enableEscalationChecks(const authz::Authorizer& authorizer,
                                    const authz::RuleResolver& resolver) {
    // GetRoleReferenceRules: the rules of the role a binding names, read
    // from the store (a write path; kube reads its informer cache).
    auto roleRules = [this](std::string_view kind, std::string_view ns, std::string_view name,
                            std::function<void(const meta::Status*, std::vector<authz::PolicyRule>)>
                                done) {
        bool cluster = kind == "ClusterRole";
        rbacStore(cluster ? "clusterroles" : "roles")
            .get(cluster ? "" : ns, name,
                 [done = std::move(done)](const meta::Status* err, std::string_view obj) {
                     if (err) {
                         done(err, {});
                         return;
                     }
                     json::Document doc;
                     json::parse(obj, doc);
                     done(nullptr, authz::rulesOf(doc));
                 });
    };
    escalation_ = std::make_unique<authz::EscalationGuard>(authorizer, resolver, roleRules);
    // The certificate plugins' approve and sign checks ask the same chain.
    signers_->authorizer = &authorizer;
    for (const char* resource : {"roles", "clusterroles", "rolebindings", "clusterrolebindings"}) {
        rbacStore(resource).setWriteGuard(
            [this, resource](const registry::Store::WriteCheck& c,
                             std::function<void(const meta::Status*)> done) {
                authz::RbacWrite w;
                w.user = c.user;
                w.resource = resource;
                w.namespace_ = c.ns;
                w.name = c.name;
                w.obj = &c.obj;
                w.old = c.old;
                escalation_->check(w, std::move(done));
            });
    }
}

void Server::pollChanges() {
    cacher_.poll();
}

// Mirrors WithPanicRecovery: an unexpected exception while handling the
// request becomes a 500 InternalError, unless an answer already went out.
void Server::serve(const endpoints::HttpRequest& req, endpoints::Responder respond) {
    auto answered = std::make_shared<bool>(false);
    // Exactly one answer per request: a late one after a recovered failure is dropped.
    endpoints::Responder once = [answered,
                                 respond = std::move(respond)](endpoints::HttpResponse&& r) {
        if (*answered) {
            return;
        }
        *answered = true;
        respond(std::move(r));
    };
    try {
        switch (routeFor(req.path)) {
            case Route::Api:
                serveApi(req, once);
                return;
            case Route::NonResource:
                serveNonResource(req, once);
                return;
            case Route::None:
                once(endpoints::HttpResponse::fromStatus(meta::Status::notFoundGeneric()));
                return;
        }
    } catch (const std::exception& e) {
        if (!*answered) {
            once(endpoints::HttpResponse::fromStatus(meta::Status::internalError(e.what())));
        }
    }
}

// As kube-apiserver's mux: the health checks, /metrics and the OpenAPI
// documents answer whatever the method; /version and the issuer's
// documents (go-restful routes) answer 405 to anything but GET.
void Server::serveNonResource(const endpoints::HttpRequest& req, endpoints::Responder respond) {
    std::string_view path = req.path;
    bool restful = path.starts_with("/version") || path == "/.well-known/openid-configuration" ||
                   path == "/openid/v1/jwks";
    if (restful && req.method != "GET" && req.method != "HEAD") {
        respond(endpoints::HttpResponse::fromStatus(meta::Status::methodNotSupported()));
        return;
    }
    if (path == "/.well-known/openid-configuration" || path == "/openid/v1/jwks") {
        serveOpenIdMetadata(req, respond);
        return;
    }
    if (path == "/metrics") {
        endpoints::HttpResponse r = text(200, (metricsSource_ ? metricsSource_() : std::string()) +
                                       storage::cacher::metricsText(cacher_) +
                                       storage_.metricsText());
        r.contentType = "text/plain; version=0.0.4; charset=utf-8";
        respond(std::move(r));
        return;
    }
    if (openapi::Service::handles(path)) {
        openapi_.serve({req.path, req.query, req.accept, req.ifNoneMatch, loop_.now()},
                       [respond](openapi::Response&& o) {
                           endpoints::HttpResponse r;
                           r.status = o.status;
                           r.contentType = std::move(o.contentType);
                           r.body = std::move(o.body);
                           r.headers = std::move(o.headers);
                           respond(std::move(r));
                       });
        return;
    }
    if (path.starts_with("/version")) {
        respond(endpoints::HttpResponse::json(200, versionDocument()));
        return;
    }
    if (HealthChecks::handles(path)) {
        respond(health_.serve(path, req.query));
        return;
    }
    respond(endpoints::HttpResponse::fromStatus(meta::Status::notFoundGeneric()));
}

bool Server::serveDiscovery(const endpoints::HttpRequest& req,
                            const endpoints::Responder& respond) {
    std::string_view path = req.path;
    while (path.size() > 1 && path.back() == '/') {
        path.remove_suffix(1);
    }
    // /apis/<group>[/<version>]: the segments after /apis/.
    std::vector<std::string_view> segments;
    if (path.starts_with("/apis/")) {
        std::string_view rest = path.substr(6);
        while (!rest.empty() && segments.size() < 3) {
            size_t slash = rest.find('/');
            segments.push_back(rest.substr(0, slash));
            rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
        }
    }
    bool root = path == "/api" || path == "/apis";
    bool legacyVersion = path == "/api/v1";
    bool group = segments.size() == 1;
    bool groupVersion = segments.size() == 2;
    if (!root && !legacyVersion && !group && !groupVersion) {
        return false;
    }
    // kube serves /apis and /apis/<group> from its own handlers, which
    // answer whatever the method; the rest are go-restful routes (GET only).
    bool anyMethod = path == "/apis" || group;
    if (!anyMethod && req.method != "GET" && req.method != "HEAD") {
        respond(endpoints::HttpResponse::fromStatus(meta::Status::methodNotSupported()));
        return true;
    }
    const endpoints::DiscoveryDocument* doc = nullptr;
    endpoints::DiscoveryDocument coreDoc;
    if (root) {
        meta::Status err;
        auto form = endpoints::negotiateDiscovery(req.accept, &err);
        if (!form) {
            respond(endpoints::HttpResponse::fromStatus(err));
            return true;
        }
        if (path == "/api") {
            coreDoc = discovery_.coreRoot(*form, req.host);
            doc = &coreDoc;
        } else {
            doc = &discovery_.groupsRoot(*form);
        }
    } else if (legacyVersion) {
        doc = discovery_.resources("", "v1");
    } else if (group) {
        doc = discovery_.group(segments[0]);
    } else {
        doc = discovery_.resources(segments[0], segments[1]);
    }
    if (!doc) {
        respond(endpoints::HttpResponse::fromStatus(meta::Status::notFoundGeneric()));
        return true;
    }
    endpoints::HttpResponse r;
    r.contentType = doc->contentType;
    r.body = doc->body;
    if (!doc->etag.empty()) {
        r.headers.emplace_back("ETag", doc->etag);
        r.headers.emplace_back("Vary", "Accept");
    }
    respond(std::move(r));
    return true;
}

void Server::serveApi(const endpoints::HttpRequest& req, endpoints::Responder respond) {
    if (serveDiscovery(req, respond)) {
        return;
    }
    if (!req.info->isResourceRequest) {
        respond(endpoints::HttpResponse::fromStatus(meta::Status::notFoundGeneric()));
        return;
    }
    serveResource(req, std::move(respond));
}

void Server::serveResource(const endpoints::HttpRequest& req, endpoints::Responder respond) {
    const endpoints::RequestInfo& info = *req.info;
    endpoints::RouteMatch match = routes_->match(info);
    if (match.outcome == endpoints::RouteMatch::Outcome::NotFound) {
        // kube's not-found handler negotiates as well: protobuf if asked.
        endpoints::RenderOptions generic;
        meta::Status unmet;
        if (auto out = endpoints::negotiateOutput(req.accept, {false, true}, &unmet)) {
            generic.output = *out;
        }
        // A custom resource's subresource that its version does not have
        // is the object's 404 (crdHandler.ServeHTTP).
        const endpoints::KindRoutes* served =
            routes_->find(info.apiGroup, info.apiVersion, info.resource);
        meta::Status notFound = meta::Status::notFoundGeneric();
        if (served && served->kind->custom && !info.subresource.empty()) {
            notFound = meta::Status::notFound({info.apiGroup, info.resource}, info.name);
        }
        respond(endpoints::statusResponse(notFound, generic));
        return;
    }
    const registry::KindInfo& kind = *match.kind->kind;
    const endpoints::ResourceRoute& route = *match.route;
    endpoints::RequestInfo effective = info;
    effective.namespace_ = match.namespace_;
    const std::string& verb = effective.verb;
    bool tableVerb = verb == "get" || (!route.subresource && (verb == "list" || verb == "watch"));
    meta::Status err;
    endpoints::OutputCapabilities can{
        tableVerb,
        endpoints::hasProtobufSchema(route.responseKind->apiVersion(), route.responseKind->kind)};
    auto output = endpoints::negotiateOutput(req.accept, can, &err);
    util::Query query = util::Query::parse(req.query);
    bool pretty = endpoints::wantsPretty(req.userAgent, query.get("pretty").value_or(""));
    if (!output) {
        respond(endpoints::HttpResponse::fromStatus(err, pretty));
        return;
    }
    const std::shared_ptr<registry::Store>& store = stores_.at(&kind);
    endpoints::RenderOptions render;
    render.kind = route.responseKind;
    render.output = *output;
    render.pretty = pretty;
    render.table.now = loop_.now();
    // The store holds its kind: both outlive this request if the kind goes.
    render.keepAlive = store;
    if (auto include = query.get("includeObject")) {
        if (*include == "None") {
            render.includeObject = endpoints::IncludeObject::None;
        } else if (*include == "Object") {
            render.includeObject = endpoints::IncludeObject::Object;
        }
    }
    auto scope = std::make_shared<endpoints::RequestScope>(endpoints::RequestScope{
        req, effective, std::move(query), *store, *admission_, turns_, render, std::move(respond)});
    if (match.outcome == endpoints::RouteMatch::Outcome::MethodNotAllowed) {
        scope->fail(meta::Status::methodNotSupported());
        return;
    }
    warnOfRegisteredHooks(kind, *scope);
    if (verb == "create" && kind.custom && customResources_ &&
        customResources_->terminating(kind.group, kind.resource)) {
        // Mirrors crdHandler.serveResource while its definition terminates.
        meta::Status refused = meta::Status::methodNotSupported();
        refused.message = "create not allowed while custom resource definition is terminating";
        refused.details = meta::StatusDetails{"", kind.group, kind.resource, "", {}, 0};
        scope->fail(refused);
        return;
    }
    if (kind.custom && kind.custom->conversionUnavailable) {
        // kube's answer when the conversion webhook fails: a 500 without a
        // reason, naming the version converted from (the request's body on
        // a write, the stored object otherwise).
        bool write = verb == "create" || verb == "update" || verb == "patch";
        meta::Status failed;
        failed.message = "conversion webhook for " + kind.group + "/" +
                         (write ? kind.version : kind.storageVersion) + ", Kind=" + kind.kind +
                         " failed: this server does not call conversion webhooks";
        scope->fail(failed);
        return;
    }
    switch (route.handlers) {
        case endpoints::Handlers::TokenRequest:
            endpoints::createToken(scope, *authentication_, getter_);
            return;
        case endpoints::Handlers::Binding:
            endpoints::createBinding(scope, *stores_.at(scheme_.find("", "v1", "pods")));
            return;
        case endpoints::Handlers::Review:
            serveReview(kind, scope);
            return;
        case endpoints::Handlers::Eviction:
            endpoints::createEviction(
                scope, *store, *stores_.at(scheme_.find("policy", "v1", "poddisruptionbudgets")));
            return;
        case endpoints::Handlers::EphemeralContainers:
            endpoints::serveEphemeralContainers(scope);
            return;
        case endpoints::Handlers::Finalize:
            endpoints::finalizeNamespace(scope);
            return;
        case endpoints::Handlers::Connect:
            endpoints::connect(scope, *stores_.at(scheme_.find("", "v1", "nodes")),
                               *stores_.at(scheme_.find("", "v1", "endpoints")));
            return;
        case endpoints::Handlers::ComponentStatus:
            if (verb == "get") {
                endpoints::getComponentStatus(scope);
            } else {
                endpoints::listComponentStatuses(scope);
            }
            return;
        case endpoints::Handlers::Scale:
            if (verb == "get") {
                endpoints::getScale(scope);
            } else if (verb == "update") {
                endpoints::updateScale(scope);
            } else {
                endpoints::patchScale(scope);
            }
            return;
        case endpoints::Handlers::Object:
            break;
    }
    // The status subresource too: the handlers read it off the scope.
    if (verb == "get") {
        endpoints::getResource(scope);
    } else if (verb == "list") {
        endpoints::listResource(scope);
    } else if (verb == "watch") {
        endpoints::watchResource(scope, options_.minRequestTimeout);
    } else if (verb == "create") {
        endpoints::createResource(scope);
    } else if (verb == "update") {
        endpoints::updateResource(scope);
    } else if (verb == "patch") {
        endpoints::patchResource(scope);
    } else if (verb == "delete") {
        endpoints::deleteResource(scope);
    } else {
        endpoints::deleteCollection(scope);
    }
}

// A review is created, answered and forgotten; each group's reviews have
// their handler.
void Server::serveReview(const registry::KindInfo& kind, const endpoints::Scope& scope) {
    if (kind.group == "authentication.k8s.io") {
        if (kind.kind == "TokenReview") {
            endpoints::createTokenReview(scope, *authentication_);
        } else {
            endpoints::createSelfSubjectReview(scope);
        }
        return;
    }
    if (kind.group == "authorization.k8s.io") {
        if (kind.kind == "SelfSubjectRulesReview") {
            endpoints::createRulesReview(scope);
        } else {
            endpoints::createAccessReview(scope);
        }
        return;
    }
    scope->fail(meta::Status::methodNotSupported());
}

}  // namespace kube::server
