#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "cel/checker.hpp"

namespace kube::cel {

// kube-apiserver's CEL cost limits (k8s.io/apiserver/pkg/apis/cel):
// PerCallLimit bounds one evaluation of one rule, RuntimeCELCostBudget all
// rules of one object, StaticEstimatedCostLimit a rule's estimate at
// compile time, StaticEstimatedCRDCostLimit the estimates of a whole CRD
// schema (each rule's estimate times how often it can run).
inline constexpr uint64_t kPerCallLimit = 1000000;
inline constexpr uint64_t kRuntimeCostBudget = 10000000;
inline constexpr uint64_t kStaticEstimatedCostLimit = 10000000;
inline constexpr uint64_t kStaticEstimatedCRDCostLimit = 100000000;

// The cost of one call of `function` given the sizes of its arguments
// (characters of a string or bytes, items of a list, entries of a map, 0
// for scalars); for list functions, `elementSize` is the size of the
// largest element. Shared by the runtime tracker (actual sizes) and the
// estimator (the schema's bounds), so both count alike: 1 per call plus a
// tenth per character or item the function walks, as cel-go's cost model.
uint64_t callCost(std::string_view function, std::span<const uint64_t> argSizes,
                  uint64_t elementSize);

// What each iteration of a macro costs besides its body: cel-go expands the
// macros to comprehensions whose loop condition and accumulator step cost
// too (all and exists: 3; exists_one: 2; map and filter append a one-item
// list: 12, 13). kube 1.26's url library has no estimate: its calls cost 1.
uint64_t iterationCost(MacroKind macro);

// What a macro's comprehension costs once, whatever the items: its
// accumulator's start ([] for map and filter: 10) and its result (reading
// the accumulator: 1; exists_one compares it with 1: 2).
uint64_t comprehensionCost(MacroKind macro);

// The worst-case cost of a checked expression, from the bounds its types
// carry (maxLength, maxItems, maxProperties; unbounded ones from kube's
// 3 MiB request limit), as cel-go's checker.Cost estimates it with kube's
// size estimator. Saturates at UINT64_MAX. `selfType` is the type of
// `self` (kube's estimator sizes type names by it).
uint64_t estimateMaxCost(const Expr& e, const CheckedExpr& checked, const Type* selfType = nullptr);

// kube's getCostErrorMessage: "<name> exceeds budget by factor of 3.1x (try
// simplifying the rule, or adding maxItems, maxProperties, and maxLength
// where arrays, maps, and strings are declared)", "more than 100x" past a
// hundred.
std::string costErrorMessage(std::string_view costName, uint64_t cost, uint64_t limit);

}  // namespace kube::cel
