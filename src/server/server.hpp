#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "admission/plugins.hpp"
#include "admission/registered_hooks.hpp"
#include "authn/authentication.hpp"
#include "authz/aggregation.hpp"
#include "authz/authorizer.hpp"
#include "authz/bootstrap.hpp"
#include "authz/escalation.hpp"
#include "authz/rbac.hpp"
#include "authz/rule_resolver.hpp"
#include "controller/apiextensions/custom_resource_serving.hpp"
#include "controller/apiregistration/local_api_services.hpp"
#include "controller/apiextensions/definition_controller.hpp"
#include "controller/controlplane/control_plane_objects.hpp"
#include "controller/garbagecollector/garbage_collector.hpp"
#include "controller/namespace/namespace_controller.hpp"
#include "controller/resourcequota/resource_quota_controller.hpp"
#include "controller/serviceaccount/default_service_accounts.hpp"
#include "controller/serviceallocation/ip_address_repair.hpp"
#include "controller/serviceallocation/range_repair.hpp"
#include "endpoints/discovery.hpp"
#include "endpoints/handlers/scope.hpp"
#include "endpoints/http.hpp"
#include "endpoints/route_table.hpp"
#include "flowcontrol/controller.hpp"
#include "flowcontrol/maintainer.hpp"
#include "openapi/publisher.hpp"
#include "openapi/service.hpp"
#include "registry/scheme.hpp"
#include "registry/service/allocators.hpp"
#include "registry/store.hpp"
#include "server/bootstrap_sync.hpp"
#include "server/health.hpp"
#include "storage/cacher/cacher.hpp"
#include "storage/compactor.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"
#include "util/turns.hpp"

namespace kube::server {

// What the director does with a path (mirrors kube-apiserver's director plus
// its non-resource mux).
enum class Route {
    None,         // not ours: the rest of nginx serves it
    Api,          // /api, /apis and below: discovery and resources
    NonResource,  // /version, /healthz, /livez, /readyz, /metrics, /openapi/v2, /openapi/v3,
                  // the service-account issuer's /.well-known/openid-configuration, /openid/v1/jwks
};

Route routeFor(std::string_view path);

// What nginx.conf says about the server's behaviour (see README).
struct ServerOptions {
    // kube_watch_cache: lists are served from this worker's watch cache;
    // off, every list reads the store.
    bool watchCache = true;
    // kube_watch_cache_size: the memory the watch caches' event history may
    // keep, per worker and per resource.
    storage::cacher::HistoryLimits watchCacheHistory;
    // kube_compaction_interval: history older than one to two intervals is
    // compacted; zero turns compaction off. Only the server with `compactor`
    // set compacts (one worker per host).
    std::chrono::milliseconds compactionInterval = std::chrono::minutes(5);
    bool compactor = false;
    // kube_min_request_timeout: a watch without timeoutSeconds ends after a
    // random time between this and twice this (kube's --min-request-timeout).
    std::chrono::seconds minRequestTimeout{1800};
    // This worker creates and reconciles the bootstrap RBAC policy at start
    // (kube's PostStartHook rbac/bootstrap-roles) and keeps aggregated
    // ClusterRoles current (one worker per host, so workers do not race); it
    // also keeps APF's bootstrap objects and FlowSchema conditions, and runs
    // the garbage collector.
    bool rbacPolicyOwner = false;
    // What the storage is, naming its health check (kube's "etcd").
    std::string storageName = "lmdb";
    // kube_service_cluster_ip_range and kube_service_node_port_range: where
    // Services' ClusterIPs and node ports come from (kube's
    // --service-cluster-ip-range and --service-node-port-range defaults).
    std::string serviceClusterIPRange = "10.0.0.0/24";
    std::string serviceNodePortRange = "30000-32767";
    // kube_advertise_address and the port clients reach the server at: what
    // the `kubernetes` Service's endpoints name (kube's --advertise-address
    // and --secure-port).
    std::string advertiseAddress = "127.0.0.1";
    int securePort = 6443;
    // kube_endpoint_reconciler_type and kube_endpoint_reconciler_ttl (kube's
    // --endpoint-reconciler-type): "lease" keeps the `kubernetes` Endpoints,
    // naming every live host's address when several share the storage
    // (sharedStorage: etcd), each host's lease living the TTL; "none" leaves
    // them alone.
    bool endpointLeases = true;
    std::chrono::seconds endpointReconcilerTtl{15};
    bool sharedStorage = false;
    // The PEM of the client CA and of the request-header CA, for the
    // extension-apiserver-authentication ConfigMap ("" when none).
    std::string clientCA;
    std::string requestHeaderCA;
};

// The embedded API server of one nginx worker: the REST dispatcher over the
// registry of built-in kinds, their stores and discovery.
class Server {
  public:
    Server(util::EventLoop& loop, storage::Interface& storage, ServerOptions options = {});

