// registry::schemaFields: built once at start-up for every message of the
// served kinds (prepareProtobufSchemas), then read by the loop and pool
// threads from one table that takes no lock; a message never prepared is
// built per thread, so no thread waits on another.
#include <thread>

#include "endpoints/protobuf_codec.hpp"
#include "kapi/apps.pb.h"
#include "kapi/core.pb.h"
#include "kapi/runtime.pb.h"
#include "registry/schema_fields.hpp"

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

using kube::registry::SchemaFields;
using kube::registry::schemaFields;

const SchemaFields* onAnotherThread(const google::protobuf::Descriptor* d) {
    const SchemaFields* out = nullptr;
    std::thread t([&] { out = &schemaFields(d); });
    t.join();
    return out;
}

void unprepared_messages_are_built_per_thread(void**) {
    // Before any preparing: each thread builds its own copy.
    const auto* d = kapi::core::v1::ConfigMap::descriptor();
    const SchemaFields& here = schemaFields(d);
    assert_ptr_equal(&here, &schemaFields(d));
    assert_ptr_not_equal(&here, onAnotherThread(d));
    assert_int_equal(here.byName.count("data"), 1);
}

void prepared_messages_are_shared_by_every_thread(void**) {
    kube::endpoints::prepareProtobufSchemas();
    kube::endpoints::prepareProtobufSchemas();  // once is enough; again is harmless
    // A kind, a message reached only through its fields, and ObjectMeta.
    const auto* deployment = kapi::apps::v1::Deployment::descriptor();
    const auto* container = kapi::core::v1::Container::descriptor();
    const auto* meta = deployment->FindFieldByName("metadata")->message_type();
    for (const auto* d : {deployment, container, meta}) {
        const SchemaFields& here = schemaFields(d);
        assert_ptr_equal(&here, onAnotherThread(d));
        assert_false(here.ordered.empty());
    }
    assert_int_equal(schemaFields(container).byName.count("image"), 1);
    assert_int_equal(schemaFields(meta).byName.count("resourceVersion"), 1);
    // Not reachable from a kind: still answered, per thread.
    const auto* unknown = kapi::runtime::Unknown::descriptor();
    assert_ptr_not_equal(&schemaFields(unknown), onAnotherThread(unknown));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unprepared_messages_are_built_per_thread),
        cmocka_unit_test(prepared_messages_are_shared_by_every_thread),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
