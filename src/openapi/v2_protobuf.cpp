#include "openapi/v2_protobuf.hpp"

#include "kapi/openapi_v2.pb.h"
#include "util/deep_stack.hpp"
#include "util/json.hpp"

namespace kube::openapi {

namespace json = util::json;
namespace g = gnostic::openapi::v2;

namespace {

std::string text(const json::Value& v) {
    return std::string(json::view(v));
}

void strings(const json::Value& array, google::protobuf::RepeatedPtrField<std::string>* out) {
    for (const auto& s : array.GetArray()) {
        out->Add(text(s));
    }
}

// An extension's value as YAML: JSON is a YAML subset.
void extension(const json::Value::Member& m, google::protobuf::RepeatedPtrField<g::NamedAny>* out) {
    g::NamedAny* any = out->Add();
    any->set_name(text(m.name));
    any->mutable_value()->set_yaml(json::serialize(m.value));
}

void schema(const json::Value& s, g::Schema* out) {
    for (const auto& m : s.GetObject()) {
        std::string_view key = json::view(m.name);
        if (key == "$ref") {
            out->set_ref(text(m.value));
        } else if (key == "format") {
            out->set_format(text(m.value));
        } else if (key == "description") {
            out->set_description(text(m.value));
        } else if (key == "default") {
            out->mutable_default_()->set_yaml(json::serialize(m.value));
        } else if (key == "required") {
            strings(m.value, out->mutable_required());
        } else if (key == "additionalProperties") {
            if (m.value.IsBool()) {
                out->mutable_additional_properties()->set_boolean(m.value.GetBool());
            } else {
                schema(m.value, out->mutable_additional_properties()->mutable_schema());
            }
        } else if (key == "type") {
            out->mutable_type()->add_value(text(m.value));
        } else if (key == "items") {
            schema(m.value, out->mutable_items()->add_schema());
        } else if (key == "allOf") {
            for (const auto& e : m.value.GetArray()) {
                schema(e, out->add_all_of());
            }
        } else if (key == "properties") {
            for (const auto& p : m.value.GetObject()) {
                g::NamedSchema* named = out->mutable_properties()->add_additional_properties();
                named->set_name(text(p.name));
                schema(p.value, named->mutable_value());
            }
        } else if (key.starts_with("x-")) {
            extension(m, out->mutable_vendor_extension());
        }
    }
}

void parameter(const json::Value& p, g::ParametersItem* out) {
    g::Parameter* param = out->mutable_parameter();
    std::string_view in = json::stringMember(p, "in");
    const json::Value* required = json::member(p, "required");
    bool isRequired = required && required->IsBool() && required->GetBool();
    const json::Value* unique = json::member(p, "uniqueItems");
    bool isUnique = unique && unique->IsBool() && unique->GetBool();
    if (in == "body") {
        g::BodyParameter* body = param->mutable_body_parameter();
        body->set_description(std::string(json::stringMember(p, "description")));
        body->set_name(std::string(json::stringMember(p, "name")));
        body->set_in(std::string(in));
        body->set_required(isRequired);
        if (const json::Value* s = json::member(p, "schema")) {
            schema(*s, body->mutable_schema());
        }
        return;
    }
    auto fill = [&](auto* sub) {
        sub->set_required(isRequired);
        sub->set_in(std::string(in));
        sub->set_description(std::string(json::stringMember(p, "description")));
        sub->set_name(std::string(json::stringMember(p, "name")));
        sub->set_type(std::string(json::stringMember(p, "type")));
        sub->set_unique_items(isUnique);
    };
    if (in == "path") {
        fill(param->mutable_non_body_parameter()->mutable_path_parameter_sub_schema());
    } else {
        fill(param->mutable_non_body_parameter()->mutable_query_parameter_sub_schema());
    }
}

void operation(const json::Value& o, g::Operation* out) {
    for (const auto& m : o.GetObject()) {
        std::string_view key = json::view(m.name);
        if (key == "tags") {
            strings(m.value, out->mutable_tags());
        } else if (key == "description") {
            out->set_description(text(m.value));
        } else if (key == "operationId") {
            out->set_operation_id(text(m.value));
        } else if (key == "produces") {
            strings(m.value, out->mutable_produces());
        } else if (key == "consumes") {
            strings(m.value, out->mutable_consumes());
        } else if (key == "schemes") {
            strings(m.value, out->mutable_schemes());
        } else if (key == "parameters") {
            for (const auto& p : m.value.GetArray()) {
                parameter(p, out->add_parameters());
            }
        } else if (key == "responses") {
            for (const auto& r : m.value.GetObject()) {
                g::NamedResponseValue* named = out->mutable_responses()->add_response_code();
                named->set_name(text(r.name));
                g::Response* resp = named->mutable_value()->mutable_response();
                resp->set_description(std::string(json::stringMember(r.value, "description")));
                if (const json::Value* s = json::member(r.value, "schema")) {
                    schema(*s, resp->mutable_schema()->mutable_schema());
                }
            }
        } else if (key.starts_with("x-")) {
            extension(m, out->mutable_vendor_extension());
        }
    }
}

void pathItem(const json::Value& item, g::PathItem* out) {
    for (const auto& m : item.GetObject()) {
        std::string_view key = json::view(m.name);
        if (key == "get") {
            operation(m.value, out->mutable_get());
        } else if (key == "put") {
            operation(m.value, out->mutable_put());
        } else if (key == "post") {
            operation(m.value, out->mutable_post());
        } else if (key == "delete") {
            operation(m.value, out->mutable_delete_());
        } else if (key == "patch") {
            operation(m.value, out->mutable_patch());
        } else if (key == "parameters") {
            for (const auto& p : m.value.GetArray()) {
                parameter(p, out->add_parameters());
            }
        }
    }
}

// The document as gnostic's message. Building, serializing and freeing it
// recurse once per level of the schemas (a CRD's may nest thousands deep).
std::optional<std::string> convert(const json::Document& d) {
    g::Document doc;
    doc.set_swagger(std::string(json::stringMember(d, "swagger")));
    if (const json::Value* info = json::member(d, "info")) {
        doc.mutable_info()->set_title(std::string(json::stringMember(*info, "title")));
        doc.mutable_info()->set_version(std::string(json::stringMember(*info, "version")));
    }
    if (const json::Value* paths = json::member(d, "paths")) {
        for (const auto& p : paths->GetObject()) {
            g::NamedPathItem* named = doc.mutable_paths()->add_path();
            named->set_name(std::string(json::view(p.name)));
            pathItem(p.value, named->mutable_value());
        }
    }
    if (const json::Value* defs = json::member(d, "definitions")) {
        for (const auto& s : defs->GetObject()) {
            g::NamedSchema* named = doc.mutable_definitions()->add_additional_properties();
            named->set_name(std::string(json::view(s.name)));
            schema(s.value, named->mutable_value());
        }
    }
    if (const json::Value* defs = json::member(d, "securityDefinitions")) {
        for (const auto& s : defs->GetObject()) {
            g::NamedSecurityDefinitionsItem* named =
                doc.mutable_security_definitions()->add_additional_properties();
            named->set_name(std::string(json::view(s.name)));
            g::ApiKeySecurity* key = named->mutable_value()->mutable_api_key_security();
            key->set_type(std::string(json::stringMember(s.value, "type")));
            key->set_name(std::string(json::stringMember(s.value, "name")));
            key->set_in(std::string(json::stringMember(s.value, "in")));
            key->set_description(std::string(json::stringMember(s.value, "description")));
        }
    }
    if (const json::Value* security = json::member(d, "security")) {
        for (const auto& requirement : security->GetArray()) {
            g::SecurityRequirement* r = doc.add_security();
            for (const auto& m : requirement.GetObject()) {
                g::NamedStringArray* named = r->add_additional_properties();
                named->set_name(std::string(json::view(m.name)));
                strings(m.value, named->mutable_value()->mutable_value());
            }
        }
    }
    std::string out;
    if (!doc.SerializeToString(&out)) {
        return std::nullopt;
    }
    return out;
}

}  // namespace

std::optional<std::string> v2Protobuf(std::string_view text) {
    json::Document d;
    if (json::parse(text, d) || !d.IsObject()) {
        return std::nullopt;
    }
    std::optional<std::string> out;
    util::runWithStackFor(d, [&] { out = convert(d); });
    return out;
}

}  // namespace kube::openapi
