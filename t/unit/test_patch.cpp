// The three patch types kube-apiserver serves (RFC 6902 JSON patch with
// evanphx/json-patch's semantics and messages, RFC 7386 merge patch, and
// strategic merge patch over the kinds' schemas), and Store::patch: the
// patch runs inside the guaranteed update, so a concurrent write makes it
// re-read and re-apply, and a resourceVersion in the result is a
// precondition.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/protobuf_codec.hpp"
#include "fake_loop.hpp"
#include "registry/patch/go_format.hpp"
#include "registry/patch/json_patch.hpp"
#include "registry/patch/merge_patch.hpp"
#include "registry/patch/patch_document.hpp"
#include "registry/patch/strategic_merge_patch.hpp"
#include "registry/scheme.hpp"
#include "registry/store.hpp"
#include "storage/memory/memory_store.hpp"
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
namespace registry = kube::registry;
namespace storage = kube::storage;
using kube::meta::Status;
using kube::testing::FakeLoop;

namespace {

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

const char* kindName(patch::Error::Kind k) {
    switch (k) {
        case patch::Error::Kind::BadRequest:
            return "400";
        case patch::Error::Kind::Unprocessable:
            return "422";
        case patch::Error::Kind::Other:
            return "500";
    }
    return "?";
}

// The patched document, or "<code>: <message>".
std::string outcome(const json::Document& doc, const std::optional<patch::Error>& err) {
    if (err) {
        return std::string(kindName(err->kind)) + ": " + err->message;
    }
    return json::serialize(doc);
}

// ---------------------------------------------------------------- JSON patch

std::string jsonPatch(std::string_view doc, std::string_view ops, bool strict = false,
                      std::vector<std::string>* strictErrors = nullptr) {
    json::Document d = parse(doc);
    patch::Error err;
    auto p = patch::JsonPatch::decode(ops, strict, strictErrors, &err);
    if (!p) {
        return std::string(kindName(err.kind)) + ": " + err.message;
    }
    return outcome(d, p->apply(d));
}

void json_patch_applies_each_rfc6902_operation(void**) {
    assert_string_equal(jsonPatch(R"({"a":{"b":1},"l":[1,2]})",
                                  R"([{"op":"add","path":"/a/c","value":2},)"
                                  R"({"op":"add","path":"/l/1","value":9},)"
                                  R"({"op":"add","path":"/l/-","value":3},)"
                                  R"({"op":"remove","path":"/a/b"},)"
                                  R"({"op":"replace","path":"/l/0","value":0},)"
                                  R"({"op":"copy","from":"/a","path":"/copied"},)"
                                  R"({"op":"move","from":"/copied/c","path":"/moved"},)"
                                  R"({"op":"test","path":"/l","value":[0,9,2,3]}])")
                            .c_str(),
                        R"({"a":{"c":2},"l":[0,9,2,3],"copied":{},"moved":2})");
}

void json_patch_pointers_unescape_and_count_from_the_end(void**) {
    assert_string_equal(
        jsonPatch(R"({"metadata":{"annotations":{"a/b":"x","c~d":"y"}}})",
                  R"([{"op":"replace","path":"/metadata/annotations/a~1b","value":"1"},)"
                  R"({"op":"remove","path":"/metadata/annotations/c~0d"}])")
            .c_str(),
        R"({"metadata":{"annotations":{"a/b":"1"}}})");
    assert_string_equal(
        jsonPatch(R"({"l":[1,2,3]})", R"([{"op":"remove","path":"/l/-1"}])").c_str(),
        R"({"l":[1,2]})");
}

void json_patch_replace_of_a_missing_object_key_adds_it(void**) {
    // evanphx/json-patch v4 does not check that the key exists.
    assert_string_equal(
        jsonPatch(R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])").c_str(),
        R"({"a":1,"b":2})");
}

