# The garbage collector and the quota controller follow kinds added and
# removed while the server runs (custom resources): a ConfigMap owned by a
# custom resource goes when the custom resource is deleted (background and
# foreground), a custom resource owned by a ConfigMap goes with the
# ConfigMap, a definition deleted while the collector follows its kind
# leaves it working for the other kinds (no error lines), and a
# ResourceQuota of count/<plural>.<group> counts custom resources in
# status.used and refuses the one too many with kube-apiserver 1.26.5's 403.
# After a restart the definitions found at start are followed as well.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Time::HiRes qw(sleep time);

my $s = start_server(tls => 1, workers => 2, reuseport => 1);
my $group = 'h-crgc.example.com';
my $crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
my $ns = 'gc-a';
my $cms = "/api/v1/namespaces/$ns/configmaps";

# Created, then served (on whichever worker answers) within 5 s.
sub define {
    my ($plural, $kind) = @_;
    my ($st) = $s->call(POST => $crds, crd(group => $group, kind => $kind, plural => $plural));
    is($st, 201, "create the $plural CRD");
    ok(wait_until(sub {
        !grep { $s->request(GET => "/apis/$group/v1/namespaces/$ns/$plural")->{status} != 200 }
            1 .. 4 }, 5), "$plural are served");
}

sub owner_ref {
    my ($api, $kind, $obj) = @_;
    return { apiVersion => $api, kind => $kind, name => $obj->{metadata}{name},
        uid => $obj->{metadata}{uid}, blockOwnerDeletion => JSON::PP::true() };
}

sub create_cm {
    my ($name, @owners) = @_;
    my ($st, $o) = $s->call(POST => $cms, { apiVersion => 'v1', kind => 'ConfigMap',
        metadata => { name => $name, (@owners ? (ownerReferences => \@owners) : ()) } });
    is($st, 201, "create configmap $name");
    return $o;
}

sub create_cr {
    my ($plural, $kind, $name, @owners) = @_;
    my ($st, $o, $r) = $s->call(POST => "/apis/$group/v1/namespaces/$ns/$plural",
        { apiVersion => "$group/v1", kind => $kind,
          metadata => { name => $name, (@owners ? (ownerReferences => \@owners) : ()) },
          spec => { n => 1 } });
    is($st, 201, "create $plural/$name") or diag($r->{body});
    return $o;
}

sub gone {
    my ($path, $what) = @_;
    ok(wait_until(sub { $s->request(GET => $path)->{status} == 404 }, 10), $what);
}

$s->create_namespace($ns);
define('gadgets', 'Gadget');
define('widgets', 'Widget');
my $gadgets = "/apis/$group/v1/namespaces/$ns/gadgets";

# --- a custom resource owning a ConfigMap, deleted in the background and the foreground
for my $policy (qw(Background Foreground)) {
    my $lc = lc $policy;
    my $g = create_cr('gadgets', 'Gadget', "owner-$lc");
    create_cm("dep-$lc", owner_ref("$group/v1", 'Gadget', $g));
    my ($st, $o) = $s->call(DELETE => "$gadgets/owner-$lc",
        { kind => 'DeleteOptions', apiVersion => 'v1', propagationPolicy => $policy });
    ok($st == 200 || $st == 202, "delete the gadget ($policy): $st");
    gone("$cms/dep-$lc", "$policy: the ConfigMap it owned is collected");
    gone("$gadgets/owner-$lc", "$policy: the gadget is gone");
}

# --- a custom resource owned by a ConfigMap
my $cm = create_cm('cm-owner');
create_cr('gadgets', 'Gadget', 'dep-of-cm', owner_ref('v1', 'ConfigMap', $cm));
is($s->call(DELETE => "$cms/cm-owner")->{status}, 200, 'delete the owning ConfigMap');
gone("$gadgets/dep-of-cm", 'the gadget it owned is collected');

# --- a custom resource whose owner is gone from the start is collected
create_cr('gadgets', 'Gadget', 'orphan', { apiVersion => 'v1', kind => 'ConfigMap',
    name => 'never', uid => '3a1f0e9e-0000-4000-8000-000000000001' });
gone("$gadgets/orphan", 'a gadget whose owner never existed is collected');

