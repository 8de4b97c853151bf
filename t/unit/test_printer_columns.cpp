// The Table columns of custom resources from a CRD version's
// additionalPrinterColumns: definitions, and cells per column type for
// present, absent and mistyped values. The expected cells are what
// kube-apiserver 1.26.5 answered for the same CRD and objects.
#include <chrono>
#include <string>
#include <vector>

#include "apis/apiextensions/printer_columns.hpp"
#include "util/json.hpp"
#include "util/time.hpp"

// cmocka last: its fail() macro breaks standard headers included after it.
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}
// clang-format on

namespace {

namespace json = kube::util::json;
using kube::apis::apiextensions::printerColumns;
using kube::registry::TableColumn;
using kube::registry::TableContext;

// A CRD's spec.versions[] entry, as crview.example.com/v1 CronTab has it.
const char* kVersion = R"({
  "name": "v1", "served": true, "storage": true,
  "additionalPrinterColumns": [
    {"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec", "description": "The cron spec"},
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
    {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio", "priority": 1},
    {"name": "Ok", "type": "boolean", "jsonPath": ".spec.ok"},
    {"name": "When", "type": "date", "jsonPath": ".spec.when", "format": "date"},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
    {"name": "Obj", "type": "string", "jsonPath": ".spec.obj"},
    {"name": "Tags", "type": "string", "jsonPath": ".spec.tags[*]"},
    {"name": "RepStr", "type": "string", "jsonPath": ".spec.replicas"},
    {"name": "RatioInt", "type": "integer", "jsonPath": ".spec.ratio"},
    {"name": "Missing", "type": "string", "jsonPath": ".spec.nothere"}
  ]
})";

// 2026-11-26T11:37:28Z
const TableContext kCtx{std::chrono::system_clock::time_point(std::chrono::seconds(1795693048))};

json::Document parse(const char* text) {
    json::Document d;
    assert_false(json::parse(text, d).has_value());
    return d;
}

// The row of `obj`: its cells serialized as JSON, in column order.
std::string row(const std::vector<TableColumn>& columns, const char* obj) {
    json::Document o = parse(obj);
    json::Document out(rapidjson::kArrayType);
    for (const TableColumn& c : columns) {
        out.PushBack(c.cell(o, kCtx, out.GetAllocator()), out.GetAllocator());
    }
    return json::serialize(out);
}

void columns_follow_the_crd_version(void**) {
    json::Document v = parse(kVersion);
    std::vector<TableColumn> cols = printerColumns(v);
    assert_int_equal(cols.size(), 13);
    assert_string_equal(cols[0].name.c_str(), "Name");
    assert_string_equal(cols[0].format.c_str(), "name");
    assert_string_equal(cols[1].name.c_str(), "Spec");
    assert_string_equal(cols[1].description.c_str(), "The cron spec");
    assert_string_equal(cols[2].type.c_str(), "integer");
    assert_string_equal(cols[2].description.c_str(),
                        "Custom resource definition column (in JSONPath format): .spec.replicas");
    assert_int_equal(cols[3].priority, 1);
    assert_int_equal(cols[2].priority, 0);
    assert_string_equal(cols[5].format.c_str(), "date");
    assert_string_equal(cols[5].type.c_str(), "date");
}

void cells_convert_per_column_type(void**) {
    json::Document v = parse(kVersion);
    std::vector<TableColumn> cols = printerColumns(v);
    // 2026-11-26T11:37:16Z created; kCtx is 12 s later.
    assert_string_equal(
        row(cols, R"({"metadata": {"name": "a", "creationTimestamp": "2026-11-26T11:37:16Z"},
                      "spec": {"cronSpec": "* * * * */5", "replicas": 3, "ratio": 2.75, "ok": true,
                               "when": "2020-01-02T03:04:05Z", "obj": {"x": 1}, "tags": ["p", "q"]},
                      "status": {"conditions": [{"type": "Other", "status": "X"},
                                                {"type": "Ready", "status": "True"},
                                                {"type": "Ready", "status": "Again"}]}})")
            .c_str(),
        R"(["a","* * * * */5",3,2.75,true,"6y330d","12s","True","{\"x\":1}","p","3",2,null])");
    // Absent values are null; a future date is <invalid>; an integral
    // number is written without a fraction.
    assert_string_equal(
        row(cols, R"({"metadata": {"name": "c", "creationTimestamp": "2026-11-26T11:37:16Z"},
                      "spec": {"cronSpec": "* * * * */5", "replicas": 7, "ratio": 3,
                               "when": "2099-01-02T03:04:05Z"}})")
            .c_str(),
        R"(["c","* * * * */5",7,3,null,"<invalid>","12s",null,null,null,"7",3,null])");
}

