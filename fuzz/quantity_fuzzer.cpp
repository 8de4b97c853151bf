// A resource Quantity ("500m", "1Gi", "2e3"): parsed as ParseQuantity does;
// what parses has a canonical text that parses back to the same amount.
#include <cstdlib>
#include <optional>
#include <string>

#include "fuzz_input.hpp"
#include "util/quantity.hpp"

using kube::util::Quantity;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::optional<Quantity> q = Quantity::parse(kube::fuzz::text(data, size));
    if (!q) {
        return 0;
    }
    std::string text = q->string();
    (void)q->value();
    (void)q->milliValue();
    (void)q->goString();
    std::optional<Quantity> again = Quantity::parse(text);
    if (!again || again->compare(*q) != 0) {
        std::abort();  // the canonical text is not the same amount
    }
    return 0;
}
