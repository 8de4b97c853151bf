#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kube::util::time {

using TimePoint = std::chrono::system_clock::time_point;

// metav1.Time's wire form: UTC, seconds precision ("2026-11-21T23:55:01Z").
std::string formatRFC3339(TimePoint t);

// Parses an RFC 3339 timestamp: "Z" or a "+hh:mm"/"-hh:mm" offset, with or
// without fractional seconds (kept to the clock's precision). nullopt when
// malformed.
std::optional<TimePoint> parseRFC3339(std::string_view s);

// A short human form of a duration with ~2-3 significant figures ("59s",
// "2m3s", "5m", "2d3h", "3y45d"); mirrors duration.HumanDuration, which
// kubectl's AGE column shows. Up to one second in the future counts as "0s";
// further is "<invalid>".
std::string humanDuration(std::chrono::seconds d);

// The age of `timestamp` (RFC 3339) at `now`, as the printers'
// translateTimestampSince: "<unknown>" for an absent or unparsable one.
std::string humanSince(std::string_view timestamp, TimePoint now);

}  // namespace kube::util::time
