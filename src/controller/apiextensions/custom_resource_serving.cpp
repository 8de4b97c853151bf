#include "controller/apiextensions/custom_resource_serving.hpp"

#include <vector>

#include "apis/apiextensions/crd_conditions.hpp"
#include "apis/apiextensions/custom_resource_kind.hpp"
#include "util/json.hpp"

namespace kube::controller::apiextensions {

namespace json = util::json;
namespace ext = apis::apiextensions;

namespace {

std::string fingerprintOf(const json::Value& crd) {
    std::string out(json::stringMember(crd["metadata"], "uid"));
    out += '\n';
    if (const json::Value* spec = json::member(crd, "spec")) {
        out += json::serialize(*spec);
    }
    out += '\n';
    if (const json::Value* names = json::at(crd, {"status", "acceptedNames"})) {
        out += json::serialize(*names);
    }
    return out;
}

}  // namespace

CustomResourceServing::CustomResourceServing(storage::cacher::WatchCache& definitions, AddKind add,
                                             RemoveKind remove)
    : add_(std::move(add)), remove_(std::move(remove)) {
    storage::cacher::Follower::Handlers h;
    h.replacing = [this] {
        replaying_ = true;
        handedOver_.clear();
        return true;
    };
    h.put = [this](const storage::cacher::CachedObject& obj) {
        put(obj.bytes);
        return false;
    };
    h.remove = [this](const storage::cacher::CachedObject& obj) {
        json::Document doc;
        if (!json::parse(obj.bytes, doc) && doc.IsObject() && json::member(doc, "metadata")) {
            unserve(std::string(json::stringMember(doc["metadata"], "name")));
        }
        return false;
    };
    h.changed = [this] { sweep(); };
    follower_ = std::make_unique<storage::cacher::Follower>(definitions, std::move(h));
    sweep();
}

void CustomResourceServing::put(std::string_view bytes) {
    auto doc = std::make_shared<json::Document>();
    if (json::parse(bytes, *doc) || !doc->IsObject() || !json::member(*doc, "metadata") ||
        !(*doc)["metadata"].IsObject()) {
        return;
    }
    std::string name(json::stringMember((*doc)["metadata"], "name"));
    if (replaying_) {
        handedOver_.insert(name);
    }
    std::vector<registry::KindInfo> kinds;
    if (ext::isConditionTrue(*doc, "Established")) {
        kinds = ext::customResourceKinds(doc);
    }
    if (kinds.empty()) {
        unserve(name);
        return;
    }
    std::string fingerprint = fingerprintOf(*doc);
    bool terminating = ext::isConditionTrue(*doc, "Terminating");
    auto it = served_.find(name);
    if (it != served_.end() && it->second.fingerprint == fingerprint) {
        it->second.terminating = terminating;
        return;
    }
    unserve(name);
    Served s{kinds.front().group, kinds.front().resource, std::move(fingerprint), terminating};
    for (registry::KindInfo& k : kinds) {
        add_(std::move(k));
    }
    served_.emplace(name, std::move(s));
}

bool CustomResourceServing::terminating(std::string_view group, std::string_view resource) const {
    for (const auto& [name, s] : served_) {
        if (s.group == group && s.resource == resource) {
            return s.terminating;
        }
    }
    return false;
}

void CustomResourceServing::unserve(const std::string& name) {
    auto it = served_.find(name);
    if (it == served_.end()) {
        return;
    }
    Served s = std::move(it->second);
    served_.erase(it);
    remove_(s.group, s.resource);
}

void CustomResourceServing::sweep() {
    if (!replaying_) {
        return;
    }
    replaying_ = false;
    std::vector<std::string> gone;
    for (const auto& [name, s] : served_) {
        if (!handedOver_.count(name)) {
            gone.push_back(name);
        }
    }
    for (const std::string& name : gone) {
        unserve(name);
    }
    handedOver_.clear();
}

}  // namespace kube::controller::apiextensions
