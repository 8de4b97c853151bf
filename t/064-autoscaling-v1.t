# autoscaling/v1 HorizontalPodAutoscalers as kube-apiserver serves them: the
# autoscaling/v2 objects converted both ways, with what v1 cannot say (other
# metrics, current metrics, conditions, behavior) in the
# autoscaling.alpha.kubernetes.io/ annotations. kubectl 1.32 and 1.27
# (`autoscale`, `get hpa`), the python client's AutoscalingV1Api, and
# discovery listing v2 before v1; server-side apply through the conversion
# (a v1 HPA, an events.k8s.io/v1 Event), managedFields recorded under the
# served apiVersion. Outputs recorded from kube-apiserver 1.26.5
# (which stores HPAs at v1; this server stores them at v2 as kube 1.27 on,
# so a v2 read of a v1 write has no null currentMetrics).
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $ns = 'hpa-v1';
my $v1 = "/apis/autoscaling/v1/namespaces/$ns/horizontalpodautoscalers";
my $v2 = "/apis/autoscaling/v2/namespaces/$ns/horizontalpodautoscalers";
my $Age = qr/\d+[smhd]\S*/;

$s->create_namespace($ns);

# --- discovery ---------------------------------------------------------------------------
my $group = $s->get_json('/apis/autoscaling');
is_deeply([ map { $_->{groupVersion} } @{ $group->{versions} } ],
    [ 'autoscaling/v2', 'autoscaling/v1' ], 'the autoscaling group lists v2, then v1');
is($group->{preferredVersion}{version}, 'v2', 'v2 is preferred');
my $res = $s->get_json('/apis/autoscaling/v1');
is_deeply([ map { "$_->{name} " . join(',', @{ $_->{verbs} }) } @{ $res->{resources} } ],
    [ 'horizontalpodautoscalers create,delete,deletecollection,get,list,patch,update,watch',
      'horizontalpodautoscalers/status get,patch,update' ],
    'autoscaling/v1 serves horizontalpodautoscalers and their status');
is($res->{resources}[0]{storageVersionHash},
    $s->get_json('/apis/autoscaling/v2')->{resources}[0]{storageVersionHash},
    'both versions show the storage version\'s hash');

# --- kubectl autoscale -------------------------------------------------------------------
$s->kc_ok(undef, 'create deployment', '-n', $ns, 'create', 'deployment', 'web', '--image=nginx');
is(scalar $s->kc_ok(undef, 'autoscale (1.32)', '-n', $ns, 'autoscale', 'deployment', 'web',
        '--min=2', '--max=5', '--cpu-percent=70'),
    "horizontalpodautoscaler.autoscaling/web autoscaled\n", 'kubectl 1.32 autoscale');
my $y = $s->kc_ok('1.27', 'autoscale (1.27)', '-n', $ns, 'autoscale', 'deployment', 'web',
    '--max=3', '--name=web27', '-o', 'yaml');
like($y, qr/^apiVersion: autoscaling\/v1\nkind: HorizontalPodAutoscaler\n/,
    'kubectl 1.27 autoscale writes at autoscaling/v1');
my $want = "\nspec:\n  maxReplicas: 3\n  minReplicas: 1\n  scaleTargetRef:\n"
    . "    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n"
    . "  targetCPUUtilizationPercentage: 80\nstatus:\n  currentReplicas: 0\n  desiredReplicas: 0\n";
is(substr($y, -length $want), $want,
    'v1 defaults: one replica at least, the implicit 80% CPU target');
my $h = $s->get_json("$v2/web27");
is_deeply($h->{spec}{metrics}, [ { type => 'Resource', resource => { name => 'cpu',
    target => { type => 'Utilization', averageUtilization => 80 } } } ],
    'at v2 the 80% CPU target is a Resource metric');
like(scalar $s->kc_ok(undef, 'get hpa', '-n', $ns, 'get', 'hpa'),
    qr{^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\n
       web\s+Deployment/web\s+cpu:\s<unknown>/70%\s+2\s+5\s+0\s+$Age\n
       web27\s+Deployment/web\s+cpu:\s<unknown>/80%\s+1\s+3\s+0\s+$Age\n\z}x,
    'get hpa: both, with kube\'s columns');
like(scalar $s->kc_ok('1.27', 'get hpa.v1.autoscaling', '-n', $ns, 'get',
        'hpa.v1.autoscaling', 'web', '-o', 'yaml'),
    qr/\n  targetCPUUtilizationPercentage: 70\n/, 'kubectl 1.27 get hpa.v1.autoscaling -o yaml');

# --- a v2 object read at v1 --------------------------------------------------------------
my ($st, $o, $raw) = $s->call(POST => $v2, { apiVersion => 'autoscaling/v2',
    kind => 'HorizontalPodAutoscaler', metadata => { name => 'full', annotations => { a => 'b' } },
    spec => { scaleTargetRef => { apiVersion => 'apps/v1', kind => 'Deployment', name => 'web' },
        minReplicas => 2, maxReplicas => 10,
        metrics => [
            { type => 'Resource', resource => { name => 'memory',
                target => { type => 'AverageValue', averageValue => '500Mi' } } },
            { type => 'Resource', resource => { name => 'cpu',
                target => { type => 'Utilization', averageUtilization => 60 } } },
            { type => 'Object', object => { describedObject => { kind => 'Ingress',
                name => 'main' }, metric => { name => 'rps' },
                target => { type => 'Value', value => '10k' } } } ],
        behavior => { scaleDown => { stabilizationWindowSeconds => 300,
            policies => [ { type => 'Percent', value => 10, periodSeconds => 60 } ] } } } });
