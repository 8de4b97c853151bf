#include "controller/controlplane/control_plane_objects.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <cstdio>

#include "util/time.hpp"

namespace kube::controller::controlplane {

namespace {

namespace json = util::json;

const char* const kManager = "kube-apiserver";
const char* const kServiceCIDRController = "kubernetes-service-cidr-controller";

// Go's %v of a []string: "[a b]".
std::string goStringList(const json::Value* list) {
    std::string out = "[";
    if (list && list->IsArray()) {
        for (rapidjson::SizeType i = 0; i < list->Size(); i++) {
            out += (i ? " " : "") + std::string(json::view((*list)[i]));
        }
    }
    return out + "]";
}

json::Value strings(const std::vector<std::string>& list, json::Allocator& a) {
    json::Value out(rapidjson::kArrayType);
    for (const std::string& s : list) {
        out.PushBack(json::stringValue(s, a), a);
    }
    return out;
}

// Sets member `name` of `obj` to `value` unless it holds that already;
// true when it changed.
bool assign(json::Value& obj, std::string_view name, json::Value value, json::Allocator& a) {
    const json::Value* cur = json::member(obj, name);
    if (cur && *cur == value) {
        return false;
    }
    json::setMember(obj, name, std::move(value), a);
    return true;
}

// The labels of `obj` hold each of `labels`.
bool assignLabels(json::Value& obj,
                  std::initializer_list<std::pair<const char*, std::string>> labels,
                  json::Allocator& a) {
    json::Value& metadata = json::objectMember(obj, "metadata", a);
    json::Value& have = json::objectMember(metadata, "labels", a);
    bool changed = false;
    for (const auto& [k, v] : labels) {
        changed |= assign(have, k, json::stringValue(v, a), a);
    }
    return changed;
}

// metav1.MicroTime's form: RFC 3339 with six fractional digits.
std::string microTime(std::chrono::system_clock::time_point now) {
    std::string text = util::time::formatRFC3339(now);
    auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
        1000000;
    char frac[24];
    std::snprintf(frac, sizeof frac, ".%06lld", static_cast<long long>(micros));
    text.insert(text.size() - 1, frac);
    return text;
}

// Go's json.Marshal of a []string, as kube writes the requestheader-* keys.
std::string jsonStrings(const std::vector<std::string>& list) {
    json::Document doc;
    return json::serialize(strings(list, doc.GetAllocator()));
}

// kube's master lease: an Endpoints whose one subset names the address;
// its generation moves on every refresh, as kube's UpdateLease makes it.
std::string masterLeaseValue(const std::string& ip, int64_t generation) {
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("kind", "Endpoints", a);
    doc.AddMember("apiVersion", "v1", a);
    json::Value metadata(rapidjson::kObjectType);
    metadata.AddMember("generation", generation, a);
    doc.AddMember("metadata", metadata, a);
    json::Value address(rapidjson::kObjectType);
    address.AddMember("ip", json::stringValue(ip, a), a);
    json::Value subset(rapidjson::kObjectType);
    subset.AddMember("addresses", json::Value(rapidjson::kArrayType), a);
    subset["addresses"].PushBack(address, a);
    json::Value subsets(rapidjson::kArrayType);
    subsets.PushBack(subset, a);
    doc.AddMember("subsets", subsets, a);
    return json::serialize(doc);
}

// The address a master lease names (kube's ListLeases: the first address
// of the first subset); empty when it names none.
std::string masterLeaseAddress(std::string_view value) {
    json::Document doc;
    if (json::parse(value, doc) || !doc.IsObject()) {
        return {};
    }
    const json::Value* subsets = json::member(doc, "subsets");
    if (!subsets || !subsets->IsArray() || subsets->Empty() || !(*subsets)[0].IsObject()) {
        return {};
    }
    const json::Value* addresses = json::member((*subsets)[0], "addresses");
    if (!addresses || !addresses->IsArray() || addresses->Empty() || !(*addresses)[0].IsObject()) {
        return {};
    }
    return std::string(json::stringMember((*addresses)[0], "ip"));
}

constexpr std::string_view kMasterLeases = "/registry/masterleases/";

// The Ready condition kube's default ServiceCIDR controller applies, in
// metav1.Condition's field order; its apply sets no reason, which reads "".
json::Value serviceCIDRReady(std::chrono::system_clock::time_point now, json::Allocator& a) {
    json::Value c(rapidjson::kObjectType);
    c.AddMember("type", "Ready", a);
    c.AddMember("status", "True", a);
    c.AddMember("lastTransitionTime", json::stringValue(util::time::formatRFC3339(now), a), a);
    c.AddMember("reason", "", a);
    c.AddMember("message", "Kubernetes default Service CIDR is ready", a);
    return c;
}

}  // namespace

std::string masterLeaseKey(std::string_view ip) {
    return std::string(kMasterLeases) + std::string(ip);
}

std::string identityLeaseName(std::string_view hostname) {
    unsigned char hash[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(hostname.data()), hostname.size(), hash);
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    std::string out = "kube-apiserver-";
    uint32_t buffer = 0;
    int bits = 0;
    for (int i = 0; i < 16; i++) {
        buffer = buffer << 8 | hash[i];
        bits += 8;
        while (bits >= 5) {
            out.push_back(alphabet[(buffer >> (bits - 5)) & 31]);
            bits -= 5;
        }
    }
    if (bits > 0) {
        out.push_back(alphabet[(buffer << (5 - bits)) & 31]);
    }
    return out;
}

ControlPlaneObjects::ControlPlaneObjects(util::EventLoop& loop, StoreFor stores, Options options)
    : loop_(loop),
      stores_(std::move(stores)),
      options_(std::move(options)),
      addresses_{options_.advertiseAddress},
      serviceCIDREvents_(loop, stores_, kServiceCIDRController) {
    // The kubernetes Service: created with the first address; afterwards
    // only its type and ports are put back (CreateOrUpdateMasterServiceIfNeeded).
    kept_.push_back(
        {"", "services", "default", "kubernetes",
         [this](json::Value& obj, bool exists, json::Allocator& a) {
             bool changed = !exists;
             if (!exists) {
                 assignLabels(obj, {{"component", "apiserver"}, {"provider", "kubernetes"}}, a);
             }
             json::Value& spec = json::objectMember(obj, "spec", a);
             json::Value ports(rapidjson::kArrayType);
             json::Value port(rapidjson::kObjectType);
             port.AddMember("name", "https", a);
             port.AddMember("protocol", "TCP", a);
             port.AddMember("port", 443, a);
             port.AddMember("targetPort", options_.securePort, a);
             ports.PushBack(port, a);
             changed |= assign(spec, "ports", std::move(ports), a);
             changed |= assign(spec, "type", json::Value("ClusterIP"), a);
             if (!exists) {
                 spec.AddMember("clusterIP", json::stringValue(options_.clusterIP, a), a);
                 spec.AddMember("sessionAffinity", "None", a);
                 spec.AddMember("ipFamilyPolicy", "SingleStack", a);
             }
             return changed;
         }});
    if (!options_.serviceCIDR.empty()) {
        keepDefaultServiceCIDR();
    }
    if (options_.endpointReconciler == EndpointReconciler::Lease) {
        keepEndpoints();
    }
    kept_.push_back({"coordination.k8s.io", "leases", "kube-system", options_.leaseName,
                     [this](json::Value& obj, bool, json::Allocator& a) {
                         assignLabels(obj,
                                      {{"k8s.io/component", "kube-apiserver"},
                                       {"kubernetes.io/hostname", options_.hostname}},
                                      a);
                         json::Value& spec = json::objectMember(obj, "spec", a);
                         assign(spec, "holderIdentity",
                                json::stringValue(options_.holderIdentity, a), a);
                         assign(spec, "leaseDurationSeconds", json::Value(3600), a);
                         assign(spec, "renewTime", json::stringValue(microTime(loop_.now()), a), a);
                         return true;  // renewed every pass
                     }});
    if (!options_.clientCA.empty() || options_.requestHeader) {
        kept_.push_back(
            {"", "configmaps", "kube-system", "extension-apiserver-authentication",
             [this](json::Value& obj, bool, json::Allocator& a) {
                 json::Value data(rapidjson::kObjectType);
                 if (!options_.clientCA.empty()) {
                     data.AddMember("client-ca-file", json::stringValue(options_.clientCA, a), a);
                 }
                 if (options_.requestHeader) {
                     data.AddMember("requestheader-allowed-names",
                                    json::stringValue(jsonStrings(options_.allowedNames), a), a);
                     data.AddMember("requestheader-client-ca-file",
                                    json::stringValue(options_.requestHeaderCA, a), a);
                     data.AddMember("requestheader-extra-headers-prefix",
                                    json::stringValue(jsonStrings(options_.extraHeaderPrefixes), a),
                                    a);
                     data.AddMember("requestheader-group-headers",
                                    json::stringValue(jsonStrings(options_.groupHeaders), a), a);
                     data.AddMember("requestheader-username-headers",
                                    json::stringValue(jsonStrings(options_.usernameHeaders), a), a);
                 }
                 return assign(obj, "data", std::move(data), a);
             }});
    }
}

// The default ServiceCIDR (kube's defaultservicecidr.Controller): made
// naming the range, then left as it is (kube changes it only from single-
// to dual-stack, which a single IPv4 range never asks); marked Ready through
// its status when it names this server's range and has no Ready condition,
// or an Unknown one. One being deleted, or naming another range, is the
// administrator's to mend, as kube leaves it; the second is told once, by a
// Warning event on it.
void ControlPlaneObjects::keepDefaultServiceCIDR() {
    kept_.push_back({"networking.k8s.io", "servicecidrs", "", "kubernetes",
                     [this](json::Value& obj, bool exists, json::Allocator& a) {
                         if (exists) {
                             return false;
                         }
                         json::Value cidrs(rapidjson::kArrayType);
                         cidrs.PushBack(json::stringValue(options_.serviceCIDR, a), a);
                         json::objectMember(obj, "spec", a).AddMember("cidrs", cidrs, a);
                         return true;
                     }});
    Kept ready{"networking.k8s.io", "servicecidrs", "", "kubernetes",
               [this](json::Value& obj, bool, json::Allocator& a) {
                   const json::Value* cidrs = json::at(obj, {"spec", "cidrs"});
                   bool ours = cidrs && cidrs->IsArray() && cidrs->Size() == 1 &&
                               (*cidrs)[0].IsString() &&
                               json::view((*cidrs)[0]) == options_.serviceCIDR;
                   if (json::at(obj, {"metadata", "deletionTimestamp"})) {
                       return false;
                   }
                   if (!ours) {
                       if (!reportedMismatchedCIDRs_) {
                           reportedMismatchedCIDRs_ = true;
                           serviceCIDREvents_.warning(
                               events::referenceTo(obj, "networking.k8s.io/v1", "ServiceCIDR"),
                               "KubernetesDefaultServiceCIDRInconsistent",
                               "The default ServiceCIDR " + goStringList(cidrs) +
                                   " does not match the controller flag configurations [" +
                                   options_.serviceCIDR + "]");
                       }
                       return false;
                   }
                   json::Value& status = json::objectMember(obj, "status", a);
                   json::Value* conditions = json::member(status, "conditions");
                   if (!conditions || !conditions->IsArray()) {
                       json::setMember(status, "conditions", json::Value(rapidjson::kArrayType), a);
                       conditions = json::member(status, "conditions");
                   }
                   for (json::Value& c : conditions->GetArray()) {
                       if (!c.IsObject() || json::stringMember(c, "type") != "Ready") {
                           continue;
                       }
                       if (json::stringMember(c, "status") != "Unknown") {
                           return false;  // True, or a False someone else set
                       }
                       c = serviceCIDRReady(loop_.now(), a);
                       return true;
                   }
                   conditions->PushBack(serviceCIDRReady(loop_.now(), a), a);
                   return true;
               }};
    ready.status = true;
    ready.manager = kServiceCIDRController;
    kept_.push_back(std::move(ready));
}

// The `kubernetes` Endpoints and EndpointSlice name addresses_ (every live
// API server's, sorted, as kube's RepackSubsets leaves them).
void ControlPlaneObjects::keepEndpoints() {
    kept_.push_back({"", "endpoints", "default", "kubernetes",
                     [this](json::Value& obj, bool, json::Allocator& a) {
                         bool changed = assignLabels(
                             obj, {{"endpointslice.kubernetes.io/skip-mirror", "true"}}, a);
                         json::Value subset(rapidjson::kObjectType);
                         subset.AddMember("addresses", json::Value(rapidjson::kArrayType), a);
                         for (const std::string& ip : addresses_) {
                             json::Value address(rapidjson::kObjectType);
                             address.AddMember("ip", json::stringValue(ip, a), a);
                             subset["addresses"].PushBack(address, a);
                         }
                         json::Value port(rapidjson::kObjectType);
                         port.AddMember("name", "https", a);
                         port.AddMember("port", options_.securePort, a);
                         port.AddMember("protocol", "TCP", a);
                         subset.AddMember("ports", json::Value(rapidjson::kArrayType), a);
                         subset["ports"].PushBack(port, a);
                         json::Value subsets(rapidjson::kArrayType);
                         subsets.PushBack(subset, a);
                         return assign(obj, "subsets", std::move(subsets), a) || changed;
                     }});
    kept_.push_back(
        {"discovery.k8s.io", "endpointslices", "default", "kubernetes",
         [this](json::Value& obj, bool, json::Allocator& a) {
             bool changed = assignLabels(obj, {{"kubernetes.io/service-name", "kubernetes"}}, a);
             changed |= assign(obj, "addressType", json::Value("IPv4"), a);
             json::Value endpoints(rapidjson::kArrayType);
             for (const std::string& ip : addresses_) {
                 json::Value endpoint(rapidjson::kObjectType);
                 endpoint.AddMember("addresses", json::Value(rapidjson::kArrayType), a);
                 endpoint["addresses"].PushBack(json::stringValue(ip, a), a);
                 json::Value conditions(rapidjson::kObjectType);
                 conditions.AddMember("ready", true, a);
                 endpoint.AddMember("conditions", conditions, a);
                 endpoints.PushBack(endpoint, a);
             }
             changed |= assign(obj, "endpoints", std::move(endpoints), a);
             json::Value port(rapidjson::kObjectType);
             port.AddMember("name", "https", a);
             port.AddMember("protocol", "TCP", a);
             port.AddMember("port", options_.securePort, a);
             json::Value ports(rapidjson::kArrayType);
             ports.PushBack(port, a);
             return assign(obj, "ports", std::move(ports), a) || changed;
         }});
}

ControlPlaneObjects::~ControlPlaneObjects() {
    *alive_ = false;
}

void ControlPlaneObjects::start() {
    beginPass();
}

void ControlPlaneObjects::stop(std::function<void()> done) {
    if (stopping_) {
        loop_.post(std::move(done));
        return;
    }
    stopping_ = true;
    stopped_ = std::move(done);
    timer_.reset();
    // a refresh in flight removes the lease once its write is answered
    if (!refreshing_) {
        removeLease();
    }
}

void ControlPlaneObjects::removeLease() {
    if (!keepsLease() || leaseRevision_ == 0) {
        loop_.post(std::move(stopped_));
        return;
    }
    storage::WriteOp op;
    op.type = storage::WriteOp::Type::Delete;
    op.key = masterLeaseKey(options_.advertiseAddress);
    op.expectedModRevision = leaseRevision_;
    std::vector<storage::WriteOp> ops;
    ops.push_back(std::move(op));
    // A conflict: rewritten since (a reload's new workers), left alone.
    options_.masterLeases->write(std::move(ops), [this, alive = alive_](storage::WriteResult&&) {
        if (*alive) {
            leaseRevision_ = 0;
            loop_.post(std::move(stopped_));
        }
    });
}

bool ControlPlaneObjects::keepsLease() const {
    return options_.masterLeases && options_.endpointReconciler == EndpointReconciler::Lease;
}

std::chrono::milliseconds ControlPlaneObjects::interval() const {
    std::chrono::milliseconds every = kInterval;
    if (keepsLease()) {
        every = std::min(every, std::chrono::milliseconds(options_.masterLeaseTtl) * 2 / 3);
    }
    return std::max(every, std::chrono::milliseconds(100));
}

void ControlPlaneObjects::beginPass() {
    if (stopping_) {
        return;
    }
    if (!keepsLease()) {
        pass(0);
        return;
    }
    // kube refreshes its lease whatever happens to the endpoints after.
    refreshLease([this, alive = alive_] {
        if (*alive) {
            pass(0);
        }
    });
}

void ControlPlaneObjects::refreshLease(std::function<void()> next) {
    std::string key = masterLeaseKey(options_.advertiseAddress);
    refreshing_ = true;
    options_.masterLeases->get(key, [this, alive = alive_, key, next](
                                        const storage::Error& err, const storage::ObjectView* cur) {
        if (!*alive) {
            return;
        }
        if (stopping_) {
            refreshing_ = false;
            removeLease();
            return;
        }
        storage::WriteOp op;
        op.key = key;
        op.ttl = options_.masterLeaseTtl;
        int64_t generation = 0;
        if (err.ok() && cur) {
            json::Document doc;
            if (!json::parse(cur->value, doc) && doc.IsObject()) {
                if (const json::Value* g = json::at(doc, {"metadata", "generation"});
                    g && g->IsInt64()) {
                    generation = g->GetInt64();
                }
            }
            op.type = storage::WriteOp::Type::Update;
            op.expectedModRevision = cur->modRevision;
        } else if (err.code == storage::ErrorCode::NotFound) {
            op.type = storage::WriteOp::Type::Create;
        } else {
            refreshing_ = false;
            listLeases(next);
            return;
        }
        op.value = masterLeaseValue(options_.advertiseAddress, generation + 1);
        writeLease(std::move(op), next, 0);
    });
}

// Writes this server's lease as read. What it read may be behind etcd (the
// replica has not seen the last write or delete yet; in a reload, the old
// workers delete what they wrote as they stop): a lease that is gone is
// created, and one written since is overwritten (it is this address's), at
// once rather than at the next pass; twice at most.
void ControlPlaneObjects::writeLease(storage::WriteOp op, std::function<void()> next, int retries) {
    storage::WriteOp again = op;
    std::vector<storage::WriteOp> ops;
    ops.push_back(std::move(op));
    options_.masterLeases->write(std::move(ops),
                                 [this, alive = alive_, next, retries,
                                  again = std::move(again)](storage::WriteResult&& result) mutable {
                                     if (!*alive) {
                                         return;
                                     }
                                     if (result.error.ok() && !result.objects.empty()) {
                                         leaseRevision_ = result.objects[0].modRevision;
                                     }
                                     if (!stopping_ && retries < 2) {
                                         if (result.error.code == storage::ErrorCode::NotFound) {
                                             again.type = storage::WriteOp::Type::Create;
                                             again.expectedModRevision = 0;
                                             writeLease(std::move(again), next, retries + 1);
                                             return;
                                         }
                                         if (result.error.code == storage::ErrorCode::Conflict ||
                                             result.error.code == storage::ErrorCode::KeyExists) {
                                             again.type = storage::WriteOp::Type::Update;
                                             again.expectedModRevision = 0;
                                             writeLease(std::move(again), next, retries + 1);
                                             return;
                                         }
                                     }
                                     refreshing_ = false;
                                     if (stopping_) {
                                         removeLease();
                                         return;
                                     }
                                     listLeases(next);
                                 });
}

void ControlPlaneObjects::listLeases(std::function<void()> next) {
    storage::ListOptions opts;
    opts.prefix = std::string(kMasterLeases);
    options_.masterLeases->list(opts, [this, alive = alive_, next](const storage::Error& err,
                                                                   const storage::ListResult& res) {
        if (!*alive) {
            return;
        }
        std::vector<std::string> live;
        if (err.ok()) {
            for (const storage::ObjectView& item : res.items) {
                if (std::string ip = masterLeaseAddress(item.value); !ip.empty()) {
                    live.push_back(std::move(ip));
                }
            }
        }
        std::sort(live.begin(), live.end());
        live.erase(std::unique(live.begin(), live.end()), live.end());
        // None listed, though this server's was just written: kube refuses
        // to erase the endpoints on that.
        if (!live.empty()) {
            addresses_ = std::move(live);
        }
        loop_.post(next);
    });
}

void ControlPlaneObjects::pass(size_t i) {
    if (stopping_) {
        return;
    }
    if (i == kept_.size()) {
        timer_ = loop_.startTimer(interval(), [this, alive = alive_] {
            if (*alive) {
                beginPass();
            }
        });
        return;
    }
    keep(kept_[i], [this, i, alive = alive_] {
        if (*alive) {
            pass(i + 1);
        }
    });
}

// Reads the object and creates or updates it when its refresh changed it;
// a failure (a namespace not there yet, a conflict) waits for the next pass.
void ControlPlaneObjects::keep(const Kept& kept, std::function<void()> next) {
    registry::Store* store = stores_(kept.group, kept.resource);
    if (!store) {
        next();
        return;
    }
    store->get(kept.ns, kept.name,
               [this, store, &kept, next](const meta::Status* err, std::string_view bytes) {
                   auto doc = std::make_shared<json::Document>(rapidjson::kObjectType);
                   auto& a = doc->GetAllocator();
                   bool exists = !err;
                   if ((err && err->code != 404) || (!exists && kept.status)) {
                       loop_.post(next);
                       return;
                   }
                   if (exists && (json::parse(bytes, *doc) || !doc->IsObject())) {
                       loop_.post(next);
                       return;
                   }
                   if (!exists) {
                       json::Value metadata(rapidjson::kObjectType);
                       metadata.AddMember("name", json::stringValue(kept.name, a), a);
                       doc->AddMember("metadata", metadata, a);
                   }
                   if (!kept.refresh(*doc, exists, a)) {
                       loop_.post(next);
                       return;
                   }
                   auto done = [this, next](const meta::Status*, std::string_view) {
                       loop_.post(next);
                   };
                   std::string manager = kept.manager.empty() ? kManager : kept.manager;
                   if (exists) {
                       registry::UpdateOptions opts;
                       opts.status = kept.status;
                       opts.manager = manager;
                       store->update(kept.ns, kept.name, doc, opts, done);
                   } else {
                       registry::CreateOptions opts;
                       opts.manager = manager;
                       store->create(kept.ns, doc, opts, done);
                   }
               });
}

}  // namespace kube::controller::controlplane
