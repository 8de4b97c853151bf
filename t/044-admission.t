# One admission chain (NamespaceLifecycle, LimitRanger, ServiceAccount,
# Priority, ResourceQuota), as kube-apiserver's default plugins answer: a pod runs as the
# namespace's default ServiceAccount and mounts the projected token volume;
# a missing account, a LimitRange's max and a claim's storage max are 403
# Forbidden with kube's messages; LimitRange defaults fill containers. And
# immutable fields are 422 Invalid with kube's field paths and wording
# (recorded from kube-apiserver v1.26.5). Nothing changes after a refusal.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
$s->create_namespace('adm');
$s->create_namespace('imm');
my $api = '/api/v1/namespaces/adm';

sub pod {
    my ($name, %spec) = @_;
    return { metadata => { name => $name },
             spec => { containers => [ { name => 'c', image => 'busybox' } ], %spec } };
}

# --- The serviceaccounts controller -------------------------------------------------

# As kube-controller-manager's: a namespace gets its default ServiceAccount
# without a pod asking, and gets it back when it is deleted.
$s->create_namespace('sactl');
ok(wait_until(sub { ($s->call(GET => '/api/v1/namespaces/sactl/serviceaccounts/default'))[0]
    == 200 }, 5), 'a new namespace gets its default ServiceAccount');
is(($s->call(DELETE => '/api/v1/namespaces/sactl/serviceaccounts/default'))[0], 200,
    'the default ServiceAccount deleted');
ok(wait_until(sub { ($s->call(GET => '/api/v1/namespaces/sactl/serviceaccounts/default'))[0]
    == 200 }, 5), '... comes back');
is(($s->call(DELETE => '/api/v1/namespaces/sactl'))[0], 200, 'the namespace deleted');
ok(wait_until(sub { ($s->call(GET => '/api/v1/namespaces/sactl'))[0] == 404 }, 10),
    '... goes, and no ServiceAccount holds it');

# --- ServiceAccount admission ---------------------------------------------------

my ($st, $o) = $s->call(POST => "$api/pods", pod('p1'));
is($st, 201, 'a pod without serviceAccountName is created');
is($o->{spec}{serviceAccountName}, 'default', '... runs as default');
is($o->{spec}{serviceAccount}, 'default', '... and the deprecated serviceAccount says so');
my $vol = $o->{spec}{volumes}[-1];
like($vol->{name}, qr/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/, 'token volume name');
is_deeply($vol->{projected}, {
    defaultMode => 420,
    sources => [
        { serviceAccountToken => { expirationSeconds => 3607, path => 'token' } },
        { configMap => { name => 'kube-root-ca.crt',
                         items => [ { key => 'ca.crt', path => 'ca.crt' } ] } },
        { downwardAPI => { items => [ { path => 'namespace',
            fieldRef => { apiVersion => 'v1', fieldPath => 'metadata.namespace' } } ] } },
    ] }, 'the projected volume kube 1.26 mounts');
is_deeply($o->{spec}{containers}[0]{volumeMounts},
    [ { name => $vol->{name}, readOnly => JSON::PP::true(),
        mountPath => '/var/run/secrets/kubernetes.io/serviceaccount' } ],
    'every container mounts it');
is(($s->call(GET => "$api/serviceaccounts/default"))[0], 200,
    "the namespace's default ServiceAccount exists");

($st, $o) = $s->call(POST => "$api/pods", pod('p2', automountServiceAccountToken => JSON::PP::false()));
is($st, 201, 'a pod that opts out');
ok(!$o->{spec}{volumes} && !$o->{spec}{containers}[0]{volumeMounts}, '... mounts no token');

($st, $o) = $s->call(POST => "$api/pods", pod('p3', serviceAccountName => 'ghost'));
is($st, 403, 'a pod naming a missing ServiceAccount is refused');
is($o->{message}, 'pods "p3" is forbidden: error looking up service account adm/ghost: '
    . 'serviceaccount "ghost" not found', "... with kube's message");
is(($s->call(GET => "$api/pods/p3"))[0], 404, '... and not created');

# --- LimitRanger ------------------------------------------------------------------

