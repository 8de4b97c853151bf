# PodTemplates, ControllerRevisions, RuntimeClasses, IngressClasses,
# HorizontalPodAutoscalers (autoscaling/v2) and ComponentStatuses as kubectl
# 1.32 sees them against kube-apiserver: api-resources lines, create -f,
# get with kube's tables (-o wide), the default IngressClass given to a new
# Ingress, invalid objects answered 422 with kube's field paths, and the
# read-only componentstatuses reporting the storage as etcd-0.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $ns = 'more-builtin';
my $Age = qr/\d+[smhd]\S*/;

$s->kc_ok(undef, 'create namespace', 'create', 'namespace', $ns);

# --- discovery --------------------------------------------------------------------------
# The lines of kube-apiserver 1.26.5's `kubectl api-resources -o wide`, columns
# split on blanks (their widths depend on every resource served).
my %want = (
    componentstatuses => 'componentstatuses cs v1 false ComponentStatus get,list',
    podtemplates => 'podtemplates v1 true PodTemplate '
        . 'create,delete,deletecollection,get,list,patch,update,watch',
    controllerrevisions => 'controllerrevisions apps/v1 true ControllerRevision '
        . 'create,delete,deletecollection,get,list,patch,update,watch',
    horizontalpodautoscalers => 'horizontalpodautoscalers hpa autoscaling/v2 true '
        . 'HorizontalPodAutoscaler create,delete,deletecollection,get,list,patch,update,watch all',
    ingressclasses => 'ingressclasses networking.k8s.io/v1 false IngressClass '
        . 'create,delete,deletecollection,get,list,patch,update,watch',
    runtimeclasses => 'runtimeclasses node.k8s.io/v1 false RuntimeClass '
        . 'create,delete,deletecollection,get,list,patch,update,watch',
    # kube 1.33's (1.26.5 has neither)
    ipaddresses => 'ipaddresses ip networking.k8s.io/v1 false IPAddress '
        . 'create,delete,deletecollection,get,list,patch,update,watch',
    servicecidrs => 'servicecidrs networking.k8s.io/v1 false ServiceCIDR '
        . 'create,delete,deletecollection,get,list,patch,update,watch',
);
my $out = $s->kc_ok(undef, 'api-resources -o wide', 'api-resources', '-o', 'wide');
my %got;
for my $line (split /\n/, $out) {
    my @f = split ' ', $line;
    $got{ $f[0] } = join ' ', @f if @f && exists $want{ $f[0] };
}
is($got{$_}, $want{$_}, "api-resources: $_ as kube lists it") for sort keys %want;
my @order = grep { /^(autoscaling|node\.k8s\.io|batch|coordination\.k8s\.io)\// }
    split /\n/, $s->kc_ok(undef, 'api-versions', 'api-versions');
is_deeply(\@order,
    [qw(autoscaling/v1 autoscaling/v2 batch/v1 coordination.k8s.io/v1 node.k8s.io/v1)],
    'api-versions: autoscaling/v1 and v2 and node.k8s.io/v1 served');

# --- create -f and get ------------------------------------------------------------------
my $file = spew('kinds.yaml', <<"YAML");
apiVersion: v1
kind: PodTemplate
metadata: {name: pt1, namespace: $ns}
template:
  metadata: {labels: {app: x}}
  spec:
    containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: cr1, namespace: $ns}
data: {spec: {template: {x: 1}}}
revision: 3
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
overhead: {podFixed: {cpu: 100m}}
scheduling: {nodeSelector: {sandbox: "true"}, tolerations: [{key: k, operator: Exists}]}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: external
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec:
  controller: example.com/ingress
  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: $ns}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
YAML
is($s->kc_ok(undef, 'create -f', 'create', '-f', $file),
    "podtemplate/pt1 created\ncontrollerrevision.apps/cr1 created\n"
    . "runtimeclass.node.k8s.io/gvisor created\ningressclass.networking.k8s.io/external created\n"
    . "horizontalpodautoscaler.autoscaling/web created\n",
    "create -f: kubectl's messages");

$out = $s->kc_ok(undef, 'get podtemplates', '-n', $ns, 'get', 'podtemplates', '-o', 'wide');
like($out, qr/^NAME\s+CONTAINERS\s+IMAGES\s+POD LABELS\npt1\s+c\s+nginx\s+app=x\n\z/,
    'get podtemplates: containers, images and pod labels');
$out = $s->kc_ok(undef, 'get controllerrevisions', '-n', $ns, 'get', 'controllerrevisions');
like($out, qr/^NAME\s+CONTROLLER\s+REVISION\s+AGE\ncr1\s+<none>\s+3\s+$Age\n\z/,
    'get controllerrevisions: no controller, revision 3');
$out = $s->kc_ok(undef, 'get runtimeclasses', 'get', 'runtimeclasses');
like($out, qr/^NAME\s+HANDLER\s+AGE\ngvisor\s+runsc\s+$Age\n\z/, 'get runtimeclasses: handler');
$out = $s->kc_ok(undef, 'get ingressclasses', 'get', 'ingressclasses');
like($out, qr{^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\n
    external\s+example\.com/ingress\s+IngressParameters\.k8s\.example\.com/external-lb\s+$Age\n\z}x,
    'get ingressclasses: controller and parameters');
