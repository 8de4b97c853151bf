#include "admission/namespace_lifecycle.hpp"

#include "registry/encoding.hpp"
#include "util/json.hpp"

namespace kube::admission {

namespace json = util::json;

NamespaceLifecycle::NamespaceLifecycle(storage::Interface& storage,
                                       const registry::KindInfo& namespaces)
    : storage_(storage), namespaces_(namespaces) {}

bool NamespaceLifecycle::isImmortal(std::string_view name) {
    return name == "default" || name == "kube-system" || name == "kube-public";
}

bool NamespaceLifecycle::handles(const Attributes& a) const {
    // The server's own writes (no user) are exempt: its bootstrap objects
    // in kube-system are written while that namespace is being made.
    if (!a.user) {
        return false;
    }
    bool isNamespace = a.kind == &namespaces_;
    if (a.operation == Operation::Delete) {
        return isNamespace && a.subresource.empty();
    }
    return a.operation == Operation::Create && !isNamespace && a.kind && a.kind->namespaced &&
           !a.ns.empty();
}

void NamespaceLifecycle::admit(Attributes& a, Callback done) {
    if (a.operation == Operation::Delete) {
        if (!isImmortal(a.name)) {
            done(nullptr);
            return;
        }
        meta::Status s = forbidden(a, "this namespace may not be deleted");
        done(&s);
        return;
    }
    std::string ns = a.ns;
    meta::Status terminating = forbidden(
        a, "unable to create new content in namespace " + ns + " because it is being terminated");
    // A namespace another host (or worker) just created may not have
    // reached this one's replica: NotFound is checked against etcd, as
    // kube's plugin asks the API server when its informer lacks it.
    storage_.getLatest(registry::objectKey(namespaces_, "", ns),
                       [ns, terminating, done = std::move(done)](const storage::Error& err,
                                                                 const storage::ObjectView* obj) {
                           if (err.code == storage::ErrorCode::NotFound) {
                               meta::Status s = meta::Status::notFound({"", "namespaces"}, ns);
                               done(&s);
                               return;
                           }
                           if (!err.ok()) {
                               meta::Status s = meta::Status::internalError(err.message);
                               done(&s);
                               return;
                           }
                           json::Document doc;
                           doc.Parse(obj->value.data(), obj->value.size());
                           const json::Value* phase = json::at(doc, {"status", "phase"});
                           if (!(phase && json::view(*phase) == "Terminating") &&
                               !json::at(doc, {"metadata", "deletionTimestamp"})) {
                               done(nullptr);
                               return;
                           }
                           meta::Status s = terminating;
                           s.details->causes.push_back({"NamespaceTerminating",
                                                        "namespace " + ns + " is being terminated",
                                                        "metadata.namespace"});
                           done(&s);
                       });
}

}  // namespace kube::admission
