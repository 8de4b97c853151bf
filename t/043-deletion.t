# Deletion as kube-apiserver 1.26 does it: an object with finalizers is
# marked (deletionTimestamp, deletionGracePeriodSeconds) and kept until an
# update takes its last finalizer off, then goes (watchers see MODIFIED, then
# DELETED); no finalizer may be added once it is deleting and the deletion
# fields are immutable (422 in kube's words); preconditions that do not hold
# are 409 and change nothing; dryRun marks nothing; pods are deleted
# gracefully (their terminationGracePeriodSeconds; an unscheduled pod goes at
# once); `kubectl delete --cascade=background|foreground|orphan` of a
# Deployment that owns a ReplicaSet that owns Pods (made here with
# ownerReferences: no controllers run) is carried out by the server's garbage
# collector, which also collects dependents whose owner (by uid) is gone;
# deletecollection with label and field selectors honours finalizers; a
# deleted namespace stays Terminating, with kube's namespace controller's
# conditions, while objects in it hold finalizers, and goes once they are gone.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $ns = 'deletion';
my $cms = "/api/v1/namespaces/$ns/configmaps";
my $pods = "/api/v1/namespaces/$ns/pods";
my $rss = "/apis/apps/v1/namespaces/$ns/replicasets";
my $deploys = "/apis/apps/v1/namespaces/$ns/deployments";

sub merge_patch {
    my ($path, $body) = @_;
    return $s->call(PATCH => $path, $body, type => 'application/merge-patch+json');
}

sub status_of { return ($s->call(GET => $_[0]))[0] }

sub gone_ok {
    my ($path, $what) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok(wait_until(sub { status_of($path) == 404 }, 20), "$what is gone")
        or diag("GET $path: " . status_of($path));
}

is(($s->call(POST => '/api/v1/namespaces', { metadata => { name => $ns } }))[0], 201,
    'namespace created');

# --- finalizers -------------------------------------------------------------

my ($st, $held) = $s->call(POST => $cms,
    { metadata => { name => 'held', finalizers => ['example.com/hold'] }, data => { a => 'b' } });
is($st, 201, 'configmap with a finalizer created');
my $w = $s->watch("$cms?watch=1&fieldSelector=metadata.name%3Dheld"
    . "&resourceVersion=$held->{metadata}{resourceVersion}");

my $marked;
($st, $marked) = $s->call(DELETE => "$cms/held");
is($st, 200, 'DELETE of an object with finalizers: 200');
json_subset_ok($marked, { kind => 'ConfigMap', metadata => { name => 'held',
    deletionGracePeriodSeconds => 0, finalizers => ['example.com/hold'] } },
    'answers the object, marked with a grace period of 0');
