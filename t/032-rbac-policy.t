# The bootstrap RBAC policy: kube's cluster roles and bindings exist after the
# first start (cluster-admin bound to system:masters); a restart gives an
# autoupdate "true" role back the rules it lost, leaves an autoupdate "false"
# one as it was, and recreates a deleted one; admin, edit and view gather
# the rules of labelled ClusterRoles as they come and go. Two workers: one
# reconciles and aggregates, both serve.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Time::HiRes qw(sleep);

my $s = start_server(tls => 1, workers => 2);
my $cr = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

sub put_json {
    my ($path, $obj) = @_;
    return $s->request('PUT', $path, headers => { 'Content-Type' => 'application/json' },
        body => encode_json($obj))->{status};
}

# has_rule($role, $group, $resource, $verb): a rule of $role names all three.
sub has_rule {
    my ($role, $group, $resource, $verb) = @_;
    my $o = $s->get_json("$cr/$role") or return 0;
    for my $r (@{ $o->{rules} || [] }) {
        next unless grep { $_ eq $group } @{ $r->{apiGroups} || [] };
        next unless grep { $_ eq $resource } @{ $r->{resources} || [] };
        return 1 if grep { $_ eq $verb } @{ $r->{verbs} || [] };
    }
    return 0;
}

# --- first start ------------------------------------------------------------------------------

my $names = $s->kc_ok('1.32', undef, 'get', 'clusterroles', '-o', 'name');
for my $name (qw(cluster-admin admin edit view system:discovery system:basic-user
                 system:public-info-viewer system:monitoring system:node system:kube-scheduler
                 system:kube-controller-manager system:controller:namespace-controller
                 system:aggregate-to-view system:auth-delegator)) {
    like($names, qr{^clusterrole\.rbac\.authorization\.k8s\.io/\Q$name\E$}m, "clusterrole $name exists");
}
is(scalar(() = $names =~ /^clusterrole/mg), 68, '68 bootstrap cluster roles');
my $binding = decode_json($s->kc_ok('1.32', undef,
    'get', 'clusterrolebinding', 'cluster-admin', '-o', 'json'));
is_deeply($binding->{subjects},
    [{ kind => 'Group', apiGroup => 'rbac.authorization.k8s.io', name => 'system:masters' }],
    'cluster-admin is bound to system:masters');
is($binding->{metadata}{labels}{'kubernetes.io/bootstrapping'}, 'rbac-defaults', 'bootstrapping label');
is($binding->{metadata}{annotations}{'rbac.authorization.kubernetes.io/autoupdate'}, 'true',
    'autoupdate annotation');
like($s->kc_ok('1.32', undef, 'get', 'roles', '-n', 'kube-system', '-o', 'name'),
    qr{^role\.rbac\.authorization\.k8s\.io/system::leader-locking-kube-scheduler$}m,
    'kube-system roles exist');
ok(has_rule('view', '', 'pods', 'list'), 'view has aggregate-to-view rules');
ok(has_rule('edit', '', 'pods', 'list') && has_rule('edit', '', 'secrets', 'create'),
    'edit has view and aggregate-to-edit rules');
ok(has_rule('admin', 'rbac.authorization.k8s.io', 'rolebindings', 'create')
    && has_rule('admin', '', 'secrets', 'create'), 'admin has edit and aggregate-to-admin rules');

# --- aggregation: a labelled role comes and goes ----------------------------------------------

is($s->request('POST', $cr, headers => { 'Content-Type' => 'application/json' },
    body => encode_json({ metadata => { name => 'widget-viewer',
        labels => { 'rbac.authorization.k8s.io/aggregate-to-view' => 'true' } },
        rules => [{ apiGroups => ['example.com'], resources => ['widgets'], verbs => ['get'] }] }))
    ->{status}, 201, 'a ClusterRole labelled aggregate-to-view is created');
ok(wait_until(sub { has_rule('admin', 'example.com', 'widgets', 'get') }, 5),
    'its rule reaches view, edit and admin');
ok(has_rule('view', 'example.com', 'widgets', 'get') && has_rule('edit', 'example.com', 'widgets', 'get'),
    'view and edit hold it');
$s->kc_ok('1.32', undef, 'delete', 'clusterrole', 'widget-viewer');
ok(wait_until(sub { !has_rule('admin', 'example.com', 'widgets', 'get')
    && !has_rule('view', 'example.com', 'widgets', 'get') }, 5),
    'deleted, its rule leaves view, edit and admin');

# --- restart: reconciliation --------------------------------------------------------------------

my $discovery = $s->get_json("$cr/system:discovery");
$discovery->{rules} = [{ nonResourceURLs => ['/version'], verbs => ['get'] }];
is(put_json("$cr/system:discovery", $discovery), 200, 'system:discovery loses rules');
my $basic = $s->get_json("$cr/system:basic-user");
$basic->{rules} = [];
$basic->{metadata}{annotations}{'rbac.authorization.kubernetes.io/autoupdate'} = 'false';
is(put_json("$cr/system:basic-user", $basic), 200, 'system:basic-user emptied, autoupdate false');
$s->kc_ok('1.32', undef, 'delete', 'clusterrole', 'system:heapster');

ok($s->restart, 'restart');
# worker 0 reconciles; another worker may answer before it is done
ok(wait_until(sub { $s->get_json("$cr/system:heapster")
    && grep { $_ eq '/api' } map { @{ $_->{nonResourceURLs} || [] } }
        @{ ($s->get_json("$cr/system:discovery") || {})->{rules} || [] } }, 10),
    'a deleted bootstrap role is created again, once reconciled');
my $after = $s->get_json("$cr/system:discovery");
my @urls = sort(map { @{ $_->{nonResourceURLs} || [] } } @{ $after->{rules} });
is_deeply(\@urls, [sort qw(/version /api /api/* /apis /apis/* /healthz /livez /openapi /openapi/*
                           /readyz /version/)],
    'autoupdate true: system:discovery has its rules back, and keeps its own');
my $kept = $s->get_json("$cr/system:basic-user");
is_deeply($kept->{rules} || [], [], 'autoupdate false: system:basic-user is left as it was');
is($kept->{metadata}{annotations}{'rbac.authorization.kubernetes.io/autoupdate'}, 'false',
    'and keeps its annotation');
ok(has_rule('admin', '', 'pods', 'create'), 'aggregation still holds after the restart');

$s->stop;
open my $log, '<', $s->root . '/logs/error.log' or die "error.log: $!";
my @bad = $s->fatal_lines(do { local $/; <$log> });
ok(!@bad, 'error.log has no alert/emerg/crit lines') or diag(join "\n", @bad);

done_testing;
