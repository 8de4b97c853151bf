// A request line's target: the input's first line is the method, the rest
// the path and, after the first '?', the raw query; resolved as the request
// info filter does, and the query read as the handlers read it.
#include <string>

#include "apis/meta/status.hpp"
#include "endpoints/field_validation.hpp"
#include "endpoints/request_info.hpp"
#include "fuzz_input.hpp"
#include "util/query.hpp"

namespace endpoints = kube::endpoints;
using kube::util::Query;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto [method, target] = kube::fuzz::split(kube::fuzz::text(data, size));
    auto [path, query] = kube::fuzz::split(target, '?');
    (void)endpoints::resolveRequestInfo(method, path, query);
    Query q = Query::parse(query);
    for (const char* key : {"watch", "labelSelector", "fieldSelector", "continue", "limit",
                            "resourceVersion", "timeoutSeconds", "dryRun", "pretty"}) {
        (void)q.get(key);
        (void)q.values(key);
    }
    kube::meta::Status error;
    (void)endpoints::parseFieldValidation(q, "CreateOptions", &error);
    (void)Query::unescape(query);
    return 0;
}
