#pragma once

#include <vector>

#include "registry/kind.hpp"
#include "util/json.hpp"

// Table output of custom resources; mirrors apiextensions-apiserver's
// registry/customresource/tableconvertor.
namespace kube::apis::apiextensions {

// The columns of a custom resource served at one version, from that
// version's entry in the CRD's spec.versions: "Name", then each of its
// additionalPrinterColumns (name, type, format, description, priority as
// given; a column without a description is described by its JSONPath), or
// when it has none kube's default "Age" column (type date, from
// .metadata.creationTimestamp).
//
// A cell holds what the column's JSONPath (client-go's jsonpath, wrapped in
// braces) selects first; null when it selects nothing or fails. By type:
// string: the value printed as jsonpath prints it (numbers as Go's fmt,
// objects and arrays as compact JSON, null as "<no value>"); integer: an
// integer, a float cut to one (Go's int64 conversion); number: the number;
// boolean: a boolean; date: an RFC 3339 string as the age since then
// ("3d4h"), "<invalid>" when it does not parse or lies in the future,
// "<unknown>" for "" . A value of another JSON type than the column's is
// null.
//
// As kube, the first column whose JSONPath does not parse ends the list:
// the columns before it are served.
//
// The paths are parsed here, once per CRD version, never per request.
std::vector<registry::TableColumn> printerColumns(const util::json::Value& versionEntry);

}  // namespace kube::apis::apiextensions
