# The etcd backend (kube_storage etcd:): two nginx "hosts" on one real etcd.
# A write on one is read, listed and watched on the other; creates and
# updates conflict across hosts; keys sit in kube's layout under /registry
# and values are kube's storage encoding (JSON and envelopes put directly
# are served, a corrupt value fails alone); kubectl works against both;
# kill -9 of a host after 2xx writes loses none of them; with etcd stopped,
# writes answer 503 and /readyz names etcd, a host still starts, and all
# resume once etcd is back.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $etcd = start_etcd();
plan skip_all => 'no etcd' unless $etcd;

my $config = <<'EOF';
location / {
    kube_api;
    kube_anonymous_auth on;
}
EOF
my $http_config = "kube_storage etcd:$etcd->{url};\n";

my $a = start_server(workers => 2, http_config => $http_config, config => $config);
my $b = start_server(workers => 1, http_config => $http_config, config => $config);

sub cm {
    my ($name, %o) = @_;
    return { apiVersion => 'v1', kind => 'ConfigMap',
        metadata => { name => $name, ($o{rv} ? (resourceVersion => "$o{rv}") : ()) },
        data => $o{data} || { k => 'v' } };
}

# The answer to GET $path on $s once it is $status (the other host's watch
# brings writes within milliseconds; allow a second).
sub get_when {
    my ($s, $path, $status) = @_;
    my @r;
    wait_until(sub { @r = $s->call(GET => $path); $r[0] == $status }, 5);
    return @r;
}

my $ns = 'etcd-hosts';
my $base = "/api/v1/namespaces/$ns/configmaps";

# --- A write on one host is read, listed and watched on the other.
{
    $a->create_namespace($ns);
    my ($st) = get_when($b, "/api/v1/namespaces/$ns", 200);
    is($st, 200, 'a namespace created on host A is read on host B');

    my ($lst, $list) = $b->call(GET => $base);
    is($lst, 200, 'list on B');
    my $rv = $list->{metadata}{resourceVersion};
    like($rv, qr/^[1-9]\d*$/, 'the list has a resourceVersion (the etcd revision)');
    my $w = $b->watch("$base?watch=true&resourceVersion=$rv");
    is($w->status, 200, 'watch on B');

    my ($cst, $created) = $a->call(POST => $base, cm('one', data => { k => 'v1' }));
    is($cst, 201, 'create on A');
    my $crv = $created->{metadata}{resourceVersion};
    ok($crv > $rv, 'its resourceVersion is a later revision');

    my ($gst, $got) = get_when($b, "$base/one", 200);
    is($gst, 200, 'B reads it');
    is($got->{metadata}{resourceVersion}, $crv, '... at the same resourceVersion');
    is($got->{data}{k}, 'v1', '... with its data');
    is($got->{metadata}{uid}, $created->{metadata}{uid}, '... and uid');

    my (undef, $l2) = $b->call(GET => $base);
    is(join(',', map { $_->{metadata}{name} } @{ $l2->{items} }), 'one', 'B lists it');

    my $e = $w->next_event(5);
    is($e && "$e->{type} $e->{object}{metadata}{name} $e->{object}{metadata}{resourceVersion}",
        "ADDED one $crv", "B's watcher sees A's create");

    # --- Conflicts across hosts.
    my ($dup, $st409) = $b->call(POST => $base, cm('one'));
    is($dup, 409, 'creating the same name on B: 409');
    is($st409->{reason}, 'AlreadyExists', '... AlreadyExists');
    is($st409->{message}, 'configmaps "one" already exists', '... worded as kube');

    my ($ust, $updated) = $b->call(PUT => "$base/one", cm('one', rv => $crv, data => { k => 'v2' }));
    is($ust, 200, 'update on B at the current resourceVersion');
    my $urv = $updated->{metadata}{resourceVersion};
    ok($urv > $crv, '... a later revision');
    my ($stale) = $a->call(PUT => "$base/one", cm('one', rv => $crv, data => { k => 'v3' }));
    is($stale, 409, 'an update on A at the old resourceVersion: 409');
    my (undef, $after) = get_when($a, "$base/one", 200);
    wait_until(sub { (undef, $after) = $a->call(GET => "$base/one");
        $after->{metadata}{resourceVersion} == $urv }, 5);
    is($after->{data}{k}, 'v2', "A reads B's update");

    $e = $w->next_event(5);
    is($e && "$e->{type} $e->{object}{data}{k}", 'MODIFIED v2', "B's watcher sees the update");

    my ($dst) = $a->call(DELETE => "$base/one");
    is($dst, 200, 'delete on A');
    my ($gone) = get_when($b, "$base/one", 404);
    is($gone, 404, 'B no longer finds it');
    $e = $w->next_event(5);
    is($e && "$e->{type} $e->{object}{metadata}{name}", 'DELETED one', "B's watcher sees the delete");
    my ($again) = $b->call(DELETE => "$base/one");
    is($again, 404, 'deleting it again on B: 404');
}

