#pragma once

#include <chrono>
#include <vector>

#include "util/json.hpp"

// The naming decision of kube's NamingConditionController
// (apiextensions-apiserver pkg/controller/status): which of the names a
// CustomResourceDefinition asks for (spec.names) it may have, given the names
// the definitions of its group hold (their status.acceptedNames).
namespace kube::controller::apiextensions {

// Brings `crd`'s status.acceptedNames and its NamesAccepted condition (and
// the Established condition that goes with them) up to date; false when
// nothing changes (its names are accepted already, or the outcome is the
// same). `group` holds every definition of its group, `crd` itself
// included, as this worker last knew them. A name another definition holds
// is refused: NamesAccepted False with kube's reason (PluralConflict,
// SingularConflict, ShortNamesConflict, KindConflict, ListKindConflict) and
// message ("\"x\" is already in use"); the names that are free are accepted.
bool updateAcceptedNames(util::json::Document& crd,
                         const std::vector<const util::json::Value*>& group,
                         std::chrono::system_clock::time_point now);

// Mirrors the EstablishingController: a definition whose names are accepted
// becomes Established (InitialNamesAccepted); false when it is already, or
// its names are not accepted.
bool establish(util::json::Document& crd, std::chrono::system_clock::time_point now);

}  // namespace kube::controller::apiextensions
