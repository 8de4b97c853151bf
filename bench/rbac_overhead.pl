#!/usr/bin/perl
# GET throughput under RBAC against AlwaysAllow in the same nginx, the same
# run (issue 13's benchmark, authorization part):
#
#   KUBE_BUILD=<dir of the module .so> perl bench/rbac_overhead.pl
#
# One nginx (2 workers) with two kube_api servers on loopback, plain HTTP and
# anonymous access: one AlwaysAllow, one RBAC. The store holds 200
# ClusterRoles, 1,000 RoleBindings over 100 namespaces (each to a user and to
# system:unauthenticated), 20 ClusterRoleBindings to system:unauthenticated
# whose roles do not cover configmaps (every request visits them), and the
# RoleBinding that lets the anonymous user read configmaps in "bench".
# wrk runs GET /api/v1/namespaces/bench/configmaps/one on each port in turn,
# BENCH_ROUNDS (default 3) times BENCH_SECONDS (default 5); the medians and
# the overhead ratio are printed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../t/lib";
use Test::Kube;
use IO::Socket::INET;

my $rounds = $ENV{BENCH_ROUNDS} || 3;
my $seconds = $ENV{BENCH_SECONDS} || 5;

my $probe = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => 0)
    or die "no free port: $!";
my $rbacPort = $probe->sockport;
close $probe;

my $s = start_server(workers => 2, config => <<'EOF', http_config => <<"EOF2");
location / {
    kube_api;
    kube_anonymous_auth on;
}
EOF
server {
    listen 127.0.0.1:$rbacPort;
    access_log off;
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_authorization_mode RBAC;
    }
}
EOF2

my $allow = $s->url;
my $rbacUrl = "http://127.0.0.1:$rbacPort";
my $g = 'rbac.authorization.k8s.io';

sub post {
    my ($path, $obj) = @_;
    my $r = http_request('POST', "$allow$path", body => encode_json($obj),
        headers => { 'Content-Type' => 'application/json' });
    die "POST $path: $r->{status} $r->{body}" unless $r->{status} == 201;
}

print STDERR "seeding...\n";
post('/api/v1/namespaces', { metadata => { name => 'bench' } });
post('/api/v1/namespaces/bench/configmaps', { metadata => { name => 'one' }, data => { a => 'b' } });
for my $i (1 .. 200) {
    post("/apis/$g/v1/clusterroles", { metadata => { name => "role-$i" },
        rules => [ { verbs => [qw(get list)], apiGroups => ['apps'], resources => ["things$i"] },
                   { verbs => ['get'], apiGroups => [''], resources => ['pods'],
                     resourceNames => ["p$i"] } ] });
}
post("/apis/$g/v1/clusterroles", { metadata => { name => 'cm-reader' },
    rules => [ { verbs => [qw(get list watch)], apiGroups => [''], resources => ['configmaps'] } ] });
for my $n (1 .. 100) {
    post('/api/v1/namespaces', { metadata => { name => "ns-$n" } });
}
for my $i (1 .. 1000) {
    my $ns = 'ns-' . (1 + $i % 100);
    post("/apis/$g/v1/namespaces/$ns/rolebindings", { metadata => { name => "rb-$i" },
        roleRef => { apiGroup => $g, kind => 'ClusterRole', name => 'role-' . (1 + $i % 200) },
        subjects => [ { kind => 'User', name => "user-$i", apiGroup => $g },
                      { kind => 'Group', name => 'system:unauthenticated', apiGroup => $g } ] });
}
for my $i (1 .. 20) {
    post("/apis/$g/v1/clusterrolebindings", { metadata => { name => "crb-$i" },
        roleRef => { apiGroup => $g, kind => 'ClusterRole', name => "role-$i" },
        subjects => [ { kind => 'Group', name => 'system:unauthenticated', apiGroup => $g } ] });
}
post("/apis/$g/v1/namespaces/bench/rolebindings", { metadata => { name => 'zz-anonymous-reads' },
    roleRef => { apiGroup => $g, kind => 'ClusterRole', name => 'cm-reader' },
    subjects => [ { kind => 'Group', name => 'system:unauthenticated', apiGroup => $g } ] });

my $path = '/api/v1/namespaces/bench/configmaps/one';
wait_until(sub { http_request('GET', "$rbacUrl$path")->{status} == 200 }, 5)
    or die "RBAC never allowed the GET";

sub wrk {
    my $url = shift;
    my ($rc, $out) = run_command(['wrk', '-t2', '-c32', "-d${seconds}s", '--latency', $url],
        timeout => $seconds + 30);
    my ($rps) = $out =~ /Requests\/sec:\s+([\d.]+)/;
    my ($p99) = $out =~ /99%\s+(\S+)/;
    my ($non2xx) = $out =~ /Non-2xx or 3xx responses: (\d+)/;
    die "wrk: non-2xx answers from $url" if $non2xx;
    return ($rps, $p99);
}

my (@a, @r);
for my $round (1 .. $rounds) {
    my ($ra, $pa) = wrk("$allow$path");
    my ($rr, $pr) = wrk("$rbacUrl$path");
    printf "round %d: AlwaysAllow %.0f req/s (p99 %s), RBAC %.0f req/s (p99 %s)\n",
        $round, $ra, $pa, $rr, $pr;
    push @a, $ra;
    push @r, $rr;
}
my $median = sub { my @s = sort { $a <=> $b } @_; $s[$#s / 2] };
my ($ma, $mr) = ($median->(@a), $median->(@r));
printf "median: AlwaysAllow %.0f req/s, RBAC %.0f req/s, RBAC overhead %.1f%% (target <= 10%%)\n",
    $ma, $mr, 100 * (1 - $mr / $ma);
$s->stop;
done_testing();
