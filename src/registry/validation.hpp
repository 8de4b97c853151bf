#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

namespace kube::registry::validation {

// Format checks; each mirrors the function of the same name in
// k8s.io/apimachinery/pkg/util/validation (kube 1.32 wording) and returns the
// list of what is wrong, empty when the value is valid.
std::vector<std::string> isDNS1123Subdomain(std::string_view value);
std::vector<std::string> isDNS1123Label(std::string_view value);
std::vector<std::string> isDNS1035Label(std::string_view value);
// Label and annotation keys: an optional DNS subdomain prefix and '/', then a
// name of at most 63 characters.
std::vector<std::string> isQualifiedName(std::string_view value);
std::vector<std::string> isValidLabelValue(std::string_view value);
// ConfigMap and Secret data keys.
std::vector<std::string> isConfigMapKey(std::string_view value);
// Mirrors apimachinery/pkg/api/validation/path: a name that can be a URL
// path segment (and its Prefix variant, for generateName).
std::vector<std::string> isValidPathSegmentName(std::string_view name);
std::vector<std::string> isValidPathSegmentPrefix(std::string_view name);

// The ValidateNameFunc for `rule` (NameIsDNSSubdomain, NameIsDNSLabel, ...).
// With `prefix` (a generateName), a trailing '-' is allowed.
std::vector<std::string> validateName(NameRule rule, std::string_view name, bool prefix);

// The bad value a field error shows, printed as field.Error prints it: strings
// Go-quoted, integers, floats and booleans bare, null as `null`. A JSON object
// or array is shown as compact JSON (Go would print the typed struct).
class BadValue {
  public:
    BadValue(std::string_view s);
    BadValue(const char* s) : BadValue(std::string_view(s)) {}
    BadValue(const std::string& s) : BadValue(std::string_view(s)) {}
    BadValue(bool b) : text_(b ? "true" : "false") {}
    template <std::integral T>
    requires(!std::same_as<T, bool>) BadValue(T n) : text_(std::to_string(n)) {}
    BadValue(double d);
    BadValue(const util::json::Value& v);
    static BadValue null() { return BadValue(Raw{"null"}); }
    // A value already in its printed form (e.g. Go's %#v of a slice).
    static BadValue raw(std::string text) { return BadValue(Raw{std::move(text)}); }

    const std::string& text() const { return text_; }

  private:
    struct Raw {
        std::string text;
    };
    explicit BadValue(Raw r) : text_(std::move(r.text)) {}
    std::string text_;
};

// Field errors as causes; mirrors k8s.io/apimachinery/pkg/util/validation/field.
// `path` is the rendered field.Path ("metadata.name", "spec.ports[0].port").
namespace field {

meta::StatusCause invalid(std::string_view path, const BadValue& value, std::string_view detail);
meta::StatusCause typeInvalid(std::string_view path, const BadValue& value,
                              std::string_view detail);
meta::StatusCause required(std::string_view path, std::string_view detail);
meta::StatusCause forbidden(std::string_view path, std::string_view detail);
meta::StatusCause duplicate(std::string_view path, const BadValue& value);
meta::StatusCause notFound(std::string_view path, const BadValue& value);
meta::StatusCause notSupported(std::string_view path, const BadValue& value,
                               const std::vector<std::string>& validValues);
// "Too long: must have at most N bytes" (the value is never shown).
meta::StatusCause tooLong(std::string_view path, int64_t maxLength);
// actual < 0 leaves the count out of the message.
meta::StatusCause tooMany(std::string_view path, int64_t actual, int64_t maxQuantity);
meta::StatusCause internalError(std::string_view path, std::string_view detail);

// field.Path helpers: child("metadata", "name"), index("spec.ports", 0),
// key("metadata.labels", "app").
std::string child(std::string_view path, std::string_view name);
std::string index(std::string_view path, size_t i);
std::string key(std::string_view path, std::string_view k);

}  // namespace field

// Go's strconv.Quote, as %q prints a string in field errors.
std::string goQuote(std::string_view s);

// Mirrors apimachinery ValidateObjectMeta (creation) on a JSON metadata
// stanza (null or absent counts as empty): name or generateName, the name and
// generateName rule, namespace (required when namespaced, forbidden
// otherwise), generation, labels, annotations (keys and the 256 KiB total),
// ownerReferences and finalizers. A member of the wrong JSON type is reported
// as FieldValueTypeInvalid at its path.
std::vector<meta::StatusCause> validateObjectMeta(const util::json::Value& metadata,
                                                  bool namespaced, NameRule rule);

// Mirrors ValidateObjectMetaUpdate's immutable fields: name, namespace, uid
// and creationTimestamp may not change ("field is immutable"). Each is
// reported twice, as kube reports it (its common-fields check and the
// strategies' own ValidateObjectMetaUpdate both run).
std::vector<meta::StatusCause> validateObjectMetaUpdate(const util::json::Value& metadata,
                                                        const util::json::Value& old);

// The total size limit of metadata.annotations (keys plus values), in bytes.
inline constexpr int64_t kTotalAnnotationSizeLimit = 256 * 1024;

}  // namespace kube::registry::validation
