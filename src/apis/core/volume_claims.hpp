#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "apis/core/field_errors.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

// What PersistentVolumeClaims share with PersistentVolumes and with
// StatefulSets' volumeClaimTemplates: claim defaults and validation, and the
// printers' volume formatting.
namespace kube::apis::core {

namespace json = util::json;

// SetDefaults_PersistentVolumeClaim(Spec): volumeMode Filesystem, phase Pending.
void defaultClaimSpecAndStatus(json::Value& claim, json::Allocator& a);

// The essentials of ValidatePersistentVolumeClaimSpec: access modes and a
// storage request.
void validateClaimSpec(const json::Value* spec, const std::string& path, field::Causes& out);

// Adds NotSupported for each unknown access mode in `modes`.
void validateAccessModes(const json::Value* modes, const std::string& path, field::Causes& out);

// helper.GetAccessModesAsString: "RWO,ROX,RWX,RWOP" in that order.
std::string accessModes(const json::Value* modes);

// GetPersistentVolume(Claim)Class: the beta annotation, else spec.storageClassName.
std::string storageClass(const json::Value& obj);

// The string at `path`, or "<unset>".
std::string textOrUnset(const json::Value& obj, std::initializer_list<std::string_view> path);

// The -o wide VolumeMode column of volumes and claims.
registry::TableColumn volumeModeColumn();

}  // namespace kube::apis::core
