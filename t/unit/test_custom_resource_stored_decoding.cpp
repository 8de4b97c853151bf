#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/apiextensions/custom_resource_kind.hpp"
#include "apis/apiextensions/custom_resource_schema_hooks.hpp"
#include "registry/stored_decoding.hpp"
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
namespace registry = kube::registry;
namespace ext = kube::apis::apiextensions;

namespace {

auto& parse = kube::testing::parseSharedJson;

constexpr std::string_view kWithColor =
    R"({"type":"object","properties":{"spec":{"type":"object","properties":{)"
    R"("size":{"type":"integer"},"color":{"type":"string","default":"blue"}}}}})";
constexpr std::string_view kWithoutColor =
    R"({"type":"object","properties":{"spec":{"type":"object","properties":{)"
    R"("size":{"type":"integer"}}}}})";

// A definition at resourceVersion 42: v1 stored with `v1Schema`, v2 served
// with `v2Schema`.
std::shared_ptr<json::Document> widgets(std::string_view v1Schema, std::string_view v2Schema) {
    std::string text =
        R"({"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1",)"
        R"("metadata":{"name":"widgets.h.example.com","uid":"u1","resourceVersion":"42"},)"
        R"("spec":{"group":"h.example.com","scope":"Namespaced",)"
        R"("names":{"plural":"widgets","singular":"widget","kind":"Widget"},"versions":[)"
        R"({"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":)" +
        std::string(v1Schema) +
        R"(}},{"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":)" +
        std::string(v2Schema) +
        R"(}}]},"status":{"acceptedNames":{"plural":"widgets","singular":"widget",)"
        R"("kind":"Widget","listKind":"WidgetList"}}})";
    return parse(text);
}

const registry::KindInfo& version(const std::vector<registry::KindInfo>& kinds,
                                  std::string_view v) {
    for (const registry::KindInfo& k : kinds) {
        if (k.version == v) {
            return k;
        }
    }
    fail_msg("no kind for %s", std::string(v).c_str());
    return kinds.front();
}

std::string stored(std::string_view spec) {
    return R"({"kind":"Widget","apiVersion":"h.example.com/v1","metadata":{"name":"w1",)"
           R"("namespace":"n","resourceVersion":"7"},"spec":)" +
           std::string(spec) + "}";
}

void stored_objects_read_pruned_and_defaulted_by_the_storage_version_s_schema(void**) {
    std::vector<registry::KindInfo> kinds =
        ext::customResourceKinds(widgets(kWithColor, kWithColor));
    std::shared_ptr<const registry::StoredDecoding> d = ext::storedDecodingOf(version(kinds, "v1"));
    assert_non_null(d.get());
    std::optional<std::string> read = d->decode(stored(R"({"size":1,"extra":"x"})"));
    assert_true(read.has_value());
    assert_string_equal(read->c_str(), stored(R"({"size":1,"color":"blue"})").c_str());
    // What needs nothing reads as stored.
    assert_false(d->decode(stored(R"({"size":1,"color":"red"})")).has_value());
}

void objects_written_since_the_definition_changed_need_no_decoding(void**) {
    std::vector<registry::KindInfo> kinds =
        ext::customResourceKinds(widgets(kWithColor, kWithColor));
    for (const registry::KindInfo& k : kinds) {
        std::shared_ptr<const registry::StoredDecoding> d = ext::storedDecodingOf(k);
        assert_non_null(d.get());
        assert_int_equal(d->settledAfter(), 42);
        assert_true(d->needed(42));
        assert_false(d->needed(43));
    }
}

void versions_with_one_schema_share_one_compiled_copy(void**) {
    std::vector<registry::KindInfo> kinds =
        ext::customResourceKinds(widgets(kWithColor, kWithColor));
    auto v1 = ext::structuralSchemaOf(version(kinds, "v1"));
    assert_non_null(v1.get());
    assert_ptr_equal(v1.get(), ext::structuralSchemaOf(version(kinds, "v2")).get());
    std::vector<registry::KindInfo> other =
        ext::customResourceKinds(widgets(kWithColor, kWithoutColor));
    assert_ptr_not_equal(ext::structuralSchemaOf(version(other, "v1")).get(),
                         ext::structuralSchemaOf(version(other, "v2")).get());
}

void a_version_with_another_schema_prunes_by_it_and_every_object_is_decoded(void**) {
    std::vector<registry::KindInfo> kinds =
        ext::customResourceKinds(widgets(kWithColor, kWithoutColor));
    std::shared_ptr<const registry::StoredDecoding> v1 =
        ext::storedDecodingOf(version(kinds, "v1"));
    std::shared_ptr<const registry::StoredDecoding> v2 =
        ext::storedDecodingOf(version(kinds, "v2"));
    // A write through v2 is not defaulted with v1's schema.
    assert_true(v1->needed(std::numeric_limits<kube::storage::Revision>::max() - 1));
    assert_true(v2->needed(std::numeric_limits<kube::storage::Revision>::max() - 1));
    std::optional<std::string> read = v2->decode(stored(R"({"size":1,"color":"red"})"));
    assert_true(read.has_value());
    assert_string_equal(read->c_str(), stored(R"({"size":1})").c_str());
    read = v1->decode(stored(R"({"size":1})"));
    assert_true(read.has_value());
    assert_string_equal(read->c_str(), stored(R"({"size":1,"color":"blue"})").c_str());
}

void a_read_is_remembered_until_the_object_changes(void**) {
    std::vector<registry::KindInfo> kinds =
        ext::customResourceKinds(widgets(kWithColor, kWithColor));
    std::shared_ptr<const registry::StoredDecoding> d = ext::storedDecodingOf(version(kinds, "v1"));
    std::string bytes = stored(R"({"size":1})");
    kube::storage::ObjectView o{"/registry/h.example.com/widgets/n/w1", bytes, 7, 7};
    kube::storage::cacher::ObjectRef found;
    assert_false(d->recall(o, &found));
    kube::storage::cacher::ObjectRef first = d->read(o);
    assert_non_null(first.get());
    assert_string_equal(first->bytes.c_str(), stored(R"({"size":1,"color":"blue"})").c_str());
    assert_true(d->recall(o, &found));
    assert_ptr_equal(found.get(), first.get());
    assert_ptr_equal(d->read(o).get(), first.get());
    // Written again at 8, as it reads: remembered as read as stored.
    std::string again = stored(R"({"size":1,"color":"blue"})");
    kube::storage::ObjectView later{o.key, again, 8, 7};
    assert_false(d->recall(later, &found));
    assert_null(d->read(later).get());
    assert_true(d->recall(later, &found));
    assert_null(found.get());
}

void built_in_kinds_read_as_stored(void**) {
    registry::KindInfo configMaps;
    configMaps.version = "v1";
    configMaps.kind = "ConfigMap";
    assert_null(ext::storedDecodingOf(configMaps).get());
    assert_null(ext::structuralSchemaOf(configMaps).get());
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stored_objects_read_pruned_and_defaulted_by_the_storage_version_s_schema),
        cmocka_unit_test(objects_written_since_the_definition_changed_need_no_decoding),
        cmocka_unit_test(versions_with_one_schema_share_one_compiled_copy),
        cmocka_unit_test(a_version_with_another_schema_prunes_by_it_and_every_object_is_decoded),
        cmocka_unit_test(a_read_is_remembered_until_the_object_changes),
        cmocka_unit_test(built_in_kinds_read_as_stored),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
