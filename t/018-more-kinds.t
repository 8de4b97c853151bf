# LimitRange and NetworkPolicy, over TLS: create, get, list, replace and
# delete over HTTP (JSON and protobuf bodies) with their defaults and kube's
# validation errors; kubectl 1.32 creates them from files and prints them
# with kube's tables (get limits,netpol); and what kube refuses on update
# and admission, as kubectl users see it: a PriorityClass value or
# preemption policy changed by replace, a ResourceQuota's scopes changed,
# and a second globalDefault PriorityClass (the Priority admission plugin's
# 403).
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();

my $s = start_server(tls => 1);
my $ns = 'more-kinds';
my $Age = qr/\d+[smhd]\S*/;
my $Stamp = qr/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/;

$s->kc_ok(undef, 'create namespace', 'create', 'namespace', $ns);

# --- LimitRange over HTTP ---------------------------------------------------------------
my $lr_path = "/api/v1/namespaces/$ns/limitranges";
my ($st, $o, $raw) = $s->call('POST', $lr_path, encode_json({ apiVersion => 'v1',
    kind => 'LimitRange', metadata => { name => 'lr' },
    spec => { limits => [ { type => 'Container', max => { cpu => '2' },
        min => { cpu => '100m' }, default => { memory => '256Mi' } } ] } }));
is($st, 201, 'POST limitrange: 201') or diag($raw->{body});
json_subset_ok($o, { kind => 'LimitRange', apiVersion => 'v1',
    metadata => { name => 'lr', namespace => $ns, uid => qr/^[0-9a-f-]{36}$/ },
    spec => { limits => [ { type => 'Container', max => { cpu => '2' }, min => { cpu => '100m' },
        default => { cpu => '2', memory => '256Mi' },
        defaultRequest => { cpu => '2', memory => '256Mi' } } ] } },
    'POST limitrange: defaults filled from max and default');

($st, $o) = $s->call('GET', "$lr_path/lr");
is($st, 200, 'GET limitrange: 200');
is($o->{spec}{limits}[0]{defaultRequest}{memory}, '256Mi', 'GET limitrange: stored defaults');

($st, $o) = $s->call('GET', $lr_path);
is($st, 200, 'LIST limitranges: 200');
is($o->{kind}, 'LimitRangeList', 'LIST limitranges: a LimitRangeList');
is_deeply([ map { $_->{metadata}{name} } @{ $o->{items} || [] } ], ['lr'],
    'LIST limitranges: the one limit range');

my (undef, $put) = $s->call('GET', "$lr_path/lr");
$put->{spec}{limits}[0]{max}{memory} = '1Gi';
($st, $o, $raw) = $s->call('PUT', "$lr_path/lr", encode_json($put));
is($st, 200, 'PUT limitrange: 200') or diag($raw->{body});
is($o->{spec}{limits}[0]{max}{memory}, '1Gi', 'PUT limitrange: the new max is stored');

($st, $o) = $s->call('POST', $lr_path, encode_json({ apiVersion => 'v1', kind => 'LimitRange',
    metadata => { name => 'bad' }, spec => { limits => [ { type => 'Pod',
        default => { cpu => '1' } } ] } }));
is($st, 422, 'POST limitrange with defaults for pods: 422');
is($o->{reason}, 'Invalid', 'POST limitrange with defaults for pods: Invalid');
is($o->{message}, q{LimitRange "bad" is invalid: spec.limits[0].default: Forbidden: }
    . q{may not be specified when `type` is 'Pod'},
    'POST limitrange with defaults for pods: kube\'s message');

($st, $o) = $s->call('POST', $lr_path, encode_json({ apiVersion => 'v1', kind => 'LimitRange',
    metadata => { name => 'inverted' }, spec => { limits => [ { type => 'Container',
        max => { cpu => '1' }, min => { cpu => '2' } } ] } }));
is($st, 422, 'POST limitrange with min above max: 422');
is($o->{details}{causes}[0]{field}, 'spec.limits[0].min[cpu]',
    'POST limitrange with min above max: the field');
is($o->{details}{causes}[0]{message}, 'Invalid value: resource.Quantity{i:resource.int64Amount'
    . '{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", '
    . 'Format:"DecimalSI"}: min value 2 is greater than max value 1',
    'POST limitrange with min above max: the quantity as Go prints it');

