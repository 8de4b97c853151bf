// util::json::parse as Go's encoding/json decodes client bytes: at most
// 10,000 levels, parsed without recursion; U+FFFD for invalid UTF-8 and lone
// surrogates; Go's wording. Then a value 10,000 levels deep goes through
// everything that walks a whole object (decode, schema check, copy,
// serialization, the stored encoding and protobuf) without running out of
// stack.
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "apis/core/kinds.hpp"
#include "endpoints/decode.hpp"
#include "endpoints/field_validation.hpp"
#include "endpoints/protobuf_encoder.hpp"
#include "registry/encoding.hpp"
#include "util/json.hpp"
#include "util/json_depth.hpp"
#include "util/json_member_text.hpp"
#include "util/utf8.hpp"
#include "util/yaml.hpp"

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

namespace json = kube::util::json;
namespace utf8 = kube::util::utf8;

namespace {

// The compact JSON `text` parses to, or "ERR <message>".
std::string roundTrip(std::string_view text) {
    json::Document doc;
    if (std::optional<std::string> err = json::parse(text, doc)) {
        assert_true(doc.IsNull());
        return "ERR " + *err;
    }
    return json::serialize(doc);
}

std::string nested(int levels, std::string_view inner = "") {
    return std::string(static_cast<size_t>(levels), '[') + std::string(inner) +
           std::string(static_cast<size_t>(levels), ']');
}

void depth_is_limited_to_ten_thousand_levels(void**) {
    assert_string_equal(roundTrip(nested(10000)).c_str(), nested(10000).c_str());
    assert_string_equal(roundTrip(nested(10001)).c_str(),
                        "ERR invalid character '[' exceeded max depth");
    // The outer object counts: kube refuses {"x": <10,000 arrays>}.
    std::string inObject = R"({"apiVersion":"v1","x":)" + nested(10000) + "}";
    assert_string_equal(roundTrip(inObject).c_str(),
                        "ERR invalid character '[' exceeded max depth");
    std::string objects;
    for (int i = 0; i < 10001; i++) {
        objects += R"({"a":)";
    }
    assert_string_equal(roundTrip(objects + "1" + std::string(10001, '}')).c_str(),
                        "ERR invalid character '{' exceeded max depth");
}

void two_hundred_thousand_levels_fail_fast(void**) {
    auto start = std::chrono::steady_clock::now();
    assert_string_equal(roundTrip(nested(200000)).c_str(),
                        "ERR invalid character '[' exceeded max depth");
    // Unclosed, the same: the limit is met before the end.
    assert_string_equal(roundTrip(std::string(200000, '[')).c_str(),
                        "ERR invalid character '[' exceeded max depth");
    auto took = std::chrono::steady_clock::now() - start;
    assert_true(took < std::chrono::seconds(1));
}

void invalid_utf8_becomes_replacement_characters(void**) {
    // Go replaces each byte that does not start a valid sequence.
    assert_string_equal(roundTrip("{\"k\":\"a\xff"
                                  "b\xc3(c\xed\xa0\x80"
                                  "d\"}")
                            .c_str(),
                        "{\"k\":\"a\xef\xbf\xbd"
                        "b\xef\xbf\xbd(c\xef\xbf\xbd\xef\xbf\xbd"
                        "\xef\xbf\xbd"
                        "d\"}");
    // Keys too; valid multi-byte text is kept.
    assert_string_equal(roundTrip("{\"\xe2\x82\":\"\xc3\xa9\xf0\x9f\x98\x80\"}").c_str(),
                        "{\"\xef\xbf\xbd\xef\xbf\xbd\":\"\xc3\xa9\xf0\x9f\x98\x80\"}");
    // Cut off at the end of the string, overlong, past U+10FFFF.
    assert_string_equal(roundTrip("[\"\xf0\x9f\x98\",\"\xc0\xaf\",\"\xf4\x90\x80\x80\"]").c_str(),
                        "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",\"\xef\xbf\xbd\xef\xbf\xbd\","
                        "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"]");
}

void lone_surrogate_escapes_become_replacement_characters(void**) {
    assert_string_equal(roundTrip(R"(["\ud800","\udc00x","\ud800\u0041"])").c_str(),
                        "[\"\xef\xbf\xbd\",\"\xef\xbf\xbdx\",\"\xef\xbf\xbd"
                        "A\"]");
    // A pair stays one character; an escaped backslash is not an escape.
    assert_string_equal(roundTrip(R"(["\ud83d\ude00","\\ud800"])").c_str(),
                        "[\"\xf0\x9f\x98\x80\",\"\\\\ud800\"]");
    assert_string_equal(roundTrip(R"(["\ud800\ud800\udc00"])").c_str(),
                        "[\"\xef\xbf\xbd\xf0\x90\x80\x80\"]");
}

void errors_use_go_wording(void**) {
    assert_string_equal(roundTrip(R"({"a":)").c_str(), "ERR unexpected end of JSON input");
    assert_string_equal(roundTrip("x").c_str(),
                        "ERR invalid character 'x' looking for beginning of value");
    assert_string_equal(roundTrip("{}x").c_str(),
                        "ERR invalid character 'x' after top-level value");
    assert_string_equal(roundTrip(std::string("{}\0", 3)).c_str(),
                        "ERR invalid character '\\x00' after top-level value");
    assert_string_equal(roundTrip("[1,]").c_str(),
                        "ERR invalid character ']' looking for beginning of value");
    assert_string_equal(roundTrip("{\"a\" 1}").c_str(),
                        "ERR invalid character '1' after object key");
}

void utf8_helpers_follow_go(void**) {
    assert_true(utf8::valid("plain \xc3\xa9"));
    assert_false(utf8::valid("\xed\xa0\x80"));
    assert_string_equal(utf8::toValid("\xe2\x82x").c_str(), "\xef\xbf\xbd\xef\xbf\xbdx");
    std::string s = "ok";
    utf8::makeValid(s);
    assert_string_equal(s.c_str(), "ok");
}

void first_too_deep_names_the_opening_character(void**) {
    json::Document doc;
    assert_false(json::parse(nested(10000), doc).has_value());
    assert_false(json::firstTooDeep(doc).has_value());
    assert_int_equal(*json::firstTooDeep(doc, 9999), '[');
    assert_false(json::parse(R"({"a":[1,{"b":{}}],"c":[]})", doc).has_value());
    assert_false(json::firstTooDeep(doc, 4).has_value());
    assert_int_equal(*json::firstTooDeep(doc, 3), '{');
    assert_int_equal(*json::firstTooDeep(doc, 1), '[');
}

void text_nesting_is_read_without_parsing(void**) {
    assert_false(json::textNestsDeeperThan(nested(300), 300));
    assert_true(json::textNestsDeeperThan(nested(300), 299));
    std::string text = R"({"a":[1,{"b":{}}],"c":[]})";
    assert_false(json::textNestsDeeperThan(text, 4));
    assert_true(json::textNestsDeeperThan(text, 3));
    // Brackets in strings, escaped quotes included, are no nesting.
    assert_false(json::textNestsDeeperThan(R"({"a":"[[[{{{\"[[[","b":[]})", 2));
    assert_true(json::textNestsDeeperThan(R"({"a":"x\\","b":[[]]})", 2));
}

// {"apiVersion":"v1","kind":"ConfigMap","metadata":{...fieldsV1: deep...},
//  "x": deep} with the whole object `levels` deep.
std::string deepConfigMap(int levels) {
    std::string fields;
    // metadata, managedFields, [0], fieldsV1 and the object itself: 5 levels.
    for (int i = 0; i < levels - 5; i++) {
        fields += R"({"f:a":)";
    }
    fields += "{}" + std::string(static_cast<size_t>(levels - 5), '}');
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep",)"
           R"("managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1",)"
           R"("fieldsType":"FieldsV1","fieldsV1":)" +
           fields + R"(}]},"x":)" + nested(levels - 1) + "}";
}

void ten_thousand_levels_pass_every_walker(void**) {
    std::string body = deepConfigMap(10000);
    kube::meta::Status err;
    auto kind = kube::apis::core::configMapKind();
    auto doc = kube::endpoints::decodeObject(body, kube::endpoints::InputForm::Json, kind, &err);
    if (!doc) {
        print_error("%s\n", err.message.c_str());
    }
    assert_non_null(doc.get());

    // A copy, compact and pretty text, parsed back.
    json::Document copy;
    copy.CopyFrom(*doc, copy.GetAllocator());
    std::string text = json::serialize(copy);
    assert_true(text.size() > 40000);
    assert_string_equal(json::serializePretty(*doc).c_str(), text.c_str());  // too deep to indent
    json::Document back;
    assert_false(json::parse(text, back).has_value());
    assert_true(back == *doc);

    // The stored form and the protobuf form.
    assert_true(kube::registry::encodeObject(*doc).bytes.size() > 40000);
    std::string raw;
    assert_false(kube::endpoints::encodeProtobufRaw(*doc, "v1", "ConfigMap", &raw).has_value());
    assert_true(raw.size() > 40000);

    // kube's typed decoding drops the unknown field and keeps fieldsV1.
    auto check = kube::endpoints::checkAgainstSchema(*doc, doc->GetAllocator(), "v1", "ConfigMap");
    assert_true(check.checked);
    assert_false(check.typeError.has_value());
    assert_int_equal(check.strictErrors.size(), 1);
    assert_string_equal(check.strictErrors[0].c_str(), "unknown field \"x\"");

    // The same object as YAML decodes as deep, without recursion.
    json::Document fromYaml;
    assert_false(kube::util::yaml::toJson(text, fromYaml).has_value());
    assert_true(fromYaml == copy);
}

void a_level_too_many_is_refused_in_each_form(void**) {
    kube::meta::Status err;
    auto kind = kube::apis::core::configMapKind();
    std::string body = deepConfigMap(10001);
    assert_null(
        kube::endpoints::decodeObject(body, kube::endpoints::InputForm::Json, kind, &err).get());
    assert_int_equal(err.code, 400);
    assert_string_equal(err.message.c_str(),
                        "the object provided is unrecognized (must be of type ConfigMap): "
                        "couldn't get version/kind; json parse error: invalid character '{' "
                        "exceeded max depth ({\"apiVersion\":\"v1\",\"kind\":\"Con ...)");
    // As YAML, the same text is 10,001 flow levels, past go-yaml's limit.
    assert_null(
        kube::endpoints::decodeObject(body, kube::endpoints::InputForm::Yaml, kind, &err).get());
    assert_string_equal(err.message.c_str(),
                        "the object provided is unrecognized (must be of type ConfigMap): "
                        "yaml: exceeded max depth of 10000 "
                        "({\"apiVersion\":\"v1\",\"kind\":\"Con ...)");
    // Within go-yaml's limit, block mappings around it make the JSON too deep
    // for kube's decoder, and it says so as it would of a JSON body.
    std::string yaml = "x:\n  y: " + nested(9999) + "\n";
    assert_null(
        kube::endpoints::decodeObject(yaml, kube::endpoints::InputForm::Yaml, kind, &err).get());
    std::string want =
        "the object provided is unrecognized (must be of type ConfigMap): "
        "couldn't get version/kind; json parse error: invalid character '[' "
        "exceeded max depth (" +
        kube::endpoints::summarizeBody(yaml) + ")";
    assert_string_equal(err.message.c_str(), want.c_str());
    assert_true(
        want.ends_with("(783a0a2020793a205b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b ...)"));
}

void kind_and_api_version_must_be_strings(void**) {
    kube::meta::Status err;
    auto kind = kube::apis::core::configMapKind();
    auto expect = [&](std::string_view body, const char* why, const char* summary) {
        assert_null(
            kube::endpoints::decodeObject(body, kube::endpoints::InputForm::Json, kind, &err)
                .get());
        assert_int_equal(err.code, 400);
        std::string want = std::string(
                               "the object provided is unrecognized (must be of type "
                               "ConfigMap): couldn't get version/kind; json parse "
                               "error: ") +
                           why + " (" + summary + ")";
        assert_string_equal(err.message.c_str(), want.c_str());
    };
    expect(R"({"kind":5})",
           "json: cannot unmarshal number into Go struct field .kind of type string",
           R"({"kind":5})");
    expect(R"({"apiVersion":[],"kind":{}})",
           "json: cannot unmarshal array into Go struct field .apiVersion of type string",
           R"({"apiVersion":[],"kind":{}})");
    expect("[1,2,3]",
           "json: cannot unmarshal array into Go value of type struct { APIVersion string "
           "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }",
           "5b312c322c335d");
    // null is no kind at all; a null body is an empty object.
    assert_non_null(kube::endpoints::decodeObject(R"({"kind":null,"metadata":{"name":"a"}})",
                                                  kube::endpoints::InputForm::Json, kind, &err)
                        .get());
    assert_non_null(
        kube::endpoints::decodeObject("null", kube::endpoints::InputForm::Json, kind, &err).get());
}

// Numbers are read correctly rounded (by std::from_chars, not RapidJSON, whose
// full-precision reader has undefined behaviour), as Go's strconv reads them
// (glibc's strtod is too), however many digits they have; what is written
// reads back to the same double.
// A default std::string_view has a null data pointer; RapidJSON's StringRef
// asserts on one (a throw here), so every lookup and copy by name treats it
// as "".
void null_views_are_empty_names(void**) {
    json::Document doc;
    assert_false(json::parse(R"({"":"empty","a":"b"})", doc).has_value());
    std::string_view none;
    assert_null(none.data());
    const json::Value* m = json::member(static_cast<const json::Value&>(doc), none);
    assert_non_null(m);
    assert_string_equal(m->GetString(), "empty");
    assert_string_equal(std::string(json::stringMember(doc, none)).c_str(), "empty");
    assert_null(json::at(doc, {"a", none}));
    json::Value s = json::stringValue(none, doc.GetAllocator());
    assert_true(s.IsString());
    assert_int_equal(s.GetStringLength(), 0);
    json::setMember(doc, none, json::Value(1), doc.GetAllocator());
    assert_string_equal(json::serialize(doc).c_str(), R"({"":1,"a":"b"})");
    json::removeMember(doc, none);
    assert_string_equal(json::serialize(doc).c_str(), R"({"a":"b"})");
    json::Document empty;
    empty.SetObject();
    assert_null(json::member(empty, none));
}

// Pretty output indents two spaces a level, as PrettyWriter (and Go's
// json.Indent) do, unless the indentation would outgrow the text: 10,000
// levels would make ~100 MB of spaces, so they are answered compact.
void pretty_output_falls_back_to_compact_when_indentation_would_outgrow_it(void**) {
    json::Document d;
    assert_false(json::parse(R"({"a":[1,{"b":{}}],"c":[],"d":"x"})", d).has_value());
    assert_string_equal(json::serializePretty(d).c_str(),
                        "{\n  \"a\": [\n    1,\n    {\n      \"b\": {}\n    }\n  ],\n"
                        "  \"c\": [],\n  \"d\": \"x\"\n}");

    // 100 levels: 20 KB of indentation for 200 bytes, within the slack.
    assert_false(json::parse(nested(100, "1"), d).has_value());
    std::string pretty = json::serializePretty(d);
    assert_int_equal(pretty.size(), 201 + 100 * 100 * 2 + 200);
    // 1,000 and 10,000 levels: compact, at once.
    for (int levels : {1000, 10000}) {
        assert_false(json::parse(nested(levels, "1"), d).has_value());
        auto t0 = std::chrono::steady_clock::now();
        std::string out = json::serializePretty(d);
        auto took = std::chrono::steady_clock::now() - t0;
        assert_string_equal(out.c_str(), nested(levels, "1").c_str());
        assert_true(took < std::chrono::milliseconds(100));
    }
    // Wide and shallow stays pretty however large: 100,000 items of three
    // levels, 2.3 MB of indentation for 600 KB.
    std::string wide;
    for (int i = 0; i < 100000; ++i) {
        wide += i ? ",[[1]]" : "[[[1]]";
    }
    wide += "]";
    assert_false(json::parse(wide, d).has_value());
    assert_true(json::serializePretty(d).size() > 4 * wide.size());
}

void numbers_are_read_correctly_rounded(void** /*state*/) {
    const char* texts[] = {
        "8888888888888888888888888888888800124759417562692",  // fuzz/regressions/json
        "0.1000000000000000055511151231257827021181583404541015625",
        "2.2250738585072011e-308",
        "1.7976931348623157e308",
        "9007199254740993.0",
        "1.00000000000000011102230246251565404236316680908203125",
        "1844674407370955161574",  // RapidJSON's own full-precision reader: clz(0)
    };
    for (const char* text : texts) {
        json::Document doc;
        assert_false(json::parse(text, doc).has_value());
        assert_true(doc.IsDouble());
        assert_true(doc.GetDouble() == std::strtod(text, nullptr));
        json::Document again;
        assert_false(json::parse(json::serialize(doc), again).has_value());
        assert_true(again.GetDouble() == doc.GetDouble());
    }
}

// stringValue copies: the value outlives the bytes it was made from.
void one_member_is_read_without_the_rest(void**) {
    using kube::util::json::topLevelMemberText;
    auto text = [](std::string_view doc, std::string_view name) {
        std::optional<std::string_view> t = topLevelMemberText(doc, name);
        return t ? std::string(*t) : std::string("<none>");
    };
    const char* obj = R"({"kind":"Pod", "metadata" : {"name":"a","x":[1,{"metadata":2}]},"n":7})";
    assert_string_equal(text(obj, "metadata").c_str(), R"({"name":"a","x":[1,{"metadata":2}]})");
    assert_string_equal(text(obj, "kind").c_str(), "\"Pod\"");
    assert_string_equal(text(obj, "n").c_str(), "7");
    assert_string_equal(text(obj, "name").c_str(), "<none>");  // not at the top
    assert_string_equal(text(R"([{"metadata":{}}])", "metadata").c_str(), "<none>");
    assert_string_equal(text("7", "metadata").c_str(), "<none>");
    assert_string_equal(text(R"({"metadata":{"a":)", "metadata").c_str(), "<none>");
    assert_string_equal(text(R"({"metadata":[true,null]})", "metadata").c_str(), "[true,null]");
    // What follows the member is not read: a large or even broken rest costs nothing.
    std::string big = R"({"metadata":{"uid":"u"},"data":")" + std::string(8 << 20, 'x');
    auto start = std::chrono::steady_clock::now();
    assert_string_equal(text(big, "metadata").c_str(), R"({"uid":"u"})");
    assert_true(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(5));
    // A member 10,000 levels deep at most and past it: no recursion.
    std::string deep = R"({"spec":)" + std::string(100000, '[') + std::string(100000, ']') +
                       R"(,"metadata":{}})";
    assert_string_equal(text(deep, "metadata").c_str(), "{}");
}

void string_values_own_their_bytes(void** /*state*/) {
    json::Document doc;
    std::string text = "a=b";
    json::Value v = json::stringValue(std::string_view(text).substr(0, 1), doc.GetAllocator());
    text.assign("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz");
    assert_string_equal(std::string(json::view(v)).c_str(), "a");
    json::Value empty = json::stringValue(std::string_view(), doc.GetAllocator());
    assert_true(empty.IsString() && empty.GetStringLength() == 0);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(depth_is_limited_to_ten_thousand_levels),
        cmocka_unit_test(two_hundred_thousand_levels_fail_fast),
        cmocka_unit_test(invalid_utf8_becomes_replacement_characters),
        cmocka_unit_test(lone_surrogate_escapes_become_replacement_characters),
        cmocka_unit_test(errors_use_go_wording),
        cmocka_unit_test(utf8_helpers_follow_go),
        cmocka_unit_test(first_too_deep_names_the_opening_character),
        cmocka_unit_test(ten_thousand_levels_pass_every_walker),
        cmocka_unit_test(a_level_too_many_is_refused_in_each_form),
        cmocka_unit_test(kind_and_api_version_must_be_strings),
        cmocka_unit_test(numbers_are_read_correctly_rounded),
        cmocka_unit_test(text_nesting_is_read_without_parsing),
        cmocka_unit_test(string_values_own_their_bytes),
        cmocka_unit_test(one_member_is_read_without_the_rest),
        cmocka_unit_test(null_views_are_empty_names),
        cmocka_unit_test(pretty_output_falls_back_to_compact_when_indentation_would_outgrow_it),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
