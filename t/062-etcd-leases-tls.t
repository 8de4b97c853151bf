# The etcd backend's leases, compaction and TLS. Events are written with an
# etcd lease (kube_storage ... event_ttl=, kube-apiserver's --event-ttl), one
# lease reused by many events, renewed by each update, so that etcd deletes
# them and every host's watchers see them go. Hosts compact etcd by
# kube-apiserver's compact_rev_key protocol: once per interval however many
# hosts share it. TLS to etcd with client certificates (cacert=, cert=,
# key=) against a real etcd started with --client-cert-auth.
use lib 't/lib';
use Test::Kube;
use Test::More;
use List::Util ();
use Time::HiRes ();

my $etcdctl = '/usr/bin/etcdctl';
plan skip_all => "no $etcdctl (Debian's etcd-client)" unless -x $etcdctl;
my $etcd = start_etcd();
plan skip_all => 'no etcd' unless $etcd;

# etcdctl against etcd $e: its stdout, or undef (and a note) when it fails.
sub etcdctl {
    my ($e, @args) = @_;
    my @tls = $e->{cacert}
        ? ('--cacert', $e->{cacert}, '--cert', $e->{cert}, '--key', $e->{key}) : ();
    my ($rc, $out, $err) = run_command([$etcdctl, '--endpoints', $e->{url}, @tls, @args],
        env => { ETCDCTL_API => 3 });
    if ($rc) {
        note("etcdctl @args: $err");
        return undef;
    }
    return $out;
}

# { lease id => { ttl => granted seconds, keys => [attached keys] } } in etcd.
sub leases {
    my %leases;
    my $list = etcdctl($etcd, 'lease', 'list') // '';
    for my $id ($list =~ /^([0-9a-f]+)$/mg) {
        my $t = etcdctl($etcd, 'lease', 'timetolive', $id, '--keys') // '';
        next unless $t =~ /granted with TTL\((\d+)s\)/;
        my $ttl = $1;
        my @keys = $t =~ /attached keys\(\[(.*)\]\)/ ? split(/ /, $1) : ();
        $leases{$id} = { ttl => $ttl, keys => \@keys };
    }
    return \%leases;
}

# The lease holding etcd key $key, as [id, ttl], or [] when none does.
sub lease_of {
    my ($key) = @_;
    my $leases = leases();
    for my $id (keys %$leases) {
        return [ $id, $leases->{$id}{ttl} ] if grep { $_ eq $key } @{ $leases->{$id}{keys} };
    }
    return [];
}

my $config = <<'EOF';
location / {
    kube_api;
    kube_anonymous_auth on;
}
EOF

# Host A writes events that live 3 s; host B keeps kube's hour. Both take
# part in compaction every 2 s.
my $started = Time::HiRes::time();
my $a = start_server(workers => 2, config => $config,
    http_config => "kube_storage etcd:$etcd->{url} event_ttl=3s;\nkube_compaction_interval 2s;\n");
my $b = start_server(workers => 1, config => $config,
    http_config => "kube_storage etcd:$etcd->{url};\nkube_compaction_interval 2s;\n");

my $ns = 'leases';
my $events = "/api/v1/namespaces/$ns/events";
sub event {
    my ($name, $message) = @_;
    return { apiVersion => 'v1', kind => 'Event', metadata => { name => $name },
        involvedObject => { kind => 'Pod', name => 'web', namespace => $ns },
        reason => 'Tested', message => $message // 'hello', type => 'Normal',
        source => { component => 'test' } };
}

$a->create_namespace($ns);

# --- An event is written with a lease of the TTL; other kinds are not.
{
    my ($st) = $a->call(POST => $events, event('short'));
    is($st, 201, 'an event is created on host A');
    my $lease = lease_of("/registry/events/$ns/short");
    ok($lease->[0], 'etcd holds it under a lease');
    is($lease->[1], 3, "... granted for A's event_ttl (3 s: 5% of it is no margin)");
    my ($cst) = $a->call(POST => "/api/v1/namespaces/$ns/configmaps", {
        apiVersion => 'v1', kind => 'ConfigMap', metadata => { name => 'kept' } });
    is($cst, 201, 'a ConfigMap is created');
    is_deeply(lease_of("/registry/configmaps/$ns/kept"), [], '... without a lease');
}