# --- Keys in kube's layout, values in kube's storage encoding.
SKIP: {
    my $etcdctl = '/usr/bin/etcdctl';
    skip 'no etcdctl', 23 unless -x $etcdctl;
    my $etcdctl_run = sub {
        my ($stdin, @args) = @_;
        my ($rc, $out, $err) = run_command([$etcdctl, '--endpoints', $etcd->{url}, @args],
            env => { ETCDCTL_API => 3 }, (defined $stdin ? (stdin => $stdin) : ()));
        diag("etcdctl @args: $err") if $rc;
        return $out;
    };
    my $keys = sub { $etcdctl_run->(undef, 'get', '--prefix', '--keys-only', $_[0]) };
    my $value = sub { $etcdctl_run->(undef, 'get', '--print-value-only', $_[0]) };

    my ($st) = $a->call(POST => $base, cm('layout'));
    is($st, 201, 'create layout');
    like($keys->("/registry/configmaps/$ns/"), qr{^/registry/configmaps/$ns/layout$}m,
        'the key is /registry/configmaps/<ns>/<name>');
    # "k8s\0", then runtime.Unknown's typeMeta {apiVersion: v1, kind: ConfigMap}.
    my $v = $value->("/registry/configmaps/$ns/layout");
    is(unpack('H*', substr($v, 0, 21)), unpack('H*', "k8s\0\x0a\x0f\x0a\x02v1\x12\x09ConfigMap"),
        'the value is the protobuf envelope of a v1 ConfigMap');
    unlike($v, qr/"resourceVersion"/, '... with no resourceVersion in it');

    my ($sst) = $a->call(POST => "/api/v1/namespaces/$ns/services", { apiVersion => 'v1',
        kind => 'Service', metadata => { name => 'web' },
        spec => { ports => [ { port => 80 } ] } });
    is($sst, 201, 'create a Service');
    like($keys->("/registry/services/"), qr{^/registry/services/specs/$ns/web$}m,
        'a Service is under /registry/services/specs/ as in kube');
    my ($est) = $a->call(POST => "/api/v1/namespaces/$ns/endpoints", { apiVersion => 'v1',
        kind => 'Endpoints', metadata => { name => 'web' } });
    is($est, 201, 'create Endpoints');
    like($keys->("/registry/services/"), qr{^/registry/services/endpoints/$ns/web$}m,
        '... Endpoints under /registry/services/endpoints/');
    my ($nst) = $a->call(POST => '/api/v1/nodes', { apiVersion => 'v1', kind => 'Node',
        metadata => { name => 'etcd-node' } });
    is($nst, 201, 'create a Node');
    like($keys->('/registry/minions/'), qr{^/registry/minions/etcd-node$}m,
        '... under /registry/minions/');
    my ($nget, $node) = get_when($b, '/api/v1/nodes/etcd-node', 200);
    is($nget, 200, '... which host B reads');
    my ($dst) = $a->call(POST => "/apis/apps/v1/namespaces/$ns/deployments", {
        apiVersion => 'apps/v1', kind => 'Deployment', metadata => { name => 'd' },
        spec => { selector => { matchLabels => { app => 'd' } }, template => {
            metadata => { labels => { app => 'd' } },
            spec => { containers => [ { name => 'c', image => 'nginx' } ] } } } });
    is($dst, 201, 'create a Deployment');
    is(unpack('H*', substr($value->("/registry/deployments/$ns/d"), 0, 27)),
        unpack('H*', "k8s\0\x0a\x15\x0a\x07apps/v1\x12\x0aDeployment"),
        '... stored under /registry/deployments/ as an apps/v1 envelope');

    # JSON values (kube-apiserver --storage-media-type=application/json)
    # written into etcd directly are served, resourceVersion from the key.
    $etcdctl_run->(qq({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"from-json",)
        . qq("namespace":"$ns","uid":"0b6c1a4e-3c2a-4d38-9a0e-2f4a3a0d1e11",)
        . qq("creationTimestamp":"2026-01-01T00:00:00Z"},"data":{"j":"son"}}),
        'put', "/registry/configmaps/$ns/from-json");
    my ($jst, $json) = get_when($b, "$base/from-json", 200);
    is($jst, 200, 'a JSON value put with etcdctl is served');
    is($json->{data}{j}, 'son', '... with its data');
    like($json->{metadata}{resourceVersion} // '', qr/^[1-9]\d*$/,
        '... and its mod revision as resourceVersion');
    # The same object as an envelope another writer made: this server's own
    # bytes, copied to a new key.
    my $envelope = $value->("/registry/configmaps/$ns/layout");
    chomp $envelope;
    $envelope =~ s/layout/copied/g;
    $etcdctl_run->($envelope, 'put', "/registry/configmaps/$ns/copied");
    my ($cst, $copied) = get_when($a, "$base/copied", 200);
    is($cst, 200, 'an envelope put with etcdctl is served');
    is($copied->{metadata}{name}, 'copied', '... decoded');

    # A corrupt value fails that object only.
    $etcdctl_run->("k8s\0garbage", 'put', "/registry/configmaps/$ns/corrupt");
    my ($bad, $badj);
    wait_until(sub { ($bad, $badj) = $a->call(GET => "$base/corrupt"); $bad != 404 }, 5);
    is($bad, 500, 'a corrupt value: 500 for that object');
    like($badj->{message} // '', qr{"/registry/configmaps/$ns/corrupt" cannot be decoded},
        '... naming its etcd key');
    my ($gst) = $a->call(GET => "$base/layout");
    is($gst, 200, '... the other objects still serve');
    my ($lst, $list) = $b->call(GET => $base);
    is($lst, 200, '... and the list');
    ok(!grep({ $_->{metadata}{name} eq 'corrupt' } @{ $list->{items} }), '... without it');
    $etcdctl_run->(undef, 'del', "/registry/configmaps/$ns/corrupt");
}

