#pragma once

// Calling a built-in kind's strategy and table as the store and the table
// writer do, without a server (the kinds' unit tests). Include cmocka before
// this header: a kind or column that does not exist fails the test.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "builtin_scheme.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"
#include "util/time.hpp"

namespace kube::testing {

// The built-in kind of `resource` at v1.
inline const registry::KindInfo& builtinKind(std::string_view group, std::string_view resource) {
    const registry::KindInfo* k = builtinScheme().find(group, "v1", resource);
    if (!k) {
        fail_msg("no kind for %s", std::string(resource).c_str());
    }
    return *k;
}

// What the store runs on create: prepareForCreate, defaults, validate.
inline std::vector<meta::StatusCause> runCreate(const registry::KindInfo& k,
                                                util::json::Document& d) {
    if (k.prepareForCreate) {
        k.prepareForCreate(d, d.GetAllocator());
    }
    if (k.defaults) {
        k.defaults(d, d.GetAllocator());
    }
    return k.validate ? k.validate(d) : std::vector<meta::StatusCause>{};
}

// The cell of column `name` for `obj`, serialized ("3", "\"1/3\""), read at
// 2026-11-21T23:55:01Z.
inline std::string tableCell(const registry::KindInfo& k, std::string_view name,
                             const util::json::Value& obj) {
    util::json::Document scratch;
    registry::TableContext now{*util::time::parseRFC3339("2026-11-21T23:55:01Z")};
    for (const registry::TableColumn& c : k.columns) {
        if (c.name == name) {
            return util::json::serialize(c.cell(obj, now, scratch.GetAllocator()));
        }
    }
    fail_msg("%s has no column %s", k.kind.c_str(), std::string(name).c_str());
    return "";
}

// "field: message" of every cause, for whole-list comparisons.
inline std::vector<std::string> causeMessages(const std::vector<meta::StatusCause>& causes) {
    std::vector<std::string> out;
    for (const meta::StatusCause& c : causes) {
        out.push_back(c.field + ": " + c.message);
    }
    return out;
}

// The causes are `want`, in order; what they were is printed when not.
inline void assertCauses(const std::vector<meta::StatusCause>& causes,
                         const std::vector<std::string>& want) {
    std::vector<std::string> got = causeMessages(causes);
    if (got != want) {
        for (const std::string& m : got) {
            std::fprintf(stderr, "got: %s\n", m.c_str());
        }
    }
    assert_true(got == want);
}

}  // namespace kube::testing
