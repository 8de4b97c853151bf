#include "endpoints/negotiation.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "endpoints/http.hpp"

namespace kube::endpoints {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

MediaRange parseRange(std::string_view entry) {
    MediaRange r;
    size_t semi = entry.find(';');
    r.type = lower(trimOws(entry.substr(0, semi)));
    while (semi != std::string_view::npos) {
        entry = entry.substr(semi + 1);
        semi = entry.find(';');
        std::string_view param = trimOws(entry.substr(0, semi));
        size_t eq = param.find('=');
        if (eq == std::string_view::npos) {
            continue;
        }
        std::string key = lower(trimOws(param.substr(0, eq)));
        std::string value(trimOws(param.substr(eq + 1)));
        if (key == "as") {
            r.as = value;
        } else if (key == "v") {
            r.v = value;
        } else if (key == "g") {
            r.g = value;
        } else if (key == "stream") {
            r.stream = value;
        } else if (key == "q") {
            r.q = std::strtod(value.c_str(), nullptr);
        }
    }
    return r;
}

bool isJsonRange(const MediaRange& r) {
    return r.type == "application/json" || r.type == "application/*" || r.type == "*/*";
}

bool isProtobufRange(const MediaRange& r) {
    return r.type == kProtobufMediaType;
}

}  // namespace

std::vector<MediaRange> parseAccept(std::string_view accept) {
    std::vector<MediaRange> out;
    while (!accept.empty()) {
        size_t comma = accept.find(',');
        std::string_view entry = trimOws(accept.substr(0, comma));
        if (!entry.empty()) {
            out.push_back(parseRange(entry));
        }
        if (comma == std::string_view::npos) {
            break;
        }
        accept.remove_prefix(comma + 1);
    }
    // By q, then concrete types before type/* before */* (goautoneg's order).
    auto specificity = [](const MediaRange& r) {
        return r.type == "*/*" ? 0 : r.type.ends_with("/*") ? 1 : 2;
    };
    std::stable_sort(out.begin(), out.end(), [&](const MediaRange& a, const MediaRange& b) {
        if (a.q != b.q) {
            return a.q > b.q;
        }
        return specificity(a) > specificity(b);
    });
    return out;
}

std::optional<Output> negotiateOutput(std::string_view accept, const OutputCapabilities& can,
                                      meta::Status* error) {
    if (trimOws(accept).empty()) {
        return Output{};
    }
    for (const MediaRange& r : parseAccept(accept)) {
        // Both serializers have a stream form; any other stream is unknown.
        if (r.q <= 0 || (!r.stream.empty() && r.stream != "watch")) {
            continue;
        }
        if (isProtobufRange(r)) {
            if (can.protobuf && r.as.empty()) {
                return Output{OutputForm::Protobuf, ""};
            }
            continue;
        }
        if (!isJsonRange(r)) {
            continue;
        }
        if (r.as.empty()) {
            return Output{};
        }
        if (r.as == "Table" && r.g == "meta.k8s.io" && (r.v == "v1" || r.v == "v1beta1")) {
            if (can.table) {
                return Output{OutputForm::Table, "meta.k8s.io/" + r.v};
            }
            return Output{};
        }
    }
    if (!can.protobuf) {
        // Like a custom resource's handler: it serves JSON alone.
        *error = meta::Status::notAcceptable(
            "only the following media types are accepted: " + std::string(kJsonMediaType));
        return std::nullopt;
    }
    *error = meta::Status::notAcceptable(
        "406: Not Acceptable\n\nAvailable representations: " + std::string(kJsonMediaType) + ", " +
        std::string(kProtobufMediaType));
    return std::nullopt;
}

std::optional<DiscoveryForm> negotiateDiscovery(std::string_view accept, meta::Status* error) {
    if (trimOws(accept).empty()) {
        return DiscoveryForm::Legacy;
    }
    for (const MediaRange& r : parseAccept(accept)) {
        if (r.q <= 0 || !isJsonRange(r)) {
            continue;
        }
        if (r.as.empty()) {
            return DiscoveryForm::Legacy;
        }
        if (r.as == "APIGroupDiscoveryList" && r.g == "apidiscovery.k8s.io") {
            if (r.v == "v2") {
                return DiscoveryForm::AggregatedV2;
            }
            if (r.v == "v2beta1") {
                return DiscoveryForm::AggregatedV2Beta1;
            }
        }
    }
    *error = meta::Status::notAcceptable(
        "only the following media types are accepted: " + std::string(kJsonMediaType));
    return std::nullopt;
}

std::optional<InputForm> negotiateInput(std::string_view contentType, meta::Status* error) {
    std::string type = lower(trimOws(contentType.substr(0, contentType.find(';'))));
    if (type.empty() || type == "application/json") {
        return InputForm::Json;
    }
    if (type == "application/yaml") {
        return InputForm::Yaml;
    }
    if (type == "application/vnd.kubernetes.protobuf") {
        return InputForm::Protobuf;
    }
    *error = meta::Status::unsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf");
    return std::nullopt;
}

// Mirrors isPrettyPrint: a pretty= value decides (Go's ParseBool; anything
// it does not parse is false), else browsers and CLI HTTP tools get indentation.
bool wantsPretty(std::string_view userAgent, std::string_view prettyParam) {
    if (!prettyParam.empty()) {
        for (std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"}) {
            if (prettyParam == yes) {
                return true;
            }
        }
        return false;
    }
    return userAgent.starts_with("curl") || userAgent.starts_with("Wget") ||
           userAgent.starts_with("Mozilla/5.0");
}

}  // namespace kube::endpoints
