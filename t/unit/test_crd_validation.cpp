// CustomResourceDefinition validation (apis/apiextensions): a table of CRDs
// with the causes kube-apiserver 1.26.5 gave for each (recorded with
// dryRun=All against the reference server), run through the kind's own
// defaulting, PrepareForCreate and validation as the store runs them; then
// the update rules.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "apis/apiextensions/kinds.hpp"
#include "registry/validation.hpp"
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
using kube::meta::StatusCause;
using kube::registry::KindInfo;

namespace {

const KindInfo& crdKind() {
    static const KindInfo k = kube::apis::apiextensions::customResourceDefinitionKind();
    return k;
}

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

// Defaults, PrepareForCreate, then the store's metadata checks and the
// kind's validation, as the store does on create.
std::vector<StatusCause> createCauses(std::string_view body) {
    json::Document d = parse(body);
    crdKind().defaults(d, d.GetAllocator());
    crdKind().prepareForCreate(d, d.GetAllocator());
    std::vector<StatusCause> causes =
        kube::registry::validation::validateObjectMeta(d["metadata"], false, crdKind().nameRule);
    for (StatusCause& c : crdKind().validate(d)) {
        causes.push_back(std::move(c));
    }
    return causes;
}

struct Case {
    const char* name;
    const char* body;
    std::vector<std::pair<std::string, std::string>> causes;  // field, message
};

// kube walks Go maps in random order; where a schema has several invalid
// properties, kube's order is one of many and this server's is by name
// ("schema-lists").
// clang-format off
const std::vector<Case> kCases = {
    {"ok",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})",
     {
     }},
    {"wrong-name",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"foo.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":"wid)"
     R"(gets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,")"
     R"(storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})",
     {
         {R"(metadata.name)",
          R"(Invalid value: "foo.h.example.com": must be spec.names.plural+"."+spec.group)"},
     }},
    {"no-dot-group",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.example"},"spec":{"group":"example","names":{"plural":"widgets","k)"
     R"(ind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage")"
     R"(:true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})",
     {
         {R"(spec.group)",
          R"(Invalid value: "example": should be a domain with at least one dot)"},
     }},
    {"bad-group",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.H_x.com"},"spec":{"group":"H_x.com","names":{"plural":"widgets","k)"
     R"(ind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage")"
     R"(:true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})",
     {
         {R"(metadata.name)",
          R"(Invalid value: "widgets.H_x.com": a lowercase RFC 1123 subdomain must consist of low)"
          R"(er case alphanumeric characters, '-' or '.', and must start and end with an alphanum)"
          R"(eric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9])"
          R"(*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"},
         {R"(spec.group)",
          R"(Invalid value: "H_x.com": a lowercase RFC 1123 subdomain must consist of lower case )"
          R"(alphanumeric characters, '-' or '.', and must start and end with an alphanumeric cha)"
          R"(racter (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9)"
          R"(])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"},
     }},
    {"bad-scope-no-versions",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Global","versions":[]}})",
     {
         {R"(spec.scope)",
          R"(Unsupported value: "Global": supported values: "Cluster", "Namespaced")"},
         {R"(spec.versions)",
          R"(Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: must have exactly )"
          R"(one version marked as storage version)"},
         {R"(status.storedVersions)",
          R"(Invalid value: []string(nil): must have at least one stored version)"},
     }},
    {"empty-spec",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{}})",
     {
         {R"(metadata.name)",
          R"(Invalid value: "widgets.h.example.com": must be spec.names.plural+"."+spec.group)"},
         {R"(spec.group)",
          R"(Required value)"},
         {R"(spec.scope)",
          R"(Required value)"},
         {R"(spec.versions)",
          R"(Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exact)"
          R"(ly one version marked as storage version)"},
         {R"(spec.names.plural)",
          R"(Required value)"},
         {R"(spec.names.singular)",
          R"(Required value)"},
         {R"(spec.names.kind)",
          R"(Required value)"},
         {R"(spec.names.listKind)",
          R"(Required value)"},
         {R"(status.storedVersions)",
          R"(Invalid value: []string(nil): must have at least one stored version)"},
     }},
    {"two-storage",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},{"name":"v2","serv)"
     R"(ed":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})",
     {
         {R"(spec.versions)",
          R"(Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomR)"
          R"(esourceDefinitionVersion{Name:"v1", Served:true, Storage:true, Deprecated:false, Dep)"
          R"(recationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil)"
          R"(), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterC)"
          R"(olumns:[]apiextensions.CustomResourceColumnDefinition(nil)}, apiextensions.CustomRes)"
          R"(ourceDefinitionVersion{Name:"v2", Served:true, Storage:true, Deprecated:false, Depre)"
          R"(cationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil),)"
          R"( Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterCol)"
          R"(umns:[]apiextensions.CustomResourceColumnDefinition(nil)}}: must have exactly one ve)"
          R"(rsion marked as storage version)"},
         {R"(status.storedVersions)",
          R"(Invalid value: apiextensions.CustomResourceDefinitionVersion{Name:"v2", Served:true,)"
          R"( Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiexte)"
          R"(nsions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSu)"
          R"(bresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefin)"
          R"(ition(nil)}: must have the storage version v2)"},
     }},
    {"dup-noschema-badname",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":fa)"
     R"(lse,"storage":true},{"name":"v1","served":false,"storage":false},{"name":"V_2","serv)"
     R"(ed":false,"storage":false}]}})",
     {
         {R"(spec.versions[0].schema.openAPIV3Schema)",
          R"(Required value: schemas are required)"},
         {R"(spec.versions[1].schema.openAPIV3Schema)",
          R"(Required value: schemas are required)"},
         {R"(spec.versions[2].schema.openAPIV3Schema)",
          R"(Required value: schemas are required)"},
         {R"(spec.versions[2].name)",
          R"(Invalid value: "V_2": a DNS-1035 label must consist of lower case alphanumeric chara)"
          R"(cters or '-', start with an alphabetic character, and end with an alphanumeric chara)"
          R"(cter (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[)"
          R"(a-z0-9])?'))"},
         {R"(spec.versions)",
          R"(Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomR)"
          R"(esourceDefinitionVersion{Name:"v1", Served:false, Storage:true, Deprecated:false, De)"
          R"(precationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(ni)"
          R"(l), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinter)"
          R"(Columns:[]apiextensions.CustomResourceColumnDefinition(nil)}, apiextensions.CustomRe)"
          R"(sourceDefinitionVersion{Name:"v1", Served:false, Storage:false, Deprecated:false, De)"
          R"(precationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(ni)"
          R"(l), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinter)"
          R"(Columns:[]apiextensions.CustomResourceColumnDefinition(nil)}, apiextensions.CustomRe)"
          R"(sourceDefinitionVersion{Name:"V_2", Served:false, Storage:false, Deprecated:false, D)"
          R"(eprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(n)"
          R"(il), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinte)"
          R"(rColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}}: must contain unique )"
          R"(version names)"},
     }},
    {"names",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"Wid_gets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural")"
     R"(:"Wid_gets","singular":"W","kind":"Wid get","listKind":"Wid get","shortNames":["ok",)"
     R"("B_d"],"categories":["all","X"]},"scope":"Cluster","versions":[{"name":"v1","served")"
     R"(:true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})",
     {
         {R"(metadata.name)",
          R"(Invalid value: "Wid_gets.h.example.com": a lowercase RFC 1123 subdomain must consist)"
          R"( of lower case alphanumeric characters, '-' or '.', and must start and end with an a)"
          R"(lphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-)"
          R"(a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"},
         {R"(spec.names.plural)",
          R"(Invalid value: "Wid_gets": a DNS-1035 label must consist of lower case alphanumeric )"
          R"(characters or '-', start with an alphabetic character, and end with an alphanumeric )"
          R"(character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0)"
          R"(-9]*[a-z0-9])?'))"},
         {R"(spec.names.singular)",
          R"(Invalid value: "W": a DNS-1035 label must consist of lower case alphanumeric charact)"
          R"(ers or '-', start with an alphabetic character, and end with an alphanumeric charact)"
          R"(er (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-)"
          R"(z0-9])?'))"},
         {R"(spec.names.kind)",
          R"(Invalid value: "Wid get": may have mixed case, but should otherwise match: a DNS-103)"
          R"(5 label must consist of lower case alphanumeric characters or '-', start with an alp)"
          R"(habetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-)"
          R"(123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'))"},
         {R"(spec.names.listKind)",
          R"(Invalid value: "Wid get": may have mixed case, but should otherwise match: a DNS-103)"
          R"(5 label must consist of lower case alphanumeric characters or '-', start with an alp)"
          R"(habetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-)"
          R"(123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'))"},
         {R"(spec.names.shortNames[1])",
          R"(Invalid value: "B_d": a DNS-1035 label must consist of lower case alphanumeric chara)"
          R"(cters or '-', start with an alphabetic character, and end with an alphanumeric chara)"
          R"(cter (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[)"
          R"(a-z0-9])?'))"},
         {R"(spec.names.listKind)",
          R"(Invalid value: "Wid get": kind and listKind may not be the same)"},
         {R"(spec.names.categories[1])",
          R"(Invalid value: "X": a DNS-1035 label must consist of lower case alphanumeric charact)"
          R"(ers or '-', start with an alphabetic character, and end with an alphanumeric charact)"
          R"(er (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-)"
          R"(z0-9])?'))"},
     }},
    {"puf",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","preserveUnknownFields":true,"versio)"
     R"(ns":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":")"
     R"(object"}}}]}})",
     {
         {R"(spec.preserveUnknownFields)",
          R"(Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to)"
          R"( true in spec.versions[*].schema instead)"},
     }},
    {"approval-missing",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.k8s.io"},"spec":{"group":"h.k8s.io","names":{"plural":"widgets",)"
     R"("kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storag)"
     R"(e":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})",
     {
         {R"(metadata.annotations[api-approved.kubernetes.io])",
          R"(Required value: protected groups must have approval annotation "api-approved.kuberne)"
          R"(tes.io", see https://github.com/kubernetes/enhancements/pull/1111)"},
     }},
    {"approval-invalid",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.k8s.io","annotations":{"api-approved.kubernetes.io":"yes"}},"spe)"
     R"(c":{"group":"h.k8s.io","names":{"plural":"widgets","kind":"Widget"},"scope":"Namespa)"
     R"(ced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schem)"
     R"(a":{"type":"object"}}}]}})",
     {
         {R"(metadata.annotations[api-approved.kubernetes.io])",
          R"(Invalid value: "yes": protected groups must have approval annotation "api-approved.k)"
          R"(ubernetes.io" with either a URL or a reason starting with "unapproved", see https://)"
          R"(github.com/kubernetes/enhancements/pull/1111)"},
     }},
    {"approval-ok",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.k8s.io","annotations":{"api-approved.kubernetes.io":"https://git)"
     R"(hub.com/kubernetes/kubernetes/pull/1"}},"spec":{"group":"h.k8s.io","names":{"plural")"
     R"(:"widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":t)"
     R"(rue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})",
     {
     }},
    {"schema-root-string",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"string"}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.type)",
          R"(Invalid value: "string": must be object at the root)"},
     }},
    {"schema-root-none",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"properties":{"spec":{"type":"object")"
     R"(}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.type)",
          R"(Required value: must not be empty at the root)"},
     }},
    {"schema-metadata",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"metada)"
     R"(ta":{"type":"object","properties":{"labels":{"type":"object"}}}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[metadata])",
          R"(Forbidden: must not specify anything other than name and generateName, but metadata )"
          R"(is implicitly specified)"},
     }},
    {"schema-metadata-name-ok",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"metada)"
     R"(ta":{"type":"object","properties":{"name":{"type":"string","maxLength":10}}}}}}}]}})",
     {
     }},
    {"schema-anyof",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"t)"
     R"(ype":"string","anyOf":[{"type":"string"},{"description":"x","pattern":"["}]}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[a].anyOf[0].type)",
          R"(Forbidden: must be empty to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].anyOf[1].description)",
          R"(Forbidden: must be empty to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].anyOf[1].pattern)",
          R"(Invalid value: "[": must be a valid regular expression, but isn't: error parsing reg)"
          R"(exp: missing closing ]: `[`)"},
     }},
    {"schema-mix",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{},)"
     R"("f":{"type":"string","uniqueItems":true},"b":{"type":"array"}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[a].type)",
          R"(Required value: must not be empty for specified object fields)"},
         {R"(spec.validation.openAPIV3Schema.properties[b].items)",
          R"(Required value: must be specified)"},
         {R"(spec.validation.openAPIV3Schema.properties[f].uniqueItems)",
          R"(Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes qu)"
          R"(adratic)"},
     }},
    {"schema-structural",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"z":{},)"
     R"("a":{"type":"object","properties":{"q":{}}},"b":{"type":"array"},"l":{"type":"array")"
     R"(,"items":{}}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[a].properties[q].type)",
          R"(Required value: must not be empty for specified object fields)"},
         {R"(spec.validation.openAPIV3Schema.properties[b].items)",
          R"(Required value: must be specified)"},
         {R"(spec.validation.openAPIV3Schema.properties[l].items.type)",
          R"(Required value: must not be empty for specified array items)"},
         {R"(spec.validation.openAPIV3Schema.properties[z].type)",
          R"(Required value: must not be empty for specified object fields)"},
     }},
    {"schema-ref-only",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"z":{},)"
     R"("c":{"$ref":"#/x"}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[c].$ref)",
          R"(Forbidden: $ref is not supported)"},
     }},
    {"schema-unsupported",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","nullable":true,"id":)"
     R"("x","definitions":{"a":{"type":"string"}},"patternProperties":{"a":{"type":"string"})"
     R"(},"additionalItems":false,"dependencies":{"a":["b"]}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.nullable)",
          R"(Forbidden: nullable cannot be true at the root)"},
         {R"(spec.validation.openAPIV3Schema.id)",
          R"(Forbidden: id is not supported)"},
         {R"(spec.validation.openAPIV3Schema.additionalItems)",
          R"(Forbidden: additionalItems is not supported)"},
         {R"(spec.validation.openAPIV3Schema.patternProperties)",
          R"(Forbidden: patternProperties is not supported)"},
         {R"(spec.validation.openAPIV3Schema.definitions)",
          R"(Forbidden: definitions is not supported)"},
         {R"(spec.validation.openAPIV3Schema.dependencies)",
          R"(Forbidden: dependencies is not supported)"},
     }},
    {"schema-intorstring",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"x)"
     R"(-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},"b":)"
     R"({"x-kubernetes-int-or-string":true,"x-kubernetes-preserve-unknown-fields":true},"c":)"
     R"({"x-kubernetes-embedded-resource":true,"type":"string"},"d":{"type":"object","x-kube)"
     R"(rnetes-embedded-resource":true},"e":{"type":"object","x-kubernetes-embedded-resource)"
     R"(":true,"x-kubernetes-preserve-unknown-fields":true,"properties":{"kind":{"type":"int)"
     R"(eger"},"metadata":{"type":"string"}}}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[b].x-kubernetes-preserve-unknown-fields)",
          R"(Invalid value: true: must be false if x-kubernetes-int-or-string is true)"},
         {R"(spec.validation.openAPIV3Schema.properties[c].properties)",
          R"(Required value: must not be empty if x-kubernetes-embedded-resource is true without )"
          R"(x-kubernetes-preserve-unknown-fields)"},
         {R"(spec.validation.openAPIV3Schema.properties[c].type)",
          R"(Invalid value: "string": must be object if x-kubernetes-embedded-resource is true)"},
         {R"(spec.validation.openAPIV3Schema.properties[d].properties)",
          R"(Required value: must not be empty if x-kubernetes-embedded-resource is true without )"
          R"(x-kubernetes-preserve-unknown-fields)"},
         {R"(spec.validation.openAPIV3Schema.properties[e].properties[kind].type)",
          R"(Invalid value: "integer": must be string)"},
         {R"(spec.validation.openAPIV3Schema.properties[e].properties[metadata].type)",
          R"(Invalid value: "string": must be object)"},
     }},
    {"schema-nested",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"t)"
     R"(ype":"string","not":{"type":"string","description":"d","title":"t","nullable":true,")"
     R"(default":"x","x-kubernetes-list-type":"atomic","properties":{"metadata":{"type":"obj)"
     R"(ect"}},"additionalProperties":{"type":"string"},"x-kubernetes-validations":[{"rule":)"
     R"("true"}]}}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[a].not.additionalProperties)",
          R"(Forbidden: must be undefined to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.default)",
          R"(Forbidden: must be undefined to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.description)",
          R"(Forbidden: must be empty to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.nullable)",
          R"(Forbidden: must be false to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.properties[metadata].type)",
          R"(Forbidden: must be empty to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.properties[metadata])",
          R"(Forbidden: must not be specified in a nested context)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.title)",
          R"(Forbidden: must be empty to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.type)",
          R"(Forbidden: must be empty to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.x-kubernetes-list-type)",
          R"(Forbidden: must be undefined to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.x-kubernetes-validations)",
          R"(Forbidden: must be empty to be structural)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.additionalProperties)",
          R"(Forbidden: additionalProperties and properties are mutual exclusive)"},
         {R"(spec.validation.openAPIV3Schema.properties[a].not.type)",
          R"(Invalid value: "string": must be array if x-kubernetes-list-type is specified)"},
     }},
    {"schema-lists",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"m":{"t)"
     R"(ype":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{")"
     R"(k":{"type":"string"},"o":{"type":"object"}},"nullable":true}},"n":{"type":"array","x)"
     R"(-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k","o","zz","k"],"items")"
     R"(:{"type":"object","properties":{"k":{"type":"string","nullable":true},"o":{"type":"o)"
     R"(bject"}}}},"p":{"type":"string","x-kubernetes-list-type":"set"},"q":{"type":"array",)"
     R"("x-kubernetes-list-type":"bag","items":{"type":"string"}},"r":{"type":"array","x-kub)"
     R"(ernetes-list-map-keys":["a"],"items":{"type":"string"}},"s":{"type":"array","x-kuber)"
     R"(netes-list-type":"set","items":{"type":"object"}},"t":{"x-kubernetes-map-type":"foo")"
     R"(,"type":"string"},"u":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-l)"
     R"(ist-map-keys":["k"],"items":{"type":"string"}}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[m].x-kubernetes-list-map-keys)",
          R"(Required value: must not be empty if x-kubernetes-list-type is map)"},
         {R"(spec.validation.openAPIV3Schema.properties[m].items.nullable)",
          R"(Forbidden: cannot be nullable when x-kubernetes-list-type is map)"},
         {R"(spec.validation.openAPIV3Schema.properties[n].items.properties[o].type)",
          R"(Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-t)"
          R"(ype is map)"},
         {R"(spec.validation.openAPIV3Schema.properties[n].x-kubernetes-list-map-keys)",
          R"(Invalid value: []string{"k", "o", "zz", "k"}: entries must all be names of item prop)"
          R"(erties)"},
         {R"(spec.validation.openAPIV3Schema.properties[n].x-kubernetes-list-map-keys)",
          R"(Invalid value: []string{"k", "o", "zz", "k"}: must not contain duplicate entries)"},
         {R"(spec.validation.openAPIV3Schema.properties[n].items.properties[k].default)",
          R"(Required value: this property is in x-kubernetes-list-map-keys, so it must have a de)"
          R"(fault or be a required property)"},
         {R"(spec.validation.openAPIV3Schema.properties[n].items.properties[k].nullable)",
          R"(Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable)"},
         {R"(spec.validation.openAPIV3Schema.properties[n].items.properties[o].default)",
          R"(Required value: this property is in x-kubernetes-list-map-keys, so it must have a de)"
          R"(fault or be a required property)"},
         {R"(spec.validation.openAPIV3Schema.properties[n].items.properties[k].default)",
          R"(Required value: this property is in x-kubernetes-list-map-keys, so it must have a de)"
          R"(fault or be a required property)"},
         {R"(spec.validation.openAPIV3Schema.properties[n].items.properties[k].nullable)",
          R"(Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable)"},
         {R"(spec.validation.openAPIV3Schema.properties[p].type)",
          R"(Invalid value: "string": must be array if x-kubernetes-list-type is specified)"},
         {R"(spec.validation.openAPIV3Schema.properties[q].x-kubernetes-list-type)",
          R"(Unsupported value: "bag": supported values: "atomic", "set", "map")"},
         {R"(spec.validation.openAPIV3Schema.properties[r].x-kubernetes-list-type)",
          R"(Required value: must be map if x-kubernetes-list-map-keys is non-empty)"},
         {R"(spec.validation.openAPIV3Schema.properties[s].items.x-kubernetes-map-type)",
          R"(Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=)"
          R"(set)"},
         {R"(spec.validation.openAPIV3Schema.properties[t].type)",
          R"(Invalid value: "string": must be object if x-kubernetes-map-type is specified)"},
         {R"(spec.validation.openAPIV3Schema.properties[t].x-kubernetes-map-type)",
          R"(Unsupported value: "foo": supported values: "atomic", "granular")"},
         {R"(spec.validation.openAPIV3Schema.properties[u].items.type)",
          R"(Invalid value: "string": must be object if parent array's x-kubernetes-list-type is )"
          R"(map)"},
     }},
    {"schema-rules",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-validat)"
     R"(ions":[{"rule":" "},{"rule":"self.a","message":" "},{"rule":"self.a","message":"x\ny)"
     R"("},{"rule":"self.a ||\nself.b"}],"properties":{"a":{"type":"boolean"},"b":{"type":"b)"
     R"(oolean"}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule)",
          R"(Required value: rule is not specified)"},
         {R"(spec.validation.openAPIV3Schema.x-kubernetes-validations[1].message)",
          R"(Invalid value: " ": message must be non-empty if specified)"},
         {R"(spec.validation.openAPIV3Schema.x-kubernetes-validations[2].message)",
          R"(Invalid value: "x\ny": message must not contain line breaks)"},
         {R"(spec.validation.openAPIV3Schema.x-kubernetes-validations[3].message)",
          R"(Required value: message must be specified if rule contains line breaks)"},
     }},
    {"schema-defaults",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"metada)"
     R"(ta":{"type":"object","default":{}},"spec":{"type":"object","properties":{"x":{"type")"
     R"(:"string","default":"d"}}}}}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.properties[metadata].default)",
          R"(Forbidden: must not be set in top-level metadata)"},
     }},
    {"status-root-type",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"string"}},"subresources":{"st)"
     R"(atus":{}}}]}})",
     {
         {R"(spec.validation.openAPIV3Schema.type)",
          R"(Invalid value: "string": only "object" is allowed as the type at the root of the sch)"
          R"(ema if the status subresource is enabled)"},
         {R"(spec.validation.openAPIV3Schema.type)",
          R"(Invalid value: "string": must be object at the root)"},
     }},
    {"cols-subres",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}},"subresources":{"st)"
     R"(atus":{},"scale":{"specReplicasPath":"spec.r","statusReplicasPath":".spec.r","labelS)"
     R"(electorPath":".x"}},"additionalPrinterColumns":[{"name":"","type":"foo","format":"ba)"
     R"(r","jsonPath":"x"},{"name":"a","type":"string","jsonPath":""}]}]}})",
     {
         {R"(spec.subresources.scale.specReplicasPath)",
          R"(Invalid value: "spec.r": must be a simple json path starting with .)"},
         {R"(spec.subresources.scale.statusReplicasPath)",
          R"(Invalid value: ".spec.r": should be a json path under .status)"},
         {R"(spec.subresources.scale.labelSelectorPath)",
          R"(Invalid value: ".x": should be a json path under either .spec or .status)"},
         {R"(spec.additionalPrinterColumns[0].name)",
          R"(Required value)"},
         {R"(spec.additionalPrinterColumns[0].type)",
          R"(Invalid value: "foo": must be one of boolean,date,integer,number,string)"},
         {R"(spec.additionalPrinterColumns[0].format)",
          R"(Invalid value: "bar": must be one of byte,date,date-time,double,float,int32,int64,pa)"
          R"(ssword)"},
         {R"(spec.additionalPrinterColumns[0].JSONPath)",
          R"(Invalid value: "x": must be a simple json path starting with .)"},
         {R"(spec.additionalPrinterColumns[1].JSONPath)",
          R"(Required value)"},
     }},
    {"conversion-webhook",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}],"conversion":{"st)"
     R"(rategy":"Webhook","webhook":{"conversionReviewVersions":["v3","v3"]}}}})",
     {
         {R"(spec.conversion.webhookClientConfig)",
          R"(Required value: required when strategy is set to Webhook)"},
         {R"(spec.conversion.conversionReviewVersions[1])",
          R"(Invalid value: "v3": duplicate version)"},
         {R"(spec.conversion.conversionReviewVersions)",
          R"(Invalid value: []string{"v3", "v3"}: must include at least one of v1, v1beta1)"},
     }},
    {"conversion-url",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}],"conversion":{"st)"
     R"(rategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url")"
     R"(:"http://u:p@/x?q=1#f"}}}}})",
     {
         {R"(spec.conversion.webhookClientConfig.url)",
          R"(Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https)"
          R"(://host[/path])"},
         {R"(spec.conversion.webhookClientConfig.url)",
          R"(Invalid value: "": host must be specified; desired format: https://host[/path])"},
         {R"(spec.conversion.webhookClientConfig.url)",
          R"(Invalid value: "u:p": user information is not permitted in the URL)"},
         {R"(spec.conversion.webhookClientConfig.url)",
          R"(Invalid value: "f": fragments are not permitted in the URL)"},
         {R"(spec.conversion.webhookClientConfig.url)",
          R"(Invalid value: "q=1": query parameters are not permitted in the URL)"},
     }},
    {"conversion-service",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}],"conversion":{"st)"
     R"(rategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"serv)"
     R"(ice":{"name":"","namespace":"","port":0,"path":"x//Y"}}}}}})",
     {
         {R"(spec.conversion.webhookClientConfig.service.name)",
          R"(Required value: service name is required)"},
         {R"(spec.conversion.webhookClientConfig.service.namespace)",
          R"(Required value: service namespace is required)"},
         {R"(spec.conversion.webhookClientConfig.service.port)",
          R"(Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive)"},
         {R"(spec.conversion.webhookClientConfig.service.path)",
          R"(Invalid value: "x//Y": must start with a '/')"},
         {R"(spec.conversion.webhookClientConfig.service.path)",
          R"(Invalid value: "x//Y": segment[0] may not be empty)"},
         {R"(spec.conversion.webhookClientConfig.service.path)",
          R"(Invalid value: "x//Y": segment[1] may not be empty)"},
         {R"(spec.conversion.webhookClientConfig.service.path)",
          R"(Invalid value: "x//Y": segment[2]: a lowercase RFC 1123 subdomain must consist of lo)"
          R"(wer case alphanumeric characters, '-' or '.', and must start and end with an alphanu)"
          R"(meric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9)"
          R"(]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"},
     }},
    {"conversion-none-webhook",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}],"conversion":{"st)"
     R"(rategy":"None","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"h)"
     R"(ttps://x"}}}}})",
     {
         {R"(spec.conversion.webhookClientConfig)",
          R"(Forbidden: should not be set when strategy is not set to Webhook)"},
         {R"(spec.conversion.conversionReviewVersions)",
          R"(Forbidden: should not be set when strategy is not set to Webhook)"},
     }},
    {"conversion-foo",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}],"conversion":{"st)"
     R"(rategy":"Foo"}}})",
     {
         {R"(spec.conversion.strategy)",
          R"(Unsupported value: "Foo": supported values: "None", "Webhook")"},
     }},
    {"bad-v0-name-warning",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"V1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}},"deprecationWarning)"
     R"(":"x"}]}})",
     {
         {R"(spec.versions[0].name)",
          R"(Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric charac)"
          R"(ters or '-', start with an alphabetic character, and end with an alphanumeric charac)"
          R"(ter (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a)"
          R"(-z0-9])?'))"},
         {R"(spec.versions[0].deprecationWarning)",
          R"(Invalid value: "x": can only be set for deprecated versions)"},
         {R"(spec.version)",
          R"(Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric charac)"
          R"(ters or '-', start with an alphabetic character, and end with an alphanumeric charac)"
          R"(ter (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a)"
          R"(-z0-9])?'))"},
     }},
    {"two-versions-diff-schemas",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{}})"
     R"(}}},{"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":")"
     R"(string"}}}]}})",
     {
         {R"(spec.versions[0].schema.openAPIV3Schema.properties[a].type)",
          R"(Required value: must not be empty for specified object fields)"},
         {R"(spec.versions[1].schema.openAPIV3Schema.type)",
          R"(Invalid value: "string": must be object at the root)"},
     }},
    {"status-ignored",
     R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata")"
     R"(:{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com","names":{"plural":)"
     R"("widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":tr)"
     R"(ue,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]},"status":{"store)"
     R"(dVersions":["v9"],"acceptedNames":{"plural":"X_y","kind":"Q"}}})",
     {
     }},
};
// clang-format on

