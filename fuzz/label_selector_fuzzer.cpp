// A labelSelector (list and watch queries, workload selectors): the input's
// first line is the selector, the rest a metadata.labels object it is
// matched against (a fixed one when the rest is not JSON).
#include <optional>
#include <string>

#include "fuzz_input.hpp"
#include "util/json.hpp"
#include "util/label_selector.hpp"

namespace json = kube::util::json;
using kube::util::LabelSelector;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto [selector, labels] = kube::fuzz::split(kube::fuzz::text(data, size));
    std::string error;
    std::optional<LabelSelector> s = LabelSelector::parse(selector, &error);
    if (!s) {
        return 0;
    }
    json::Document doc;
    if (json::parse(labels, doc)) {
        json::parse(R"({"app":"web","tier":"front","replicas":"3","empty":""})", doc);
    }
    (void)s->matches(&doc);
    return 0;
}