void json_patch_failures_are_unprocessable_with_the_libraries_words(void**) {
    assert_string_equal(jsonPatch(R"({"a":1})", R"([{"op":"remove","path":"/b"}])").c_str(),
                        "422: error in remove for path: '/b': Unable to remove nonexistent key: "
                        "b: missing value");
    assert_string_equal(jsonPatch(R"({"a":1})", R"([{"op":"test","path":"/a","value":2}])").c_str(),
                        "422: testing value /a failed: test failed");
    assert_string_equal(
        jsonPatch(R"({"a":1})", R"([{"op":"add","path":"/x/y","value":2}])").c_str(),
        "422: add operation does not apply: doc is missing path: \"/x/y\": missing value");
    assert_string_equal(
        jsonPatch(R"({"l":[1]})", R"([{"op":"add","path":"/l/5","value":2}])").c_str(),
        "422: error in add for path: '/l/5': Unable to access invalid index: 5: invalid index "
        "referenced");
    assert_string_equal(
        jsonPatch(R"({"l":[1]})", R"([{"op":"add","path":"/l/x","value":2}])").c_str(),
        "422: error in add for path: '/l/x': value was not a proper array index: 'x': "
        "strconv.Atoi: parsing \"x\": invalid syntax");
    assert_string_equal(jsonPatch(R"({"a":1})", R"([{"op":"bump","path":"/a"}])").c_str(),
                        "422: Unexpected kind: bump");
    assert_string_equal(jsonPatch(R"({"a":1})", R"([{"path":"/a"}])").c_str(),
                        "422: Unexpected kind: unknown");
    assert_string_equal(jsonPatch(R"({"a":1})", R"([{"op":"move","path":"/b"}])").c_str(),
                        "422: move operation failed to decode from: operation, missing from "
                        "field: missing value");
}

void json_patch_a_test_on_an_absent_key_passes_for_null(void**) {
    assert_string_equal(
        jsonPatch(R"({"a":1})", R"([{"op":"test","path":"/b","value":null}])").c_str(),
        R"({"a":1})");
}

void json_patch_documents_that_are_not_lists_are_bad_requests(void**) {
    assert_string_equal(jsonPatch("{}", R"({"op":"add"})").c_str(),
                        "400: json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    assert_string_equal(jsonPatch("{}", R"({"op":"add"})", true).c_str(),
                        "400: error decoding patch: json: cannot unmarshal object into Go value "
                        "of type []handlers.jsonPatchOp");
    assert_string_equal(jsonPatch("{}", R"([{"op":1}])", true).c_str(),
                        "400: error decoding patch: json: cannot unmarshal number into Go struct "
                        "field jsonPatchOp.op of type string");
    assert_string_equal(jsonPatch("{}", "[{").c_str(), "400: unexpected end of JSON input");
}

void json_patch_strict_decoding_reports_unknown_and_duplicate_members(void**) {
    std::vector<std::string> errors;
    std::string out = jsonPatch(
        R"({"a":1})",
        R"([{"op":"replace","path":"/a","value":{"x":1,"x":2},"values":3,"op":"replace"}])", true,
        &errors);
    assert_string_equal(out.c_str(), R"({"a":{"x":2}})");
    assert_int_equal(errors.size(), 3);
    assert_string_equal(errors[0].c_str(), "json patch duplicate field \"[0].value.x\"");
    assert_string_equal(errors[1].c_str(), "json patch unknown field \"[0].values\"");
    assert_string_equal(errors[2].c_str(), "json patch duplicate field \"[0].op\"");
}

// --------------------------------------------------------------- merge patch

std::string mergePatch(std::string_view doc, std::string_view body, bool strict = false,
                       std::vector<std::string>* strictErrors = nullptr) {
    json::Document d = parse(doc);
    return outcome(d, patch::applyMergePatch(d, body, strict, strictErrors));
}

