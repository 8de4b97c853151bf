# Discovery: legacy documents (APIVersions, APIGroupList, APIGroup,
# APIResourceList) and aggregated discovery v2 / v2beta1, as the Accept
# header asks; 406 when nothing acceptable is offered.
use lib 't/lib';
use Test::Kube;

repeat_each(2);

my $v2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
my $v2beta1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
$ENV{TEST_NGINX_ACCEPT_KUBECTL} = "$v2,$v2beta1,application/json";
$ENV{TEST_NGINX_ACCEPT_V2BETA1} = "$v2beta1,application/json";

add_block_preprocessor(sub {
    my $block = shift;
    $block->set_value(no_error_log => "[error]") unless defined $block->no_error_log;
    $block->set_value(config => "location / { kube_api; kube_anonymous_auth on; }")
        unless defined $block->config;
});

run_tests();

__DATA__

=== TEST 1: /api in the legacy form names the server address
--- request
GET /api
--- response_body_like: ^\{"kind":"APIVersions","versions":\["v1"\],"serverAddressByClientCIDRs":\[\{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:\d+"\}\]\}$
--- response_headers
Content-Type: application/json



=== TEST 2: /api aggregated v2, as kubectl 1.30+ asks
--- request
GET /api
--- more_headers
Accept: $TEST_NGINX_ACCEPT_KUBECTL
--- response_headers
Content-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList
Vary: Accept
--- response_headers_like
ETag: ^"[0-9A-F]{128}"$
--- response_body_like: ^\{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":\{\},"items":\[\{"metadata":\{"creationTimestamp":null\},"versions":\[\{"version":"v1","resources":\[.*\{"resource":"configmaps","responseKind":\{"group":"","version":"","kind":"ConfigMap"\},"scope":"Namespaced","singularResource":"configmap","verbs":\[[^\]]*"list"[^\]]*\],"shortNames":\["cm"\]\}.*"freshness":"Current"\}\]\}\]\}$



=== TEST 3: /apis aggregated v2beta1 when only v2beta1 is offered (kubectl 1.26-1.29 servers)
--- request
GET /apis
--- more_headers
Accept: $TEST_NGINX_ACCEPT_V2BETA1
--- response_headers
Content-Type: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList
--- response_body_like: "apiVersion":"apidiscovery.k8s.io/v2beta1".*\{"metadata":\{"name":"apps","creationTimestamp":null\},"versions":\[\{"version":"v1","resources":\[.*"resource":"deployments".*"shortNames":\["deploy"\],"categories":\["all"\]
--- response_body_unlike: freshness



=== TEST 4: /apis in the legacy form lists every group with its preferred version, the aggregator's own first
--- request
GET /apis
--- response_body_like: ^\{"kind":"APIGroupList","apiVersion":"v1","groups":\[\{"name":"apiregistration.k8s.io",.*?\{"name":"apps","versions":\[\{"groupVersion":"apps/v1","version":"v1"\}\],"preferredVersion":\{"groupVersion":"apps/v1","version":"v1"\}\}.*"name":"batch".*"name":"rbac.authorization.k8s.io".*"name":"coordination.k8s.io"



=== TEST 5: /apis/<group> is an APIGroup
--- request
GET /apis/batch
--- response_body_json
{"kind": "APIGroup", "apiVersion": "v1", "name": "batch",
 "versions": [{"groupVersion": "batch/v1", "version": "v1"}],
 "preferredVersion": {"groupVersion": "batch/v1", "version": "v1"}}



=== TEST 6: /apis/<group>/<version> is an APIResourceList with apiVersion; subresources follow their resource
--- request
GET /apis/apps/v1
--- response_body_like: ^\{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":\[.*\{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":\["create","delete","deletecollection","get","list","patch","update","watch"\],"shortNames":\["deploy"\],"categories":\["all"\],"storageVersionHash":"[^"]+"\},\{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":\["get","patch","update"\]\},\{"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":\["get","patch","update"\]\},\{"name":"replicasets"



=== TEST 7: /api/v1 lists namespaces as cluster scoped without deletecollection, then namespaces/finalize and namespaces/status
--- request
GET /api/v1
--- response_body_like: ^\{"kind":"APIResourceList","groupVersion":"v1","resources":\[.*\{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":\["create","delete","get","list","patch","update","watch"\],"shortNames":\["ns"\],"storageVersionHash":"[^"]+"\},\{"name":"namespaces/finalize","singularName":"","namespaced":false,"kind":"Namespace","verbs":\["update"\]\},\{"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace","verbs":\["get","patch","update"\]\},\{"name":"nodes"



=== TEST 8: an unknown group version is a NotFound Status
--- request
GET /apis/apps/v2
--- error_code: 404
--- response_body_json
{"kind": "Status", "reason": "NotFound"}



=== TEST 9: an Accept that cannot be met is 406 NotAcceptable
--- request
GET /api/v1/namespaces
--- more_headers
Accept: application/xml
--- error_code: 406
--- response_body_json
{"kind": "Status", "reason": "NotAcceptable", "code": 406,
 "message": "406: Not Acceptable\n\nAvailable representations: application/json, application/vnd.kubernetes.protobuf",
 "details": {}}



=== TEST 10: asking only for an unknown aggregated version is 406 with kube's message
--- request
GET /apis
--- more_headers
Accept: application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList
--- error_code: 406
--- response_body_json
{"reason": "NotAcceptable",
 "message": "only the following media types are accepted: application/json"}



=== TEST 11: discovery refuses writes where kube's go-restful routes do (kube serves /apis and /apis/<group> to any method)
--- request
POST /apis/apps/v1
{}
--- error_code: 405
--- response_body_json
{"reason": "MethodNotAllowed"}



=== TEST 12: aggregated discovery lists a resource's subresources with their response kinds
--- request
GET /apis
--- more_headers
Accept: $TEST_NGINX_ACCEPT_KUBECTL
--- response_body_like: \{"resource":"deployments","responseKind":\{"group":"","version":"","kind":"Deployment"\},"scope":"Namespaced","singularResource":"deployment","verbs":\[[^\]]*\],"shortNames":\["deploy"\],"categories":\["all"\],"subresources":\[\{"subresource":"scale","responseKind":\{"group":"autoscaling","version":"v1","kind":"Scale"\},"verbs":\["get","patch","update"\]\},\{"subresource":"status","responseKind":\{"group":"","version":"","kind":"Deployment"\},"verbs":\["get","patch","update"\]\}\]\}
--- response_body_unlike: "resource":"(configmaps|leases|roles)"[^{}]*(\{[^{}]*\}[^{}]*)*"subresources"

