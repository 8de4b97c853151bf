#include <chrono>
#include <string>
#include <string_view>

#include "controller/apiextensions/custom_resource_serving.hpp"
#include "storage/cacher/watch_cache.hpp"
#include "storage/event.hpp"

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

using kube::controller::apiextensions::CustomResourceServing;
using kube::storage::cacher::WatchCache;

namespace {

constexpr std::string_view kPrefix = "/registry/apiextensions.k8s.io/customresourcedefinitions/";

std::string unchanged(std::string_view bytes, kube::storage::Revision) {
    return std::string(bytes);
}

kube::storage::Event put(kube::storage::Revision revision, std::string_view key,
                         const std::string& value) {
    kube::storage::Event e;
    e.type = kube::storage::Event::Put;
    e.revision = revision;
    e.key = key;
    e.value = value;
    return e;
}

// A definition of widgets.example.com at `generation`; `field` names its
// schema's one property; `extra` goes into metadata, `conditions` into status.
std::string widgets(int generation, std::string_view field, std::string_view conditions,
                    std::string_view extra = "") {
    std::string out =
        R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
        R"("metadata":{"name":"widgets.example.com","uid":"u-1","generation":)";
    out += std::to_string(generation);
    out += extra;
    out +=
        R"(},"spec":{"group":"example.com","scope":"Namespaced",)"
        R"("names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},)"
        R"("versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":)"
        R"({"type":"object","properties":{")";
    out += field;
    out += R"(":{"type":"string"}}}}}]},"status":{"acceptedNames":{"plural":"widgets",)"
           R"("singular":"widget","kind":"Widget","listKind":"WidgetList"},"conditions":[)";
    out += conditions;
    out += "]}}";
    return out;
}

constexpr std::string_view kEstablished =
    R"({"type":"NamesAccepted","status":"True"},{"type":"Established","status":"True"})";

// The kinds are built (their schema compiled) when a definition is
// established and again only when its spec (generation), uid or accepted
// names change: a write of its metadata or conditions alone, which reaches
// every worker, costs no rebuild.
void kinds_are_rebuilt_only_when_the_spec_changes(void**) {
    WatchCache cache(std::string(kPrefix), "customresourcedefinitions", unchanged, 1 << 20);
    cache.reset({}, 1);
    int added = 0;
    int removed = 0;
    std::string lastField;
    CustomResourceServing serving(
        cache,
        [&](kube::registry::KindInfo) {
            added++;
            return true;
        },
        [&](std::string_view group, std::string_view resource) {
            assert_true(group == "example.com" && resource == "widgets");
            removed++;
        });
    auto now = std::chrono::steady_clock::now();
    const std::string key = std::string(kPrefix) + "widgets.example.com";

    cache.apply(put(2, key, widgets(1, "color", R"({"type":"NamesAccepted","status":"True"})")),
                now);
    assert_int_equal(added, 0);
    assert_int_equal(serving.served(), 0);

    cache.apply(put(3, key, widgets(1, "color", kEstablished)), now);
    assert_int_equal(added, 1);
    assert_int_equal(serving.served(), 1);

    // a label, then a condition's message: the same kinds
    cache.apply(put(4, key, widgets(1, "color", kEstablished, R"(,"labels":{"a":"b"})")), now);
    std::string other = R"({"type":"NamesAccepted","status":"True","message":"no conflicts"},)"
                        R"({"type":"Established","status":"True"})";
    cache.apply(put(5, key, widgets(1, "color", other)), now);
    assert_int_equal(added, 1);
    assert_int_equal(removed, 0);
    assert_false(serving.terminating("example.com", "widgets"));

    // a new spec: served again
    cache.apply(put(6, key, widgets(2, "size", kEstablished)), now);
    assert_int_equal(removed, 1);
    assert_int_equal(added, 2);

    // terminating: still served, creates refused
    std::string terminating =
        std::string(kEstablished) + R"(,{"type":"Terminating","status":"True"})";
    cache.apply(put(7, key, widgets(2, "size", terminating)), now);
    assert_int_equal(added, 2);
    assert_true(serving.terminating("example.com", "widgets"));

    // no longer established: not served
    cache.apply(put(8, key, widgets(2, "size", R"({"type":"Established","status":"False"})")), now);
    assert_int_equal(removed, 2);
    assert_int_equal(serving.served(), 0);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kinds_are_rebuilt_only_when_the_spec_changes),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