void merge_patch_follows_the_rfc7386_examples(void**) {
    struct Case {
        const char* original;
        const char* patch;
        const char* result;
    } cases[] = {
        {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
        {R"({"a":"b"})", R"({"a":null})", R"({})"},
        {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
        {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
        {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
        {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
        {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
        {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
        {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
    };
    for (const Case& c : cases) {
        std::string got = mergePatch(c.original, c.patch);
        if (got != c.result) {
            fail_msg("%s + %s: got %s, want %s", c.original, c.patch, got.c_str(), c.result);
        }
    }
}

void merge_patch_null_and_scalar_documents_are_invalid(void**) {
    // Where evanphx/json-patch departs from the RFC's last examples.
    assert_string_equal(mergePatch(R"({"a":"foo"})", "null").c_str(), "400: Invalid JSON Patch");
    assert_string_equal(mergePatch(R"({"a":"foo"})", R"("bar")").c_str(),
                        "400: Invalid JSON Patch");
    assert_string_equal(mergePatch(R"({"a":"foo"})", "{x").c_str(), "400: Invalid JSON Patch");
    assert_string_equal(mergePatch(R"({"a":"foo"})", R"(["c"])", true).c_str(),
                        "400: error decoding patch: json: cannot unmarshal array into Go value of "
                        "type map[string]interface {}");
    assert_string_equal(mergePatch(R"({"a":"foo"})", "{x", true).c_str(),
                        "400: error decoding patch: invalid character 'x' looking for beginning "
                        "of object key string");
}

void merge_patch_keeps_the_last_of_duplicate_keys_and_reports_them(void**) {
    std::vector<std::string> errors;
    assert_string_equal(
        mergePatch(R"({"a":{"b":1}})", R"({"a":{"b":2,"b":3},"c":1,"c":null})", true, &errors)
            .c_str(),
        R"({"a":{"b":3}})");
    assert_int_equal(errors.size(), 2);
    assert_string_equal(errors[0].c_str(), "duplicate field \"a.b\"");
    assert_string_equal(errors[1].c_str(), "duplicate field \"c\"");
}

// ------------------------------------------------------ strategic merge patch

std::string smp(std::string_view apiVersion, std::string_view kind, std::string_view doc,
                std::string_view body) {
    const auto* d = kube::endpoints::protobufSchema(apiVersion, kind);
    if (!d) {
        fail_msg("no schema for %s", std::string(kind).c_str());
    }
    json::Document obj = parse(doc);
    std::vector<std::string> strictErrors;
    return outcome(obj, patch::applyStrategicMergePatch(obj, body, patch::PatchSchema(d), true,
                                                        &strictErrors, nullptr));
}

std::string deploy(std::string_view podSpec) {
    return R"({"spec":{"template":{"spec":)" + std::string(podSpec) + "}}}";
}

std::string deployPatch(std::string_view podSpec) {
    return deploy(podSpec);
}

void smp_merges_containers_by_name(void**) {
    std::string doc =
        deploy(R"({"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]})");
    assert_string_equal(
        smp("apps/v1", "Deployment", doc,
            deployPatch(R"({"containers":[{"name":"b","image":"z"}]})"))
            .c_str(),
        deploy(R"({"containers":[{"name":"a","image":"x"},{"name":"b","image":"z"}]})").c_str());
    // A new item comes first: the patch's items lead where the live list
    // cannot place them (kube's mergeSortedSlice).
    assert_string_equal(
        smp("apps/v1", "Deployment", doc,
            deployPatch(R"({"containers":[{"name":"c","image":"w"}]})"))
            .c_str(),
        deploy(R"({"containers":[{"name":"c","image":"w"},{"name":"a","image":"x"},)"
               R"({"name":"b","image":"y"}]})")
            .c_str());
}

void smp_merges_ports_by_container_port_and_env_by_name(void**) {
    std::string doc =
        deploy(R"({"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}],)"
               R"("env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]})");
    assert_string_equal(
        smp("apps/v1", "Deployment", doc,
            deployPatch(
                R"({"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"}],)"
                R"("env":[{"name":"B","value":"3"}]}]})"))
            .c_str(),
        deploy(R"({"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http",)"
               R"("protocol":"TCP"}],"env":[{"name":"A","value":"1"},{"name":"B","value":"3"}]}]})")
            .c_str());
}

void smp_deletes_list_items_marked_with_patch_delete(void**) {
    std::string doc = deploy(R"({"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]})");
    assert_string_equal(smp("apps/v1", "Deployment", doc,
                            deployPatch(R"({"containers":[{"name":"b","$patch":"delete"}]})"))
                            .c_str(),
                        deploy(R"({"containers":[{"name":"a"},{"name":"c"}]})").c_str());
    assert_string_equal(smp("apps/v1", "Deployment", doc,
                            deployPatch(R"({"containers":[{"name":"z"},{"$patch":"replace"}]})"))
                            .c_str(),
                        deploy(R"({"containers":[{"name":"z"}]})").c_str());
}

