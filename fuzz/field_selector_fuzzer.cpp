// A fieldSelector (list and watch queries): parsed, asked for its exact
// matches as the list handler does, and matched against a fixed object.
#include <optional>
#include <string>

#include "fuzz_input.hpp"
#include "util/field_selector.hpp"

using kube::util::FieldSelector;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string error;
    std::optional<FieldSelector> s = FieldSelector::parse(kube::fuzz::text(data, size), &error);
    if (!s) {
        return 0;
    }
    (void)s->requiresExactMatch("metadata.name");
    (void)s->requiresExactMatch("metadata.namespace");
    (void)s->matches([](std::string_view field) -> std::string {
        if (field == "metadata.name") {
            return "web-1";
        }
        if (field == "metadata.namespace") {
            return "default";
        }
        if (field == "status.phase") {
            return "Running";
        }
        return "";
    });
    return 0;
}