like($marked->{metadata}{deletionTimestamp} // '', qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    'deletionTimestamp is set');
my ($st2, $again) = $s->call(DELETE => "$cms/held");
is($st2, 200, 'a second DELETE: 200');
is($again->{metadata}{resourceVersion}, $marked->{metadata}{resourceVersion},
    'and changes nothing');
is(status_of("$cms/held"), 200, 'the object stays while it has a finalizer');

my $refused;
($st, $refused) = merge_patch("$cms/held",
    { metadata => { finalizers => ['example.com/hold', 'b/c', 'a/x'] } });
my $why = 'Forbidden: no new finalizers can be added if the object is being deleted, '
    . 'found new finalizers []string{"a/x", "b/c"}';
is($st, 422, 'adding a finalizer to a deleting object: 422');
json_subset_ok($refused, { reason => 'Invalid', code => 422,
    message => "ConfigMap \"held\" is invalid: metadata.finalizers: $why",
    details => { name => 'held', kind => 'ConfigMap', causes => [
        { reason => 'FieldValueForbidden', field => 'metadata.finalizers', message => $why },
        { reason => 'FieldValueForbidden', field => 'metadata.finalizers', message => $why },
    ] } }, "in kube's words, the cause listed twice as kube lists it");

($st, $refused) = merge_patch("$cms/held", { metadata => { deletionGracePeriodSeconds => 5 } });
is($st, 422, 'changing deletionGracePeriodSeconds: 422');
is($refused->{message}, 'ConfigMap "held" is invalid: metadata.deletionGracePeriodSeconds: '
    . 'Invalid value: 5: field is immutable', 'field is immutable');
my (undef, $still) = $s->call(GET => "$cms/held");
is($still->{metadata}{resourceVersion}, $marked->{metadata}{resourceVersion},
    'refused updates changed nothing');

($st, my $last) = merge_patch("$cms/held", { metadata => { finalizers => undef } });
is($st, 200, 'removing the last finalizer: 200');
ok(!exists $last->{metadata}{finalizers}, 'answers the object without finalizers');
is(status_of("$cms/held"), 404, 'and the object is gone');
my @seen;
while (my $e = $w->next_event(5)) {
    push @seen, $e->{type};
    last if $e->{type} eq 'DELETED';
}
is("@seen", 'MODIFIED DELETED', 'the watch saw MODIFIED (marked), then DELETED');

# A finalizer taken off by a PUT, and a status-less kind through JSON patch.
$s->call(POST => $cms, { metadata => { name => 'put', finalizers => ['x.io/a', 'x.io/b'] } });
$s->call(DELETE => "$cms/put");
($st) = $s->call(PATCH => "$cms/put", '[{"op":"remove","path":"/metadata/finalizers/0"}]',
    type => 'application/json-patch+json');
is($st, 200, 'JSON patch removes one finalizer');
is(status_of("$cms/put"), 200, 'one finalizer left: still there');
my (undef, $cur) = $s->call(GET => "$cms/put");
delete $cur->{metadata}{finalizers};
($st) = $s->call(PUT => "$cms/put", $cur);
is($st, 200, 'PUT without finalizers: 200');
is(status_of("$cms/put"), 404, 'and the object is gone');

# --- preconditions and dryRun ----------------------------------------------

my ($c, $pre) = $s->call(POST => $cms, { metadata => { name => 'pre' } });
($st, $refused) = $s->call(DELETE => "$cms/pre",
    { preconditions => { uid => 'not-the-uid' } });
is($st, 409, 'a uid precondition that does not hold: 409');
is($refused->{message}, "Operation cannot be fulfilled on ConfigMap \"pre\": the UID in the "
    . "precondition (not-the-uid) does not match the UID in record ($pre->{metadata}{uid}). "
    . 'The object might have been deleted and then recreated', "kube's message");
($st, $refused) = $s->call(DELETE => "$cms/pre", { preconditions => { resourceVersion => '1' } });
is($st, 409, 'a resourceVersion precondition that does not hold: 409');
my (undef, $after) = $s->call(GET => "$cms/pre");
is($after->{metadata}{resourceVersion}, $pre->{metadata}{resourceVersion}, 'nothing changed');

$s->call(POST => $cms, { metadata => { name => 'dry', finalizers => ['x.io/keep'] } });
($st, my $dry) = $s->call(DELETE => "$cms/dry?dryRun=All");
is($st, 200, 'dry-run DELETE of an object with finalizers: 200');
ok($dry->{metadata}{deletionTimestamp}, 'answers it marked');
(undef, $after) = $s->call(GET => "$cms/dry");
ok(!exists $after->{metadata}{deletionTimestamp}, 'but the stored object is not marked');
($st, my $prop) = $s->call(DELETE => "$cms/pre?propagationPolicy=Foreground&dryRun=All");
is_deeply($prop->{metadata}{finalizers}, ['foregroundDeletion'],
    'a dry-run foreground delete answers the foregroundDeletion finalizer');
is(status_of("$cms/pre"), 200, 'and keeps the object');

# --- pods: graceful deletion ------------------------------------------------

sub pod {
    my ($name, %o) = @_;
    return { metadata => { name => $name, %{ $o{meta} || {} } },
        spec => { containers => [{ name => 'c', image => 'busybox' }], %{ $o{spec} || {} } } };
}

($st) = $s->call(POST => $pods, pod('sched', spec => { nodeName => 'node-1' }));
is($st, 201, 'a pod on a node created');
($st, my $p) = $s->call(DELETE => "$pods/sched");
is($st, 200, 'DELETE of a scheduled pod: 200');
json_subset_ok($p, { kind => 'Pod', metadata => { deletionGracePeriodSeconds => 30 } },
    'answers the pod with its terminationGracePeriodSeconds (30) as the grace period');
is(status_of("$pods/sched"), 200, 'with no kubelet to finish, the pod stays');
($st, my $p10) = $s->call(DELETE => "$pods/sched?gracePeriodSeconds=10");
is($p10->{metadata}{deletionGracePeriodSeconds}, 10, 'a shorter grace period is taken');
($st, my $p40) = $s->call(DELETE => "$pods/sched?gracePeriodSeconds=40");
is($p40->{metadata}{deletionGracePeriodSeconds}, 10, 'a longer one is not');
is($p40->{metadata}{resourceVersion}, $p10->{metadata}{resourceVersion}, 'and changes nothing');
$s->kc_ok(undef, 'delete --force --grace-period=0', '-n', $ns, 'delete', 'pod', 'sched',
    '--force', '--grace-period=0');
is(status_of("$pods/sched"), 404, 'the forced delete removed the pod');

$s->call(POST => $pods, pod('unscheduled'));
($st, $p) = $s->call(DELETE => "$pods/unscheduled");
is($st, 200, 'DELETE of an unscheduled pod: 200');
json_subset_ok($p, { kind => 'Pod', metadata => { deletionGracePeriodSeconds => 0 } },
    'answers the pod with a grace period of 0');
is(status_of("$pods/unscheduled"), 404, 'and it is gone at once');

# --- kubectl delete --cascade ----------------------------------------------

sub owner_ref {
    my ($obj, %o) = @_;
    return { apiVersion => $obj->{apiVersion}, kind => $obj->{kind},
        name => $obj->{metadata}{name}, uid => $obj->{metadata}{uid},
        controller => JSON::PP::true, blockOwnerDeletion => JSON::PP::true, %o };
}

my $template = { metadata => { labels => { app => 'web' } },
    spec => { containers => [{ name => 'c', image => 'nginx' }] } };

# A Deployment owning a ReplicaSet owning two Pods.
sub family {
    my ($name) = @_;
    my (undef, $d) = $s->call(POST => $deploys, { metadata => { name => $name }, spec => {
        selector => { matchLabels => { app => 'web' } }, template => $template } });
    my (undef, $rs) = $s->call(POST => $rss, { metadata => { name => "$name-rs",
        ownerReferences => [owner_ref($d)] }, spec => {
        selector => { matchLabels => { app => 'web' } }, template => $template } });
    my @p;
    for my $i (1, 2) {
        my (undef, $pod) = $s->call(POST => $pods,
            pod("$name-$i", meta => { ownerReferences => [owner_ref($rs)] }));
        push @p, $pod;
    }
    ok($d->{metadata}{uid} && $rs->{metadata}{uid} && $p[1]{metadata}{uid},
        "$name: deployment, replicaset and pods created");
    return ($d, $rs, @p);
}

family('bg');
$s->kc_ok(undef, 'delete --cascade=background', '-n', $ns, 'delete', 'deployment', 'bg',
    '--cascade=background');
gone_ok("$deploys/bg", 'background: the deployment');
gone_ok("$rss/bg-rs", 'background: its replicaset');
gone_ok("$pods/bg-$_", "background: pod $_") for 1, 2;

family('fg');
$s->kc_ok(undef, 'delete --cascade=foreground', '-n', $ns, 'delete', 'deployment', 'fg',
    '--cascade=foreground');
gone_ok("$deploys/fg", 'foreground: the deployment');
is(status_of("$rss/fg-rs"), 404, 'foreground: its replicaset went before it');
is(status_of("$pods/fg-$_"), 404, "foreground: pod $_ went before it") for 1, 2;

my (undef, $ors) = family('or');
$s->kc_ok(undef, 'delete --cascade=orphan', '-n', $ns, 'delete', 'deployment', 'or',
    '--cascade=orphan');
gone_ok("$deploys/or", 'orphan: the deployment');
my (undef, $orphan) = $s->call(GET => "$rss/or-rs");
is($orphan->{metadata}{uid}, $ors->{metadata}{uid}, 'orphan: the replicaset stays');
ok(!exists $orphan->{metadata}{ownerReferences}, 'and no longer names the deployment');
my (undef, $opod) = $s->call(GET => "$pods/or-1");
is($opod->{metadata}{ownerReferences}[0]{uid}, $ors->{metadata}{uid},
    'its pods still name the replicaset');

# A foreground delete through the API: the owner is marked with the
# foregroundDeletion finalizer and goes once its blocking dependent has.
my (undef, $owner) = $s->call(POST => $cms, { metadata => { name => 'owner' } });
$s->call(POST => $cms, { metadata => { name => 'blocker', finalizers => ['x.io/slow'],
    ownerReferences => [owner_ref($owner)] } });
($st, my $fg) = $s->call(DELETE => "$cms/owner", { propagationPolicy => 'Foreground' });
is($st, 200, 'DELETE with propagationPolicy Foreground: 200');
is_deeply($fg->{metadata}{finalizers}, ['foregroundDeletion'],
    'the owner carries the foregroundDeletion finalizer');
ok(wait_until(sub { (($s->call(GET => "$cms/blocker"))[1]{metadata}{deletionTimestamp}) }, 20),
    'the collector deletes the blocking dependent');
is(status_of("$cms/owner"), 200, 'the owner waits while the dependent has a finalizer');
merge_patch("$cms/blocker", { metadata => { finalizers => undef } });
gone_ok("$cms/owner", 'once the dependent went, the owner');

# --- dangling references ---------------------------------------------------

my (undef, $real) = $s->call(POST => $cms, { metadata => { name => 'real' } });
$s->call(POST => $pods, pod('ghost-child', meta => { ownerReferences => [{
    apiVersion => 'apps/v1', kind => 'ReplicaSet', name => 'ghost',
    uid => '00000000-0000-0000-0000-000000000001' }] }));
$s->call(POST => $pods, pod('wrong-uid', meta => { ownerReferences => [
    owner_ref($real, uid => '00000000-0000-0000-0000-000000000002')] }));
$s->call(POST => $pods, pod('kept', meta => { ownerReferences => [owner_ref($real)] }));
gone_ok("$pods/ghost-child", 'a pod whose owner never existed');
gone_ok("$pods/wrong-uid", 'a pod whose owner by that name has another uid');
is(status_of("$pods/kept"), 200, 'a pod whose owner exists stays');
$s->call(DELETE => "$cms/real");
gone_ok("$pods/kept", 'after its owner was deleted, that pod');

# --- deletecollection ------------------------------------------------------

$s->call(POST => $cms, { metadata => { name => "col-$_->[0]", labels => { set => $_->[1] },
    $_->[2] ? (finalizers => ['x.io/hold']) : () } })
    for ['a', 'x', 0], ['b', 'x', 1], ['c', 'y', 0], ['d', 'y', 0];
($st, my $list) = $s->call(DELETE => "$cms?labelSelector=set%3Dx");
is($st, 200, 'deletecollection with a label selector: 200');
is(join(',', map { $_->{metadata}{name} } @{ $list->{items} }), 'col-a,col-b',
    'answers the selected objects');
is(status_of("$cms/col-a"), 404, 'the one without finalizers is gone');
my (undef, $colb) = $s->call(GET => "$cms/col-b");
ok($colb->{metadata}{deletionTimestamp}, 'the one with a finalizer is marked and kept');
($st, $list) = $s->call(DELETE => "$cms?fieldSelector=metadata.name%3Dcol-c");
is(join(',', map { $_->{metadata}{name} } @{ $list->{items} }), 'col-c',
    'deletecollection with a field selector deletes the one it names');
is(status_of("$cms/col-c"), 404, 'col-c gone');
is(status_of("$cms/col-d"), 200, 'col-d kept');
merge_patch("$cms/col-b", { metadata => { finalizers => undef } });
is(status_of("$cms/col-b"), 404, 'col-b goes with its finalizer');

($st, $list) = $s->call(DELETE => "$pods?labelSelector=app%3Dnone");
is($st, 200, 'deletecollection of pods matching nothing: 200');

# --- a namespace waits for its contents' finalizers ----------------------------

my $doomed = 'doomed-held';
$s->call(POST => '/api/v1/namespaces', { metadata => { name => $doomed } });
my $dcms = "/api/v1/namespaces/$doomed/configmaps";
$s->call(POST => $dcms, { metadata => { name => 'held', finalizers => ['example.com/hold'] } });
$s->call(POST => $dcms, { metadata => { name => 'free' } });
$s->call(POST => "/apis/apps/v1/namespaces/$doomed/deployments", { metadata => { name => 'd' },
    spec => { selector => { matchLabels => { app => 'a' } }, template => {
        metadata => { labels => { app => 'a' } },
        spec => { containers => [ { name => 'c', image => 'x' } ] } } } });
($st, my $nsObj) = $s->call(DELETE => "/api/v1/namespaces/$doomed");
is($st, 200, 'DELETE of a namespace: 200');
is($nsObj->{status}{phase}, 'Terminating', '... answers it Terminating');
ok($nsObj->{metadata}{deletionTimestamp}, '... with a deletionTimestamp');
is_deeply($nsObj->{spec}{finalizers}, ['kubernetes'], '... and its kubernetes finalizer');
gone_ok("$dcms/free", 'a configmap without finalizers in it');
gone_ok("/apis/apps/v1/namespaces/$doomed/deployments/d", 'a deployment in it');
my (undef, $heldNow) = $s->call(GET => "$dcms/held");
ok($heldNow->{metadata}{deletionTimestamp}, 'the configmap with a finalizer is marked and kept');
my %cond;
ok(wait_until(sub {
    my (undef, $n) = $s->call(GET => "/api/v1/namespaces/$doomed");
    %cond = map { $_->{type} => $_ } @{ $n->{status}{conditions} || [] };
    $cond{NamespaceContentRemaining} }, 20), 'the namespace gets deletion conditions');
my (undef, $n) = $s->call(GET => "/api/v1/namespaces/$doomed");
is($n->{status}{phase}, 'Terminating', '... stays Terminating');
is_deeply($n->{spec}{finalizers}, ['kubernetes'], '... keeps its kubernetes finalizer');
is_deeply([ map { $_->{type} } @{ $n->{status}{conditions} } ],
    [ qw(NamespaceDeletionDiscoveryFailure NamespaceDeletionGroupVersionParsingFailure
         NamespaceDeletionContentFailure NamespaceContentRemaining NamespaceFinalizersRemaining) ],
    "... kube's five conditions in kube's order");
json_subset_ok(\%cond, {
    NamespaceDeletionDiscoveryFailure => { status => 'False', reason => 'ResourcesDiscovered',
        message => 'All resources successfully discovered' },
    NamespaceDeletionGroupVersionParsingFailure => { status => 'False',
        reason => 'ParsedGroupVersions', message => 'All legacy kube types successfully parsed' },
    NamespaceDeletionContentFailure => { status => 'False', reason => 'ContentDeleted',
        message => 'All content successfully deleted, may be waiting on finalization' },
    NamespaceContentRemaining => { status => 'True', reason => 'SomeResourcesRemain',
        message => 'Some resources are remaining: configmaps. has 1 resource instances' },
    NamespaceFinalizersRemaining => { status => 'True', reason => 'SomeFinalizerRemain',
        message => 'Some finalizers are remaining: example.com/hold in 1 resource instances' },
}, "... with kube's reasons and messages");
like($cond{NamespaceContentRemaining}{lastTransitionTime} // '', qr/^\d{4}-\d\d-\d\dT[\d:]+Z$/,
    '... and transition times');
($st, my $late) = $s->call(POST => $dcms, { metadata => { name => 'late' } });
is($st, 403, 'no new content in the terminating namespace');
merge_patch("$dcms/held", { metadata => { finalizers => undef } });
gone_ok("$dcms/held", 'the configmap, its finalizer removed,');
gone_ok("/api/v1/namespaces/$doomed", 'then the namespace');

$s->fatal_free_ok($s->error_log_since_start, 'deletion');
done_testing();
