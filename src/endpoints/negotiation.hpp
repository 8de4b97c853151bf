#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"

namespace kube::endpoints {

// The media types of resource responses.
inline constexpr std::string_view kJsonMediaType{"application/json"};
inline constexpr std::string_view kProtobufMediaType{"application/vnd.kubernetes.protobuf"};
// A watch in protobuf: length-prefixed frames.
inline constexpr std::string_view kProtobufWatchMediaType{
    "application/vnd.kubernetes.protobuf;stream=watch"};

// One entry of an Accept header: "application/json;as=Table;v=v1;g=meta.k8s.io".
struct MediaRange {
    std::string type;     // "application/json", "*/*"
    std::string as, v, g; // the Kubernetes parameters, lowercase keys
    std::string stream;   // "watch" in "...;stream=watch"
    double q = 1.0;
};

// The entries in preference order (by q, then as written).
std::vector<MediaRange> parseAccept(std::string_view accept);

// What an object or list response is rendered as: JSON, a JSON Table, or
// protobuf (application/vnd.kubernetes.protobuf).
enum class OutputForm { Json, Table, Protobuf };

struct Output {
    OutputForm form = OutputForm::Json;
    std::string tableGroupVersion;  // "meta.k8s.io/v1" or "meta.k8s.io/v1beta1"
};

// What an endpoint can render besides plain JSON; mirrors the endpoint
// restrictions kube's negotiation consults.
struct OutputCapabilities {
    bool table = false;     // get, list and watch render tables
    bool protobuf = false;  // the kind has a protobuf schema
};

// Mirrors negotiation.NegotiateOutputMediaType for resource endpoints: the
// first acceptable entry wins. A Table is JSON only (kube allows the Table
// transform for application/json and yaml alone), so a protobuf entry asking
// for one is skipped, as is a protobuf entry for a kind without a schema. An
// Accept nothing satisfies → 406 NotAcceptable.
std::optional<Output> negotiateOutput(std::string_view accept, const OutputCapabilities& can,
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
