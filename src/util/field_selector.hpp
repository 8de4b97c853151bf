#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kube::util {

// One term of a field selector: `field=value`, `field==value` or `field!=value`.
struct FieldRequirement {
    std::string field;
    bool notEquals = false;
    std::string value;  // unescaped
};

// A parsed fieldSelector: the conjunction of its terms; mirrors fields.Selector
// as fields.ParseSelector builds it (terms sorted, values unescaped).
class FieldSelector {
public:
    // The value of a field of the object ("" when it has none, as fields.Set).
    using Lookup = std::function<std::string(std::string_view field)>;

    // Parses `text` as fields.ParseSelector does; on failure nullopt, with
    // kube-apiserver's message in `error`.
    static std::optional<FieldSelector> parse(std::string_view text, std::string* error);

    bool empty() const { return requirements_.empty(); }
    const std::vector<FieldRequirement>& requirements() const { return requirements_; }

    // The value an `=`/`==` term pins `field` to (the first such term);
    // mirrors Selector.RequiresExactMatch.
    std::optional<std::string> requiresExactMatch(std::string_view field) const;

    bool matches(const Lookup& lookup) const;

private:
    std::vector<FieldRequirement> requirements_;
};

}  // namespace kube::util
