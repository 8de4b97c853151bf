#include <cstdio>
#include <map>
#include <string>

#include "apis/core/binding.hpp"
#include "apis/core/defaulting.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/pod_spec.hpp"
#include "apis/policy/eviction.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "util/time.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;
using util::time::TimePoint;

// What printPod derives from the container statuses.
struct PodSummary {
    int64_t ready = 0;
    int64_t total = 0;
    std::string reason;
    std::string restarts;
};

std::string format(const char* fmt, long long n) {
    char buf[64];
    snprintf(buf, sizeof buf, fmt, n);
    return buf;
}

bool hasCondition(const json::Value& pod, std::string_view type, std::string_view status) {
    const json::Value* conds = json::at(pod, {"status", "conditions"});
    if (!conds || !conds->IsArray()) {
        return false;
    }
    for (const auto& c : conds->GetArray()) {
        if (json::stringMember(c, "type") == type && json::stringMember(c, "status") == status) {
            return true;
        }
    }
    return false;
}

// Keeps the latest lastState.terminated.finishedAt seen.
void noteRestart(const json::Value& status, std::optional<TimePoint>& last) {
    std::string_view finished = cells::text(status, {"lastState", "terminated", "finishedAt"});
    if (auto t = util::time::parseRFC3339(finished); t && (!last || *t > *last)) {
        last = t;
    }
}

// The reason a terminated container without one shows: Signal:N or ExitCode:N.
std::string exitReason(const json::Value& terminated, const char* prefix) {
    int64_t signal = cells::integer(terminated, {"signal"});
    if (signal != 0) {
        return std::string(prefix) + format("Signal:%lld", signal);
    }
    return std::string(prefix) + format("ExitCode:%lld", cells::integer(terminated, {"exitCode"}));
}