$out = $s->kc_ok(undef, 'get hpa', '-n', $ns, 'get', 'hpa');
like($out, qr{^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\n
    web\s+Deployment/web\s+cpu:\s<unknown>/80%\s+1\s+5\s+0\s+$Age\n\z}x,
    'get hpa: the default 80% CPU target, one to five pods');
my $hpa = $s->kc_json(undef, '-n', $ns, 'get', 'hpa', 'web');
is_deeply($hpa->{status}, { desiredReplicas => 0 }, 'get hpa -o json: an empty status');
is($s->kc_json(undef, 'get', 'ingressclass', 'external')->{spec}{parameters}{scope}, 'Cluster',
    'get ingressclass -o json: parameters default to the cluster scope');

# --- the default IngressClass -----------------------------------------------------------
my ($st, $o, $raw) = $s->call('POST', "/apis/networking.k8s.io/v1/namespaces/$ns/ingresses",
    encode_json({ apiVersion => 'networking.k8s.io/v1', kind => 'Ingress',
        metadata => { name => 'ing' }, spec => { defaultBackend => { service => {
            name => 's', port => { number => 80 } } } } }));
is($st, 201, 'POST an ingress without a class: 201') or diag($raw->{body});
is($o->{spec}{ingressClassName}, 'external', 'it gets the default IngressClass');

# --- componentstatuses ------------------------------------------------------------------
my ($cs, $cs_err) = $s->kc_ok(undef, 'get cs', 'get', 'cs');
like($cs, qr/^NAME\s+STATUS\s+MESSAGE\s+ERROR\netcd-0\s+Healthy\s*\n\z/,
    'get cs: the storage reported as a healthy etcd-0');
like($cs_err, qr/Warning: v1 ComponentStatus is deprecated in v1\.19\+/,
    'get cs: kube\'s deprecation warning');
($st, $o) = $s->call('GET', '/api/v1/componentstatuses/etcd-0');
is($st, 200, 'GET componentstatuses/etcd-0: 200');
is_deeply($o->{conditions}, [ { type => 'Healthy', status => 'True' } ],
    'GET componentstatuses/etcd-0: Healthy');
($st, $o) = $s->call('GET', '/api/v1/componentstatuses/controller-manager');
is($st, 500, 'GET an unknown component: 500, as kube answers it');
is($o->{message}, 'Component not found: controller-manager', 'GET an unknown component: message');
($st, $o) = $s->call('DELETE', '/api/v1/componentstatuses/etcd-0');
is($st, 405, 'DELETE a componentstatus: 405');

# --- invalid objects --------------------------------------------------------------------
# path, body, the causes' fields in kube's order
my @invalid = (
    [ "/api/v1/namespaces/$ns/podtemplates",
      { metadata => { name => 'bad' }, template => { spec => { containers => [],
          restartPolicy => 'Sometimes' } } },
      [ 'template.spec.containers', 'template.spec.restartPolicy' ] ],
    [ "/apis/apps/v1/namespaces/$ns/controllerrevisions",
      { metadata => { name => 'bad' }, revision => -1 }, [ 'data', 'revision' ] ],
    [ '/apis/node.k8s.io/v1/runtimeclasses',
      { metadata => { name => 'bad' }, handler => 'Bad_H',
        scheduling => { tolerations => [ { operator => 'Foo' } ] } },
      [ 'handler', 'scheduling.tolerations.tolerations[0].operator',
        'scheduling.tolerations.tolerations[0].operator' ] ],
    [ '/apis/networking.k8s.io/v1/ingressclasses',
      { metadata => { name => 'bad' }, spec => { controller => 'nodomain',
          parameters => { kind => 'K', name => 'n', scope => 'Namespace' } } },
      [ 'spec.controller', 'spec.parameters.namespace' ] ],
    [ "/apis/autoscaling/v2/namespaces/$ns/horizontalpodautoscalers",
      { metadata => { name => 'bad' }, spec => { scaleTargetRef => { kind => 'Deployment',
          name => 'web' }, minReplicas => 3, maxReplicas => 2,
          metrics => [ { type => 'Pods', pods => { metric => { name => 'qps' },
              target => { type => 'Value' } } } ] } },
      [ 'spec.maxReplicas', 'spec.metrics[0].pods.target.averageValue' ] ],
);
for my $case (@invalid) {
    my ($path, $body, $fields) = @$case;
    ($st, $o, $raw) = $s->call('POST', $path, encode_json($body));
    my ($what) = $path =~ m{/([a-z]+)$};
    is($st, 422, "POST an invalid $what: 422") or diag($raw->{body});
    is($o->{reason}, 'Invalid', "POST an invalid $what: Invalid");
    is_deeply([ map { $_->{field} } @{ $o->{details}{causes} || [] } ], $fields,
        "POST an invalid $what: kube's field paths");
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit/sanitizer lines') or diag(join "\n", @bad);
ok($s->stop, 'nginx stops gracefully');
done_testing();
