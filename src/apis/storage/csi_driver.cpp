#include <set>
#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/storage/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::storage {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;

// TokenRequest expirations: 10 minutes to 2^32 seconds.
constexpr int64_t kMinExpiration = 10 * 60;
constexpr int64_t kMaxExpiration = int64_t(1) << 32;

// Mirrors SetDefaults_CSIDriver (kube 1.26: seLinuxMount is defaulted only
// behind an alpha gate).
void defaultCSIDriver(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    defaulting::setBool(spec, "attachRequired", true, a);
    defaulting::setBool(spec, "podInfoOnMount", false, a);
    defaulting::setBool(spec, "storageCapacity", false, a);
    defaulting::setString(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType", a);
    const json::Value* modes = json::member(spec, "volumeLifecycleModes");
    if (!modes || !modes->IsArray() || modes->Empty()) {
        json::Value persistent(rapidjson::kArrayType);
        persistent.PushBack("Persistent", a);
        json::setMember(spec, "volumeLifecycleModes", std::move(persistent), a);
    }
    defaulting::setBool(spec, "requiresRepublish", false, a);
}

void requireSet(const json::Value& spec, std::string_view member, const std::string& path,
                field::Causes& out) {
    const json::Value* v = json::member(spec, member);
    if (!v || v->IsNull()) {
        out.push_back(field::required(path));
    }
}

// validateTokenRequests: one request per audience, expirations in range.
void validateTokenRequests(const json::Value& spec, field::Causes& out) {
    const json::Value* requests = json::member(spec, "tokenRequests");
    if (!requests || !requests->IsArray()) {
        return;
    }
    std::set<std::string> audiences;
    for (size_t i = 0; i < requests->Size(); i++) {
        const json::Value& r = (*requests)[static_cast<rapidjson::SizeType>(i)];
        std::string path = field::index("spec.tokenRequests", i);
        std::string audience(cells::text(r, {"audience"}));
        if (!audiences.insert(audience).second) {
            out.push_back(field::duplicate(field::child(path, "audience"), audience));
            continue;
        }
        const json::Value* exp = json::member(r, "expirationSeconds");
        if (!exp || !exp->IsInt64()) {
            continue;
        }
        int64_t seconds = exp->GetInt64();
        std::string expPath = field::child(path, "expirationSeconds");
        if (seconds < kMinExpiration) {
            out.push_back(field::invalid(expPath, seconds,
                                         "may not specify a duration less than 10 minutes"));
        }
        if (seconds > kMaxExpiration) {
            out.push_back(field::invalid(expPath, seconds,
                                         "may not specify a duration larger than 2^32 seconds"));
        }
    }
}

// Mirrors validateCSIDriverSpec. kube names attachRequired's path
// "attachedRequired".
void validateSpec(const json::Value& obj, field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* s = json::member(obj, "spec");
    const json::Value& spec = s && s->IsObject() ? *s : empty;
    requireSet(spec, "attachRequired", "spec.attachedRequired", out);
    requireSet(spec, "podInfoOnMount", "spec.podInfoOnMount", out);
    requireSet(spec, "storageCapacity", "spec.storageCapacity", out);
    field::validateEnum(json::member(spec, "fsGroupPolicy"), "spec.fsGroupPolicy",
                        {"File", "None", "ReadWriteOnceWithFSType"}, out);
    validateTokenRequests(spec, out);
    if (const json::Value* modes = json::member(spec, "volumeLifecycleModes");
        modes && modes->IsArray()) {
        for (const json::Value& m : modes->GetArray()) {
            field::validateEnum(&m, "spec.volumeLifecycleModes", {"Persistent", "Ephemeral"}, out);
        }
    }
}

field::Causes validateCSIDriver(const json::Value& obj) {
    field::Causes out;
    validateSpec(obj, out);
    return out;
}

// Go's %#v of the []VolumeLifecycleMode the immutability error shows.
field::BadValue modesGoString(const json::Value* modes) {
    if (!modes || !modes->IsArray()) {
        return field::BadValue::raw("[]storage.VolumeLifecycleMode(nil)");
    }
    std::string out = "[]storage.VolumeLifecycleMode{";
    for (size_t i = 0; i < modes->Size(); i++) {
        const json::Value& m = (*modes)[static_cast<rapidjson::SizeType>(i)];
        out += (i ? ", " : "") + registry::validation::goQuote(m.IsString() ? json::view(m) : "");
    }
    return field::BadValue::raw(out + "}");
}

// Mirrors ValidateCSIDriverUpdate as of kube 1.26: the spec's checks, then
// attachRequired, fsGroupPolicy, podInfoOnMount and volumeLifecycleModes may
// not change.
field::Causes validateCSIDriverUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    validateSpec(obj, out);
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* s = json::member(obj, "spec");
    const json::Value* os = json::member(old, "spec");
    const json::Value& spec = s && s->IsObject() ? *s : empty;
    const json::Value& oldSpec = os && os->IsObject() ? *os : empty;
    auto immutable = [&](std::string_view member, std::string path) {
        if (field::sameMember(spec, oldSpec, member)) {
            return;
        }
        const json::Value* v = json::member(spec, member);
        field::BadValue bad = member == "volumeLifecycleModes" ? modesGoString(v)
                              : v                              ? field::BadValue(*v)
                                                               : field::BadValue::null();
        out.push_back(field::invalid(path, bad, "field is immutable"));
    };
    immutable("attachRequired", "spec.attachedRequired");
    immutable("fsGroupPolicy", "spec.fsGroupPolicy");
    immutable("podInfoOnMount", "spec.podInfoOnMount");
    immutable("volumeLifecycleModes", "spec.volumeLifecycleModes");
    return out;
}

