# certificates.k8s.io/v1 CertificateSigningRequests and events.k8s.io/v1
# Events as kube-apiserver 1.26 serves them, through kubectl: a request
# records who made it, kubectl certificate approve and deny set its
# condition (the approval needs the approve verb on the signer, exact or
# "<domain>/*", as the CertificateApproval plugin asks), and kubectl get csr
# prints kube's columns; an event written at core/v1 reads at
# events.k8s.io/v1 in that API's shape and the reverse, and kubectl prints
# both as kube does; a new Node carries the not-ready taint. Messages and
# outputs were recorded from kube-apiserver 1.26.5.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp qw(tempdir);

my $dir = tempdir(CLEANUP => 1);
open my $f, '>', "$dir/tokens.csv" or die "tokens.csv: $!";
print $f qq{anna-token,anna,uid-anna,"approvers"\n};
close $f;

my $s = start_server(tls => 1, http_config => "kube_token_auth_file $dir/tokens.csv;",
    config => <<'CONF');
location / {
    kube_api;
    kube_authorization_mode RBAC;
}
CONF

my $csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
my $request = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIV01IOENBUUF3SFRFTU1Bb0dBMVVFQXd3RFltOWlNUTB3Q3dZRFZRUUtEQVJrWlhaek1Ga3dFd1lIS29aSQp6ajBDQVFZSUtvWkl6ajBEQVFjRFFnQUVYOVdwTzhGLzByMUxIREt6UFpoTUNxa3ZrQUdmQ0RsczV2M0Q5aXd5CmNsaFpaeTRaYUdCU1RaVzJwaFdPZExPR3BSaTdsNjF1am9HbGVTZ054eXFLQUtBQU1Bb0dDQ3FHU000OUJBTUMKQTBjQU1FUUNJQzV1TzhGQlpPZ2hEc2lEWGYybnRHQk4xYitKYTRYb2JZOWc3Q3MxTnFwckFpQnNlUFJmd0tPNAoxU2k3d25OUlZTcGFxWWdZWkh1NDJVZUNnTFpPQnhCMmFBPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==';

sub csr_yaml {
    my ($name, $signer) = @_;
    $signer //= 'kubernetes.io/kube-apiserver-client';
    return <<"Y";
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: $name}
spec:
  request: $request
  signerName: $signer
  expirationSeconds: 86400
  usages: [client auth]
Y
}

# Requests, and kubectl's view of them.
$s->kc_ok(undef, 'create csr', 'create', '-f', '-', { stdin => csr_yaml('c1') });
$s->kc_ok(undef, 'create csr', 'create', '-f', '-', { stdin => csr_yaml('c2') });
my $c1 = $s->get_json("$csrs/c1");
is($c1->{spec}{username}, 'kube-admin', 'the requester is recorded');
is_deeply($c1->{status}, {}, 'a request starts with no status');
like(scalar $s->kc_ok(undef, undef, 'get', 'csr'),
    qr/\ANAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\n
       c1\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+kube-admin\s+24h\s+Pending\n
       c2\s+/x, 'kubectl get csr prints kube\'s columns');
is(scalar $s->kc_ok(undef, undef, 'certificate', 'approve', 'c1'),
    "certificatesigningrequest.certificates.k8s.io/c1 approved\n", 'kubectl certificate approve');
is(scalar $s->kc_ok(undef, undef, 'certificate', 'deny', 'c2'),
    "certificatesigningrequest.certificates.k8s.io/c2 denied\n", 'kubectl certificate deny');
like(scalar $s->kc_ok(undef, undef, 'get', 'csr', 'c1', 'c2', '--no-headers'),
    qr/\Ac1\s.*\sApproved\nc2\s.*\sDenied\n\z/, 'the conditions show');
my $cond = $s->get_json("$csrs/c1")->{status}{conditions}[0];
is($cond->{reason}, 'KubectlApprove', 'kubectl\'s reason');
ok($cond->{lastUpdateTime} && $cond->{lastTransitionTime}, 'the condition times are set');

# Bad requests: kube's field paths.
my ($st, $o) = $s->call(POST => $csrs, { metadata => { name => 'bad' },
    spec => { request => 'aGVsbG8=', signerName => 'foo', usages => ['client auth'],
        expirationSeconds => 10 } });
is($st, 422, 'an invalid request: 422');
is_deeply([ map { $_->{field} } @{ $o->{details}{causes} } ],
    [ 'spec.request', 'spec.signerName', 'spec.expirationSeconds' ], 'kube\'s field paths');

