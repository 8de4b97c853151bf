#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kube::cel {

// A compile error at a byte offset of the expression (-1: no position, as
// cel-go's recursion limit has none).
struct Issue {
    int32_t offset = -1;
    std::string message;
};

// cel-go's Issues.String(): each issue as
//   ERROR: <input>:LINE:COL: MESSAGE
//    | the source line
//    | ....^
// (COL counts code points from 1; the caret sits under that one), joined by
// newlines. kube-apiserver prefixes it with "compilation failed: ".
std::string formatIssues(std::string_view source, const std::vector<Issue>& issues);

}  // namespace kube::cel
