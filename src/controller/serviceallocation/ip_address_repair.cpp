#include "controller/serviceallocation/ip_address_repair.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "util/json.hpp"

namespace kube::controller::serviceallocation {

namespace {

namespace json = util::json;
namespace service = registry::service;

std::string serviceKey(std::string_view ns, std::string_view name) {
    return std::string(ns) + "/" + std::string(name);
}

}  // namespace

ServiceClusterIPs serviceClusterIPs(std::string_view stored) {
    ServiceClusterIPs out;
    json::Document doc;
    if (json::parse(stored, doc) || !doc.IsObject()) {
        return out;
    }
    if (const json::Value* meta = json::member(doc, "metadata"); meta && meta->IsObject()) {
        out.ns = std::string(json::stringMember(*meta, "namespace"));
        out.name = std::string(json::stringMember(*meta, "name"));
    }
    const json::Value* spec = json::member(doc, "spec");
    if (!spec || !spec->IsObject() || json::stringMember(*spec, "type") == "ExternalName") {
        return out;
    }
    // helper.IsServiceIPSet: neither unset nor None.
    const json::Value* ips = json::member(*spec, "clusterIPs");
    if (ips && ips->IsArray()) {
        for (const json::Value& ip : ips->GetArray()) {
            if (ip.IsString() && ip.GetStringLength() > 0 && json::view(ip) != "None") {
                out.ips.emplace_back(json::view(ip));
            }
        }
    } else if (std::string_view ip = json::stringMember(*spec, "clusterIP");
               !ip.empty() && ip != "None") {
        out.ips.emplace_back(ip);
    }
    return out;
}

std::vector<storage::WriteOp> planIPAddressRepair(const service::IpRange& range,
                                                  const std::vector<StoredIPAddress>& ipAddresses,
                                                  const std::vector<ServiceClusterIPs>& services,
                                                  std::chrono::system_clock::time_point now) {
    std::map<std::string, const StoredIPAddress*> byName;
    for (const StoredIPAddress& a : ipAddresses) {
        byName.emplace(a.record.name, &a);
    }
    std::map<std::string, const ServiceClusterIPs*> byService;
    for (const ServiceClusterIPs& s : services) {
        byService.emplace(serviceKey(s.ns, s.name), &s);
    }
    auto holds = [&](std::string_view ns, std::string_view name, const std::string& ip) {
        auto it = byService.find(serviceKey(ns, name));
        if (it == byService.end()) {
            return false;
        }
        const std::vector<std::string>& ips = it->second->ips;
        return std::find(ips.begin(), ips.end(), ip) != ips.end();
    };
    std::vector<storage::WriteOp> ops;
    std::set<std::string> settled;  // addresses the Services' loop decided
    // syncService: each Service's ClusterIPs against their IPAddresses.
    for (const ServiceClusterIPs& svc : services) {
        for (const std::string& text : svc.ips) {
            std::optional<uint32_t> parsed = service::parseIPv4(text);
            if (!parsed || !range.offsetOf(*parsed)) {
                continue;  // out of range, IPv6 or corrupt: kube only reports it
            }
            std::string ip = service::formatIPv4(*parsed);
            if (!settled.insert(ip).second) {
                continue;  // a second holder: the first keeps it
            }
            auto it = byName.find(ip);
            if (it == byName.end()) {
                ops.push_back(service::ipAddressWrite(ip, svc.ns, svc.name, now));
                continue;
            }
            const StoredIPAddress& held = *it->second;
            const service::IPAddressRecord& r = held.record;
            bool rightParent = r.refersTo(svc.ns, svc.name);
            bool otherHolder =
                !rightParent && r.refersToServices() && holds(r.ns, r.parentName, ip);
            if (otherHolder) {
                continue;  // assigned to multiple services: left as it is
            }
            if (!rightParent || !r.labelsMatch) {
                ops.push_back(service::ipAddressWrite(ip, svc.ns, svc.name, now, held.modRevision));
            }
        }
    }
    // syncIPAddress: the allocator's IPAddresses no Service holds.
    for (const StoredIPAddress& a : ipAddresses) {
        const service::IPAddressRecord& r = a.record;
        if (!r.managedByAllocator || settled.count(r.name)) {
            continue;
        }
        if (r.refersToServices() && holds(r.ns, r.parentName, r.name)) {
            continue;
        }
        ops.push_back(service::ipAddressDelete(r.name, a.modRevision));
    }
    return ops;
}

IPAddressRepair::IPAddressRepair(util::EventLoop& loop, storage::Interface& storage,
                                 service::IpRange range, std::string servicesPrefix)
    : loop_(loop),
      storage_(storage),
      range_(std::move(range)),
      servicesPrefix_(std::move(servicesPrefix)) {}

IPAddressRepair::~IPAddressRepair() {
    *alive_ = false;
}

void IPAddressRepair::start(std::function<void(bool)> passDone) {
    passDone_ = std::move(passDone);
    pass();
}

void IPAddressRepair::again(std::chrono::milliseconds delay) {
    timer_ = loop_.startTimer(delay, [this, alive = alive_] {
        if (*alive) {
            pass();
        }
    });
}

void IPAddressRepair::finished(bool written) {
    again(written ? std::chrono::milliseconds(kInterval) : std::chrono::seconds(1));
    if (passDone_) {
        passDone_(written);
    }
}

// A list of `prefix` for the pass: `next` with its items, or the pass ends
// (failed) on an error; nothing once the repair is gone.
void IPAddressRepair::listFor(std::string prefix,
                              std::function<void(const storage::ListResult&)> next) {
    storage::ListOptions opts;
    opts.prefix = std::move(prefix);
    storage_.list(opts, [this, alive = alive_, next = std::move(next)](
                            const storage::Error& err, const storage::ListResult& res) {
        if (!*alive) {
            return;
        }
        if (!err.ok()) {
            finished(false);
            return;
        }
        next(res);
    });
}

// The IPAddresses first, then the Services (see planIPAddressRepair).
void IPAddressRepair::pass() {
    listFor(service::kIPAddressesPrefix, [this](const storage::ListResult& res) {
        auto ipAddresses = std::make_shared<std::vector<StoredIPAddress>>();
        for (const storage::ObjectView& item : res.items) {
            if (std::optional<service::IPAddressRecord> r = service::decodeIPAddress(item.value)) {
                ipAddresses->push_back({std::move(*r), item.modRevision});
            }
        }
        listFor(servicesPrefix_, [this, ipAddresses](const storage::ListResult& res) {
            std::vector<ServiceClusterIPs> services;
            services.reserve(res.items.size());
            for (const storage::ObjectView& item : res.items) {
                services.push_back(serviceClusterIPs(item.value));
            }
            std::vector<storage::WriteOp> ops =
                planIPAddressRepair(range_, *ipAddresses, services, loop_.now());
            if (ops.empty()) {
                finished(true);
                return;
            }
            storage_.write(std::move(ops), [this, alive = alive_](storage::WriteResult&& res) {
                if (*alive) {
                    finished(res.error.ok());
                }
            });
        });
    });
}

}  // namespace kube::controller::serviceallocation
