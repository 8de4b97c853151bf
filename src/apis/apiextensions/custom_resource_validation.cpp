#include "apis/apiextensions/custom_resource_validation.hpp"

#include "apis/apiextensions/structural_walks.hpp"

namespace kube::apis::apiextensions {

namespace json = util::json;

core::field::Causes validateCustomResource(const StructuralSchema& s, const json::Value& obj) {
    core::field::Causes out;
    s.walk(obj, [&] {
        structural::FieldPath nil;
        structural::validateOpenAPI(s.root(), obj, nil, out);
        structural::validateEmbeddedObjectMeta(nil, obj, &s.root(), false, out);
        structural::validateListSetsAndMaps(nil, s.root(), obj, out);
    });
    return out;
}

std::optional<std::string> coerceCustomResource(const StructuralSchema& s, const json::Value& obj) {
    std::optional<meta::StatusCause> err;
    s.walk(obj, [&] {
        err = structural::coerceEmbeddedObjectMeta(structural::FieldPath(), obj, &s.root(), false);
    });
    if (!err) {
        return std::nullopt;
    }
    return err->field + ": " + err->message;
}

}  // namespace kube::apis::apiextensions
