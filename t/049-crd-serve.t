# Custom resources served from CustomResourceDefinitions, on two workers: a
# definition created with kubectl gets its names accepted and is Established
# (the time until both workers serve it is printed), shows in discovery with
# its short names, categories and singular name, and serves namespaced and
# cluster-scoped custom resources: CRUD, lists per namespace and across
# them, label selectors, pagination, watch, the status and scale
# subresources, two versions of one object, the generation, kubectl and the
# python client's CustomObjectsApi. A second definition asking for names
# another holds is refused them (NamesAccepted False). Deleting a definition
# removes its custom resources in every namespace (watchers see DELETED,
# then their watch ends) and its paths and discovery entries. Everything
# survives kill -9 of every nginx process.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Time::HiRes qw(sleep time);

my $s = start_server(tls => 1, workers => 2, reuseport => 1, config => <<'EOF');
location / {
    kube_api;
    add_header X-Worker $pid always;
}
EOF
my $group = 'h-crserve.example.com';
my $crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
my $gizmos = "/apis/$group/v1/namespaces/ns-a/gizmos";
my $all_gizmos = "/apis/$group/v1/gizmos";

# Gizmos: namespaced, v1 stored (status and scale subresources) and v2
# served (status only); short name gz, categories all and hcrs.
my $gizmo_crd = crd_yaml(group => $group, kind => 'Gizmo', singular => 'gizmo',
    short_names => ['gz'], categories => [qw(all hcrs)], versions => [
        { name => 'v1', subresources => { status => {}, scale => {
            specReplicasPath => '.spec.replicas', statusReplicasPath => '.status.replicas',
            labelSelectorPath => '.status.selector' } } },
        { name => 'v2', subresources => { status => {} } } ]);

# Knobs: cluster-scoped, one version without subresources.
my %knob = (group => $group, kind => 'Knob', short_names => ['kn'], categories => ['hcrs'],
    scope => 'Cluster');
my $knob_crd = crd_yaml(%knob);

# The seconds from $t0 until every worker has answered 200 on $path (fresh
# connections, spread over the workers by reuseport), undef if not in time.
sub served_on_both {
    my ($path, $t0, $seconds) = @_;
    my %first;
    my $ok = wait_until(sub {
        my $r = $s->request('GET', $path, timeout => 2);
        my $worker = $r->{headers}{'x-worker'};
        $first{$worker} //= time - $t0 if $worker && $r->{status} == 200;
        return keys %first >= 2;
    }, $seconds);
    return $ok ? (sort { $b <=> $a } values %first)[0] : undef;
}

