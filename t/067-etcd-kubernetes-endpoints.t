# The `kubernetes` Endpoints and EndpointSlice with several hosts on one
# etcd: kube's lease endpoint reconciler (--endpoint-reconciler-type=lease).
# Each host keeps /registry/masterleases/<its kube_advertise_address> in etcd
# under a lease of kube_endpoint_reconciler_ttl (an Endpoints naming the
# address, kube's encoding), and the Endpoints and EndpointSlice in default
# name every live host's address, sorted. A host stopped gracefully deletes
# its lease at once (kube's RemoveEndpoints at shutdown), and the others drop
# its address at their next pass; one killed leaves once its lease has run
# out. A reload keeps the lease. kube_endpoint_reconciler_type none leaves
# them alone.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Time::HiRes ();

my $etcd = start_etcd();
plan skip_all => 'no etcd' unless $etcd;

my $config = <<'EOF';
location / {
    kube_api;
    kube_anonymous_auth on;
}
EOF
my $ttl = 3;
sub host {
    my ($address, $extra, $hostTtl) = @_;
    $hostTtl //= $ttl;
    return start_server(workers => 2, config => $config,
        http_config => "kube_storage etcd:$etcd->{url};\nkube_advertise_address $address;\n"
            . "kube_endpoint_reconciler_ttl ${hostTtl}s;\n" . ($extra // ''));
}

# (addresses of the Endpoints, addresses of the EndpointSlice) on $s.
sub addresses {
    my ($s) = @_;
    my ($est, $ep) = $s->call(GET => '/api/v1/namespaces/default/endpoints/kubernetes');
    my ($sst, $slice) =
        $s->call(GET => '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    my @ep = $est == 200 ? map { $_->{ip} } map { @{ $_->{addresses} || [] } }
        @{ $ep->{subsets} || [] } : ();
    my @slice = $sst == 200 ? map { @{ $_->{addresses} || [] } } @{ $slice->{endpoints} || [] }
        : ();
    return ("@ep", "@slice");
}

# The etcd keys under /registry/masterleases/ and what etcdctl says of them.
sub etcdctl {
    my (@args) = @_;
    my ($rc, $out, $err) = run_command(['/usr/bin/etcdctl', '--endpoints', $etcd->{url}, @args],
        env => { ETCDCTL_API => 3 });
    return $rc ? undef : $out;
}

# Two hosts, the second's address sorting first.
my $a = host('10.9.0.20');
my $b = host('10.9.0.10');

my $both = '10.9.0.10 10.9.0.20';
for my $s ([$a, 'A'], [$b, 'B']) {
    my @got;
    wait_until(sub { @got = addresses($s->[0]); $got[0] eq $both && $got[1] eq $both }, 15);
    is($got[0], $both, "host $s->[1]: the kubernetes Endpoints name both hosts, sorted");
    is($got[1], $both, "host $s->[1]: ... and so does its EndpointSlice");
}

SKIP: {
    my $keys = etcdctl('get', '--prefix', '--keys-only', '/registry/masterleases/');
    skip('no etcdctl', 4) unless defined $keys;
    my @keys = sort grep { length } split /\n/, $keys;
    is("@keys", '/registry/masterleases/10.9.0.10 /registry/masterleases/10.9.0.20',
        "each host's lease is kube's /registry/masterleases/<ip>");
    my $value = etcdctl('get', '--print-value-only', '/registry/masterleases/10.9.0.20');
    like($value, qr/^k8s\0/, '... an envelope of kube\'s protobuf encoding');
    like($value, qr/Endpoints/, '... of an Endpoints');
    my $lease = etcdctl('get', '-w', 'fields', '/registry/masterleases/10.9.0.20') // '';
    my ($id) = $lease =~ /"Lease"\s*:\s*(\d+)/;
    my $ttlOut = $id ? etcdctl('lease', 'timetolive', sprintf('%x', $id)) // '' : '';
    like($ttlOut, qr/granted with TTL\(${ttl}s\)/, "... under a lease of the TTL (${ttl} s)")
        or diag($lease, $ttlOut);
}

# --- A host stops: its address leaves, at the latest once its lease has run
# out.
{
    $b->stop;
    my $stopped = Time::HiRes::time();
    my @got;
    my $left = wait_until(sub { @got = addresses($a); $got[0] eq '10.9.0.20' }, 20);
    my $took = Time::HiRes::time() - $stopped;
    ok($left, "host B stopped: A's Endpoints name A alone") or diag("@got");
    is($got[1], '10.9.0.20', '... and so does its EndpointSlice');
    # The lease's TTL, then one pass of A (two thirds of the TTL).
    cmp_ok($took, '<=', $ttl + $ttl * 2 / 3 + 2, "... within the TTL and one pass (${took}s)");
    my $keys = etcdctl('get', '--prefix', '--keys-only', '/registry/masterleases/') // '';
    unlike($keys, qr/10\.9\.0\.10/, "... B's lease is gone from etcd");
}

# --- It starts again: its address is back.
{
    $b->start;
    my @got;
    wait_until(sub { @got = addresses($a); $got[0] eq $both }, 15);
    is($got[0], $both, 'host B started again: both are named');
}

# --- A graceful stop deletes the host's lease at once, long before its TTL
# would; a reload keeps it (the old workers delete only what they wrote,
# and the new ones write it again at once).
SKIP: {
    skip('no etcdctl', 6) unless defined etcdctl('get', '--prefix', '--keys-only', '/registry/');
    my $e = host('10.9.0.50', '', 60);
    my $leases = sub { etcdctl('get', '--prefix', '--keys-only', '/registry/masterleases/') // '' };
    ok(wait_until(sub { $leases->() =~ /10\.9\.0\.50/ }, 15), 'host E (TTL 60 s) keeps its lease');
    ok($e->reload(wait_old => 1), 'host E reloads');
    ok(wait_until(sub { $leases->() =~ /10\.9\.0\.50/ }, 5),
        '... and its lease is there after the reload');
    my $offset = $e->log_size;
    my $stopped = Time::HiRes::time();
    ok($e->stop, 'host E stops gracefully');
    my $gone = wait_until(sub { $leases->() !~ /10\.9\.0\.50/ }, 10);
    my $took = Time::HiRes::time() - $stopped;
    ok($gone && $took < 10, "... and its lease is gone from etcd at once (${took}s; its TTL is 60 s)");
    unlike($e->log_since($offset), qr/did not stop in/, '... without waiting out the bound');
}

# --- kube_endpoint_reconciler_type none: the Endpoints are left alone.
{
    my $c = host('10.9.0.30', "kube_endpoint_reconciler_type none;\n");
    Time::HiRes::sleep($ttl);
    my @got = addresses($a);
    is($got[0], $both, "a host with the reconciler off does not list itself")
        or diag("@got");
    my $keys = etcdctl('get', '--prefix', '--keys-only', '/registry/masterleases/') // '';
    unlike($keys, qr/10\.9\.0\.30/, '... nor keeps a lease');
    $c->stop;
}

done_testing();
