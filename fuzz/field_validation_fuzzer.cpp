// Field validation of a create or update body: a JSON object checked against
// the schema of the apiVersion and kind it names (unknown and duplicated
// fields, values of the wrong type), as the create and update handlers do.
#include <string>

#include "endpoints/field_validation.hpp"
#include "fuzz_input.hpp"
#include "util/json.hpp"

namespace json = kube::util::json;
namespace endpoints = kube::endpoints;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    json::Document doc;
    if (json::parse(kube::fuzz::text(data, size), doc) || !doc.IsObject()) {
        return 0;
    }
    std::string apiVersion(json::stringMember(doc, "apiVersion"));
    std::string kind(json::stringMember(doc, "kind"));
    (void)endpoints::checkAgainstSchema(doc, doc.GetAllocator(), apiVersion, kind);
    (void)json::serialize(doc);
    return 0;
}