void smp_orders_a_list_by_set_element_order(void**) {
    std::string doc = deploy(R"({"containers":[{"name":"a"},{"name":"b"}]})");
    assert_string_equal(
        smp("apps/v1", "Deployment", doc,
            deployPatch(
                R"({"$setElementOrder/containers":[{"name":"b"},{"name":"c"},{"name":"a"}],)"
                R"("containers":[{"name":"c","image":"i"}]})"))
            .c_str(),
        deploy(R"({"containers":[{"name":"b"},{"name":"c","image":"i"},{"name":"a"}]})").c_str());
    assert_string_equal(
        smp("apps/v1", "Deployment", doc,
            deployPatch(R"({"$setElementOrder/containers":[{"name":"b"}],)"
                        R"("containers":[{"name":"a","image":"i"}]})"))
            .c_str(),
        "500: The order in patch list:\n[map[image:i name:a]]\n doesn't match $setElementOrder "
        "list:\n[map[name:b]]\n");
}

void smp_merges_finalizers_as_a_set_and_deletes_from_primitive_lists(void**) {
    std::string doc = R"({"metadata":{"finalizers":["a","b"]}})";
    assert_string_equal(
        smp("v1", "ConfigMap", doc, R"({"metadata":{"finalizers":["b","c"]}})").c_str(),
        R"({"metadata":{"finalizers":["a","b","c"]}})");
    assert_string_equal(
        smp("v1", "ConfigMap", doc, R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})")
            .c_str(),
        R"({"metadata":{"finalizers":["b"]}})");
    assert_string_equal(
        smp("v1", "ConfigMap", doc, R"({"metadata":{"$deleteFromPrimitiveListfinalizers":["a"]}})")
            .c_str(),
        "400: invalid patch format of primitive list");
}

void smp_null_deletes_and_plain_lists_replace(void**) {
    std::string doc = deploy(
        R"({"containers":[{"name":"a","args":["x","y"]}],"nodeSelector":{"k":"v","o":"p"}})");
    assert_string_equal(
        smp("apps/v1", "Deployment", doc,
            deployPatch(R"({"containers":[{"name":"a","args":["z"]}],"nodeSelector":{"k":null}})"))
            .c_str(),
        deploy(R"({"containers":[{"name":"a","args":["z"]}],"nodeSelector":{"o":"p"}})").c_str());
}

void smp_retain_keys_drops_what_the_patch_does_not_keep(void**) {
    std::string doc =
        R"({"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})";
    assert_string_equal(smp("apps/v1", "Deployment", doc,
                            R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})")
                            .c_str(),
                        R"({"spec":{"strategy":{"type":"Recreate"}}})");
    assert_string_equal(smp("apps/v1", "Deployment", doc,
                            R"({"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}})")
                            .c_str(),
                        "400: invalid patch format of retainKeys");
    // A volume of a pod (merge key name, strategy "merge,retainKeys").
    std::string pod = R"({"spec":{"volumes":[{"name":"v","configMap":{"name":"c"}}]}})";
    assert_string_equal(smp("v1", "Pod", pod,
                            R"({"spec":{"volumes":[{"name":"v","$retainKeys":["name","secret"],)"
                            R"("secret":{"secretName":"s"}}]}})")
                            .c_str(),
                        R"({"spec":{"volumes":[{"name":"v","secret":{"secretName":"s"}}]}})");
}

void smp_replace_strategy_fields_are_replaced_whole(void**) {
    // PodDisruptionBudgetSpec.selector has patchStrategy "replace".
    std::string doc = R"({"spec":{"selector":{"matchLabels":{"a":"1"},)"
                      R"("matchExpressions":[{"key":"k","operator":"Exists"}]}}})";
    assert_string_equal(smp("policy/v1", "PodDisruptionBudget", doc,
                            R"({"spec":{"selector":{"matchLabels":{"b":"2"}}}})")
                            .c_str(),
                        R"({"spec":{"selector":{"matchLabels":{"b":"2"}}}})");
    // The same patch on a Deployment's selector (no strategy) merges.
    assert_string_equal(
        smp("apps/v1", "Deployment", R"({"spec":{"selector":{"matchLabels":{"a":"1"}}}})",
            R"({"spec":{"selector":{"matchLabels":{"b":"2"}}}})")
            .c_str(),
        R"({"spec":{"selector":{"matchLabels":{"a":"1","b":"2"}}}})");
}

