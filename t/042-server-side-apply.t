# Server-side apply over HTTP and through kubectl 1.32 (apply --server-side):
# create on apply, a change, a conflict with another --field-manager in
# kube's wording, --force-conflicts, a field dropped from the applied
# config going away, managedFields shown by --show-managed-fields (Apply
# and Update managers, the User-Agent's default), a 500 KiB ConfigMap that
# client-side apply cannot take, client-side to server-side migration,
# the Python client's apply, the status subresource, dryRun, and bad apply
# bodies answered as kube-apiserver 1.26 answers them with nothing changed.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $apply = 'application/apply-patch+yaml';
my $ns = 'ssa';
my $cms = "/api/v1/namespaces/$ns/configmaps";

# call($method, $path, $body, $contentType, %headers): the harness's call
sub call {
    my ($method, $path, $body, $type, %h) = @_;
    return $s->call($method, $path, $body, defined $type ? (type => $type) : (), headers => \%h);
}

sub kc { return $s->kc(undef, @_) }

sub kc_ok { return scalar $s->kc_ok(undef, @_) }

sub managers {
    my $obj = shift;
    return { map { ("$_->{manager}/$_->{operation}" . ($_->{subresource} ? "/$_->{subresource}" : ''))
        => $_->{fieldsV1} } @{ $obj->{metadata}{managedFields} || [] } };
}

sub cm {
    my ($st, $o) = call(GET => "$cms/$_[0]");
    return $o;
}

my ($st, $o) = call(POST => '/api/v1/namespaces', qq({"metadata":{"name":"$ns"}}));
is($st, 201, 'namespace created');

# --- kubectl apply --server-side ----------------------------------------------
my $cm1 = spew('cm1.yaml', "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n"
    . "  namespace: $ns\ndata:\n  a: \"1\"\n  b: \"2\"\n");
my $out = kc_ok('apply --server-side creates', 'apply', '--server-side', '-f', $cm1);
is($out, "configmap/cm1 serverside-applied\n", '... and says so');
$o = cm('cm1');
is_deeply($o->{data}, { a => '1', b => '2' }, 'the applied data is stored');
is_deeply(managers($o), { 'kubectl/Apply' => { 'f:data' => { 'f:a' => {}, 'f:b' => {} } } },
    'one Apply entry for kubectl owning data.a and data.b');
my $rv = $o->{metadata}{resourceVersion};
kc_ok('a no-op re-apply', 'apply', '--server-side', '-f', $cm1);
is(cm('cm1')->{metadata}{resourceVersion}, $rv, '... writes nothing');

my $cm1b = spew('cm1b.yaml', "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n"
    . "  namespace: $ns\ndata:\n  a: \"9\"\n  b: \"2\"\n");
my ($rc, $err);
($rc, $out, $err) = kc('apply', '--server-side', '--field-manager=other', '-f', $cm1b);
is($rc, 1, 'another manager changing data.a: kubectl fails');
like($err, qr/^error: Apply failed with 1 conflict: conflict with "kubectl": \.data\.a\n/,
    '... with kube\'s conflict message');
is(cm('cm1')->{data}{a}, '1', '... and nothing changed');

kc_ok('--force-conflicts', 'apply', '--server-side', '--field-manager=other',
    '--force-conflicts', '-f', $cm1b);
$o = cm('cm1');
is($o->{data}{a}, '9', '... takes data.a');
is_deeply(managers($o), { 'kubectl/Apply' => { 'f:data' => { 'f:b' => {} } },
    'other/Apply' => { 'f:data' => { 'f:a' => {}, 'f:b' => {} } } },
    '... and its ownership: kubectl keeps data.b, shared with other');

my $cm1c = spew('cm1c.yaml', "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n"
    . "  namespace: $ns\ndata:\n  a: \"9\"\n");
kc_ok('other drops data.b', 'apply', '--server-side', '--field-manager=other', '-f', $cm1c);
is_deeply(cm('cm1')->{data}, { a => '9', b => '2' }, '... which stays: kubectl owns it too');
my $cm1d = spew('cm1d.yaml', "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n"
    . "  namespace: $ns\ndata: {}\n");
kc_ok('kubectl drops data.b', 'apply', '--server-side', '-f', $cm1d);
is_deeply(cm('cm1')->{data}, { a => '9' }, '... which goes: nobody owns it any more');

kc_ok('kubectl label', 'label', 'cm', 'cm1', '-n', $ns, 'l=v');
$out = kc_ok('get --show-managed-fields', 'get', 'cm', 'cm1', '-n', $ns,
    '--show-managed-fields', '-o', 'yaml');
like($out, qr/^  managedFields:\n/m, '--show-managed-fields shows managedFields');
like($out, qr/manager: other\n    operation: Apply\n/, '... with the Apply entry of other');
like($out, qr/manager: kubectl-label\n    operation: Update\n/,
    '... and the Update entry of kubectl label');
$out = kc_ok('get -o yaml', 'get', 'cm', 'cm1', '-n', $ns, '-o', 'yaml');
unlike($out, qr/managedFields/, 'kubectl hides them otherwise');