void expectCauses(const char* name, const std::vector<StatusCause>& got,
                  const std::vector<std::pair<std::string, std::string>>& want) {
    bool same = got.size() == want.size();
    for (size_t i = 0; same && i < got.size(); ++i) {
        same = got[i].field == want[i].first && got[i].message == want[i].second;
    }
    if (same) {
        return;
    }
    for (const StatusCause& c : got) {
        print_error("  got  %s: %s\n", c.field.c_str(), c.message.c_str());
    }
    for (const auto& [field, message] : want) {
        print_error("  want %s: %s\n", field.c_str(), message.c_str());
    }
    fail_msg("%s: causes differ", name);
}

void invalid_crds_get_kube_s_causes(void**) {
    for (const Case& c : kCases) {
        expectCauses(c.name, createCauses(c.body), c.causes);
    }
}

void reasons_follow_the_field_error_type(void**) {
    std::vector<StatusCause> causes = createCauses(
        R"({"metadata":{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com",)"
        R"("names":{"plural":"widgets","kind":"Widget"},"scope":"Global","versions":[{"name":)"
        R"("v1","served":true,"storage":true}]}})");
    assert_int_equal(causes.size(), 2);
    assert_string_equal(causes[0].reason.c_str(), "FieldValueNotSupported");
    assert_string_equal(causes[1].reason.c_str(), "FieldValueRequired");
    assert_string_equal(causes[1].field.c_str(), "spec.versions[0].schema.openAPIV3Schema");
}

