#pragma once

#include <map>
#include <string>
#include <string_view>

#include "util/json.hpp"
#include "util/quantity.hpp"

// Resource lists (cpu, memory, storage... → amounts) as the LimitRanger and
// ResourceQuota plugins read them from pods and claims.
namespace kube::admission::resources {

using List = std::map<std::string, util::Quantity, std::less<>>;

// The amounts of a ResourceList object; members that do not parse are skipped
// (validation refused them already).
List listOf(const util::json::Value* list);

// Adds every amount of `add` to `sum` (Quantity.Add keeps the first operand's
// format).
void addTo(List& sum, const List& add);
// The larger of each amount (an init container's request against the sum).
void maxInto(List& into, const List& other);

// What a pod asks for, as kube's resource helpers compute it: the sum of its
// containers' requests (limits), at least each init container's, plus the
// pod overhead.
List podRequests(const util::json::Value& pod);
List podLimits(const util::json::Value& pod);

// The sum of two amounts, in the first one's format.
util::Quantity plus(const util::Quantity& a, const util::Quantity& b);
util::Quantity minus(const util::Quantity& a, const util::Quantity& b);

}  // namespace kube::admission::resources