# --- A collection delete larger than etcd takes in one transaction (its
# --max-txn-ops, 128): deleted in transactions of what etcd takes. The
# creates come 20 at a time, so A also commits them together.
{
    my $many = 'many';
    $a->create_namespace($many);
    my $n = 300;
    my $r = http_batch([ map { { url => $a->url . "/api/v1/namespaces/$many/configmaps",
        method => 'POST', headers => { 'Content-Type' => 'application/json' },
        body => encode_json({ apiVersion => 'v1', kind => 'ConfigMap',
            metadata => { name => "cm-$_" }, data => { k => 'v' } }) } } 1 .. $n ],
        parallel => 20);
    is(scalar(grep { $_->{status} == 201 } @$r), $n, "$n ConfigMaps created on A, 20 at once");
    my ($lst, $list) = $b->call(GET => "/api/v1/namespaces/$many/configmaps");
    is(scalar(@{ $list->{items} || [] }), $n, '... listed on B');

    # --- Pagination across hosts: a list begun on A goes on from B's
    # continue, then A's, at the first page's resourceVersion, while a write
    # comes between the pages.
    my $path = "/api/v1/namespaces/$many/configmaps?limit=120";
    my ($p1st, $p1) = $a->call(GET => $path);
    is($p1st, 200, 'page 1 of 120 on A');
    $a->call(POST => "/api/v1/namespaces/$many/configmaps", { apiVersion => 'v1',
        kind => 'ConfigMap', metadata => { name => 'between-pages' } });
    my ($p2st, $p2) = $b->call(GET => "$path&continue=$p1->{metadata}{continue}");
    is($p2st, 200, "page 2 on B, from A's continue token");
    my ($p3st, $p3) = $a->call(GET => "$path&continue=$p2->{metadata}{continue}");
    is($p3st, 200, "page 3 on A, from B's");
    my @names = map { $_->{metadata}{name} } map { @{ $_->{items} || [] } } $p1, $p2, $p3;
    is(scalar(@names), $n, "the $n objects over three pages");
    is(scalar(keys %{ { map { $_ => 1 } @names } }), $n, '... each once');
    ok(!grep({ $_ eq 'between-pages' } @names), '... as they were at the first page');
    is($p2->{metadata}{resourceVersion}, $p1->{metadata}{resourceVersion},
        "... at the first page's resourceVersion on B");
    ok(!$p3->{metadata}{continue}, '... and the last page says so');
    $a->call(DELETE => "/api/v1/namespaces/$many/configmaps/between-pages");

    my ($dst, $deleted) = $b->call(DELETE => "/api/v1/namespaces/$many/configmaps");
    is($dst, 200, "a collection delete of the $n on B");
    is(scalar(@{ $deleted->{items} || [] }), $n, '... answers the deleted items');
    ($lst, $list) = $a->call(GET => "/api/v1/namespaces/$many/configmaps");
    is(scalar(@{ $list->{items} || [] }), 0, '... and none is left on A');
}

