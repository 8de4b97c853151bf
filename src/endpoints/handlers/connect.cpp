#include <arpa/inet.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "endpoints/handlers/core_subresources.hpp"
#include "registry/table_cells.hpp"
#include "registry/validation.hpp"

namespace kube::endpoints {

namespace json = util::json;
namespace cells = registry::cells;

namespace {

constexpr const char* kNoKubelet = "this server does not connect to kubelets";
constexpr const char* kNoProxy = "this server does not proxy requests";

// Reads `name` from `store` and hands the object to `next`. A failed read
// answers with its Status, a 404 with `notFound` when given (kube names what
// it looked the object up for); an object that does not parse with a 500.
void withStored(const Scope& s, registry::Store& store, const std::string& ns,
                const std::string& name, std::optional<meta::Status> notFound,
                std::function<void(const json::Document&)> next) {
    store.get(ns, name,
              [s, &store, notFound = std::move(notFound), next = std::move(next)](
                  const meta::Status* err, std::string_view obj) {
                  if (err) {
                      s->fail(err->code == 404 && notFound ? *notFound : *err);
                      return;
                  }
                  json::Document doc;
                  if (json::parse(obj, doc) || !doc.IsObject()) {
                      s->fail(meta::Status::internalError("stored " + store.kind().singular +
                                                          " cannot be read"));
                      return;
                  }
                  next(doc);
              });
}

meta::Status internal(std::string message) {
    meta::Status s;
    s.code = 500;
    s.message = std::move(message);
    return s;
}

// net.SplitSchemeNamePort: "name", "name:port" or "scheme:name:port".
struct SchemeNamePort {
    std::string scheme, name, port;
};
SchemeNamePort splitSchemeNamePort(std::string_view id) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t colon; (colon = id.find(':', start)) != std::string_view::npos; start = colon + 1) {
        parts.emplace_back(id.substr(start, colon - start));
    }
    parts.emplace_back(id.substr(start));
    if (parts.size() == 3) {
        return {parts[0], parts[1], parts[2]};
    }
    if (parts.size() == 2) {
        return {"", parts[0], parts[1]};
    }
    return {"", parts[0], ""};
}

// proxyutil.IsProxyableIP: loopback and link-local addresses are never
// proxied to, nor is what is no address at all.
bool proxyableIP(std::string_view text) {
    std::string ip(text);
    unsigned char v4[4];
    unsigned char v6[16];
    if (inet_pton(AF_INET, ip.c_str(), v4) == 1) {
        bool loopback = v4[0] == 127;
        bool linkLocal = v4[0] == 169 && v4[1] == 254;
        bool linkLocalMulticast = v4[0] == 224 && v4[1] == 0 && v4[2] == 0;
        return !loopback && !linkLocal && !linkLocalMulticast;
    }
    if (inet_pton(AF_INET6, ip.c_str(), v6) == 1) {
        static const unsigned char kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        bool loopback = std::equal(v6, v6 + 16, kLoopback);
        bool linkLocal = v6[0] == 0xfe && (v6[1] & 0xc0) == 0x80;
        bool localMulticast = v6[0] == 0xff && ((v6[1] & 0x0f) == 1 || (v6[1] & 0x0f) == 2);
        return !loopback && !linkLocal && !localMulticast;
    }
    return false;
}

std::vector<std::string> containerNames(const json::Value& pod, std::string_view list) {
    std::vector<std::string> out;
    const json::Value* cs = json::at(pod, {"spec", list});
    if (cs && cs->IsArray()) {
        for (const json::Value& c : cs->GetArray()) {
            if (c.IsObject()) {
                out.emplace_back(json::stringMember(c, "name"));
            }
        }
    }
    return out;
}

std::string spaced(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) {
        out += (out.empty() ? "" : " ") + n;
    }
    return out;
}

// validateContainer / streamLocation's choice of container: the one asked
// for, which the pod must have, or the pod's only one. nullopt with the
// 400 in `error`.
std::optional<std::string> chooseContainer(const json::Value& pod, const std::string& podName,
                                           std::string_view asked, bool withEphemeral,
                                           meta::Status* error) {
    std::vector<std::string> containers = containerNames(pod, "containers");
    std::vector<std::string> init = containerNames(pod, "initContainers");
    std::vector<std::string> ephemeral = containerNames(pod, "ephemeralContainers");
    if (asked.empty()) {
        if (containers.size() == 1) {
            return containers[0];
        }
        std::string msg = "a container name must be specified for pod " + podName;
        if (!containers.empty()) {
            msg += ", choose one of: [" + spaced(containers) + "]";
            if (!init.empty()) {
                msg += " or one of the init containers: [" + spaced(init) + "]";
            }
            if (withEphemeral && !ephemeral.empty()) {
                msg += " or one of the ephemeral containers: [" + spaced(ephemeral) + "]";
            }
        }
        *error = meta::Status::badRequest(msg);
        return std::nullopt;
    }
    for (const auto* names : {&containers, &init, &ephemeral}) {
        if (std::find(names->begin(), names->end(), asked) != names->end()) {
            return std::string(asked);
        }
    }
    *error = meta::Status::badRequest("container " + std::string(asked) + " is not valid for pod " +
                                      podName);
    return std::nullopt;
}