# Every worker answers $status on $path ($n fresh connections in a row).
sub all_answer {
    my ($path, $status, $n) = @_;
    my %seen;
    for (1 .. $n // 12) {
        my $r = $s->request('GET', $path, timeout => 2);
        $seen{ $r->{headers}{'x-worker'} // '?' } = 1;
        return 0 unless $r->{status} == $status;
    }
    return scalar keys %seen;
}

sub gizmo {
    my ($name, %o) = @_;
    return { apiVersion => "$group/v1", kind => 'Gizmo',
        metadata => { name => $name, ($o{labels} ? (labels => $o{labels}) : ()) },
        spec => { replicas => $o{replicas} // 1, color => $o{color} // 'red' },
        ($o{status} ? (status => $o{status}) : ()) };
}

sub names_of { return [ map { $_->{metadata}{name} } @{ $_[0]{items} || [] } ] }

my ($st, $obj);
$s->create_namespace($_) for qw(ns-a ns-b ns-c);

# --- a definition is Established and served on both workers within 1 s
$s->kc_ok(undef, 'create the gizmos CRD', 'create', '-f', '-', { stdin => $gizmo_crd });
my $served = served_on_both($gizmos, time, 5);
ok(defined $served && $served < 1, 'gizmos are served on both workers within 1 s of kubectl\'s '
    . 'create') or diag('served after ' . ($served // 'never'));
note(sprintf 'kubectl create done to served on both workers: %.3f s', $served // -1);
my $crd = $s->get_json("$crds/gizmos.$group");
json_subset_ok($crd->{status}, {
    acceptedNames => { plural => 'gizmos', singular => 'gizmo', shortNames => ['gz'],
        kind => 'Gizmo', listKind => 'GizmoList', categories => [ 'all', 'hcrs' ] },
    conditions => [
        { type => 'NamesAccepted', status => 'True', reason => 'NoConflicts',
          message => 'no conflicts found' },
        { type => 'Established', status => 'True', reason => 'InitialNamesAccepted',
          message => 'the initial names have been accepted' } ],
    storedVersions => ['v1'] }, 'the CRD status: names accepted, Established, as kube writes it');
ok(!exists $crd->{metadata}{finalizers}, 'no finalizer before a delete');
my $t0 = time;
($st) = $s->call(POST => $crds, $knob_crd, type => 'application/yaml');
is($st, 201, 'create the knobs CRD (POST)');
$served = served_on_both("/apis/$group/v1/knobs", $t0, 5);
ok(defined $served && $served < 1, 'knobs are served on both workers within 1 s of the POST')
    or diag('served after ' . ($served // 'never'));
note(sprintf 'CRD POST sent to served on both workers: %.3f s', $served // -1);

# --- discovery
my $v1 = $s->get_json("/apis/$group/v1");
json_subset_ok($v1, { kind => 'APIResourceList', groupVersion => "$group/v1", resources => [
    { name => 'gizmos', singularName => 'gizmo', namespaced => JSON::PP::true(), kind => 'Gizmo',
      verbs => [qw(delete deletecollection get list patch create update watch)],
      shortNames => ['gz'], categories => [ 'all', 'hcrs' ], storageVersionHash => 'rt/8a8Sa/vQ=' },
    { name => 'gizmos/status', singularName => '', namespaced => JSON::PP::true(), kind => 'Gizmo',
      verbs => [qw(get patch update)] },
    { name => 'gizmos/scale', group => 'autoscaling', version => 'v1', kind => 'Scale',
      verbs => [qw(get patch update)] },
    { name => 'knobs', singularName => 'knob', namespaced => JSON::PP::false(), kind => 'Knob',
      shortNames => ['kn'], categories => ['hcrs'] } ] },
    'discovery of v1: kube\'s verbs, short names, categories, subresources and storage hash');
my $v2 = $s->get_json("/apis/$group/v2");
json_subset_ok($v2, { resources => [
    { name => 'gizmos', storageVersionHash => 'rt/8a8Sa/vQ=' }, { name => 'gizmos/status' } ] },
    'v2 serves gizmos (no scale), with the storage version\'s hash');
my $groupdoc = $s->get_json("/apis/$group");
json_subset_ok($groupdoc, { name => $group, preferredVersion => { version => 'v2' },
    versions => [ { version => 'v2' }, { version => 'v1' } ] },
    'the group prefers v2 (kube\'s version priority)');
my ($out) = $s->kc_ok(undef, 'api-resources', 'api-resources', "--api-group=$group");
like($out, qr/^gizmos\s+gz\s+\Q$group\E\/v2\s+true\s+Gizmo$/m, 'api-resources: gizmos');
like($out, qr/^knobs\s+kn\s+\Q$group\E\/v1\s+false\s+Knob$/m, 'api-resources: knobs');

# --- CRUD of namespaced custom resources
($st, $obj) = $s->call(POST => $gizmos, gizmo('g1', labels => { tier => 'a' },
    status => { replicas => 7 }));
is($st, 201, 'create a gizmo');
json_subset_ok($obj, { apiVersion => "$group/v1", kind => 'Gizmo',
    metadata => { name => 'g1', namespace => 'ns-a', generation => 1 },
    spec => { replicas => 1, color => 'red' } }, 'the gizmo as created');
ok(!exists $obj->{status}, 'the status sent on create is dropped (status subresource)');
is($s->request(GET => "$gizmos/g1")->{status}, 200, 'get it');
for my $ns (qw(ns-a ns-b ns-c)) {
    for my $i (1 .. 3) {
        next if $ns eq 'ns-a' && $i == 1;
        ($st) = $s->call(POST => "/apis/$group/v1/namespaces/$ns/gizmos",
            gizmo("g$i", labels => { tier => $i == 2 ? 'b' : 'a' }));
        is($st, 201, "create $ns/g$i");
    }
}
my $list = $s->get_json($gizmos);
is($list->{kind}, 'GizmoList', 'a list is a GizmoList');
is_deeply(names_of($list), [qw(g1 g2 g3)], 'the list of ns-a');
$list = $s->get_json($all_gizmos);
is(scalar @{ $list->{items} }, 9, 'the list across namespaces has all nine');
$list = $s->get_json("$all_gizmos?labelSelector=tier%3Db");
is_deeply([ map { "$_->{metadata}{namespace}/$_->{metadata}{name}" } @{ $list->{items} } ],
    [qw(ns-a/g2 ns-b/g2 ns-c/g2)], 'a label selector across namespaces');
my $page = $s->get_json("$all_gizmos?limit=4");
is(scalar @{ $page->{items} }, 4, 'a page of 4');
ok($page->{metadata}{continue}, '... with a continue token');
is($page->{metadata}{remainingItemCount}, 5, '... and 5 remaining');
my $rest = $s->get_json("$all_gizmos?limit=10&continue=$page->{metadata}{continue}");
is(scalar @{ $rest->{items} }, 5, 'the next page has the other 5');
ok(!$rest->{metadata}{continue}, '... and no continue token');

# --- watch, generation, status and scale subresources
my $w = $s->watch("$gizmos?watch=true&resourceVersion=$list->{metadata}{resourceVersion}");
is($w->status, 200, 'a watch on ns-a opens');
($st, $obj) = $s->patch(merge => "$gizmos/g1", { spec => { color => 'blue' },
    status => { replicas => 9 } });
is($st, 200, 'a merge patch of the spec');
is($obj->{metadata}{generation}, 2, 'the spec change moves the generation');
ok(!exists $obj->{status}, 'a status in a main write is ignored');
my $e = $w->next_event(5);
is($e && $e->{type}, 'MODIFIED', 'the watch sees MODIFIED');
is($e && $e->{object}{spec}{color}, 'blue', '... with the new spec');
($st, $obj) = $s->patch(merge => "$gizmos/g1", { metadata => { labels => { x => 'y' } } });
is($obj->{metadata}{generation}, 2, 'a label change leaves the generation');
($st, $obj) = $s->patch(merge => "$gizmos/g1/status",
    { spec => { color => 'green' }, metadata => { labels => { z => 'w' } },
      status => { replicas => 3, selector => 'tier=a' } });
is($st, 200, 'a merge patch of /status');
is_deeply($obj->{status}, { replicas => 3, selector => 'tier=a' }, '/status writes the status');
is($obj->{spec}{color}, 'blue', '/status keeps the spec');
ok(!exists $obj->{metadata}{labels}{z}, '/status keeps the labels');
is($obj->{metadata}{generation}, 2, '/status leaves the generation');
($st) = $s->patch(smp => "$gizmos/g1", { spec => { color => 'x' } });
is($st, 415, 'a strategic merge patch is refused (no patch strategies for custom resources)');
($out) = $s->kc_ok(undef, 'get --subresource=status', 'get', 'gizmo', 'g1', '-n', 'ns-a',
    '--subresource=status', '-o', 'jsonpath={.status.replicas}');
is($out, '3', 'kubectl get --subresource=status');
my $scale = $s->get_json("$gizmos/g1/scale");
json_subset_ok($scale, { kind => 'Scale', apiVersion => 'autoscaling/v1',
    metadata => { name => 'g1', namespace => 'ns-a' }, spec => { replicas => 1 },
    status => { replicas => 3, selector => 'tier=a' } }, 'the Scale of a gizmo');
# kubectl scales through the preferred version, v2, which has no scale
# subresource: kube's 404 for the object; named at v1, it scales.
$s->kc_fails(undef, 'scale at v2', qq{Error from server (NotFound): gizmos.$group "g1" not found},
    'scale', 'gizmo', 'g1', '-n', 'ns-a', '--replicas=5');
$s->kc_ok(undef, 'scale', 'scale', "gizmos.v1.$group", 'g1', '-n', 'ns-a', '--replicas=5');
$obj = $s->get_json("$gizmos/g1");
is($obj->{spec}{replicas}, 5, 'kubectl scale wrote spec.replicas');
is($obj->{metadata}{generation}, 3, '... and moved the generation');
my $scaled = 0;
while (my $ev = $w->next_event(5)) {
    last if ($scaled = ($ev->{object}{spec}{replicas} // 0) == 5);
}
ok($scaled, 'the watch sees the scale');

# --- two versions: a v1 object read as v2
$obj = $s->get_json("/apis/$group/v2/namespaces/ns-a/gizmos/g1");
is($obj->{apiVersion}, "$group/v2", 'read at v2: apiVersion rewritten');
is($obj->{spec}{replicas}, 5, '... same object');
($st, $obj) = $s->call(POST => "/apis/$group/v2/namespaces/ns-a/gizmos",
    { apiVersion => "$group/v2", kind => 'Gizmo', metadata => { name => 'g9' },
      spec => { replicas => 2 } });
is($st, 201, 'create at v2');
is($obj->{apiVersion}, "$group/v2", '... answered at v2');
$obj = $s->get_json("$gizmos/g9");
is($obj->{apiVersion}, "$group/v1", '... read at v1');
my $added;
while (my $ev = $w->next_event(5)) {
    last if ($added = $ev->{type} eq 'ADDED' && $ev->{object}{metadata}{name} eq 'g9');
}
ok($added, 'the watch sees it ADDED');

# --- shortNames, categories, kubectl CRUD, other kubectl versions
($out) = $s->kc_ok(undef, 'get gz', 'get', 'gz', '-n', 'ns-b', '-o', 'name');
is($out, "gizmo.$group/g1\ngizmo.$group/g2\ngizmo.$group/g3\n", 'kubectl get gz (short name)');
($out) = $s->kc_ok(undef, 'get hcrs', 'get', 'hcrs', '-A', '--no-headers');
is(scalar(() = $out =~ /^ns-\S+\s+gizmo\./mg), 10, 'kubectl get hcrs (category): every gizmo');
($out) = $s->kc_ok(undef, 'get all', 'get', 'all', '-n', 'ns-c', '-o', 'name');
like($out, qr{^gizmo\.\Q$group\E/g1$}m, 'kubectl get all shows gizmos');
($out) = $s->kc_ok(undef, 'get gizmos table', 'get', 'gizmos', '-n', 'ns-c');
like($out, qr/^NAME\s+AGE\ng1\s+\d+s\n/, 'the default columns: NAME and AGE');
for my $v (grep { $_ eq '1.27' || $_ eq '1.33' } kubectl_versions()) {
    ($out) = $s->kc_ok($v, 'get gz', 'get', 'gz', '-n', 'ns-b', '-o', 'name');
    is($out, "gizmo.$group/g1\ngizmo.$group/g2\ngizmo.$group/g3\n", "kubectl $v get gz");
    ($out) = $s->kc_ok($v, 'label', 'label', 'gizmo', 'g3', '-n', 'ns-b', "v$v=yes");
    like($out, qr/labeled/, "kubectl $v label (a merge patch)");
}
($out) = $s->kc_ok(undef, 'apply a knob', 'apply', '-f', '-',
    { stdin => "apiVersion: $group/v1\nkind: Knob\nmetadata: {name: k1}\nspec: {turn: 3}\n" });
like($out, qr{knob\.\Q$group\E/k1 created}, 'kubectl apply creates a knob');
($out) = $s->kc_ok(undef, 'apply again', 'apply', '-f', '-',
    { stdin => "apiVersion: $group/v1\nkind: Knob\nmetadata: {name: k1}\nspec: {turn: 4}\n" });
like($out, qr/configured/, 'kubectl apply configures it');
$obj = $s->get_json("/apis/$group/v1/knobs/k1");
is($obj->{spec}{turn}, 4, 'the knob has the new spec');
is($obj->{metadata}{generation}, 2, 'a knob (no status subresource) counts its generation');
($st, $obj) = $s->call(PUT => "/apis/$group/v1/knobs/k1", { %$obj, status => { on => 1 } });
is($obj->{metadata}{generation}, 3, '... the status too, without a status subresource');
is($s->request(GET => "/apis/$group/v1/namespaces/ns-a/knobs/k1")->{status}, 404,
    'a cluster-scoped kind under a namespace: 404');

# --- the python client's CustomObjectsApi
my ($rc, $py, $pyerr) = python_client($s, <<"PY");
from kubernetes import client, config
config.load_kube_config()
api = client.CustomObjectsApi()
g, v = '$group', 'v1'
api.create_namespaced_custom_object(g, v, 'ns-c', 'gizmos',
    {'apiVersion': g + '/v1', 'kind': 'Gizmo', 'metadata': {'name': 'py1'}, 'spec': {'replicas': 1}})
o = api.get_namespaced_custom_object(g, v, 'ns-c', 'gizmos', 'py1')
print('get', o['metadata']['name'], o['spec']['replicas'])
o = api.patch_namespaced_custom_object(g, v, 'ns-c', 'gizmos', 'py1', {'spec': {'replicas': 4}})
print('patched', o['spec']['replicas'], o['metadata']['generation'])
l = api.list_namespaced_custom_object(g, v, 'ns-c', 'gizmos')
print('list', sorted(i['metadata']['name'] for i in l['items']))
l = api.list_cluster_custom_object(g, v, 'knobs')
print('knobs', [i['metadata']['name'] for i in l['items']])
api.delete_namespaced_custom_object(g, v, 'ns-c', 'gizmos', 'py1')
try:
    api.get_namespaced_custom_object(g, v, 'ns-c', 'gizmos', 'py1')
except client.ApiException as e:
    print('gone', e.status)
PY
is($rc, 0, 'the python client ran') or diag($pyerr);
is($py, "get py1 1\npatched 4 2\nlist ['g1', 'g2', 'g3', 'py1']\nknobs ['k1']\ngone 404\n",
    'CustomObjectsApi: create, get, patch, list, delete');

# --- protobuf is not offered for custom resources
my $r = $s->request(GET => "$gizmos/g1",
    headers => { Accept => 'application/vnd.kubernetes.protobuf' });
is($r->{status}, 406, 'Accept protobuf only: 406');
$r = $s->request(GET => "$gizmos/g1",
    headers => { Accept => 'application/vnd.kubernetes.protobuf, application/json' });
is($r->{status}, 200, 'protobuf then JSON: 200');
like($r->{headers}{'content-type'}, qr{^application/json}, '... in JSON');
$r = $s->request(POST => $gizmos, body => pb_envelope("$group/v1", 'Gizmo', ''),
    headers => { 'Content-Type' => 'application/vnd.kubernetes.protobuf' });
is($r->{status}, 415, 'a protobuf body: 415');

# --- names another definition holds are refused
my $clash = crd_yaml(%knob, kind => 'Widget', short_names => [qw(gz kn)], scope => 'Namespaced');
$s->kc_ok(undef, 'create a CRD with taken short names', 'create', '-f', '-', { stdin => $clash });
my $cond = wait_until(sub {
    my $c = $s->get_json("$crds/widgets.$group");
    my ($n) = grep { $_->{type} eq 'NamesAccepted' } @{ $c->{status}{conditions} || [] };
    return $n;
}, 5);
json_subset_ok($cond, { status => 'False', reason => 'ShortNamesConflict',
    message => '["gz" is already in use, "kn" is already in use]' },
    'NamesAccepted False: ShortNamesConflict with kube\'s message');
$crd = $s->get_json("$crds/widgets.$group");
my ($est) = grep { $_->{type} eq 'Established' } @{ $crd->{status}{conditions} || [] };
json_subset_ok($est, { status => 'False', reason => 'NotAccepted',
    message => 'not all names are accepted' }, 'so it is not Established');
is_deeply($crd->{status}{acceptedNames}, { plural => 'widgets', singular => 'widget',
    kind => 'Widget', listKind => 'WidgetList', categories => ['hcrs'] },
    'the free names are accepted, not the short names');
is($s->request(GET => "/apis/$group/v1/namespaces/ns-a/widgets")->{status}, 404,
    'widgets are not served');

# --- kill -9 and restart: everything is still there and served
$s->kill9_all;
ok($s->start, 'nginx starts again after kill -9') or diag($s->{start_error});
$served = served_on_both($gizmos, time, 10);
ok(defined $served, 'gizmos are served again on both workers');
$list = $s->get_json($all_gizmos);
is(scalar @{ $list->{items} }, 10, 'every gizmo is still there');
is($s->get_json("$gizmos/g1")->{spec}{replicas}, 5, 'with its last state');

# --- deleting a definition deletes its custom resources everywhere
$list = $s->get_json($all_gizmos);
my $aw = $s->watch("$all_gizmos?watch=true&resourceVersion=$list->{metadata}{resourceVersion}");
is($aw->status, 200, 'a watch across namespaces opens');
($st, $obj) = $s->call(DELETE => "$crds/gizmos.$group");
is($st, 200, 'DELETE the gizmos CRD: 200 with the object');
is_deeply($obj->{metadata}{finalizers}, ['customresourcecleanup.apiextensions.k8s.io'],
    '... marked with the cleanup finalizer');
my $term;
($term) = grep { $_->{type} eq 'Terminating' } @{ $obj->{status}{conditions} || [] };
json_subset_ok($term, { status => 'True', reason => 'InstanceDeletionPending' },
    '... and Terminating');
my %deleted;
while (my $ev = $aw->next_event(5)) {
    $deleted{"$ev->{object}{metadata}{namespace}/$ev->{object}{metadata}{name}"} = 1
        if $ev->{type} eq 'DELETED';
    last if keys %deleted == 10;
}
is(scalar keys %deleted, 10, 'the watch sees every gizmo DELETED');
ok(wait_until(sub { $aw->ended }, 5), 'then the watch ends');
ok(wait_until(sub { $s->request(GET => "$crds/gizmos.$group")->{status} == 404 }, 5),
    'the CRD is gone');
ok(wait_until(sub { all_answer($gizmos, 404) == 2 }, 5), 'its paths answer 404 on both workers');
ok(wait_until(sub { all_answer("/apis/$group/v2", 404) == 2 }, 5),
    'v2 (served only by gizmos) is gone from discovery on both workers');
$v1 = $s->get_json("/apis/$group/v1");
is_deeply([ map { $_->{name} } @{ $v1->{resources} } ], ['knobs'],
    'discovery of v1 lists knobs only');
# a knob with a finalizer holds its definition Terminating; creates are refused
my $knobs = "/apis/$group/v1/knobs";
($st) = $s->patch(merge => "$knobs/k1", { metadata => { finalizers => ["$group/hold"] } });
is($st, 200, 'a finalizer on k1');
($st) = $s->call(DELETE => "$crds/knobs.$group");
is($st, 200, 'DELETE the knobs CRD');
my $held = wait_until(sub {
    my $k = $s->get_json("$knobs/k1");
    return $k && $k->{metadata}{deletionTimestamp} ? $k : undef;
}, 5);
ok($held, 'k1 is being deleted, held by its finalizer');
($st, $obj) = $s->call(POST => $knobs, { apiVersion => "$group/v1", kind => 'Knob',
    metadata => { name => 'k2' } });
is($st, 405, 'a create while the definition terminates: 405');
json_subset_ok($obj, { reason => 'MethodNotAllowed',
    message => 'create not allowed while custom resource definition is terminating',
    details => { group => $group, kind => 'knobs' } }, '... with kube\'s message');
($term) = grep { $_->{type} eq 'Terminating' }
    @{ ($s->get_json("$crds/knobs.$group") || {})->{status}{conditions} || [] };
json_subset_ok($term, { status => 'True', reason => 'InstanceDeletionInProgress',
    message => 'CustomResource deletion is in progress' }, 'the CRD waits: Terminating');
($st) = $s->patch(merge => "$knobs/k1", { metadata => { finalizers => undef } });
is($st, 200, 'the finalizer goes');
ok(wait_until(sub { $s->request(GET => "$crds/knobs.$group")->{status} == 404 }, 5),
    'then the knobs CRD goes');
is($s->request(GET => "/apis/$group/v1/knobs/k1")->{status}, 404, 'knobs are gone');
ok(!$s->get_json("/apis/$group/v1/knobs"), 'and their list');
# the short names gz and kn are free now: widgets get them and are served
ok(defined served_on_both("/apis/$group/v1/namespaces/ns-a/widgets", time, 5),
    'widgets are served once the names they asked for are free');
$crd = $s->get_json("$crds/widgets.$group");
is_deeply($crd->{status}{acceptedNames}{shortNames}, [ 'gz', 'kn' ],
    '... with their short names');
$s->kc_ok(undef, 'delete the widgets CRD', 'delete', 'crd', "widgets.$group");
$s->kc_ok(undef, 'recreate the gizmos CRD', 'create', '-f', '-', { stdin => $gizmo_crd });
ok(defined served_on_both($all_gizmos, time, 5), 'a recreated definition is served again');
is_deeply($s->get_json($all_gizmos)->{items}, [], '... with none of the old gizmos');

# --- deleting a namespace deletes the custom resources in it
$s->create_namespace('ns-d');
($st) = $s->call(POST => "/apis/$group/v1/namespaces/ns-d/gizmos", gizmo('d1'));
is($st, 201, 'a gizmo in ns-d');
($st) = $s->call(DELETE => '/api/v1/namespaces/ns-d');
is($st, 200, 'delete ns-d');
ok(wait_until(sub { $s->request(GET => '/api/v1/namespaces/ns-d')->{status} == 404 }, 10),
    'the namespace goes');
is($s->request(GET => "/apis/$group/v1/namespaces/ns-d/gizmos/d1")->{status}, 404,
    '... and its gizmo with it');

$s->fatal_free_ok($s->error_log_since_start, 'the whole file');
done_testing();
