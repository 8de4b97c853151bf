# pods/eviction and the other core/v1 subresources, each answer as
# kube-apiserver 1.26.5's: an eviction deletes a pod that is not running at
# once, takes one disruption from the pod's PodDisruptionBudget (its status
# written before the pod goes, as kube-apiserver writes it) or answers 429
# when the budget allows none, 500 for a pod with two budgets; dryRun and
# deleteOptions are honoured, a policy/v1beta1 body accepted; nodes/status
# and services/status change only the status. kubectl drain
# (1.32 and 1.27) of a node evicts what its PDB allows and retries the rest
# until its timeout. pods/log, exec, attach, portforward and the proxy
# subresources resolve pod, node and service as kube does and answer the
# failure of a kubelet this server never connects to; ephemeralcontainers
# adds containers and refuses changes; namespaces/finalize writes the
# namespace's finalizers. Discovery lists them all as kube does.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);

sub failure {
    my ($code, $reason, $message, $details) = @_;
    return { kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
        message => $message, (defined $reason ? (reason => $reason) : ()),
        (defined $details ? (details => $details) : ()), code => $code };
}
my $Success = { kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Success',
    code => 201 };
my $Budget = q{Cannot evict pod as it would violate the pod's disruption budget.};

my ($st, $o, $r);

# --- discovery ----------------------------------------------------------------------------
($st, $o) = $s->call(GET => '/api/v1');
my @subs = map { my %e = %$_; delete $e{singularName}; \%e }
    grep { $_->{name} =~ m{^(pods|nodes|services|namespaces)/} } @{ $o->{resources} };
is_deeply(\@subs, [
    {'name' => 'namespaces/finalize', 'namespaced' => JSON::PP::false(), 'kind' => 'Namespace', 'verbs' => [ 'update' ]},
    {'name' => 'namespaces/status', 'namespaced' => JSON::PP::false(), 'kind' => 'Namespace', 'verbs' => [ 'get', 'patch', 'update' ]},
    {'name' => 'nodes/proxy', 'namespaced' => JSON::PP::false(), 'kind' => 'NodeProxyOptions', 'verbs' => [ 'create', 'delete', 'get', 'patch', 'update' ]},
    {'name' => 'nodes/status', 'namespaced' => JSON::PP::false(), 'kind' => 'Node', 'verbs' => [ 'get', 'patch', 'update' ]},
    {'name' => 'pods/attach', 'namespaced' => JSON::PP::true(), 'kind' => 'PodAttachOptions', 'verbs' => [ 'create', 'get' ]},
    {'name' => 'pods/binding', 'namespaced' => JSON::PP::true(), 'kind' => 'Binding', 'verbs' => [ 'create' ]},
    {'name' => 'pods/ephemeralcontainers', 'namespaced' => JSON::PP::true(), 'kind' => 'Pod', 'verbs' => [ 'get', 'patch', 'update' ]},
    {'name' => 'pods/eviction', 'namespaced' => JSON::PP::true(), 'group' => 'policy', 'version' => 'v1', 'kind' => 'Eviction', 'verbs' => [ 'create' ]},
    {'name' => 'pods/exec', 'namespaced' => JSON::PP::true(), 'kind' => 'PodExecOptions', 'verbs' => [ 'create', 'get' ]},
    {'name' => 'pods/log', 'namespaced' => JSON::PP::true(), 'kind' => 'Pod', 'verbs' => [ 'get' ]},
    {'name' => 'pods/portforward', 'namespaced' => JSON::PP::true(), 'kind' => 'PodPortForwardOptions', 'verbs' => [ 'create', 'get' ]},
    {'name' => 'pods/proxy', 'namespaced' => JSON::PP::true(), 'kind' => 'PodProxyOptions', 'verbs' => [ 'create', 'delete', 'get', 'patch', 'update' ]},
    {'name' => 'pods/status', 'namespaced' => JSON::PP::true(), 'kind' => 'Pod', 'verbs' => [ 'get', 'patch', 'update' ]},
    {'name' => 'services/proxy', 'namespaced' => JSON::PP::true(), 'kind' => 'ServiceProxyOptions', 'verbs' => [ 'create', 'delete', 'get', 'patch', 'update' ]},
    {'name' => 'services/status', 'namespaced' => JSON::PP::true(), 'kind' => 'Service', 'verbs' => [ 'get', 'patch', 'update' ]},
], '/api/v1: the core subresources, their kinds and verbs, as kube lists them');

# --- set-up ---------------------------------------------------------------------------
my $N = '/api/v1/namespaces/ev';
my $P = '/apis/policy/v1/namespaces/ev/poddisruptionbudgets';
($st) = $s->call(POST => '/api/v1/namespaces', { metadata => { name => 'ev' } });
is($st, 201, 'namespace ev');

# pod($name, %o): a pod with labels {app => $o{app}} on node $o{node}, its
# phase and Ready condition set through the status subresource
sub pod {
    my ($name, %o) = @_;
    my ($code, $body) = $s->call(POST => $o{ns} // $N . '/pods', { metadata => { name => $name,
                ($o{app} ? (labels => { app => $o{app} }) : ()) },
            spec => { ($o{node} ? (nodeName => $o{node}) : ()),
                containers => [ { name => 'c', image => 'nginx' } ] } });
    die "pod $name: $code" unless $code == 201;
    return unless $o{phase};
    ($code) = $s->patch(merge => ($o{ns} // $N . '/pods') . "/$name/status",
        { status => { phase => $o{phase},
                conditions => [ { type => 'Ready', status => $o{ready} ? 'True' : 'False' } ] } });
    die "pod $name status: $code" unless $code == 200;
}

