# DeleteOptions of DELETE, for one object and for a collection, read as
# kube-apiserver's handlers/delete.go reads them: from the body when there is
# one (JSON, YAML, protobuf), else from the query. dryRun=All deletes nothing
# and answers what would have been deleted; preconditions (uid,
# resourceVersion) that do not hold are 409 with kube's message, for every
# item of a collection before any is deleted; propagationPolicy and
# orphanDependents are validated (422); a body that is not DeleteOptions gets
# the decoder's message as a 400 BadRequest (kube 1.26 answers 500). Then the python
# client: delete_collection_namespaced_config_map(dry_run='All') and
# delete_namespaced_config_map with V1DeleteOptions(preconditions=...).
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $ns = 'del-opts';
my $cms = "/api/v1/namespaces/$ns/configmaps";

sub names {
    my ($st, $list) = $s->call(GET => $cms);
    return join ',', map { $_->{metadata}{name} } @{ $list->{items} || [] };
}

sub failure {
    my ($code, $reason, $message, $details) = @_;
    return { kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
        message => $message, defined $reason ? (reason => $reason) : (reason => ABSENT),
        defined $details ? (details => $details) : (), code => $code };
}

is(($s->call(POST => '/api/v1/namespaces', encode_json({ metadata => { name => $ns } })))[0],
    201, 'namespace created');
my %cm;
for my $n (qw(a b c)) {
    my ($st, $obj) = $s->call(POST => $cms,
        encode_json({ metadata => { name => $n, labels => { set => 'x' } }, data => { k => $n } }));
    is($st, 201, "configmap $n created");
    $cm{$n} = $obj;
}

# --- dryRun ---------------------------------------------------------------

my ($st, $obj) = $s->call(DELETE => $cms, '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}');
is($st, 200, 'dry-run deletecollection (body): 200');
is($obj->{kind}, 'ConfigMapList', 'answers the list that would have been deleted');
is(join(',', map { $_->{metadata}{name} } @{ $obj->{items} }), 'a,b,c', 'with every item');
is(names(), 'a,b,c', 'and nothing was deleted');

($st, $obj) = $s->call(DELETE => "$cms?dryRun=All&labelSelector=set%3Dx");
is($st, 200, 'dry-run deletecollection (query, no body): 200');
is(scalar @{ $obj->{items} }, 3, 'three items');
is(names(), 'a,b,c', 'nothing deleted');

($st, $obj) = $s->call(DELETE => $cms, "dryRun: [All]\n", type => 'application/yaml');
is($st, 200, 'dry-run deletecollection (YAML body): 200');
is(names(), 'a,b,c', 'nothing deleted');

($st, $obj) = $s->call(DELETE => "$cms/a", '{"dryRun":["All"]}');
json_subset_ok($obj, { kind => 'Status', status => 'Success',
    details => { name => 'a', kind => 'configmaps', uid => $cm{a}{metadata}{uid} } },
    'dry-run delete (body): the Status a delete answers');
is($st, 200, 'dry-run delete: 200');
is(names(), 'a,b,c', 'a is still there');

# The body replaces the query: ?dryRun=All with a body without dryRun deletes.
($st, $obj) = $s->call(DELETE => "$cms/a?dryRun=All", '{"kind":"DeleteOptions","apiVersion":"v1"}');
is($st, 200, 'a body without dryRun, query dryRun=All: deleted as kube does');
is(names(), 'b,c', 'a is gone');
# ...and with an empty body the query is read.
($st, $obj) = $s->call(DELETE => "$cms/b?dryRun=All");
is($st, 200, 'query dryRun=All, no body: 200');
is(names(), 'b,c', 'b stays');

my $bad_dry = failure(422, 'Invalid',
    'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"x"}: '
    . 'supported values: "All"',
    { group => 'meta.k8s.io', kind => 'DeleteOptions', causes => [ { reason =>
        'FieldValueNotSupported', message => 'Unsupported value: []string{"x"}: supported '
        . 'values: "All"', field => 'dryRun' } ] });
($st, $obj) = $s->call(DELETE => $cms, '{"dryRun":["x"]}');
is($st, 422, 'dryRun ["x"] in a deletecollection body: 422');
json_subset_ok($obj, $bad_dry, 'kube\'s Status');
is(names(), 'b,c', 'nothing deleted');
($st, $obj) = $s->call(DELETE => "$cms/b?dryRun=x");
is($st, 422, 'dryRun=x in the query: 422');
json_subset_ok($obj, $bad_dry, 'the same Status');

