#pragma once

#include <string>
#include <vector>

// How Go's libraries print lists of strings in the messages kube sends.
namespace kube::util {

// utilerrors.NewAggregate(errs).Error(): one error as it is, several as
// "[a, b]".
std::string aggregateErrors(const std::vector<std::string>& errors);

// fmt's %q of a []string: ["a" "b"], each quoted as Go quotes a string.
std::string quotedList(const std::vector<std::string>& items);

}  // namespace kube::util
