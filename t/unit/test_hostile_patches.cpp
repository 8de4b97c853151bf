// Patches built to hurt: a strategic merge patch that de-duplicates a list
// (a RapidJSON value once moved onto itself and ended the process), patches
// and documents 10,000 levels deep (the parser's limit) for each patch type,
// Go's printers of values embedded in patch errors walking 100,000 levels,
// patches of 100,000 keys or items, which must take time linear in their
// size (the generous bounds below fail at O(N²)), and JSON patch copies
// that double the document until kube's 3 MiB of copies.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/protobuf_codec.hpp"
#include "registry/patch/go_format.hpp"
#include "registry/patch/json_patch.hpp"
#include "registry/patch/merge_patch.hpp"
#include "registry/patch/strategic_merge_patch.hpp"
#include "util/json.hpp"

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

#include "json_reading.hpp"

namespace json = kube::util::json;
namespace patch = kube::registry::patch;

namespace {

// As deep as a client can send: the parser's limit, less the levels that wrap
// the deep value in the tests' documents and patches.
constexpr int kDepth = json::kMaxNestingDepth - 8;

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

// The patched document, or "<kind>: <message>".
std::string outcome(const json::Document& doc, const std::optional<patch::Error>& err) {
    if (err) {
        return std::to_string(static_cast<int>(err->kind)) + ": " + err->message;
    }
    return json::serialize(doc);
}

std::string smp(std::string_view kind, std::string_view doc, std::string_view body) {
    json::Document d = parse(doc);
    patch::PatchSchema schema(kube::endpoints::protobufSchema("v1", kind));
    std::vector<std::string> strictErrors;
    return outcome(d,
                   patch::applyStrategicMergePatch(d, body, schema, true, &strictErrors, nullptr));
}

std::string merge(std::string_view doc, std::string_view body) {
    json::Document d = parse(doc);
    std::vector<std::string> strictErrors;
    return outcome(d, patch::applyMergePatch(d, body, true, &strictErrors));
}

std::string jsonPatch(std::string_view doc, std::string_view ops) {
    json::Document d = parse(doc);
    patch::Error err;
    auto p = patch::JsonPatch::decode(ops, true, nullptr, &err);
    if (!p) {
        return outcome(d, err);
    }
    return outcome(d, p->apply(d));
}

// `open` `depth` times, `middle`, then `close` as often.
std::string nested(std::string_view open, std::string_view middle, std::string_view close,
                   int depth = kDepth) {
    std::string out;
    out.reserve((open.size() + close.size()) * depth + middle.size());
    for (int i = 0; i < depth; ++i) {
        out += open;
    }
    out += middle;
    for (int i = 0; i < depth; ++i) {
        out += close;
    }
    return out;
}

double seconds(const std::function<void()>& run) {
    auto start = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---------------------------------------------------------------- self-moves

void smp_of_a_finalizer_already_there_keeps_the_set(void**) {
    std::string doc = R"({"metadata":{"finalizers":["example.com/a"]}})";
    assert_string_equal(
        smp("ConfigMap", doc, R"({"metadata":{"finalizers":["example.com/a"]}})").c_str(),
        R"({"metadata":{"finalizers":["example.com/a"]}})");
    // Go's deduplicateScalars moves the last item into a duplicate's place,
    // the last item itself included.
    assert_string_equal(smp("ConfigMap", R"({"metadata":{"finalizers":["a","b"]}})",
                            R"({"metadata":{"finalizers":["b","c","b"]}})")
                            .c_str(),
                        R"({"metadata":{"finalizers":["a","b","c"]}})");
    assert_string_equal(smp("ConfigMap", R"({"metadata":{"finalizers":["x","x","x","x"]}})",
                            R"({"metadata":{"finalizers":["x","x"]}})")
                            .c_str(),
                        R"({"metadata":{"finalizers":["x"]}})");
}

// ---------------------------------------------------------------- depth

void merge_patches_10000_deep_apply_without_recursion(void**) {
    std::string deepNull = nested(R"({"a":)", "null", "}");
    // Added where the document has nothing: pruned of its null, level by level.
    std::string added = merge("{}", deepNull);
    assert_string_equal(added.substr(0, 12).c_str(), R"({"a":{"a":{")");
    assert_int_equal(added.size(), std::string(R"({"a":)").size() * (kDepth - 1) + 2 + kDepth - 1);
    // Merged into a document as deep: the null at the bottom deletes.
    std::string doc = nested(R"({"a":)", R"({"b":1})", "}");
    std::string merged = merge(doc, nested(R"({"a":)", R"({"b":null,"c":2})", "}"));
    assert_string_equal(merged.c_str(), nested(R"({"a":)", R"({"c":2})", "}").c_str());
}

void smp_10000_deep_applies_without_recursion(void**) {
    std::string doc = R"({"metadata":{"name":"x"},"data":{"k":"v"}})";
    std::string body = R"({"metadata":{"annotations":)" + nested(R"({"a":)", "null", "}") + "}}";
    std::string out = smp("ConfigMap", doc, body);
    assert_true(out.find(R"("annotations":{"a":{"a":)") != std::string::npos);
    // A deep object merged into a deep object of the live document.
    std::string live = R"({"metadata":{"annotations":)" + nested(R"({"a":)", "{}", "}") + "}}";
    std::string both =
        smp("ConfigMap", live,
            R"({"metadata":{"annotations":)" + nested(R"({"a":)", R"({"z":1})", "}") + "}}");
    assert_true(both.find(R"({"z":1})") != std::string::npos);
}

void json_patch_values_10000_deep_are_added_copied_moved_and_tested(void**) {
    std::string deep = nested("[", "", "]");
    std::string ops = R"([{"op":"add","path":"/x","value":)" + deep +
                      R"(},{"op":"copy","from":"/x","path":"/y"},)"
                      R"({"op":"test","path":"/y","value":)" +
                      deep + R"(},{"op":"move","from":"/y","path":"/z"}])";
    std::string out = jsonPatch(R"({"a":1})", ops);
    assert_string_equal(out.c_str(), (R"({"a":1,"x":)" + deep + R"(,"z":)" + deep + "}").c_str());
}

void duplicate_keys_10000_deep_are_reported_with_their_path(void**) {
    std::string body = nested(R"({"a":)", R"({"k":1,"k":2})", "}", 2000);
    json::Document d = parse("{}");
    std::vector<std::string> strictErrors;
    std::string out = outcome(d, patch::applyMergePatch(d, body, true, &strictErrors));
    assert_int_equal(strictErrors.size(), 1);
    std::string path;
    for (int i = 0; i < 2000; ++i) {
        path += "a.";
    }
    assert_string_equal(strictErrors[0].c_str(), ("duplicate field \"" + path + "k\"").c_str());
    assert_true(out.find(R"({"k":2})") != std::string::npos);
}

// ---------------------------------------------------------------- time

// N keys, "k0".."k<n-1>", each set to `value` (JSON text).
std::string keys(int n, std::string_view prefix, std::string_view value) {
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += (i ? ",\"" : "\"") + std::string(prefix) + std::to_string(i) + "\":";
        out += value;
    }
    return out;
}

// The values patch errors print come from the client; a value nested past
// the parser's limit (built here, 100,000 levels) still prints without
// recursion, as fmt's %v and as encoding/json.
void go_printers_walk_100000_levels_without_recursion(void**) {
    constexpr int kPairs = 50000;  // an object holding an array: two levels
    json::Document d;
    auto& a = d.GetAllocator();
    json::Value v;
    for (int i = 0; i < kPairs; ++i) {
        json::Value list(rapidjson::kArrayType);
        list.PushBack(v, a);
        json::Value obj(rapidjson::kObjectType);
        obj.AddMember("k", list, a);
        v = obj;
    }
    std::string fmt, marshal;
    for (int i = 0; i < kPairs; ++i) {
        fmt += "map[k:[";
        marshal += R"({"k":[)";
    }
    fmt += "<nil>";
    marshal += "null";
    for (int i = 0; i < kPairs; ++i) {
        fmt += "]]";
        marshal += "]}";
    }
    assert_true(patch::goValue(v) == fmt);
    assert_true(patch::goMarshal(v) == marshal);
}

void merge_patch_of_100000_keys_takes_linear_time(void**) {
    int n = 100000;
    std::string doc = R"({"data":{)" + keys(n, "k", R"("v")") + "}}";
    std::string body =
        R"({"data":{)" + keys(n / 2, "k", "null") + "," + keys(n, "n", R"("w")") + "}}";
    std::string out;
    double took = seconds([&] { out = merge(doc, body); });
    assert_true(took < 1.0);
    json::Document d = parse(out);
    assert_int_equal(d["data"].MemberCount(), n / 2 + n);
    assert_string_equal(json::view(*json::member(d["data"], "k50000")).data(), "v");
    assert_null(json::member(d["data"], "k49999"));
}

void smp_of_merge_keyed_and_primitive_lists_of_100000_items_takes_linear_time(void**) {
    int n = 100000;
    std::string refs;
    std::string again;
    std::string finalizers;
    for (int i = 0; i < n; ++i) {
        std::string uid = std::to_string(i);
        refs += (i ? "," : "") +
                (R"({"apiVersion":"v1","kind":"X","name":"o","uid":")" + uid + R"("})");
        // Every other item again, with a new name, in reverse.
        if (i % 2 == 0) {
            std::string back = std::to_string(n - 2 - i);
            again += (i ? "," : "") + (R"({"name":"p","uid":")" + back + R"("})");
        }
        finalizers += (i ? "," : "") + ("\"f" + std::to_string(i % (n / 2)) + "\"");
    }
    std::string doc =
        R"({"metadata":{"ownerReferences":[)" + refs + R"(],"finalizers":[)" + finalizers + "]}}";
    std::string body = R"({"metadata":{"ownerReferences":[)" + again + R"(],"finalizers":[)" +
                       finalizers + R"(],"$deleteFromPrimitiveList/finalizers":["f1","f3"]}})";
    std::string out;
    double took = seconds([&] { out = smp("ConfigMap", doc, body); });
    assert_true(took < 2.0);
    json::Document d = parse(out);
    const json::Value& owners = d["metadata"]["ownerReferences"];
    assert_int_equal(owners.Size(), n);
    // kube's mergeSortedSlice: the items the patch does not name keep their
    // place ahead of the named ones, which come in the patch's order (the
    // last live item, 99999, after 99998 it follows in the live list).
    assert_string_equal(json::stringMember(owners[0], "uid").data(), "1");
    assert_string_equal(json::stringMember(owners[0], "name").data(), "o");
    assert_string_equal(json::stringMember(owners[n / 2 - 1], "uid").data(), "99998");
    assert_string_equal(json::stringMember(owners[n / 2 - 1], "name").data(), "p");
    assert_int_equal(d["metadata"]["finalizers"].Size(), n / 2 - 2);
}

void json_patch_of_10000_operations_on_100000_keys_takes_linear_time(void**) {
    int n = 100000;
    std::string doc = R"({"data":{)" + keys(n, "k", R"("v")") + "}}";
    std::string ops = "[";
    for (int i = 0; i < 10000; ++i) {
        std::string k = std::to_string(i * 10);
        ops += i ? "," : "";
        ops += i % 2 ? R"({"op":"remove","path":"/data/k)" + k + R"("})"
                     : R"({"op":"replace","path":"/data/k)" + k + R"(","value":"r"})";
    }
    ops += R"(,{"op":"test","path":"/data/k0","value":"r"},)"
           R"({"op":"copy","from":"/data","path":"/copy"}])";
    std::string out;
    double took = seconds([&] { out = jsonPatch(doc, ops); });
    assert_true(took < 1.0);
    json::Document d = parse(out);
    assert_int_equal(d["data"].MemberCount(), n - 5000);
    assert_int_equal(d["copy"].MemberCount(), n - 5000);
    assert_null(json::member(d["data"], "k10"));
    assert_string_equal(json::view(*json::member(d["copy"], "k20")).data(), "r");
}

// ---------------------------------------------------------------- growth

void json_patch_copies_stop_at_3_mib(void**) {
    std::string ops = R"([{"op":"add","path":"/a/b","value":")" + std::string(1000, 'x') + "\"}";
    for (int i = 0; i < 30; ++i) {
        ops += R"(,{"op":"copy","from":"/a","path":"/a/k)" + std::to_string(i) + "\"}";
    }
    ops += "]";
    std::string out;
    double took = seconds([&] { out = jsonPatch(R"({"a":{}})", ops); });
    assert_true(took < 1.0);
    // {"b":"x..."} is 1,008 bytes of JSON, doubling (plus its new key) with
    // each copy: the 12th passes 3 MiB of copies, and nothing is copied.
    assert_string_equal(out.c_str(),
                        "1: Unable to complete the copy, the accumulated size increase of copy is "
                        "4152259, exceeding the limit 3145728");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(smp_of_a_finalizer_already_there_keeps_the_set),
        cmocka_unit_test(merge_patches_10000_deep_apply_without_recursion),
        cmocka_unit_test(smp_10000_deep_applies_without_recursion),
        cmocka_unit_test(json_patch_values_10000_deep_are_added_copied_moved_and_tested),
        cmocka_unit_test(duplicate_keys_10000_deep_are_reported_with_their_path),
        cmocka_unit_test(go_printers_walk_100000_levels_without_recursion),
        cmocka_unit_test(merge_patch_of_100000_keys_takes_linear_time),
        cmocka_unit_test(smp_of_merge_keyed_and_primitive_lists_of_100000_items_takes_linear_time),
        cmocka_unit_test(json_patch_of_10000_operations_on_100000_keys_takes_linear_time),
        cmocka_unit_test(json_patch_copies_stop_at_3_mib),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
