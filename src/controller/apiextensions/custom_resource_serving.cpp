#include "controller/apiextensions/custom_resource_serving.hpp"

#include <optional>
#include <string>
#include <vector>

#include "apis/apiextensions/crd_conditions.hpp"
#include "apis/apiextensions/custom_resource_kind.hpp"
#include "util/json.hpp"
#include "util/json_member_text.hpp"

namespace kube::controller::apiextensions {

namespace json = util::json;
namespace ext = apis::apiextensions;

namespace {

// A definition's metadata and status, read without its spec: the spec may
// hold a MiB of schema, and the status is written several times as a
// definition is established, each time reaching every worker.
struct Head {
    json::Document doc;     // {"metadata": ..., "status": ...}
    std::string_view spec;  // the spec's text, unparsed
};

bool readHead(std::string_view bytes, Head& head) {
    std::optional<std::string_view> metadata = json::topLevelMemberText(bytes, "metadata");
    if (!metadata) {
        return false;
    }
    std::string text = "{\"metadata\":";
    text += *metadata;
    if (std::optional<std::string_view> status = json::topLevelMemberText(bytes, "status")) {
        text += ",\"status\":";
        text += *status;
    }
    text += '}';
    head.spec = json::topLevelMemberText(bytes, "spec").value_or(std::string_view());
    return !json::parse(text, head.doc) && head.doc["metadata"].IsObject();
}

// What the kinds are built from: the uid, the spec (its generation, which
// every change of the spec bumps; its text when there is none) and the
// accepted names.
std::string fingerprintOf(const Head& head) {
    const json::Value& meta = head.doc["metadata"];
    std::string out(json::stringMember(meta, "uid"));
    out += '\n';
    const json::Value* generation = json::member(meta, "generation");
    if (generation && generation->IsInt64()) {
        out += std::to_string(generation->GetInt64());
    } else {
        out += head.spec;
    }
    out += '\n';
    if (const json::Value* names = json::at(head.doc, {"status", "acceptedNames"})) {
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
    Head head;
    if (!readHead(bytes, head)) {
        return;
    }
    std::string name(json::stringMember(head.doc["metadata"], "name"));
    if (replaying_) {
        handedOver_.insert(name);
    }
    if (!ext::isConditionTrue(head.doc, "Established")) {
        unserve(name);
        return;
    }
    std::string fingerprint = fingerprintOf(head);
    bool terminating = ext::isConditionTrue(head.doc, "Terminating");
    auto it = served_.find(name);
    if (it != served_.end() && it->second.fingerprint == fingerprint) {
        it->second.terminating = terminating;
        return;
    }

    // what is served changes: the whole definition is read
    auto doc = std::make_shared<json::Document>();
    std::vector<registry::KindInfo> kinds;
    if (!json::parse(bytes, *doc) && doc->IsObject()) {
        kinds = ext::customResourceKinds(doc);
    }
    unserve(name);
    if (kinds.empty()) {
        return;
    }
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
