// A JSON merge patch (application/merge-patch+json): the input's first line
// is the object, the rest the patch, applied as with fieldValidation Ignore
// and Strict.
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "registry/patch/merge_patch.hpp"
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
        if (!patch::applyMergePatch(doc, body, strict, &strictErrors)) {
            (void)json::serialize(doc);
        }
    }
    return 0;
}