const char* kStored =
    R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":)"
    R"({"name":"widgets.h.example.com","generation":1},"spec":{"group":"h.example.com","names":)"
    R"({"plural":"widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1",)"
    R"("served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})";

// The stored CRD as the store keeps it after a create.
json::Document stored(bool established) {
    json::Document d = parse(kStored);
    crdKind().defaults(d, d.GetAllocator());
    crdKind().prepareForCreate(d, d.GetAllocator());
    if (established) {
        json::Value conditions(rapidjson::kArrayType);
        json::Document established = parse(R"({"type":"Established","status":"True"})");
        conditions.PushBack(json::Value(established, d.GetAllocator()), d.GetAllocator());
        d["status"]["conditions"] = conditions;
    }
    return d;
}

std::vector<StatusCause> updateCauses(const json::Document& old, json::Document& next) {
    auto& a = next.GetAllocator();
    json::setMember(next, "status", json::Value(old["status"], a), a);
    crdKind().defaults(next, a);
    crdKind().prepareForUpdate(next, old, a);
    return crdKind().validateUpdate(next, old);
}

// A CRD whose schema nests `properties` `depth` levels deep, ending in `leaf`.
std::string deepCrd(int depth, const std::string& leaf) {
    std::string schema;
    for (int i = 0; i < depth; ++i) {
        schema += R"({"type":"object","properties":{"a":)";
    }
    schema += leaf;
    for (int i = 0; i < depth; ++i) {
        schema += "}}";
    }
    return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
           R"("metadata":{"name":"ds.h-deepcrd.example.com"},"spec":{"group":"h-deepcrd.example.com",)"
           R"("names":{"plural":"ds","kind":"D"},"scope":"Namespaced","versions":[{"name":"v1",)"
           R"("served":true,"storage":true,"schema":{"openAPIV3Schema":)" +
           schema + "}}]}}";
}