# --- NetworkPolicy over HTTP ------------------------------------------------------------
my $np_path = "/apis/networking.k8s.io/v1/namespaces/$ns/networkpolicies";
($st, $o, $raw) = $s->call('POST', $np_path, encode_json({ apiVersion => 'networking.k8s.io/v1',
    kind => 'NetworkPolicy', metadata => { name => 'db' },
    spec => { podSelector => { matchLabels => { app => 'db' } },
        ingress => [ { from => [ { podSelector => { matchLabels => { role => 'api' } } } ],
            ports => [ { port => 5432 } ] } ] } }));
is($st, 201, 'POST networkpolicy: 201') or diag($raw->{body});
json_subset_ok($o, { kind => 'NetworkPolicy', apiVersion => 'networking.k8s.io/v1',
    metadata => { name => 'db', namespace => $ns, generation => 1 },
    spec => { podSelector => { matchLabels => { app => 'db' } }, policyTypes => ['Ingress'],
        ingress => [ { ports => [ { port => 5432, protocol => 'TCP' } ] } ] } },
    'POST networkpolicy: policyTypes and protocol defaulted, generation 1');

($st, $o) = $s->call('GET', $np_path);
is_deeply([ map { $_->{metadata}{name} } @{ $o->{items} || [] } ], ['db'],
    'LIST networkpolicies: the one policy');

($st, $o) = $s->call('GET', "$np_path/db");
$o->{spec}{egress} = [ { to => [ { ipBlock => { cidr => '10.0.0.0/8' } } ] } ];
delete $o->{spec}{policyTypes};
($st, $o, $raw) = $s->call('PUT', "$np_path/db", encode_json($o));
is($st, 200, 'PUT networkpolicy: 200') or diag($raw->{body});
is_deeply($o->{spec}{policyTypes}, [ 'Ingress', 'Egress' ],
    'PUT networkpolicy: egress rules make it an Egress policy too');
is($o->{metadata}{generation}, 2, 'PUT networkpolicy: the spec change bumps the generation');

($st, $o) = $s->call('POST', $np_path, encode_json({ apiVersion => 'networking.k8s.io/v1',
    kind => 'NetworkPolicy', metadata => { name => 'bad' },
    spec => { podSelector => {}, ingress => [ { from => [ {} ] } ] } }));
is($st, 422, 'POST networkpolicy with an empty peer: 422');
is($o->{message}, 'NetworkPolicy.networking.k8s.io "bad" is invalid: '
    . 'spec.ingress[0].from[0]: Required value: must specify a peer',
    'POST networkpolicy with an empty peer: kube\'s message');

# --- protobuf bodies of both kinds -------------------------------------------------------
sub pb_post {
    my ($path, $api_version, $kind, $raw) = @_;
    return $s->call(POST => $path, pb_envelope($api_version, $kind, $raw),
        type => 'application/vnd.kubernetes.protobuf', headers => { Accept => 'application/json' });
}

# metadata{name}, spec{limits[{type: Container, max{cpu: "1"}}]}
my $max_cpu = pb_bytes(2, pb_bytes(1, 'cpu') . pb_bytes(2, pb_bytes(1, '1')));
($st, $o, $raw) = pb_post($lr_path, 'v1', 'LimitRange',
    pb_bytes(1, pb_bytes(1, 'pb-lr'))
        . pb_bytes(2, pb_bytes(1, pb_bytes(1, 'Container') . $max_cpu)));
is($st, 201, 'protobuf limitrange: 201') or diag($raw->{body});
json_subset_ok($o, { metadata => { name => 'pb-lr' }, spec => { limits => [ {
    type => 'Container', max => { cpu => '1' }, default => { cpu => '1' },
    defaultRequest => { cpu => '1' } } ] } }, 'protobuf limitrange: decoded and defaulted');

# metadata{name}, spec{podSelector{}}
($st, $o, $raw) = pb_post($np_path, 'networking.k8s.io/v1', 'NetworkPolicy',
    pb_bytes(1, pb_bytes(1, 'pb-np')) . pb_bytes(2, pb_bytes(1, '')));
is($st, 201, 'protobuf networkpolicy: 201') or diag($raw->{body});
json_subset_ok($o, { metadata => { name => 'pb-np' },
    spec => { podSelector => {}, policyTypes => ['Ingress'] } },
    'protobuf networkpolicy: decoded and defaulted');
is(($s->call('DELETE', "$lr_path/pb-lr"))[0], 200, 'DELETE the protobuf limitrange: 200');
is(($s->call('DELETE', "$np_path/pb-np"))[0], 200, 'DELETE the protobuf networkpolicy: 200');

