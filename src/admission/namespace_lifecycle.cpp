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

void NamespaceLifecycle::admitCreate(const registry::KindInfo& kind, std::string_view ns,
                                     std::string_view name, Callback cb) {
    std::string nsName(ns), objName(name);
    meta::GroupResource gr = kind.groupResource();
    storage_.get(registry::objectKey(namespaces_, "", ns),
                 [nsName, objName, gr, cb = std::move(cb)](const storage::Error& err,
                                                           const storage::ObjectView* obj) {
                     if (err.code == storage::ErrorCode::NotFound) {
                         meta::Status s = meta::Status::notFound({"", "namespaces"}, nsName);
                         cb(&s);
                         return;
                     }
                     if (!err.ok()) {
                         meta::Status s = meta::Status::internalError(err.message);
                         cb(&s);
                         return;
                     }
                     json::Document doc;
                     doc.Parse(obj->value.data(), obj->value.size());
                     const json::Value* phase = json::at(doc, {"status", "phase"});
                     bool terminating = (phase && json::view(*phase) == "Terminating") ||
                                        json::at(doc, {"metadata", "deletionTimestamp"});
                     if (!terminating) {
                         cb(nullptr);
                         return;
                     }
                     meta::Status s =
                         meta::Status::forbidden(gr, objName,
                                                 "unable to create new content in namespace " +
                                                     nsName + " because it is being terminated");
                     s.details->causes.push_back({"NamespaceTerminating",
                                                  "namespace " + nsName + " is being terminated",
                                                  "metadata.namespace"});
                     cb(&s);
                 });
}

const meta::Status* NamespaceLifecycle::admitNamespaceDelete(std::string_view name) {
    if (!isImmortal(name)) {
        return nullptr;
    }
    denied_ =
        meta::Status::forbidden({"", "namespaces"}, name, "this namespace may not be deleted");
    return &denied_;
}

}  // namespace kube::admission