// A schema nested 4,900 levels (the deepest a JSON body allows) is valid, as
// kube-apiserver 1.26.5 accepts it, and is checked in linear time: paths are
// spelled out only for an error (kube's message for a leaf without a type,
// 4,900 levels down, recorded from it). A path string per level took 1.6 s.
void a_schema_nested_4900_deep_is_checked_in_linear_time(void**) {
    double took[2];
    int depths[2] = {2450, 4900};
    for (int i = 0; i < 2; ++i) {
        std::string body = deepCrd(depths[i], R"({"type":"string"})");
        auto t0 = std::chrono::steady_clock::now();
        std::vector<StatusCause> causes = createCauses(body);
        took[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        expectCauses("deep", causes, {});
    }
    assert_true(took[1] < 0.5);
    assert_true(took[1] < 3.5 * took[0] + 0.02);

    std::string path = "spec.validation.openAPIV3Schema";
    for (int i = 0; i < 4900; ++i) {
        path += ".properties[a]";
    }
    path += ".type";
    std::vector<StatusCause> causes = createCauses(deepCrd(4900, "{}"));
    assert_int_equal(causes.size(), 1);
    assert_string_equal(causes[0].field.c_str(), path.c_str());
    assert_string_equal(causes[0].message.c_str(),
                        "Required value: must not be empty for specified object fields");
}

// `items`, `not` and `additionalProperties` nest a schema one JSON level per
// schema level: 9,980 deep (kube-apiserver 1.26.5 accepts `items` so, after
// 32 s) overflowed an 8 MB stack; the checks now get a stack for the depth.
void schemas_nested_9980_deep_in_one_member_are_checked(void**) {
    for (const char* kw : {"items", "not", "additionalProperties"}) {
        std::string type = std::string(kw) == "items" ? "array" : "object";
        std::string open = R"({"type":")" + type + R"(",")" + kw + R"(":)";
        if (std::string(kw) == "not") {
            open = R"({"not":)";
        }
        std::string leaf = R"({"type":"string"})";
        std::string schema;
        for (int i = 0; i < 9980; ++i) {
            schema += open;
        }
        schema += leaf + std::string(9980, '}');
        std::string body = deepCrd(1, schema);
        std::vector<StatusCause> causes = createCauses(body);
        if (std::string(kw) == "not") {
            // kube's structural rules: the first `not` term may not set a type.
            assert_true(!causes.empty());
        } else {
            expectCauses(kw, causes, {});
        }
    }
}

void create_sets_defaults_and_resets_the_status(void**) {
    json::Document d = parse(
        R"({"metadata":{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com",)"
        R"("names":{"plural":"widgets","kind":"Widget"},"scope":"Namespaced","versions":[)"
        R"({"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":)"
        R"("object"}}},{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":)"
        R"({"type":"object"}}}]},"status":{"storedVersions":["v9"],"conditions":[{"type":)"
        R"("Established","status":"True"}]}})");
    crdKind().defaults(d, d.GetAllocator());
    crdKind().prepareForCreate(d, d.GetAllocator());
    assert_string_equal(json::serialize(d["spec"]["names"]).c_str(),
                        R"({"plural":"widgets","kind":"Widget","singular":"widget",)"
                        R"("listKind":"WidgetList"})");
    assert_string_equal(json::serialize(d["spec"]["conversion"]).c_str(), R"({"strategy":"None"})");
    // kube's CustomResourceDefinitionStatus{} plus the storage version.
    assert_string_equal(json::serialize(d["status"]).c_str(),
                        R"({"conditions":null,"acceptedNames":{"plural":"","kind":""},)"
                        R"("storedVersions":["v2"]})");
    assert_true(crdKind().validate(d).empty());
}