is($st, 201, 'POST a v2 HPA with three metrics and a behavior') or diag($raw->{body});
($st, $o) = $s->patch(merge => "$v2/full/status", { status => { currentReplicas => 3,
    desiredReplicas => 4, currentMetrics => [ { type => 'Resource', resource => {
        name => 'cpu', current => { averageUtilization => 55, averageValue => '120m' } } } ],
    conditions => [ { type => 'AbleToScale', status => 'True',
        lastTransitionTime => '2026-11-26T10:00:00Z', reason => 'ReadyForNewScale',
        message => 'ok' } ] } });
is($st, 200, 'PATCH its status at v2');
$o = $s->get_json("$v1/full");
is_deeply($o->{spec}, { scaleTargetRef => { kind => 'Deployment', name => 'web',
    apiVersion => 'apps/v1' }, minReplicas => 2, maxReplicas => 10,
    targetCPUUtilizationPercentage => 60 }, 'at v1: the CPU target');
is_deeply($o->{status}, { currentReplicas => 3, desiredReplicas => 4,
    currentCPUUtilizationPercentage => 55 }, 'at v1: the current CPU utilization');
is_deeply($o->{metadata}{annotations}, {
    a => 'b',
    'autoscaling.alpha.kubernetes.io/behavior' => '{"ScaleUp":{"StabilizationWindowSeconds":0,'
        . '"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},'
        . '{"Type":"Percent","Value":100,"PeriodSeconds":15}]},"ScaleDown":'
        . '{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","Policies":[{"Type":"Percent",'
        . '"Value":10,"PeriodSeconds":60}]}}',
    'autoscaling.alpha.kubernetes.io/conditions' => '[{"type":"AbleToScale","status":"True",'
        . '"lastTransitionTime":"2026-11-26T10:00:00Z","reason":"ReadyForNewScale",'
        . '"message":"ok"}]',
    'autoscaling.alpha.kubernetes.io/current-metrics' => '[{"type":"Resource","resource":'
        . '{"name":"cpu","currentAverageUtilization":55,"currentAverageValue":"120m"}}]',
    'autoscaling.alpha.kubernetes.io/metrics' => '[{"type":"Resource","resource":{"name":'
        . '"memory","targetAverageValue":"500Mi"}},{"type":"Object","object":{"target":'
        . '{"kind":"Ingress","name":"main"},"metricName":"rps","targetValue":"10k"}}]',
}, 'at v1: the rest in kube\'s annotations, byte for byte');

