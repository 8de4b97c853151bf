#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"

namespace kube::util {

// Mirrors selection.Operator.
enum class LabelOperator {
    Equals,        // "="
    DoubleEquals,  // "=="
    NotEquals,     // "!="
    In,            // "in (a,b)"
    NotIn,         // "notin (a,b)"
    Exists,        // "key"
    DoesNotExist,  // "!key"
    GreaterThan,   // ">"
    LessThan,      // "<"
};

// One term of a label selector; mirrors labels.Requirement. `values` is
// sorted and free of duplicates, as the Go parser's string set leaves it.
struct LabelRequirement {
    std::string key;
    LabelOperator op = LabelOperator::Exists;
    std::vector<std::string> values;
};

// A parsed labelSelector: the conjunction of its requirements; mirrors
// labels.Selector as labels.Parse builds it. Immutable once parsed.
class LabelSelector {
public:
    // The value of a label, nullopt when the object does not have it.
    using Lookup = std::function<std::optional<std::string_view>(std::string_view key)>;

    // Parses `text` as labels.Parse does; on failure nullopt, with
    // kube-apiserver's message in `error` (the list handler's 400 message).
    static std::optional<LabelSelector> parse(std::string_view text, std::string* error);

    // True when the selector restricts nothing (an empty string).
    bool empty() const { return requirements_.empty(); }
    const std::vector<LabelRequirement>& requirements() const { return requirements_; }

    bool matches(const Lookup& lookup) const;
    // Against a metadata.labels object (absent or not an object: no labels).
    bool matches(const json::Value* labels) const;

private:
    std::vector<LabelRequirement> requirements_;
};

}  // namespace kube::util
