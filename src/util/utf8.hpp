#pragma once

#include <string>
#include <string_view>

// UTF-8 as Go's decoders treat it: every byte that does not start a valid
// sequence (overlong forms, surrogates, code points past U+10FFFF, cut-off
// sequences, stray continuation bytes) stands for one U+FFFD.
namespace kube::util::utf8 {

// Whether `s` is valid UTF-8 throughout.
bool valid(std::string_view s);

// `s` with each invalid byte replaced by U+FFFD (utf8.DecodeRune's
// RuneError of width 1), as encoding/json writes and reads strings.
std::string toValid(std::string_view s);

// toValid, but only copies when `s` has something to replace.
inline void makeValid(std::string& s) {
    if (!valid(s)) {
        s = toValid(s);
    }
}

}  // namespace kube::util::utf8