# budget($name, $selector_app, %status): a PDB whose status is then set as
# the disruption controller would
sub budget {
    my ($name, $app, %status) = @_;
    my ($code) = $s->call(POST => $P, { metadata => { name => $name },
            spec => { minAvailable => 1, selector => { matchLabels => { app => $app } } } });
    die "pdb $name: $code" unless $code == 201;
    set_budget($name, %status);
}

sub set_budget {
    my ($name, %status) = @_;
    my ($code, $body) = $s->patch(merge => "$P/$name/status", { status => {
                observedGeneration => 1, currentHealthy => 2, desiredHealthy => 1,
                expectedPods => 2, %status } });
    die "pdb $name status: $code " . encode_json($body) unless $code == 200;
}

sub evict {
    my ($name, $body, %o) = @_;
    $body //= { apiVersion => 'policy/v1', kind => 'Eviction', metadata => { name => $name } };
    return $s->call(POST => "$N/pods/$name/eviction" . ($o{query} // ''), $body);
}

sub exists_pod { return defined $s->get_json("$N/pods/$_[0]") }

# --- evictions without a budget -------------------------------------------------------
pod('pending');
($st, $o) = evict('pending');
is($st, 201, 'evict a pending pod: 201');
is_deeply($o, $Success, 'evict a pending pod: a Success Status');
ok(!exists_pod('pending'), 'evict a pending pod: deleted at once');

pod('p1');
($st, $o) = evict('p1', { apiVersion => 'policy/v1', kind => 'Eviction',
        metadata => { name => 'other' } });
is_deeply([ $st, $o ], [ 400, failure(400, 'BadRequest',
            'name in URL does not match name in Eviction object') ],
    'evict: a body naming another pod is 400');
($st, $o) = evict('nope');
is_deeply([ $st, $o ], [ 404, failure(404, 'NotFound', 'pods "nope" not found',
            { name => 'nope', kind => 'pods' }) ], 'evict a missing pod: 404');
($st, $o) = evict('p1', { apiVersion => 'v1', kind => 'Eviction', metadata => { name => 'p1' } });
is($st, 400, 'evict with a v1 body: 400');
($st, $o) = $s->call(GET => "$N/pods/p1/eviction");
is($st, 405, 'GET pods/p1/eviction: 405');
($st, $o) = evict('p1', { apiVersion => 'policy/v1', kind => 'Eviction', metadata => { name => 'p1' },
        deleteOptions => { dryRun => ['x'] } }, query => '?dryRun=All');
is_deeply([ $st, $o ], [ 500, failure(500, undef,
            'Non-matching dry-run options in request and content: [All] and [x]') ],
    'evict: dryRun in the query and another in deleteOptions is kube\'s 500');
($st, $o) = evict('p1', { apiVersion => 'policy/v1beta1', kind => 'Eviction',
        metadata => { name => 'p1' }, deleteOptions => { dryRun => ['All'] } });
is_deeply([ $st, $o ], [ 201, $Success ], 'evict with a policy/v1beta1 body and dryRun: 201');
ok(exists_pod('p1'), 'evict with dryRun: the pod stays');
($st, $o) = evict('p1', { apiVersion => 'policy/v1', kind => 'Eviction', metadata => { name => 'p1' },
        deleteOptions => { preconditions => { uid => 'not-the-uid' } } });
is($st, 409, 'evict with a uid precondition that fails: 409');
ok(exists_pod('p1'), 'evict with a failed precondition: the pod stays');

# --- budgets -------------------------------------------------------------------------------
pod($_, app => 'web', node => 'n1', phase => 'Running', ready => 1) for qw(r1 r2);
budget('web', 'web', disruptionsAllowed => 0);
($st, $o) = evict('r1');
is_deeply([ $st, $o ], [ 429, failure(429, 'TooManyRequests', $Budget, { causes => [ {
                    reason => 'DisruptionBudget',
                    message => 'The disruption budget web needs 1 healthy pods and has 2 currently' } ] }) ],
    'evict a pod whose budget allows no disruption: kube\'s 429 with a DisruptionBudget cause');
set_budget('web', observedGeneration => 0, disruptionsAllowed => 1);
$r = evict('r1');
is($r->{status}, 429, 'evict under a budget not yet observed: 429');
is($r->{headers}{'retry-after'}, '10', 'evict under a budget not yet observed: Retry-After: 10');
is_deeply(json_of($r->{body}), failure(429, 'TooManyRequests', $Budget, { causes => [ {
                reason => 'DisruptionBudget',
                message => 'The disruption budget web is still being processed by the server.' } ],
            retryAfterSeconds => 10 }), 'evict under a budget not yet observed: kube\'s body');

set_budget('web', disruptionsAllowed => 1);
($st, $o) = evict('r1', undef, query => '?dryRun=All');
is($st, 201, 'evict with dryRun=All under a budget that allows it: 201');
is($s->get_json("$P/web")->{status}{disruptionsAllowed}, 1, 'dryRun: the budget is unchanged');
($st, $o) = evict('r1');
is_deeply([ $st, $o ], [ 201, $Success ], 'evict a pod its budget allows: 201');
my $pdb = $s->get_json("$P/web");
my $when = $pdb->{status}{disruptedPods}{r1} // '';
like($when, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'the budget records the pod as disrupted');
is_deeply($pdb->{status}, { observedGeneration => 1, disruptedPods => { r1 => $when },
        disruptionsAllowed => 0, currentHealthy => 2, desiredHealthy => 1, expectedPods => 2,
        conditions => [ { type => 'DisruptionAllowed', status => 'False', observedGeneration => 1,
                lastTransitionTime => $when, reason => 'InsufficientPods', message => '' } ] },
    'the budget\'s status as kube-apiserver writes it: one disruption fewer, DisruptionAllowed False');
my ($mf) = grep { $_->{manager} eq 'kube-apiserver' } @{ $pdb->{metadata}{managedFields} };
is(($mf // {})->{subresource}, 'status', 'the budget was written by kube-apiserver through status');
my $pod = $s->get_json("$N/pods/r1");
ok($pod && $pod->{metadata}{deletionTimestamp}, 'the evicted pod (on a node) is terminating');
is($pod->{metadata}{deletionGracePeriodSeconds}, 30, '... with its grace period');
($st, $o) = evict('r2');
is($st, 429, 'the budget spent: the next eviction is 429');
($st, $o) = evict('r1', { apiVersion => 'policy/v1', kind => 'Eviction', metadata => { name => 'r1' },
        deleteOptions => { gracePeriodSeconds => 0 } });
is_deeply([ $st, $o ], [ 201, $Success ],
    'evict a terminating pod with gracePeriodSeconds 0: no budget consulted, 201');
ok(!exists_pod('r1'), '... and the pod is gone');

# An unready pod of a budget that is met goes without a disruption.
pod('u1', app => 'web', node => 'n1', phase => 'Running', ready => 0);
($st, $o) = evict('u1');
is($st, 201, 'evict an unready pod while its budget is met: 201');
ok($s->get_json("$N/pods/u1")->{metadata}{deletionTimestamp}, '... the pod terminates');
is($s->get_json("$P/web")->{metadata}{resourceVersion}, $pdb->{metadata}{resourceVersion},
    '... the budget is not written');

budget('web2', 'web', disruptionsAllowed => 5);
($st, $o) = evict('r2');
is_deeply([ $st, $o ], [ 500, failure(500, undef, 'This pod has more than one '
            . 'PodDisruptionBudget, which the eviction subresource does not support.') ],
    'evict a pod two budgets cover: kube\'s 500');
ok(exists_pod('r2'), '... the pod stays');

# --- connect subresources -------------------------------------------------------------------
pod('nohost');
pod('onnode', node => 'n9');
$r = $s->request(GET => "$N/pods/nohost/log");
is($r->{status}, 204, 'pods/log of a pod on no node: 204, as kube');
for my $sub (qw(exec attach portforward)) {
    ($st, $o) = $s->call(GET => "$N/pods/nohost/$sub");
    is_deeply([ $st, $o ], [ 400, failure(400, 'BadRequest',
                'pod nohost does not have a host assigned') ], "pods/$sub of a pod on no node: 400");
}
($st, $o) = $s->call(GET => "$N/pods/nope/log?tailLines=-2&sinceSeconds=5&sinceTime=2020-01-01T00:00:00Z");
is_deeply([ $st, $o->{message} ], [ 422, 'PodLogOptions "nope" is invalid: [tailLines: Invalid value: '
            . '-2: must be greater than or equal to 0, []: Forbidden: at most one of `sinceTime` or '
            . '`sinceSeconds` may be specified]' ], 'pods/log with invalid options: kube\'s 422');
($st, $o) = $s->call(GET => "$N/pods/nope/log?limitBytes=0&sinceSeconds=0");
is($o->{message}, 'PodLogOptions "nope" is invalid: [limitBytes: Invalid value: 0: must be greater '
    . 'than 0, sinceSeconds: Invalid value: 0: must be greater than 0]', 'pods/log: limitBytes, sinceSeconds');
($st, $o) = $s->call(GET => "$N/pods/nope/log?tailLines=x");
is_deeply([ $st, $o->{message} ], [ 400, 'strconv.ParseInt: parsing "x": invalid syntax' ],
    'pods/log with a tailLines that is no integer: 400');
($st, $o) = $s->call(GET => "$N/pods/onnode/log?container=zz");
is_deeply([ $st, $o ], [ 400, failure(400, 'BadRequest', 'container zz is not valid for pod onnode') ],
    'pods/log of a container the pod lacks: 400');
($st, $o) = $s->call(POST => "$N/pods/onnode/exec?command=ls");
is_deeply([ $st, $o ], [ 404, failure(404, 'NotFound', 'pods "n9" not found',
            { name => 'n9', kind => 'pods' }) ], 'pods/exec on a node that does not exist: kube\'s 404');
($st) = $s->call(POST => '/api/v1/nodes', { metadata => { name => 'n9' } });
($st, $o) = $s->call(GET => "$N/pods/onnode/log");
is_deeply([ $st, $o ], [ 500, failure(500, undef, 'no preferred addresses found; known addresses: []') ],
    'pods/log on a node without addresses: kube\'s 500');
$s->patch(merge => '/api/v1/nodes/n9/status', { status => {
            addresses => [ { type => 'InternalIP', address => '127.0.0.1' } ],
            daemonEndpoints => { kubeletEndpoint => { Port => 10250 } } } });
($st, $o) = $s->call(GET => "$N/pods/onnode/log");
is_deeply([ $st, $o ], [ 500, failure(500, undef, 'Get "https://127.0.0.1:10250/containerLogs/ev/'
            . 'onnode/c": this server does not connect to kubelets') ],
    'pods/log through a kubelet: the dial\'s 500');
for my $sub (qw(exec?command=ls attach portforward)) {
    for my $method (qw(GET POST)) {
        ($st, $o) = $s->call($method => "$N/pods/onnode/$sub");
        is_deeply([ $st, $o ], [ 400, failure(400, 'BadRequest', 'Upgrade request required') ],
            "$method pods/$sub without an upgrade: kube's 400 before the dial");
        ($st, $o) = $s->call($method => "$N/pods/onnode/$sub",
            undef, curl => 1, headers => { Connection => 'Upgrade', Upgrade => 'SPDY/3.1' });
        is_deeply([ $st, $o ], [ 500, failure(500, undef,
                    'error dialing backend: this server does not connect to kubelets') ],
            "$method pods/$sub asking for an upgrade: the dial's 500");
    }
}
($st, $o) = $s->call(GET => "$N/pods/onnode/proxy/x");
is_deeply([ $st, $o ], [ 400, failure(400, 'BadRequest', 'address not allowed') ],
    'pods/proxy to a pod without an IP: 400');
($st, $o) = $s->call(GET => '/api/v1/nodes/n9/proxy/x');
is_deeply([ $st, $o ], [ 400, failure(400, 'BadRequest', 'address not allowed') ],
    'nodes/proxy to a loopback kubelet: 400');
($st, $o) = $s->call(GET => '/api/v1/nodes/nope/proxy');
is($st, 404, 'nodes/proxy of a missing node: 404');
$s->call(POST => "$N/services", { metadata => { name => 'svc' },
        spec => { ports => [ { port => 80 } ] } });
($st, $o) = $s->call(GET => "$N/services/svc/proxy/x");
is_deeply([ $st, $o ], [ 404, failure(404, 'NotFound', 'services "svc" not found',
            { name => 'svc', kind => 'services' }) ], 'services/proxy without endpoints: kube\'s 404');
($st, $o) = $s->call(GET => "$N/services/svc:81/proxy/x");
is_deeply([ $st, $o ], [ 503, failure(503, 'ServiceUnavailable',
            'no service port 81 found for service "svc"') ], 'services/proxy to a port it lacks: 503');

# --- nodes/status and services/status: only the status (and metadata) changes ------------------
($st, $o) = $s->patch(merge => '/api/v1/nodes/n9/status', { spec => { unschedulable => JSON::PP::true() },
        metadata => { labels => { a => 'b' } }, status => { capacity => { cpu => '2' } } });
is_deeply([ $st, $o->{spec}{unschedulable}, $o->{status}{capacity}, $o->{metadata}{labels}{a} ],
    [ 200, undef, { cpu => '2' }, 'b' ], 'PATCH nodes/status: the status and labels change, the spec not');
($st, $o) = $s->patch(merge => "$N/services/svc/status", { spec => { ports => [ { port => 81 } ] },
        status => { loadBalancer => { ingress => [ { ip => '1.2.3.4' } ] } } });
is_deeply([ $st, $o->{spec}{ports}[0]{port}, $o->{status} ],
    [ 200, 80, { loadBalancer => { ingress => [ { ip => '1.2.3.4' } ] } } ],
    'PATCH services/status: the status changes, the spec not');

# --- ephemeral containers ------------------------------------------------------------------
($st, $o) = $s->call(GET => "$N/pods/onnode/ephemeralcontainers");
is_deeply([ $st, $o->{kind}, $o->{metadata}{name} ], [ 200, 'Pod', 'onnode' ],
    'GET pods/ephemeralcontainers: the pod');
($st, $o) = $s->patch(smp => "$N/pods/onnode/ephemeralcontainers", { metadata => { labels => { x => 'y' } },
        spec => { ephemeralContainers => [ { name => 'dbg', image => 'busybox',
                    targetContainerName => 'c' } ], containers => [ { name => 'c', image => 'other' } ] } });
is($st, 200, 'patch pods/ephemeralcontainers: 200');
is_deeply($o->{spec}{ephemeralContainers}, [ { name => 'dbg', image => 'busybox', resources => {},
            terminationMessagePath => '/dev/termination-log', terminationMessagePolicy => 'File',
            imagePullPolicy => 'Always', targetContainerName => 'c' } ],
    '... the ephemeral container added, defaulted');
is_deeply([ $o->{spec}{containers}[0]{image}, $o->{metadata}{labels} ], [ 'nginx', undef ],
    '... nothing else changed');
($st, $o) = $s->patch(merge => "$N/pods/onnode/ephemeralcontainers",
    { spec => { ephemeralContainers => [] } });
is_deeply([ $st, $o->{message} ], [ 422, qq{Pod "onnode" is invalid: spec.ephemeralContainers: }
            . qq{Forbidden: existing ephemeral containers "dbg" may not be removed\n} ],
    'removing an ephemeral container: 422');
($st, $o) = $s->patch(smp => "$N/pods/onnode/ephemeralcontainers",
    { spec => { ephemeralContainers => [ { name => 'dbg2', image => 'busybox',
                    ports => [ { containerPort => 80 } ] } ] } });
is_deeply([ $st, $o->{message} ], [ 422, 'Pod "onnode" is invalid: spec.ephemeralContainers[0]'
            . '.ports: Forbidden: cannot be set for an Ephemeral Container' ],
    'an ephemeral container with ports: 422');
($st, $o) = $s->call(PUT => "$N/pods/onnode/ephemeralcontainers", { apiVersion => 'v1',
        kind => 'Pod', metadata => { name => 'onnode' }, spec => {
            containers => [ { name => 'c', image => 'nginx' } ],
            ephemeralContainers => [ { name => 'dbg', image => 'busybox', targetContainerName => 'c' },
                { name => 'e3' } ] } });
is_deeply([ $st, $o->{message} ], [ 422,
        'Pod "onnode" is invalid: spec.ephemeralContainers[1].image: Required value' ],
    'PUT an ephemeral container without an image: 422');

# --- namespaces/finalize ---------------------------------------------------------------------
$s->call(POST => '/api/v1/namespaces', { metadata => { name => 'fin' } });
($st) = $s->call(GET => '/api/v1/namespaces/fin/finalize');
is($st, 405, 'GET namespaces/finalize: 405');
($st, $o) = $s->call(PUT => '/api/v1/namespaces/fin/finalize', { apiVersion => 'v1',
        kind => 'Namespace', metadata => { name => 'fin', labels => { a => 'b' } },
        spec => { finalizers => [ 'kubernetes', 'example.com/x' ] },
        status => { phase => 'Terminating' } });
is($st, 200, 'PUT namespaces/finalize: 200');
is_deeply([ $o->{spec}, $o->{status}, $o->{metadata}{labels} ],
    [ { finalizers => [ 'kubernetes', 'example.com/x' ] }, { phase => 'Active' },
        { a => 'b', 'kubernetes.io/metadata.name' => 'fin' } ],
    '... the finalizers and labels written, the status kept');
($st, $o) = $s->call(PUT => '/api/v1/namespaces/fin/finalize', { apiVersion => 'v1',
        kind => 'Namespace', metadata => { name => 'fin' }, spec => { finalizers => [ 'bad' ] } });
is_deeply([ $st, $o->{message} ], [ 422, 'Namespace "fin" is invalid: spec.finalizers[0]: '
            . 'Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified' ],
    'a finalizer that is neither standard nor qualified: 422');
($st, $o) = $s->call(PUT => '/api/v1/namespaces/fin/finalize', { apiVersion => 'v1',
        kind => 'Namespace', metadata => { name => 'other' }, spec => { finalizers => [] } });
is_deeply([ $st, $o->{message} ], [ 400,
        'the name of the object (other) does not match the name on the URL (fin)' ],
    'finalize naming another namespace: 400');

# --- authorization: each subresource's verb, as kube's RequestInfo reads it ---------------------
my $rbac = start_server(tls => 1, config => <<'CONF');
location / {
    kube_api;
    kube_authorization_mode RBAC;
}
CONF
my $jane = client_cert('jane');
for my $c (['GET', 'pods/g/log', 'get', 'pods/log'], ['POST', 'pods/g/exec', 'create', 'pods/exec'],
    ['GET', 'pods/g/exec', 'get', 'pods/exec'], ['DELETE', 'pods/g/proxy/x', 'delete', 'pods/proxy'],
    ['POST', 'pods/g/eviction', 'create', 'pods/eviction'],
    ['PATCH', 'pods/g/ephemeralcontainers', 'patch', 'pods/ephemeralcontainers'],
    ['POST', 'pods/g/portforward', 'create', 'pods/portforward'],
    ['GET', 'pods/g/attach', 'get', 'pods/attach']) {
    my ($method, $path, $verb, $resource) = @$c;
    ($st, $o) = $rbac->call($method => "$N/$path", '{}', type => 'application/merge-patch+json',
        cert => $jane);
    is_deeply([ $st, $o->{message} ], [ 403, qq{pods "g" is forbidden: User "jane" cannot $verb }
                . qq{resource "$resource" in API group "" in the namespace "ev"} ],
        "$method $resource as a user without rights: 403 naming $verb $resource");
}
($st, $o) = $rbac->call(PUT => '/api/v1/namespaces/x/finalize', '{}', cert => $jane);
is($o->{message}, 'namespaces "x" is forbidden: User "jane" cannot update resource '
    . '"namespaces/finalize" in API group "" in the namespace "x"', 'PUT namespaces/finalize: update');
($st, $o) = $rbac->call(GET => '/api/v1/nodes/n1/proxy/a/b', undef, cert => $jane);
is($o->{message}, 'nodes "n1" is forbidden: User "jane" cannot get resource "nodes/proxy" in '
    . 'API group "" at the cluster scope', 'GET nodes/proxy/<path>: get nodes/proxy');

# --- kubectl drain -------------------------------------------------------------------------
for my $v ('1.32', '1.27') {
    SKIP: {
        skip "kubectl $v is not installed", 8 unless grep { $_ eq $v } kubectl_versions();
        (my $tag = $v) =~ s/\.//;
        my $ns = "drain$tag";
        my $node = "node$tag";
        $s->call(POST => '/api/v1/namespaces', { metadata => { name => $ns } });
        $s->call(POST => '/api/v1/nodes', { metadata => { name => $node } });
        my $pods = "/api/v1/namespaces/$ns/pods";
        pod($_, ns => $pods, app => 'drain', node => $node, phase => 'Running', ready => 1)
            for qw(w1 w2 w3);
        pod('loner', ns => $pods, node => $node, phase => 'Running', ready => 1);
        pod('elsewhere', ns => $pods, app => 'drain', node => 'n1', phase => 'Running', ready => 1);
        my $pdbs = "/apis/policy/v1/namespaces/$ns/poddisruptionbudgets";
        $s->call(POST => $pdbs, { metadata => { name => 'd' },
                spec => { minAvailable => 2, selector => { matchLabels => { app => 'drain' } } } });
        $s->patch(merge => "$pdbs/d/status", { status => { observedGeneration => 1,
                    disruptionsAllowed => 1, currentHealthy => 3, desiredHealthy => 2,
                    expectedPods => 3 } });
        my ($rc, $out, $err) = $s->kc($v, 'drain', $node, '--ignore-daemonsets', '--force',
            '--grace-period=0', '--timeout=5s');
        my $all = "$out$err";
        is($rc, 1, "$v drain: exit 1 once its timeout is reached") or diag($all);
        like($all, qr{^pod/loner evicted$}m, "$v drain: the pod no budget covers is evicted");
        my @evicted = $all =~ m{^pod/(w\d) evicted$}mg;
        is(scalar @evicted, 1, "$v drain: one pod of the budget is evicted") or diag($all);
        like($all, qr{^error when evicting pods/"w\d" -n "$ns" \(will retry after 5s\): \Q$Budget\E$}m,
            "$v drain: the others are refused with 429, and retried");
        like($all, qr{global timeout reached: 5s}, "$v drain: until the timeout");
        my $left = $s->get_json($pods);
        is_deeply([ sort map { $_->{metadata}{name} } @{ $left->{items} } ],
            [ sort('elsewhere', grep { $_ ne ($evicted[0] // '') } qw(w1 w2 w3)) ],
            "$v drain: the budget's other pods and the other node's pod remain");
        my $b = $s->get_json("$pdbs/d");
        is_deeply([ $b->{status}{disruptionsAllowed}, [ keys %{ $b->{status}{disruptedPods} } ] ],
            [ 0, [ $evicted[0] // '' ] ], "$v drain: the budget's disruption taken, the pod recorded");
        ok($s->get_json("/api/v1/nodes/$node")->{spec}{unschedulable}, "$v drain: the node is cordoned");
    }
}

done_testing();