# Approving needs the approve verb on the signer.
for my $obj (
    { apiVersion => 'rbac.authorization.k8s.io/v1', kind => 'ClusterRole',
      metadata => { name => 'csr-approval' },
      rules => [ { apiGroups => ['certificates.k8s.io'], resources => ['certificatesigningrequests'],
                   verbs => ['get', 'list'] },
                 { apiGroups => ['certificates.k8s.io'],
                   resources => ['certificatesigningrequests/approval'], verbs => ['update'] } ] },
    { apiVersion => 'rbac.authorization.k8s.io/v1', kind => 'ClusterRoleBinding',
      metadata => { name => 'csr-approval' },
      roleRef => { apiGroup => 'rbac.authorization.k8s.io', kind => 'ClusterRole', name => 'csr-approval' },
      subjects => [ { kind => 'Group', name => 'approvers', apiGroup => 'rbac.authorization.k8s.io' } ] },
) {
    my $kind = lc $obj->{kind} . 's';
    my ($st) = $s->call(POST => "/apis/rbac.authorization.k8s.io/v1/$kind", $obj);
    is($st, 201, "$obj->{kind} $obj->{metadata}{name} created");
}
$s->kc_ok(undef, 'create csr', 'create', '-f', '-', { stdin => csr_yaml('c3') });
my $c3 = $s->get_json("$csrs/c3");
ok(wait_until(sub { ($s->call(GET => "$csrs/c3", undef, token => 'anna-token'))[0] == 200 }),
    'anna may read requests');
$c3->{status}{conditions} = [ { type => 'Approved', status => 'True', reason => 'Anna' } ];
($st, $o) = $s->call(PUT => "$csrs/c3/approval", $c3, token => 'anna-token');
is($st, 403, 'approval without the approve verb: 403');
is($o->{message}, 'certificatesigningrequests.certificates.k8s.io "c3" is forbidden: user not '
    . 'permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    'kube\'s message');
($st) = $s->call(POST => '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata => { name => 'signer-approver' },
    rules => [ { apiGroups => ['certificates.k8s.io'], resources => ['signers'],
                 resourceNames => ['kubernetes.io/*'], verbs => ['approve'] } ] });
is($st, 201, 'a role to approve for kubernetes.io/*');
($st) = $s->call(POST => '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata => { name => 'signer-approver' },
    roleRef => { apiGroup => 'rbac.authorization.k8s.io', kind => 'ClusterRole', name => 'signer-approver' },
    subjects => [ { kind => 'User', name => 'anna', apiGroup => 'rbac.authorization.k8s.io' } ] });
is($st, 201, 'bound to anna');
my $approved = wait_until(sub {
    my ($st) = $s->call(PUT => "$csrs/c3/approval", $c3, token => 'anna-token');
    return $st == 200;
}, 10);
ok($approved, 'with approve on the signer\'s domain, the approval goes through');

# Events: one object, two shapes.
$s->create_namespace('ev');
$s->kc_ok(undef, 'create core event', 'create', '-f', '-', { stdin => <<'Y' });
apiVersion: v1
kind: Event
metadata: {name: ev1, namespace: ev}
involvedObject: {kind: Pod, name: p1, namespace: ev}
reason: Started
message: hello
source: {component: kubelet, host: n1}
count: 3
type: Normal
Y
$s->kc_ok(undef, 'create events.k8s.io event', 'create', '-f', '-', { stdin => <<'Y' });
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: ev2, namespace: ev}
eventTime: "2024-01-01T00:00:00.000000Z"
reportingController: ctl
reportingInstance: ctl-1
action: Act
reason: Why
regarding: {kind: Pod, name: p1, namespace: ev}
note: hi
type: Normal
Y
my $e1 = $s->get_json('/apis/events.k8s.io/v1/namespaces/ev/events/ev1');
is($e1->{note}, 'hello', 'message is note');
is_deeply($e1->{regarding}, { kind => 'Pod', name => 'p1', namespace => 'ev' }, 'involvedObject is regarding');
is_deeply($e1->{deprecatedSource}, { component => 'kubelet', host => 'n1' }, 'source is deprecatedSource');
is($e1->{deprecatedCount}, 3, 'count is deprecatedCount');
my $e2 = $s->get_json('/api/v1/namespaces/ev/events/ev2');
is($e2->{reportingComponent}, 'ctl', 'reportingController is reportingComponent');
is($e2->{message}, 'hi', 'note is message');
for my $resource ('events', 'events.v1.events.k8s.io') {
    like(scalar $s->kc_ok(undef, undef, 'get', $resource, '-n', 'ev'),
        qr/\ALAST\ SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n
           \S+\s+Normal\s+Started\s+pod\/p1\s+hello\n
           \S+\s+Normal\s+Why\s+pod\/p1\s+hi\n\z/x, "kubectl get $resource prints kube's table");
}
($st, $o) = $s->call(POST => '/apis/events.k8s.io/v1/namespaces/ev/events',
    { metadata => { name => 'bad' }, reason => 'R', type => 'Normal' });
is($st, 422, 'an event without eventTime at events.k8s.io/v1: 422');
is($o->{message}, 'Event "bad" is invalid: [involvedObject.namespace: Invalid value: "": does not '
    . 'match event.namespace, eventTime: Required value]', 'kube\'s message');

# TaintNodesByCondition.
$s->kc_ok(undef, 'create node', 'create', '-f', '-', { stdin => <<'Y' });
apiVersion: v1
kind: Node
metadata: {name: node-1}
Y
is(scalar $s->kc_ok(undef, undef, 'get', 'node', 'node-1', '-o', 'jsonpath={.spec.taints}'),
    '[{"effect":"NoSchedule","key":"node.kubernetes.io/not-ready"}]', 'a new node is not ready');

ok($s->stop, 'stopped cleanly');
done_testing();
