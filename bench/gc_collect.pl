#!/usr/bin/perl
# The garbage collector (issue 15's benchmark); bench/run's case (o):
#
#   KUBE_BUILD=<dir of the module .so> GET_LOAD=<get_load> perl bench/gc_collect.pl
#
# One nginx (2 workers, jemalloc, plain HTTP on loopback, AlwaysAllow):
# BENCH_GC_DEPENDENTS (default 10000) ConfigMaps in namespace "gc" name one
# ConfigMap "owner" in their ownerReferences. $GET_LOAD (bench/get_load.cpp)
# GETs the small ConfigMap "probe" on BENCH_CONNECTIONS (default 32)
# connections, first for 3 s alone, then in 1 s rounds while the owner is
# deleted (propagationPolicy Background) and the collector, on one worker,
# deletes the dependents. Printed: the time from the owner's DELETE until a
# list finds no dependent left (polled every 50 ms), dependents per second,
# and the probe GETs' req/s and p99 alone and during the collection (the
# worst 1 s round's p99, and the median round's).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../t/lib";
use Test::Kube;
use File::Temp qw(tempdir);
use HTTP::Tiny;
use POSIX ();
use Time::HiRes qw(time sleep);

# TAP (the harness's checks) to stderr: stdout is the table alone
Test::More->builder->output(\*STDERR);

my $dependents = $ENV{BENCH_GC_DEPENDENTS} || 10000;
my $conns = $ENV{BENCH_CONNECTIONS} || 32;
my $getLoad = $ENV{GET_LOAD} || ($ENV{KUBE_BUILD} || "$FindBin::Bin/../build") . '/get_load';
-x $getLoad or die "$getLoad is missing (make build/get_load)\n";

my $dir = tempdir(CLEANUP => 1);
Test::Kube::_spew("$dir/tokens.csv", qq{admin-token,admin,uid-admin,"system:masters"\n});
my $s = start_server(workers => 2,
    http_config => "kube_token_auth_file $dir/tokens.csv;\naccess_log off;\n",
    config => "location / {\n    kube_api;\n}\n");
my $auth = 'Bearer admin-token';
my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 60,
    default_headers => { Authorization => $auth });
my %json = ('Content-Type' => 'application/json', Authorization => $auth);
my $cms = '/api/v1/namespaces/gc/configmaps';

sub post {
    my ($path, $obj) = @_;
    my $r = $http->request('POST', $s->url . $path,
        { content => encode_json($obj), headers => \%json });
    die "POST $path: $r->{status} $r->{content}\n" unless $r->{status} == 201;
    return decode_json($r->{content});
}

post('/api/v1/namespaces', { metadata => { name => 'gc' } });
post($cms, { metadata => { name => 'probe' }, data => { k => 'v' } });
my $owner = post($cms, { metadata => { name => 'owner' } });
my $ref = { apiVersion => 'v1', kind => 'ConfigMap', name => 'owner',
    uid => $owner->{metadata}{uid} };
for (my $i = 0; $i < $dependents; $i += 500) {
    my @batch = map { { method => 'POST', url => $s->url . $cms, headers => \%json,
        body => encode_json({ metadata => { name => "dep-$_", labels => { gc => 'dep' },
            ownerReferences => [$ref] } }) } } $i .. ($i + 499 < $dependents ? $i + 499 : $dependents - 1);
    my $res = http_batch(\@batch, parallel => 8);
    my @bad = grep { $_->{status} != 201 } @$res;
    die scalar(@bad) . " creates failed: $bad[0]{status} $bad[0]{body}\n" if @bad;
}

sub remaining {
    my $r = $http->request('GET', $s->url . "$cms?labelSelector=gc%3Ddep&limit=1");
    die "LIST: $r->{status}\n" unless $r->{status} == 200;
    return scalar @{ decode_json($r->{content})->{items} };
}
remaining() == 1 or die "the dependents are not there\n";

my $n = 0;
sub load {
    my ($seconds) = @_;
    my $out = "$dir/load-" . $n++;
    system("$getLoad --url " . $s->url . "$cms/probe --seconds $seconds --connections $conns"
        . " --header 'Authorization: $auth'"
        . " > $out 2>&1") == 0 or die "get_load failed: " . Test::Kube::_slurp($out);
    my ($line) = Test::Kube::_slurp($out) =~ /^RESULT get (.*)$/m or die "get_load: no result\n";
    return { map { split /=/, $_, 2 } split ' ', $line };
}

my $alone = load(3);

# The probe runs in 1 s rounds in a child until the collection is over.
my $doneFile = "$dir/done";
my $child = fork // die "fork: $!";
if ($child == 0) {
    my @rounds;
    until (-e $doneFile) {
        my $r = load(1);
        Test::Kube::_spew("$dir/round-" . scalar(@rounds), encode_json($r));
        push @rounds, $r;
    }
    POSIX::_exit(0);
}
sleep 0.5;
my $t0 = time;
my $r = $http->request('DELETE', $s->url . "$cms/owner",
    { content => '{"propagationPolicy":"Background"}', headers => \%json });
die "DELETE owner: $r->{status}\n" unless $r->{status} == 200;
my $left = 1;
while ($left && time - $t0 < 600) {
    sleep 0.05;
    $left = remaining();
}
my $elapsed = time - $t0;
Test::Kube::_spew($doneFile, '');
waitpid($child, 0);
die "dependents left after 600 s\n" if $left;

my @rounds = map { decode_json(Test::Kube::_slurp("$dir/round-$_")) }
    0 .. (grep { -e "$dir/round-$_" } 0 .. 100000) - 1;
my @p99 = sort { $a <=> $b } map { $_->{p99_us} } @rounds;
my $reqs = 0;
$reqs += $_->{requests} for @rounds;
my $secs = 0;
$secs += $_->{seconds} // 1 for @rounds;

sub ms { return sprintf '%.2f', $_[0] / 1000 }
printf "gc: %d dependents of one owner collected in %.2f s (%.0f/s), background propagation\n",
    $dependents, $elapsed, $dependents / $elapsed;
printf "%-36s %9s %9s %9s\n", 'GET configmap (small)', 'req/s', 'p50 ms', 'p99 ms';
printf "%-36s %9.0f %9s %9s\n", 'alone', $alone->{rps}, ms($alone->{p50_us}), ms($alone->{p99_us});
printf "%-36s %9.0f %9s %9s\n", 'during the collection, worst 1 s', $reqs / ($secs || 1), '-',
    ms($p99[-1] // 0);
printf "%-36s %9s %9s %9s\n", 'during the collection, median 1 s', '-', '-',
    ms($p99[@p99 / 2] // 0);
$s->stop;