# --- kubectl: files in, tables out --------------------------------------------------------
my $lr_file = spew('limits.yaml', <<"YAML");
apiVersion: v1
kind: LimitRange
metadata:
  name: mem
  namespace: $ns
spec:
  limits:
  - type: Container
    defaultRequest:
      memory: 64Mi
YAML
is($s->kc_ok(undef, 'create -f limitrange', 'create', '-f', $lr_file, '--validate=false'),
    "limitrange/mem created\n", "create -f limitrange: kubectl's message");
my $np_file = spew('netpol.yaml', <<"YAML");
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: deny-all
  namespace: $ns
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
YAML
is($s->kc_ok(undef, 'create -f networkpolicy', 'create', '-f', $np_file, '--validate=false'),
    "networkpolicy.networking.k8s.io/deny-all created\n",
    "create -f networkpolicy: kubectl's message");

my $out = $s->kc_ok(undef, 'get limits', '-n', $ns, 'get', 'limits');
my @lines = split /\n/, $out;
like($lines[0] // '', qr/^NAME\s+CREATED AT$/, 'get limits: NAME, CREATED AT');
like($out, qr/^lr\s+$Stamp$/m, 'get limits: lr with its creation time');
like($out, qr/^mem\s+$Stamp$/m, 'get limits: mem with its creation time');

$out = $s->kc_ok(undef, 'get netpol', '-n', $ns, 'get', 'netpol');
@lines = split /\n/, $out;
like($lines[0] // '', qr/^NAME\s+POD-SELECTOR\s+AGE$/, 'get netpol: NAME, POD-SELECTOR, AGE');
like($out, qr/^db\s+app=db\s+$Age$/m, 'get netpol: db selects app=db');
like($out, qr/^deny-all\s+<none>\s+$Age$/m, 'get netpol: deny-all selects every pod');

$out = $s->kc_ok(undef, 'get limits,netpol', '-n', $ns, 'get', 'limits,netpol');
like($out, qr/^NAME\s+CREATED AT\nlimitrange\/lr\s+$Stamp\nlimitrange\/mem\s+$Stamp\n\n/m,
    'get limits,netpol: the limit ranges first, by kind/name');
like($out,
    qr/^NAME\s+POD-SELECTOR\s+AGE\nnetworkpolicy\.networking\.k8s\.io\/db\s+app=db\s+$Age\n/m,
    'get limits,netpol: then the network policies');

$out = $s->kc_ok(undef, 'get limits mem -o json', '-n', $ns, 'get', 'limits', 'mem', '-o', 'json');
json_subset_ok(json_of($out), { spec => { limits => [ { type => 'Container',
    defaultRequest => { memory => '64Mi' }, default => ABSENT } ] } },
    'get limits mem -o json: no default limit is made up');

is($s->kc_ok(undef, 'delete limits', '-n', $ns, 'delete', 'limits', 'lr', 'mem'),
    "limitrange \"lr\" deleted\nlimitrange \"mem\" deleted\n", "delete limits: kubectl's message");
is($s->kc_ok(undef, 'delete netpol', '-n', $ns, 'delete', 'netpol', 'db'),
    "networkpolicy.networking.k8s.io \"db\" deleted\n", "delete netpol: kubectl's message");
($st) = $s->call('GET', "$np_path/db");
is($st, 404, 'GET a deleted networkpolicy: 404');

# --- what may not change, as kubectl replace shows it ------------------------------------
$s->kc_ok(undef, 'create priorityclass high', 'create', 'priorityclass', 'high', '--value=1000');
my $pc_file = spew('pc.yaml', <<'YAML');
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 2000
preemptionPolicy: Never
YAML
$s->kc_fails(undef, 'replace priorityclass with another value and policy',
    qq{The PriorityClass "high" is invalid: \n}
    . qq{* value: Forbidden: may not be changed in an update.\n}
    . qq{* preemptionPolicy: Invalid value: "Never": field is immutable},
    'replace', '-f', $pc_file, '--validate=false');
my $pc_desc = spew('pc-desc.yaml', <<'YAML');
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 1000
description: for the important ones
YAML
is($s->kc_ok(undef, 'replace priorityclass description', 'replace', '-f', $pc_desc, '--validate=false'),
    "priorityclass.scheduling.k8s.io/high replaced\n",
    'replace priorityclass: the description may change');

$s->kc_ok(undef, 'create quota', '-n', $ns, 'create', 'quota', 'q', '--hard=pods=2', '--scopes=BestEffort');
my $quota_file = spew('quota.yaml', <<"YAML");
apiVersion: v1
kind: ResourceQuota
metadata:
  name: q
  namespace: $ns
spec:
  hard:
    pods: "2"
  scopes: [NotBestEffort]
YAML
$s->kc_fails(undef, 'replace quota with other scopes',
    q{The ResourceQuota "q" is invalid: spec.scopes: Invalid value: }
    . q{[]core.ResourceQuotaScope{"NotBestEffort"}: field is immutable},
    'replace', '-f', $quota_file, '--validate=false');

# --- the Priority admission plugin: one global default -----------------------------------
is($s->kc_ok(undef, 'create the default priorityclass', 'create', 'priorityclass', 'everyone',
    '--value=10', '--global-default'),
    "priorityclass.scheduling.k8s.io/everyone created\n",
    'create priorityclass --global-default: the first default');
$s->kc_fails(undef, 'create a second default priorityclass',
    'error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "another" is '
    . 'forbidden: PriorityClass everyone is already marked as default. Only one default can '
    . 'exist',
    'create', 'priorityclass', 'another', '--value=20', '--global-default');
($st) = $s->call('GET', '/apis/scheduling.k8s.io/v1/priorityclasses/another');
is($st, 404, 'the refused default was not stored');
($st, $o) = $s->call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses',
    encode_json({ apiVersion => 'scheduling.k8s.io/v1', kind => 'PriorityClass',
        metadata => { name => 'third' }, value => 30, globalDefault => JSON::PP::true }));
is($st, 403, 'POST a second default: 403');
is($o->{reason}, 'Forbidden', 'POST a second default: Forbidden');
is_deeply($o->{details}, { name => 'third', group => 'scheduling.k8s.io',
    kind => 'priorityclasses' }, 'POST a second default: the details name the refused class');

# a PATCH that makes a class the default is admitted like an update
($st, $o) = $s->call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses',
    encode_json({ apiVersion => 'scheduling.k8s.io/v1', kind => 'PriorityClass',
        metadata => { name => 'plain' }, value => 40 }));