    // Answers one request the director routed here. `req.info` and
    // `req.user` are set (authentication and authorization already ran).
    // `respond` is called exactly once, inline or later on the loop.
    void serve(const endpoints::HttpRequest& req, endpoints::Responder respond);

    // Builds the OpenAPI documents, fills the watch caches, and creates
    // default, kube-system, kube-public and kube-node-lease if missing; the
    // server is ready once that is done.
    void start();
    // A graceful stop has begun: the controllers this worker runs let go of
    // what they hold outside it (the master lease); `done` runs once they
    // have, on the loop.
    void stop(std::function<void()> done);
    // Every check of /readyz passes.
    bool ready() const { return health_.ready(); }

    // The checks of /healthz, /livez and /readyz; other parts add theirs
    // (a PostStartHook for their bootstrap) before start().
    HealthChecks& health() { return health_; }

    // Reads the store's change feed up to its latest revision and delivers
    // what is new to this worker's watchers. Call it after this process's
    // own commits, when another process wakes this one (eventfd), and from a
    // periodic safety poll; calls merge, and a call with nothing new is cheap.
    void pollChanges();

    // Where /metrics gets its text (Prometheus exposition format); the
    // module counts what only it sees, across workers.
    void setMetricsSource(std::function<std::string()> source) {
        metricsSource_ = std::move(source);
    }

    const registry::Scheme& scheme() const { return scheme_; }
    // The routes dispatch, discovery and the OpenAPI documents read, rebuilt
    // on every change of the scheme.
    const endpoints::RouteTable& routes() const { return *routes_; }

    // Serves `kind` from now on, on this worker (a custom resource's version
    // once its definition is established): its store, its routes, and its
    // entries in discovery and the OpenAPI documents, which are rebuilt.
    // Null when the group, version and resource are served already.
    const registry::KindInfo* addKind(registry::KindInfo kind);
    // Stops serving every version of `group`'s `resource` that addKind
    // added: its paths answer 404, discovery and OpenAPI forget it. Requests
    // already running keep the kind and its store until they end. The
    // number of versions removed; 0 for a built-in kind, which stays.
    size_t removeKind(std::string_view group, std::string_view resource);

    // The authenticators kube_token_auth_file, kube_service_account_* and
    // kube_authentication_config configure; they check bound tokens against
    // this server's stores. Without a call, only TokenRequest's absence of a
    // signing key and empty reviews are served.
    void setAuthentication(std::shared_ptr<const authn::AuthenticationConfig> config);
    const authn::Authentication& authentication() const { return *authentication_; }

    // This worker's RBAC authorizer, following the watch caches of the RBAC
    // kinds from start() on.
    const authz::RbacAuthorizer& rbac() const { return *rbac_; }
    // Turns on escalation prevention for writes of Roles, ClusterRoles and
    // their bindings (kube wraps their storage so when RBAC is an
    // authorization mode): `authorizer` is the whole authorization chain
    // (for the escalate and bind verbs), `resolver` RBAC's rules per user.
    // Both outlive the server. Without this call, no such check runs.
    void enableEscalationChecks(const authz::Authorizer& authorizer,
                                const authz::RuleResolver& resolver);

    // This worker's API Priority and Fairness classifier, following the
    // watch caches of FlowSchemas and PriorityLevelConfigurations from
    // start() on.
    flowcontrol::Classifier& flowClassifier() { return *flowControl_; }
    // The total concurrency APF's levels share (kube: max-requests-inflight
    // plus max-mutating-requests-inflight, 600 unless set).
    void setServerConcurrencyLimit(int total) { flowControl_->setServerConcurrencyLimit(total); }

    // What the last bootstrap policy reconciliation did (null before one ends).
    const authz::BootstrapSummary* bootstrapSummary() const {
        return bootstrapSummary_ ? &*bootstrapSummary_ : nullptr;
    }

  private:
    void installStore(std::shared_ptr<const registry::KindInfo> kind);
    void routesChanged();
    void ensureDefaultServiceAccount(const std::string& ns,
                                     std::function<void(const meta::Status*)> done);
    void serveApi(const endpoints::HttpRequest& req, endpoints::Responder respond);
    void serveResource(const endpoints::HttpRequest& req, endpoints::Responder respond);
    void serveNonResource(const endpoints::HttpRequest& req, endpoints::Responder respond);
    bool serveDiscovery(const endpoints::HttpRequest& req, const endpoints::Responder& respond);
    void followRbac();
    void startFlowControl();
    void serveReview(const registry::KindInfo& kind, const endpoints::Scope& scope);
    void serveOpenIdMetadata(const endpoints::HttpRequest& req,
                             const endpoints::Responder& respond);

    // Reads ServiceAccounts, Pods, Secrets and Nodes for token checks.
    class StoreGetter : public authn::ObjectGetter {
      public:
        explicit StoreGetter(Server& server) : server_(server) {}
        void get(std::string_view resource, std::string_view ns, std::string_view name,
                 std::function<void(const util::json::Value*, std::string_view)> done)
            const override;

