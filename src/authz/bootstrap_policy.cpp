#include "authz/bootstrap_policy.hpp"

#include <sstream>
#include <stdexcept>

namespace kube::authz {

extern const char* const kBootstrapPolicy;

namespace json = util::json;

namespace {

constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        size_t end = s.find(sep, start);
        std::string item(s.substr(start, end - start));
        out.push_back(item == "\"\"" ? std::string() : item);
        if (end == std::string_view::npos) {
            return out;
        }
        start = end + 1;
    }
}

json::Value strings(const std::vector<std::string>& items, json::Allocator& a) {
    json::Value arr(rapidjson::kArrayType);
    for (const std::string& s : items) {
        arr.PushBack(json::stringValue(s, a), a);
    }
    return arr;
}

// "key=value" into `obj`.
void addPair(json::Value& obj, std::string_view pair, json::Allocator& a) {
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
        throw std::logic_error("bootstrap policy: bad pair " + std::string(pair));
    }
    obj.AddMember(json::stringValue(pair.substr(0, eq), a),
                  json::stringValue(pair.substr(eq + 1), a), a);
}

class Parser {
  public:
    std::vector<BootstrapObject> parse(std::string_view text) {
        std::istringstream in{std::string(text)};
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty()) {
                continue;
            }
            std::istringstream words(line);
            std::vector<std::string> w;
            for (std::string word; words >> word;) {
                w.push_back(word);
            }
            if (line[0] != ' ') {
                finish();
                start(w);
            } else {
                member(w);
            }
        }
        finish();
        return std::move(out_);
    }

  private:
    void start(const std::vector<std::string>& w) {
        const std::string& kind = w.at(0);
        BootstrapObject o;
        o.resource = kind == "ClusterRole"          ? "clusterroles"
                     : kind == "ClusterRoleBinding" ? "clusterrolebindings"
                     : kind == "Role"               ? "roles"
                                                    : "rolebindings";
        std::string_view name = w.at(1);
        bool namespaced = kind == "Role" || kind == "RoleBinding";
        if (namespaced) {
            size_t slash = name.find('/');
            o.namespace_ = name.substr(0, slash);
            name.remove_prefix(slash + 1);
        }
        o.name = name;
        doc_ = std::make_shared<json::Document>(rapidjson::kObjectType);
        auto& a = doc_->GetAllocator();
        doc_->AddMember("apiVersion", json::stringValue(std::string(kRbacGroup) + "/v1", a), a);
        doc_->AddMember("kind", json::stringValue(kind, a), a);
        json::Value meta(rapidjson::kObjectType);
        meta.AddMember("name", json::stringValue(o.name, a), a);
        if (namespaced) {
            meta.AddMember("namespace", json::stringValue(o.namespace_, a), a);
        }
        json::Value labels(rapidjson::kObjectType);
        labels.AddMember(rapidjson::StringRef(kBootstrappingLabel), "rbac-defaults", a);
        meta.AddMember("labels", labels, a);
        json::Value annotations(rapidjson::kObjectType);
        annotations.AddMember(rapidjson::StringRef(kAutoUpdateAnnotation), "true", a);
        meta.AddMember("annotations", annotations, a);
        doc_->AddMember("metadata", meta, a);
        if (o.resource.ends_with("bindings")) {
            std::string_view ref = w.at(2);
            size_t colon = ref.find(':');
            json::Value roleRef(rapidjson::kObjectType);
            roleRef.AddMember("apiGroup", rapidjson::StringRef(kRbacGroup), a);
            roleRef.AddMember("kind", json::stringValue(ref.substr(0, colon), a), a);
            roleRef.AddMember("name", json::stringValue(ref.substr(colon + 1), a), a);
            doc_->AddMember("roleRef", roleRef, a);
            doc_->AddMember("subjects", json::Value(rapidjson::kArrayType), a);
        } else {
            doc_->AddMember("rules", json::Value(rapidjson::kArrayType), a);
        }
        current_ = std::move(o);
    }

    void member(const std::vector<std::string>& w) {
        auto& a = doc_->GetAllocator();
        const std::string& what = w.at(0);
        json::Value& meta = (*doc_)["metadata"];
        if (what == "label") {
            addPair(meta["labels"], w.at(1), a);
        } else if (what == "aggregate") {
            if (!doc_->HasMember("aggregationRule")) {
                json::Value rule(rapidjson::kObjectType);
                rule.AddMember("clusterRoleSelectors", json::Value(rapidjson::kArrayType), a);
                doc_->AddMember("aggregationRule", rule, a);
                // Aggregated roles start without rules; the controller fills them.
                (*doc_)["rules"].SetNull();
            }
            json::Value matchLabels(rapidjson::kObjectType);
            addPair(matchLabels, w.at(1), a);
            json::Value selector(rapidjson::kObjectType);
            selector.AddMember("matchLabels", matchLabels, a);
            (*doc_)["aggregationRule"]["clusterRoleSelectors"].PushBack(selector, a);
        } else if (what == "rule" || what == "urls") {
            json::Value rule(rapidjson::kObjectType);
            rule.AddMember("verbs", strings(split(w.at(1), ','), a), a);
            if (what == "urls") {
                rule.AddMember("nonResourceURLs", strings(split(w.at(2), ','), a), a);
            } else {
                rule.AddMember("apiGroups", strings(split(w.at(2), ','), a), a);
                rule.AddMember("resources", strings(split(w.at(3), ','), a), a);
                if (w.size() > 4) {
                    rule.AddMember("resourceNames", strings(split(w.at(4), ','), a), a);
                }
            }
            (*doc_)["rules"].PushBack(rule, a);
        } else {
            json::Value subject(rapidjson::kObjectType);
            subject.AddMember("kind", json::stringValue(what, a), a);
            std::string_view name = w.at(1);
            if (what == "ServiceAccount") {
                size_t slash = name.find('/');
                subject.AddMember("name", json::stringValue(name.substr(slash + 1), a), a);
                subject.AddMember("namespace", json::stringValue(name.substr(0, slash), a), a);
            } else {
                subject.AddMember("apiGroup", rapidjson::StringRef(kRbacGroup), a);
                subject.AddMember("name", json::stringValue(name, a), a);
            }
            (*doc_)["subjects"].PushBack(subject, a);
        }
    }

    void finish() {
        if (doc_) {
            current_.object = std::move(doc_);
            out_.push_back(std::move(current_));
            current_ = {};
        }
    }

    std::vector<BootstrapObject> out_;
    BootstrapObject current_;
    std::shared_ptr<json::Document> doc_;
};

}  // namespace

const std::vector<BootstrapObject>& bootstrapPolicy() {
    static const std::vector<BootstrapObject> policy = Parser().parse(kBootstrapPolicy);
    return policy;
}

}  // namespace kube::authz
