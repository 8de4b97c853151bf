# The status and scale subresources, as kube-apiserver serves them.
# Over HTTP: deployments/<name>/scale reads and writes an autoscaling/v1
# Scale (GET, PUT, the three patch types; JSON, YAML and protobuf bodies;
# JSON, Table and protobuf answers), with kube's 409 on a stale
# resourceVersion or another uid, 422 on a negative count, 404 naming the
# parent resource, and MODIFIED for watchers of the parent; replicasets and
# statefulsets scale the same way. <resource>/<name>/status writes only the
# status (and what metadata the kind's status strategy lets through),
# keeps the generation, and is validated by the status strategy; a
# subresource a kind does not list is 404, a verb it does not list 405.
# Discovery and OpenAPI show them. Through every kubectl 1.27-1.33: scale
# (plain and --current-replicas) of a deployment, a statefulset and a
# replicaset, get --subresource=status|scale, patch --subresource=status.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);

sub conflict {
    my ($resource, $name, $why) = @_;
    my ($group, $kind) = $resource =~ /^([^.]+)\.(.+)$/ ? ($2, $1) : ('', $resource);
    return { kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
        message => "Operation cannot be fulfilled on $resource \"$name\": $why",
        reason => 'Conflict', details => { name => $name, group => $group, kind => $kind },
        code => 409 };
}

my $stale = 'the object has been modified; please apply your changes to the latest version '
    . 'and try again';

sub workload {
    my ($name, $replicas, %extra) = @_;
    return encode_json({ metadata => { name => $name, labels => { app => $name } },
        spec => { replicas => $replicas, %extra,
            selector => { matchLabels => { app => $name } },
            template => { metadata => { labels => { app => $name } },
                spec => { containers => [ { name => 'c', image => 'nginx' } ] } } } });
}

my ($st, $o, $r) = $s->call(POST => '/api/v1/namespaces', '{"metadata":{"name":"sub"}}');
is($st, 201, 'namespace sub');
my $deploys = '/apis/apps/v1/namespaces/sub/deployments';
($st, $o) = $s->call(POST => $deploys, workload('web', 2));
is($st, 201, 'deployment web');
my $uid = $o->{metadata}{uid};
my $scale = "$deploys/web/scale";

# --- GET scale -------------------------------------------------------------------------

($st, $o) = $s->call(GET => $scale);
is($st, 200, 'GET deployments/web/scale: 200');
my $rv = $o->{metadata}{resourceVersion};
is_deeply($o, { kind => 'Scale', apiVersion => 'autoscaling/v1',
        metadata => { name => 'web', namespace => 'sub', uid => $uid, resourceVersion => $rv,
            creationTimestamp => $o->{metadata}{creationTimestamp} },
        spec => { replicas => 2 }, status => { replicas => 0, selector => 'app=web' } },
    'GET scale: the Scale kube builds from the deployment');
like($o->{metadata}{creationTimestamp}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    'GET scale: the deployment\'s creationTimestamp');