      private:
        Server& server_;
    };
    registry::Store& rbacStore(std::string_view resource);
    void startRbacPolicy();
    void startGarbageCollector();
    void startServiceAccountsController();
    void installServiceAllocators();
    void startRangeRepair();
    void startControlPlaneObjects();
    void startNamespaceController();
    void startCustomResources();
    void startLocalApiServices();
    void followRegisteredHooks();
    void warnOfRegisteredHooks(const registry::KindInfo& kind, endpoints::RequestScope& scope);
    void addHealthChecks();
    std::unique_ptr<BootstrapSync> syncBootstrap(std::string_view group,
                                                 const std::vector<authz::BootstrapObject>& objects,
                                                 std::function<void()> hook);

    util::EventLoop& loop_;
    storage::Interface& storage_;
    ServerOptions options_;
    std::function<std::string()> metricsSource_;
    registry::Scheme scheme_;
    // The kinds addKind added: the ones removeKind may remove.
    std::set<const registry::KindInfo*> addedKinds_;
    std::shared_ptr<const endpoints::RouteTable> routes_;
    endpoints::Discovery discovery_;
    openapi::Publisher openapi_;
    // Shared with the requests running on them (RenderOptions::keepAlive).
    std::map<const registry::KindInfo*, std::shared_ptr<registry::Store>> stores_;
    // The admission chain every store's writes pass through.
    std::unique_ptr<admission::Chain> admission_;
    StoreGetter getter_{*this};
    std::unique_ptr<authn::Authentication> authentication_;
    storage::cacher::Cacher cacher_;
    // After cacher_: it unsubscribes from the caches before they go.
    std::unique_ptr<authz::RbacAuthorizer> rbac_;
    std::unique_ptr<flowcontrol::Controller> flowControl_;
    std::unique_ptr<flowcontrol::Maintainer> flowMaintainer_;
    // On the owner worker; after cacher_, as rbac_.
    std::unique_ptr<garbagecollector::GarbageCollector> garbageCollector_;
    std::unique_ptr<controller::serviceaccount::DefaultServiceAccounts> serviceAccounts_;
    std::unique_ptr<resourcequota::ResourceQuotaController> quotaController_;
    // The services store's write companion; on the owner, its repair.
    std::unique_ptr<registry::service::ServiceAllocators> serviceAllocators_;
    std::unique_ptr<controller::serviceallocation::RangeRepair> rangeRepair_;
    std::unique_ptr<controller::serviceallocation::IPAddressRepair> ipAddressRepair_;
    std::unique_ptr<controller::controlplane::ControlPlaneObjects> controlPlane_;
    // On every worker; after cacher_ and stores_ (it holds their callbacks' targets).
    std::unique_ptr<namespacecontroller::NamespaceController> namespaceController_;
    // On every worker: the admission webhooks and policies registered, for the Warning a write
    // they match gets. After cacher_ (it follows its caches).
    std::unique_ptr<admission::RegisteredHooks> registeredHooks_;
    // On the owner worker: an APIService per group/version served, synced when kinds come and
    // go (routesChanged). Before customResources_, whose kinds it follows.
    std::unique_ptr<controller::apiregistration::LocalApiServices> localApiServices_;
    // On every worker: serves the established CustomResourceDefinitions; on
    // the owner, their status controllers. After cacher_ and stores_.
    std::unique_ptr<controller::apiextensions::CustomResourceServing> customResources_;
    std::unique_ptr<controller::apiextensions::DefinitionController> definitions_;
    // Finish the PostStartHooks once this worker's caches hold the bootstrap.
    std::unique_ptr<BootstrapSync> rbacSync_;
    std::unique_ptr<BootstrapSync> flowControlSync_;
    util::Turns turns_;
    std::unique_ptr<storage::Compactor> compactor_;
    std::unique_ptr<authz::ClusterRoleAggregator> aggregator_;
    std::unique_ptr<authz::EscalationGuard> escalation_;
    std::shared_ptr<admission::SignerAuthorizer> signers_ =
        std::make_shared<admission::SignerAuthorizer>();
    std::optional<authz::BootstrapSummary> bootstrapSummary_;
    HealthChecks health_;
    // Cleared when the default namespaces exist (PostStartHook
    // bootstrap-controller), and when this worker's caches hold the bootstrap
    // RBAC policy (rbac/bootstrap-roles) and APF configuration
    // (priority-and-fairness-config-producer), after the owner worker wrote
    // them.
    std::function<void()> namespacesCreated_;
    std::function<void()> rbacReconciled_;
    std::function<void()> flowControlBootstrapped_;
    int namespacesPending_ = 0;
    bool started_ = false;
};

}  // namespace kube::server
