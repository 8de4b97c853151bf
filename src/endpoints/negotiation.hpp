#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"

namespace kube::endpoints {

// One entry of an Accept header: "application/json;as=Table;v=v1;g=meta.k8s.io".
struct MediaRange {
    std::string type;     // "application/json", "*/*"
    std::string as, v, g; // the Kubernetes parameters, lowercase keys
    double q = 1.0;
};

// The entries in preference order (by q, then as written).
std::vector<MediaRange> parseAccept(std::string_view accept);

// What an object or list response is rendered as.
enum class OutputForm { Json, Table };

struct Output {
    OutputForm form = OutputForm::Json;
    std::string tableGroupVersion;  // "meta.k8s.io/v1" or "meta.k8s.io/v1beta1"
};

// Mirrors negotiation.NegotiateOutputMediaType for resource endpoints:
// the first acceptable entry wins; `allowTable` is false for verbs that do
// not render tables. An Accept nothing satisfies → 406 NotAcceptable.
std::optional<Output> negotiateOutput(std::string_view accept, bool allowTable,
                                      meta::Status* error);

// The forms of /api and /apis.
enum class DiscoveryForm { Legacy, AggregatedV2, AggregatedV2Beta1 };

std::optional<DiscoveryForm> negotiateDiscovery(std::string_view accept, meta::Status* error);

// Request body formats.
enum class InputForm { Json, Yaml, Protobuf };

// Mirrors NegotiateInputSerializer: empty means JSON; anything unsupported
// → 415 UnsupportedMediaType.
std::optional<InputForm> negotiateInput(std::string_view contentType, meta::Status* error);

// kube-apiserver indents JSON for pretty=true and for curl/Wget user agents.
bool wantsPretty(std::string_view userAgent, std::string_view prettyParam);

}  // namespace kube::endpoints
