// A JSON patch (application/json-patch+json): the input's first line is the
// object, the rest the list of operations, decoded as with fieldValidation
// Ignore and Strict and applied.
#include <optional>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "registry/patch/json_patch.hpp"
#include "util/json.hpp"

namespace json = kube::util::json;
namespace patch = kube::registry::patch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto [object, body] = kube::fuzz::split(kube::fuzz::text(data, size));
    for (bool strict : {false, true}) {
        json::Document doc;
        if (json::parse(object, doc) || !doc.IsObject()) {
            return 0;
        }
        std::vector<std::string> strictErrors;
        patch::Error error;
        std::optional<patch::JsonPatch> p = patch::JsonPatch::decode(body, strict, &strictErrors,
                                                                     &error);
        if (!p) {
            continue;
        }
        if (!p->apply(doc)) {
            (void)json::serialize(doc);
        }
    }
    return 0;
}