void smp_sees_the_fields_of_inline_structs(void**) {
    // EphemeralContainer inlines EphemeralContainerCommon, whose env merges by name.
    std::string doc =
        R"({"spec":{"ephemeralContainers":[{"name":"dbg","env":[{"name":"A","value":"1"}]}]}})";
    assert_string_equal(
        smp("v1", "Pod", doc,
            R"({"spec":{"ephemeralContainers":[{"name":"dbg","env":[{"name":"B","value":"2"}]}]}})")
            .c_str(),
        R"({"spec":{"ephemeralContainers":[{"name":"dbg","env":[{"name":"B","value":"2"},)"
        R"({"name":"A","value":"1"}]}]}})");
}

void smp_patch_directives_replace_or_clear_an_object(void**) {
    std::string doc = R"({"metadata":{"labels":{"a":"1","b":"2"}}})";
    assert_string_equal(
        smp("v1", "ConfigMap", doc, R"({"metadata":{"labels":{"$patch":"replace","c":"3"}}})")
            .c_str(),
        R"({"metadata":{"labels":{"c":"3"}}})");
    assert_string_equal(
        smp("v1", "ConfigMap", doc, R"({"metadata":{"labels":{"$patch":"delete"}}})").c_str(),
        R"({"metadata":{"labels":{}}})");
    assert_string_equal(
        smp("v1", "ConfigMap", doc, R"({"metadata":{"labels":{"$patch":"bump"}}})").c_str(),
        "500: unknown patch type: bump in map: map[$patch:bump]");
}

void smp_errors_carry_kubes_messages(void**) {
    std::string doc = deploy(R"({"containers":[{"name":"a"}]})");
    assert_string_equal(
        smp("apps/v1", "Deployment", doc, deployPatch(R"({"containers":[{"image":"x"}]})")).c_str(),
        "500: map: map[image:x] does not contain declared merge key: name");
    assert_string_equal(smp("v1", "ConfigMap", R"({"metadata":{"finalizers":[["a"]]}})",
                            R"({"metadata":{"finalizers":[["b"]]}})")
                            .c_str(),
                        "422: lists of lists are not supported");
    assert_string_equal(smp("v1", "ConfigMap", "{}", R"([1])").c_str(),
                        "400: json: cannot unmarshal array into Go value of type "
                        "map[string]interface {}");
}

void smp_keys_the_schema_lacks_merge_like_a_merge_patch(void**) {
    json::Document doc = parse(R"({"x":{"a":1,"l":[1,2]}})");
    json::Document p = parse(R"({"x":{"b":2,"l":[3]}})");
    assert_false(
        patch::strategicMergePatch(doc, p, patch::PatchSchema(), doc.GetAllocator()).has_value());
    assert_string_equal(json::serialize(doc).c_str(), R"({"x":{"a":1,"l":[3],"b":2}})");
}

void go_value_prints_like_fmt(void**) {
    json::Document d = parse(R"({"b":[1,2.5,"s",null,true],"a":{"z":1e21}})");
    assert_string_equal(patch::goValue(d).c_str(), "map[a:map[z:1e+21] b:[1 2.5 s <nil> true]]");
    assert_string_equal(patch::goMarshal(d).c_str(),
                        R"({"a":{"z":1e+21},"b":[1,2.5,"s",null,true]})");
    json::Document html = parse(R"({"x":"<a&b>"})");
    assert_string_equal(patch::goMarshal(html).c_str(), R"({"x":"\u003ca\u0026b\u003e"})");
}

// ---------------------------------------------------------------- Store::patch

// Applies writes only when the loop runs, so that two requests issued back
// to back read the same revision and race.
class DeferredWrites : public storage::Interface {
  public:
    DeferredWrites(storage::Interface& inner, kube::util::EventLoop& loop)
        : inner_(inner), loop_(loop) {}

