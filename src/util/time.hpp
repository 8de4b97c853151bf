#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kube::util::time {

// Microseconds (MicroTime's precision, finer than Time's seconds) span
// ±292,000 years, so every time the wire can carry in text (years 0000-9999)
// is kept exactly; the clock's nanoseconds would wrap outside 1677-2262.
using Duration = std::chrono::microseconds;
using TimePoint = std::chrono::time_point<std::chrono::system_clock, Duration>;

// metav1.Time's wire form: UTC, seconds precision ("2026-11-21T23:55:01Z"),
// as Go's Format(time.RFC3339) writes it, also outside years 0000-9999
// ("-0001-12-31T23:30:00Z", "10000-01-01T00:59:59Z").
std::string formatRFC3339(TimePoint t);

// Any other clock precision (the loop's now()), cut to TimePoint's; a
// TimePoint itself takes the overload above.
template <class D>
std::string formatRFC3339(std::chrono::time_point<std::chrono::system_clock, D> t) {
    return formatRFC3339(std::chrono::floor<Duration>(t));
}

// The same for a count of seconds since the Unix epoch (a protobuf
// Timestamp's): any int64 is formatted, as Go's time.Unix(s, 0) would be.
std::string formatUnixSeconds(int64_t seconds);

// Parses an RFC 3339 timestamp: four-digit year, "Z" or a "+hh:mm"/"-hh:mm"
// offset, with or without fractional seconds (kept to microseconds). nullopt
// when malformed.
std::optional<TimePoint> parseRFC3339(std::string_view s);

// `to - from` in whole seconds, without overflow for any two times.
std::chrono::seconds secondsBetween(TimePoint from, TimePoint to);

// A short human form of a duration with ~2-3 significant figures ("59s",
// "2m3s", "5m", "2d3h", "3y45d"); mirrors duration.HumanDuration, which
// kubectl's AGE column shows. Up to one second in the future counts as "0s";
// further is "<invalid>".
std::string humanDuration(std::chrono::seconds d);

// The age of `timestamp` (RFC 3339) at `now`, as the printers'
// translateTimestampSince: "<unknown>" for an absent or unparsable one.
std::string humanSince(std::string_view timestamp, std::chrono::system_clock::time_point now);

}  // namespace kube::util::time
