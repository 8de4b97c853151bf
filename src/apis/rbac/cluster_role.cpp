#include "apis/rbac/kinds.hpp"
#include "apis/rbac/policy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::rbac {

registry::KindInfo clusterRoleKind() {
    registry::KindInfo k;
    k.group = "rbac.authorization.k8s.io";
    k.version = "v1";
    k.kind = "ClusterRole";
    k.resource = "clusterroles";
    k.singular = "clusterrole";
    k.namespaced = false;
    k.nameRule = registry::NameRule::PathSegment;
    k.columns = registry::cells::defaultColumns();
    k.validate = [](const json::Value& obj) {
        field::Causes out;
        validateRules(obj, false, out);
        return out;
    };
    return k;
}

}  // namespace kube::apis::rbac
