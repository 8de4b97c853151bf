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

// Installs `main` on the kind's store and, when the kind has a status
// subresource, the status subresource's manager: the main resource resets
// status, the status subresource the top-level fields `statusResets` names.
void install(registry::Store& store, apply::FieldManagerOptions main,
             const std::vector<std::string>& statusResets) {
    const registry::KindInfo& kind = store.kind();
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
    for (const std::string& name : statusResets) {
        status.resetFields.insert(topLevel(name));
    }
    store.setFieldManagers(std::make_shared<const apply::FieldManager>(std::move(main)),
                           std::make_shared<const apply::FieldManager>(std::move(status)));
}

}  // namespace

void installFieldManagers(registry::Store& store) {
    const registry::KindInfo& kind = store.kind();
    apply::FieldManagerOptions main;
    if (kind.custom) {
        // Typed by the version's structural schema (one copy per version);
        // mirrors the strategies' reset fields of kube's customresource
        // package: the status subresource resets spec alone.
        if (auto schema = apis::apiextensions::structuralSchemaOf(kind)) {
            main.type = apply::TypeRef::forStructural(&schema->root());
            main.typeSource = std::move(schema);
        }
        install(store, std::move(main), {"spec"});
        return;
    }
    const google::protobuf::Descriptor* message = protobufSchema(kind.apiVersion(), kind.kind);
    // A kind stored in another's shape records the fields of the shape it
    // serves (the store converts for it).
    if (!message || !kind.stored()) {
        return;
    }
    main.type = apply::TypeRef::forMessage(message);
    // The status strategy keeps everything but metadata and status.
    std::vector<std::string> statusResets;
    for (const auto& [name, field] : registry::schemaFields(message).ordered) {
        if (name != "metadata" && name != "status" && name != "apiVersion" && name != "kind") {
            statusResets.push_back(name);
        }
    }
    install(store, std::move(main), statusResets);
}

}  // namespace kube::endpoints
