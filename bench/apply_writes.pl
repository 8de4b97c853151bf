#!/usr/bin/perl
# Writes of one 50-field Deployment (issue 15's benchmark); bench/run's case (n):
#
#   KUBE_BUILD=<dir of the module .so> GET_LOAD=<get_load> perl bench/apply_writes.pl
#
# One nginx (2 workers, TLS, the admin's client certificate). Each of
# BENCH_APPLY_CONNECTIONS (default 8) keep-alive connections of $GET_LOAD
# (bench/get_load.cpp) writes a Deployment of its own, bench-<connection>,
# made by server-side apply beforehand, for BENCH_APPLY_SECONDS (default 5)
# a case, in this order:
#   apply, no change       the same config applied again (nothing written)
#   apply, one field       configs alternating spec.replicas 2 and 3
#   strategic merge patch  {"spec":{"replicas":N}}, N alternating
#   PUT                    the whole object, spec.replicas alternating
# Every write but the no-op commits (LMDB, group commit) and records
# managedFields. Prints requests/s, p50 and p99 per case.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../t/lib";
use Test::Kube;
use File::Temp qw(tempdir);
use JSON::PP ();

# TAP (the harness's checks) to stderr: stdout is the table alone
Test::More->builder->output(\*STDERR);

my $seconds = $ENV{BENCH_APPLY_SECONDS} || 5;
my $conns = $ENV{BENCH_APPLY_CONNECTIONS} || 8;
my $getLoad = $ENV{GET_LOAD} || ($ENV{KUBE_BUILD} || "$FindBin::Bin/../build") . '/get_load';
-x $getLoad or die "$getLoad is missing (make build/get_load)\n";

my $dir = tempdir(CLEANUP => 1);
my $s = start_server(workers => 2, tls => 1, config => "access_log off;\nlocation / { kube_api; }\n");
my $certs = Test::Kube::cert_dir();
my $ns = 'bench';
$s->create_namespace($ns);

# The Deployment: 50 fields set (counting each scalar and list item).
sub deployment {
    my ($name, $replicas) = @_;
    return {
        apiVersion => 'apps/v1', kind => 'Deployment',
        metadata => { name => $name, namespace => $ns,
            labels => { map { ("l$_" => "v$_") } 1 .. 4 },
            annotations => { map { ("example.com/a$_" => "value $_") } 1 .. 4 } },
        spec => {
            replicas => $replicas, minReadySeconds => 5, revisionHistoryLimit => 4,
            progressDeadlineSeconds => 300,
            selector => { matchLabels => { app => 'bench', tier => 'web' } },
            strategy => { type => 'RollingUpdate',
                rollingUpdate => { maxSurge => 1, maxUnavailable => 0 } },
            template => {
                metadata => { labels => { app => 'bench', tier => 'web' } },
                spec => {
                    terminationGracePeriodSeconds => 20, nodeSelector => { disk => 'ssd' },
                    containers => [ {
                        name => 'web', image => 'registry.example/web:1.2.3',
                        imagePullPolicy => 'IfNotPresent', args => [ '--port=8080', '-v', '2' ],
                        env => [ map { { name => "VAR$_", value => "value-$_" } } 1 .. 6 ],
                        ports => [ { name => 'http', containerPort => 8080, protocol => 'TCP' },
                                   { name => 'metrics', containerPort => 9090, protocol => 'TCP' } ],
                        resources => { requests => { cpu => '100m', memory => '64Mi' },
                                       limits => { cpu => '1', memory => '256Mi' } },
                        readinessProbe => { httpGet => { path => '/ready', port => 8080 },
                                            periodSeconds => 5 },
                    } ],
                },
            },
        },
    };
}

my $json = JSON::PP->new->canonical;
sub body_file {
    my ($name, $obj) = @_;
    # the connection's own object: get_load puts its number for {c}
    (my $text = $json->encode($obj)) =~ s/"bench-c"/"bench-{c}"/;
    Test::Kube::_spew("$dir/$name", $text);
    return "$dir/$name";
}

my $apply = "/apis/apps/v1/namespaces/$ns/deployments/bench-{c}?fieldManager=bench";
for my $c (0 .. $conns - 1) {
    (my $path = $apply) =~ s/\{c\}/$c/;
    my ($st, $o) = $s->call(PATCH => $path, $json->encode(deployment("bench-$c", 2)),
        type => 'application/apply-patch+yaml');
    die "apply of bench-$c: $st\n" unless $st == 201;
}

my @cases = (
    [ 'apply, no change', 'PATCH', $apply, 'application/apply-patch+yaml',
      body_file(noop => deployment('bench-c', 2)) ],
    [ 'apply, one field', 'PATCH', $apply, 'application/apply-patch+yaml',
      body_file(apply3 => deployment('bench-c', 3)), body_file(apply2 => deployment('bench-c', 2)) ],
    [ 'strategic merge patch', 'PATCH', "/apis/apps/v1/namespaces/$ns/deployments/bench-{c}",
      'application/strategic-merge-patch+json',
      body_file(smp3 => { spec => { replicas => 3 } }), body_file(smp2 => { spec => { replicas => 2 } }) ],
    [ 'PUT', 'PUT', "/apis/apps/v1/namespaces/$ns/deployments/bench-{c}", 'application/json',
      body_file(put3 => deployment('bench-c', 3)), body_file(put2 => deployment('bench-c', 2)) ],
);

printf "(n) writes of a 50-field Deployment: %d connections, an object each, %d s a case, TLS\n",
    $conns, $seconds;
printf "%-24s %10s %9s %9s %8s\n", 'case', 'req/s', 'p50 us', 'p99 us', 'non-2xx';
for my $case (@cases) {
    my ($label, $method, $path, $type, @bodies) = @$case;
    my @cmd = ($getLoad, '--url', $s->url . $path, '--seconds', $seconds, '--connections', $conns,
        '--ca', "$certs/ca.crt", '--cert', "$certs/admin.crt", '--key', "$certs/admin.key",
        '--method', $method, '--header', "Content-Type: $type", map { ('--body', $_) } @bodies);
    my ($rc, $out, $err) = run_command(\@cmd, timeout => $seconds + 60);
    my ($line) = $out =~ /^RESULT get (.*)$/m or die "get_load ($rc): $out $err\n";
    my %r = map { split /=/, $_, 2 } split ' ', $line;
    printf "%-24s %10s %9s %9s %8s\n", $label, $r{rps}, $r{p50_us}, $r{p99_us}, $r{non2xx};
    die "$label: $r{non2xx} answers were not 2xx\n" if $r{non2xx};
}
my ($st, $o) = $s->call(GET => "/apis/apps/v1/namespaces/$ns/deployments/bench-0");
my %managers = map { ("$_->{manager}/$_->{operation}" => 1) } @{ $o->{metadata}{managedFields} };
print 'bench-0 managers after: ', join(', ', sort keys %managers), "\n";
ok(1, 'done');
done_testing();