    void get(std::string_view key, GetCallback cb) override { inner_.get(key, std::move(cb)); }
    void list(const storage::ListOptions& opts, ListCallback cb) override {
        inner_.list(opts, std::move(cb));
    }
    void write(std::vector<storage::WriteOp> ops, WriteCallback cb) override {
        loop_.post([this, ops = std::move(ops), cb = std::move(cb)]() mutable {
            inner_.write(std::move(ops), std::move(cb));
        });
    }
    storage::Revision currentRevision() override { return inner_.currentRevision(); }
    void history(storage::Revision after, size_t limit, HistoryCallback cb) override {
        inner_.history(after, limit, std::move(cb));
    }
    void setCommitListener(CommitListener listener) override {
        inner_.setCommitListener(std::move(listener));
    }
    void compact(storage::Revision revision, CompactCallback cb) override {
        inner_.compact(revision, std::move(cb));
    }
    storage::Revision compactedRevision() override { return inner_.compactedRevision(); }

  private:
    storage::Interface& inner_;
    kube::util::EventLoop& loop_;
};

struct Outcome {
    bool called = false;
    std::optional<Status> error;
    std::string object;
};

struct Fixture {
    FakeLoop loop;
    storage::memory::Store memory{loop};
    DeferredWrites deferred{memory, loop};
    registry::Scheme scheme;
    std::unique_ptr<registry::Store> configmaps;

    Fixture() {
        registry::addBuiltinKinds(scheme);
        configmaps =
            std::make_unique<registry::Store>(*scheme.find("", "v1", "configmaps"), deferred, loop);
        auto doc = std::make_shared<json::Document>();
        *doc = parse(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},)"
                     R"("data":{"k":"v"}})");
        auto out = std::make_shared<Outcome>();
        configmaps->create("default", doc, {}, capture(out));
        loop.run();
        assert_false(out->error.has_value());
    }

    static registry::Store::ObjectCallback capture(std::shared_ptr<Outcome> out) {
        return [out](const Status* err, std::string_view obj) {
            out->called = true;
            if (err) {
                out->error = *err;
            }
            out->object = std::string(obj);
        };
    }

    // A patch function: a merge patch of `body`, counting its calls.
    static registry::Store::PatchFn merge(std::string body, std::shared_ptr<int> calls) {
        return [body, calls](const json::Value& cur, json::Document& out) -> std::optional<Status> {
            ++*calls;
            out.CopyFrom(cur, out.GetAllocator());
            if (auto e = patch::applyMergePatch(out, body, false, nullptr)) {
                return Status::badRequest(e->message);
            }
            return std::nullopt;
        };
    }

    std::shared_ptr<Outcome> patchAsync(std::string body, std::shared_ptr<int> calls,
                                        registry::UpdateOptions opts = {}) {
        auto out = std::make_shared<Outcome>();
        configmaps->patch("default", "c", merge(std::move(body), std::move(calls)), opts,
                          capture(out));
        return out;
    }

    std::string current() {
        auto out = std::make_shared<Outcome>();
        configmaps->get("default", "c", capture(out));
        loop.run();
        return out->object;
    }
};

std::string member(std::string_view object, std::initializer_list<std::string_view> path) {
    json::Document d = parse(object);
    const json::Value* v = json::at(d, path);
    return !v ? "<absent>" : v->IsString() ? std::string(json::view(*v)) : json::serialize(*v);
}

void store_patch_reapplies_the_patch_after_a_concurrent_write(void**) {
    Fixture f;
    auto callsA = std::make_shared<int>(0);
    auto callsB = std::make_shared<int>(0);
    auto a = f.patchAsync(R"({"data":{"a":"1"}})", callsA);
    auto b = f.patchAsync(R"({"data":{"b":"2"}})", callsB);
    f.loop.run();
    assert_true(a->called && b->called);
    assert_false(a->error.has_value());
    assert_false(b->error.has_value());
    // The second patch lost the race, read again and applied itself to the
    // first one's result: both changes are kept.
    assert_int_equal(*callsA, 1);
    assert_int_equal(*callsB, 2);
    assert_string_equal(member(f.current(), {"data"}).c_str(), R"({"k":"v","a":"1","b":"2"})");
}