is($st, 201, 'a class that is not the default');
my $r = $s->request('PATCH', '/apis/scheduling.k8s.io/v1/priorityclasses/plain',
    headers => { 'Content-Type' => 'application/merge-patch+json' },
    body => '{"globalDefault":true}');
is($r->{status}, 403, 'PATCH it into a second default: 403');
like(json_of($r->{body})->{message}, qr/PriorityClass everyone is already marked as default/,
    'PATCH a second default: the plugin\'s message');
($st, $o) = $s->call('GET', '/apis/scheduling.k8s.io/v1/priorityclasses/plain');
ok(!$o->{globalDefault}, 'the refused PATCH changed nothing');
$r = $s->request('PATCH', '/apis/scheduling.k8s.io/v1/priorityclasses/everyone',
    headers => { 'Content-Type' => 'application/merge-patch+json' },
    body => '{"description":"still the default","globalDefault":true}');
is($r->{status}, 200, 'PATCH of the default itself is admitted');

# admission sees the final object, after the strategy's validation, as kube's
# createValidation and updateValidation do: an invalid class is a 422 first
($st, $o) = $s->call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses',
    encode_json({ apiVersion => 'scheduling.k8s.io/v1', kind => 'PriorityClass',
        metadata => { name => 'Not_A_Name' }, value => 50, globalDefault => JSON::PP::true }));
is($st, 422, 'POST an invalid second default: 422 before admission');
is($o->{reason}, 'Invalid', 'POST an invalid second default: Invalid');
($st, $o) = $s->call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses?dryRun=All',
    encode_json({ apiVersion => 'scheduling.k8s.io/v1', kind => 'PriorityClass',
        metadata => { name => 'dry' }, value => 60, globalDefault => JSON::PP::true }));
is($st, 403, 'a dry-run POST of a second default is refused too');
($st, $o) = $s->call('GET', '/apis/scheduling.k8s.io/v1/priorityclasses/plain');
$o->{globalDefault} = JSON::PP::true;
($st, $o) = $s->call('PUT', '/apis/scheduling.k8s.io/v1/priorityclasses/plain', encode_json($o));
is($st, 403, 'PUT it into a second default: 403');
like($o->{message}, qr/PriorityClass everyone is already marked as default/,
    'PUT a second default: the plugin\'s message');

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit/sanitizer lines') or diag(join "\n", @bad);
ok($s->stop, 'nginx stops gracefully');
done_testing();