($st, $o) = $s->call(GET => $scale, undef,
    headers => { Accept => 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
is($st, 200, 'GET scale as a Table: 200');
is_deeply([ map { "$_->{name}:$_->{type}" } @{ $o->{columnDefinitions} } ],
    [ 'Name:string', 'Desired:integer', 'Available:integer', 'Age:string' ],
    'GET scale as a Table: kube\'s Scale columns');
is_deeply([ @{ $o->{rows}[0]{cells} }[0 .. 2] ], [ 'web', 2, 0 ], 'GET scale as a Table: the row');

my $PB = 'application/vnd.kubernetes.protobuf';
$r = $s->request(GET => $scale, headers => { Accept => "$PB,application/json" });
is($r->{status}, 200, 'GET scale in protobuf: 200');
is($r->{headers}{'content-type'}, $PB, 'GET scale in protobuf: the protobuf media type');
my $unknown = eval { pb_msg(substr($r->{body}, 4)) } || {};
my $tm = eval { pb_msg($unknown->{1} // '') } || {};
is_deeply([ $tm->{1}, $tm->{2} ], [ 'autoscaling/v1', 'Scale' ],
    'GET scale in protobuf: an autoscaling/v1 Scale envelope');
my $pbScale = eval { pb_msg($unknown->{2} // '') } || {};
is(eval { pb_msg($pbScale->{2})->{1} }, 2, 'GET scale in protobuf: spec.replicas');
is(eval { pb_msg($pbScale->{3})->{2} }, 'app=web', 'GET scale in protobuf: status.selector');

# --- PATCH and PUT scale -----------------------------------------------------------------

($st, $o) = $s->call(GET => "$deploys/web");
my $before = $o->{metadata}{resourceVersion};
($st, $o) = $s->patch(merge => $scale, '{"spec":{"replicas":5}}');
is($st, 200, 'merge patch of the scale (kubectl scale): 200');
is($o->{kind}, 'Scale', '... answers with the Scale');
is($o->{spec}{replicas}, 5, '... with the new count');
($st, $o) = $s->call(GET => "$deploys/web");
is($o->{spec}{replicas}, 5, 'the deployment has 5 replicas');
is($o->{metadata}{generation}, 2, 'a scale is a spec change: the generation bumped');

$r = $s->request(GET => "$deploys?watch=true&resourceVersion=$before&timeoutSeconds=1");
my @events = map { decode_json($_) } grep { length } split /\n/, $r->{body};
is_deeply([ map { "$_->{type}:$_->{object}{spec}{replicas}" } @events ], [ 'MODIFIED:5' ],
    'a watcher of deployments sees the scale as MODIFIED');

($st, $o) = $s->patch(json => $scale, '[{"op":"replace","path":"/spec/replicas","value":4}]');
is_deeply([ $st, $o->{spec}{replicas} ], [ 200, 4 ], 'JSON patch of the scale');
($st, $o, $r) = $s->patch(smp => $scale, '{"spec":{"replicas":3,"bogus":1}}');
is_deeply([ $st, $o->{spec}{replicas} ], [ 200, 3 ], 'strategic merge patch of the scale');
is($r->{headers}{warning}, '299 - "unknown field \"spec.bogus\""',
    '... an unknown Scale field is a warning');
($st, $o) = $s->patch(merge => "$scale?dryRun=All", '{"spec":{"replicas":8}}');
is_deeply([ $st, $o->{spec}{replicas} ], [ 200, 8 ], 'dryRun: answers the scaled Scale');
($st, $o) = $s->call(GET => $scale);
is($o->{spec}{replicas}, 3, 'dryRun: nothing stored');
$rv = $o->{metadata}{resourceVersion};

my $invalid = { kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
    message => 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: '
        . 'must be greater than or equal to 0',
    reason => 'Invalid', code => 422,
    details => { name => 'web', group => 'autoscaling', kind => 'Scale',
        causes => [ { reason => 'FieldValueInvalid', field => 'spec.replicas',
            message => 'Invalid value: -1: must be greater than or equal to 0' } ] } };
($st, $o) = $s->patch(merge => $scale, '{"spec":{"replicas":-1}}');
is($st, 422, 'a negative count is 422');
is_deeply($o, $invalid, '... with kube\'s Invalid Status for the Scale');
($st, $o) = $s->call(PUT => $scale, '{"metadata":{"name":"web"},"spec":{"replicas":-1}}');
is_deeply([ $st, $o ], [ 422, $invalid ], 'PUT of a negative count: the same 422');

($st, $o) = $s->call(PUT => $scale, encode_json({ apiVersion => 'autoscaling/v1', kind => 'Scale',
    metadata => { name => 'web', namespace => 'sub', resourceVersion => $rv },
    spec => { replicas => 6 } }));
is_deeply([ $st, $o->{spec}{replicas} ], [ 200, 6 ],
    'PUT of a Scale with the current resourceVersion (kubectl scale --current-replicas)');
($st, $o) = $s->call(PUT => $scale, encode_json({ metadata => { name => 'web',
    resourceVersion => $rv }, spec => { replicas => 1 } }));
is($st, 409, 'PUT of a Scale with a stale resourceVersion: 409');
is_deeply($o, conflict('deployments.apps', 'web', $stale), '... kube\'s Conflict on the deployment');
($st, $o) = $s->call(PUT => $scale, '{"metadata":{"name":"web","uid":"0-other"},"spec":{"replicas":1}}');
is_deeply([ $st, $o ], [ 409, conflict('deployments/scale.apps', 'web',
        "Precondition failed: UID in precondition: 0-other, UID in object meta: $uid") ],
    'PUT of a Scale with another uid: 409 on deployments/scale');
($st, $o) = $s->call(PUT => $scale, '{"metadata":{"name":"other"},"spec":{"replicas":1}}');
is_deeply([ $st, $o->{message} ],
    [ 400, 'the name of the object (other) does not match the name on the URL (web)' ],
    'PUT of a Scale naming another object: 400');
($st, $o) = $s->call(PUT => $scale, '{"kind":"Deployment","metadata":{"name":"web"}}');
is_deeply([ $st, $o->{message} ], [ 400, 'Deployment in version "v1" cannot be handled as a '
        . 'Scale: the kind of the object (Deployment) does not match the kind of the resource '
        . '(Scale)' ], 'PUT of something that is not a Scale: 400');
($st, $o) = $s->call(PUT => $scale, '{"metadata":{"name":"web"},"spec":{"replicas":"two"}}');
is_deeply([ $st, $o->{message} ], [ 400, 'Scale in version "v1" cannot be handled as a Scale: '
        . 'json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type '
        . 'int32' ], 'PUT of a Scale with a string count: 400');

($st, $o) = $s->call(PUT => $scale, "metadata:\n  name: web\nspec:\n  replicas: 7\n",
    type => 'application/yaml');
is_deeply([ $st, $o->{spec}{replicas} ], [ 200, 7 ], 'PUT of a Scale in YAML');
my $pbBody = pb_envelope('autoscaling/v1', 'Scale',
    pb_bytes(1, pb_bytes(1, 'web') . pb_bytes(3, 'sub')) . pb_bytes(2, pb_int(1, 4)));
$r = $s->request(PUT => $scale, headers => { 'Content-Type' => $PB }, body => $pbBody);
is($r->{status}, 200, 'PUT of a Scale in protobuf: 200');
is(eval { decode_json($r->{body})->{spec}{replicas} }, 4, '... the count it carries is stored');

my $notFound = { kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
    message => 'deployments.apps "nosuch" not found', reason => 'NotFound',
    details => { name => 'nosuch', group => 'apps', kind => 'deployments' }, code => 404 };
for my $call ([ GET => undef ], [ PUT => '{"metadata":{"name":"nosuch"},"spec":{}}' ]) {
    ($st, $o) = $s->call($call->[0], "$deploys/nosuch/scale", $call->[1]);
    is_deeply([ $st, $o ], [ 404, $notFound ], "$call->[0] scale of a missing deployment: 404");
}
($st, $o) = $s->patch(merge => "$deploys/nosuch/scale", '{"spec":{"replicas":1}}');
is_deeply([ $st, $o ], [ 404, $notFound ], 'PATCH scale of a missing deployment: 404');

# ReplicaSets and StatefulSets scale the same way.
for my $kind ([ replicasets => workload('rs', 1) ],
              [ statefulsets => workload('ss', 1, serviceName => 'ss') ]) {
    my ($resource, $body) = @$kind;
    my $name = decode_json($body)->{metadata}{name};
    my $base = "/apis/apps/v1/namespaces/sub/$resource";
    ($st) = $s->call(POST => $base, $body);
    is($st, 201, "$resource $name");
    ($st, $o) = $s->patch(merge => "$base/$name/scale", '{"spec":{"replicas":3}}');
    is_deeply([ $st, $o->{kind}, $o->{spec}{replicas}, $o->{status}{selector} ],
        [ 200, 'Scale', 3, "app=$name" ], "$resource/scale: patched");
    ($st, $o) = $s->call(GET => "$base/$name");
    is($o->{spec}{replicas}, 3, "$resource: the count is stored");
}

# --- status ------------------------------------------------------------------------------

my $status = "$deploys/web/status";
($st, $o) = $s->call(GET => $status);
is_deeply([ $st, $o->{kind}, $o->{metadata}{name} ], [ 200, 'Deployment', 'web' ],
    'GET deployments/web/status: the deployment');
my $generation = $o->{metadata}{generation};
$o->{spec}{replicas} = 20;
$o->{status} = { replicas => 4, readyReplicas => 3, availableReplicas => 3,
    observedGeneration => $generation };
$o->{metadata}{labels}{added} = 'no';
$o->{metadata}{annotations} = { note => 'yes' };
($st, $o) = $s->call(PUT => $status, encode_json($o));
is($st, 200, 'PUT of the status: 200');
is_deeply($o->{status}, { replicas => 4, readyReplicas => 3, availableReplicas => 3,
        observedGeneration => $generation }, '... the status is stored');
is($o->{spec}{replicas}, 4, '... the spec is not');
is($o->{metadata}{generation}, $generation, '... the generation stays');
is_deeply($o->{metadata}{labels}, { app => 'web' },
    '... a deployment\'s labels stay (its status strategy)');
is_deeply($o->{metadata}{annotations}, { note => 'yes' }, '... annotations may change');
$rv = $o->{metadata}{resourceVersion};

($st, $o) = $s->patch(merge => $status, '{"status":{"observedGeneration":9},"spec":{"paused":true}}');
is_deeply([ $st, $o->{status}{observedGeneration}, $o->{spec}{paused} ], [ 200, 9, undef ],
    'merge patch of the status: status changed, spec not');
($st, $o) = $s->patch(merge => $status, qq({"metadata":{"resourceVersion":"$rv"},"status":{}}));
is_deeply([ $st, $o ], [ 409, conflict('deployments.apps', 'web', $stale) ],
    'a status patch with a stale resourceVersion: 409');
($st, $o) = $s->patch(merge => "$status?dryRun=All", '{"status":{"replicas":1,"readyReplicas":1,'
    . '"availableReplicas":1}}');
is_deeply([ $st, $o->{status}{replicas} ], [ 200, 1 ], 'dryRun status patch: answers the change');
($st, $o) = $s->call(GET => $status);
is($o->{status}{replicas}, 4, 'dryRun status patch: nothing stored');

($st, $o) = $s->patch(merge => $status, '{"status":{"replicas":-1}}');
is($st, 422, 'a status the status strategy rejects: 422');
is($o->{message}, 'Deployment.apps "web" is invalid: [status.replicas: Invalid value: -1: must '
    . 'be greater than or equal to 0, status.updatedReplicas: Invalid value: 0: cannot be '
    . 'greater than status.replicas, status.readyReplicas: Invalid value: 3: cannot be greater '
    . 'than status.replicas, status.availableReplicas: Invalid value: 3: cannot be greater than '
    . 'status.replicas]', '... with kube\'s messages');
$o = do { my (undef, $d) = $s->call(GET => $status); $d };
$o->{status}{bogus} = 1;
($st, $o) = $s->call(PUT => "$status?fieldValidation=Strict", encode_json($o));
is_deeply([ $st, $o->{message} ], [ 400, 'Deployment in version "v1" cannot be handled as a '
        . 'Deployment: strict decoding error: unknown field "status.bogus"' ],
    'fieldValidation=Strict applies to status writes');

($st, $o) = $s->patch(merge => "$deploys/web", '{"status":{"replicas":0}}');
is_deeply([ $st, $o->{status}{replicas} ], [ 200, 4 ], 'the deployment itself still ignores status');

($st, $o) = $s->patch(merge => '/api/v1/namespaces/sub/status', '{"status":{"phase":"Terminating"}}');
is_deeply([ $st, $o->{message} ], [ 422, 'Namespace "sub" is invalid: status.Phase: Invalid '
        . 'value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty' ],
    'namespaces/status: the phase follows deletionTimestamp');
($st, $o) = $s->patch(merge => '/api/v1/namespaces/sub/status', '{"metadata":{"labels":{"l":"1"}}}');
is_deeply([ $st, $o->{metadata}{labels}{l}, $o->{status}{phase} ], [ 200, 1, 'Active' ],
    'namespaces/status: other changes are fine');

# A real owner: the garbage collector deletes a pod whose owner does not exist.
my (undef, $owner) = $s->call(POST => '/api/v1/namespaces/sub/configmaps',
    encode_json({ metadata => { name => 'owner' } }));
($st) = $s->call(POST => '/api/v1/namespaces/sub/pods', encode_json({ metadata => { name => 'p',
    ownerReferences => [ { apiVersion => 'v1', kind => 'ConfigMap', name => 'owner',
        uid => $owner->{metadata}{uid} } ] },
    spec => { containers => [ { name => 'c', image => 'nginx' } ] } }));
is($st, 201, 'pod p');
($st, $o) = $s->patch(merge => '/api/v1/namespaces/sub/pods/p/status',
    '{"metadata":{"ownerReferences":null},"status":{"phase":"Running"}}');
is_deeply([ $st, $o->{status}{phase}, scalar @{ $o->{metadata}{ownerReferences} || [] } ],
    [ 200, 'Running', 1 ], 'pods/status: the phase changes, ownerReferences stay');

# --- routes --------------------------------------------------------------------------------

my $noRoute = { kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
    message => 'the server could not find the requested resource', reason => 'NotFound',
    details => {}, code => 404 };
($st) = $s->call(POST => '/api/v1/namespaces/sub/configmaps', '{"metadata":{"name":"c"}}');
for my $path ('/api/v1/namespaces/sub/configmaps/c/status', "$deploys/web/rollback",
              '/api/v1/namespaces/sub/pods/p/scale') {
    ($st, $o) = $s->call(GET => $path);
    is_deeply([ $st, $o ], [ 404, $noRoute ], "GET $path: a subresource the kind lacks is 404");
}
for my $call ([ DELETE => $status ], [ POST => $scale ]) {
    ($st, $o) = $s->call(@$call, '{}');
    is_deeply([ $st, $o->{reason} ], [ 405, 'MethodNotAllowed' ],
        "$call->[0] $call->[1]: a verb the subresource lacks is 405");
}

# --- discovery and OpenAPI -------------------------------------------------------------------

($st, $o) = $s->call(GET => '/apis/apps/v1');
my %byName = map { $_->{name} => $_ } @{ $o->{resources} };
is_deeply($byName{'deployments/scale'}, { name => 'deployments/scale', singularName => '',
        namespaced => JSON::PP::true, group => 'autoscaling', version => 'v1', kind => 'Scale',
        verbs => [qw(get patch update)] }, 'discovery: deployments/scale');
is_deeply($byName{'deployments/status'}, { name => 'deployments/status', singularName => '',
        namespaced => JSON::PP::true, kind => 'Deployment', verbs => [qw(get patch update)] },
    'discovery: deployments/status');
is_deeply([ grep { m{/} } map { $_->{name} } @{ $o->{resources} } ],
    [ qw(daemonsets/status deployments/scale deployments/status replicasets/scale
         replicasets/status statefulsets/scale statefulsets/status) ],
    'discovery: the apps/v1 subresources, each after its resource');

($st, $o) = $s->call(GET => '/openapi/v3/apis/apps/v1');
my $item = $o->{paths}{'/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'} || {};
is_deeply([ sort grep { $_ ne 'parameters' } keys %$item ], [qw(get patch put)],
    'OpenAPI v3: deployments/{name}/scale has get, put and patch');
ok((grep { ($_->{name} // '') eq 'fieldValidation' } @{ $item->{patch}{parameters} || [] }),
    'OpenAPI v3: the scale PATCH lists fieldValidation');
is_deeply($item->{patch}{'x-kubernetes-group-version-kind'},
    { group => 'autoscaling', version => 'v1', kind => 'Scale' },
    'OpenAPI v3: the scale PATCH answers an autoscaling/v1 Scale');

# --- kubectl ---------------------------------------------------------------------------------

sub every_version {
    my ($v, $ns) = @_;
    $s->kc_ok($v, 'create namespace', 'create', 'namespace', $ns);
    $s->kc_ok($v, 'create deployment', '-n', $ns, 'create', 'deployment', 'web', '--image=nginx',
        '--replicas=2');
    my $out = $s->kc_ok($v, 'scale', '-n', $ns, 'scale', 'deployment', 'web', '--replicas=5');
    is($out, "deployment.apps/web scaled\n", "$v scale: prints scaled");
    is($s->kc_json($v, '-n', $ns, 'get', 'deployment', 'web')->{spec}{replicas}, 5,
        "$v scale: get -o json shows 5");
    $out = $s->kc_ok($v, 'scale --current-replicas', '-n', $ns, 'scale', 'deployment', 'web',
        '--current-replicas=5', '--replicas=2');
    is($out, "deployment.apps/web scaled\n", "$v scale --current-replicas: prints scaled");
    is($s->kc_json($v, '-n', $ns, 'get', 'deployment', 'web')->{spec}{replicas}, 2,
        "$v scale --current-replicas: 2 stored");
    my ($rc, undef, $err) = $s->kc($v, '-n', $ns, 'scale', 'deployment', 'web',
        '--current-replicas=7', '--replicas=1');
    is($rc, 1, "$v scale with a wrong --current-replicas: exit 1");
    like($err, qr/Expected replicas to be 7, was 2/, "$v: ... kubectl's precondition message");

    for my $kind ([ statefulsets => 'statefulset', workload('ss', 1, serviceName => 'ss') ],
                  [ replicasets => 'replicaset', workload('rs', 1) ]) {
        my ($resource, $singular, $body) = @$kind;
        my $name = decode_json($body)->{metadata}{name};
        my ($st) = $s->call(POST => "/apis/apps/v1/namespaces/$ns/$resource", $body);
        is($st, 201, "$v: $resource $name");
        my $short = $singular eq 'replicaset' ? 'rs' : $singular;
        $out = $s->kc_ok($v, "scale $short", '-n', $ns, 'scale', $short, $name, '--replicas=3');
        is($out, "$singular.apps/$name scaled\n", "$v scale $short: prints scaled");
        is($s->kc_json($v, '-n', $ns, 'get', $singular, $name)->{spec}{replicas}, 3,
            "$v scale $short: 3 stored");
    }

    $out = $s->kc_ok($v, 'get --subresource=scale', '-n', $ns, 'get', 'deployment', 'web',
        '--subresource=scale');
    like($out, qr/^NAME\s+DESIRED\s+AVAILABLE\s+AGE\nweb\s+2\s+0\s+\S+\n$/,
        "$v get --subresource=scale: kube's Scale table");
    my $d = $s->kc_json($v, '-n', $ns, 'get', 'deployment', 'web', '--subresource=status');
    is_deeply([ $d->{kind}, $d->{metadata}{name}, $d->{spec}{replicas} ], [ 'Deployment', 'web', 2 ],
        "$v get --subresource=status -o json: the deployment");
    $out = $s->kc_ok($v, 'patch --subresource=status', '-n', $ns, 'patch', 'deployment', 'web',
        '--subresource=status', '--type=merge', '-p', '{"status":{"observedGeneration":1}}');
    is($out, "deployment.apps/web patched\n", "$v patch --subresource=status: prints patched");
    $d = $s->kc_json($v, '-n', $ns, 'get', 'deployment', 'web');
    is($d->{status}{observedGeneration}, 1, "$v patch --subresource=status: the status is stored");
}

my @versions = kubectl_versions();
ok(scalar @versions, 'kubectl versions installed: ' . join(' ', @versions));
for my $v (@versions) {
    my ($minor) = $v =~ /^1\.(\d+)$/;
    subtest "kubectl $v" => sub { every_version($v, "sub-1-$minor") };
}

my $log = $s->error_log_since_start;
is_deeply([ $s->fatal_lines($log) ], [], 'error.log: no alert, crit or emerg');
is_deeply([ grep { /\[error\]/ } split /\n/, $log ], [], 'error.log: no [error]');
ok($s->stop, 'nginx stops cleanly');
done_testing();