// Mirrors printPod's computation of READY, STATUS and RESTARTS.
PodSummary summarize(const json::Value& pod, const TableContext& ctx) {
    PodSummary s;
    static const json::Value none(rapidjson::kArrayType);
    auto array = [&](std::initializer_list<std::string_view> path) -> const json::Value& {
        const json::Value* v = json::at(pod, path);
        return v && v->IsArray() ? *v : none;
    };
    const json::Value& containers = array({"spec", "containers"});
    const json::Value& initSpecs = array({"spec", "initContainers"});
    s.total = containers.Size();
    std::string_view phase = cells::text(pod, {"status", "phase"});
    std::string_view statusReason = cells::text(pod, {"status", "reason"});
    s.reason = statusReason.empty() ? std::string(phase) : std::string(statusReason);
    if (const json::Value* conds = json::at(pod, {"status", "conditions"});
        conds && conds->IsArray()) {
        for (const auto& c : conds->GetArray()) {
            if (json::stringMember(c, "type") == "PodScheduled" &&
                json::stringMember(c, "reason") == "SchedulingGated") {
                s.reason = "SchedulingGated";
            }
        }
    }
    std::map<std::string_view, bool> restartable;  // init container name -> sidecar
    for (const auto& c : initSpecs.GetArray()) {
        bool sidecar = json::stringMember(c, "restartPolicy") == "Always";
        restartable[json::stringMember(c, "name")] = sidecar;
        s.total += sidecar ? 1 : 0;
    }
    int64_t restarts = 0, sidecarRestarts = 0;
    std::optional<TimePoint> lastRestart, lastSidecarRestart;
    bool initializing = false;
    const json::Value& initStatuses = array({"status", "initContainerStatuses"});
    for (rapidjson::SizeType i = 0; i < initStatuses.Size(); i++) {
        const json::Value& c = initStatuses[i];
        int64_t count = cells::integer(c, {"restartCount"});
        restarts += count;
        noteRestart(c, lastRestart);
        bool sidecar = restartable[json::stringMember(c, "name")];
        if (sidecar) {
            sidecarRestarts += count;
            noteRestart(c, lastSidecarRestart);
        }
        const json::Value* terminated = json::at(c, {"state", "terminated"});
        const json::Value* waiting = json::at(c, {"state", "waiting"});
        terminated = terminated && terminated->IsObject() ? terminated : nullptr;
        waiting = waiting && waiting->IsObject() ? waiting : nullptr;
        if (terminated && cells::integer(*terminated, {"exitCode"}) == 0) {
            continue;
        }
        if (sidecar && cells::isTrue(c, {"started"})) {
            s.ready += cells::isTrue(c, {"ready"}) ? 1 : 0;
            continue;
        }
        if (terminated) {
            std::string_view r = json::stringMember(*terminated, "reason");
            s.reason = r.empty() ? exitReason(*terminated, "Init:") : "Init:" + std::string(r);
        } else if (waiting && !json::stringMember(*waiting, "reason").empty() &&
                   json::stringMember(*waiting, "reason") != "PodInitializing") {
            s.reason = "Init:" + std::string(json::stringMember(*waiting, "reason"));
        } else {
            s.reason = format("Init:%lld", i) + "/" + std::to_string(initSpecs.Size());
        }
        initializing = true;
        break;
    }
    if (!initializing || hasCondition(pod, "Initialized", "True")) {
        restarts = sidecarRestarts;
        lastRestart = lastSidecarRestart;
        bool hasRunning = false;
        const json::Value& statuses = array({"status", "containerStatuses"});
        for (rapidjson::SizeType i = statuses.Size(); i-- > 0;) {
            const json::Value& c = statuses[i];
            restarts += cells::integer(c, {"restartCount"});
            noteRestart(c, lastRestart);
            const json::Value* terminated = json::at(c, {"state", "terminated"});
            const json::Value* waiting = json::at(c, {"state", "waiting"});
            const json::Value* running = json::at(c, {"state", "running"});
            terminated = terminated && terminated->IsObject() ? terminated : nullptr;
            if (waiting && waiting->IsObject() && !json::stringMember(*waiting, "reason").empty()) {
                s.reason = json::stringMember(*waiting, "reason");
            } else if (terminated && !json::stringMember(*terminated, "reason").empty()) {
                s.reason = json::stringMember(*terminated, "reason");
            } else if (terminated) {
                s.reason = exitReason(*terminated, "");
            } else if (cells::isTrue(c, {"ready"}) && running && running->IsObject()) {
                hasRunning = true;
                s.ready++;
            }
        }
        if (s.reason == "Completed" && hasRunning) {
            s.reason = hasCondition(pod, "Ready", "True") ? "Running" : "NotReady";
        }
    }
    if (!cells::text(pod, {"metadata", "deletionTimestamp"}).empty()) {
        if (statusReason == "NodeLost") {
            s.reason = "Unknown";
        } else if (phase != "Failed" && phase != "Succeeded") {
            s.reason = "Terminating";
        }
    }
    s.restarts = std::to_string(restarts);
    if (restarts != 0 && lastRestart) {
        s.restarts += " (" +
                      util::time::humanDuration(util::time::secondsBetween(
                          *lastRestart, std::chrono::floor<util::time::Duration>(ctx.now))) +
                      " ago)";
    }
    return s;
}

std::string orNone(std::string_view s) {
    return s.empty() ? "<none>" : std::string(s);
}

std::string podIP(const json::Value& pod) {
    const json::Value* ips = json::at(pod, {"status", "podIPs"});
    if (ips && ips->IsArray() && !ips->Empty()) {
        return orNone(json::stringMember((*ips)[0], "ip"));
    }
    return orNone(cells::text(pod, {"status", "podIP"}));
}

std::string readinessGates(const json::Value& pod) {
    const json::Value* gates = json::at(pod, {"spec", "readinessGates"});
    if (!gates || !gates->IsArray() || gates->Empty()) {
        return "<none>";
    }
    const json::Value* conds = json::at(pod, {"status", "conditions"});
    int64_t trueCount = 0;
    for (const auto& g : gates->GetArray()) {
        if (!conds || !conds->IsArray()) {
            break;
        }
        for (const auto& c : conds->GetArray()) {
            if (json::stringMember(c, "type") == json::stringMember(g, "conditionType")) {
                trueCount += json::stringMember(c, "status") == "True" ? 1 : 0;
                break;
            }
        }
    }
    return std::to_string(trueCount) + "/" + std::to_string(gates->Size());
}

