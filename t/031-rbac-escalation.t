# RBAC escalation prevention (kube_authorization_mode RBAC), as kube-apiserver
# does it: a user may create or update a Role or ClusterRole only with rules
# they hold, bind only a role whose rules they hold, and set an
# aggregationRule only with cluster-admin's authority, unless they have the
# `escalate` (roles) or `bind` (bindings) verb; system:masters passes. Users
# are token-file users (kube_token_auth_file); the messages are those of
# kube-apiserver 1.26 for the same users (impersonated there). And kubectl
# auth whoami, from 1.27 (beta) to the current one, for such a user.
use lib 't/lib';
use Test::Kube;
use File::Temp qw(tempdir);

my $dir = tempdir(CLEANUP => 1);
open my $f, '>', "$dir/tokens.csv" or die "tokens.csv: $!";
print $f qq{eve-token,eve,uid-eve,"devs"\n};
print $f qq{mallory-token,mallory,uid-mallory,"makers"\n};
print $f qq{root-token,rooty,uid-rooty,"system:masters"\n};
close $f;

my $s = start_server(tls => 1, workers => 2, http_config => "kube_token_auth_file $dir/tokens.csv;",
    config => <<'EOF');
location / {
    kube_api;
    kube_authorization_mode RBAC;
}
EOF

my $rbac = '/apis/rbac.authorization.k8s.io/v1';
my $g = 'rbac.authorization.k8s.io';
my $roles = "$rbac/namespaces/team/roles";
my $bindings = "$rbac/namespaces/team/rolebindings";

