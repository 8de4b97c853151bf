#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"
#include "registry/validation.hpp"
#include "util/json.hpp"

// Field errors for the kinds' validation: registry/validation's field.Error
// constructors and path helpers, plus the checks several kinds repeat.
namespace kube::apis::core::field {

using Causes = std::vector<meta::StatusCause>;
using registry::validation::BadValue;
using registry::validation::field::child;
using registry::validation::field::duplicate;
using registry::validation::field::forbidden;
using registry::validation::field::index;
using registry::validation::field::invalid;
using registry::validation::field::key;
using registry::validation::field::notSupported;
using registry::validation::field::required;
using registry::validation::field::tooLong;

// "Required value" with no detail.
inline meta::StatusCause required(std::string_view path) {
    return required(path, "");
}

// Go's %#v of a map[string]string (keys sorted), "map[string]string(nil)"
// when absent: the bad value of label mismatches.
BadValue goStringMap(const util::json::Value* map);
// Go's %#v of a []string ([]string{"a", "b"}), "[]string(nil)" when absent.
BadValue goStringList(const util::json::Value* list);

// Adds "must be between 1 and 65535, inclusive" when the integer at `v` is
// out of range.
void validatePortNumber(const util::json::Value* v, const std::string& path, Causes& out);
// Adds NotSupported when the string at `v` is present and not one of `supported`.
void validateEnum(const util::json::Value* v, const std::string& path,
                  std::initializer_list<std::string_view> supported, Causes& out);
// Adds "must be greater than or equal to 0" for a negative integer.
void validateNonnegative(const util::json::Value* v, const std::string& path, Causes& out);

// Mirrors metav1 validation.ValidateLabelSelector on a selector that may be
// absent. With `allowInvalidLabelValues` the values of matchExpressions are
// not checked (LabelSelectorValidationOptions.AllowInvalidLabelValueInSelector,
// granted on update when the stored selector already had such values).
void validateLabelSelector(const util::json::Value* selector, const std::string& path,
                           bool allowInvalidLabelValues, Causes& out);

// Whether member `name` of `a` and of `b` are equal (both absent counts).
bool sameMember(const util::json::Value& a, const util::json::Value& b, std::string_view name);

// The immutable-when-set check of ConfigMaps and Secrets: once the stored
// object has `immutable: true`, `immutable` and each of `fields` may not
// change ("field is immutable when `immutable` is set").
void validateImmutableWhenSet(const util::json::Value& obj, const util::json::Value& old,
                              std::initializer_list<std::string_view> fields, Causes& out);

// validation.IsValidPortName: an IANA service name ("http", "dns-tcp").
std::vector<std::string> isValidPortName(std::string_view port);

}  // namespace kube::apis::core::field
