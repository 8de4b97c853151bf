# REST verbs on the generic store: create (201, generateName, dryRun),
# get, list (per namespace, all namespaces, limit/continue, metadata.name),
# update (PUT, conflicts, generation), delete (Status or object),
# deletecollection, and namespace lifecycle (missing, deletion of contents,
# immortal namespaces) with kube-apiserver's answers.
use lib 't/lib';
use Test::Kube;
use Test::More;
use JSON::PP ();

my $s = start_server(config => "location / { kube_api; kube_anonymous_auth on; }");

sub cm {
    my ($name, %data) = @_;
    return {apiVersion => 'v1', kind => 'ConfigMap', metadata => {name => $name},
            data => {%data}};
}

# --- create and get -----------------------------------------------------------

my ($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps', cm('a', k => 'v'));
is($st, 201, 'create answers 201');
is($o->{kind}, 'ConfigMap', 'create returns the object');
like($o->{metadata}{uid}, qr/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    'uid is a v4 UUID');
like($o->{metadata}{resourceVersion}, qr/^\d+$/, 'resourceVersion is the store revision');
like($o->{metadata}{creationTimestamp}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    'creationTimestamp is RFC 3339');
is($o->{metadata}{namespace}, 'default', 'namespace comes from the path');
ok(!exists $o->{metadata}{generation}, 'configmaps track no generation');
my $created = $o;

(my $st2, $o, my $raw) = $s->call(GET => '/api/v1/namespaces/default/configmaps/a');
is($st2, 200, 'get');
is_deeply($o, $created, 'get returns what create stored');
like($raw->{body}, qr/^\{"kind":"ConfigMap","apiVersion":"v1","metadata":\{"name":"a","namespace":"default","uid":/,
    'kind, apiVersion, metadata first, in kube\'s order, compact JSON');

($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps', cm('a'));
is($st, 409, 'a duplicate create is 409');
is_deeply($o, {kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
    message => 'configmaps "a" already exists', reason => 'AlreadyExists',
    details => {name => 'a', kind => 'configmaps'}, code => 409}, 'AlreadyExists Status');

($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps',
    {metadata => {generateName => 'gen-'}, data => {x => 'y'}});
is($st, 201, 'generateName create without kind/apiVersion in the body');
like($o->{metadata}{name}, qr/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/, 'a name from generateName');
is($o->{metadata}{generateName}, 'gen-', 'generateName is kept');
is($o->{kind}, 'ConfigMap', 'kind defaulted from the path');

($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps',
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  num: \"1\"\n  flag: \"true\"\n",
    type => 'application/yaml');
is($st, 201, 'a YAML body is accepted');
is_deeply($o->{data}, {num => "1", flag => "true"}, 'YAML strings stay strings');

($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps?dryRun=All', cm('dry', a => 'b'));
is($st, 201, 'dryRun create answers 201');
ok($o->{metadata}{uid} && $o->{metadata}{creationTimestamp}, 'dryRun fills uid and timestamp');
ok(!exists $o->{metadata}{resourceVersion}, 'dryRun has no resourceVersion');
($st) = $s->call(GET => '/api/v1/namespaces/default/configmaps/dry');
is($st, 404, 'dryRun stored nothing');

($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps?dryRun=Some', cm('dry'));
is($st, 422, 'an unknown dryRun value is 422 Invalid');
is($o->{message}, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
    '... with kube\'s ValidateDryRun message');

# --- namespaces and names ------------------------------------------------------

($st, $o) = $s->call(POST => '/api/v1/namespaces/nosuchns/configmaps', cm('x'));
is($st, 404, 'create in a missing namespace is 404');
is($o->{message}, 'namespaces "nosuchns" not found', '... naming the namespace');
is_deeply($o->{details}, {name => 'nosuchns', kind => 'namespaces'}, '... with its details');

my $bad = cm('b');
$bad->{metadata}{namespace} = 'other';
($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps', $bad);
is($st, 400, 'a body namespace that differs from the path is 400');
is($o->{message}, 'the namespace of the provided object does not match the namespace sent on the request',
    '... with kube\'s message');
ok(!exists $o->{details}, '... and no details');

($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps', cm('Bad_Name'));
is($st, 422, 'an invalid name is 422');
my $rfc = q{a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')};
is($o->{message}, qq{ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": $rfc},
    '... with kube\'s message');
is_deeply($o->{details}, {name => 'Bad_Name', kind => 'ConfigMap', causes => [
    {reason => 'FieldValueInvalid', message => qq{Invalid value: "Bad_Name": $rfc}, field => 'metadata.name'}]},
    '... and its cause');

($st, $o) = $s->call(POST => '/api/v1/namespaces', {metadata => {name => 'has.dot'}});
is($st, 422, 'namespaces are DNS labels: a dot is invalid');
like($o->{message}, qr/^Namespace "has.dot" is invalid: metadata.name: Invalid value: "has.dot": must not contain dots$/,
    '... with the label message');

($st, $o) = $s->call(POST => '/api/v1/namespaces/default/configmaps', {metadata => {}});
is($st, 422, 'no name and no generateName is 422');
is($o->{message}, 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    '... Required value');

# --- list ---------------------------------------------------------------------

($st, $o) = $s->call(POST => '/api/v1/namespaces', {metadata => {name => 'listing'}});
is($st, 201, 'create a namespace');
is($o->{metadata}{labels}{'kubernetes.io/metadata.name'}, 'listing', 'namespaces get their name label');
is_deeply($o->{spec}, {finalizers => ['kubernetes']}, '... the kubernetes finalizer');
is($o->{status}{phase}, 'Active', '... and phase Active');

for my $n (qw(p1 p2 p3 p4 p5)) {
    ($st) = $s->call(POST => '/api/v1/namespaces/listing/configmaps', cm($n, n => $n));
    is($st, 201, "create $n");
}

my $r;
($st, $o, $r) = $s->call(GET => '/api/v1/namespaces/listing/configmaps');
is($o->{kind}, 'ConfigMapList', 'a list is a ConfigMapList');
is_deeply([map { $_->{metadata}{name} } @{$o->{items}}], [qw(p1 p2 p3 p4 p5)], 'items in key order');
ok(!(grep { exists $_->{kind} || exists $_->{apiVersion} } @{$o->{items}}), 'items carry no kind/apiVersion');
ok(!(grep { $_->{metadata}{resourceVersion} > $o->{metadata}{resourceVersion} } @{$o->{items}}),
    'the list resourceVersion is at least every item\'s');
ok(!exists $o->{metadata}{continue}, 'no continue on a complete list');

my @names;
my $token = '';
my $pages = 0;
do {
    ($st, $o) = $s->call(GET => '/api/v1/namespaces/listing/configmaps?limit=2'
        . ($token ? "&continue=$token" : ''));
    is($st, 200, "page $pages");
    push @names, map { $_->{metadata}{name} } @{$o->{items}};
    if ($pages == 0) {
        is($o->{metadata}{remainingItemCount}, 3, 'remainingItemCount on the first page');
        like($o->{metadata}{continue}, qr/^[A-Za-z0-9_-]+$/, 'continue is base64url without padding');
    }
    $token = $o->{metadata}{continue} // '';
    $pages++;
} while ($token && $pages < 10);
is_deeply(\@names, [qw(p1 p2 p3 p4 p5)], 'pages of 2 return every item once');
is($pages, 3, 'in 3 pages');
ok(!exists $o->{metadata}{remainingItemCount}, 'the last page has no remainingItemCount');

($st, $o) = $s->call(GET => '/api/v1/namespaces/listing/configmaps?limit=2&continue=garbage!');
is($st, 400, 'a malformed continue token is 400');

($st, $o) = $s->call(GET => '/api/v1/configmaps');
my %ns = map { $_->{metadata}{namespace} => 1 } @{$o->{items}};
ok($ns{default} && $ns{listing}, 'a list across all namespaces has both namespaces');

($st, $o) = $s->call(GET => '/api/v1/namespaces/listing/configmaps?fieldSelector=metadata.name%3Dp3');
is_deeply([map { $_->{metadata}{name} } @{$o->{items}}], ['p3'], 'fieldSelector metadata.name=p3');

($st, $o) = $s->call(GET => '/api/v1/namespaces?fieldSelector=metadata.name%3Dlisting');
is_deeply([map { $_->{metadata}{name} } @{$o->{items}}], ['listing'], '... for a cluster-scoped kind');

($st, $o) = $s->call(GET => '/api/v1/namespaces/listing/configmaps?fieldSelector=spec.bogus%3D1');
is($st, 400, 'an unsupported field selector is 400');
is($o->{message}, '"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"',
    '... with kube\'s message');

# --- update -------------------------------------------------------------------

(my $st3, my $cur) = $s->call(GET => '/api/v1/namespaces/listing/configmaps/p1');
my $rv = $cur->{metadata}{resourceVersion};
$cur->{data} = {changed => 'yes'};
($st, $o) = $s->call(PUT => '/api/v1/namespaces/listing/configmaps/p1', $cur);
is($st, 200, 'update answers 200');
cmp_ok($o->{metadata}{resourceVersion}, '>', $rv, 'update bumps resourceVersion');
is_deeply($o->{data}, {changed => 'yes'}, 'update replaces the data');
is($o->{metadata}{uid}, $cur->{metadata}{uid}, 'update keeps the uid');
is($o->{metadata}{creationTimestamp}, $cur->{metadata}{creationTimestamp}, '... and creationTimestamp');

($st, $o) = $s->call(PUT => '/api/v1/namespaces/listing/configmaps/p1', $cur);
is($st, 409, 'an update with a stale resourceVersion is 409');
is_deeply($o, {kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
    message => 'Operation cannot be fulfilled on configmaps "p1": the object has been modified; please apply your changes to the latest version and try again',
    reason => 'Conflict', details => {name => 'p1', kind => 'configmaps'}, code => 409},
    '... with kube\'s Conflict Status');

delete $cur->{metadata}{resourceVersion};
($st, $o) = $s->call(PUT => '/api/v1/namespaces/listing/configmaps/p1', $cur);
is($st, 200, 'an update without resourceVersion is unconditional');
my $rvSame = $o->{metadata}{resourceVersion};
($st, $o) = $s->call(PUT => '/api/v1/namespaces/listing/configmaps/p1', $cur);
is($o->{metadata}{resourceVersion}, $rvSame, 'an update that changes nothing keeps the resourceVersion');

($st, $o) = $s->call(PUT => '/api/v1/namespaces/listing/configmaps/p2', $cur);
is($st, 400, 'a body naming another object is 400');
is($o->{message}, 'the name of the object (p1) does not match the name on the URL (p2)', '... kube\'s message');

($st, $o) = $s->call(PUT => '/api/v1/namespaces/listing/configmaps/nosuch', cm('nosuch'));
is($st, 404, 'update of a missing object is 404');

($st, $o) = $s->call(PUT => '/api/v1/namespaces/listing/configmaps', cm('p1'));
is($st, 405, 'PUT on a collection is 405');
is($o->{message}, 'the server does not allow this method on the requested resource', '... kube\'s message');

($st, $o) = $s->call(POST => '/api/v1/namespaces/listing/configmaps/p9', cm('p9'));
is($st, 405, 'POST to an item is 405');

# --- generation -----------------------------------------------------------------

my $deploy = {apiVersion => 'apps/v1', kind => 'Deployment',
    metadata => {name => 'web', labels => {app => 'web'}},
    spec => {replicas => 2, selector => {matchLabels => {app => 'web'}},
             template => {metadata => {labels => {app => 'web'}},
                          spec => {containers => [{name => 'c', image => 'nginx:1.25'}]}}},
    status => {replicas => 99}};
($st, $o) = $s->call(POST => '/apis/apps/v1/namespaces/listing/deployments', $deploy);
is($st, 201, 'create a deployment');
is($o->{metadata}{generation}, 1, 'generation starts at 1');
ok(!exists $o->{status}{replicas}, 'status from the request is dropped (status subresource)');
is($o->{spec}{strategy}{type}, 'RollingUpdate', 'defaults applied: strategy');
is($o->{spec}{template}{spec}{containers}[0]{imagePullPolicy}, 'IfNotPresent', 'defaults: imagePullPolicy for a tag');

$o->{spec}{replicas} = 3;
($st, $o) = $s->call(PUT => '/apis/apps/v1/namespaces/listing/deployments/web', $o);
is($o->{metadata}{generation}, 2, 'a spec change bumps generation');
$o->{metadata}{labels}{extra} = 'x';
($st, $o) = $s->call(PUT => '/apis/apps/v1/namespaces/listing/deployments/web', $o);
is($st, 200, 'a metadata change');
is($o->{metadata}{generation}, 2, '... keeps generation');

# --- delete -------------------------------------------------------------------

($st, $o) = $s->call(DELETE => '/api/v1/namespaces/listing/configmaps/p2', {propagationPolicy => 'Background'});
is($st, 200, 'delete answers 200');
is($o->{kind}, 'Status', 'deleting a configmap returns a Status');
is($o->{status}, 'Success', '... Success');
is($o->{details}{name}, 'p2', '... naming it');
is($o->{details}{kind}, 'configmaps', '... by resource');
like($o->{details}{uid}, qr/^[0-9a-f-]{36}$/, '... with its uid');

($st, $o) = $s->call(GET => '/api/v1/namespaces/listing/configmaps/p2');
is($st, 404, 'a deleted object is gone');
is($o->{message}, 'configmaps "p2" not found', '... NotFound message');

($st, $o) = $s->call(DELETE => '/api/v1/namespaces/listing/configmaps/p2');
is($st, 404, 'deleting it again is 404');

($st, $o) = $s->call(DELETE => '/api/v1/namespaces/listing/configmaps/p3',
    {preconditions => {uid => '00000000-0000-4000-8000-000000000000'}});
is($st, 409, 'a uid precondition that does not hold is 409');
like($o->{message}, qr/^Operation cannot be fulfilled on ConfigMap "p3": the UID in the precondition \(00000000-0000-4000-8000-000000000000\) does not match the UID in record /,
    '... kube\'s message');

($st, $o) = $s->call(DELETE => '/apis/apps/v1/namespaces/listing/deployments/web');
is($o->{details}{group}, 'apps', 'a deployment delete names its group');

($st, $o) = $s->call(DELETE => '/api/v1/namespaces/listing/configmaps');
is($st, 200, 'deletecollection');
is($o->{kind}, 'ConfigMapList', '... returns the deleted objects');
is(scalar @{$o->{items}}, 4, "... the four left");
($st, $o) = $s->call(GET => '/api/v1/namespaces/listing/configmaps');
is(scalar @{$o->{items}}, 0, 'the namespace is empty afterwards');

($st, $o) = $s->call(DELETE => '/api/v1/namespaces/listing/configmaps?labelSelector=a%3Db%3Dc');
is($st, 400, 'deletecollection with a malformed label selector deletes nothing (400)');
is($o->{message}, "found '=', expected: ',' or 'end of string'", '... with kube\'s parser message');

# --- namespace deletion -------------------------------------------------------

$s->call(POST => '/api/v1/namespaces', {metadata => {name => 'doomed'}});
$s->call(POST => '/api/v1/namespaces/doomed/configmaps', cm('c1'));
$s->call(POST => '/api/v1/namespaces/doomed/secrets', {metadata => {name => 's1'}, stringData => {}});
$deploy->{metadata}{name} = 'd1';
($st) = $s->call(POST => '/apis/apps/v1/namespaces/doomed/deployments', $deploy);
is($st, 201, 'content in the namespace to delete');

($st, $o) = $s->call(DELETE => '/api/v1/namespaces/doomed');
is($st, 200, 'deleting a namespace answers 200');
is($o->{kind}, 'Namespace', '... with the Namespace');
is($o->{status}{phase}, 'Terminating', '... Terminating');
ok($o->{metadata}{deletionTimestamp}, '... with a deletionTimestamp');

# As kube's namespace controller, off the request path: soon after.
ok(wait_until(sub { ($s->call(GET => '/api/v1/namespaces/doomed'))[0] == 404 }),
    'the server finishes the deletion itself: the namespace is gone');
($st) = $s->call(GET => '/api/v1/namespaces/doomed/configmaps/c1');
is($st, 404, 'its configmap is gone');
($st, $o) = $s->call(GET => '/apis/apps/v1/deployments');
ok(!(grep { $_->{metadata}{namespace} eq 'doomed' } @{$o->{items}}), 'its deployment is gone');
($st, $o) = $s->call(GET => '/api/v1/secrets');
ok(!(grep { $_->{metadata}{namespace} eq 'doomed' } @{$o->{items}}), 'its secret is gone');

($st, $o) = $s->call(DELETE => '/api/v1/namespaces/default');
is($st, 403, 'default may not be deleted');
is($o->{message}, 'namespaces "default" is forbidden: this namespace may not be deleted', '... kube\'s message');
($st) = $s->call(DELETE => '/api/v1/namespaces/kube-system');
is($st, 403, 'nor kube-system');

($st, $o) = $s->call(DELETE => '/api/v1/namespaces');
is($st, 405, 'namespaces have no deletecollection');

# --- cluster-scoped kinds -----------------------------------------------------

($st, $o) = $s->call(POST => '/api/v1/nodes', {metadata => {name => 'node-1'}});
is($st, 201, 'create a node');
ok(!exists $o->{metadata}{namespace}, 'cluster-scoped objects have no namespace');
($st) = $s->call(POST => '/api/v1/namespaces/default/nodes', {metadata => {name => 'node-2'}});
is($st, 404, 'a cluster-scoped kind under a namespace is not a route');
($st, $o) = $s->call(POST => '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    {metadata => {name => 'system:reader'}, rules => [{apiGroups => [''], resources => ['pods'], verbs => ['get']}]});
is($st, 201, 'an RBAC name may contain a colon (path segment rule)');

ok($s->stop, 'nginx stopped gracefully');
my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'no alert in the error log') or diag(join "\n", @bad);

done_testing();
