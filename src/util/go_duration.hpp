#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kube::util {

// Go's time.ParseDuration: a signed sequence of decimal numbers, each with
// an optional fraction and a unit (ns, us, µs, ms, s, m, h), "1.5h2m";
// "0" alone needs no unit. nullopt with Go's error text in `error` (time:
// invalid duration "x", time: missing unit in duration "1", time: unknown
// unit "d" in duration "1d") for anything else, or past ±292 years.
std::optional<std::chrono::nanoseconds> parseGoDuration(std::string_view s, std::string* error);

}  // namespace kube::util
