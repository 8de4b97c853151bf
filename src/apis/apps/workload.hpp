#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "apis/core/field_errors.hpp"
#include "registry/kind.hpp"

// What the pod controllers (Deployments, ReplicaSets, StatefulSets,
// DaemonSets, and Jobs in batch) share: selector matching, the selector and
// template checks, and the -o wide Containers/Images/Selector columns.
namespace kube::apis::apps {

namespace json = util::json;
namespace field = core::field;

// Whether a metav1.LabelSelector selects a label set. An absent selector
// selects nothing; an empty one everything (LabelSelectorAsSelector).
bool selectorMatches(const json::Value* selector, const json::Value* labels);

// A LabelSelector as kube's field errors print it (Go's %#v):
// `v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:
// []v1.LabelSelectorRequirement(nil)}`; absent or null members are nil.
std::string selectorGoString(const json::Value* selector);

// Whether metav1.LabelSelectorAsSelector accepts the selector: what
// ValidateLabelSelector checks (values included) holds. An absent one does.
bool selectorIsValid(const json::Value* selector);

// The "`selector` does not match template `labels`" check of
// spec.template.metadata.labels against spec.selector (skipped for an empty
// selector, which selects everything, and for an invalid one, which
// LabelSelectorAsSelector refuses).
void validateSelectorMatchesTemplate(const json::Value& spec, field::Causes& out);

struct WorkloadRules {
    std::string_view kind;          // "deployment": in "empty selector is invalid for deployment"
    std::string_view deadlineKind;  // "ReplicaSet": in "activeDeadlineSeconds in ReplicaSet ..."
    bool hasReplicas = true;
    // The detail of the spec.selector error when LabelSelectorAsSelector
    // fails: "invalid label selector" (Deployments, ReplicaSets), ""
    // (StatefulSets), or none at all (nullptr: DaemonSets).
    const char* invalidSelectorDetail = nullptr;
};

// Mirrors the shared part of ValidateDeploymentSpec / ValidateReplicaSetSpec /
// ValidateStatefulSetSpec / ValidateDaemonSetSpec: replicas >= 0, a
// non-empty selector matching the template labels, a valid pod template that
// restarts Always and has no activeDeadlineSeconds. Paths start at "spec".
void validateWorkloadSpec(const json::Value& obj, const WorkloadRules& rules, field::Causes& out);

// The shape ValidateDeploymentStatus and ValidateReplicaSetStatus share:
// each of `counts` (status members, in the order kube checks them) must be
// >= 0, each of `bounded` may not exceed status.replicas, and
// availableReplicas may not exceed readyReplicas.
void validateReplicaCounts(const json::Value& obj, std::initializer_list<std::string_view> counts,
                           std::initializer_list<std::string_view> bounded, field::Causes& out);

// The pod spec a workload stamps out: spec.template.spec, or for CronJobs
// spec.jobTemplate.spec.template.spec.
const json::Value* podSpecOf(const json::Value& obj);

// "Ready": readyReplicas/spec.replicas (Deployments, StatefulSets).
registry::TableColumn readyReplicasColumn();

// -o wide columns: container names, images, and the selector (as
// metav1.FormatLabelSelector, or as the bare selector.String() that the
// Deployment printer uses when `bare`).
registry::TableColumn containersColumn();
registry::TableColumn imagesColumn();
registry::TableColumn selectorColumn(bool bare = false);

}  // namespace kube::apis::apps
