#include "apis/admissionregistration/kinds.hpp"
#include "apis/apiextensions/kinds.hpp"
#include "apis/apiregistration/kinds.hpp"
#include "apis/apps/kinds.hpp"
#include "apis/authentication/kinds.hpp"
#include "apis/authorization/kinds.hpp"
#include "apis/autoscaling/kinds.hpp"
#include "apis/batch/kinds.hpp"
#include "apis/certificates/kinds.hpp"
#include "apis/coordination/kinds.hpp"
#include "apis/core/kinds.hpp"
#include "apis/discovery/kinds.hpp"
#include "apis/events/kinds.hpp"
#include "apis/flowcontrol/kinds.hpp"
#include "apis/networking/kinds.hpp"
#include "apis/node/kinds.hpp"
#include "apis/policy/kinds.hpp"
#include "apis/rbac/kinds.hpp"
#include "apis/scheduling/kinds.hpp"
#include "apis/storage/kinds.hpp"
#include "registry/scheme.hpp"

namespace kube::registry {

// Groups in kube-apiserver's discovery priority order: the aggregator's own
// apiregistration.k8s.io first, then its apiVersionPriorities: "" 18000, apps 17800,
// events.k8s.io 17750, authentication.k8s.io 17700, authorization.k8s.io 17600, autoscaling
// 17500 (v2 before v1), batch 17400, certificates.k8s.io 17300, networking.k8s.io 17200, policy
// 17100, rbac 17000, storage.k8s.io 16800, admissionregistration.k8s.io and apiextensions.k8s.io
// 16700 (by name), scheduling.k8s.io 16600, coordination 16500, node.k8s.io 16300,
// discovery.k8s.io 16200, flowcontrol.apiserver.k8s.io 16100, v1 before v1beta3; resources
// alphabetical inside a group-version, as kube's discovery lists them.
void addBuiltinKinds(Scheme& scheme) {
    namespace core = apis::core;
    namespace apps = apis::apps;
    namespace batch = apis::batch;
    namespace rbac = apis::rbac;
    for (KindInfo (*kind)() : {
             core::bindingKind,
             core::componentStatusKind,
             core::configMapKind,
             core::endpointsKind,
             core::eventKind,
             core::limitRangeKind,
             core::namespaceKind,
             core::nodeKind,
             core::persistentVolumeClaimKind,
             core::persistentVolumeKind,
             core::podKind,
             core::podTemplateKind,
             core::replicationControllerKind,
             core::resourceQuotaKind,
             core::secretKind,
             core::serviceAccountKind,
             core::serviceKind,
             apis::apiregistration::apiServiceKind,
             apps::controllerRevisionKind,
             apps::daemonSetKind,
             apps::deploymentKind,
             apps::replicaSetKind,
             apps::statefulSetKind,
             apis::events::eventKind,
             apis::authentication::selfSubjectReviewV1Kind,
             apis::authentication::tokenReviewKind,
             apis::authentication::selfSubjectReviewV1beta1Kind,
             apis::authorization::localSubjectAccessReviewKind,
             apis::authorization::selfSubjectAccessReviewKind,
             apis::authorization::selfSubjectRulesReviewKind,
             apis::authorization::subjectAccessReviewKind,
             apis::autoscaling::horizontalPodAutoscalerV2Kind,
             apis::autoscaling::horizontalPodAutoscalerV1Kind,
             batch::cronJobKind,
             batch::jobKind,
             apis::certificates::certificateSigningRequestKind,
             apis::networking::ingressClassKind,
             apis::networking::ingressKind,
             apis::networking::ipAddressKind,
             apis::networking::networkPolicyKind,
             apis::networking::serviceCIDRKind,
             apis::policy::podDisruptionBudgetKind,
             rbac::clusterRoleBindingKind,
             rbac::clusterRoleKind,
             rbac::roleBindingKind,
             rbac::roleKind,
             apis::storage::csiDriverKind,
             apis::storage::csiNodeKind,
             apis::storage::csiStorageCapacityKind,
             apis::storage::storageClassKind,
             apis::storage::volumeAttachmentKind,
             apis::admissionregistration::mutatingWebhookConfigurationKind,
             apis::admissionregistration::validatingAdmissionPolicyKind,
             apis::admissionregistration::validatingAdmissionPolicyBindingKind,
             apis::admissionregistration::validatingWebhookConfigurationKind,
             apis::apiextensions::customResourceDefinitionKind,
             apis::scheduling::priorityClassKind,
             apis::coordination::leaseKind,
             apis::node::runtimeClassKind,
             apis::discovery::endpointSliceKind,
         }) {
        scheme.add(kind());
    }
    namespace flowcontrol = apis::flowcontrol;
    for (const char* version : {"v1", "v1beta3"}) {
        scheme.add(flowcontrol::flowSchemaKind(version));
        scheme.add(flowcontrol::priorityLevelConfigurationKind(version));
    }
}

}  // namespace kube::registry
