#include "apis/rbac/kinds.hpp"
#include "apis/rbac/policy.hpp"

namespace kube::apis::rbac {

registry::KindInfo roleBindingKind() {
    registry::KindInfo k;
    k.group = "rbac.authorization.k8s.io";
    k.version = "v1";
    k.kind = "RoleBinding";
    k.resource = "rolebindings";
    k.singular = "rolebinding";
    k.nameRule = registry::NameRule::PathSegment;
    k.columns = bindingColumns("roleBinding");
    k.defaults = defaultBinding;
    k.validate = [](const json::Value& obj) {
        field::Causes out;
        validateBinding(obj, true, out);
        return out;
    };
    return k;
}

}  // namespace kube::apis::rbac
