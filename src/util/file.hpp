#pragma once

#include <optional>
#include <string>

namespace kube::util {

// The whole content of the file at `path`, read at configuration time (never
// on a request: this blocks); nullopt with os.Open's wording in `error`
// ("open <path>: <reason>"), as kube-apiserver reports a file it cannot read.
std::optional<std::string> readFile(const std::string& path, std::string* error);

}  // namespace kube::util
