#pragma once

// Reading JSON in unit tests: a text the test wrote or a server answered,
// and a member of it as a comparable string. Include cmocka before this
// header: a text that is not JSON fails the test.
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "util/json.hpp"

namespace kube::testing {

inline util::json::Document parseJson(std::string_view text) {
    util::json::Document d;
    if (auto err = util::json::parse(text, d)) {
        fail_msg("bad JSON (%s): %s", err->c_str(), std::string(text).c_str());
    }
    return d;
}

// The same, shared as the store and the kinds take objects.
inline std::shared_ptr<util::json::Document> parseSharedJson(std::string_view text) {
    return std::make_shared<util::json::Document>(parseJson(text));
}

// The member at `path` of `v`: a string as it is, anything else as compact
// JSON, "<absent>" when missing.
inline std::string valueAt(const util::json::Value& v,
                           std::initializer_list<std::string_view> path) {
    const util::json::Value* m = util::json::at(v, path);
    return !m              ? "<absent>"
           : m->IsString() ? std::string(util::json::view(*m))
                           : util::json::serialize(*m);
}

}  // namespace kube::testing