// SetDefaults_Pod's extras over the PodSpec defaults: requests default to
// limits, service links on, host-network ports mirrored.
void defaultPod(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    bool hostNetwork = cells::isTrue(spec, {"hostNetwork"});
    for (std::string_view list : {"containers", "initContainers"}) {
        defaulting::forEachElement(spec, list, [&](json::Value& c) {
            const json::Value* limits = json::at(c, {"resources", "limits"});
            if (limits && limits->IsObject()) {
                json::Value& resources = c["resources"];
                defaulting::ensureObject(resources, "requests", a);
                // Looked up again: adding "requests" may have moved "limits".
                json::Value& requests = resources["requests"];
                const json::Value& lim = resources["limits"];
                for (const auto& m : lim.GetObject()) {
                    if (requests.IsObject() && !json::member(requests, json::view(m.name))) {
                        requests.AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
                    }
                }
            }
            if (hostNetwork) {
                defaulting::forEachElement(c, "ports", [&](json::Value& p) {
                    if (cells::integer(p, {"hostPort"}) == 0 && json::member(p, "containerPort")) {
                        json::setMember(p, "hostPort", json::Value(p["containerPort"], a), a);
                    }
                });
            }
        });
    }
    defaulting::setBool(spec, "enableServiceLinks", true, a);
    defaultPodSpec(spec, a);
}

// Mirrors podStrategy.PrepareForCreate: a new pod is Pending with its QoS class.
void preparePod(json::Value& obj, json::Allocator& a) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* spec = json::member(obj, "spec");
    json::Value status(rapidjson::kObjectType);
    status.AddMember("phase", "Pending", a);
    status.AddMember("qosClass", json::stringValue(podQOSClass(spec ? *spec : empty), a), a);
    json::setMember(obj, "status", std::move(status), a);
}

field::Causes validatePod(const json::Value& obj) {
    field::Causes out;
    validatePodSpec(json::member(obj, "spec"), "spec", out);
    return out;
}

// Mirrors podStatusStrategy.PrepareForUpdate: the status subresource keeps
// the stored ownerReferences (old kubelets corrupted them), and a status
// without a qosClass keeps the stored one (it is set once, at creation).
void preparePodStatus(json::Value& obj, const json::Value& old,
                      const registry::StatusUpdateContext&, json::Allocator& a) {
    json::Value& metadata = obj["metadata"];
    if (const json::Value* refs = json::at(old, {"metadata", "ownerReferences"})) {
        json::setMember(metadata, "ownerReferences", json::Value(*refs, a), a);
    } else {
        json::removeMember(metadata, "ownerReferences");
    }
    const json::Value* oldQos = json::at(old, {"status", "qosClass"});
    if (!oldQos || !cells::text(obj, {"status", "qosClass"}).empty()) {
        return;
    }
    json::Value* status = json::member(obj, "status");
    if (!status || !status->IsObject()) {
        json::setMember(obj, "status", json::Value(rapidjson::kObjectType), a);
        status = json::member(obj, "status");
    }
    json::setMember(*status, "qosClass", json::Value(*oldQos, a), a);
}

// Mirrors podStrategy.CheckGracefulDelete: the request's grace period, else
// the pod's terminationGracePeriodSeconds; a pod on no node, or one that has
// finished, goes at once.
int64_t podGracePeriod(const json::Value& obj, std::optional<int64_t> requested) {
    int64_t period = 0;
    if (requested) {
        period = *requested;
    } else if (const json::Value* g = json::at(obj, {"spec", "terminationGracePeriodSeconds"});
               g && g->IsInt64()) {
        period = g->GetInt64();
    }
    std::string_view phase = cells::text(obj, {"status", "phase"});
    if (cells::text(obj, {"spec", "nodeName"}).empty() || phase == "Failed" ||
        phase == "Succeeded") {
        period = 0;
    }
    return period;
}

}  // namespace

