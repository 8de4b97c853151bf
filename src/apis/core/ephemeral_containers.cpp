#include "apis/core/ephemeral_containers.hpp"

#include <map>
#include <set>
#include <string>

#include "apis/core/field_errors.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;

const json::Value* list(const json::Value& pod, std::string_view name) {
    const json::Value* v = json::at(pod, {"spec", name});
    return v && v->IsArray() ? v : nullptr;
}

// A field that is set: present, not null, and (for an object) not empty.
bool isSet(const json::Value& c, std::string_view name) {
    const json::Value* v = json::member(c, name);
    if (!v || v->IsNull()) {
        return false;
    }
    if (v->IsObject()) {
        for (const auto& m : v->GetObject()) {
            if (!m.value.IsNull() && !(m.value.IsObject() && m.value.ObjectEmpty())) {
                return true;
            }
        }
        return false;
    }
    return !(v->IsArray() && v->Empty());
}

}  // namespace

void keepOnlyEphemeralContainers(json::Document& next, const json::Value& old) {
    json::Document out;
    auto& a = out.GetAllocator();
    out.CopyFrom(old, a);
    const json::Value* meta = json::member(next, "metadata");
    if (!json::member(out, "metadata") || !out["metadata"].IsObject()) {
        json::setMember(out, "metadata", json::Value(rapidjson::kObjectType), a);
    }
    for (std::string_view f : {"name", "namespace", "uid", "resourceVersion"}) {
        const json::Value* v = meta && meta->IsObject() ? json::member(*meta, f) : nullptr;
        if (v) {
            json::setMember(out["metadata"], f, json::Value(*v, a), a);
        } else {
            json::removeMember(out["metadata"], f);
        }
    }
    if (!json::member(out, "spec") || !out["spec"].IsObject()) {
        json::setMember(out, "spec", json::Value(rapidjson::kObjectType), a);
    }
    if (const json::Value* eph = json::at(next, {"spec", "ephemeralContainers"})) {
        json::setMember(out["spec"], "ephemeralContainers", json::Value(*eph, a), a);
    } else {
        json::removeMember(out["spec"], "ephemeralContainers");
    }
    next.Swap(out);
}

std::vector<meta::StatusCause> validateEphemeralContainersUpdate(const json::Value& pod,
                                                                 const json::Value& old) {
    field::Causes out;
    const std::string path = "spec.ephemeralContainers";
    std::set<std::string> names;
    std::set<std::string> targets;
    for (std::string_view l : {"containers", "initContainers"}) {
        if (const json::Value* cs = list(pod, l)) {
            for (const json::Value& c : cs->GetArray()) {
                std::string name(c.IsObject() ? json::stringMember(c, "name") : "");
                names.insert(name);
                targets.insert(name);
            }
        }
    }
    std::map<std::string, const json::Value*> now;
    if (const json::Value* eph = list(pod, "ephemeralContainers")) {
        size_t i = 0;
        for (const json::Value& c : eph->GetArray()) {
            std::string at = field::index(path, i++);
            if (!c.IsObject()) {
                continue;
            }
            std::string name(json::stringMember(c, "name"));
            if (name.empty()) {
                out.push_back(field::required(field::child(at, "name")));
            } else {
                for (const std::string& msg : registry::validation::isDNS1123Label(name)) {
                    out.push_back(field::invalid(field::child(at, "name"), name, msg));
                }
                if (!names.insert(name).second) {
                    out.push_back(field::duplicate(field::child(at, "name"), name));
                }
            }
            now.emplace(name, &c);
            if (json::stringMember(c, "image").empty()) {
                out.push_back(field::required(field::child(at, "image")));
            }
            for (std::string_view f : {"lifecycle", "livenessProbe", "ports", "readinessProbe",
                                       "resources", "startupProbe"}) {
                if (isSet(c, f)) {
                    out.push_back(field::forbidden(field::child(at, f),
                                                   "cannot be set for an Ephemeral Container"));
                }
            }
            std::string target(json::stringMember(c, "targetContainerName"));
            if (!target.empty() && !targets.count(target)) {
                out.push_back(registry::validation::field::notFound(
                    field::child(at, "targetContainerName"), target));
            }
        }
    }
    if (const json::Value* before = list(old, "ephemeralContainers")) {
        for (const json::Value& c : before->GetArray()) {
            std::string name(c.IsObject() ? json::stringMember(c, "name") : "");
            auto it = now.find(name);
            if (it == now.end()) {
                out.push_back(field::forbidden(
                    path, "existing ephemeral containers \"" + name + "\" may not be removed\n"));
            } else if (*it->second != c) {
                out.push_back(field::forbidden(
                    path, "existing ephemeral containers \"" + name + "\" may not be changed\n"));
            }
        }
    }
    return out;
}

}  // namespace kube::apis::core