# deletecollection reads ListOptions as a list does (kube 1.26): a limit
# deletes one page and answers its continue token; integers must parse.
($st, $obj) = $s->call(DELETE => "$cms?dryRun=All&limit=1");
is($st, 200, 'dry-run deletecollection with limit=1: 200');
is(join(',', map { $_->{metadata}{name} } @{ $obj->{items} }), 'b', 'one page');
ok($obj->{metadata}{continue}, '... with a continue token');
is($obj->{metadata}{remainingItemCount}, 1, '... and the count left');
($st, $obj) = $s->call(DELETE => "$cms?dryRun=All&continue=" . $obj->{metadata}{continue});
is(join(',', map { $_->{metadata}{name} } @{ $obj->{items} }), 'c', 'the next page');
for my $q ('limit=x', 'timeoutSeconds=', 'limit=x&labelSelector=a+in') {
    my $want = $q =~ /limit=x/ ? 'x' : '';
    for my $method (qw(GET DELETE)) {
        ($st, $obj) = $s->call($method => "$cms?dryRun=All&$q");
        is($st, 400, "$method with $q: 400");
        is($obj->{message}, "strconv.ParseInt: parsing \"$want\": invalid syntax",
            '... strconv\'s message, before the selector\'s');
    }
}
is(names(), 'b,c', 'nothing deleted');

# --- preconditions ----------------------------------------------------------

my $uid_b = $cm{b}{metadata}{uid};
my $rv_b = $cm{b}{metadata}{resourceVersion};
($st, $obj) = $s->call(DELETE => "$cms/b", encode_json({ preconditions => { uid => 'other' } }));
is($st, 409, 'uid precondition that does not hold: 409');
json_subset_ok($obj, failure(409, 'Conflict',
    "Operation cannot be fulfilled on ConfigMap \"b\": the UID in the precondition (other) "
    . "does not match the UID in record ($uid_b). The object might have been deleted and then "
    . 'recreated', { name => 'b', kind => 'ConfigMap' }), 'kube\'s Conflict');
($st, $obj) = $s->call(DELETE => "$cms/b",
    encode_json({ preconditions => { resourceVersion => "0$rv_b" } }));
is($st, 409, 'resourceVersion precondition (compared as a string): 409');
is($obj->{message}, "Operation cannot be fulfilled on ConfigMap \"b\": the ResourceVersion in "
    . "the precondition (0$rv_b) does not match the ResourceVersion in record ($rv_b). The "
    . 'object might have been modified', 'kube\'s message');
is(names(), 'b,c', 'b stays');

($st, $obj) = $s->call(DELETE => $cms, encode_json({ preconditions => { uid => $uid_b } }));
is($st, 409, 'deletecollection with a uid only b has: 409 on the first other item');
like($obj->{message}, qr/^Operation cannot be fulfilled on ConfigMap "c": the UID in the /,
    'names c');
is(names(), 'b,c', 'and nothing was deleted, b included');

($st, $obj) = $s->call(DELETE => "$cms/b",
    encode_json({ preconditions => { uid => $uid_b, resourceVersion => $rv_b } }));
is($st, 200, 'preconditions that hold: deleted');
is(names(), 'c', 'b is gone');

# --- validation and bodies that are not DeleteOptions -----------------------

($st, $obj) = $s->call(DELETE => "$cms/c", '{"propagationPolicy":"Sideways"}');
is($st, 422, 'unknown propagationPolicy: 422');
is($obj->{message}, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported '
    . 'value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    'kube\'s message');
($st, $obj) = $s->call(DELETE => "$cms?propagationPolicy=Orphan&orphanDependents=true");
is($st, 422, 'orphanDependents with propagationPolicy (query): 422');
is($obj->{details}{causes}[0]{message}, 'Invalid value: "Orphan": orphanDependents and '
    . 'deletionPropagation cannot be both set', 'kube\'s cause');
($st, $obj) = $s->call(DELETE => "$cms/c?gracePeriodSeconds=soon");
is($st, 400, 'gracePeriodSeconds that is no integer: 400');
json_subset_ok($obj, failure(400, 'BadRequest',
    'strconv.ParseInt: parsing "soon": invalid syntax'), 'strconv\'s message');
($st, $obj) = $s->call(DELETE => "$cms/c", '{"gracePeriodSeconds":0,"propagationPolicy":"Background","dryRun":["All"]}');
is($st, 200, 'valid gracePeriodSeconds and propagationPolicy are accepted');

