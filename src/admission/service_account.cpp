#include "admission/service_account.hpp"

#include <random>

#include "registry/encoding.hpp"
#include "util/json.hpp"

namespace kube::admission {

namespace json = util::json;

namespace {

// utilrand.String's alphabet: no vowels, no confusable digits.
std::string randomSuffix(size_t n) {
    static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
    static std::mt19937_64 rng{std::random_device{}()};
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    std::string out;
    for (size_t i = 0; i < n; i++) {
        out += alphabet[pick(rng)];
    }
    return out;
}

bool explicitlyFalse(const json::Value* v) {
    return v && v->IsBool() && !v->GetBool();
}

// shouldAutomount: the pod's choice, else the account's, else yes.
bool shouldAutomount(const json::Value& spec, const json::Value& account) {
    const json::Value* pod = json::member(spec, "automountServiceAccountToken");
    if (pod && pod->IsBool()) {
        return pod->GetBool();
    }
    return !explicitlyFalse(json::member(account, "automountServiceAccountToken"));
}

// The projected volume kube 1.26 mounts (createVolume), in the order of the
// Go structs' fields, with the defaultMode defaulting gives it.
json::Value tokenVolume(const std::string& name, json::Allocator& a) {
    json::Value token(rapidjson::kObjectType);
    token.AddMember("expirationSeconds", 3607, a);
    token.AddMember("path", "token", a);
    json::Value caItem(rapidjson::kObjectType);
    caItem.AddMember("key", "ca.crt", a);
    caItem.AddMember("path", "ca.crt", a);
    json::Value caItems(rapidjson::kArrayType);
    caItems.PushBack(caItem, a);
    json::Value ca(rapidjson::kObjectType);
    ca.AddMember("name", "kube-root-ca.crt", a);
    ca.AddMember("items", caItems, a);
    json::Value fieldRef(rapidjson::kObjectType);
    fieldRef.AddMember("apiVersion", "v1", a);
    fieldRef.AddMember("fieldPath", "metadata.namespace", a);
    json::Value nsItem(rapidjson::kObjectType);
    nsItem.AddMember("path", "namespace", a);
    nsItem.AddMember("fieldRef", fieldRef, a);
    json::Value nsItems(rapidjson::kArrayType);
    nsItems.PushBack(nsItem, a);
    json::Value downward(rapidjson::kObjectType);
    downward.AddMember("items", nsItems, a);
    json::Value sources(rapidjson::kArrayType);
    for (auto [key, value] : {std::pair{"serviceAccountToken", &token}, {"configMap", &ca},
                              {"downwardAPI", &downward}}) {
        json::Value source(rapidjson::kObjectType);
        source.AddMember(rapidjson::StringRef(key), *value, a);
        sources.PushBack(source, a);
    }
    json::Value projected(rapidjson::kObjectType);
    projected.AddMember("sources", sources, a);
    projected.AddMember("defaultMode", 420, a);
    json::Value volume(rapidjson::kObjectType);
    volume.AddMember("name", json::stringValue(name, a), a);
    volume.AddMember("projected", projected, a);
    return volume;
}

}  // namespace

ServiceAccount::ServiceAccount(storage::Interface& storage,
                               const registry::KindInfo& serviceAccounts,
                               const registry::KindInfo& pods, EnsureDefault ensureDefault)
    : storage_(storage),
      serviceAccounts_(serviceAccounts),
      pods_(pods),
      ensureDefault_(std::move(ensureDefault)) {}

bool ServiceAccount::handles(const Attributes& a) const {
    return a.kind == &pods_ && a.operation == Operation::Create && a.subresource.empty() &&
           a.object && a.object->IsObject();
}

void ServiceAccount::admit(Attributes& a, Callback done) {
    json::Value& pod = *a.object;
    if (json::at(pod, {"metadata", "annotations", "kubernetes.io/config.mirror"})) {
        done(nullptr);
        return;
    }
    json::Value* spec = json::member(pod, "spec");
    if (!spec || !spec->IsObject()) {
        done(nullptr);
        return;
    }
    std::string account(json::stringMember(*spec, "serviceAccountName"));
    if (account.empty()) {
        account = kDefaultName;
        json::setMember(*spec, "serviceAccountName", json::stringValue(account, *a.allocator),
                        *a.allocator);
    }
    // The deprecated spec.serviceAccount mirrors the name (the v1 conversion).
    json::setMember(*spec, "serviceAccount", json::stringValue(account, *a.allocator),
                    *a.allocator);
    std::string ns = a.ns;
    Refuse refuse = [&a, ns, account](const Callback& cb, const std::string& why) {
        meta::Status s =
            forbidden(a, "error looking up service account " + ns + "/" + account + ": " + why);
        cb(&s);
    };
    lookUp(a, ns, account, refuse, std::move(done), true);
}

// Reads the account; the namespace's `default` is made when missing, as
// kube's serviceaccounts controller keeps one in every namespace.
void ServiceAccount::lookUp(Attributes& a, std::string ns, std::string account, Refuse refuse,
                            Callback done, bool mayCreate) {
    storage_.get(registry::objectKey(serviceAccounts_, ns, account),
                 [this, &a, ns, account, refuse, mayCreate, done = std::move(done)](
                     const storage::Error& err, const storage::ObjectView* obj) {
                     if (err.code == storage::ErrorCode::NotFound && mayCreate &&
                         account == kDefaultName && ensureDefault_) {
                         ensureDefault_(ns, [this, &a, ns, account, refuse,
                                             done](const meta::Status* failed) {
                             if (failed) {
                                 done(failed);
                                 return;
                             }
                             lookUp(a, ns, account, refuse, done, false);
                         });
                         return;
                     }
                     if (err.code == storage::ErrorCode::NotFound) {
                         refuse(done, "serviceaccount \"" + account + "\" not found");
                         return;
                     }
                     if (!err.ok()) {
                         refuse(done, err.message);
                         return;
                     }
                     json::Document doc;
                     doc.Parse(obj->value.data(), obj->value.size());
                     if (doc.HasParseError() || !doc.IsObject()) {
                         refuse(done, "stored service account is not JSON");
                         return;
                     }
                     mutate(a, doc);
                     done(nullptr);
                 });
}

void ServiceAccount::mutate(Attributes& a, const json::Value& account) {
    json::Allocator& alloc = *a.allocator;
    json::Value& spec = (*a.object)["spec"];
    if (shouldAutomount(spec, account)) {
        std::string volumeName;
        bool hasVolume = false;
        if (const json::Value* volumes = json::member(spec, "volumes");
            volumes && volumes->IsArray()) {
            for (const json::Value& v : volumes->GetArray()) {
                std::string_view n = v.IsObject() ? json::stringMember(v, "name") : "";
                if (n.starts_with("kube-api-access-")) {
                    volumeName = n;
                    hasVolume = true;
                    break;
                }
            }
        }
        if (volumeName.empty()) {
            volumeName = "kube-api-access-" + randomSuffix(5);
        }
        bool needsVolume = false;
        for (const char* list : {"initContainers", "containers"}) {
            json::Value* containers = json::member(spec, list);
            if (!containers || !containers->IsArray()) {
                continue;
            }
            for (json::Value& c : containers->GetArray()) {
                if (!c.IsObject()) {
                    continue;
                }
                json::Value* mounts = json::member(c, "volumeMounts");
                bool mounted = false;
                if (mounts && mounts->IsArray()) {
                    for (const json::Value& m : mounts->GetArray()) {
                        if (m.IsObject() && json::stringMember(m, "mountPath") == kMountPath) {
                            mounted = true;
                        }
                    }
                }
                if (mounted) {
                    continue;
                }
                if (!mounts || !mounts->IsArray()) {
                    json::setMember(c, "volumeMounts", json::Value(rapidjson::kArrayType), alloc);
                    mounts = json::member(c, "volumeMounts");
                }
                json::Value mount(rapidjson::kObjectType);
                mount.AddMember("name", json::stringValue(volumeName, alloc), alloc);
                mount.AddMember("readOnly", true, alloc);
                mount.AddMember("mountPath", json::stringValue(kMountPath, alloc), alloc);
                mounts->PushBack(mount, alloc);
                needsVolume = true;
            }
        }
        if (!hasVolume && needsVolume) {
            json::Value* volumes = json::member(spec, "volumes");
            if (!volumes || !volumes->IsArray()) {
                json::setMember(spec, "volumes", json::Value(rapidjson::kArrayType), alloc);
                volumes = json::member(spec, "volumes");
            }
            volumes->PushBack(tokenVolume(volumeName, alloc), alloc);
        }
    }
    const json::Value* pullSecrets = json::member(spec, "imagePullSecrets");
    const json::Value* accountSecrets = json::member(account, "imagePullSecrets");
    if ((!pullSecrets || !pullSecrets->IsArray() || pullSecrets->Empty()) && accountSecrets &&
        accountSecrets->IsArray() && !accountSecrets->Empty()) {
        json::Value list(rapidjson::kArrayType);
        for (const json::Value& s : accountSecrets->GetArray()) {
            json::Value ref(rapidjson::kObjectType);
            ref.AddMember("name",
                          json::stringValue(s.IsObject() ? json::stringMember(s, "name") : "",
                                            alloc),
                          alloc);
            list.PushBack(ref, alloc);
        }
        json::setMember(spec, "imagePullSecrets", std::move(list), alloc);
    }
}

}  // namespace kube::admission
