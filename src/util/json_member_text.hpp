#pragma once

#include <optional>
#include <string_view>

namespace kube::util::json {

// The text of the value of member `name` of the object `text`, read without
// building a document and without recursion, stopping at the end of that
// value: a reader that wants one member of a large object (an object's
// metadata, which this server writes first) pays for what comes before it.
// nullopt when `text` is not an object, has no such member at the top level,
// or is not valid JSON up to the end of the member's value (what follows
// is not read).
std::optional<std::string_view> topLevelMemberText(std::string_view text, std::string_view name);

}  // namespace kube::util::json