void store_patch_with_a_stale_resource_version_conflicts(void**) {
    Fixture f;
    std::string rv = member(f.current(), {"metadata", "resourceVersion"});
    auto calls = std::make_shared<int>(0);
    auto first = f.patchAsync(R"({"data":{"a":"1"}})", calls);
    f.loop.run();
    assert_false(first->error.has_value());
    auto stale =
        f.patchAsync(R"({"metadata":{"resourceVersion":")" + rv + R"("},"data":{"x":"y"}})", calls);
    f.loop.run();
    assert_true(stale->error.has_value());
    assert_int_equal(stale->error->code, 409);
    assert_string_equal(stale->error->message.c_str(),
                        "Operation cannot be fulfilled on configmaps \"c\": the object has been "
                        "modified; please apply your changes to the latest version and try again");
    std::string now = member(f.current(), {"metadata", "resourceVersion"});
    auto fresh = f.patchAsync(
        R"({"metadata":{"resourceVersion":")" + now + R"("},"data":{"x":"y"}})", calls);
    f.loop.run();
    assert_false(fresh->error.has_value());
    assert_string_equal(member(fresh->object, {"data", "x"}).c_str(), "y");
}

void store_patch_that_changes_nothing_keeps_the_revision_and_dry_run_stores_nothing(void**) {
    Fixture f;
    std::string before = f.current();
    auto calls = std::make_shared<int>(0);
    auto same = f.patchAsync(R"({"data":{"k":"v"}})", calls);
    f.loop.run();
    assert_string_equal(same->object.c_str(), before.c_str());
    auto dry = f.patchAsync(R"({"data":{"k":"w"}})", calls, registry::UpdateOptions{true});
    f.loop.run();
    assert_false(dry->error.has_value());
    assert_string_equal(member(dry->object, {"data", "k"}).c_str(), "w");
    assert_string_equal(f.current().c_str(), before.c_str());
}

void store_patch_of_a_missing_object_is_not_found(void**) {
    Fixture f;
    auto calls = std::make_shared<int>(0);
    auto out = std::make_shared<Outcome>();
    f.configmaps->patch("default", "nosuch", Fixture::merge("{}", calls), {},
                        Fixture::capture(out));
    f.loop.run();
    assert_true(out->error.has_value());
    assert_int_equal(out->error->code, 404);
    assert_int_equal(*calls, 0);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_patch_applies_each_rfc6902_operation),
        cmocka_unit_test(json_patch_pointers_unescape_and_count_from_the_end),
        cmocka_unit_test(json_patch_replace_of_a_missing_object_key_adds_it),
        cmocka_unit_test(json_patch_failures_are_unprocessable_with_the_libraries_words),
        cmocka_unit_test(json_patch_a_test_on_an_absent_key_passes_for_null),
        cmocka_unit_test(json_patch_documents_that_are_not_lists_are_bad_requests),
        cmocka_unit_test(json_patch_strict_decoding_reports_unknown_and_duplicate_members),
        cmocka_unit_test(merge_patch_follows_the_rfc7386_examples),
        cmocka_unit_test(merge_patch_null_and_scalar_documents_are_invalid),
        cmocka_unit_test(merge_patch_keeps_the_last_of_duplicate_keys_and_reports_them),
        cmocka_unit_test(smp_merges_containers_by_name),
        cmocka_unit_test(smp_merges_ports_by_container_port_and_env_by_name),
        cmocka_unit_test(smp_deletes_list_items_marked_with_patch_delete),
        cmocka_unit_test(smp_orders_a_list_by_set_element_order),
        cmocka_unit_test(smp_merges_finalizers_as_a_set_and_deletes_from_primitive_lists),
        cmocka_unit_test(smp_null_deletes_and_plain_lists_replace),
        cmocka_unit_test(smp_retain_keys_drops_what_the_patch_does_not_keep),
        cmocka_unit_test(smp_replace_strategy_fields_are_replaced_whole),
        cmocka_unit_test(smp_sees_the_fields_of_inline_structs),
        cmocka_unit_test(smp_patch_directives_replace_or_clear_an_object),
        cmocka_unit_test(smp_errors_carry_kubes_messages),
        cmocka_unit_test(smp_keys_the_schema_lacks_merge_like_a_merge_patch),
        cmocka_unit_test(go_value_prints_like_fmt),
        cmocka_unit_test(store_patch_reapplies_the_patch_after_a_concurrent_write),
        cmocka_unit_test(store_patch_with_a_stale_resource_version_conflicts),
        cmocka_unit_test(
            store_patch_that_changes_nothing_keeps_the_revision_and_dry_run_stores_nothing),
        cmocka_unit_test(store_patch_of_a_missing_object_is_not_found),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
