#include "apis/authentication/kinds.hpp"
#include "apis/core/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace cells = registry::cells;
namespace json = util::json;

registry::KindInfo serviceAccountKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "ServiceAccount";
    k.resource = "serviceaccounts";
    k.singular = "serviceaccount";
    k.shortNames = {"sa"};
    k.subresources = {authentication::tokenSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::countColumn(
            "Secrets", "string", "The number of secrets listed for the account.",
            [](const json::Value& obj) { return cells::count(json::member(obj, "secrets")); }),
        cells::ageColumn(),
    };
    return k;
}

}  // namespace kube::apis::core
