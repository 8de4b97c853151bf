#include <string>

#include "apis/core/field_errors.hpp"
#include "apis/storage/csi_driver_name.hpp"
#include "apis/storage/kinds.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::storage {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;

// maxAttachedVolumeMetadataSize and maxVolumeErrorMessageSize.
constexpr int64_t kMaxMetadataBytes = 256 * 1024;
constexpr size_t kMaxErrorMessage = 1024;

constexpr const char* kOneSource =
    "must specify exactly one of inlineVolumeSpec and persistentVolumeName";

// Mirrors volumeAttachmentStrategy.PrepareForCreate: the status starts
// empty (attached is always written).
void prepareVolumeAttachment(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("attached", false, a);
    json::setMember(obj, "status", std::move(status), a);
}

bool isSet(const json::Value* v) {
    return v && !v->IsNull();
}

// Mirrors validateVolumeAttachmentSpec: an attacher, exactly one source, a
// node name that is a DNS subdomain.
void validateSpec(const json::Value& obj, field::Causes& out) {
    if (cells::text(obj, {"spec", "attacher"}).empty()) {
        out.push_back(field::required("spec.attacher"));
    }
    const json::Value* pv = json::at(obj, {"spec", "source", "persistentVolumeName"});
    const json::Value* inlineSpec = json::at(obj, {"spec", "source", "inlineVolumeSpec"});
    if (!isSet(pv) && !isSet(inlineSpec)) {
        out.push_back(field::required("spec.source", kOneSource));
    } else if (isSet(pv) && isSet(inlineSpec)) {
        out.push_back(field::forbidden("spec.source", kOneSource));
    } else if (isSet(pv) && pv->IsString() && pv->GetStringLength() == 0) {
        out.push_back(field::required("spec.source.persistentVolumeName",
                                      "must specify non empty persistentVolumeName"));
    }
    std::string_view node = cells::text(obj, {"spec", "nodeName"});
    for (const std::string& msg : registry::validation::isDNS1123Subdomain(node)) {
        out.push_back(field::invalid("spec.nodeName", node, msg));
    }
}

void validateVolumeError(const json::Value* e, const std::string& path, field::Causes& out) {
    if (!e || !e->IsObject()) {
        return;
    }
    // kube reports the metadata limit here, not the message's.
    if (cells::text(*e, {"message"}).size() > kMaxErrorMessage) {
        out.push_back(field::tooLong(field::child(path, "message"), kMaxMetadataBytes));
    }
}

// Mirrors validateVolumeAttachmentStatus.
void validateStatus(const json::Value& obj, field::Causes& out) {
    const json::Value* metadata = json::at(obj, {"status", "attachmentMetadata"});
    if (metadata && metadata->IsObject()) {
        int64_t size = 0;
        for (const auto& m : metadata->GetObject()) {
            size += m.name.GetStringLength() + (m.value.IsString() ? m.value.GetStringLength() : 0);
        }
        if (size > kMaxMetadataBytes) {
            out.push_back(field::tooLong("status.attachmentMetadata", kMaxMetadataBytes));
        }
    }
    validateVolumeError(json::at(obj, {"status", "attachError"}), "status.attachError", out);
    validateVolumeError(json::at(obj, {"status", "detachError"}), "status.detachError", out);
}

// Mirrors ValidateVolumeAttachment (the metadata checks are the store's).
field::Causes validateCommon(const json::Value& obj) {
    field::Causes out;
    validateSpec(obj, out);
    validateStatus(obj, out);
    return out;
}

// Mirrors the strategy's Validate: ValidateVolumeAttachment, then what
// ValidateVolumeAttachmentV1 adds for new v1 objects (the attacher is a CSI
// driver name, the persistent volume name a DNS subdomain).
field::Causes validateVolumeAttachment(const json::Value& obj) {
    field::Causes out = validateCommon(obj);
    validateCSIDriverName(cells::text(obj, {"spec", "attacher"}), "spec.attacher", out);
    const json::Value* pv = json::at(obj, {"spec", "source", "persistentVolumeName"});
    if (pv && pv->IsString()) {
        for (const std::string& msg : registry::validation::isDNS1123Subdomain(json::view(*pv))) {
            out.push_back(field::invalid("spec.source.persistentVolumeName", json::view(*pv), msg));
        }
    }
    return out;
}

// Go's %#v of the spec, as kube's immutability error shows it. The volume
// name is a pointer, which Go prints as an address no client can match.
field::BadValue specGoString(const json::Value& obj) {
    using registry::validation::goQuote;
    const json::Value* pv = json::at(obj, {"spec", "source", "persistentVolumeName"});
    const json::Value* inlineSpec = json::at(obj, {"spec", "source", "inlineVolumeSpec"});
    return field::BadValue::raw(
        "storage.VolumeAttachmentSpec{Attacher:" + goQuote(cells::text(obj, {"spec", "attacher"})) +
        ", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(" +
        (isSet(pv) ? "0xc000000000" : "nil") + "), InlineVolumeSpec:(*core.PersistentVolumeSpec)(" +
        (isSet(inlineSpec) ? "0xc000000000" : "nil") +
        ")}, NodeName:" + goQuote(cells::text(obj, {"spec", "nodeName"})) + "}");
}

// Mirrors ValidateVolumeAttachmentUpdate: the object's checks, and the spec
// may not change (the status subresource keeps it).
field::Causes validateVolumeAttachmentUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateCommon(obj);
    if (!field::sameMember(obj, old, "spec")) {
        out.push_back(field::invalid("spec", specGoString(obj), "field is immutable"));
    }
    return out;
}

}  // namespace

registry::KindInfo volumeAttachmentKind() {
    registry::KindInfo k;
    k.group = "storage.k8s.io";
    k.version = "v1";
    k.kind = "VolumeAttachment";
    k.resource = "volumeattachments";
    k.singular = "volumeattachment";
    k.namespaced = false;
    k.subresources = {registry::statusSubresource()};
    registry::TableColumn attacher =
        cells::textColumn("Attacher", "string", "The volume driver that attaches the volume.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "attacher"}));
                          });
    // kube's printer marks this column, not the first, as the name.
    attacher.format = "name";
    k.columns = {
        cells::nameColumn(),
        std::move(attacher),
        cells::textColumn(
            "PV", "string", "The persistent volume to attach.",
            [](const json::Value& obj, const TableContext&) {
                return std::string(cells::text(obj, {"spec", "source", "persistentVolumeName"}));
            }),
        cells::textColumn("Node", "string", "The node to attach the volume to.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "nodeName"}));
                          }),
        registry::TableColumn{"Attached", "boolean", "", "Whether the volume is attached.", 0,
                              [](const json::Value& obj, const TableContext&, json::Allocator&) {
                                  return json::Value(cells::isTrue(obj, {"status", "attached"}));
                              }},
        cells::ageColumn(),
    };
    k.prepareForCreate = prepareVolumeAttachment;
    k.validate = validateVolumeAttachment;
    k.validateUpdate = validateVolumeAttachmentUpdate;
    k.validateStatusUpdate = validateVolumeAttachmentUpdate;
    return k;
}

}  // namespace kube::apis::storage
