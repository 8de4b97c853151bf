#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "registry/store.hpp"
#include "util/event_loop.hpp"

// Keeps an APIService for every group/version this server serves, as kube-aggregator's
// autoregister controller does with what kube-apiserver (apiServicesToRegister) and the crd
// registration controller hand it: named <version>.<group>, no service (local), the group's
// priorities, labelled automanaged ("onstart" for built-in group/versions, "true" for custom
// resources'), with the Available condition kube's availability controller writes for a local
// one (True, Local). Run by one worker per host. Loop thread only.
namespace kube::controller::apiregistration {

// A group/version served.
struct ServedGroupVersion {
    std::string group;
    std::string version;
    bool builtin = true;  // else a custom resource's
};

class LocalApiServices {
  public:
    // `apiServices` is the store of apiregistration.k8s.io/v1 apiservices; `served` lists the
    // group/versions served now. Both outlive this object.
    LocalApiServices(util::EventLoop& loop, registry::Store& apiServices,
                     std::function<std::vector<ServedGroupVersion>()> served);
    ~LocalApiServices();

    LocalApiServices(const LocalApiServices&) = delete;
    LocalApiServices& operator=(const LocalApiServices&) = delete;

    // Brings the APIServices in step with `served` (at start, and whenever a kind comes or goes):
    // creates the missing, corrects the changed, deletes the automanaged ones no longer served.
    // Runs from the loop, after the caller returns; a sync asked for while one runs runs after
    // it. `done` (may be empty) when this one ends.
    void sync(std::function<void()> done = nullptr);

  private:
    void run();
    void markAvailable(const std::string& name, const std::string& now);
    void finish();

    util::EventLoop& loop_;
    registry::Store& store_;
    std::function<std::vector<ServedGroupVersion>()> served_;
    bool running_ = false;
    bool again_ = false;
    int pending_ = 0;
    std::vector<std::function<void()>> waiting_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::controller::apiregistration
