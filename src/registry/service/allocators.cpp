#include "registry/service/allocators.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <variant>

#include "registry/validation.hpp"
#include "util/base64.hpp"
#include "util/time.hpp"

namespace kube::registry::service {

namespace {

namespace json = util::json;
namespace field = validation::field;
using validation::BadValue;

const meta::GroupKind kServiceKind{"", "Service"};

// Go's %#v of the service's clusterIPs.
BadValue goStrings(const json::Value* list) {
    if (!list || !list->IsArray()) {
        return BadValue::raw("[]string(nil)");
    }
    std::string out = "[]string{";
    for (rapidjson::SizeType i = 0; i < list->Size(); i++) {
        out += (i ? ", " : "") + validation::goQuote(json::view((*list)[i]));
    }
    return BadValue::raw(out + "}");
}

std::string_view typeOf(const json::Value& spec) {
    std::string_view t = json::stringMember(spec, "type");
    return t.empty() ? "ClusterIP" : t;
}

bool needsNodePorts(std::string_view type) {
    return type == "NodePort" || type == "LoadBalancer";
}

// apiservice.NeedsHealthCheck.
bool needsHealthCheck(const json::Value& spec) {
    return typeOf(spec) == "LoadBalancer" &&
           json::stringMember(spec, "externalTrafficPolicy") == "Local";
}

// shouldAllocateNodePorts: NodePort always, LoadBalancer unless
// allocateLoadBalancerNodePorts is false.
bool shouldAllocateNodePorts(const json::Value& spec) {
    std::string_view type = typeOf(spec);
    if (type == "NodePort") {
        return true;
    }
    const json::Value* allocate = json::member(spec, "allocateLoadBalancerNodePorts");
    return type == "LoadBalancer" && !(allocate && allocate->IsBool() && !allocate->GetBool());
}

int64_t intMember(const json::Value& v, std::string_view name) {
    const json::Value* m = json::member(v, name);
    return m && m->IsInt64() ? m->GetInt64() : 0;
}

json::Value* portsOf(json::Value& spec) {
    json::Value* ports = json::member(spec, "ports");
    return ports && ports->IsArray() ? ports : nullptr;
}

// collectServiceNodePorts: every port's nodePort (and the health check
// node port when the service has one).
std::vector<int> nodePortsOf(const json::Value& spec, bool withHealthCheck) {
    std::vector<int> out;
    const json::Value* ports = json::member(spec, "ports");
    if (ports && ports->IsArray()) {
        for (const json::Value& p : ports->GetArray()) {
            if (int64_t n = intMember(p, "nodePort"); n > 0 && n <= 65535) {
                out.push_back(static_cast<int>(n));
            }
        }
    }
    if (int64_t hc = intMember(spec, "healthCheckNodePort"); withHealthCheck && hc > 0) {
        out.push_back(static_cast<int>(hc));
    }
    return out;
}

std::string_view firstClusterIP(const json::Value& spec) {
    const json::Value* ips = json::member(spec, "clusterIPs");
    if (ips && ips->IsArray() && !ips->Empty() && (*ips)[0].IsString()) {
        return json::view((*ips)[0]);
    }
    return json::stringMember(spec, "clusterIP");
}

bool isIPv6Text(std::string_view ip) {
    return ip.find(':') != std::string_view::npos;
}

// net.ParseIP's acceptance, enough to tell a valid IPv6 literal from junk.
bool isIPText(std::string_view ip) {
    if (parseIPv4(ip)) {
        return true;
    }
    if (!isIPv6Text(ip) || ip.size() > 45) {
        return false;
    }
    unsigned char buf[16];
    std::string text(ip);
    return inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

// The dual-stack fields of a single-stack IPv4 cluster; mirrors
// initIPFamilyFields with ValidateServiceClusterIPsRelatedFields' checks.
std::optional<meta::Status> initIPFamilyFields(std::string_view name, json::Value& spec,
                                               const json::Value* oldSpec, json::Allocator& a) {
    if (typeOf(spec) == "ExternalName") {
        return std::nullopt;
    }
    std::string_view clusterIP = json::stringMember(spec, "clusterIP");
    const json::Value* selector = json::member(spec, "selector");
    bool selectorless = !selector || !selector->IsObject() || selector->ObjectEmpty();
    if (!json::member(spec, "ipFamilyPolicy") || json::member(spec, "ipFamilyPolicy")->IsNull()) {
        std::string_view oldPolicy = oldSpec ? json::stringMember(*oldSpec, "ipFamilyPolicy") : "";
        std::string_view policy = !oldPolicy.empty()                          ? oldPolicy
                                  : clusterIP == "None" && selectorless ? "RequireDualStack"
                                                                        : "SingleStack";
        json::setMember(spec, "ipFamilyPolicy", json::stringValue(policy, a), a);
    }
    std::string policy(json::stringMember(spec, "ipFamilyPolicy"));
    const json::Value* ips = json::member(spec, "clusterIPs");
    size_t nips = ips && ips->IsArray() ? ips->Size() : 0;
    std::vector<meta::StatusCause> causes;
    // ValidateServiceClusterIPsRelatedFields, the parts a single-stack
    // cluster meets.
    if (nips > 0 && clusterIP.empty()) {
        causes.push_back(field::invalid("spec.clusterIPs", goStrings(ips),
                                        "must be empty when `clusterIP` is not specified"));
    } else if (nips > 0 && json::view((*ips)[0]) != clusterIP) {
        causes.push_back(
            field::invalid("spec.clusterIPs", goStrings(ips), "first value must match `clusterIP`"));
    }
    if (nips > 2) {
        causes.push_back(field::invalid("spec.clusterIPs", goStrings(ips),
                                        "may only hold up to 2 values"));
    }
    for (size_t i = 0; i < nips; i++) {
        std::string_view ip = json::view((*ips)[static_cast<rapidjson::SizeType>(i)]);
        if (ip == "None" && i == 0 && nips == 1) {
            continue;
        }
        if (!isIPText(ip)) {
            causes.push_back(field::invalid(field::index("spec.clusterIPs", i), ip,
                                            "must be a valid IP address, (e.g. 10.9.8.7 or "
                                            "2001:db8::ffff)"));
        }
    }
    if (nips == 2 && isIPText(json::view((*ips)[0])) && isIPText(json::view((*ips)[1])) &&
        isIPv6Text(json::view((*ips)[0])) == isIPv6Text(json::view((*ips)[1]))) {
        causes.push_back(field::invalid("spec.clusterIPs", goStrings(ips),
                                        "may specify no more than one IP for each IP family"));
    }
    if (policy != "SingleStack" && policy != "PreferDualStack" && policy != "RequireDualStack") {
        causes.push_back(field::notSupported("spec.ipFamilyPolicy", policy,
                                             {"PreferDualStack", "RequireDualStack",
                                              "SingleStack"}));
    }
    json::Value* families = json::member(spec, "ipFamilies");
    if (families && !families->IsArray()) {
        families = nullptr;
    }
    std::set<std::string> seen;
    for (size_t i = 0; families && i < families->Size(); i++) {
        std::string_view fam = json::view((*families)[static_cast<rapidjson::SizeType>(i)]);
        if (fam != "IPv4" && fam != "IPv6") {
            causes.push_back(field::notSupported(field::index("spec.ipFamilies", i), fam,
                                                 {"IPv4", "IPv6"}));
        } else if (!seen.insert(std::string(fam)).second) {
            causes.push_back(field::duplicate(field::index("spec.ipFamilies", i), fam));
        }
    }
    if (!causes.empty()) {
        return meta::Status::invalid(kServiceKind, name, std::move(causes));
    }
    BadValue policyValue(policy);
    if (policy == "SingleStack") {
        if (nips == 2) {
            causes.push_back(field::invalid("spec.ipFamilyPolicy", policyValue,
                                            "must be 'RequireDualStack' or 'PreferDualStack' "
                                            "when multiple cluster IPs are specified"));
        }
        if (families && families->Size() == 2) {
            causes.push_back(field::invalid("spec.ipFamilyPolicy", policyValue,
                                            "must be 'RequireDualStack' or 'PreferDualStack' "
                                            "when multiple IP families are specified"));
        }
    }
    // Families inferred from the requested IPs.
    for (size_t i = 0; i < nips; i++) {
        std::string_view ip = json::view((*ips)[static_cast<rapidjson::SizeType>(i)]);
        if (ip == "None") {
            break;
        }
        if (families && i < families->Size()) {
            continue;
        }
        if (isIPv6Text(ip)) {
            causes.push_back(field::invalid(field::index("spec.clusterIPs", i), goStrings(ips),
                                            "IPv6 is not configured on this cluster"));
            continue;
        }
        if (!families) {
            json::setMember(spec, "ipFamilies", json::Value(rapidjson::kArrayType), a);
            families = json::member(spec, "ipFamilies");
        }
        families->PushBack("IPv4", a);
    }
    if (!causes.empty()) {
        return meta::Status::invalid(kServiceKind, name, std::move(causes));
    }
    if (!families) {
        json::setMember(spec, "ipFamilies", json::Value(rapidjson::kArrayType), a);
        families = json::member(spec, "ipFamilies");
    }
    // Headless and selectorless: both families may be asked for.
    if (clusterIP == "None" && selectorless) {
        if (families->Empty()) {
            families->PushBack("IPv4", a);
        }
        if (families->Size() < 2 && policy != "SingleStack") {
            families->PushBack(json::view((*families)[0]) == "IPv4" ? "IPv6" : "IPv4", a);
        }
        return std::nullopt;
    }
    if (policy == "RequireDualStack") {
        causes.push_back(field::invalid("spec.ipFamilyPolicy", policyValue,
                                        "this cluster is not configured for dual-stack services"));
    }
    for (size_t i = 0; i < families->Size(); i++) {
        std::string_view fam = json::view((*families)[static_cast<rapidjson::SizeType>(i)]);
        if (fam != "IPv4") {
            causes.push_back(field::invalid(field::index("spec.ipFamilies", i), fam,
                                            "not configured on this cluster"));
        }
    }
    if (!causes.empty()) {
        return meta::Status::invalid(kServiceKind, name, std::move(causes));
    }
    if (families->Empty()) {
        families->PushBack("IPv4", a);
    }
    return std::nullopt;
}

// patchAllocatedValues' node ports: an update that leaves a node port (or
// the health check node port) out keeps the one allocated.
void keepAllocatedNodePorts(json::Value& spec, const json::Value& oldSpec, json::Allocator& a) {
    if (needsHealthCheck(spec) && needsHealthCheck(oldSpec) &&
        intMember(spec, "healthCheckNodePort") == 0 &&
        intMember(oldSpec, "healthCheckNodePort") != 0) {
        json::setMember(spec, "healthCheckNodePort",
                        json::Value(intMember(oldSpec, "healthCheckNodePort")), a);
    }
    if (!needsNodePorts(typeOf(spec)) || !needsNodePorts(typeOf(oldSpec))) {
        return;
    }
    std::vector<int> oldPorts = nodePortsOf(oldSpec, false);
    std::vector<int> newPorts = nodePortsOf(spec, false);
    std::map<std::string, int64_t> byName;
    const json::Value* old = json::member(oldSpec, "ports");
    if (old && old->IsArray()) {
        for (const json::Value& p : old->GetArray()) {
            byName[std::string(json::stringMember(p, "name"))] = intMember(p, "nodePort");
        }
    }
    if (json::Value* ports = portsOf(spec)) {
        for (json::Value& p : ports->GetArray()) {
            if (intMember(p, "nodePort") != 0) {
                continue;
            }
            auto it = byName.find(std::string(json::stringMember(p, "name")));
            if (it == byName.end() || it->second == 0) {
                continue;
            }
            int n = static_cast<int>(it->second);
            bool used = std::count(oldPorts.begin(), oldPorts.end(), n) &&
                        std::count(newPorts.begin(), newPorts.end(), n);
            if (!used) {
                json::setMember(p, "nodePort", json::Value(it->second), a);
            }
        }
    }
}

}  // namespace

// Both ranges as read for one plan, and what the plan did to them.
struct ServiceAllocators::Ranges {
    struct One {
        std::string key;
        bool exists = false;
        // The stored range is another than the configured one: nothing is
        // allocated from it until the repair rewrites it.
        bool stale = false;
        bool changed = false;
        storage::Revision revision = 0;
        std::string created;
        AllocationBitmap bits;
    };
    One ips;
    One ports;
    // For the IPAddresses: the ClusterIPs taken, each with the spec it was
    // written to; those given back; every offset picked at random.
    std::shared_ptr<std::vector<ClusterIPClaim>> claims =
        std::make_shared<std::vector<ClusterIPClaim>>();
    std::vector<std::pair<json::Value*, json::Allocator*>> claimSpecs = {};
    std::vector<ClusterIPRelease> releases = {};
    std::vector<int> picked = {};
};

namespace {

void readOne(const storage::Error& err, const storage::ObjectView* obj, std::string_view spec,
             auto& one) {
    if (!err.ok() || !obj) {
        return;
    }
    one.exists = true;
    one.revision = obj->modRevision;
    std::string range;
    std::string data;
    if (!decodeRangeAllocation(obj->value, range, data) || range != spec) {
        one.stale = true;
        return;
    }
    json::Document doc;
    if (!json::parse(obj->value, doc)) {
        if (const json::Value* ts = json::at(doc, {"metadata", "creationTimestamp"})) {
            one.created = std::string(json::view(*ts));
        }
    }
    one.bits.restore(data);
}

// The ErrNotInRange / ErrAllocated words of the two allocators.
std::string ipError(const IpRange& r, std::string_view ip, bool inRange) {
    if (!inRange) {
        return "failed to allocate IP " + std::string(ip) + ": the provided IP (" +
               std::string(ip) + ") is not in the valid range. The range of valid IPs is " + r.spec;
    }
    return "failed to allocate IP " + std::string(ip) + ": provided IP is already allocated";
}

// The ClusterIP taken, in both fields (allocClusterIP's set).
void setClusterIP(json::Value& spec, std::string_view ip, json::Allocator& a) {
    json::setMember(spec, "clusterIP", json::stringValue(ip, a), a);
    json::Value list(rapidjson::kArrayType);
    list.PushBack(json::stringValue(ip, a), a);
    json::setMember(spec, "clusterIPs", std::move(list), a);
}

std::string portError(const PortRange& r, bool inRange) {
    if (!inRange) {
        return "provided port is not in the valid range. The range of valid ports is " + r.spec;
    }
    return "provided port is already allocated";
}

}  // namespace

ServiceAllocators::ServiceAllocators(storage::Interface& storage, IpRange ips, PortRange nodePorts)
    : storage_(storage),
      ips_(std::move(ips)),
      nodePorts_(std::move(nodePorts)),
      random_(std::random_device{}()) {}

void ServiceAllocators::plan(const std::vector<Store::CompanionChange>& changes, bool dryRun,
                             Store::CompanionDone done) {
    auto ranges = std::make_shared<Ranges>(Ranges{
        {kServiceIPsKey, false, false, false, 0, {}, AllocationBitmap(ips_.max, ips_.staticBand)},
        {kNodePortsKey, false, false, false, 0, {}, AllocationBitmap(nodePorts_.size)}});
    storage_.get(kServiceIPsKey, [this, ranges, changes, dryRun, done = std::move(done)](
                                     const storage::Error& err, const storage::ObjectView* obj) {
        if (!err.ok() && err.code != storage::ErrorCode::NotFound) {
            meta::Status s = meta::Status::internalError(err.message);
            done(&s, {});
            return;
        }
        readOne(err, obj, ips_.spec, ranges->ips);
        storage_.get(kNodePortsKey, [this, ranges, changes, dryRun, done](
                                        const storage::Error& err, const storage::ObjectView* obj) {
            if (!err.ok() && err.code != storage::ErrorCode::NotFound) {
                meta::Status s = meta::Status::internalError(err.message);
                done(&s, {});
                return;
            }
            readOne(err, obj, nodePorts_.spec, ranges->ports);
            for (const Store::CompanionChange& c : changes) {
                std::optional<meta::Status> failed;
                if (c.obj && !c.old) {
                    failed = allocate(*ranges, *c.obj, nullptr, *c.allocator);
                } else if (c.obj) {
                    failed = allocate(*ranges, *c.obj, c.old, *c.allocator);
                } else if (c.old) {
                    release(*ranges, *c.old);
                }
                if (failed) {
                    done(&*failed, {});
                    return;
                }
            }
            auto pickAnother = [this, ranges]() -> std::optional<std::string> {
                std::optional<int> offset = ranges->ips.bits.allocateNext(random_);
                if (!offset) {
                    return std::nullopt;
                }
                ranges->picked.push_back(*offset);
                return formatIPv4(ips_.ipAt(*offset));
            };
            planIPAddresses(
                storage_, ranges->claims, ranges->releases, std::move(pickAnother),
                std::chrono::system_clock::now(),
                [this, ranges, dryRun, done](const storage::Error& err, IPAddressPlan ipPlan) {
                    if (!err.ok()) {
                        meta::Status s = meta::Status::internalError(err.message);
                        done(&s, {});
                        return;
                    }
                    finishPlan(ranges, dryRun, std::move(ipPlan), done);
                });
        });
    });
}

// The IPAddresses' verdict, then the writes: the IPAddresses' first, the
// ranges' after them.
void ServiceAllocators::finishPlan(std::shared_ptr<Ranges> ranges, bool dryRun,
                                   IPAddressPlan ipPlan, const Store::CompanionDone& done) {
    std::vector<ClusterIPClaim>& claims = *ranges->claims;
    if (ipPlan.taken) {
        const ClusterIPClaim& claim = claims[*ipPlan.taken];
        const json::Value* spec = ranges->claimSpecs[*ipPlan.taken].first;
        meta::Status s = meta::Status::invalid(
            kServiceKind, claim.name,
            {field::invalid("spec.clusterIPs", goStrings(json::member(*spec, "clusterIPs")),
                            ipError(ips_, claim.ip, true))});
        done(&s, {});
        return;
    }
    if (ipPlan.full) {
        meta::Status s =
            meta::Status::internalError("failed to allocate a serviceIP: range is full");
        done(&s, {});
        return;
    }
    // Random picks moved off an address held by an IPAddress: the spec
    // gets the one finally taken, the bitmap drops the others.
    std::set<std::string> taken;
    for (size_t i = 0; i < claims.size(); i++) {
        taken.insert(claims[i].ip);
        auto [spec, a] = ranges->claimSpecs[i];
        if (json::stringMember(*spec, "clusterIP") != claims[i].ip) {
            setClusterIP(*spec, claims[i].ip, *a);
        }
    }
    for (int offset : ranges->picked) {
        if (!taken.count(formatIPv4(ips_.ipAt(offset)))) {
            ranges->ips.bits.release(offset);
        }
    }
    if (dryRun) {
        done(nullptr, {});
        return;
    }
    std::vector<storage::WriteOp> ops = std::move(ipPlan.ops);
    std::string now = util::time::formatRFC3339(std::chrono::system_clock::now());
    for (Ranges::One* one : {&ranges->ips, &ranges->ports}) {
        if (!one->changed) {
            continue;
        }
        storage::WriteOp op;
        op.type = one->exists ? storage::WriteOp::Type::Update : storage::WriteOp::Type::Create;
        op.key = one->key;
        op.expectedModRevision = one->revision;
        op.value =
            encodeRangeAllocation(one == &ranges->ips ? ips_.spec : nodePorts_.spec,
                                  one->bits.snapshot(), one->created.empty() ? now : one->created);
        ops.push_back(std::move(op));
    }
    done(nullptr, std::move(ops));
}

// allocateCreate / allocateUpdate: the IP family fields, the ClusterIP,
// then the node ports; the first failure fails the whole change (the
// ranges' changes are dropped with the plan).
std::optional<meta::Status> ServiceAllocators::allocate(Ranges& ranges, json::Value& obj,
                                                        const json::Value* old,
                                                        json::Allocator& a) {
    json::Value* specp = json::member(obj, "spec");
    if (!specp || !specp->IsObject()) {
        return std::nullopt;  // validation refused it already
    }
    json::Value& spec = *specp;
    std::string name(json::stringMember(obj["metadata"], "name"));
    std::string ns(json::stringMember(obj["metadata"], "namespace"));
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* oldSpecp = old ? json::member(*old, "spec") : nullptr;
    const json::Value& oldSpec = oldSpecp && oldSpecp->IsObject() ? *oldSpecp : empty;
    if (old) {
        keepAllocatedNodePorts(spec, oldSpec, a);
    }
    if (auto bad = initIPFamilyFields(name, spec, old ? &oldSpec : nullptr, a)) {
        return bad;
    }
    std::string_view type = typeOf(spec);
    std::string_view oldType = old ? typeOf(oldSpec) : "ExternalName";
    // ClusterIPs: a new service, or one that stops being an ExternalName,
    // gets one; one that becomes an ExternalName gives its back.
    if (type != "ExternalName" && oldType == "ExternalName") {
        if (auto bad = allocateClusterIP(ranges, ns, name, spec, a)) {
            return bad;
        }
    } else if (type == "ExternalName" && oldType != "ExternalName") {
        releaseClusterIP(ranges, *old, oldSpec);
    }
    return allocateNodePorts(ranges, name, spec, old ? &oldSpec : nullptr, a);
}

std::optional<meta::Status> ServiceAllocators::allocateClusterIP(Ranges& ranges,
                                                                 std::string_view ns,
                                                                 std::string_view name,
                                                                 json::Value& spec,
                                                                 json::Allocator& a) {
    std::string requested(firstClusterIP(spec));
    if (requested == "None") {
        return std::nullopt;  // headless
    }
    Ranges::One& r = ranges.ips;
    if (r.stale) {
        return meta::Status::internalError(
            "cannot allocate resources of type serviceipallocations at this time");
    }
    std::string ip;
    if (requested.empty()) {
        std::optional<int> offset = r.bits.allocateNext(random_);
        if (!offset) {
            return meta::Status::internalError("failed to allocate a serviceIP: range is full");
        }
        ranges.picked.push_back(*offset);
        ip = formatIPv4(ips_.ipAt(*offset));
    } else {
        std::optional<uint32_t> parsed = parseIPv4(requested);
        std::optional<int> offset = parsed ? ips_.offsetOf(*parsed) : std::nullopt;
        if (!offset || !r.bits.allocate(*offset)) {
            return meta::Status::invalid(
                kServiceKind, name,
                {field::invalid("spec.clusterIPs", goStrings(json::member(spec, "clusterIPs")),
                                ipError(ips_, requested, offset.has_value()))});
        }
        ip = requested;
    }
    r.changed = true;
    setClusterIP(spec, ip, a);
    ranges.claims->push_back({ip, std::string(ns), std::string(name), !requested.empty()});
    ranges.claimSpecs.emplace_back(&spec, &a);
    return std::nullopt;
}

void ServiceAllocators::releaseClusterIP(Ranges& ranges, const json::Value& old,
                                         const json::Value& spec) {
    std::optional<uint32_t> ip = parseIPv4(firstClusterIP(spec));
    if (ip) {
        const json::Value* meta = json::member(old, "metadata");
        ranges.releases.push_back({formatIPv4(*ip),
                                   std::string(meta ? json::stringMember(*meta, "namespace") : ""),
                                   std::string(meta ? json::stringMember(*meta, "name") : "")});
    }
    std::optional<int> offset = ip ? ips_.offsetOf(*ip) : std::nullopt;
    if (offset && !ranges.ips.stale && ranges.ips.bits.has(*offset)) {
        ranges.ips.bits.release(*offset);
        ranges.ips.changed = true;
    }
}

void ServiceAllocators::releasePort(Ranges& ranges, int port) {
    if (nodePorts_.contains(port) && !ranges.ports.stale &&
        ranges.ports.bits.has(port - nodePorts_.base)) {
        ranges.ports.bits.release(port - nodePorts_.base);
        ranges.ports.changed = true;
    }
}

// initNodePorts / updateNodePorts / the health check node port: requested
// ports are taken (ports of the same number share one), missing ones
// allocated, and the old service's ports the new one no longer has released.
std::optional<meta::Status> ServiceAllocators::allocateNodePorts(Ranges& ranges,
                                                                 std::string_view name,
                                                                 json::Value& spec,
                                                                 const json::Value* oldSpec,
                                                                 json::Allocator& a) {
    Ranges::One& r = ranges.ports;
    std::vector<int> held = oldSpec && needsNodePorts(typeOf(*oldSpec))
                                ? nodePortsOf(*oldSpec, false)
                                : std::vector<int>{};
    std::vector<int> kept;
    auto take = [&](int port, const std::string& path) -> std::optional<meta::Status> {
        if (std::count(held.begin(), held.end(), port) ||
            std::count(kept.begin(), kept.end(), port)) {
            kept.push_back(port);
            return std::nullopt;
        }
        bool inRange = nodePorts_.contains(port);
        if (r.stale) {
            return meta::Status::internalError(
                "cannot allocate resources of type servicenodeportallocations at this time");
        }
        if (!inRange || !r.bits.allocate(port - nodePorts_.base)) {
            return meta::Status::invalid(
                kServiceKind, name, {field::invalid(path, port, portError(nodePorts_, inRange))});
        }
        r.changed = true;
        kept.push_back(port);
        return std::nullopt;
    };
    auto next = [&](std::string_view what) -> std::variant<int, meta::Status> {
        if (r.stale) {
            return meta::Status::internalError(
                "cannot allocate resources of type servicenodeportallocations at this time");
        }
        std::optional<int> offset = r.bits.allocateNext(random_);
        if (!offset) {
            return meta::Status::internalError(std::string(what) + ": range is full");
        }
        r.changed = true;
        kept.push_back(nodePorts_.base + *offset);
        return nodePorts_.base + *offset;
    };
    if (needsNodePorts(typeOf(spec))) {
        json::Value* ports = portsOf(spec);
        std::map<int64_t, int64_t> byServicePort;  // svcPortToNodePort
        bool allocateMissing = shouldAllocateNodePorts(spec);
        for (rapidjson::SizeType i = 0; ports && i < ports->Size(); i++) {
            json::Value& p = (*ports)[i];
            int64_t nodePort = intMember(p, "nodePort");
            int64_t servicePort = intMember(p, "port");
            std::string path = field::child(field::index("spec.ports", i), "nodePort");
            if (nodePort == 0 && !allocateMissing) {
                continue;
            }
            if (nodePort == 0) {
                // A port number another port already has a node port for shares it.
                if (auto it = byServicePort.find(servicePort); it != byServicePort.end()) {
                    json::setMember(p, "nodePort", json::Value(it->second), a);
                    continue;
                }
                // Or one a later port of the same number asks for.
                for (rapidjson::SizeType j = i + 1; j < ports->Size() && nodePort == 0; j++) {
                    if (intMember((*ports)[j], "port") == servicePort) {
                        nodePort = intMember((*ports)[j], "nodePort");
                    }
                }
                if (nodePort == 0) {
                    auto got = next("failed to allocate a nodePort");
                    if (auto* s = std::get_if<meta::Status>(&got)) {
                        return *s;
                    }
                    nodePort = std::get<int>(got);
                } else if (auto bad = take(static_cast<int>(nodePort), path)) {
                    return bad;
                }
                json::setMember(p, "nodePort", json::Value(nodePort), a);
            } else if (auto bad = take(static_cast<int>(nodePort), path)) {
                return bad;
            }
            byServicePort.emplace(servicePort, nodePort);
        }
    }
    int64_t oldHealth =
        oldSpec && needsHealthCheck(*oldSpec) ? intMember(*oldSpec, "healthCheckNodePort") : 0;
    if (needsHealthCheck(spec)) {
        int64_t hc = intMember(spec, "healthCheckNodePort");
        if (hc != 0 && hc != oldHealth) {
            if (auto bad = take(static_cast<int>(hc), "spec.healthCheckNodePort")) {
                if (bad->code == 422) {
                    return meta::Status::internalError(
                        "failed to allocate requested HealthCheck NodePort " + std::to_string(hc) +
                        ": " + portError(nodePorts_, nodePorts_.contains(static_cast<int>(hc))));
                }
                return bad;
            }
        } else if (hc == 0) {
            auto got = next("failed to allocate a HealthCheck NodePort 0");
            if (auto* s = std::get_if<meta::Status>(&got)) {
                return *s;
            }
            json::setMember(spec, "healthCheckNodePort", json::Value(std::get<int>(got)), a);
        } else {
            kept.push_back(static_cast<int>(hc));
        }
    }
    if (oldSpec) {
        std::vector<int> was = held;
        if (oldHealth) {
            was.push_back(static_cast<int>(oldHealth));
        }
        for (int port : was) {
            if (!std::count(kept.begin(), kept.end(), port)) {
                releasePort(ranges, port);
            }
        }
    }
    return std::nullopt;
}

// What a deleted service held goes back to the ranges.
void ServiceAllocators::release(Ranges& ranges, const json::Value& old) {
    const json::Value* spec = json::member(old, "spec");
    if (!spec || !spec->IsObject()) {
        return;
    }
    if (typeOf(*spec) != "ExternalName") {
        releaseClusterIP(ranges, old, *spec);
    }
    for (int port : nodePortsOf(*spec, needsHealthCheck(*spec))) {
        releasePort(ranges, port);
    }
}

void ServiceAllocators::readRanges(std::function<void(const storage::Error&, Snapshot)> done) {
    storage_.get(kServiceIPsKey, [this, done = std::move(done)](const storage::Error& err,
                                                                const storage::ObjectView* obj) {
        if (!err.ok() && err.code != storage::ErrorCode::NotFound) {
            done(err, {});
            return;
        }
        Snapshot snap;
        if (obj) {
            snap.ipsRevision = obj->modRevision;
            snap.ipsValue = std::string(obj->value);
        }
        storage_.get(kNodePortsKey, [snap, done](const storage::Error& err,
                                                 const storage::ObjectView* obj) mutable {
            if (!err.ok() && err.code != storage::ErrorCode::NotFound) {
                done(err, {});
                return;
            }
            if (obj) {
                snap.portsRevision = obj->modRevision;
                snap.portsValue = std::string(obj->value);
            }
            done(storage::Error{}, snap);
        });
    });
}

void ServiceAllocators::repair(const Snapshot& snapshot, const std::vector<std::string>& services,
                               std::function<void(bool written)> done) {
    AllocationBitmap ips(ips_.max, ips_.staticBand);
    AllocationBitmap ports(nodePorts_.size);
    for (const std::string& bytes : services) {
        json::Document doc;
        if (json::parse(bytes, doc) || !doc.IsObject()) {
            continue;
        }
        const json::Value* spec = json::member(doc, "spec");
        if (!spec || !spec->IsObject()) {
            continue;
        }
        if (typeOf(*spec) != "ExternalName") {
            std::optional<uint32_t> ip = parseIPv4(firstClusterIP(*spec));
            if (std::optional<int> offset = ip ? ips_.offsetOf(*ip) : std::nullopt) {
                ips.allocate(*offset);
            }
        }
        for (int port : nodePortsOf(*spec, needsHealthCheck(*spec))) {
            if (nodePorts_.contains(port)) {
                ports.allocate(port - nodePorts_.base);
            }
        }
    }
    std::string now = util::time::formatRFC3339(std::chrono::system_clock::now());
    std::vector<storage::WriteOp> ops;
    auto add = [&](const char* key, storage::Revision revision, const std::string& stored,
                   const std::string& spec, const AllocationBitmap& bits) {
        std::string range;
        std::string data;
        std::string created = now;
        if (revision && decodeRangeAllocation(stored, range, data)) {
            if (range == spec && data == bits.snapshot()) {
                return;  // nothing to repair
            }
            json::Document doc;
            if (!json::parse(stored, doc)) {
                if (const json::Value* ts = json::at(doc, {"metadata", "creationTimestamp"})) {
                    created = std::string(json::view(*ts));
                }
            }
        }
        storage::WriteOp op;
        op.key = key;
        op.type = revision ? storage::WriteOp::Type::Update : storage::WriteOp::Type::Create;
        op.expectedModRevision = revision;
        op.value = encodeRangeAllocation(spec, bits.snapshot(), created);
        ops.push_back(std::move(op));
    };
    add(kServiceIPsKey, snapshot.ipsRevision, snapshot.ipsValue, ips_.spec, ips);
    add(kNodePortsKey, snapshot.portsRevision, snapshot.portsValue, nodePorts_.spec, ports);
    if (ops.empty()) {
        done(true);
        return;
    }
    storage_.write(std::move(ops),
                   [done = std::move(done)](storage::WriteResult&& res) { done(res.error.ok()); });
}

std::string encodeRangeAllocation(std::string_view range, std::string_view data,
                                  std::string_view creationTimestamp) {
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("kind", "RangeAllocation", a);
    doc.AddMember("apiVersion", "v1", a);
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("creationTimestamp", json::stringValue(creationTimestamp, a), a);
    doc.AddMember("metadata", meta, a);
    doc.AddMember("range", json::stringValue(range, a), a);
    doc.AddMember("data", json::stringValue(util::encodeBase64(data), a), a);
    return json::serialize(doc);
}

bool decodeRangeAllocation(std::string_view bytes, std::string& range, std::string& data) {
    json::Document doc;
    if (json::parse(bytes, doc) || json::stringMember(doc, "kind") != "RangeAllocation") {
        return false;
    }
    range = std::string(json::stringMember(doc, "range"));
    std::optional<std::string> decoded = util::decodeBase64(json::stringMember(doc, "data"));
    if (!decoded) {
        return false;
    }
    data = std::move(*decoded);
    return true;
}

}  // namespace kube::registry::service