// The kubelet's address of a node as kube's connection info getter picks
// it (the preferred address types, in order), and its port; nullopt with
// kube's 500 in `error` when the node has none.
std::optional<std::string> kubeletHost(const json::Value& node, meta::Status* error) {
    const json::Value* addrs = json::at(node, {"status", "addresses"});
    std::string known;
    for (std::string_view type :
         {"Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"}) {
        if (!addrs || !addrs->IsArray()) {
            break;
        }
        for (const json::Value& a : addrs->GetArray()) {
            if (a.IsObject() && json::stringMember(a, "type") == type) {
                int64_t port =
                    cells::integer(node, {"status", "daemonEndpoints", "kubeletEndpoint", "Port"});
                std::string address(json::stringMember(a, "address"));
                bool v6 = address.find(':') != std::string::npos;
                return (v6 ? "[" + address + "]" : address) + ":" +
                       std::to_string(port > 0 ? port : 10250);
            }
        }
    }
    if (addrs && addrs->IsArray()) {
        for (const json::Value& a : addrs->GetArray()) {
            if (a.IsObject()) {
                known += std::string(known.empty() ? "" : " ") + "{" +
                         std::string(json::stringMember(a, "type")) + " " +
                         std::string(json::stringMember(a, "address")) + "}";
            }
        }
    }
    *error = internal("no preferred addresses found; known addresses: [" + known + "]");
    return std::nullopt;
}

// What kube would dial once the kubelet is found, and how its failure reads.
meta::Status kubeletUnreachable(const Scope& s, const std::string& host,
                                const std::string& container) {
    const std::string& sub = s->info.subresource;
    if (sub == "log") {
        return internal("Get \"https://" + host + "/containerLogs/" + s->info.namespace_ + "/" +
                        s->info.name + "/" + container + "\": " + kNoKubelet);
    }
    return internal(std::string("error dialing backend: ") + kNoKubelet);
}

meta::Status proxyUnreachable() {
    return meta::Status::serviceUnavailable(std::string("error trying to reach service: ") +
                                            kNoProxy);
}

// The node a pod runs on, then the kubelet's failure. Streams (exec, attach,
// portforward) are refused first when the client asked for no upgrade, as
// kube's upgrade-aware proxy refuses them before it dials.
void throughKubelet(const Scope& s, registry::Store& nodes, const std::string& nodeName,
                    std::string container) {
    // kube's connection info getter names the node a pod.
    withStored(s, nodes, "", nodeName, meta::Status::notFound({"", "pods"}, nodeName),
               [s, container](const json::Document& node) {
                   meta::Status failed;
                   std::optional<std::string> host = kubeletHost(node, &failed);
                   if (!host) {
                       s->fail(failed);
                   } else if (s->info.subresource != "log" && !s->req.upgrade) {
                       s->fail(meta::Status::badRequest("Upgrade request required"));
                   } else {
                       s->fail(kubeletUnreachable(s, *host, container));
                   }
               });
}

