# Label and field selectors on list and deletecollection, as kube-apiserver
# applies them: every label operator, field selectors per kind, across all
# namespaces, pages filled with matching objects, deletecollection deleting
# only the selection, kube's 400 messages for bad selectors, and kubectl's
# -l / --field-selector.
use lib 't/lib';
use Test::Kube;
use Test::More;
use JSON::PP ();

my $s = start_server(tls => 1);

sub names {
    my ($path) = @_;
    my ($st, $o) = $s->call(GET => $path);
    is($st, 200, "GET $path") or diag explain $o;
    return join ',', sort map { $_->{metadata}{name} } @{$o->{items} || []};
}

sub esc {
    my ($q) = @_;
    $q =~ s/([^A-Za-z0-9_.~-])/sprintf('%%%02X', ord $1)/ge;
    return $q;
}

for my $ns (qw(sel-a sel-b)) {
    my ($st) = $s->call(POST => '/api/v1/namespaces', {metadata => {name => $ns}});
    is($st, 201, "namespace $ns");
}
my %cms = (
    web  => {app => 'web', tier => 'front'},
    api  => {app => 'api', tier => 'back'},
    db   => {app => 'db', tier => 'back', env => 'prod'},
    bare => undef,
);
for my $n (sort keys %cms) {
    my ($st) = $s->call(POST => '/api/v1/namespaces/sel-a/configmaps',
        {metadata => {name => $n, ($cms{$n} ? (labels => $cms{$n}) : ())}});
    is($st, 201, "configmap $n");
}
my ($st) = $s->call(POST => '/api/v1/namespaces/sel-b/configmaps',
    {metadata => {name => 'web2', labels => {app => 'web', tier => 'front'}}});
is($st, 201, 'a configmap in the other namespace');

my $cm = '/api/v1/namespaces/sel-a/configmaps';
my %label_cases = (
    'app=web'                 => 'web',
    'app==web'                => 'web',
    'app!=web'                => 'api,bare,db',
    'app in (web,db)'         => 'db,web',
    'app notin (web,db)'      => 'api,bare',
    'env'                     => 'db',
    '!env'                    => 'api,bare,web',
    'tier=back,!env'          => 'api',
    ' tier = back , env '     => 'db',
    'app in (nothing)'        => '',
);
for my $sel (sort keys %label_cases) {
    is(names("$cm?labelSelector=" . esc($sel)), $label_cases{$sel}, "labelSelector '$sel'");
}
is(names('/api/v1/configmaps?labelSelector=' . esc('app=web')), 'web,web2',
    'a label selector across all namespaces');
is(names('/api/v1/configmaps?labelSelector=' . esc('app=web') . '&fieldSelector='
    . esc('metadata.namespace=sel-b')), 'web2', '... narrowed by metadata.namespace');
is(names("$cm?fieldSelector=" . esc('metadata.name=db')), 'db', 'fieldSelector metadata.name');
is(names("$cm?fieldSelector=" . esc('metadata.name!=db') . '&labelSelector=' . esc('tier=back')),
    'api', 'field != and a label selector together');
is(names("$cm?fieldSelector=" . esc('metadata.namespace=sel-b')), '',
    'a namespace that contradicts the path selects nothing');

# Pages are filled with matching objects; no remainingItemCount with a selector.
my ($st2, $o) = $s->call(GET => "$cm?limit=1&labelSelector=" . esc('tier=back'));
is(scalar @{$o->{items}}, 1, 'limit=1 with a selector: one item');
is($o->{items}[0]{metadata}{name}, 'api', '... the first match in key order');
ok($o->{metadata}{continue}, '... and a continue token');
ok(!exists $o->{metadata}{remainingItemCount}, '... but no remainingItemCount');
($st2, $o) = $s->call(GET => "$cm?limit=1&labelSelector=" . esc('tier=back')
    . "&continue=$o->{metadata}{continue}");
is(join(',', map { $_->{metadata}{name} } @{$o->{items}}), 'db', 'the next page skips non-matches');

# Field selectors per kind.
for my $p (['p1', 'node-a', 'Always'], ['p2', 'node-b', 'Never']) {
    ($st) = $s->call(POST => '/api/v1/namespaces/sel-a/pods', {metadata => {name => $p->[0]},
        spec => {nodeName => $p->[1], restartPolicy => $p->[2],
                 containers => [{name => 'c', image => 'nginx'}]}});
    is($st, 201, "pod $p->[0]");
}
my $pods = '/api/v1/namespaces/sel-a/pods';
is(names("$pods?fieldSelector=" . esc('spec.nodeName=node-a')), 'p1', 'pods spec.nodeName');
is(names("$pods?fieldSelector=" . esc('spec.restartPolicy!=Always')), 'p2', 'pods spec.restartPolicy');
is(names("$pods?fieldSelector=" . esc('status.phase=Pending')), 'p1,p2', 'pods status.phase (new pods are Pending)');
is(names("$pods?fieldSelector=" . esc('status.phase=Running')), '', '... none Running');
is(names('/api/v1/pods?fieldSelector=' . esc('spec.nodeName=node-b,status.phase!=Failed')), 'p2',
    'pods across all namespaces with two terms');

