#include "apis/core/pod_spec.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "apis/core/defaulting.hpp"

namespace kube::apis::core {

namespace {

using defaulting::ensureObject;
using defaulting::forEachElement;
using defaulting::setInt;
using defaulting::setString;

// ParseImageName's tag: "latest" when neither a tag nor a digest is given.
bool pullsLatest(std::string_view image) {
    if (image.empty()) {
        return false;
    }
    if (image.find('@') != std::string_view::npos) {
        image = image.substr(0, image.find('@'));
        size_t colon = image.rfind(':');
        size_t slash = image.rfind('/');
        return colon != std::string_view::npos &&
               (slash == std::string_view::npos || colon > slash) &&
               image.substr(colon + 1) == "latest";
    }
    size_t colon = image.rfind(':');
    size_t slash = image.rfind('/');
    bool tagged =
        colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
    return !tagged || image.substr(colon + 1) == "latest";
}

// SetDefaults_Probe treats zero as unset (non-pointer int32 fields).
void setIntIfZero(json::Value& obj, std::string_view name, int64_t value, json::Allocator& a) {
    const json::Value* v = json::member(obj, name);
    if (!v || v->IsNull() || (v->IsInt64() && v->GetInt64() == 0)) {
        json::setMember(obj, name, json::Value(value), a);
    }
}

void defaultHTTPGet(json::Value& handler, json::Allocator& a) {
    if (json::Value* get = json::member(handler, "httpGet"); get && get->IsObject()) {
        setString(*get, "path", "/", a);
        setString(*get, "scheme", "HTTP", a);
    }
}

void defaultProbe(json::Value& c, std::string_view name, json::Allocator& a) {
    json::Value* p = json::member(c, name);
    if (!p || !p->IsObject()) {
        return;
    }
    setIntIfZero(*p, "timeoutSeconds", 1, a);
    setIntIfZero(*p, "periodSeconds", 10, a);
    setIntIfZero(*p, "successThreshold", 1, a);
    setIntIfZero(*p, "failureThreshold", 3, a);
    defaultHTTPGet(*p, a);
}

void defaultContainer(json::Value& c, json::Allocator& a) {
    setString(c, "imagePullPolicy",
              pullsLatest(json::stringMember(c, "image")) ? "Always" : "IfNotPresent", a);
    setString(c, "terminationMessagePath", "/dev/termination-log", a);
    setString(c, "terminationMessagePolicy", "File", a);
    ensureObject(c, "resources", a);
    forEachElement(c, "ports", [&](json::Value& p) { setString(p, "protocol", "TCP", a); });
    forEachElement(c, "env", [&](json::Value& e) {
        if (json::Value* ref = json::member(e, "valueFrom"); ref && ref->IsObject()) {
            if (json::Value* f = json::member(*ref, "fieldRef"); f && f->IsObject()) {
                setString(*f, "apiVersion", "v1", a);
            }
        }
    });
    for (std::string_view probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
        defaultProbe(c, probe, a);
    }
    if (json::Value* lc = json::member(c, "lifecycle"); lc && lc->IsObject()) {
        for (std::string_view hook : {"postStart", "preStop"}) {
            if (json::Value* h = json::member(*lc, hook); h && h->IsObject()) {
                defaultHTTPGet(*h, a);
            }
        }
    }
}

// SetDefaults_Volume and the per-source defaults (file modes are 0644).
void defaultVolume(json::Value& v, json::Allocator& a) {
    if (v.MemberCount() == 1 && json::member(v, "name")) {
        json::setMember(v, "emptyDir", json::Value(rapidjson::kObjectType), a);
    }
    for (std::string_view source : {"configMap", "secret", "projected", "downwardAPI"}) {
        if (json::Value* s = json::member(v, source); s && s->IsObject()) {
            setInt(*s, "defaultMode", 420, a);
        }
    }
    if (json::Value* hp = json::member(v, "hostPath"); hp && hp->IsObject()) {
        defaulting::setDefault(*hp, "type", json::stringValue("", a), a);
    }
}

void validateContainer(const json::Value& c, const std::string& path, std::set<std::string>& names,
                       field::Causes& out) {
    std::string_view name = json::stringMember(c, "name");
    std::string namePath = field::child(path, "name");
    if (name.empty()) {
        out.push_back(field::required(namePath));
    } else {
        for (const std::string& msg : registry::validation::isDNS1123Label(name)) {
            out.push_back(field::invalid(namePath, name, msg));
        }
        if (!names.insert(std::string(name)).second) {
            out.push_back(field::duplicate(namePath, name));
        }
    }
    if (json::stringMember(c, "image").empty()) {
        out.push_back(field::required(field::child(path, "image")));
    }
    field::validateEnum(json::member(c, "imagePullPolicy"), field::child(path, "imagePullPolicy"),
                        {"Always", "IfNotPresent", "Never"}, out);
    field::validateEnum(json::member(c, "terminationMessagePolicy"),
                        field::child(path, "terminationMessagePolicy"),
                        {"File", "FallbackToLogsOnError"}, out);
    const json::Value* ports = json::member(c, "ports");
    if (ports && ports->IsArray()) {
        for (size_t i = 0; i < ports->Size(); i++) {
            const json::Value& p = (*ports)[static_cast<rapidjson::SizeType>(i)];
            std::string pp = field::index(field::child(path, "ports"), i);
            const json::Value* cp = json::member(p, "containerPort");
            if (!cp || (cp->IsInt64() && cp->GetInt64() == 0)) {
                out.push_back(field::required(field::child(pp, "containerPort")));
            } else {
                field::validatePortNumber(cp, field::child(pp, "containerPort"), out);
            }
            field::validateEnum(json::member(p, "protocol"), field::child(pp, "protocol"),
                                {"SCTP", "TCP", "UDP"}, out);
        }
    }
}

// Quantity strings ("100m", "1Gi", "2e3") as numbers, enough to tell zero
// from non-zero and to compare requests with limits.
double quantityValue(std::string_view q) {
    std::string s(q);
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    std::string_view suffix(end);
    static const std::map<std::string_view, double> scale = {{"", 1},
                                                             {"m", 1e-3},
                                                             {"k", 1e3},
                                                             {"M", 1e6},
                                                             {"G", 1e9},
                                                             {"T", 1e12},
                                                             {"P", 1e15},
                                                             {"E", 1e18},
                                                             {"Ki", 1024.0},
                                                             {"Mi", 1048576.0},
                                                             {"Gi", 1073741824.0},
                                                             {"Ti", 1099511627776.0},
                                                             {"Pi", 1125899906842624.0},
                                                             {"Ei", 1152921504606846976.0}};
    auto it = scale.find(suffix);
    return it == scale.end() ? v : v * it->second;
}

using ResourceTotals = std::map<std::string, double>;

void addPositive(ResourceTotals& totals, std::string_view name, const json::Value& q) {
    double v = quantityValue(json::view(q));
    if (v > 0) {
        totals[std::string(name)] += v;
    }
}

}  // namespace

void defaultPodSpec(json::Value& spec, json::Allocator& a) {
    setString(spec, "dnsPolicy", "ClusterFirst", a);
    setString(spec, "restartPolicy", "Always", a);
    ensureObject(spec, "securityContext", a);
    setInt(spec, "terminationGracePeriodSeconds", 30, a);
    setString(spec, "schedulerName", "default-scheduler", a);
    forEachElement(spec, "containers", [&](json::Value& c) { defaultContainer(c, a); });
    forEachElement(spec, "initContainers", [&](json::Value& c) { defaultContainer(c, a); });
    forEachElement(spec, "ephemeralContainers", [&](json::Value& c) { defaultContainer(c, a); });
    forEachElement(spec, "volumes", [&](json::Value& v) { defaultVolume(v, a); });
}

void defaultPodTemplate(json::Value& parent, json::Allocator& a) {
    json::Value& tmpl = ensureObject(parent, "template", a);
    if (tmpl.IsObject()) {
        json::Value& spec = ensureObject(tmpl, "spec", a);
        if (spec.IsObject()) {
            defaultPodSpec(spec, a);
        }
    }
}

void validatePodSpec(const json::Value* spec, const std::string& path, field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value& s = spec && spec->IsObject() ? *spec : empty;
    std::set<std::string> names;
    const json::Value* containers = json::member(s, "containers");
    if (!containers || !containers->IsArray() || containers->Empty()) {
        out.push_back(field::required(field::child(path, "containers")));
    }
    for (std::string_view list : {"containers", "initContainers"}) {
        const json::Value* cs = json::member(s, list);
        if (!cs || !cs->IsArray()) {
            continue;
        }
        for (size_t i = 0; i < cs->Size(); i++) {
            validateContainer((*cs)[static_cast<rapidjson::SizeType>(i)],
                              field::index(field::child(path, list), i), names, out);
        }
    }
    const json::Value* rp = json::member(s, "restartPolicy");
    if (rp && rp->IsString() && json::view(*rp).empty()) {
        out.push_back(field::required(field::child(path, "restartPolicy")));
    } else {
        field::validateEnum(rp, field::child(path, "restartPolicy"),
                            {"Always", "OnFailure", "Never"}, out);
    }
    field::validateEnum(json::member(s, "dnsPolicy"), field::child(path, "dnsPolicy"),
                        {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"}, out);
    field::validateNonnegative(json::member(s, "terminationGracePeriodSeconds"),
                               field::child(path, "terminationGracePeriodSeconds"), out);
}

void validatePodTemplate(const json::Value* tmpl, const std::string& path, field::Causes& out) {
    if (!tmpl || !tmpl->IsObject()) {
        out.push_back(field::required(path));
        return;
    }
    validatePodSpec(json::member(*tmpl, "spec"), field::child(path, "spec"), out);
}

std::string podQOSClass(const json::Value& spec) {
    ResourceTotals requests, limits;
    bool guaranteed = true;
    for (std::string_view list : {"containers", "initContainers"}) {
        const json::Value* cs = json::member(spec, list);
        if (!cs || !cs->IsArray()) {
            continue;
        }
        for (const auto& c : cs->GetArray()) {
            const json::Value* req = json::at(c, {"resources", "requests"});
            const json::Value* lim = json::at(c, {"resources", "limits"});
            std::set<std::string_view> limitsFound;
            for (std::string_view r : {"cpu", "memory"}) {
                const json::Value* l = lim ? json::member(*lim, r) : nullptr;
                const json::Value* q = req ? json::member(*req, r) : nullptr;
                if (!q) {
                    q = l;  // requests default to limits
                }
                if (q) {
                    addPositive(requests, r, *q);
                }
                if (l) {
                    addPositive(limits, r, *l);
                    if (quantityValue(json::view(*l)) > 0) {
                        limitsFound.insert(r);
                    }
                }
            }
            if (limitsFound.size() != 2) {
                guaranteed = false;
            }
        }
    }
    if (requests.empty() && limits.empty()) {
        return "BestEffort";
    }
    for (const auto& [name, req] : requests) {
        auto it = limits.find(name);
        if (it == limits.end() || std::fabs(it->second - req) > 1e-9 * std::max(1.0, req)) {
            guaranteed = false;
        }
    }
    return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

}  // namespace kube::apis::core