void a_webhook_service_port_defaults_to_443(void**) {
    json::Document d =
        parse(R"({"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":)"
              R"({"name":"s","namespace":"n"}},"conversionReviewVersions":["v1"]}}}})");
    crdKind().defaults(d, d.GetAllocator());
    assert_int_equal(d["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"].GetInt(),
                     443);
}

void group_and_plural_never_change(void**) {
    json::Document old = stored(false);
    json::Document next = parse(kStored);
    next["spec"]["group"] = "other.example.com";
    next["spec"]["names"]["plural"] = "gadgets";
    next["spec"]["scope"] = "Cluster";
    next["spec"]["names"]["kind"] = "Gadget";
    std::vector<StatusCause> causes = updateCauses(old, next);
    // Not Established: scope and kind may still change.
    expectCauses("update", causes,
                 {{"spec.group", R"(Invalid value: "other.example.com": field is immutable)"},
                  {"spec.names.plural", R"(Invalid value: "gadgets": field is immutable)"}});
}

void scope_and_kind_are_fixed_once_established(void**) {
    json::Document old = stored(true);
    json::Document next = parse(kStored);
    next["spec"]["scope"] = "Cluster";
    next["spec"]["names"]["kind"] = "Gadget";
    // The listKind default was WidgetList; keep it consistent with the kind.
    expectCauses("update", updateCauses(old, next),
                 {{"spec.scope", R"(Invalid value: "Cluster": field is immutable)"},
                  {"spec.names.kind", R"(Invalid value: "Gadget": field is immutable)"}});
}