# --- a definition deleted while the collector follows its kind (with
# objects in the graph: a widget owning a ConfigMap, a widget owned by one)
my $w = create_cr('widgets', 'Widget', 'w-owner');
create_cm('dep-of-widget', owner_ref("$group/v1", 'Widget', $w));
my $cm2 = create_cm('cm-owner-2');
create_cr('widgets', 'Widget', 'w-dep', owner_ref('v1', 'ConfigMap', $cm2));
is($s->call(DELETE => "$crds/widgets.$group")->{status}, 200, 'delete the widgets CRD');
gone("$crds/widgets.$group", 'the widgets CRD goes (its widgets first)');
gone("$cms/dep-of-widget", 'the ConfigMap a widget owned is collected');
gone("/apis/$group/v1/namespaces/$ns/widgets", 'widgets are no longer served');
# the collector still works for other kinds, new and old
my $g2 = create_cr('gadgets', 'Gadget', 'after');
create_cm('dep-after', owner_ref("$group/v1", 'Gadget', $g2));
is($s->call(DELETE => "$gadgets/after")->{status}, 200, 'delete a gadget after the CRD went');
gone("$cms/dep-after", '... its ConfigMap is still collected');
my $cm3 = create_cm('cm-owner-3');
create_cm('cm-dep-3', owner_ref('v1', 'ConfigMap', $cm3));
is($s->call(DELETE => "$cms/cm-owner-3")->{status}, 200, 'delete a ConfigMap owning a ConfigMap');
gone("$cms/cm-dep-3", '... its dependent is collected');
# a recreated definition is followed again
define('widgets', 'Widget');
my $w2 = create_cr('widgets', 'Widget', 'w-again');
create_cm('dep-again', owner_ref("$group/v1", 'Widget', $w2));
is($s->call(DELETE => "/apis/$group/v1/namespaces/$ns/widgets/w-again")->{status}, 200,
    'delete a widget of the recreated CRD');
gone("$cms/dep-again", '... its ConfigMap is collected');

# --- count/<plural>.<group> quotas on custom resources
my $count = "count/gadgets.$group";
my ($st, $o) = $s->call(POST => "/api/v1/namespaces/$ns/resourcequotas",
    { apiVersion => 'v1', kind => 'ResourceQuota', metadata => { name => 'q' },
      spec => { hard => { $count => '2' } } });
is($st, 201, 'create a quota of 2 gadgets');
ok(wait_until(sub {
    my $q = $s->get_json("/api/v1/namespaces/$ns/resourcequotas/q");
    ($q->{status}{used}{$count} // '') eq '0' }, 10), 'status.used counts 0 gadgets');
create_cr('gadgets', 'Gadget', "q$_") for 1, 2;
($st, $o) = $s->call(POST => $gadgets,
    { apiVersion => "$group/v1", kind => 'Gadget', metadata => { name => 'q3' } });
is($st, 403, 'the third gadget is refused');
is($o->{message}, qq(gadgets.$group "q3" is forbidden: exceeded quota: q, requested: $count=1, )
    . "used: $count=2, limited: $count=2", '... with kube\'s message');
json_subset_ok($o, { reason => 'Forbidden',
    details => { name => 'q3', group => $group, kind => 'gadgets' } }, '... and details');
is($s->call(DELETE => "$gadgets/q1")->{status}, 200, 'delete one gadget');
ok(wait_until(sub {
    my $q = $s->get_json("/api/v1/namespaces/$ns/resourcequotas/q");
    ($q->{status}{used}{$count} // '') eq '1' }, 10),
    'status.used counts the delete (the controller follows gadgets)');
create_cr('gadgets', 'Gadget', 'q3');
is($s->call(DELETE => "$crds/gadgets.$group")->{status}, 200, 'delete the gadgets CRD');
gone("$crds/gadgets.$group", 'the gadgets CRD goes');
ok(wait_until(sub {
    my $q = $s->get_json("/api/v1/namespaces/$ns/resourcequotas/q");
    ($q->{status}{used}{$count} // '') eq '0' }, 10), 'status.used is 0 once gadgets are gone');

my $log = $s->error_log_since_start;
unlike($log, qr/\[(error|alert|crit|emerg)\]/, 'no error lines in the log');
$s->fatal_free_ok($log, 'before the restart');

# --- after a restart, the kinds of the definitions found at start are followed
my $rcm = create_cm('r-owner');
create_cr('widgets', 'Widget', 'r-dep', owner_ref('v1', 'ConfigMap', $rcm));
my $rw = create_cr('widgets', 'Widget', 'r-owner');
create_cm('r-dep', owner_ref("$group/v1", 'Widget', $rw));
ok($s->restart, 'restart');
ok(wait_until(sub {
    $s->request(GET => "/apis/$group/v1/namespaces/$ns/widgets")->{status} == 200 }, 5),
    'widgets are served again');
is($s->call(DELETE => "$cms/r-owner")->{status}, 200, 'delete the owning ConfigMap');
gone("/apis/$group/v1/namespaces/$ns/widgets/r-dep", '... the widget it owned is collected');
is($s->call(DELETE => "/apis/$group/v1/namespaces/$ns/widgets/r-owner")->{status}, 200,
    'delete the owning widget');
gone("$cms/r-dep", '... the ConfigMap it owned is collected');
$log = $s->error_log_since_start;
unlike($log, qr/\[(error|alert|crit|emerg)\]/, 'no error lines after the restart');
$s->fatal_free_ok($log, 'after the restart');
done_testing();