# --- managedFields of plain writes ---------------------------------------------
($st, $o) = call(POST => $cms, '{"metadata":{"name":"plain"},"data":{"x":"1"}}', undef,
    'User-Agent' => 'my-agent/1.0 (linux)');
is($st, 201, 'a create');
is_deeply($o->{metadata}{managedFields}, [{ manager => 'my-agent', operation => 'Update',
    apiVersion => 'v1', time => $o->{metadata}{creationTimestamp}, fieldsType => 'FieldsV1',
    fieldsV1 => { 'f:data' => { '.' => {}, 'f:x' => {} } } }],
    '... records the User-Agent\'s prefix as its manager, as kube does');
($st, $o) = call(PUT => "$cms/plain?fieldManager=putter",
    '{"metadata":{"name":"plain"},"data":{"x":"1","y":"2"}}');
is($st, 200, 'an update with fieldManager');
is_deeply(managers($o)->{'putter/Update'}, { 'f:data' => { 'f:y' => {} } },
    '... records the field it added under that name');
($st, $o) = call(PATCH => "$cms/plain?fieldManager=patcher", '{"data":{"z":"3"}}',
    'application/merge-patch+json');
is_deeply(managers($o)->{'patcher/Update'}, { 'f:data' => { 'f:z' => {} } },
    'a merge patch too');
($st, $o) = call(POST => "$cms?fieldManager=" . ('m' x 129), '{"metadata":{"name":"long"}}');
is($st, 422, 'a fieldManager over 128 bytes: 422');
is($o->{message}, 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must '
    . 'have at most 128 bytes', '... in kube\'s words');

# --- HTTP apply -------------------------------------------------------------------
my $body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\ndata:\n  k: v\n";
($st, $o) = call(PATCH => "$cms/h", $body, $apply);
is($st, 422, 'apply without fieldManager: 422');
is($o->{message}, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is '
    . 'required for apply patch', '... in kube\'s words');
($st, $o) = call(PATCH => "$cms/h?fieldManager=m&fieldValidation=Bogus", $body, $apply);
is($st, 422, 'apply with a bad fieldValidation: 422');
is($o->{message}, 'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: '
    . '"Bogus": supported values: "", "Ignore", "Strict", "Warn"', '... in kube\'s words');