# --- Many events share one lease: one grant, not one per event.
{
    my $ok = 0;
    for my $i (1 .. 20) {
        my ($st) = $b->call(POST => $events, event("long-$i"));
        $ok++ if $st == 201;
    }
    is($ok, 20, '20 events are created on host B');
    my @ids = map { lease_of("/registry/events/$ns/long-$_")->[0] // '' } (1, 10, 20);
    ok($ids[0], "B's events are under a lease");
    is("@ids", join(' ', ($ids[0]) x 3), '... the same one for all of them');
    is(leases()->{ $ids[0] }{ttl}, 3660, '... granted for an hour and a minute of reuse');
    is(scalar(@{ leases()->{ $ids[0] }{keys} }), 20, '... holding the 20 events');
    is(scalar(grep { $_->{ttl} == 3660 } values %{ leases() }), 1,
        'one lease was granted for them');
}

# --- etcd deletes an event when its lease expires; every host sees it go,
# and an update renews the lease.
{
    my ($lst, $list) = $b->call(GET => $events);
    my $w = $b->watch("$events?watch=true&resourceVersion=$list->{metadata}{resourceVersion}");
    is($w->status, 200, 'a watch of the events on host B');

    my ($rst) = $a->call(POST => $events, event('renewed', 'first'));
    my $created = Time::HiRes::time();
    is($rst, 201, 'two more events on A');
    ($rst) = $a->call(POST => $events, event('brief'));
    is($rst, 201, '...');
    Time::HiRes::sleep(2);
    my ($ust, $updated) = $a->call(GET => "$events/renewed");
    $updated->{message} = 'second';
    ($ust) = $a->call(PUT => "$events/renewed", $updated);
    is($ust, 200, 'it is updated 2 s later');
    my $renewed = lease_of("/registry/events/$ns/renewed");
    is($renewed->[1], 3, '... under a new lease of the TTL');
    # Its first lease ran out 3 s after the create.
    Time::HiRes::sleep(List::Util::max(0, $created + 4 - Time::HiRes::time()));
    is(($b->call(GET => "$events/renewed"))[0], 200,
        'the updated event outlives its first lease');
    ok(wait_until(sub { ($b->call(GET => "$events/renewed"))[0] == 404 }, 10),
        '... then expires 3 s after its update');

    my $gone = wait_until(sub { ($b->call(GET => "$events/short"))[0] == 404 }, 10);
    ok($gone, "A's first event expired: B answers 404");
    is(($a->call(GET => "$events/short"))[0], 404, '... and so does A');
    my @deleted = map { $_->{object}{metadata}{name} } grep { $_->{type} eq 'DELETED' }
        $w->drain(2);
    is(($b->call(GET => "$events/brief"))[0], 404, 'the other one expired too');
    my %deleted = map { $_ => 1 } @deleted;
    ok($deleted{brief} && $deleted{renewed}, "B's watcher sees both DELETED")
        or diag("DELETED: @deleted");
    is(($b->call(GET => "$events/long-1"))[0], 200, "B's hour-long events are still there");
}

# --- A lease etcd no longer knows (revoked here; or etcd restored from a
# backup): its events go, and the next event asks for a new lease.
{
    my $old = lease_of("/registry/events/$ns/long-1")->[0];
    ok(defined etcdctl($etcd, 'lease', 'revoke', $old), "B's lease is revoked with etcdctl");
    ok(wait_until(sub { ($b->call(GET => "$events/long-1"))[0] == 404 }, 10),
        '... its events are gone on B');
    is(($a->call(GET => "$events/long-20"))[0], 404, '... and on A');
    my ($st) = $b->call(POST => $events, event('after-revoke'));
    is($st, 201, 'the next event on B is written');
    my $new = lease_of("/registry/events/$ns/after-revoke");
    ok($new->[0] && $new->[0] ne $old, '... under a new lease');
}

# --- Compaction: the hosts share kube's compact_rev_key and compact etcd
# once per interval between them.
{
    my $elapsed;
    my $key;
    wait_until(sub {
        my $out = etcdctl($etcd, 'get', 'compact_rev_key', '-w', 'json');
        $key = $out ? json_of($out) : undef;
        $key && $key->{kvs} && $key->{kvs}[0]{version} >= 3;
    }, 15);
    $elapsed = Time::HiRes::time() - $started;
    my $version = $key->{kvs}[0]{version} // 0;
    cmp_ok($version, '>=', 3, "compact_rev_key's version moves on, interval by interval");
    # Two hosts fighting would move it twice per interval.
    cmp_ok($version, '<=', int($elapsed / 2) + 2,
        sprintf('... once per 2 s interval for both hosts (%d in %.1f s)', $version, $elapsed));
    my $compacted = 0;
    wait_until(sub {
        $compacted = () = slurp("$etcd->{dir}/etcd.log") =~ /finished scheduled compaction/g;
        $compacted >= 1;
    }, 10);
    cmp_ok($compacted, '>=', 1, 'etcd was compacted');
    $elapsed = Time::HiRes::time() - $started;
    cmp_ok($compacted, '<=', int($elapsed / 2) + 1,
        sprintf('... at most once per interval (%d in %.1f s)', $compacted, $elapsed));
    my $value = $key->{kvs}[0]{value};
    require MIME::Base64;
    like(MIME::Base64::decode_base64($value), qr/^[1-9]\d*$/,
        "compact_rev_key holds the revision compacted to, as kube's does");
    my (undef, undef, $err) = run_command([$etcdctl, '--endpoints', $etcd->{url}, 'get',
        '--rev=2', "/registry/namespaces/$ns"], env => { ETCDCTL_API => 3 });
    like($err, qr/required revision has been compacted/, 'old revisions are gone from etcd');
    my ($st) = $b->call(POST => $events, event('after-compaction'));
    is($st, 201, 'the hosts write on');
    ok(wait_until(sub { ($a->call(GET => "$events/after-compaction"))[0] == 200 }, 5),
        '... and read each other');
}

# --- Configuration errors.
{
    my $s = new_server(config => $config,
        http_config => "kube_storage etcd:$etcd->{url} event_ttl=soon;\n");
    ok(!$s->start, 'event_ttl= must be a time');
    like($s->{start_error}, qr/invalid parameter "event_ttl=soon"/, '... invalid parameter');
    $s = new_server(config => $config,
        http_config => "kube_storage etcd:$etcd->{url} cacert=/nonexistent/ca.crt;\n");
    ok(!$s->start, 'cacert= with an http:// endpoint fails');
    like($s->{start_error}, qr/need "https:\/\/" endpoints/, '... it needs https://');
    $s = new_server(config => $config,
        http_config => "kube_storage etcd:https://127.0.0.1:1 cert=/x.crt;\n");
    ok(!$s->start, 'cert= without key=');
    like($s->{start_error}, qr/"cert=" and "key=" go together/, '... they go together');
}

# --- TLS to etcd with a client certificate.
{
    my $tls = start_etcd(tls => 1);
    my $c = start_server(workers => 1, config => $config, http_config =>
        "kube_storage etcd:$tls->{url} cacert=$tls->{cacert} cert=$tls->{cert} key=$tls->{key};\n");
    is(($c->call(GET => '/readyz'))[0], 200, 'a host on an etcd that wants client certificates');
    $c->create_namespace('tls');
    my ($st) = $c->call(POST => '/api/v1/namespaces/tls/configmaps', {
        apiVersion => 'v1', kind => 'ConfigMap', metadata => { name => 'secure' } });
    is($st, 201, '... writes');
    my $keys = etcdctl($tls, 'get', '--prefix', '--keys-only', '/registry/configmaps/tls/') // '';
    like($keys, qr{^/registry/configmaps/tls/secure$}m, '... into that etcd');

    # The same etcd refuses a host that presents no certificate.
    my $d = start_server(workers => 1, config => $config, ready_path => undef,
        http_config => "kube_storage etcd:$tls->{url} cacert=$tls->{cacert};\n");
    my ($rst, undef, $rr) = $d->call(GET => '/readyz?verbose');
    is($rst, 500, 'a host without a client certificate is not ready');
    like($rr->{body}, qr/^\[-\]etcd failed/m, '... its etcd check fails');
    my ($gst) = $d->call(GET => '/api/v1/namespaces/tls/configmaps');
    is($gst, 503, '... and its API answers 503');
    $d->stop;
}

done_testing();
