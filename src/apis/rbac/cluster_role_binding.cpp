#include "apis/rbac/kinds.hpp"
#include "apis/rbac/policy.hpp"

namespace kube::apis::rbac {

registry::KindInfo clusterRoleBindingKind() {
    registry::KindInfo k;
    k.group = "rbac.authorization.k8s.io";
    k.version = "v1";
    k.kind = "ClusterRoleBinding";
    k.resource = "clusterrolebindings";
    k.singular = "clusterrolebinding";
    k.namespaced = false;
    k.nameRule = registry::NameRule::PathSegment;
    k.columns = bindingColumns("clusterRoleBinding");
    k.defaults = defaultBinding;
    k.validate = [](const json::Value& obj) {
        field::Causes out;
        validateBinding(obj, false, out);
        return out;
    };
    return k;
}

}  // namespace kube::apis::rbac
