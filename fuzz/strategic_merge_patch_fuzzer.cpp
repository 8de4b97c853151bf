// A strategic merge patch (application/strategic-merge-patch+json): the
// input's first line is the object, whose apiVersion and kind choose the
// schema the patch is applied with (a Deployment's when it names none known),
// the rest is the patch.
#include <string>
#include <vector>

#include "endpoints/protobuf_codec.hpp"
#include "fuzz_input.hpp"
#include "registry/patch/patch_meta.hpp"
#include "registry/patch/strategic_merge_patch.hpp"
#include "util/json.hpp"

namespace json = kube::util::json;
namespace patch = kube::registry::patch;
namespace endpoints = kube::endpoints;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto [object, body] = kube::fuzz::split(kube::fuzz::text(data, size));
    json::Document doc;
    if (json::parse(object, doc) || !doc.IsObject()) {
        return 0;
    }
    const auto* schema = endpoints::protobufSchema(json::stringMember(doc, "apiVersion"),
                                                   json::stringMember(doc, "kind"));
    if (!schema) {
        schema = endpoints::protobufSchema("apps/v1", "Deployment");
    }
    std::vector<std::string> strictErrors;
    json::Document decoded;
    if (!patch::applyStrategicMergePatch(doc, body, patch::PatchSchema(schema), true,
                                         &strictErrors, &decoded)) {
        (void)json::serialize(doc);
    }
    return 0;
}
