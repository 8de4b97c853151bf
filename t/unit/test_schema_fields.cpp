// registry::schemaFields: built once at start-up for every message of the
// served kinds (prepareProtobufSchemas), then read by the loop and pool
// threads from one table that takes no lock; a message never prepared is
// built per thread, so no thread waits on another.
#include <thread>

#include "endpoints/protobuf_codec.hpp"
#include "kapi/admissionregistration.pb.h"
#include "kapi/apiextensions.pb.h"
#include "kapi/apps.pb.h"
#include "kapi/core.pb.h"
#include "kapi/meta.pb.h"
#include "kapi/opts.pb.h"
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

// The options of field `name` of `d`, as the table holds them.
const SchemaFields::FieldOptions& optionsOf(const google::protobuf::Descriptor* d,
                                            const char* name) {
    const google::protobuf::FieldDescriptor* f = d->FindFieldByName(name);
    assert_non_null(f);
    return schemaFields(d).options.at(static_cast<size_t>(f->index()));
}

void the_options_of_messages_and_fields_are_read_once(void**) {
    kube::endpoints::prepareProtobufSchemas();
    // A message's own JSON form, and the plain object.
    assert_int_equal(schemaFields(kapi::meta::v1::Time::descriptor()).form,
                     kapi::opt::TIME_RFC3339);
    assert_int_equal(schemaFields(kapi::meta::v1::ObjectMeta::descriptor()).form,
                     kapi::opt::OBJECT);
    // One entry per field, in field order, each with its own options.
    const auto* entry = kapi::meta::v1::ManagedFieldsEntry::descriptor();
    assert_int_equal(schemaFields(entry).options.size(), entry->field_count());
    const SchemaFields::FieldOptions& time = optionsOf(entry, "time");
    assert_true(time.ptr);
    assert_false(time.always);
    assert_false(time.flatten);
    assert_string_equal(time.json->c_str(), "time");
    const SchemaFields::FieldOptions& name =
        optionsOf(kapi::meta::v1::OwnerReference::descriptor(), "name");
    assert_true(name.always);
    assert_false(name.ptr);
    // A JSON name of its own, and an embedded struct.
    const auto* props = kapi::apiextensions::v1::JSONSchemaProps::descriptor();
    assert_string_equal(optionsOf(props, "schema").json->c_str(), "$schema");
    assert_string_equal(optionsOf(props, "ref").json->c_str(), "$ref");
    assert_true(optionsOf(props, "ref").ptr);
    assert_true(optionsOf(kapi::admissionregistration::v1::RuleWithOperations::descriptor(), "rule")
                    .flatten);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unprepared_messages_are_built_per_thread),
        cmocka_unit_test(prepared_messages_are_shared_by_every_thread),
        cmocka_unit_test(the_options_of_messages_and_fields_are_read_once),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