// The PodLogOptions of a pods/log query, decoded (a 400 for an integer that
// does not parse) and checked as ValidatePodLogOptions checks them (422).
std::optional<meta::Status> logOptionsError(const Scope& s) {
    std::map<std::string, int64_t> n;
    for (std::string_view name : {"tailLines", "limitBytes", "sinceSeconds"}) {
        if (auto v = s->query.get(name)) {
            std::string why;
            std::optional<int64_t> parsed = util::Query::parseInt(*v, &why);
            if (!parsed) {
                return meta::Status::badRequest("strconv.ParseInt: parsing " +
                                                registry::validation::goQuote(*v) + ": " + why);
            }
            n.emplace(name, *parsed);
        }
    }
    namespace field = registry::validation::field;
    std::vector<meta::StatusCause> causes;
    if (n.count("tailLines") && n["tailLines"] < 0) {
        causes.push_back(
            field::invalid("tailLines", n["tailLines"], "must be greater than or equal to 0"));
    }
    if (n.count("limitBytes") && n["limitBytes"] < 1) {
        causes.push_back(field::invalid("limitBytes", n["limitBytes"], "must be greater than 0"));
    }
    if (n.count("sinceSeconds") && s->query.get("sinceTime")) {
        causes.push_back(field::forbidden(
            "[]", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
    } else if (n.count("sinceSeconds") && n["sinceSeconds"] < 1) {
        causes.push_back(
            field::invalid("sinceSeconds", n["sinceSeconds"], "must be greater than 0"));
    }
    if (causes.empty()) {
        return std::nullopt;
    }
    return meta::Status::invalid({"", "PodLogOptions"}, s->info.name, std::move(causes));
}

void connectPod(const Scope& s, registry::Store& nodes) {
    const std::string sub = s->info.subresource;
    if (sub == "log") {
        if (auto refused = logOptionsError(s)) {
            s->fail(*refused);
            return;
        }
    }
    std::string name = sub == "proxy" ? splitSchemeNamePort(s->info.name).name : s->info.name;
    withStored(
        s, s->store, s->info.namespace_, name, std::nullopt,
        [s, &nodes, sub, name](const json::Document& pod) {
            if (sub == "proxy") {
                // ResourceLocation: the pod's IP, which must be one kube proxies to.
                bool allowed = proxyableIP(cells::text(pod, {"status", "podIP"}));
                s->fail(allowed ? proxyUnreachable()
                                : meta::Status::badRequest("address not allowed"));
                return;
            }
            std::string container;
            if (sub != "portforward") {
                meta::Status refused;
                std::optional<std::string> chosen = chooseContainer(
                    pod, name, s->query.get("container").value_or(""), sub == "log", &refused);
                if (!chosen) {
                    s->fail(refused);
                    return;
                }
                container = *chosen;
            }
            std::string nodeName(cells::text(pod, {"spec", "nodeName"}));
            if (nodeName.empty() && sub == "log") {
                // LogLocation: no node, no location; kube answers with nothing.
                HttpResponse r;
                r.status = 204;
                s->respond(std::move(r));
            } else if (nodeName.empty()) {
                s->fail(meta::Status::badRequest("pod " + name + " does not have a host assigned"));
            } else {
                throughKubelet(s, nodes, nodeName, container);
            }
        });
}

void connectNode(const Scope& s) {
    std::string name = splitSchemeNamePort(s->info.name).name;
    withStored(s, s->store, "", name, std::nullopt, [s](const json::Document& node) {
        meta::Status failed;
        std::optional<std::string> host = kubeletHost(node, &failed);
        if (!host) {
            s->fail(failed);
            return;
        }
        std::string ip = host->substr(0, host->rfind(':'));
        if (ip.starts_with("[")) {
            ip = ip.substr(1, ip.size() - 2);
        }
        unsigned char any[16];
        bool isIP =
            inet_pton(AF_INET, ip.c_str(), any) == 1 || inet_pton(AF_INET6, ip.c_str(), any) == 1;
        s->fail(isIP && !proxyableIP(ip) ? meta::Status::badRequest("address not allowed")
                                         : proxyUnreachable());
    });
}

// services.ResourceLocation: the service, the port asked for, and its
// endpoints' addresses.
void connectService(const Scope& s, registry::Store& endpoints) {
    SchemeNamePort id = splitSchemeNamePort(s->info.name);
    withStored(
        s, s->store, s->info.namespace_, id.name, std::nullopt,
        [s, &endpoints, id](const json::Document& svc) {
            if (!id.port.empty()) {
                bool found = false;
                const json::Value* ports = json::at(svc, {"spec", "ports"});
                if (ports && ports->IsArray()) {
                    for (const json::Value& p : ports->GetArray()) {
                        found = found || (p.IsObject() &&
                                          (json::stringMember(p, "name") == id.port ||
                                           std::to_string(cells::integer(p, {"port"})) == id.port));
                    }
                }
                if (!found) {
                    s->fail(meta::Status::serviceUnavailable(
                        "no service port " + id.port + " found for service \"" + id.name + "\""));
                    return;
                }
            }
            withStored(
                s, endpoints, s->info.namespace_, id.name,
                meta::Status::notFound({"", "services"}, id.name),
                [s, id](const json::Document& eps) {
                    bool any = false;
                    const json::Value* subsets = json::member(eps, "subsets");
                    if (subsets && subsets->IsArray()) {
                        for (const json::Value& ss : subsets->GetArray()) {
                            const json::Value* addrs = json::member(ss, "addresses");
                            any = any || (addrs && addrs->IsArray() && !addrs->Empty());
                        }
                    }
                    s->fail(any ? proxyUnreachable()
                                : meta::Status::serviceUnavailable(
                                      "no endpoints available for service \"" + id.name + "\""));
                });
        });
}

}  // namespace

void connect(Scope s, registry::Store& nodes, registry::Store& endpoints) {
    const std::string& resource = s->store.kind().resource;
    if (resource == "pods") {
        connectPod(s, nodes);
    } else if (resource == "nodes") {
        connectNode(s);
    } else {
        connectService(s, endpoints);
    }
}

}  // namespace kube::endpoints