# --- Namespace deletion across hosts: deleted on B, emptied and gone on A.
{
    my $doomed = 'doomed';
    $a->create_namespace($doomed);
    for my $i (1 .. 5) {
        $a->call(POST => "/api/v1/namespaces/$doomed/configmaps", { apiVersion => 'v1',
            kind => 'ConfigMap', metadata => { name => "cm-$i" } });
    }
    my ($dst, $ns) = $b->call(DELETE => "/api/v1/namespaces/$doomed");
    is($dst, 200, 'a namespace made on A is deleted on B');
    is($ns->{status}{phase}, 'Terminating', '... Terminating');
    my ($gst, $gone) = (0);
    ok(wait_until(sub { ($gst) = $a->call(GET => "/api/v1/namespaces/$doomed"); $gst == 404 }, 20),
        '... and gone on A once emptied')
        or diag("GET on A: $gst");
    my ($lst, $list) = $a->call(GET => "/api/v1/namespaces/$doomed/configmaps");
    is(scalar(@{ $list->{items} || [] }), 0, '... with none of its ConfigMaps left');
    my ($cst) = $a->call(POST => "/api/v1/namespaces/$doomed/configmaps", { apiVersion => 'v1',
        kind => 'ConfigMap', metadata => { name => 'late' } });
    is($cst, 404, '... and no create in it on A');
}