($st) = $s->call(POST => "$api/limitranges", { metadata => { name => 'lr' }, spec => { limits => [
    { type => 'Container', max => { cpu => '1' }, min => { cpu => '100m' },
      default => { cpu => '500m', memory => '256Mi' }, defaultRequest => { cpu => '200m' } },
    { type => 'PersistentVolumeClaim', max => { storage => '2Gi' }, min => { storage => '1Gi' } },
] } });
is($st, 201, 'LimitRange lr');
($st, $o) = $s->call(POST => "$api/pods", pod('p4'));
is($st, 201, 'a pod without resources');
is_deeply($o->{spec}{containers}[0]{resources},
    { limits => { cpu => '500m', memory => '256Mi' }, requests => { cpu => '200m', memory => '256Mi' } },
    "gets the LimitRange's defaults");
is($o->{metadata}{annotations}{'kubernetes.io/limit-ranger'},
    'LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c',
    '... and says so');

my $big = pod('p5');
$big->{spec}{containers}[0]{resources} = { limits => { cpu => '2' } };
($st, $o) = $s->call(POST => "$api/pods", $big);
is($st, 403, 'a container over the max is refused');
is($o->{message}, 'pods "p5" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    "... with kube's message");
is(($s->call(GET => "$api/pods/p5"))[0], 404, '... and not created');

my $small = pod('p6');
$small->{spec}{containers}[0]{resources} = { requests => { cpu => '50m' } };
($st, $o) = $s->call(POST => "$api/pods", $small);
is($o->{message}, 'pods "p6" is forbidden: minimum cpu usage per Container is 100m, but request is 50m',
    'under the min');

my $claim = sub {
    my ($name, $size) = @_;
    return { metadata => { name => $name }, spec => { accessModes => ['ReadWriteOnce'],
             resources => { requests => { storage => $size } } } };
};
($st, $o) = $s->call(POST => "$api/persistentvolumeclaims", $claim->('big', '5Gi'));
is($st, 403, 'a claim over the max is refused');
is($o->{message}, 'persistentvolumeclaims "big" is forbidden: maximum storage usage per '
    . 'PersistentVolumeClaim is 2Gi, but request is 5Gi', "... with kube's message");
is(($s->call(POST => "$api/persistentvolumeclaims", $claim->('ok', '1Gi')))[0], 201,
    'a claim within bounds');

# --- NamespaceLifecycle through the chain -------------------------------------------

($st, $o) = $s->call(DELETE => '/api/v1/namespaces/default');
is($st, 403, 'default may not be deleted');
is($o->{message}, 'namespaces "default" is forbidden: this namespace may not be deleted', '... message');
($st, $o) = $s->call(POST => '/api/v1/namespaces/nowhere/configmaps', { metadata => { name => 'x' } });
is("$st $o->{message}", '404 namespaces "nowhere" not found', 'no create in a missing namespace');

# --- ResourceQuota ------------------------------------------------------------------

$s->create_namespace('quota');
my $qapi = '/api/v1/namespaces/quota';
my $hard = { pods => '1', configmaps => '2', 'limits.cpu' => '1', 'requests.memory' => '1Gi',
             'count/secrets' => '3' };
($st) = $s->call(POST => "$qapi/resourcequotas", { metadata => { name => 'q' }, spec => { hard => $hard } });
is($st, 201, 'quota q');
my $used = sub { ($s->call(GET => "$qapi/resourcequotas/q"))[1]{status}{used} || {} };
ok(wait_until(sub { ($s->call(GET => "$qapi/resourcequotas/q"))[1]{status}{hard} }),
    'the quota controller fills its status');
($st, $o) = $s->call(GET => "$qapi/resourcequotas/q");
is_deeply($o->{status}{hard}, $hard, 'status.hard mirrors spec.hard');
is_deeply($o->{status}{used}, { pods => '0', configmaps => '0', 'limits.cpu' => '0',
    'requests.memory' => '0', 'count/secrets' => '0' }, 'status.used counts the namespace');

for my $cm (qw(a b)) {
    is(($s->call(POST => "$qapi/configmaps", { metadata => { name => $cm } }))[0], 201, "configmap $cm");
}
is($used->()->{configmaps}, '2', 'admission charged status.used at once');
($st, $o) = $s->call(POST => "$qapi/configmaps", { metadata => { name => 'c' } });
is($st, 403, 'a third configmap exceeds the quota');
is($o->{message}, 'configmaps "c" is forbidden: exceeded quota: q, requested: configmaps=1, '
    . 'used: configmaps=2, limited: configmaps=2', "... kube's message");
is($o->{reason}, 'Forbidden', '... reason Forbidden');
is(($s->call(GET => "$qapi/configmaps/c"))[0], 404, '... and it is not created');

my $res = sub { my ($name, %r) = @_; return { name => $name, image => 'x', resources => { %r } } };
($st, $o) = $s->call(POST => "$qapi/pods", pod('p'));
is("$st $o->{message}", '403 pods "p" is forbidden: failed quota: q: must specify limits.cpu for: c; '
    . 'requests.memory for: c', 'a pod without limits.cpu or requests.memory');
($st, $o) = $s->call(POST => "$qapi/pods", { metadata => { name => 'p' }, spec => { containers => [
    $res->('c', limits => { cpu => '500m' }), $res->('d') ] } });
is("$st $o->{message}", '403 pods "p" is forbidden: failed quota: q: must specify limits.cpu for: d; '
    . 'requests.memory for: c,d', '... every container must set them');
($st, $o) = $s->call(POST => "$qapi/pods", { metadata => { name => 'p' }, spec => { containers => [
    $res->('c', limits => { cpu => '500m', memory => '2Gi' }) ] } });
is("$st $o->{message}", '403 pods "p" is forbidden: exceeded quota: q, requested: requests.memory=2Gi, '
    . 'used: requests.memory=0, limited: requests.memory=1Gi', 'a pod asking too much memory');
($st) = $s->call(POST => "$qapi/pods?dryRun=All", { metadata => { name => 'p' }, spec => { containers => [
    $res->('c', limits => { cpu => '500m', memory => '512Mi' }) ] } });
is($st, 201, 'a dry run is admitted');
is($used->()->{pods}, '0', '... and not charged');
($st) = $s->call(POST => "$qapi/pods", { metadata => { name => 'p' }, spec => { containers => [
    $res->('c', limits => { cpu => '500m', memory => '512Mi' }) ] } });
is($st, 201, 'a pod within the quota');
is_deeply([ @{ $used->() }{qw(pods limits.cpu requests.memory)} ], [ '1', '500m', '512Mi' ],
    '... is charged its pod, limits.cpu and requests.memory');
($st, $o) = $s->call(POST => "$qapi/pods", { metadata => { name => 'p2' }, spec => { containers => [
    $res->('c', limits => { cpu => '100m', memory => '100Mi' }) ] } });
is("$st $o->{message}", '403 pods "p2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, '
    . 'limited: pods=1', 'a second pod exceeds pods=1');

is(($s->call(DELETE => "$qapi/configmaps/a"))[0], 200, 'a configmap deleted');
ok(wait_until(sub { $used->()->{configmaps} eq '1' }), '... the quota controller recounts status.used');
is(($s->call(POST => "$qapi/configmaps", { metadata => { name => 'c' } }))[0], 201,
    '... and a configmap fits again');
is(($s->call(POST => "$qapi/secrets", { metadata => { name => 's' } }))[0], 201, 'a secret');
is($used->()->{'count/secrets'}, '1', '... counted under count/secrets');

$s->create_namespace('quota2');
my $q2 = '/api/v1/namespaces/quota2';
$s->call(POST => "$q2/resourcequotas", { metadata => { name => 'be' },
    spec => { hard => { pods => '1' }, scopes => ['BestEffort'] } });
$s->call(POST => "$q2/resourcequotas", { metadata => { name => 'svc' },
    spec => { hard => { 'services.loadbalancers' => '0', 'services.nodeports' => '1' } } });
ok(wait_until(sub { my $l = ($s->call(GET => "$q2/resourcequotas"))[1];
    2 == grep { $_->{status}{used} } @{ $l->{items} } }), 'scoped quotas filled');
is(($s->call(POST => "$q2/pods", pod('b1')))[0], 201, 'a BestEffort pod');
($st, $o) = $s->call(POST => "$q2/pods", pod('b2'));
is("$st $o->{message}", '403 pods "b2" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, '
    . 'limited: pods=1', 'a second BestEffort pod exceeds the BestEffort quota');
is(($s->call(POST => "$q2/pods", { metadata => { name => 'nb' }, spec => { containers => [
    $res->('c', requests => { cpu => '1m' }) ] } }))[0], 201, 'a NotBestEffort pod is not counted by it');
($st, $o) = $s->call(POST => "$q2/services", { metadata => { name => 'lb' },
    spec => { type => 'LoadBalancer', ports => [ { port => 80 } ] } });
is("$st $o->{message}", '403 services "lb" is forbidden: exceeded quota: svc, requested: '
    . 'services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0',
    'a LoadBalancer service exceeds services.loadbalancers=0');
is(($s->call(POST => "$q2/services", { metadata => { name => 'np1' },
    spec => { type => 'NodePort', ports => [ { port => 80 } ] } }))[0], 201, 'a NodePort service');
is(($s->call(POST => "$q2/services", { metadata => { name => 'ci' },
    spec => { ports => [ { port => 80 } ] } }))[0], 201, 'a ClusterIP service uses no node port');

# --- immutable fields -----------------------------------------------------------------

my $core = '/api/v1/namespaces/imm';
sub refused {
    my ($path, $patch, $want, $what) = @_;
    my $before = $s->get_json($path);
    my ($st, $o) = $s->patch(merge => $path, $patch);
    is($st, 422, "$what: 422");
    if (ref $want) {
        like($o->{message}, $want, "$what: kube's message");
    } else {
        is($o->{message}, $want, "$what: kube's message");
    }
    is($s->get_json($path)->{metadata}{resourceVersion}, $before->{metadata}{resourceVersion},
        "$what: nothing changed");
    return $o;
}

$s->call(POST => "$core/configmaps", { metadata => { name => 'cm1' }, data => { a => 'b' } });
$o = refused("$core/configmaps/cm1", { metadata => { uid => 'abc' } },
    'ConfigMap "cm1" is invalid: metadata.uid: Invalid value: "abc": field is immutable', 'uid');
is(scalar @{ $o->{details}{causes} }, 2, '... reported twice, as kube does');

$s->call(POST => "$core/configmaps", { metadata => { name => 'cm2' }, data => { a => 'b' },
    immutable => JSON::PP::true() });
refused("$core/configmaps/cm2", { data => { a => 'c' } },
    'ConfigMap "cm2" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    'immutable ConfigMap data');
refused("$core/configmaps/cm2", { binaryData => { q => 'Yw==' } },
    'ConfigMap "cm2" is invalid: binaryData: Forbidden: field is immutable when `immutable` is set',
    'immutable ConfigMap binaryData');
refused("$core/configmaps/cm2", { immutable => JSON::PP::false() },
    'ConfigMap "cm2" is invalid: immutable: Forbidden: field is immutable when `immutable` is set',
    'immutable ConfigMap made mutable');
is(($s->patch(merge => "$core/configmaps/cm2", { metadata => { labels => { x => 'y' } } }))[0], 200,
    'its labels may change');

$s->call(POST => "$core/secrets", { metadata => { name => 's1' }, data => { a => 'Yg==' },
    immutable => JSON::PP::true() });
refused("$core/secrets/s1", { data => { a => 'Yw==' } },
    'Secret "s1" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    'immutable Secret data');
refused("$core/secrets/s1", { stringData => { z => 'c' } },
    'Secret "s1" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    'immutable Secret stringData');
refused("$core/secrets/s1", { type => 'foo' },
    'Secret "s1" is invalid: type: Invalid value: "foo": field is immutable', 'Secret type');

($st) = $s->call(POST => "$core/services", { metadata => { name => 'svc' },
    spec => { clusterIP => '10.0.0.5', ports => [ { port => 80 } ] } });
is($st, 201, 'service with a clusterIP');
refused("$core/services/svc", { spec => { clusterIP => '10.0.0.77' } },
    'Service "svc" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.77"}: '
    . 'may not change once set', 'Service clusterIP');

my $tmpl = { metadata => { labels => { app => 'a' } },
             spec => { containers => [ { name => 'c', image => 'busybox' } ] } };
($st) = $s->call(POST => '/apis/apps/v1/namespaces/imm/deployments', { metadata => { name => 'd1' },
    spec => { selector => { matchLabels => { app => 'a' } }, template => $tmpl } });
is($st, 201, 'deployment d1');
refused('/apis/apps/v1/namespaces/imm/deployments/d1',
    { spec => { selector => { matchLabels => { app => 'a', x => 'y' } },
                template => { metadata => { labels => { app => 'a', x => 'y' } } } } },
    'Deployment.apps "d1" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:'
    . 'map[string]string{"app":"a", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: '
    . 'field is immutable', 'Deployment selector');

($st) = $s->call(POST => '/apis/apps/v1/namespaces/imm/statefulsets', { metadata => { name => 'ss1' },
    spec => { serviceName => 'ss1', selector => { matchLabels => { app => 'a' } }, template => $tmpl } });
is($st, 201, 'statefulset ss1');
my $ssMsg = "StatefulSet.apps \"ss1\" is invalid: spec: Forbidden: updates to statefulset spec for "
    . "fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
    . "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
refused('/apis/apps/v1/namespaces/imm/statefulsets/ss1', { spec => { serviceName => 'other' } },
    $ssMsg, 'StatefulSet serviceName');
refused('/apis/apps/v1/namespaces/imm/statefulsets/ss1', { spec => { podManagementPolicy => 'Parallel' } },
    $ssMsg, 'StatefulSet podManagementPolicy');
is(($s->patch(merge => '/apis/apps/v1/namespaces/imm/statefulsets/ss1', { spec => { replicas => 3 } }))[0],
    200, 'its replicas may change');

($st) = $s->call(POST => '/apis/batch/v1/namespaces/imm/jobs', { metadata => { name => 'j1' },
    spec => { template => { spec => { restartPolicy => 'Never',
        containers => [ { name => 'j1', image => 'busybox' } ] } } } });
is($st, 201, 'job j1');
$o = refused('/apis/batch/v1/namespaces/imm/jobs/j1',
    { spec => { template => { spec => { containers => [ { name => 'j1', image => 'nginx' } ] } } } },
    qr/^Job\.batch "j1" is invalid: spec\.template: Invalid value: .*: field is immutable$/s,
    'Job template');
is($o->{details}{causes}[0]{field}, 'spec.template', '... names spec.template');
$o = refused('/apis/batch/v1/namespaces/imm/jobs/j1',
    { spec => { selector => { matchLabels => { x => 'y' } } } },
    qr/^Job\.batch "j1" is invalid: /, 'Job selector');
my ($sel) = grep { $_->{field} eq 'spec.selector' && $_->{message} =~ /field is immutable$/ }
    @{ $o->{details}{causes} };
ok($sel, '... spec.selector: field is immutable');

($st) = $s->call(POST => "$core/persistentvolumeclaims", $claim->('pvc1', '1Gi'));
is($st, 201, 'claim pvc1');
refused("$core/persistentvolumeclaims/pvc1", { spec => { accessModes => ['ReadWriteMany'] } },
    qr/^PersistentVolumeClaim "pvc1" is invalid: spec: Forbidden: spec is immutable after creation except resources\.requests for bound claims\n/,
    'PVC accessModes');
refused("$core/persistentvolumeclaims/pvc1", { spec => { resources => { requests => { storage => '2Gi' } } } },
    qr/^PersistentVolumeClaim "pvc1" is invalid: spec: Forbidden: spec is immutable after creation except resources\.requests for bound claims\n/,
    'an unbound claim may not grow');
$o = refused("$core/persistentvolumeclaims/pvc1", { spec => { resources => { requests => { storage => '500Mi' } } } },
    qr/spec\.resources\.requests\.storage: Forbidden: field can not be less than previous value\]$/,
    'a claim may not shrink');

done_testing();