// One column of each type over the same value, kube's cells for each
// (number cells are the same numbers; RapidJSON spells some of them
// differently from Go: 100000000000000000000.0 for Go's 100000000000000000000).
void cells_of_mistyped_values(void**) {
    json::Document v = parse(R"({"additionalPrinterColumns": [
        {"name": "Str", "type": "string", "jsonPath": ".spec.v"},
        {"name": "Int", "type": "integer", "jsonPath": ".spec.v"},
        {"name": "Num", "type": "number", "jsonPath": ".spec.v"},
        {"name": "Bool", "type": "boolean", "jsonPath": ".spec.v"},
        {"name": "Date", "type": "date", "jsonPath": ".spec.v"}]})");
    std::vector<TableColumn> cols = printerColumns(v);
    struct Case {
        const char* value;
        const char* want;  // the cells after Name
    } cases[] = {
        {"null", R"(["<no value>",null,null,null,null])"},
        {"true", R"(["true",null,null,true,null])"},
        {"1.5", R"(["1.5",1,1.5,null,null])"},
        {"1e20", R"(["1e+20",-9223372036854775808,100000000000000000000.0,null,null])"},
        {R"([1,"a<b"])", R"(["[1,\"a\\u003cb\"]",null,null,null,null])"},
        {R"("x")", R"(["x",null,null,null,"<invalid>"])"},
        {R"({"k":"v","a":[1,2.0]})", R"(["{\"a\":[1,2],\"k\":\"v\"}",null,null,null,null])"},
        {"7", R"(["7",7,7,null,null])"},
        {R"("2020-01-02T03:04:05Z")", R"(["2020-01-02T03:04:05Z",null,null,null,"6y330d"])"},
        {R"("5")", R"(["5",null,null,null,"<invalid>"])"},
        {"1.0", R"(["1",1,1,null,null])"},
        {"0.000001", R"(["1e-06",0,0.000001,null,null])"},
        {"12345678901234567890",
         R"(["1.2345678901234567e+19",-9223372036854775808,12345678901234568000.0,null,null])"},
        {R"("2020-01-02")", R"(["2020-01-02",null,null,null,"<invalid>"])"},
        {R"("")", R"(["",null,null,null,"<unknown>"])"},
    };
    for (const Case& c : cases) {
        std::string obj =
            R"({"metadata": {"name": "t"}, "spec": {"v": )" + std::string(c.value) + "}}";
        std::string want = std::string(R"(["t",)") + (c.want + 1);
        assert_string_equal(row(cols, obj.c_str()).c_str(), want.c_str());
    }
    // Absent altogether: every cell null.
    assert_string_equal(row(cols, R"({"metadata": {"name": "t"}})").c_str(),
                        R"(["t",null,null,null,null,null])");
}

void without_columns_name_and_age_are_served(void**) {
    json::Document v = parse(R"({"name": "v2", "served": true, "storage": false})");
    std::vector<TableColumn> cols = printerColumns(v);
    assert_int_equal(cols.size(), 2);
    assert_string_equal(cols[1].name.c_str(), "Age");
    assert_string_equal(cols[1].type.c_str(), "date");
    assert_string_equal(
        row(cols, R"({"metadata": {"name": "b", "creationTimestamp": "2026-11-26T11:37:16Z"}})")
            .c_str(),
        R"(["b","12s"])");
    json::Document empty = parse(R"({"name": "v2", "additionalPrinterColumns": []})");
    assert_int_equal(printerColumns(empty).size(), 2);
}

// kube keeps the columns before the first whose JSONPath does not parse.
void a_column_that_does_not_parse_ends_the_list(void**) {
    json::Document v = parse(R"({"additionalPrinterColumns": [
        {"name": "A", "type": "string", "jsonPath": ".spec.a"},
        {"name": "Bad", "type": "string", "jsonPath": ".spec[x"},
        {"name": "C", "type": "string", "jsonPath": ".spec.c"}]})");
    std::vector<TableColumn> cols = printerColumns(v);
    assert_int_equal(cols.size(), 2);
    assert_string_equal(cols[1].name.c_str(), "A");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(columns_follow_the_crd_version),
        cmocka_unit_test(cells_convert_per_column_type),
        cmocka_unit_test(cells_of_mistyped_values),
        cmocka_unit_test(without_columns_name_and_age_are_served),
        cmocka_unit_test(a_column_that_does_not_parse_ends_the_list),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