registry::KindInfo podKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "Pod";
    k.resource = "pods";
    k.singular = "pod";
    k.shortNames = {"po"};
    k.categories = {"all"};
    k.tracksGeneration = true;
    // kube's pod storages: the Connecter ones (attach, exec, log,
    // portforward, proxy) answer as a pod on no reachable kubelet.
    using registry::SubresourceStorage;
    k.subresources = {
        {"attach", "", "", "PodAttachOptions", {"create", "get"}, SubresourceStorage::Connect},
        bindingSubresource(),
        {"ephemeralcontainers",
         "",
         "",
         "",
         {"get", "patch", "update"},
         SubresourceStorage::EphemeralContainers},
        apis::policy::evictionSubresource(),
        {"exec", "", "", "PodExecOptions", {"create", "get"}, SubresourceStorage::Connect},
        {"log", "", "", "", {"get"}, SubresourceStorage::Connect},
        {"portforward",
         "",
         "",
         "PodPortForwardOptions",
         {"create", "get"},
         SubresourceStorage::Connect},
        {"proxy",
         "",
         "",
         "PodProxyOptions",
         {"create", "delete", "get", "patch", "update"},
         SubresourceStorage::Connect},
        registry::statusSubresource(),
    };
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Ready", "string",
                          "The aggregate readiness state of this pod for accepting traffic.",
                          [](const json::Value& obj, const TableContext& ctx) {
                              PodSummary s = summarize(obj, ctx);
                              return std::to_string(s.ready) + "/" + std::to_string(s.total);
                          }),
        cells::textColumn("Status", "string", "The aggregate status of the containers in this pod.",
                          [](const json::Value& obj, const TableContext& ctx) {
                              return summarize(obj, ctx).reason;
                          }),
        cells::textColumn("Restarts", "string",
                          "The number of times the containers in this pod have been restarted and "
                          "when the last container in this pod has restarted.",
                          [](const json::Value& obj, const TableContext& ctx) {
                              return summarize(obj, ctx).restarts;
                          }),
        cells::ageColumn(),
        cells::textColumn(
            "IP", "string", "The IP address allocated to the pod.",
            [](const json::Value& obj, const TableContext&) { return podIP(obj); }, 1),
        cells::textColumn(
            "Node", "string", "The node the pod is scheduled onto.",
            [](const json::Value& obj, const TableContext&) {
                return orNone(cells::text(obj, {"spec", "nodeName"}));
            },
            1),
        cells::textColumn(
            "Nominated Node", "string",
            "The node the scheduler nominated for the pod while preempting others.",
            [](const json::Value& obj, const TableContext&) {
                return orNone(cells::text(obj, {"status", "nominatedNodeName"}));
            },
            1),
        cells::textColumn(
            "Readiness Gates", "string", "How many of the pod's readiness gates are satisfied.",
            [](const json::Value& obj, const TableContext&) { return readinessGates(obj); }, 1),
    };
    k.defaults = defaultPod;
    k.prepareForCreate = preparePod;
    k.validate = validatePod;
    k.prepareForStatusUpdate = preparePodStatus;
    // Mirrors the v1 Pod field label conversion; spec.host is the old name of spec.nodeName.
    k.selectableFields = {{"metadata.name"},
                          {"metadata.namespace"},
                          {"spec.nodeName"},
                          {"spec.restartPolicy"},
                          {"spec.schedulerName"},
                          {"spec.serviceAccountName"},
                          {"spec.hostNetwork", "", "false"},
                          {"status.phase"},
                          {"status.podIP"},
                          {"status.nominatedNodeName"},
                          {"spec.host", "spec.nodeName"}};
    k.checkGracefulDelete = podGracePeriod;
    k.returnDeletedObject = true;
    return k;
}

}  // namespace kube::apis::core
