// The bootstrap RBAC policy kube-apiserver 1.33 creates at first start
// (bootstrappolicy.ClusterRoles, ClusterRoleBindings, NamespaceRoles,
// NamespaceRoleBindings and the controller roles), as data; read by
// bootstrap_policy.cpp. Every object also gets the label
// kubernetes.io/bootstrapping=rbac-defaults and the annotation
// rbac.authorization.kubernetes.io/autoupdate=true.
//
// A line without indentation starts an object:
//   ClusterRole <name>                     Role <namespace>/<name>
//   ClusterRoleBinding <name> <Kind>:<role>  RoleBinding <namespace>/<name> <Kind>:<role>
// Indented lines belong to the last object:
//   label <key>=<value>          a further label
//   aggregate <key>=<value>      an aggregationRule selector (matchLabels)
//   rule <verbs> <groups> <resources> [<resourceNames>]   "" is the core group
//   urls <verbs> <nonResourceURLs>
//   User <name> | Group <name> | ServiceAccount <namespace>/<name>   binding subjects
// Lists are comma-separated; rules keep kube's order.
namespace kube::authz {

extern const char* const kBootstrapPolicy;

const char* const kBootstrapPolicy = R"(
ClusterRole admin
  aggregate rbac.authorization.k8s.io/aggregate-to-admin=true
ClusterRole cluster-admin
  rule * * *
  urls * *
ClusterRole edit
  label rbac.authorization.k8s.io/aggregate-to-admin=true
  aggregate rbac.authorization.k8s.io/aggregate-to-edit=true
ClusterRole system:aggregate-to-admin
  label rbac.authorization.k8s.io/aggregate-to-admin=true
  rule create authorization.k8s.io localsubjectaccessreviews
  rule create,delete,deletecollection,get,list,patch,update,watch rbac.authorization.k8s.io rolebindings,roles
ClusterRole system:aggregate-to-edit
  label rbac.authorization.k8s.io/aggregate-to-edit=true
  rule get,list,watch "" pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy
  rule impersonate "" serviceaccounts
  rule create,delete,deletecollection,patch,update "" pods,pods/attach,pods/exec,pods/portforward,pods/proxy
  rule create "" pods/eviction
  rule create,delete,deletecollection,patch,update "" configmaps,events,persistentvolumeclaims,replicationcontrollers,replicationcontrollers/scale,secrets,serviceaccounts,services,services/proxy
  rule create "" serviceaccounts/token
  rule create,delete,deletecollection,patch,update apps daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,replicasets/scale,statefulsets,statefulsets/scale
  rule create,delete,deletecollection,patch,update autoscaling horizontalpodautoscalers
  rule create,delete,deletecollection,patch,update batch cronjobs,jobs
  rule create,delete,deletecollection,patch,update extensions daemonsets,deployments,deployments/rollback,deployments/scale,ingresses,networkpolicies,replicasets,replicasets/scale,replicationcontrollers/scale
  rule create,delete,deletecollection,patch,update policy poddisruptionbudgets
  rule create,delete,deletecollection,patch,update networking.k8s.io ingresses,networkpolicies
  rule create,delete,deletecollection,get,list,patch,update,watch coordination.k8s.io leases
ClusterRole system:aggregate-to-view
  label rbac.authorization.k8s.io/aggregate-to-view=true
  rule get,list,watch "" configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,replicationcontrollers,replicationcontrollers/scale,serviceaccounts,services,services/status
  rule get,list,watch "" bindings,events,limitranges,namespaces/status,pods/log,pods/status,replicationcontrollers/status,resourcequotas,resourcequotas/status
  rule get,list,watch "" namespaces
  rule get,list,watch discovery.k8s.io endpointslices
  rule get,list,watch apps controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,replicasets,replicasets/scale,replicasets/status,statefulsets,statefulsets/scale,statefulsets/status
  rule get,list,watch autoscaling horizontalpodautoscalers,horizontalpodautoscalers/status
  rule get,list,watch batch cronjobs,cronjobs/status,jobs,jobs/status
  rule get,list,watch extensions daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,ingresses,ingresses/status,networkpolicies,replicasets,replicasets/scale,replicasets/status,replicationcontrollers/scale
  rule get,list,watch policy poddisruptionbudgets,poddisruptionbudgets/status
  rule get,list,watch networking.k8s.io ingresses,ingresses/status,networkpolicies
ClusterRole system:auth-delegator
  rule create authentication.k8s.io tokenreviews
  rule create authorization.k8s.io subjectaccessreviews
ClusterRole system:basic-user
  rule create authorization.k8s.io selfsubjectaccessreviews,selfsubjectrulesreviews
  rule create authentication.k8s.io selfsubjectreviews
ClusterRole system:certificates.k8s.io:certificatesigningrequests:nodeclient
  rule create certificates.k8s.io certificatesigningrequests/nodeclient
ClusterRole system:certificates.k8s.io:certificatesigningrequests:selfnodeclient
  rule create certificates.k8s.io certificatesigningrequests/selfnodeclient
ClusterRole system:certificates.k8s.io:kube-apiserver-client-approver
  rule approve certificates.k8s.io signers kubernetes.io/kube-apiserver-client
ClusterRole system:certificates.k8s.io:kube-apiserver-client-kubelet-approver
  rule approve certificates.k8s.io signers kubernetes.io/kube-apiserver-client-kubelet
ClusterRole system:certificates.k8s.io:kubelet-serving-approver
  rule approve certificates.k8s.io signers kubernetes.io/kubelet-serving
ClusterRole system:certificates.k8s.io:legacy-unknown-approver
  rule approve certificates.k8s.io signers kubernetes.io/legacy-unknown
ClusterRole system:controller:attachdetach-controller
  rule list,watch "" persistentvolumeclaims,persistentvolumes
  rule get,list,watch "" nodes
  rule patch,update "" nodes/status
  rule list,watch "" pods
  rule create,patch,update "",events.k8s.io events
  rule create,delete,get,list,watch storage.k8s.io volumeattachments
  rule get,list,watch storage.k8s.io csidrivers
  rule get,list,watch storage.k8s.io csinodes
ClusterRole system:controller:certificate-controller
  rule delete,get,list,watch certificates.k8s.io certificatesigningrequests
  rule update certificates.k8s.io certificatesigningrequests/approval,certificatesigningrequests/status
  rule approve certificates.k8s.io signers kubernetes.io/kube-apiserver-client-kubelet
  rule sign certificates.k8s.io signers kubernetes.io/kube-apiserver-client,kubernetes.io/kube-apiserver-client-kubelet,kubernetes.io/kubelet-serving,kubernetes.io/legacy-unknown
  rule create authorization.k8s.io subjectaccessreviews
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:clusterrole-aggregation-controller
  rule escalate,get,list,patch,update,watch rbac.authorization.k8s.io clusterroles
ClusterRole system:controller:cronjob-controller
  rule get,list,update,watch batch cronjobs
  rule create,delete,get,list,patch,update,watch batch jobs
  rule update batch cronjobs/status
  rule update batch cronjobs/finalizers
  rule delete,list "" pods
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:daemon-set-controller
  rule get,list,watch apps,extensions daemonsets
  rule update apps,extensions daemonsets/status
  rule update apps,extensions daemonsets/finalizers
  rule list,watch "" nodes
  rule create,delete,list,patch,watch "" pods
  rule create "" pods/binding
  rule create,delete,get,list,patch,update,watch apps controllerrevisions
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:deployment-controller
  rule get,list,update,watch apps,extensions deployments
  rule update apps,extensions deployments/status
  rule update apps,extensions deployments/finalizers
  rule create,delete,get,list,patch,update,watch apps,extensions replicasets
  rule get,list,update,watch "" pods
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:disruption-controller
  rule get,list,watch apps,extensions deployments
  rule get,list,watch apps,extensions replicasets
  rule get,list,watch "" replicationcontrollers
  rule get,list,watch policy poddisruptionbudgets
  rule get,list,watch apps statefulsets
  rule update policy poddisruptionbudgets/status
  rule get * */scale
  rule create,patch,update "",events.k8s.io events
  rule patch "" pods/status
ClusterRole system:controller:endpoint-controller
  rule get,list,watch "" pods,services
  rule create,delete,get,list,update "" endpoints
  rule create "" endpoints/restricted
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:endpointslice-controller
  rule get,list,watch "" nodes,pods,services
  rule update "" services/finalizers
  rule create,delete,get,list,update discovery.k8s.io endpointslices
  rule create discovery.k8s.io endpointslices/restricted
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:endpointslicemirroring-controller
  rule get,list,watch "" endpoints,services
  rule update "" services/finalizers
  rule update "" endpoints/finalizers
  rule create,delete,get,list,update discovery.k8s.io endpointslices
  rule create discovery.k8s.io endpointslices/restricted
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:ephemeral-volume-controller
  rule get,list,watch "" pods
  rule update "" pods/finalizers
  rule create,get,list,watch "" persistentvolumeclaims
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:expand-controller
  rule get,list,patch,update,watch "" persistentvolumes
  rule patch,update "" persistentvolumeclaims/status
  rule get,list,watch "" persistentvolumeclaims
  rule get,list,watch storage.k8s.io storageclasses
  rule get "" endpoints,services
  rule get "" secrets
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:generic-garbage-collector
  rule delete,get,list,patch,update,watch * *
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:horizontal-pod-autoscaler
  rule get,list,watch autoscaling horizontalpodautoscalers
  rule update autoscaling horizontalpodautoscalers/status
  rule get,update * */scale
  rule list "" pods
  rule get "" services/proxy http:heapster:,https:heapster:
  rule list metrics.k8s.io pods
  rule get,list custom.metrics.k8s.io *
  rule get,list external.metrics.k8s.io *
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:job-controller
  rule get,list,patch,update,watch batch jobs
  rule update batch jobs/status
  rule update batch jobs/finalizers
  rule create,delete,list,patch,watch "" pods
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:legacy-service-account-token-cleaner
  rule get "" configmaps kube-apiserver-legacy-service-account-token-tracking
  rule delete,patch "" secrets
ClusterRole system:controller:namespace-controller
  rule delete,get,list,watch "" namespaces
  rule update "" namespaces/finalize,namespaces/status
  rule delete,deletecollection,get,list * *
ClusterRole system:controller:node-controller
  rule delete,get,list,patch,update "" nodes
  rule patch,update "" nodes/status
  rule patch,update "" pods/status
  rule delete,list "" pods
  rule create,get,list,update networking.k8s.io clustercidrs
  rule create,patch,update "",events.k8s.io events
  rule get "" pods
ClusterRole system:controller:persistent-volume-binder
  rule create,delete,get,list,update,watch "" persistentvolumes
  rule update "" persistentvolumes/status
  rule get,list,update,watch "" persistentvolumeclaims
  rule update "" persistentvolumeclaims/status
  rule create,delete,get,list,watch "" pods
  rule get,list,watch storage.k8s.io storageclasses
  rule create,delete,get,update "" endpoints
  rule create,delete,get "" services
  rule get "" secrets
  rule get,list "" nodes
  rule watch "" events
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:pod-garbage-collector
  rule delete,list,watch "" pods
  rule get,list "" nodes
  rule patch "" pods/status
ClusterRole system:controller:pv-protection-controller
  rule get,list,update,watch "" persistentvolumes
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:pvc-protection-controller
  rule get,list,update,watch "" persistentvolumeclaims
  rule get,list,watch "" pods
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:replicaset-controller
  rule get,list,update,watch apps,extensions replicasets
  rule update apps,extensions replicasets/status
  rule update apps,extensions replicasets/finalizers
  rule create,delete,list,patch,watch "" pods
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:replication-controller
  rule get,list,update,watch "" replicationcontrollers
  rule update "" replicationcontrollers/status
  rule update "" replicationcontrollers/finalizers
  rule create,delete,list,patch,watch "" pods
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:resourcequota-controller
  rule list,watch * *
  rule update "" resourcequotas/status
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:root-ca-cert-publisher
  rule create,update "" configmaps
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:route-controller
  rule list,watch "" nodes
  rule patch "" nodes/status
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:selinux-warning-controller
  rule get,list,watch "" persistentvolumeclaims,persistentvolumes,pods
  rule get,list,watch storage.k8s.io csidrivers
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:service-account-controller
  rule create "" serviceaccounts
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:service-ca-cert-publisher
  rule create,update "" configmaps
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:service-cidrs-controller
  rule get,list,patch,update,watch networking.k8s.io servicecidrs
  rule patch,update networking.k8s.io servicecidrs/finalizers
  rule patch,update networking.k8s.io servicecidrs/status
  rule get,list,watch networking.k8s.io ipaddresses
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:service-controller
  rule get,list,watch "" services
  rule patch,update "" services/status
  rule list,watch "" nodes
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:statefulset-controller
  rule list,watch "" pods
  rule get,list,watch apps statefulsets
  rule update apps statefulsets/status
  rule update apps statefulsets/finalizers
  rule create,delete,get,patch,update "" pods
  rule create,delete,get,list,patch,update,watch apps controllerrevisions
  rule create,get "" persistentvolumeclaims
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:ttl-after-finished-controller
  rule delete,get,list,watch batch jobs
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:ttl-controller
  rule list,patch,update,watch "" nodes
  rule create,patch,update "",events.k8s.io events
ClusterRole system:controller:validatingadmissionpolicy-status-controller
  rule get,list,watch admissionregistration.k8s.io validatingadmissionpolicies
  rule get,patch,update admissionregistration.k8s.io validatingadmissionpolicies/status
  rule create,patch,update "",events.k8s.io events
ClusterRole system:discovery
  urls get /api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/
ClusterRole system:heapster
  rule get,list,watch "" events,namespaces,nodes,pods
  rule get,list,watch extensions deployments
ClusterRole system:kube-aggregator
  rule get,list,watch "" endpoints,services
ClusterRole system:kube-controller-manager
  rule create,patch,update "",events.k8s.io events
  rule create coordination.k8s.io leases
  rule get,update coordination.k8s.io leases kube-controller-manager
  rule create "" endpoints
  rule get,update "" endpoints kube-controller-manager
  rule create "" secrets,serviceaccounts
  rule delete "" secrets
  rule get "" configmaps,namespaces,secrets,serviceaccounts
  rule update "" secrets,serviceaccounts
  rule create authentication.k8s.io tokenreviews
  rule create authorization.k8s.io subjectaccessreviews
  rule list,watch * *
  rule create "" serviceaccounts/token
ClusterRole system:kube-dns
  rule list,watch "" endpoints,services
ClusterRole system:kube-scheduler
  rule create,patch,update "",events.k8s.io events
  rule create coordination.k8s.io leases
  rule get,update coordination.k8s.io leases kube-scheduler
  rule create "" endpoints
  rule get,update "" endpoints kube-scheduler
  rule get,list,watch "" nodes
  rule delete,get,list,watch "" pods
  rule create "" bindings,pods/binding
  rule patch,update "" pods/status
  rule get,list,watch "" replicationcontrollers,services
  rule get,list,watch apps,extensions replicasets
  rule get,list,watch apps statefulsets
  rule get,list,watch policy poddisruptionbudgets
  rule get,list,watch "" persistentvolumeclaims,persistentvolumes
  rule create authentication.k8s.io tokenreviews
  rule create authorization.k8s.io subjectaccessreviews
  rule get,list,watch storage.k8s.io csinodes
  rule get,list,watch "" namespaces
  rule get,list,watch storage.k8s.io csidrivers
  rule get,list,watch storage.k8s.io csistoragecapacities
ClusterRole system:kubelet-api-admin
  rule get,list,watch "" nodes
  rule proxy "" nodes
  rule * "" nodes/log,nodes/metrics,nodes/proxy,nodes/spec,nodes/stats
ClusterRole system:monitoring
  urls get /healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/*
ClusterRole system:node
  rule create authentication.k8s.io tokenreviews
  rule create authorization.k8s.io localsubjectaccessreviews,subjectaccessreviews
  rule get,list,watch "" services
  rule create,get,list,watch "" nodes
  rule patch,update "" nodes/status
  rule patch,update "" nodes
  rule create,patch,update "" events
  rule get,list,watch "" pods
  rule create,delete "" pods
  rule patch,update "" pods/status
  rule create "" pods/eviction
  rule get,list,watch "" configmaps,secrets
  rule get "" persistentvolumeclaims,persistentvolumes
  rule get "" endpoints
  rule create,get,list,watch certificates.k8s.io certificatesigningrequests
  rule create,delete,get,patch,update coordination.k8s.io leases
  rule get storage.k8s.io volumeattachments
  rule create "" serviceaccounts/token
  rule get,patch,update "" persistentvolumeclaims/status
  rule get,list,watch storage.k8s.io csidrivers
  rule create,delete,get,patch,update storage.k8s.io csinodes
  rule get,list,watch node.k8s.io runtimeclasses
ClusterRole system:node-bootstrapper
  rule create,get,list,watch certificates.k8s.io certificatesigningrequests
ClusterRole system:node-problem-detector
  rule get "" nodes
  rule patch "" nodes/status
  rule create,patch,update "",events.k8s.io events
ClusterRole system:node-proxier
  rule list,watch "" endpoints,services
  rule get,list,watch "" nodes
  rule create,patch,update "",events.k8s.io events
  rule list,watch discovery.k8s.io endpointslices
ClusterRole system:openshift:public-info-viewer
  urls get /.well-known,/.well-known/*
ClusterRole system:persistent-volume-provisioner
  rule create,delete,get,list,watch "" persistentvolumes
  rule get,list,update,watch "" persistentvolumeclaims
  rule get,list,watch storage.k8s.io storageclasses
  rule watch "" events
  rule create,patch,update "",events.k8s.io events
ClusterRole system:public-info-viewer
  urls get /healthz,/livez,/readyz,/version,/version/
ClusterRole system:service-account-issuer-discovery
  urls get /.well-known/openid-configuration,/openid/v1/jwks
ClusterRole system:volume-scheduler
  rule get,list,patch,update,watch "" persistentvolumes
  rule get,list,watch storage.k8s.io storageclasses
  rule get,list,patch,update,watch "" persistentvolumeclaims
ClusterRole view
  label rbac.authorization.k8s.io/aggregate-to-edit=true
  aggregate rbac.authorization.k8s.io/aggregate-to-view=true
ClusterRoleBinding cluster-admin ClusterRole:cluster-admin
  Group system:masters
ClusterRoleBinding system:basic-user ClusterRole:system:basic-user
  Group system:authenticated
ClusterRoleBinding system:controller:attachdetach-controller ClusterRole:system:controller:attachdetach-controller
  ServiceAccount kube-system/attachdetach-controller
ClusterRoleBinding system:controller:certificate-controller ClusterRole:system:controller:certificate-controller
  ServiceAccount kube-system/certificate-controller
ClusterRoleBinding system:controller:clusterrole-aggregation-controller ClusterRole:system:controller:clusterrole-aggregation-controller
  ServiceAccount kube-system/clusterrole-aggregation-controller
ClusterRoleBinding system:controller:cronjob-controller ClusterRole:system:controller:cronjob-controller
  ServiceAccount kube-system/cronjob-controller
ClusterRoleBinding system:controller:daemon-set-controller ClusterRole:system:controller:daemon-set-controller
  ServiceAccount kube-system/daemon-set-controller
ClusterRoleBinding system:controller:deployment-controller ClusterRole:system:controller:deployment-controller
  ServiceAccount kube-system/deployment-controller
ClusterRoleBinding system:controller:disruption-controller ClusterRole:system:controller:disruption-controller
  ServiceAccount kube-system/disruption-controller
ClusterRoleBinding system:controller:endpoint-controller ClusterRole:system:controller:endpoint-controller
  ServiceAccount kube-system/endpoint-controller
ClusterRoleBinding system:controller:endpointslice-controller ClusterRole:system:controller:endpointslice-controller
  ServiceAccount kube-system/endpointslice-controller
ClusterRoleBinding system:controller:endpointslicemirroring-controller ClusterRole:system:controller:endpointslicemirroring-controller
  ServiceAccount kube-system/endpointslicemirroring-controller
ClusterRoleBinding system:controller:ephemeral-volume-controller ClusterRole:system:controller:ephemeral-volume-controller
  ServiceAccount kube-system/ephemeral-volume-controller
ClusterRoleBinding system:controller:expand-controller ClusterRole:system:controller:expand-controller
  ServiceAccount kube-system/expand-controller
ClusterRoleBinding system:controller:generic-garbage-collector ClusterRole:system:controller:generic-garbage-collector
  ServiceAccount kube-system/generic-garbage-collector
ClusterRoleBinding system:controller:horizontal-pod-autoscaler ClusterRole:system:controller:horizontal-pod-autoscaler
  ServiceAccount kube-system/horizontal-pod-autoscaler
ClusterRoleBinding system:controller:job-controller ClusterRole:system:controller:job-controller
  ServiceAccount kube-system/job-controller
ClusterRoleBinding system:controller:legacy-service-account-token-cleaner ClusterRole:system:controller:legacy-service-account-token-cleaner
  ServiceAccount kube-system/legacy-service-account-token-cleaner
ClusterRoleBinding system:controller:namespace-controller ClusterRole:system:controller:namespace-controller
  ServiceAccount kube-system/namespace-controller
ClusterRoleBinding system:controller:node-controller ClusterRole:system:controller:node-controller
  ServiceAccount kube-system/node-controller
ClusterRoleBinding system:controller:persistent-volume-binder ClusterRole:system:controller:persistent-volume-binder
  ServiceAccount kube-system/persistent-volume-binder
ClusterRoleBinding system:controller:pod-garbage-collector ClusterRole:system:controller:pod-garbage-collector
  ServiceAccount kube-system/pod-garbage-collector
ClusterRoleBinding system:controller:pv-protection-controller ClusterRole:system:controller:pv-protection-controller
  ServiceAccount kube-system/pv-protection-controller
ClusterRoleBinding system:controller:pvc-protection-controller ClusterRole:system:controller:pvc-protection-controller
  ServiceAccount kube-system/pvc-protection-controller
ClusterRoleBinding system:controller:replicaset-controller ClusterRole:system:controller:replicaset-controller
  ServiceAccount kube-system/replicaset-controller
ClusterRoleBinding system:controller:replication-controller ClusterRole:system:controller:replication-controller
  ServiceAccount kube-system/replication-controller
ClusterRoleBinding system:controller:resourcequota-controller ClusterRole:system:controller:resourcequota-controller
  ServiceAccount kube-system/resourcequota-controller
ClusterRoleBinding system:controller:root-ca-cert-publisher ClusterRole:system:controller:root-ca-cert-publisher
  ServiceAccount kube-system/root-ca-cert-publisher
ClusterRoleBinding system:controller:route-controller ClusterRole:system:controller:route-controller
  ServiceAccount kube-system/route-controller
ClusterRoleBinding system:controller:selinux-warning-controller ClusterRole:system:controller:selinux-warning-controller
  ServiceAccount kube-system/selinux-warning-controller
ClusterRoleBinding system:controller:service-account-controller ClusterRole:system:controller:service-account-controller
  ServiceAccount kube-system/service-account-controller
ClusterRoleBinding system:controller:service-ca-cert-publisher ClusterRole:system:controller:service-ca-cert-publisher
  ServiceAccount kube-system/service-ca-cert-publisher
ClusterRoleBinding system:controller:service-cidrs-controller ClusterRole:system:controller:service-cidrs-controller
  ServiceAccount kube-system/service-cidrs-controller
ClusterRoleBinding system:controller:service-controller ClusterRole:system:controller:service-controller
  ServiceAccount kube-system/service-controller
ClusterRoleBinding system:controller:statefulset-controller ClusterRole:system:controller:statefulset-controller
  ServiceAccount kube-system/statefulset-controller
ClusterRoleBinding system:controller:ttl-after-finished-controller ClusterRole:system:controller:ttl-after-finished-controller
  ServiceAccount kube-system/ttl-after-finished-controller
ClusterRoleBinding system:controller:ttl-controller ClusterRole:system:controller:ttl-controller
  ServiceAccount kube-system/ttl-controller
ClusterRoleBinding system:controller:validatingadmissionpolicy-status-controller ClusterRole:system:controller:validatingadmissionpolicy-status-controller
  ServiceAccount kube-system/validatingadmissionpolicy-status-controller
ClusterRoleBinding system:discovery ClusterRole:system:discovery
  Group system:authenticated
ClusterRoleBinding system:kube-controller-manager ClusterRole:system:kube-controller-manager
  User system:kube-controller-manager
ClusterRoleBinding system:kube-dns ClusterRole:system:kube-dns
  ServiceAccount kube-system/kube-dns
ClusterRoleBinding system:kube-scheduler ClusterRole:system:kube-scheduler
  User system:kube-scheduler
ClusterRoleBinding system:monitoring ClusterRole:system:monitoring
  Group system:monitoring
ClusterRoleBinding system:node ClusterRole:system:node
ClusterRoleBinding system:node-proxier ClusterRole:system:node-proxier
  User system:kube-proxy
ClusterRoleBinding system:openshift:public-info-viewer ClusterRole:system:openshift:public-info-viewer
  Group system:authenticated
  Group system:unauthenticated
ClusterRoleBinding system:public-info-viewer ClusterRole:system:public-info-viewer
  Group system:authenticated
  Group system:unauthenticated
ClusterRoleBinding system:service-account-issuer-discovery ClusterRole:system:service-account-issuer-discovery
  Group system:serviceaccounts
ClusterRoleBinding system:volume-scheduler ClusterRole:system:volume-scheduler
  User system:kube-scheduler
Role kube-public/system:controller:bootstrap-signer
  rule get,list,watch "" configmaps
  rule update "" configmaps cluster-info
  rule create,patch,update "",events.k8s.io events
Role kube-system/extension-apiserver-authentication-reader
  rule get,list,watch "" configmaps extension-apiserver-authentication
Role kube-system/system::leader-locking-kube-controller-manager
  rule watch "" configmaps
  rule get,update "" configmaps kube-controller-manager
Role kube-system/system::leader-locking-kube-scheduler
  rule watch "" configmaps
  rule get,update "" configmaps kube-scheduler
Role kube-system/system:controller:bootstrap-signer
  rule get,list,watch "" secrets
Role kube-system/system:controller:cloud-provider
  rule create,get,list,watch "" configmaps
Role kube-system/system:controller:token-cleaner
  rule delete,get,list,watch "" secrets
  rule create,patch,update "",events.k8s.io events
RoleBinding kube-public/system:controller:bootstrap-signer Role:system:controller:bootstrap-signer
  ServiceAccount kube-system/bootstrap-signer
RoleBinding kube-system/system::extension-apiserver-authentication-reader Role:extension-apiserver-authentication-reader
  User system:kube-controller-manager
  User system:kube-scheduler
RoleBinding kube-system/system::leader-locking-kube-controller-manager Role:system::leader-locking-kube-controller-manager
  User system:kube-controller-manager
  ServiceAccount kube-system/kube-controller-manager
RoleBinding kube-system/system::leader-locking-kube-scheduler Role:system::leader-locking-kube-scheduler
  User system:kube-scheduler
  ServiceAccount kube-system/kube-scheduler
RoleBinding kube-system/system:controller:bootstrap-signer Role:system:controller:bootstrap-signer
  ServiceAccount kube-system/bootstrap-signer
RoleBinding kube-system/system:controller:cloud-provider Role:system:controller:cloud-provider
  ServiceAccount kube-system/cloud-provider
RoleBinding kube-system/system:controller:token-cleaner Role:system:controller:token-cleaner
  ServiceAccount kube-system/token-cleaner
)";

}  // namespace kube::authz
