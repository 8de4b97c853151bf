// A list's continue parameter: decoded as the list handler does; a token that
// decodes encodes to one that decodes to the same revision and start key.
#include <cstdlib>
#include <optional>
#include <string>

#include "fuzz_input.hpp"
#include "registry/continue_token.hpp"

using kube::registry::ContinueToken;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string error;
    std::optional<ContinueToken> t = ContinueToken::decode(kube::fuzz::text(data, size), &error);
    if (!t) {
        return 0;
    }
    std::optional<ContinueToken> again = ContinueToken::decode(t->encode(), &error);
    if (!again || again->revision != t->revision || again->start != t->start) {
        std::abort();  // decode(encode(t)) != t
    }
    return 0;
}