registry::TableColumn boolColumn(std::string name, std::string description, std::string_view member,
                                 bool fallback) {
    return registry::TableColumn{
        std::move(name),
        "boolean",
        "",
        std::move(description),
        0,
        [member, fallback](const json::Value& obj, const TableContext&, json::Allocator&) {
            const json::Value* v = json::at(obj, {"spec", member});
            return json::Value(v && v->IsBool() ? v->GetBool() : fallback);
        }};
}

}  // namespace

registry::KindInfo csiDriverKind() {
    registry::KindInfo k;
    k.group = "storage.k8s.io";
    k.version = "v1";
    k.kind = "CSIDriver";
    k.resource = "csidrivers";
    k.singular = "csidriver";
    k.namespaced = false;
    k.columns = {
        cells::nameColumn(),
        boolColumn("AttachRequired", "Whether volumes are attached before they are mounted.",
                   "attachRequired", true),
        boolColumn("PodInfoOnMount", "Whether the pod's identity is passed on mount.",
                   "podInfoOnMount", false),
        boolColumn("StorageCapacity", "Whether scheduling considers the capacity it reports.",
                   "storageCapacity", false),
        cells::textColumn("TokenRequests", "string",
                          "The audiences of the service account tokens passed on mount.",
                          [](const json::Value& obj, const TableContext&) {
                              const json::Value* r = json::at(obj, {"spec", "tokenRequests"});
                              if (!r || !r->IsArray() || r->Empty()) {
                                  return std::string("<unset>");
                              }
                              std::string out;
                              for (size_t i = 0; i < r->Size(); i++) {
                                  const json::Value& t = (*r)[static_cast<rapidjson::SizeType>(i)];
                                  out += (i ? "," : "") + std::string(cells::text(t, {"audience"}));
                              }
                              return out;
                          }),
        boolColumn("RequiresRepublish", "Whether volumes are published again periodically.",
                   "requiresRepublish", false),
        cells::textColumn("Modes", "string", "The kinds of volumes the driver serves.",
                          [](const json::Value& obj, const TableContext&) {
                              std::string modes =
                                  cells::join(json::at(obj, {"spec", "volumeLifecycleModes"}), ",");
                              return modes.empty() ? std::string("<none>") : modes;
                          }),
        cells::ageColumn(),
    };
    k.defaults = defaultCSIDriver;
    k.validate = validateCSIDriver;
    k.validateUpdate = validateCSIDriverUpdate;
    return k;
}

}  // namespace kube::apis::storage