sub admin_ok {
    my ($method, $path, $body, $want) = @_;
    my ($st, $o) = $s->call($method, $path, $body);
    is($st, $want // 201, "admin $method $path") or diag(explain($o));
}

# refused($token, $method, $path, $body, $message, $what): a 403 Forbidden
# Status with exactly $message (or matching it, a regex).
sub refused {
    my ($token, $method, $path, $body, $message, $what) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    my ($st, $o) = $s->call($method, $path, $body, token => $token);
    is($st, 403, "$what: 403") or diag(explain($o));
    is($o->{reason}, 'Forbidden', "$what: reason Forbidden");
    if (ref $message) {
        like($o->{message}, $message, "$what: kube's message");
    } else {
        is($o->{message}, $message, "$what: kube's message");
    }
    return $o;
}

sub role {
    my ($name, @rules) = @_;
    return { metadata => { name => $name }, rules => \@rules };
}

sub binding {
    my ($name, $kind, $role, $user) = @_;
    return { metadata => { name => $name },
        roleRef => { apiGroup => $g, kind => $kind, name => $role },
        subjects => [ { kind => 'User', name => $user, apiGroup => $g } ] };
}

# can($token, $verb, $resource, $namespace, $name): a SelfSubjectAccessReview.
sub can {
    my ($token, $verb, $resource, $ns, $name) = @_;
    my ($st, $o) = $s->call(POST => '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        { kind => 'SelfSubjectAccessReview', apiVersion => 'authorization.k8s.io/v1',
          spec => { resourceAttributes => { verb => $verb, group => $g, resource => $resource,
              namespace => $ns // '', name => $name // '' } } }, token => $token);
    return $st == 201 && $o->{status}{allowed};
}

my $cmGet = { apiGroups => [''], resources => ['configmaps'], verbs => ['get'] };
my $wide = { apiGroups => [''], resources => [qw(configmaps secrets)],
             verbs => [qw(get list delete)] };
my $eveIs = 'user "eve" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC '
    . 'permissions not currently held:';

admin_ok(POST => '/api/v1/namespaces', { metadata => { name => 'team' } });
# eve: reads configmaps, writes roles and rolebindings in "team"
admin_ok(POST => $roles, role('eve-rights',
    { apiGroups => [''], resources => ['configmaps'], verbs => [qw(get list)] },
    { apiGroups => [$g], resources => [qw(roles rolebindings)], verbs => [qw(create get update)] }));
admin_ok(POST => $bindings, binding('eve-rights', 'Role', 'eve-rights', 'eve'));
admin_ok(POST => "$rbac/clusterroles", role('secret-reader',
    { apiGroups => [''], resources => ['secrets'], verbs => ['get'] }));
# mallory: makes cluster roles
admin_ok(POST => "$rbac/clusterroles", role('role-maker',
    { apiGroups => [$g], resources => ['clusterroles'], verbs => [qw(create get update)] }));
admin_ok(POST => "$rbac/clusterrolebindings",
    binding('mallory-role-maker', 'ClusterRole', 'role-maker', 'mallory'));
ok(wait_until(sub { can('eve-token', 'create', 'roles', 'team')
    && can('mallory-token', 'create', 'clusterroles') }, 2), 'the bindings are in force');

# --- widening a role ----------------------------------------------------------------------------

my ($st, $o) = $s->call(POST => $roles, role('narrow', $cmGet), token => 'eve-token');
is($st, 201, 'eve creates a role within her rights') or diag(explain($o));

$o = refused('eve-token', POST => $roles, role('wide', $wide),
    qq{roles.rbac.authorization.k8s.io "wide" is forbidden: $eveIs\n}
    . qq{{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n}
    . qq{{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}},
    'a role wider than her rights');
json_subset_ok($o, { kind => 'Status', status => 'Failure', code => 403,
    details => { name => 'wide', group => $g, kind => 'roles' } }, 'the Status names the role');
is(($s->call(GET => "$roles/wide"))[0], 404, 'and the role was not made');

my ($gst, $narrow) = $s->call(GET => "$roles/narrow");
$narrow->{rules}[0]{verbs} = [qw(get delete)];
refused('eve-token', PUT => "$roles/narrow", $narrow,
    qq{roles.rbac.authorization.k8s.io "narrow" is forbidden: $eveIs\n}
    . qq{{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}},
    'widening her role by update');
is_deeply(($s->call(GET => "$roles/narrow"))[1]{rules}[0]{verbs}, ['get'],
    'the role keeps its rules');

# --- binding a role she does not hold -----------------------------------------------------------

refused('eve-token', POST => $bindings, binding('eve-ca', 'ClusterRole', 'cluster-admin', 'eve'),
    qq{rolebindings.rbac.authorization.k8s.io "eve-ca" is forbidden: $eveIs\n}
    . qq{{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n}
    . qq{{NonResourceURLs:["*"], Verbs:["*"]}},
    'binding cluster-admin');
# admin gathers the rules of the aggregate-to-admin, -edit and -view roles
refused('eve-token', POST => $bindings, binding('eve-admin', 'ClusterRole', 'admin', 'eve'),
    qr/^\Qrolebindings.rbac.authorization.k8s.io "eve-admin" is forbidden: $eveIs\E\n.*
        \Q{APIGroups:[""], Resources:["secrets"], Verbs:[\E/sx,
    'binding admin');
refused('eve-token', POST => $bindings,
    binding('eve-secrets', 'ClusterRole', 'secret-reader', 'mallory'),
    qq{rolebindings.rbac.authorization.k8s.io "eve-secrets" is forbidden: $eveIs\n}
    . qq{{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}},
    'binding a role she does not hold, to someone else');
($st, $o) = $s->call(POST => $bindings,
    binding('eve-narrow', 'Role', 'narrow', 'mallory'), token => 'eve-token');
is($st, 201, 'binding a role she holds is allowed') or diag(explain($o));
is(($s->call(GET => "$bindings/eve-admin"))[0], 404, 'no refused binding was made');

# --- aggregation --------------------------------------------------------------------------------

my $gather = { metadata => { name => 'gather' }, rules => [],
    aggregationRule => { clusterRoleSelectors => [
        { matchLabels => { 'example.com/gather' => 'true' } } ] } };
refused('mallory-token', POST => "$rbac/clusterroles", $gather,
    'clusterroles.rbac.authorization.k8s.io "gather" is forbidden: must have cluster-admin '
    . 'privileges to use the aggregationRule',
    'an aggregationRule without cluster-admin');
refused('mallory-token', POST => "$rbac/clusterroles", role('peek',
    { apiGroups => [''], resources => ['pods'], verbs => ['get'] }),
    'clusterroles.rbac.authorization.k8s.io "peek" is forbidden: user "mallory" '
    . '(groups=["makers" "system:authenticated"]) is attempting to grant RBAC permissions not '
    . qq{currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}},
    'a cluster role wider than her rights');

# --- escalate and bind --------------------------------------------------------------------------

admin_ok(POST => $roles, role('eve-grants',
    { apiGroups => [$g], resources => ['roles'], verbs => ['escalate'] },
    { apiGroups => [$g], resources => ['clusterroles'], verbs => ['bind'],
      resourceNames => [qw(admin cluster-admin)] }));
admin_ok(POST => $bindings, binding('eve-grants', 'Role', 'eve-grants', 'eve'));
admin_ok(POST => "$rbac/clusterroles", role('role-escalator',
    { apiGroups => [$g], resources => ['clusterroles'], verbs => ['escalate'] }));
admin_ok(POST => "$rbac/clusterrolebindings",
    binding('mallory-escalates', 'ClusterRole', 'role-escalator', 'mallory'));
ok(wait_until(sub { can('eve-token', 'escalate', 'roles', 'team')
    && can('eve-token', 'bind', 'clusterroles', 'team', 'admin')
    && can('mallory-token', 'escalate', 'clusterroles') }, 2), 'escalate and bind are in force');

refused('eve-token', POST => $bindings, binding('eve-view', 'ClusterRole', 'view', 'mallory'),
    qr/^\Qrolebindings.rbac.authorization.k8s.io "eve-view" is forbidden: $eveIs\E\n/,
    'bind lets her bind only the roles it names');
($st, $o) = $s->call(POST => $roles, role('wide', $wide), token => 'eve-token');
is($st, 201, 'with escalate, eve creates the wide role') or diag(explain($o));
($gst, $narrow) = $s->call(GET => "$roles/narrow");
$narrow->{rules}[0]{verbs} = [qw(get delete)];
($st, $o) = $s->call(PUT => "$roles/narrow", $narrow, token => 'eve-token');
is($st, 200, 'and widens her role') or diag(explain($o));
($st, $o) = $s->call(POST => $bindings,
    binding('eve-admin', 'ClusterRole', 'admin', 'eve'), token => 'eve-token');
is($st, 201, 'with bind on admin, eve binds admin') or diag(explain($o));
($st, $o) = $s->call(POST => $bindings,
    binding('eve-ca', 'ClusterRole', 'cluster-admin', 'mallory'), token => 'eve-token');
is($st, 201, 'and cluster-admin') or diag(explain($o));
($st, $o) = $s->call(POST => "$rbac/clusterroles", $gather, token => 'mallory-token');
is($st, 201, 'with escalate on clusterroles, mallory sets an aggregationRule')
    or diag(explain($o));

# --- system:masters -----------------------------------------------------------------------------

($st, $o) = $s->call(POST => "$rbac/clusterroles",
    { %$gather, metadata => { name => 'gather-root' } }, token => 'root-token');
is($st, 201, 'system:masters sets an aggregationRule') or diag(explain($o));
($st, $o) = $s->call(POST => $bindings,
    binding('root-ca', 'ClusterRole', 'cluster-admin', 'nobody'), token => 'root-token');
is($st, 201, 'and binds cluster-admin') or diag(explain($o));
($st, $o) = $s->call(POST => $roles, role('root-wide',
    { apiGroups => ['*'], resources => ['*'], verbs => ['*'] }), token => 'root-token');
is($st, 201, 'and makes any role') or diag(explain($o));

# --- kubectl auth whoami ------------------------------------------------------------------------

# 1.27's command is beta (it asks authentication.k8s.io/v1beta1 first), not alpha.
my @cmd = qw(auth whoami);
for my $v ('1.27', '1.28', '1.32') {
    next unless grep { $_ eq $v } kubectl_versions();
    my ($rc, $out, $err) = kubectl($s, $v, @cmd, '-o', 'json', '--token=eve-token',
        { cert => undef });
    is($rc, 0, "kubectl $v @cmd") or diag($err);
    my $who = eval { decode_json($out) } || {};
    json_subset_ok($who, { kind => 'SelfSubjectReview', status => { userInfo => {
        username => 'eve', uid => 'uid-eve', groups => [qw(devs system:authenticated)] } } },
        "kubectl $v @cmd: eve, her uid and groups");
    ($rc, $out, $err) = kubectl($s, $v, @cmd, '--token=eve-token', { cert => undef });
    like($out, qr/^Username\s+eve$/m, "kubectl $v @cmd: the table") or diag($out . $err);
}
{
    my ($rc, $out, $err) = kubectl($s, '1.32', qw(auth whoami -o jsonpath={.status.userInfo}));
    is($rc, 0, 'kubectl auth whoami with the admin certificate') or diag($err);
    json_subset_ok(eval { decode_json($out) } || {},
        { username => 'kube-admin', groups => [qw(system:masters system:authenticated)] },
        'the certificate\'s user and groups');
}

ok($s->stop, 'stopped cleanly');
done_testing();