for my $sec (['s-opaque', undef], ['s-tls', 'kubernetes.io/tls']) {
    ($st) = $s->call(POST => '/api/v1/namespaces/sel-a/secrets', {metadata => {name => $sec->[0]},
        ($sec->[1] ? (type => $sec->[1], data => {'tls.crt' => '', 'tls.key' => ''}) : ())});
    is($st, 201, "secret $sec->[0]");
}
is(names('/api/v1/secrets?fieldSelector=' . esc('type=kubernetes.io/tls')), 's-tls', 'secrets type');
is(names('/api/v1/namespaces/sel-a/secrets?fieldSelector=' . esc('type=Opaque')), 's-opaque',
    'secrets type defaults to Opaque');
is(names('/api/v1/namespaces?fieldSelector=' . esc('metadata.name=sel-b,status.phase=Active')),
    'sel-b', 'namespaces status.phase');

# Bad selectors are 400 with kube's wording.
my @bad = (
    ["$cm?labelSelector=" . esc('a=b=c'), "found '=', expected: ',' or 'end of string'"],
    ["$cm?labelSelector=" . esc('a in b'), "unable to parse requirement: found 'b' expected: '('"],
    ["$cm?labelSelector=" . esc('!'), "unable to parse requirement: found '', expected: identifier"],
    ["$cm?fieldSelector=" . esc('foo'), "invalid selector: 'foo'; can't understand 'foo'"],
    ["$pods?fieldSelector=" . esc('spec.bogus=1'), 'field label not supported: spec.bogus'],
    ['/api/v1/namespaces?fieldSelector=' . esc('metadata.namespace=x'),
        'field label not supported: metadata.namespace'],
);
for my $b (@bad) {
    ($st, $o) = $s->call(GET => $b->[0]);
    is($st, 400, "400 for $b->[0]");
    is($o->{reason}, 'BadRequest', '... BadRequest');
    is($o->{message}, $b->[1], '... with kube\'s message');
}
($st, $o) = $s->call(GET => "$cm?labelSelector=" . esc('-a'));
like($o->{message}, qr/^unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of/,
    'an invalid key is reported as kube\'s field error');

# deletecollection deletes only the selection.
($st, $o) = $s->call(DELETE => "$cm?labelSelector=" . esc('tier=back'));
is($st, 200, 'deletecollection with a label selector');
is(join(',', sort map { $_->{metadata}{name} } @{$o->{items}}), 'api,db', '... answers with what it deleted');
is(names($cm), 'bare,web', '... and only that is gone');
($st, $o) = $s->call(DELETE => "$cm?labelSelector=" . esc('a in b'));
is($st, 400, 'deletecollection with a bad selector is 400');
is($o->{message}, "unable to parse requirement: found 'b' expected: '('", '... kube\'s message');
($st, $o) = $s->call(DELETE => "$cm?fieldSelector=" . esc('spec.bogus=1'));
is($st, 400, '... as is an unsupported field');
is(names($cm), 'bare,web', 'nothing was deleted by the bad ones');
($st, $o) = $s->call(DELETE => "$cm?fieldSelector=" . esc('metadata.name=bare') . '&dryRun=All');
is(join(',', map { $_->{metadata}{name} } @{$o->{items}}), 'bare', 'a dryRun deletecollection lists the selection');
is(names($cm), 'bare,web', '... and deletes nothing');

# kubectl -l and --field-selector.
my ($rc, $out, $err) = kubectl($s, '1.32', 'get', 'cm', '-n', 'sel-a', '-l', 'app=web', '-o', 'name');
is($rc, 0, 'kubectl get cm -l app=web') or diag $err;
is($out, "configmap/web\n", '... lists the labelled configmap');
($rc, $out, $err) = kubectl($s, '1.32', 'get', 'cm', '-n', 'sel-b', '--field-selector',
    'metadata.name=web2', '-o', 'name');
is($rc, 0, 'kubectl get cm --field-selector metadata.name=web2') or diag $err;
is($out, "configmap/web2\n", '... finds it');
($rc, $out, $err) = kubectl($s, '1.32', 'get', 'cm', '-A', '--field-selector',
    'metadata.name=web2', '-o', 'name');
is($rc, 0, 'kubectl get cm -A --field-selector metadata.name=web2') or diag $err;
is($out, "configmap/web2\n", '... finds it across all namespaces');
($rc, $out, $err) = kubectl($s, '1.32', 'get', 'pods', '-n', 'sel-a', '--field-selector', 'spec.bogus=1');
isnt($rc, 0, 'kubectl with an unsupported field selector fails');
like($err, qr/field label not supported: spec\.bogus/, '... printing kube\'s message');

is_deeply([$s->fatal_lines($s->error_log_since_start)], [], 'no alerts or crashes in the log');
done_testing();