for my $case (
    [ '{not json', 'couldn\'t get version/kind; json parse error: invalid character \'n\' '
        . 'looking for beginning of object key string' ],
    [ '{"kind":"ConfigMap","apiVersion":"v1","dryRun":["All"]}', 'no kind "ConfigMap" is '
        . 'registered for version "v1" in scheme '
        . '"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"' ],
    [ '{"kind":5}', 'couldn\'t get version/kind; json parse error: json: cannot unmarshal number '
        . 'into Go struct field .kind of type string' ],
    [ '{"dryRun":"All"}', 'json: cannot unmarshal string into Go struct field '
        . 'DeleteOptions.dryRun of type []string' ],
) {
    my ($body, $message) = @$case;
    for my $path ("$cms/c", $cms) {
        ($st, $obj) = $s->call(DELETE => $path, $body);
        is($st, 400, "DELETE $path with $body: 400 (kube 1.26 says 500)");
        json_subset_ok($obj, failure(400, 'BadRequest', $message), 'the decoder\'s message');
    }
}
($st, $obj) = $s->call(DELETE => $cms, '{}', type => 'text/plain');
is($st, 415, 'a body in an unknown format: 415');
is(names(), 'c', 'none of these deleted anything');

# A protobuf DeleteOptions: k8s\0 + Unknown{typeMeta{v1, DeleteOptions},
# raw{preconditions{uid "x"}, dryRun "All"}}.
my $pb = "k8s\0\x0a\x13\x0a\x02v1\x12\x0dDeleteOptions\x12\x0a\x12\x03\x0a\x01x\x2a\x03All";
($st, $obj) = $s->call(DELETE => "$cms/c", $pb,
    type => 'application/vnd.kubernetes.protobuf', headers => { Accept => 'application/json' });
is($st, 409, 'protobuf DeleteOptions with a uid precondition: 409');
like($obj->{message}, qr/the UID in the precondition \(x\) does not match/, 'read from protobuf');

# --- the python client ------------------------------------------------------

for my $n (qw(p1 p2)) {
    is(($s->call(POST => $cms, encode_json({ metadata => { name => $n } })))[0], 201, "$n created");
}
my $script = <<PY;
import json
from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config()
v1 = client.CoreV1Api()
NS = '$ns'
out = {}
# The client's model says Status; kube answers the list: read it raw.
r = v1.delete_collection_namespaced_config_map(NS, dry_run='All', _preload_content=False)
out['dry_collection'] = sorted(c['metadata']['name'] for c in json.loads(r.data)['items'])
out['after_dry_collection'] = sorted(c.metadata.name for c in v1.list_namespaced_config_map(NS).items)
uid = v1.read_namespaced_config_map('p1', NS).metadata.uid
try:
    v1.delete_namespaced_config_map('p1', NS,
        body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid='not-' + uid)))
    out['wrong_uid'] = 'deleted'
except ApiException as e:
    out['wrong_uid'] = {'status': e.status, 'reason': json.loads(e.body)['reason']}
out['after_wrong_uid'] = sorted(c.metadata.name for c in v1.list_namespaced_config_map(NS).items)
try:
    v1.delete_collection_namespaced_config_map(NS,
        body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid=uid)))
    out['collection_wrong_uid'] = 'deleted'
except ApiException as e:
    out['collection_wrong_uid'] = {'status': e.status, 'reason': json.loads(e.body)['reason']}
st = v1.delete_namespaced_config_map('p1', NS,
    body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid=uid)))
out['right_uid'] = st.status
st = v1.delete_namespaced_config_map('p2', NS, dry_run='All', grace_period_seconds=0,
    propagation_policy='Background')
out['dry_single'] = st.status
out['after'] = sorted(c.metadata.name for c in v1.list_namespaced_config_map(NS).items)
print(json.dumps(out))
PY
my ($exit, $out, $err) = python_client($s, $script);
is($exit, 0, 'python client script ran') or diag($err);
my $py = eval { decode_json($out) } || {};
is_deeply($py, {
    dry_collection => [qw(c p1 p2)],
    after_dry_collection => [qw(c p1 p2)],
    wrong_uid => { status => 409, reason => 'Conflict' },
    after_wrong_uid => [qw(c p1 p2)],
    collection_wrong_uid => { status => 409, reason => 'Conflict' },
    right_uid => 'Success',
    dry_single => 'Success',
    after => [qw(c p2)],
}, 'python client: dry runs and failed preconditions delete nothing') or diag($out);

$s->stop;
done_testing;
