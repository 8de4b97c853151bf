#pragma once

// Reading a ServedServer's answers in the kinds' unit tests: a member of a
// JSON body, the causes of a 422, the cells of a Table. Include cmocka
// before this header: a body that is not JSON fails the test.
#include <initializer_list>
#include <string>
#include <string_view>

#include "json_reading.hpp"
#include "util/json.hpp"

namespace kube::testing {

// The member at `path` of a JSON body, as valueAt reads it.
inline std::string bodyAt(std::string_view body, std::initializer_list<std::string_view> path) {
    return valueAt(parseJson(body), path);
}

// The causes of a 422 Status, "<field>: <message>" one per line.
inline std::string statusCauses(const std::string& body) {
    util::json::Document d = parseJson(body);
    const util::json::Value* cs = util::json::at(d, {"details", "causes"});
    std::string out;
    if (cs && cs->IsArray()) {
        for (const util::json::Value& c : cs->GetArray()) {
            out += std::string(util::json::stringMember(c, "field")) + ": " +
                   std::string(util::json::stringMember(c, "message")) + "\n";
        }
    }
    return out;
}

// A Table's column names, space-separated.
inline std::string tableColumns(const std::string& body) {
    util::json::Document d = parseJson(body);
    std::string out;
    for (const util::json::Value& c : d["columnDefinitions"].GetArray()) {
        out += (out.empty() ? "" : " ") + std::string(util::json::stringMember(c, "name"));
    }
    return out;
}

// The cells of a Table's row `i` as compact JSON.
inline std::string tableRow(const std::string& body, size_t i) {
    util::json::Document d = parseJson(body);
    return util::json::serialize(d["rows"][static_cast<rapidjson::SizeType>(i)]["cells"]);
}

constexpr const char* kTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io";

}  // namespace kube::testing
