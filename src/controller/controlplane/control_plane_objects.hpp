#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "controller/events/event_recorder.hpp"
#include "registry/store.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"
#include "util/json.hpp"

// What kube-apiserver keeps in the cluster about itself:
// - the `kubernetes` Service in default (ClusterIP the range's first
//   address, port 443 "https" to the server's port), its Endpoints and its
//   discovery.k8s.io/v1 EndpointSlice naming the advertised address
//   (pkg/controlplane/controller.go, the bootstrap controller, and its
//   endpoint reconciler); on storage several hosts share (etcd), kube's
//   lease endpoint reconciler (pkg/controlplane/reconcilers/lease.go): each
//   pass first puts this server's /registry/masterleases/<ip> (an
//   Endpoints naming the address) under a lease of the TTL, then lists them
//   all, so that the Endpoints and the EndpointSlice name every live API
//   server, sorted, and a stopped one's address leaves once its lease ran
//   out;
// - the default ServiceCIDR `kubernetes`, naming the service range, with a
//   Ready condition (pkg/controlplane/controller/defaultservicecidr): made
//   when missing, its cidrs never changed after, its condition set through
//   the status subresource while it has none (or an Unknown one) and its
//   cidrs are this server's; one naming other cidrs gets a Warning event
//   KubernetesDefaultServiceCIDRInconsistent, once for the worker's life;
// - the server's identity Lease kube-apiserver-<id> in kube-system,
//   renewed every pass (pkg/controlplane/instance.go's
//   start-kube-apiserver-identity-lease-controller);
// - the extension-apiserver-authentication ConfigMap in kube-system with
//   the client CA and the request-header settings, which
//   kube-controller-manager and kube-scheduler read at start
//   (clusterauthenticationtrust.Controller).
//
// Runs on the owner worker of a host: a pass every kInterval (kube's
// endpoint reconciler interval) makes what is missing and puts back what
// was changed, one object after another, through the stores (so a Service
// takes its ClusterIP from the range like any other). Loop thread only.
namespace kube::controller::controlplane {

// kube's --endpoint-reconciler-type: Lease keeps the `kubernetes`
// Endpoints and EndpointSlice; None leaves them alone.
enum class EndpointReconciler { Lease, None };

struct Options {
    std::string clusterIP;  // the range's first address
    // The range as kube prints it ("10.0.0.0/24"), the default ServiceCIDR's
    // one CIDR; "" keeps no default ServiceCIDR.
    std::string serviceCIDR;
    std::string advertiseAddress;
    int securePort = 6443;
    std::string hostname;
    // The lease's name (kube-apiserver-<id>) and this start's holder identity.
    std::string leaseName;
    std::string holderIdentity;
    // The PEM of the client CA (ssl_client_certificate); "" when none.
    std::string clientCA;
    // kube_requestheader_*: set when a request-header CA is configured.
    bool requestHeader = false;
    std::string requestHeaderCA;
    std::vector<std::string> usernameHeaders;
    std::vector<std::string> groupHeaders;
    std::vector<std::string> extraHeaderPrefixes;
    std::vector<std::string> allowedNames;
    EndpointReconciler endpointReconciler = EndpointReconciler::Lease;
    // Lease: the storage several hosts share, where the API servers' leases
    // live; null: the storage is this host's alone (LMDB), whose address is
    // the only one.
    storage::Interface* masterLeases = nullptr;
    // How long a lease outlives its last refresh (kube's 15 s); passes run
    // at most every two thirds of it.
    std::chrono::seconds masterLeaseTtl{15};
};

// The key of the lease of the API server at `ip` (kube's
// /masterleases/<ip> under the storage prefix).
std::string masterLeaseKey(std::string_view ip);

// kube 1.26's identity lease name: "kube-apiserver-" and the lowercase,
// unpadded base32 of the first 16 bytes of the hostname's SHA-256.
std::string identityLeaseName(std::string_view hostname);

class ControlPlaneObjects {
  public:
    static constexpr std::chrono::seconds kInterval{10};
    // The store of a group's resource; null when not served.
    using StoreFor =
        std::function<registry::Store*(std::string_view group, std::string_view resource)>;

    ControlPlaneObjects(util::EventLoop& loop, StoreFor stores, Options options);
    ~ControlPlaneObjects();
    ControlPlaneObjects(const ControlPlaneObjects&) = delete;
    ControlPlaneObjects& operator=(const ControlPlaneObjects&) = delete;

    // The first pass now, the next ones every kInterval.
    void start();
    // The server stops (kube's RemoveEndpoints at shutdown): no more
    // passes, and this server's master lease is deleted from etcd at once
    // rather than left to run out, unless it was rewritten since this
    // server wrote it (a reload's new workers have taken it over). `done`
    // runs when that delete is answered, or at once when there is none.
    void stop(std::function<void()> done);

  private:
    // One object kept: where it lives, and what it must hold. `refresh`
    // brings an object (a bare {"metadata":{"name":...}} when missing) to
    // what it must be and says whether it changed it. With `status` it is
    // written through the status subresource, which never creates: a
    // missing object is left to the Kept before it.
    struct Kept {
        std::string group;
        std::string resource;
        std::string ns;
        std::string name;
        std::function<bool(util::json::Value& obj, bool exists, util::json::Allocator& a)> refresh;
        bool status = false;
        // The field manager of the writes; "" for kube-apiserver.
        std::string manager = {};
    };
    // A pass: the lease first (when kept), then every object.
    void beginPass();
    void keepEndpoints();
    void keepDefaultServiceCIDR();
    void pass(size_t i);
    void keep(const Kept& kept, std::function<void()> next);
    // This server keeps a master lease (shared storage, the lease
    // reconciler).
    bool keepsLease() const;
    // The time between passes.
    std::chrono::milliseconds interval() const;
    // kube's UpdateLease and ListLeases: refreshes this server's lease, then
    // reads every live one into addresses_ (kept when none is listed, as
    // kube refuses to empty the endpoints).
    void refreshLease(std::function<void()> next);
    void writeLease(storage::WriteOp op, std::function<void()> next, int retries);
    void listLeases(std::function<void()> next);
    void removeLease();

    util::EventLoop& loop_;
    StoreFor stores_;
    Options options_;
    std::vector<Kept> kept_;
    // The addresses the Endpoints and the EndpointSlice name, sorted.
    std::vector<std::string> addresses_;
    std::unique_ptr<util::EventLoop::Timer> timer_;
    // The default ServiceCIDR controller's events (kube's
    // kubernetes-service-cidr-controller), and whether the mismatch of its
    // cidrs was told already.
    events::EventRecorder serviceCIDREvents_;
    bool reportedMismatchedCIDRs_ = false;
    // The mod revision of this server's lease as it last wrote it; whether
    // a refresh is in flight; stop()'s callback once stopping.
    storage::Revision leaseRevision_ = 0;
    bool refreshing_ = false;
    bool stopping_ = false;
    std::function<void()> stopped_;
    // Cleared by the destructor: callbacks check it.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::controller::controlplane
