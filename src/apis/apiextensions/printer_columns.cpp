#include "apis/apiextensions/printer_columns.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "registry/table_cells.hpp"
#include "util/json_path.hpp"
#include "util/time.hpp"

namespace kube::apis::apiextensions {

namespace {

namespace json = util::json;

// Go's int64(f) on amd64: out of range (or NaN) is the smallest int64.
int64_t goInt64(double f) {
    if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) {
        return std::numeric_limits<int64_t>::min();
    }
    return static_cast<int64_t>(f);
}

// A float64 cell as Go's encoding/json writes it: integral values without a
// fraction ("3", not "3.0").
json::Value floatCell(double f) {
    if (std::trunc(f) == f && std::fabs(f) < 9007199254740992.0) {
        return json::Value(static_cast<int64_t>(f));
    }
    return json::Value(f);
}

// metatable.ConvertToHumanReadableDateType of a date column's text.
std::string dateCell(std::string_view text, std::chrono::system_clock::time_point now) {
    if (text.empty() || text == "null") {
        return "<unknown>";  // metav1.Time's zero value
    }
    std::optional<util::time::TimePoint> t = util::time::parseRFC3339(text);
    if (!t) {
        return "<invalid>";
    }
    if (util::time::formatRFC3339(*t) == "0001-01-01T00:00:00Z" &&
        t->time_since_epoch().count() % 1000000 == 0) {
        return "<unknown>";  // time.Time.IsZero
    }
    return util::time::humanDuration(
        util::time::secondsBetween(*t, std::chrono::floor<util::time::Duration>(now)));
}

// cellForJSONValue: the cell of a non-string column.
json::Value typedCell(std::string_view type, const json::Value& v,
                      const registry::TableContext& ctx, json::Allocator& a) {
    if (type == "integer" && v.IsNumber()) {
        return json::Value(v.IsInt64() ? v.GetInt64() : goInt64(v.GetDouble()));
    }
    if (type == "number" && v.IsNumber()) {
        return v.IsInt64() ? json::Value(v.GetInt64()) : floatCell(v.GetDouble());
    }
    if (type == "boolean" && v.IsBool()) {
        return json::Value(v.GetBool());
    }
    if (type == "string" && v.IsString()) {
        return json::stringValue(json::view(v), a);
    }
    if (type == "date" && v.IsString()) {
        return json::stringValue(dateCell(json::view(v), ctx.now), a);
    }
    return json::Value();
}

registry::TableColumn column(std::string name, std::string type, std::string format,
                             std::string description, int priority,
                             std::shared_ptr<const util::JsonPath> path) {
    registry::TableColumn c;
    c.name = std::move(name);
    c.type = std::move(type);
    c.format = std::move(format);
    c.description = std::move(description);
    c.priority = priority;
    c.cell = [path = std::move(path), type = c.type](
                 const json::Value& obj, const registry::TableContext& ctx, json::Allocator& a) {
        std::optional<util::JsonPath::Results> results = path->findResults(obj);
        if (!results || results->empty() || results->front().empty()) {
            return json::Value();
        }
        // Only the first value counts, as in kube.
        const json::Value& v = *results->front().front();
        if (type == "string") {
            return json::stringValue(util::jsonPathText(v), a);
        }
        return typedCell(type, v, ctx, a);
    };
    return c;
}

}  // namespace

std::vector<registry::TableColumn> printerColumns(const json::Value& versionEntry) {
    std::vector<registry::TableColumn> out = {registry::cells::nameColumn()};
    const json::Value* columns = json::member(versionEntry, "additionalPrinterColumns");
    if (!columns || !columns->IsArray() || columns->Empty()) {
        // serveDefaultColumnsIfEmpty
        auto path = std::make_shared<const util::JsonPath>(
            util::JsonPath::parse("{.metadata.creationTimestamp}"));
        out.push_back(column("Age", "date", "",
                             "CreationTimestamp is the server time when the object was created.", 0,
                             std::move(path)));
        return out;
    }
    for (const json::Value& c : columns->GetArray()) {
        std::string jsonPath(json::stringMember(c, "jsonPath"));
        auto path =
            std::make_shared<const util::JsonPath>(util::JsonPath::parse("{" + jsonPath + "}"));
        if (!path->valid()) {
            break;
        }
        std::string description(json::stringMember(c, "description"));
        if (description.empty()) {
            description = "Custom resource definition column (in JSONPath format): " + jsonPath;
        }
        const json::Value* priority = json::member(c, "priority");
        out.push_back(column(
            std::string(json::stringMember(c, "name")), std::string(json::stringMember(c, "type")),
            std::string(json::stringMember(c, "format")), std::move(description),
            priority && priority->IsInt() ? priority->GetInt() : 0, std::move(path)));
    }
    return out;
}

}  // namespace kube::apis::apiextensions
