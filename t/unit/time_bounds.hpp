#pragma once

#include <chrono>

// Wall-clock bounds in unit tests: what a test allows at -O2 on a quiet
// machine, stretched for the sanitizers' builds (ASan/UBSan run code several
// times slower) so that a bound catches work that grows out of proportion,
// not an instrumented build on a busy machine.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kTimeBoundScale = 6;
#else
inline constexpr int kTimeBoundScale = 1;
#endif

inline constexpr std::chrono::milliseconds timeBound(std::chrono::milliseconds quiet) {
    return quiet * kTimeBoundScale;
}