# --- written back at v1 ------------------------------------------------------------------
$o->{spec}{maxReplicas} = 12;
($st, undef, $raw) = $s->call(PUT => "$v1/full", $o);
is($st, 200, 'PUT the v1 object back with a new maxReplicas') or diag($raw->{body});
$h = $s->get_json("$v2/full");
is($h->{spec}{maxReplicas}, 12, 'the change reached the stored object');
is_deeply([ map { $_->{resource}{name} // $_->{type} } @{ $h->{spec}{metrics} } ],
    [ 'memory', 'Object', 'cpu' ], 'the metrics came back from the annotation, CPU last');
is($h->{spec}{behavior}{scaleDown}{stabilizationWindowSeconds}, 300, 'and the behavior');
is_deeply($h->{metadata}{annotations}, { a => 'b' }, 'no round-trip annotation is stored');
is($h->{status}{conditions}[0]{reason}, 'ReadyForNewScale', 'the status is kept');

# --- invalid at v1: kube validates the v2 (internal) object -----------------------------
($st, $o) = $s->call(POST => $v1, { apiVersion => 'autoscaling/v1',
    kind => 'HorizontalPodAutoscaler', metadata => { name => 'bad' },
    spec => { scaleTargetRef => { kind => '', name => 'x' }, minReplicas => 1,
        maxReplicas => 0, targetCPUUtilizationPercentage => 0 } });
is($st, 422, 'an invalid v1 HPA: 422');
is($o->{message}, 'HorizontalPodAutoscaler.autoscaling "bad" is invalid: ['
    . 'spec.maxReplicas: Invalid value: 0: must be greater than 0, '
    . 'spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`, '
    . 'spec.scaleTargetRef.kind: Required value, '
    . 'spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater '
    . 'than 0]', 'kube\'s message, with v2\'s field paths');

# --- server-side apply through a conversion ----------------------------------------------
my $hpa_yaml = <<"Y";
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: ssa1, namespace: $ns}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 4
  targetCPUUtilizationPercentage: 55
Y
is(scalar $s->kc_ok(undef, 'apply --server-side a v1 HPA', 'apply', '--server-side', '-f', '-',
        { stdin => $hpa_yaml }),
    "horizontalpodautoscaler.autoscaling/ssa1 serverside-applied\n", 'apply --server-side (v1 HPA)');
$o = $s->get_json("$v1/ssa1");
is_deeply([ map { [ @$_{qw(manager operation apiVersion)}, $_->{fieldsV1} ] }
        @{ $o->{metadata}{managedFields} } ],
    [ [ 'kubectl', 'Apply', 'autoscaling/v1', { 'f:spec' => { 'f:maxReplicas' => {},
        'f:scaleTargetRef' => {}, 'f:targetCPUUtilizationPercentage' => {} } } ] ],
    'managedFields: kubectl\'s apply at autoscaling/v1, scaleTargetRef atomic as in v1');
is($o->{spec}{targetCPUUtilizationPercentage}, 55, 'the applied CPU target');
(my $other = $hpa_yaml) =~ s/maxReplicas: 4/maxReplicas: 6/;
my ($rc2, undef, $err2) = $s->kc(undef, 'apply', '--server-side', '--field-manager=other',
    '-f', '-', { stdin => $other });
is($rc2, 1, 'another manager changing maxReplicas: refused');
like($err2, qr/\Aerror: Apply failed with 1 conflict: conflict with "kubectl": \.spec\.maxReplicas\n/,
    'kube\'s conflict, in v1\'s field paths');
$s->kc_ok(undef, 'apply --force-conflicts', 'apply', '--server-side', '--field-manager=other',
    '--force-conflicts', '-f', '-', { stdin => $other });
is($s->get_json("$v2/ssa1")->{spec}{maxReplicas}, 6, 'forced: the stored object has 6');

my $ev = <<"Y";
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: ev1, namespace: $ns}
eventTime: "2026-11-26T10:00:00.000000Z"
reportingController: example.com/ctl
reportingInstance: ctl-1
action: Created
reason: Made
note: hello
type: Normal
regarding: {kind: Pod, name: p, namespace: $ns}
Y
is(scalar $s->kc_ok(undef, 'apply --server-side an events.k8s.io Event', 'apply',
        '--server-side', '-f', '-', { stdin => $ev }),
    "event.events.k8s.io/ev1 serverside-applied\n", 'apply --server-side (events.k8s.io/v1)');
my $core = $s->get_json("/api/v1/namespaces/$ns/events/ev1");
is($core->{message}, 'hello', 'stored as a core/v1 Event');
is_deeply([ map { [ @$_{qw(manager operation apiVersion)}, $_->{fieldsV1} ] }
        @{ $core->{metadata}{managedFields} } ],
    [ [ 'kubectl', 'Apply', 'events.k8s.io/v1', { map { ("f:$_" => {}) }
        qw(action eventTime note reason regarding reportingController reportingInstance type) } ] ],
    'managedFields: the events API\'s fields, under its apiVersion, read at core/v1 too');
(my $changed = $ev) =~ s/note: hello/note: changed/;
my ($rc3, undef, $err3) = $s->kc(undef, 'apply', '--server-side', '-f', '-', { stdin => $changed });
is($err3, "The Event \"ev1\" is invalid: message: Invalid value: \"changed\": field is immutable\n",
    'a changed note: kube\'s 422, named as the stored kind names it');

# --- the python client's AutoscalingV1Api -------------------------------------------------
my ($rc, $out, $err) = python_client($s, <<"PY");
from kubernetes import client, config
config.load_kube_config()
api = client.AutoscalingV1Api()
body = client.V1HorizontalPodAutoscaler(metadata=client.V1ObjectMeta(name="py"),
    spec=client.V1HorizontalPodAutoscalerSpec(
        scale_target_ref=client.V1CrossVersionObjectReference(kind="Deployment", name="web",
            api_version="apps/v1"),
        max_replicas=7, target_cpu_utilization_percentage=65))
h = api.create_namespaced_horizontal_pod_autoscaler("$ns", body)
print(h.spec.target_cpu_utilization_percentage, h.spec.min_replicas, h.status.desired_replicas)
print(sorted(i.metadata.name for i in api.list_namespaced_horizontal_pod_autoscaler("$ns").items))
h = api.patch_namespaced_horizontal_pod_autoscaler_status("py", "$ns",
    {"status": {"currentReplicas": 1, "desiredReplicas": 2, "currentCPUUtilizationPercentage": 30}})
print(h.status.current_cpu_utilization_percentage, h.status.desired_replicas)
h = api.read_namespaced_horizontal_pod_autoscaler("py", "$ns")
print(h.api_version, sorted((h.metadata.annotations or {}).keys()))
api.delete_namespaced_horizontal_pod_autoscaler("py", "$ns")
PY
is($rc, 0, 'python AutoscalingV1Api: exit 0') or diag($err);
is($out, "65 1 0\n['full', 'py', 'ssa1', 'web', 'web27']\n30 2\n"
    . "autoscaling/v1 ['autoscaling.alpha.kubernetes.io/current-metrics']\n",
    'python AutoscalingV1Api: create, list, patch status, read, delete');

ok($s->stop, 'stopped cleanly');
done_testing();
