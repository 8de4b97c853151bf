#include "registry/resource_version.hpp"

#include <charconv>

namespace kube::registry {

namespace {

meta::Status invalidListOptions(std::vector<meta::StatusCause> causes) {
    return meta::Status::invalid({"meta.k8s.io", "ListOptions"}, "", std::move(causes));
}

}  // namespace

bool parseResourceVersion(std::string_view rv, storage::Revision* out, meta::Status* error) {
    *out = 0;
    if (rv.empty()) {
        return true;
    }
    auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), *out);
    if (ec != std::errc() || end != rv.data() + rv.size()) {
        *error = meta::Status::badRequest("invalid resource version: strconv.ParseUint: parsing \"" +
                                          std::string(rv) + "\": invalid syntax");
        return false;
    }
    return true;
}

bool parseListVersion(std::string_view rv, std::string_view match, bool hasLimit,
                      bool hasContinue, ReadVersion* out, meta::Status* error) {
    std::vector<meta::StatusCause> causes;
    if (!match.empty()) {
        if (rv.empty()) {
            causes.push_back({"FieldValueForbidden",
                              "Forbidden: resourceVersionMatch is forbidden unless "
                              "resourceVersion is provided",
                              "resourceVersionMatch"});
        }
        if (hasContinue) {
            causes.push_back({"FieldValueForbidden",
                              "Forbidden: resourceVersionMatch is forbidden when continue is "
                              "provided",
                              "resourceVersionMatch"});
        }
        if (match != "Exact" && match != "NotOlderThan") {
            causes.push_back({"FieldValueNotSupported",
                              "Unsupported value: \"" + std::string(match) +
                                  "\": supported values: \"Exact\", \"NotOlderThan\", \"\"",
                              "resourceVersionMatch"});
        }
        if (match == "Exact" && rv == "0") {
            causes.push_back({"FieldValueForbidden",
                              "Forbidden: resourceVersionMatch \"exact\" is forbidden for "
                              "resourceVersion \"0\"",
                              "resourceVersionMatch"});
        }
    }
    if (!causes.empty()) {
        *error = invalidListOptions(std::move(causes));
        return false;
    }
    if (hasContinue && !rv.empty() && rv != "0") {
        *error = meta::Status::badRequest(
            "specifying resource version is not allowed when using continue");
        return false;
    }
    if (!parseResourceVersion(rv, &out->revision, error)) {
        return false;
    }
    if (rv.empty()) {
        out->match = ReadVersion::Match::MostRecent;
    } else if (out->revision == 0) {
        out->match = ReadVersion::Match::Any;
    } else if (match == "Exact" || (match.empty() && hasLimit)) {
        out->match = ReadVersion::Match::Exact;
    } else {
        out->match = ReadVersion::Match::NotOlderThan;
    }
    return true;
}

meta::Status tooLargeResourceVersion(storage::Revision wanted, storage::Revision current) {
    meta::Status s = meta::Status::timeout("Too large resource version: " +
                                           std::to_string(wanted) +
                                           ", current: " + std::to_string(current));
    meta::StatusDetails d;
    d.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
    d.retryAfterSeconds = 1;
    s.details = std::move(d);
    return s;
}

}  // namespace kube::registry
