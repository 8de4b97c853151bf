#include <string>

#include "apis/apps/kinds.hpp"
#include "apis/core/field_errors.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::apps {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;

// Mirrors ValidateControllerRevision: data is required, the revision not
// negative.
field::Causes validateControllerRevision(const json::Value& obj) {
    field::Causes out;
    const json::Value* data = json::member(obj, "data");
    if (!data || data->IsNull()) {
        out.push_back(field::required("data", "data is mandatory"));
    }
    field::validateNonnegative(json::member(obj, "revision"), "revision", out);
    return out;
}

// Mirrors ValidateControllerRevisionUpdate: the object's checks, and data
// may not change.
field::Causes validateControllerRevisionUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateControllerRevision(obj);
    if (!field::sameMember(obj, old, "data")) {
        const json::Value* data = json::member(obj, "data");
        out.push_back(field::invalid(
            "data", data ? field::BadValue(*data) : field::BadValue::null(), "field is immutable"));
    }
    return out;
}

// printControllerRevision's Controller cell: the controlling owner as
// <kind>.<group>/<name> in lower case, "<none>" without one.
std::string controllerName(const json::Value& obj) {
    const json::Value* owners = json::at(obj, {"metadata", "ownerReferences"});
    if (!owners || !owners->IsArray()) {
        return "<none>";
    }
    for (const json::Value& ref : owners->GetArray()) {
        if (!cells::isTrue(ref, {"controller"})) {
            continue;
        }
        std::string_view apiVersion = cells::text(ref, {"apiVersion"});
        size_t slash = apiVersion.find('/');
        std::string group(slash == std::string_view::npos ? "" : apiVersion.substr(0, slash));
        std::string kind(cells::text(ref, {"kind"}));
        std::string name(cells::text(ref, {"name"}));
        if (kind.empty() && group.empty()) {
            return name;
        }
        std::string out = group.empty() ? kind : kind + "." + group;
        for (char& c : out) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        return out + "/" + name;
    }
    return "<none>";
}

}  // namespace

registry::KindInfo controllerRevisionKind() {
    registry::KindInfo k;
    k.group = "apps";
    k.version = "v1";
    k.kind = "ControllerRevision";
    k.resource = "controllerrevisions";
    k.singular = "controllerrevision";
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Controller", "string", "Controller of the object",
            [](const json::Value& obj, const TableContext&) { return controllerName(obj); }),
        // kube declares it a string and fills it with the number.
        cells::countColumn(
            "Revision", "string",
            "Revision indicates the revision of the state represented by Data.",
            [](const json::Value& obj) { return cells::integer(obj, {"revision"}); }),
        cells::ageColumn(),
    };
    k.validate = validateControllerRevision;
    k.validateUpdate = validateControllerRevisionUpdate;
    return k;
}

}  // namespace kube::apis::apps