# --- kubectl against both hosts.
{
    my $manifest = <<"EOF";
apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  namespace: $ns
data:
  k: from-a
EOF
    $a->kc_ok(undef, 'kubectl apply on A', 'apply', '-f', '-', { stdin => $manifest });
    my $out;
    wait_until(sub { ($out) = $b->kc_json(undef, 'get', 'configmap', 'applied', '-n', $ns);
        ($out->{data}{k} // '') eq 'from-a' }, 5);
    is($out->{data}{k}, 'from-a', 'kubectl get on B reads it');
    $manifest =~ s/from-a/from-b/;
    $b->kc_ok(undef, 'kubectl apply on B', 'apply', '-f', '-', { stdin => $manifest });
    wait_until(sub { ($out) = $a->kc_json(undef, 'get', 'configmap', 'applied', '-n', $ns);
        ($out->{data}{k} // '') eq 'from-b' }, 5);
    is($out->{data}{k}, 'from-b', "kubectl get on A reads B's apply");
}

# --- kill -9 of a host after 2xx writes loses nothing.
{
    my @names;
    for my $i (1 .. 30) {
        my ($st) = $a->call(POST => $base, cm("k$i"));
        push @names, "k$i" if $st == 201;
    }
    is(scalar @names, 30, '30 creates on A answered 201');
    $a->kill9_all;
    my $names;
    wait_until(sub {
        my (undef, $l) = $b->call(GET => $base);
        $names = join ',', sort grep { /^k\d+$/ } map { $_->{metadata}{name} } @{ $l->{items} };
        $names eq join(',', sort @names);
    }, 5);
    is($names, join(',', sort @names), 'after kill -9 of A, B lists every acknowledged create');
    ok($a->start, 'A starts again');
    my (undef, $l) = $a->call(GET => $base);
    is(scalar(grep { /^k\d+$/ } map { $_->{metadata}{name} } @{ $l->{items} }), 30,
        '... and lists them too');
}

# --- etcd stopped under the hosts, and a host started while it is down.
{
    # A watch on B held across the outage: open while etcd is down, and it
    # misses neither the write made just before the stop nor the one after.
    my (undef, $before) = $b->call(GET => $base);
    my $held = $b->watch("$base?watch=true&resourceVersion=$before->{metadata}{resourceVersion}");
    is($held->status, 200, 'a watch on B before etcd stops');
    my ($lst0) = $a->call(POST => $base, cm('just-before'));
    is($lst0, 201, '... a create on A just before');
    $etcd->{stop}->();
    my $body = '';
    my $down = wait_until(sub {
        my ($st, undef, $r) = $b->call(GET => '/readyz?verbose');
        $body = $r->{body};
        $st == 500 && $body =~ /^\[-\]etcd failed/m;
    }, 10);
    ok($down, "etcd stopped: B's /readyz fails its etcd check") or diag($body);
    my ($wst, $wj) = $b->call(POST => $base, cm('while-down'));
    is($wst, 503, '... a write on B answers 503');
    is($wj->{kind} // '', 'Status', '... a Status');

    my $c = start_server(workers => 1, http_config => $http_config, config => $config,
        ready_path => undef);
    ok($c->is_running, 'a host started while etcd is down runs');
    my ($cst, $cj) = $c->call(GET => $base);
    is($cst, 503, '... answers the API 503');
    like($cj->{message} // '', qr/etcd/, '... saying etcd cannot be read');
    my ($rst, undef, $rr) = $c->call(GET => '/readyz?verbose');
    is($rst, 500, '... and /readyz 500');
    like($rr->{body}, qr/^\[-\]etcd failed/m, '... naming etcd');
    ok(wait_until(sub { $c->error_log_since_start =~ /etcd:\S+ cannot be read yet, retrying/ }, 10),
        '... and its error log says etcd cannot be read yet');

    $etcd->{start}->();
    my $up = wait_until(sub { ($c->call(GET => '/readyz'))[0] == 200 }, 20);
    ok($up, 'etcd started again: the new host becomes ready');
    my ($lst, $l) = $c->call(GET => $base);
    is($lst, 200, '... lists');
    ok(grep({ $_->{metadata}{name} eq 'layout' } @{ $l->{items} || [] }),
        '... what was written before');
    ok(wait_until(sub { ($b->call(GET => '/readyz'))[0] == 200 }, 20), 'B is ready again');
    my ($ast) = $b->call(POST => $base, cm('after'));
    is($ast, 201, '... and writes');
    ok(!$held->ended(0) && !$held->closed, "the watch on B stayed open through etcd's outage");
    my @seen = map { "$_->{type} $_->{object}{metadata}{name}" }
        grep { $_->{type} ne 'BOOKMARK' } $held->drain(3);
    is(join(',', @seen), 'ADDED just-before,ADDED after',
        '... and brought the write before the outage and the one after, once each');
    my ($gst) = get_when($c, "$base/after", 200);
    is($gst, 200, 'the new host reads it');
    note("C answered: $cj->{message}; B answered: $wj->{message}");
    $c->fatal_free_ok(slurp($c->log_file), 'the host started while etcd was down');
}

# --- Several endpoints: a host whose first one is dead fails over to the
# next.
{
    my $dead = 'http://127.0.0.1:' . free_port();
    my $d = start_server(workers => 1, config => $config,
        http_config => "kube_storage etcd:$dead,$etcd->{url};\n");
    my ($gst, $got) = get_when($d, "$base/after", 200);
    is($gst, 200, 'a host whose first etcd endpoint is dead reads through the second');
    my ($cst) = $d->call(POST => $base, cm('via-second-endpoint'));
    is($cst, 201, '... and writes');
    $d->stop;
}

done_testing;
