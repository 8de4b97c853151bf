# RBAC (kube_authorization_mode RBAC): Roles, ClusterRoles and their
# bindings decide every request, with kube-apiserver's codes and forbidden
# messages; a grant or a revoke reaches every worker within a second; the
# access reviews answer kubectl auth can-i. Users are client certificates.
use lib 't/lib';
use Test::Kube;
use Time::HiRes qw(time sleep);

my $s = start_server(tls => 1, workers => 2, reuseport => 1, config => <<'EOF');
location / {
    kube_api;
    kube_authorization_mode RBAC;
}
EOF

my $rita = client_cert('rita', 'team-users');    # reads configmaps in "team"
my $nadia = client_cert('nadia', 'team-users');  # admin of "team"
my $nora = client_cert('nora');                  # no roles at all
my $sam = client_cert('system:serviceaccount:team:builder', 'system:serviceaccounts');

sub ok_call {
    my ($method, $path, $body, $want) = @_;
    my ($st, $o) = $s->call($method, $path, $body);
    is($st, $want // 201, "admin $method $path") or diag(explain($o));
    return $o;
}

my $rbac = '/apis/rbac.authorization.k8s.io/v1';
my $g = 'rbac.authorization.k8s.io';
ok_call(POST => '/api/v1/namespaces', { metadata => { name => 'team' } });
ok_call(POST => '/api/v1/namespaces', { metadata => { name => 'other' } });
ok_call(POST => '/api/v1/namespaces/team/configmaps',
    { metadata => { name => 'c1' }, data => { k => 'secret-value' } });
ok_call(POST => '/api/v1/namespaces/team/secrets',
    { metadata => { name => 's1' }, stringData => { k => 'hidden' } });
ok_call(POST => "$rbac/clusterroles", { metadata => { name => 'cm-reader' },
    rules => [ { verbs => [qw(get list watch)], apiGroups => [''], resources => ['configmaps'] },
               { verbs => ['get'], apiGroups => ['apps'], resources => ['deployments'] } ] });
ok_call(POST => "$rbac/clusterroles", { metadata => { name => 'all' },
    rules => [ { verbs => ['*'], apiGroups => ['*'], resources => ['*'] } ] });
ok_call(POST => "$rbac/clusterroles", { metadata => { name => 'discovery' },
    rules => [ { verbs => ['get'],
                 nonResourceURLs => [qw(/api /api/* /apis /apis/* /version /healthz)] } ] });
ok_call(POST => "$rbac/clusterrolebindings", { metadata => { name => 'team-discovery' },
    roleRef => { apiGroup => $g, kind => 'ClusterRole', name => 'discovery' },
    subjects => [ { kind => 'Group', name => 'team-users', apiGroup => $g } ] });
ok_call(POST => "$rbac/namespaces/team/rolebindings", { metadata => { name => 'rita-reads' },
    roleRef => { apiGroup => $g, kind => 'ClusterRole', name => 'cm-reader' },
    subjects => [ { kind => 'User', name => 'rita', apiGroup => $g } ] });
ok_call(POST => "$rbac/namespaces/team/rolebindings", { metadata => { name => 'nadia-admin' },
    roleRef => { apiGroup => $g, kind => 'ClusterRole', name => 'all' },
    subjects => [ { kind => 'User', name => 'nadia', apiGroup => $g } ] });
ok_call(POST => "$rbac/namespaces/team/roles", { metadata => { name => 'builder' },
    rules => [ { verbs => ['create'], apiGroups => [''], resources => ['configmaps'] } ] });
ok_call(POST => "$rbac/namespaces/team/rolebindings", { metadata => { name => 'builder' },
    roleRef => { apiGroup => $g, kind => 'Role', name => 'builder' },
    subjects => [ { kind => 'ServiceAccount', name => 'builder' } ] });

my $cm = '/api/v1/namespaces/team/configmaps';
my $sec = '/api/v1/namespaces/team/secrets';

# The index follows the caches: wait until the last binding counts.
ok(wait_until(sub { ($s->call(GET => $cm, undef, cert => $nadia))[0] == 200 }, 2),
   'the bindings are in force');

my $cmBody = { metadata => { name => 'new' } };
my $merge = 'application/merge-patch+json';
my $in = 'in API group "" in the namespace "team"';

# [identity, method, path, body, expected code, optional message]
my @matrix = (
    # the namespace reader
    [ $rita, GET => "$cm/c1", undef, 200 ],
    [ $rita, GET => $cm, undef, 200 ],
    [ $rita, GET => "$cm?watch=1&timeoutSeconds=1", undef, 200 ],
    [ $rita, POST => $cm, $cmBody, 403,
      qq{configmaps is forbidden: User "rita" cannot create resource "configmaps" $in} ],
    [ $rita, PUT => "$cm/c1", { metadata => { name => 'c1' } }, 403,
      qq{configmaps "c1" is forbidden: User "rita" cannot update resource "configmaps" $in} ],
    [ $rita, PATCH => "$cm/c1", '{}', 403,
      qq{configmaps "c1" is forbidden: User "rita" cannot patch resource "configmaps" $in} ],
    [ $rita, DELETE => "$cm/c1", undef, 403,
      qq{configmaps "c1" is forbidden: User "rita" cannot delete resource "configmaps" $in} ],
    [ $rita, DELETE => $cm, undef, 403,
      qq{configmaps is forbidden: User "rita" cannot deletecollection resource "configmaps" $in} ],
    [ $rita, GET => '/api/v1/namespaces/other/configmaps', undef, 403,
      'configmaps is forbidden: User "rita" cannot list resource "configmaps" in API group "" '
      . 'in the namespace "other"' ],
    [ $rita, GET => '/api/v1/configmaps', undef, 403,
      'configmaps is forbidden: User "rita" cannot list resource "configmaps" in API group "" '
      . 'at the cluster scope' ],
    [ $rita, GET => "$sec/s1", undef, 403,
      qq{secrets "s1" is forbidden: User "rita" cannot get resource "secrets" $in} ],
    # existence does not leak: a missing secret is forbidden the same way
    [ $rita, GET => "$sec/nope", undef, 403,
      qq{secrets "nope" is forbidden: User "rita" cannot get resource "secrets" $in} ],
    [ $rita, GET => $sec, undef, 403 ],
    [ $rita, GET => "$sec?watch=true", undef, 403,
      qq{secrets is forbidden: User "rita" cannot watch resource "secrets" $in} ],
    [ $rita, GET => '/api/v1/namespaces/team', undef, 403,
      qq{namespaces "team" is forbidden: User "rita" cannot get resource "namespaces" $in} ],
    [ $rita, GET => '/api/v1/namespaces', undef, 403,
      'namespaces is forbidden: User "rita" cannot list resource "namespaces" in API group "" '
      . 'at the cluster scope' ],
    [ $rita, GET => "$rbac/clusterroles", undef, 403,
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "rita" cannot list resource '
      . '"clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope' ],
    # a subresource needs its own rule: deployments does not cover deployments/scale
    [ $rita, GET => '/apis/apps/v1/namespaces/team/deployments/d', undef, 404 ],
    [ $rita, GET => '/apis/apps/v1/namespaces/team/deployments/d/scale', undef, 403,
      'deployments.apps "d" is forbidden: User "rita" cannot get resource "deployments/scale" '
      . 'in API group "apps" in the namespace "team"' ],
    [ $rita, GET => '/healthz', undef, 200 ],
    [ $rita, GET => '/apis', undef, 200 ],
    [ $rita, GET => '/metrics', undef, 403, 'forbidden: User "rita" cannot get path "/metrics"' ],
    # the bootstrap policy's system:discovery lets every authenticated user read it
    [ $rita, GET => '/openapi/v2', undef, 200 ],

    # the namespace admin
    [ $nadia, POST => $cm, $cmBody, 201 ],
    [ $nadia, PUT => "$cm/new", { metadata => { name => 'new' }, data => { a => 'b' } }, 200 ],
    [ $nadia, PATCH => "$cm/new", '{"data":{"c":"d"}}', 200 ],
    [ $nadia, GET => "$sec/s1", undef, 200 ],
    [ $nadia, DELETE => "$cm/new", undef, 200 ],
    [ $nadia, DELETE => $sec, undef, 200 ],
    [ $nadia, GET => '/api/v1/namespaces/team', undef, 200 ],
    [ $nadia, DELETE => '/api/v1/namespaces/other', undef, 403,
      'namespaces "other" is forbidden: User "nadia" cannot delete resource "namespaces" '
      . 'in API group "" in the namespace "other"' ],
    [ $nadia, GET => '/apis/apps/v1/namespaces/team/deployments/d/scale', undef, 404 ],
    [ $nadia, POST => "$rbac/clusterroles", { metadata => { name => 'x' }, rules => [] }, 403,
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "nadia" cannot create resource '
      . '"clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope' ],

    # no roles at all: nothing, not even discovery
    [ $nora, GET => "$cm/c1", undef, 403,
      qq{configmaps "c1" is forbidden: User "nora" cannot get resource "configmaps" $in} ],
    [ $nora, GET => $cm, undef, 403 ],
    [ $nora, POST => $cm, $cmBody, 403 ],
    # system:discovery and system:public-info-viewer (bootstrap policy) are
    # every authenticated user's; /metrics is system:monitoring's only
    [ $nora, GET => '/api', undef, 200 ],
    [ $nora, GET => '/version', undef, 200 ],
    [ $nora, GET => '/healthz', undef, 200 ],
    [ $nora, GET => '/metrics', undef, 403, 'forbidden: User "nora" cannot get path "/metrics"' ],

    # a service account by its user name, bound without a subject namespace
    [ $sam, POST => $cm, { metadata => { name => 'by-sa' } }, 201 ],
    [ $sam, GET => $cm, undef, 403,
      'configmaps is forbidden: User "system:serviceaccount:team:builder" cannot list resource '
      . qq{"configmaps" $in} ],

    # system:masters passes whatever the bindings say
    [ 'admin', DELETE => "$cm/by-sa", undef, 200 ],
);

for my $c (@matrix) {
    my ($who, $method, $path, $body, $code, $msg) = @$c;
    my $type = $method eq 'PATCH' ? $merge : undef;
    my ($st, $o, $r) = $s->call($method, $path, $body, cert => $who, type => $type);
    my $name = "$who $method $path";
    is($st, $code, "$name: $code") or diag($r->{body});
    if ($code == 403) {
        is($o->{reason}, 'Forbidden', "$name: reason");
        is($o->{message}, $msg, "$name: message") if defined $msg;
        unlike($r->{body}, qr/secret-value|hidden|aGlkZGVu/, "$name: no data in the error");
    }
}

# The 403 Status in full, as kube's.
{
    my ($st, $o) = $s->call(GET => "$cm/c1", undef, cert => $nora);
    json_subset_ok($o, { kind => 'Status', apiVersion => 'v1', status => 'Failure',
        reason => 'Forbidden', code => 403,
        details => { name => 'c1', kind => 'configmaps' } }, 'forbidden Status');
    ($st, $o) = $s->call(GET => "$rbac/clusterroles/all", undef, cert => $nora);
    json_subset_ok($o, { details => { name => 'all', group => $g, kind => 'clusterroles' } },
        'forbidden Status names the group');
}

# A binding to a missing role is named in the reason.
{
    ok_call(POST => "$rbac/namespaces/team/rolebindings", { metadata => { name => 'dangling' },
        roleRef => { apiGroup => $g, kind => 'Role', name => 'nope' },
        subjects => [ { kind => 'User', name => 'nora', apiGroup => $g } ] });
    my $want = qq{configmaps is forbidden: User "nora" cannot list resource "configmaps" $in: }
        . 'RBAC: role.rbac.authorization.k8s.io "nope" not found';
    ok(wait_until(sub { ($s->call(GET => $cm, undef, cert => $nora))[1]{message} eq $want }, 2),
       'a dangling binding is reported');
    ok_call(DELETE => "$rbac/namespaces/team/rolebindings/dangling", undef, 200);
}

# A grant and a revoke: every worker sees them within a second. Fresh
# connections spread over both workers (reuseport).
{
    my $pids = join ',', sort $s->worker_pids;
    my $all = sub {
        my $want = shift;
        for (1 .. 8) {
            return 0 if ($s->call(GET => $sec, undef, cert => $nora))[0] != $want;
        }
        return 1;
    };
    ok($all->(403), 'nora cannot list secrets');
    ok_call(POST => "$rbac/namespaces/team/rolebindings", { metadata => { name => 'nora-secrets' },
        roleRef => { apiGroup => $g, kind => 'ClusterRole', name => 'all' },
        subjects => [ { kind => 'User', name => 'nora', apiGroup => $g } ] });
    my $t0 = time;
    ok(wait_until(sub { $all->(200) }, 1), 'the grant counts on every worker within 1 s');
    note(sprintf 'granted after %.3f s', time - $t0);
    ok_call(DELETE => "$rbac/namespaces/team/rolebindings/nora-secrets", undef, 200);
    $t0 = time;
    ok(wait_until(sub { $all->(403) }, 1), 'the revoke counts on every worker within 1 s');
    note(sprintf 'revoked after %.3f s', time - $t0);
    is(join(',', sort $s->worker_pids), $pids, 'the same two workers');
}

# The reviews.
my $authz = '/apis/authorization.k8s.io/v1';
sub review {
    my ($kind, $spec) = @_;
    return { kind => $kind, apiVersion => 'authorization.k8s.io/v1', spec => $spec };
}
{
    my $sar = "$authz/subjectaccessreviews";
    my $o = ok_call(POST => $sar, review(SubjectAccessReview => { user => 'rita',
        resourceAttributes => { verb => 'list', resource => 'configmaps', namespace => 'team' } }));
    json_subset_ok($o, { kind => 'SubjectAccessReview', metadata => { creationTimestamp => undef },
        status => { allowed => JSON::PP::true(),
            reason => 'RBAC: allowed by RoleBinding "rita-reads/team" of ClusterRole "cm-reader" '
                . 'to User "rita"' } },
        'SubjectAccessReview allowed, with the binding as the reason');
    $o = ok_call(POST => $sar, review(SubjectAccessReview => { user => 'rita',
        resourceAttributes => { verb => 'delete', resource => 'configmaps', namespace => 'team' } }));
    json_subset_ok($o, { status => { allowed => JSON::PP::false(), reason => ABSENT } },
        'SubjectAccessReview denied');
    $o = ok_call(POST => $sar, review(SubjectAccessReview => { groups => ['system:masters'],
        nonResourceAttributes => { verb => 'get', path => '/metrics' } }));
    json_subset_ok($o, { status => { allowed => JSON::PP::true() } }, 'system:masters is allowed');
    my ($st, $e) = $s->call(POST => $sar, review(SubjectAccessReview => { user => 'x' }));
    is($st, 422, 'a review asking nothing is invalid');
    is($e->{message}, '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: '
        . '"null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
        'its message');
    ($st, $e) = $s->call(POST => $sar, review(SubjectAccessReview => {
        user => 'x', nonResourceAttributes => { path => '/', verb => 'get' } }), cert => $rita);
    is($st, 403, 'rita may not ask about others');
    ($st, $e) = $s->call(GET => $sar);
    is($st, 405, 'reviews are create only');

    my $lsar = "$authz/namespaces/team/localsubjectaccessreviews";
    ($st, $e) = $s->call(POST => $lsar, review(LocalSubjectAccessReview => { user => 'rita',
        resourceAttributes => { verb => 'get', resource => 'configmaps', namespace => 'other' } }));
    is($st, 422, 'a local review about another namespace is invalid');
    is($e->{message}, '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: '
        . 'Invalid value: "other": must match metadata.namespace', 'its message');
    $o = ok_call(POST => $lsar, review(LocalSubjectAccessReview => { user => 'rita',
        resourceAttributes => { verb => 'get', resource => 'configmaps', namespace => 'team' } }));
    json_subset_ok($o, { metadata => { namespace => 'team' },
        status => { allowed => JSON::PP::true() } }, 'local review');

    ($st, $o) = $s->call(POST => "$authz/selfsubjectaccessreviews",
        review(SelfSubjectAccessReview => { resourceAttributes => {
            verb => 'list', resource => 'configmaps', namespace => 'team' } }), cert => $nora);
    # system:basic-user (bootstrap policy) lets every authenticated user ask
    is($st, 201, 'nora may ask about herself, as system:basic-user allows');
    is($o->{status}{allowed} ? 1 : 0, 0, 'and is told she may not list configmaps');

    my $ssrr = "$authz/selfsubjectrulesreviews";
    ok_call(POST => "$rbac/clusterroles", { metadata => { name => 'self-review' },
        rules => [ { verbs => ['create'], apiGroups => ['authorization.k8s.io'],
                     resources => [qw(selfsubjectaccessreviews selfsubjectrulesreviews)] } ] });
    ok_call(POST => "$rbac/clusterrolebindings", { metadata => { name => 'team-self-review' },
        roleRef => { apiGroup => $g, kind => 'ClusterRole', name => 'self-review' },
        subjects => [ { kind => 'Group', name => 'team-users', apiGroup => $g } ] });
    my $rules = review(SelfSubjectRulesReview => { namespace => 'team' });
    ok(wait_until(sub { ($s->call(POST => $ssrr, $rules, cert => $rita))[0] == 201 }, 2),
        'self reviews granted');
    ($st, $o) = $s->call(POST => $ssrr, $rules, cert => $rita);
    json_subset_ok($o, { kind => 'SelfSubjectRulesReview', spec => {},
        status => { incomplete => JSON::PP::false() } }, 'rules review');
    ok((grep { join(' ', @{ $_->{nonResourceURLs} }) eq '/api /api/* /apis /apis/* /version /healthz' }
        @{ $o->{status}{nonResourceRules} || [] }), 'its non-resource rules hold the role\'s');
    ok((grep { join(',', @{ $_->{resources} || [] }) eq 'configmaps' }
        @{ $o->{status}{resourceRules} }), 'rita\'s configmaps rule is listed');
    ($st, $o) = $s->call(POST => $ssrr, review(SelfSubjectRulesReview => {}), cert => $rita);
    is($st, 400, 'a rules review needs a namespace');
    is($o->{message}, 'no namespace on request', 'its message');
}

# Discovery lists the reviews as kube-apiserver 1.26 does.
{
    my $r = $s->request(GET => "$authz");
    is($r->{body}, '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authorization.k8s.io/v1",'
        . '"resources":[{"name":"localsubjectaccessreviews","singularName":"","namespaced":true,'
        . '"kind":"LocalSubjectAccessReview","verbs":["create"]},{"name":"selfsubjectaccessreviews",'
        . '"singularName":"","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]},'
        . '{"name":"selfsubjectrulesreviews","singularName":"","namespaced":false,'
        . '"kind":"SelfSubjectRulesReview","verbs":["create"]},{"name":"subjectaccessreviews",'
        . '"singularName":"","namespaced":false,"kind":"SubjectAccessReview","verbs":["create"]}]}',
        'authorization.k8s.io/v1 discovery');
}

# kubectl auth can-i, with the current kubectl and an older one.
for my $v ('1.32', grep { $_ eq '1.27' } kubectl_versions()) {
    my $as = { cert => $rita };
    my ($rc, $out, $err) = kubectl($s, $v, qw(auth can-i list configmaps -n team), $as);
    is("$rc $out", "0 yes\n", "kubectl $v: rita can list configmaps") or diag($err);
    ($rc, $out) = kubectl($s, $v, qw(auth can-i create configmaps -n team), $as);
    is("$rc $out", "1 no\n", "kubectl $v: rita cannot create them");
    ($rc, $out) = kubectl($s, $v, qw(auth can-i get deployments --subresource=scale -n team), $as);
    is("$rc $out", "1 no\n", "kubectl $v: nor get a deployment's scale");
    ($rc, $out) = kubectl($s, $v, qw(auth can-i get deployments -n team), $as);
    is("$rc $out", "0 yes\n", "kubectl $v: but get the deployment");
    ($rc, $out) = kubectl($s, $v, qw(auth can-i get /healthz), $as);
    is("$rc $out", "0 yes\n", "kubectl $v: a non-resource URL");
    ($rc, $out) = kubectl($s, $v, qw(auth can-i get /metrics), $as);
    is("$rc $out", "1 no\n", "kubectl $v: another one");
    ($rc, $out, $err) = kubectl($s, $v, qw(auth can-i --list -n team), $as);
    is($rc, 0, "kubectl $v: --list") or diag($err);
    like($out, qr/^configmaps\s+\[\]\s+\[\]\s+\[get list watch\]$/m,
        "kubectl $v: --list shows the configmaps rule") or diag($out);
    like($out, qr/^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m, "kubectl $v: and the URLs");
    ($rc, $out) = kubectl($s, $v, qw(auth can-i delete secrets -n team));
    is("$rc $out", "0 yes\n", "kubectl $v: the admin can");
}

ok($s->stop, 'stopped cleanly');
done_testing();
