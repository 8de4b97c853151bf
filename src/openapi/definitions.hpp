#pragma once

#include <deque>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "openapi/schema_pool.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

namespace kube::openapi {

// The two document forms. They differ in where definitions live
// (#/definitions/ or #/components/schemas/), in how a reference with
// siblings is written (v3 wraps it in allOf) and in the forms of
// IntOrString and Quantity.
enum class Flavor { V2, V3 };

// The definitions of one document: the schemas of the kinds, lists and meta
// types its operations name, and of every message they reach. Mirrors what
// kube-openapi's builder derives from the Go types behind the routes, with
// the schema in src/apis/proto standing in for the Go types: JSON names,
// omitempty and pointers from the opts.proto options, descriptions from the
// .proto comments.
class Definitions {
  public:
    Definitions(const SchemaPool& pool, Flavor flavor, util::json::Allocator& a);

    // The definition name of a served kind ("io.k8s.api.apps.v1.Deployment")
    // and of its list ("...DeploymentList"); both are added with their
    // x-kubernetes-group-version-kind. A kind the schema has no message for
    // gets an open object schema that keeps unknown fields. A custom
    // resource's kind is named as kube names it ("com.example.stable.v1.CronTab",
    // its list after the CRD's listKind) and described by its CRD version's
    // schema (openapi/custom_resource_schema).
    std::string kind(const registry::KindInfo& kind);
    std::string list(const registry::KindInfo& kind);

    // The definition of the message served as apiVersion + kind (its gvk
    // option), added; "" when the schema has none.
    std::string message(std::string_view apiVersion, std::string_view kind);

    // A definition by its name ("io.k8s.apimachinery.pkg.apis.meta.v1.Status");
    // false when the schema has no message of that name.
    bool named(std::string_view name);

    // "#/definitions/<name>" or "#/components/schemas/<name>".
    std::string refPath(std::string_view name) const;

    // Every definition added and every one they reach, sorted by name.
    util::json::Value take();

  private:
    // A definition to render: a message, or (null) a kind without one.
    struct Pending {
        std::string name;
        const pb::Descriptor* message = nullptr;
    };

    std::string add(const pb::Descriptor* message);
    util::json::Value render(const pb::Descriptor* message);
    util::json::Value object(const pb::Descriptor* message);
    void properties(const pb::Descriptor* message, util::json::Value& props,
                    util::json::Value& required);
    util::json::Value property(const pb::FieldDescriptor* field);
    util::json::Value valueSchema(const pb::FieldDescriptor* field, bool element);
    util::json::Value reference(const pb::Descriptor* message, util::json::Value siblings);
    util::json::Value kindObject(const registry::KindInfo& kind);
    // A custom resource's kind and list (KindInfo::custom), from its CRD.
    util::json::Value customKindObject(const registry::KindInfo& kind);
    util::json::Value customListObject(const registry::KindInfo& kind);
    util::json::Value metaReference(std::string_view name, const char* description);
    util::json::Value listObject(const registry::KindInfo& kind, const std::string& itemName);
    util::json::Value gvkExtension(std::string_view group, std::string_view version,
                                   std::string_view kind);
    // apiVersion (kind empty) or kind (the kind's name, as an example).
    util::json::Value typeMetaProperty(std::string_view kind);

    const SchemaPool& pool_;
    Flavor flavor_;
    util::json::Allocator& a_;
    // Rendered definitions, sorted by name as kube's documents are.
    std::map<std::string, util::json::Value> done_;
    std::set<std::string> queued_;
    std::deque<Pending> pending_;
    // Kinds and lists by definition name, for the GVK extension.
    std::map<std::string, const registry::KindInfo*> kinds_, lists_;
};

}  // namespace kube::openapi
