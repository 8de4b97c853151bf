// util::yaml::toJson and toJsonStream (YAML request bodies, kubectl's
// manifests) on any bytes; whatever converts serializes as JSON that parses.
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "util/json.hpp"
#include "util/yaml.hpp"

namespace json = kube::util::json;
namespace yaml = kube::util::yaml;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view in = kube::fuzz::text(data, size);
    json::Document doc;
    if (!yaml::toJson(in, doc)) {
        json::Document back;
        if (json::parse(json::serialize(doc), back)) {
            std::abort();  // the JSON form of a YAML document is not JSON
        }
    }
    std::vector<json::Document> docs;
    if (!yaml::toJsonStream(in, docs)) {
        for (const auto& d : docs) {
            (void)json::serialize(d);
        }
    }
    return 0;
}
