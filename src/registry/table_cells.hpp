#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "registry/kind.hpp"

// Small helpers the kinds' table printers share (src/apis/...): column
// builders and the formatting kube's printers use for common cells.
namespace kube::registry::cells {

// A cell computed as text / as a count from the stored object.
using TextCell = std::function<std::string(const json::Value& obj, const TableContext& ctx)>;
using CountCell = std::function<int64_t(const json::Value& obj)>;

// A column whose cells are JSON strings. `type` is what kube declares
// ("string", "boolean", "date"), not necessarily the cell's JSON type.
TableColumn textColumn(std::string name, std::string type, std::string description, TextCell cell,
                       int priority = 0);
// A column whose cells are JSON integers (kube declares some as "string").
TableColumn countColumn(std::string name, std::string type, std::string description, CountCell cell,
                        int priority = 0);

// The "Name" column (format "name") every printer has.
TableColumn nameColumn(int priority = 0);
// The "Age" column: humanDuration(now - creationTimestamp).
TableColumn ageColumn();
// The table of kinds without a printer (rest.NewDefaultTableConvertor):
// Name and "Created At".
std::vector<TableColumn> defaultColumns();

// Lookups that tolerate absent members and wrong types.
std::string_view text(const json::Value& obj, std::initializer_list<std::string_view> path);
int64_t integer(const json::Value& obj, std::initializer_list<std::string_view> path,
                int64_t fallback = 0);
// Members of an object or elements of an array; 0 for anything else.
int64_t count(const json::Value* v);
bool isTrue(const json::Value& obj, std::initializer_list<std::string_view> path);

// translateTimestampSince of metadata.creationTimestamp.
std::string age(const json::Value& obj, const TableContext& ctx);

// labels.FormatLabels: "a=1,b=2" sorted by key, "<none>" when empty.
std::string formatLabels(const json::Value* labels);
// labels.Selector.String() of a metav1.LabelSelector ("" when it selects
// everything or is absent).
std::string labelSelectorString(const json::Value* selector);
// metav1.FormatLabelSelector: as above, "<none>" when empty.
std::string formatLabelSelector(const json::Value* selector);

// Joins the string elements of an array.
std::string join(const json::Value* array, std::string_view sep);

// status.loadBalancer.ingress as kube's printers show it for Services and
// Ingresses: each entry's ip, else its hostname, sorted, unique, joined by
// commas (unclipped: the server prints the wide form).
std::string loadBalancerIngress(const json::Value& obj);

// layoutContainerCells: container names and images, comma-joined.
std::string containerNames(const json::Value* containers);
std::string containerImages(const json::Value* containers);

// "True"/"False" for a boolean member, "<unset>" when absent (printBoolPtr).
std::string boolPtr(const json::Value& obj, std::initializer_list<std::string_view> path);

}  // namespace kube::registry::cells
