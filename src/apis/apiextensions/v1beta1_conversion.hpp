#pragma once

#include "util/json.hpp"

namespace kube::apis::apiextensions {

// kube-apiserver 1.26 stores CustomResourceDefinitions in etcd at
// apiextensions.k8s.io/v1beta1, which it no longer serves: the schema,
// subresources and printer columns every version shares at the top of the
// spec ("validation", "subresources", "additionalPrinterColumns" with
// "JSONPath"), the conversion webhook's fields flat in "conversion", the
// deprecated "version". This turns such a CRD, in place, into the v1 object
// this server serves (mirrors kube's v1beta1 -> internal -> v1 conversion:
// the shared fields move into each version that has none of its own). A CRD
// of another version is left as it is. Unknown fields are kept.
void convertStoredV1beta1(util::json::Value& crd, util::json::Allocator& a);

}  // namespace kube::apis::apiextensions