void a_stored_version_stays_in_spec_versions(void**) {
    json::Document old = stored(true);
    json::Document next = parse(kStored);
    next["spec"]["versions"][0]["name"] = "v2";
    expectCauses(
        "rename", updateCauses(old, next),
        {{"status.storedVersions[0]", R"(Invalid value: "v1": must appear in spec.versions)"}});
}

void a_new_storage_version_is_recorded(void**) {
    json::Document old = stored(true);
    json::Document next = parse(kStored);
    auto& a = next.GetAllocator();
    json::Value v2(next["spec"]["versions"][0], a);
    v2["name"] = "v2";
    next["spec"]["versions"][0]["storage"] = false;
    next["spec"]["versions"].PushBack(v2, a);
    assert_true(updateCauses(old, next).empty());
    assert_string_equal(json::serialize(next["status"]["storedVersions"]).c_str(),
                        R"(["v1","v2"])");
}

void a_status_update_keeps_labels_and_checks_accepted_names(void**) {
    json::Document old = stored(false);
    json::Document next = stored(false);
    auto& a = next.GetAllocator();
    json::Document labels = parse(R"({"x":"y"})");
    json::setMember(next["metadata"], "labels", json::Value(labels, a), a);
    next["status"]["acceptedNames"]["plural"] = "Bad_Plural";
    crdKind().prepareForStatusUpdate(next, old, {}, a);
    assert_null(json::member(next["metadata"], "labels"));
    std::vector<StatusCause> causes = crdKind().validateStatusUpdate(next, old);
    assert_int_equal(causes.size(), 1);
    assert_string_equal(causes[0].field.c_str(), "status.acceptedNames.plural");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(invalid_crds_get_kube_s_causes),
        cmocka_unit_test(reasons_follow_the_field_error_type),
        cmocka_unit_test(a_schema_nested_4900_deep_is_checked_in_linear_time),
        cmocka_unit_test(schemas_nested_9980_deep_in_one_member_are_checked),
        cmocka_unit_test(create_sets_defaults_and_resets_the_status),
        cmocka_unit_test(a_webhook_service_port_defaults_to_443),
        cmocka_unit_test(group_and_plural_never_change),
        cmocka_unit_test(scope_and_kind_are_fixed_once_established),
        cmocka_unit_test(a_stored_version_stays_in_spec_versions),
        cmocka_unit_test(a_new_storage_version_is_recorded),
        cmocka_unit_test(a_status_update_keeps_labels_and_checks_accepted_names),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