($st, $o) = call(PATCH => "$cms/h?fieldManager=m&dryRun=All", $body, $apply);
is($st, 201, 'a dry-run apply of a missing object: 201');
is($o->{data}{k}, 'v', '... with the object');
($st) = call(GET => "$cms/h");
is($st, 404, '... which is not stored');
# Eight managers apply the same missing object at once: one creates it, the
# others find it created and apply to it, as kube's guaranteed update retries.
# (Bodies of 256 KiB are applied on a thread: the creates overlap.)
my $racedBody = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"raced"},"data":{"k":"v",'
    . join(',', map { qq("k$_":") . ('x' x 1000) . '"' } 1 .. 256) . '}}';
my $raced = Test::Kube::http_batch([ map { {
    method => 'PATCH', url => $s->url . "$cms/raced?fieldManager=m$_", cert => 'admin',
    headers => { 'Content-Type' => $apply }, body => $racedBody,
} } 0 .. 7 ], parallel => 8);
is_deeply([ sort map { $_->{status} } @$raced ], [ 200, 200, 200, 200, 200, 200, 200, 201 ],
    'eight applies creating one object at once: one 201, seven 200');
is_deeply([ sort grep { m{/Apply$} } keys %{ managers(cm('raced')) } ],
    [ map { "m$_/Apply" } 0 .. 7 ], '... and every manager owns the data');
($st, $o) = call(PATCH => "/api/v1/namespaces/nowhere/configmaps/h?fieldManager=m", $body, $apply);
is($st, 404, 'apply creating in a missing namespace: 404');
is($o->{message}, 'namespaces "nowhere" not found', '... in kube\'s words');
($st, $o) = call(PATCH => "$cms/h?fieldManager=m", '{"apiVersion":"v1","kind":"ConfigMap",'
    . '"metadata":{"name":"h"},"data":{"k":"v"}}', $apply);
is($st, 201, 'a JSON apply body creates: 201');
$rv = $o->{metadata}{resourceVersion};
($st, $o) = call(PATCH => "$cms/h?fieldManager=m&force=true", $body, $apply);
is($st, 200, 're-apply: 200');
is($o->{metadata}{resourceVersion}, $rv, '... changes nothing');
($st, $o) = call(PATCH => "$cms/h?force=true", '{"data":{"k":"w"}}',
    'application/merge-patch+json');
is($st, 422, 'force on a merge patch: 422');
is($o->{message}, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be '
    . 'specified for non-apply patch', '... in kube\'s words');

my @bad = (
    ['{{{ not yaml: [', 400, 'error decoding YAML: error converting YAML to JSON: yaml: line 1: '
        . 'did not find expected node content', 'a body that is not YAML'],
    ["- a\n- b\n", 400, 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: '
        . 'cannot unmarshal array into Go value of type map[string]interface {}',
        'a YAML list'],
    ["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n", 400,
        'the name of the object (other) does not match the name on the URL (h)',
        'a body naming another object'],
    ["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\n  managedFields: [{manager: x}]\n",
        400, 'metadata.managedFields must be nil', 'a body with managedFields'],
    ["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\n  namespace: elsewhere\n", 400,
        'the namespace of the provided object does not match the namespace sent on the request',
        'a body in another namespace'],
    ['', 400, 'Incorrect version specified in apply patch. Specified patch version: , expected: v1',
        'an empty body'],
);
for my $b (@bad) {
    my ($text, $code, $msg, $what) = @$b;
    ($st, $o) = call(PATCH => "$cms/h?fieldManager=m", $text, $apply);
    is($st, $code, "$what: $code");
    is($o->{message}, $msg, "... $msg");
    is(cm('h')->{metadata}{resourceVersion}, $rv, '... nothing changed');
}
($st, $o) = call(PATCH => "$cms/h?fieldManager=m",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: h\n", $apply);
ok($st >= 400, 'a body of another kind is refused');
is(cm('h')->{metadata}{resourceVersion}, $rv, '... nothing changed');

# --- the status subresource ---------------------------------------------------------
my $deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 1\n"
    . "  selector:\n    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n"
    . "    spec:\n      containers:\n      - name: c\n        image: nginx\n";
my $deps = "/apis/apps/v1/namespaces/$ns/deployments";
($st, $o) = call(PATCH => "$deps/d?fieldManager=mgr", $deploy, $apply);
is($st, 201, 'a Deployment applied');
($st, $o) = call(PATCH => "$deps/d/status?fieldManager=ctl",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nstatus:\n  replicas: 3\n", $apply);
is($st, 200, 'apply on its status: 200');
is($o->{status}{replicas}, 3, '... sets the status');
is_deeply(managers($o)->{'ctl/Apply/status'}, { 'f:status' => { 'f:replicas' => {} } },
    '... owned by the applier with subresource status');
ok(managers($o)->{'mgr/Apply'}{'f:spec'}, '... beside the spec\'s applier');
($st) = call(PATCH => "$deps/nope/status?fieldManager=ctl",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nope\n", $apply);
is($st, 404, 'apply on the status of a missing object: 404');

# --- a 500 KiB ConfigMap ---------------------------------------------------------------
my $big = 'x' x (500 * 1024);
my $bigFile = spew('big.yaml', "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n"
    . "  namespace: $ns\ndata:\n  blob: $big\n");
($rc, $out, $err) = kc('apply', '-f', $bigFile);
isnt($rc, 0, 'client-side apply of 500 KiB fails');
like($err, qr/Too long: must have at most 262144 bytes/, '... on the annotation limit');
kc_ok('apply --server-side of 500 KiB', 'apply', '--server-side', '-f', $bigFile);
is(length(cm('big')->{data}{blob}), 500 * 1024, '... stores it whole');

# --- client-side to server-side migration ---------------------------------------------
my $cm2 = spew('cm2.yaml', "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\n"
    . "  namespace: $ns\ndata:\n  a: \"1\"\n  b: \"2\"\n");
my $cm2b = spew('cm2b.yaml', "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\n"
    . "  namespace: $ns\ndata:\n  a: \"1\"\n  b: \"3\"\n");
kc_ok('client-side apply', 'apply', '-f', $cm2);
is_deeply([keys %{ managers(cm('cm2')) }], ['kubectl-client-side-apply/Update'],
    '... is recorded as kubectl-client-side-apply');
kc_ok('then server-side apply with a change takes over', 'apply', '--server-side', '-f', $cm2b);
$o = cm('cm2');
is($o->{data}{b}, '3', '... the change is stored');
is_deeply(managers($o)->{'kubectl/Apply'}, { 'f:data' => { 'f:a' => {}, 'f:b' => {} } },
    '... and kubectl applies data');
ok(!managers($o)->{'kubectl-client-side-apply/Update'}, '... client-side apply owns nothing');

# --- the Python client ---------------------------------------------------------------------
($rc, $out, $err) = python_client($s, <<PY);
import json
from kubernetes import client, config
config.load_kube_config()
v1 = client.CoreV1Api()
api = client.ApiClient()
body = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'py'}, 'data': {'p': '1'}}


def apply():
    return api.call_api('/api/v1/namespaces/{namespace}/configmaps/{name}', 'PATCH',
                        path_params={'namespace': '$ns', 'name': 'py'},
                        query_params=[('fieldManager', 'py-mgr')],
                        header_params={'Content-Type': 'application/apply-patch+yaml',
                                       'Accept': 'application/json'},
                        body=json.dumps(body), response_type='V1ConfigMap', auth_settings=['BearerToken'],
                        _return_http_data_only=True)


apply()
body['data']['p'] = '2'
r = apply()
print(json.dumps({'data': r.data, 'managers': [m.manager + '/' + m.operation
                  for m in r.metadata.managed_fields]}))
PY
is($rc, 0, 'python client apply: exit 0') or diag($err);
is_deeply(eval { decode_json($out) } || {}, { data => { p => '2' }, managers => ['py-mgr/Apply'] },
    '... creates and changes the ConfigMap, owned by its field manager');

$s->stop;
done_testing;
