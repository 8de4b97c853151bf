#include "endpoints/field_managers.hpp"

#include "apis/apiextensions/custom_resource_schema_hooks.hpp"
#include "endpoints/protobuf_codec.hpp"
#include "registry/schema_fields.hpp"

namespace kube::endpoints {

namespace apply = registry::apply;

namespace {

apply::Path topLevel(const std::string& name) {
    apply::Path p;
    p.push_back(apply::PathElement::field(name));
    return p;
}

// A custom resource's managers, typed by its version's structural schema;
// mirrors the strategies' reset fields of kube's customresource package:
// the main resource resets status, the status subresource resets spec alone.
void installCustomFieldManagers(registry::Store& store) {
    const registry::KindInfo& kind = store.kind();
    apply::FieldManagerOptions main;
    // The schema the kind's hooks compiled (one copy per version).
    if (auto schema = apis::apiextensions::structuralSchemaOf(kind)) {
        main.type = apply::TypeRef::forStructural(&schema->root());
        main.typeSource = std::move(schema);
    }
    main.apiVersion = kind.apiVersion();
    main.kind = kind.kind;
    if (!kind.statusIsSubresource()) {
        store.setFieldManagers(std::make_shared<const apply::FieldManager>(std::move(main)),
                               nullptr);
        return;
    }
    apply::FieldManagerOptions status = main;
    status.subresource = "status";
    main.resetFields.insert(topLevel("status"));
    status.resetFields.insert(topLevel("spec"));
    store.setFieldManagers(std::make_shared<const apply::FieldManager>(std::move(main)),
                           std::make_shared<const apply::FieldManager>(std::move(status)));
}

}  // namespace

void installFieldManagers(registry::Store& store) {
    const registry::KindInfo& kind = store.kind();
    if (kind.custom) {
        installCustomFieldManagers(store);
        return;
    }
    const google::protobuf::Descriptor* message = protobufSchema(kind.apiVersion(), kind.kind);
    // A kind stored in another's shape keeps the managedFields of that shape.
    if (!message || !kind.stored() || kind.storedAs) {
        return;
    }
    apply::FieldManagerOptions main;
    main.type = apply::TypeRef::forMessage(message);
    main.apiVersion = kind.apiVersion();
    main.kind = kind.kind;
    if (!kind.statusIsSubresource()) {
        store.setFieldManagers(std::make_shared<const apply::FieldManager>(std::move(main)),
                               nullptr);
        return;
    }
    apply::FieldManagerOptions status = main;
    status.subresource = "status";
    main.resetFields.insert(topLevel("status"));
    // The status strategy keeps everything but metadata and status.
    for (const auto& [name, field] : registry::schemaFields(message).ordered) {
        if (name != "metadata" && name != "status" && name != "apiVersion" && name != "kind") {
            status.resetFields.insert(topLevel(name));
        }
    }
    store.setFieldManagers(std::make_shared<const apply::FieldManager>(std::move(main)),
                           std::make_shared<const apply::FieldManager>(std::move(status)));
}

}  // namespace kube::endpoints
