#include "apis/apiextensions/v1beta1_conversion.hpp"

namespace kube::apis::apiextensions {

namespace json = util::json;

namespace {

constexpr std::string_view kV1beta1 = "apiextensions.k8s.io/v1beta1";

// Removes member `name`, keeping the others in order (kube writes fields in
// their declared order). Pointers to members are invalid afterwards.
void erase(json::Value& obj, std::string_view name) {
    if (obj.IsObject()) {
        if (auto it = obj.FindMember(json::ref(name)); it != obj.MemberEnd()) {
            obj.EraseMember(it);
        }
    }
}

// v1beta1's printer columns name the path "JSONPath"; v1's "jsonPath".
void convertColumns(json::Value& columns, json::Allocator& a) {
    if (!columns.IsArray()) {
        return;
    }
    for (json::Value& c : columns.GetArray()) {
        json::Value* path = json::member(c, "JSONPath");
        if (!path) {
            continue;
        }
        json::Value moved(std::move(*path));
        erase(c, "JSONPath");
        json::setMember(c, "jsonPath", std::move(moved), a);
    }
}

// Moves the spec's member `from` into every version without its own `to`
// (a copy each), as kube's conversion to v1 does. (Removing a member moves
// another into its place: no member is held across a removal.)
void spread(json::Value& spec, std::string_view from, std::string_view to, json::Allocator& a) {
    json::Value* shared = json::member(spec, from);
    json::Value* versions = json::member(spec, "versions");
    if (!shared) {
        return;
    }
    if (!shared->IsNull() && versions && versions->IsArray()) {
        for (json::Value& v : versions->GetArray()) {
            json::Value* own = json::member(v, to);
            if (v.IsObject() && (!own || own->IsNull())) {
                json::setMember(v, to, json::Value(*shared, a), a);
            }
        }
    }
    erase(spec, from);
}

}  // namespace

void convertStoredV1beta1(json::Value& crd, json::Allocator& a) {
    if (!crd.IsObject() || json::stringMember(crd, "apiVersion") != kV1beta1 ||
        json::stringMember(crd, "kind") != "CustomResourceDefinition") {
        return;
    }
    json::setMember(crd, "apiVersion", json::Value("apiextensions.k8s.io/v1"), a);
    json::Value* spec = json::member(crd, "spec");
    if (!spec || !spec->IsObject()) {
        return;
    }
    if (!json::member(*spec, "versions")) {
        json::setMember(*spec, "versions", json::Value(rapidjson::kArrayType), a);
    }
    json::Value* versions = json::member(*spec, "versions");
    // A CRD of a single version may name it only in the deprecated field.
    std::string_view version = json::stringMember(*spec, "version");
    if (versions->IsArray() && versions->Empty() && !version.empty()) {
        json::Value v(rapidjson::kObjectType);
        json::setMember(v, "name", json::stringValue(version, a), a);
        json::setMember(v, "served", json::Value(true), a);
        json::setMember(v, "storage", json::Value(true), a);
        versions->PushBack(std::move(v), a);
    }
    if (versions->IsArray()) {
        for (json::Value& v : versions->GetArray()) {
            if (json::Value* columns = json::member(v, "additionalPrinterColumns")) {
                convertColumns(*columns, a);
            }
        }
    }
    erase(*spec, "version");
    if (json::Value* columns = json::member(*spec, "additionalPrinterColumns")) {
        convertColumns(*columns, a);
    }
    spread(*spec, "validation", "schema", a);
    spread(*spec, "subresources", "subresources", a);
    spread(*spec, "additionalPrinterColumns", "additionalPrinterColumns", a);
    // v1 keeps only a true preserveUnknownFields (false is its default).
    if (const json::Value* keep = json::member(*spec, "preserveUnknownFields");
        keep && !(keep->IsBool() && keep->GetBool())) {
        erase(*spec, "preserveUnknownFields");
    }
    // The webhook's fields, flat in v1beta1, are conversion.webhook's in v1.
    json::Value* conversion = json::member(*spec, "conversion");
    if (conversion && conversion->IsObject()) {
        json::Value webhook(rapidjson::kObjectType);
        for (auto [from, to] :
             {std::pair<std::string_view, std::string_view>{"webhookClientConfig", "clientConfig"},
              {"conversionReviewVersions", "conversionReviewVersions"}}) {
            if (json::Value* m = json::member(*conversion, from)) {
                json::Value moved(std::move(*m));
                erase(*conversion, from);
                if (!moved.IsNull()) {
                    json::setMember(webhook, to, std::move(moved), a);
                }
            }
        }
        if (webhook.MemberCount() > 0) {
            json::setMember(*conversion, "webhook", std::move(webhook), a);
        }
    }
}

}  // namespace kube::apis::apiextensions
