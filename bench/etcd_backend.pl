#!/usr/bin/perl
# The etcd backend against LMDB and against kube-apiserver on the same etcd
# (issue 17's benchmark); bench/run's case (r):
#
#   KUBE_BUILD=<build dir> GET_LOAD=<get_load> WATCH_LOAD=<watch_load> perl bench/etcd_backend.pl
#
# One etcd (Debian's, loopback, started here). In turn, each alone on the
# machine:
# - this server on LMDB (one host, 2 workers);
# - this server on the etcd, one host, then two hosts (2 workers each) with
#   the load split over both;
# - nginx alone answering the consistent GET's body ("return 200") over
#   TLS: the ceiling no GET passes on this machine;
# - kube-apiserver 1.26.5 (../shared/bin) on the same etcd, when present.
# Each over TLS with a bearer token (kube-apiserver serves nothing else), by
# $GET_LOAD (bench/get_load.cpp) on BENCH_CONNECTIONS (default 32)
# connections for BENCH_ETCD_SECONDS (default 5) per case:
# - GET one ConfigMap without resourceVersion (a consistent read: from the
#   watch cache once it has caught up with etcd's revision; kube-apiserver
#   1.26 reads etcd), and with resourceVersion=0 (the cache as it is);
# - LIST of a namespace of 500 ConfigMaps, likewise;
# - CREATE of ConfigMaps (generateName), each durable in etcd (or on disk)
#   before its answer;
# then, with $WATCH_LOAD fanout (bench/watch_load.cpp): one write fanned out
# to BENCH_ETCD_WATCHERS (default 1,000) watchers, the write on the first
# host and the watchers on the first (1 host) or the second (2 hosts).
# Printed: req/s, p50 and p99 per case, the ratios to kube-apiserver and the
# issue's targets (CREATE >= 2x, GET >= 10x), the load average.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../t/lib";
use Test::Kube;
use File::Temp qw(tempdir);
use HTTP::Tiny;
use POSIX ();

# TAP (the harness's checks) to stderr: stdout is the table alone
Test::More->builder->output(\*STDERR);

my $seconds = $ENV{BENCH_ETCD_SECONDS} || 5;
my $conns = $ENV{BENCH_CONNECTIONS} || 32;
my $watchers = $ENV{BENCH_ETCD_WATCHERS} || 1000;
my $build = $ENV{KUBE_BUILD} || "$FindBin::Bin/../build";
my $getLoad = $ENV{GET_LOAD} || "$build/get_load";
my $watchLoad = $ENV{WATCH_LOAD} || "$build/watch_load";
-x $getLoad or die "$getLoad is missing (make build/get_load)\n";

my $dir = tempdir(CLEANUP => 1);
my $token = 'admin-token';
Test::Kube::_spew("$dir/tokens.csv", qq{$token,admin,uid-admin,"system:masters"\n});
my $etcd = start_etcd() or die "no etcd (Debian's etcd-server)\n";

# A target of the load: its URL, the CA its certificate is checked against.
sub target {
    my ($url, $ca) = @_;
    return { url => $url, ca => $ca,
        http => HTTP::Tiny->new(keep_alive => 1, timeout => 60, verify_SSL => 0,
            default_headers => { Authorization => "Bearer $token",
                'Content-Type' => 'application/json' }) };
}

sub call {
    my ($t, $method, $path, $obj) = @_;
    my $r = $t->{http}->request($method, $t->{url} . $path,
        defined $obj ? { content => encode_json($obj) } : {});
    return $r->{status};
}

# The objects every case reads: namespace "bench" with ConfigMap "one",
# "list500" with 500, "creates" for the creates.
sub seed {
    my ($t) = @_;
    for my $ns (qw(bench list500 creates)) {
        call($t, POST => '/api/v1/namespaces',
            { apiVersion => 'v1', kind => 'Namespace', metadata => { name => $ns } });
    }
    call($t, POST => '/api/v1/namespaces/bench/configmaps', { apiVersion => 'v1',
        kind => 'ConfigMap', metadata => { name => 'one' }, data => { k => 'v' x 64 } });
    for my $i (1 .. 500) {
        call($t, POST => '/api/v1/namespaces/list500/configmaps', { apiVersion => 'v1',
            kind => 'ConfigMap', metadata => { name => sprintf('cm-%03d', $i) },
            data => { k => 'v' x 64 } });
    }
}

my $body = "$dir/create.json";
Test::Kube::_spew($body, encode_json({ apiVersion => 'v1', kind => 'ConfigMap',
    metadata => { generateName => 'c-' }, data => { k => 'v' x 64 } }));

# get_load on every target at once, the connections split between them:
# requests/s summed, the worst p50 and p99.
my $n = 0;
sub load {
    my ($targets, $path, @args) = @_;
    my @outs;
    my @pids;
    my $each = int($conns / @$targets) || 1;
    for my $t (@$targets) {
        my $out = "$dir/load-" . $n++;
        push @outs, $out;
        my @cmd = ($getLoad, '--url', $t->{url} . $path, '--seconds', $seconds,
            '--connections', $each, '--ca', $t->{ca}, '--header', "Authorization: Bearer $token",
            @args);
        my $pid = fork // die "fork: $!";
        if ($pid == 0) {
            open STDOUT, '>', $out;
            open STDERR, '>&', \*STDOUT;
            { exec @cmd };
            POSIX::_exit(127);
        }
        push @pids, $pid;
    }
    waitpid($_, 0) for @pids;
    my %sum = (rps => 0, p50_us => 0, p99_us => 0, non2xx => 0);
    for my $out (@outs) {
        my ($line) = Test::Kube::_slurp($out) =~ /^RESULT get (.*)$/m
            or die "get_load: no result: " . Test::Kube::_slurp($out);
        my %r = map { split /=/, $_, 2 } split ' ', $line;
        $sum{rps} += $r{rps};
        $sum{non2xx} += $r{non2xx};
        $sum{$_} = $r{$_} > $sum{$_} ? $r{$_} : $sum{$_} for qw(p50_us p99_us);
    }
    return \%sum;
}

# watch_load fanout: watchers on $watchPort, writes on $writePort.
sub fanout {
    my ($watchPort, $writePort) = @_;
    return undef unless -x $watchLoad;
    my $out = "$dir/fanout-" . $n++;
    system("$watchLoad fanout --port $watchPort --write-port $writePort --watchers $watchers"
        . " --writes 10 --namespace fanout-$n --settle-ms 200 > $out 2>&1");
    my ($line) = Test::Kube::_slurp($out) =~ /^RESULT fanout (.*)$/m;
    unless ($line) {
        note("watch_load: " . Test::Kube::_slurp($out));
        return undef;
    }
    return { map { split /=/, $_, 2 } split ' ', $line };
}

my @cases = (
    [ 'GET one ConfigMap (consistent)', '/api/v1/namespaces/bench/configmaps/one' ],
    [ 'GET one ConfigMap, resourceVersion=0', '/api/v1/namespaces/bench/configmaps/one?resourceVersion=0' ],
    [ 'LIST 500 ConfigMaps (consistent)', '/api/v1/namespaces/list500/configmaps' ],
    [ 'LIST 500 ConfigMaps, resourceVersion=0', '/api/v1/namespaces/list500/configmaps?resourceVersion=0' ],
    [ 'CREATE ConfigMap (durable)', '/api/v1/namespaces/creates/configmaps', '--method', 'POST',
        '--body', $body ],
);

my %results;    # {setup}{case} = result
my $getBody;    # what the consistent GET answers, for the ceiling
my @setups;

sub run_cases {
    my ($setup, $targets) = @_;
    push @setups, $setup;
    for my $c (@cases) {
        my ($name, $path, @args) = @$c;
        $results{$setup}{$name} = load($targets, $path, @args);
    }
}

# Plain HTTP ports for watch_load (it speaks no TLS): a second server block.
sub plain_server {
    my ($storage) = @_;
    my $port = free_port();
    my $s = start_server(workers => 2, tls => 1,
        http_config => "kube_token_auth_file $dir/tokens.csv;\naccess_log off;\n"
            . "kube_storage $storage;\n"
            . "server {\n    listen 127.0.0.1:$port reuseport;\n"
            . "    location / {\n        kube_api;\n        kube_anonymous_auth on;\n"
            . "        kube_authorization_mode AlwaysAllow;\n    }\n}\n",
        config => "location / {\n    kube_api;\n}\n");
    $s->{plain_port} = $port;
    return $s;
}

my $ca = cert_dir() . '/ca.crt';
my %fanout;

# --- LMDB, one host.
{
    my $s = plain_server('lmdb:' . scratch_dir() . '/lmdb-data');
    my $t = target($s->url, $ca);
    seed($t);
    run_cases('LMDB, 1 host', [$t]);
    $fanout{'LMDB, 1 host'} = fanout($s->{plain_port}, $s->{plain_port});
    $s->stop;
}

# --- etcd, one host then two.
{
    my $a = plain_server("etcd:$etcd->{url}");
    my $ta = target($a->url, $ca);
    seed($ta);
    my $one = $ta->{http}->get($ta->{url} . $cases[0][1]);
    $one->{status} == 200 or die "GET $cases[0][1]: $one->{status}\n";
    $getBody = $one->{content};
    run_cases('etcd, 1 host', [$ta]);
    $fanout{'etcd, 1 host'} = fanout($a->{plain_port}, $a->{plain_port});
    # The second host starts now: while the first is measured alone it would
    # take the machine's CPU for its own replica of every write.
    my $b = plain_server("etcd:$etcd->{url}");
    my $tb = target($b->url, $ca);
    wait_until(sub { call($tb, GET => '/api/v1/namespaces/list500/configmaps/cm-500') == 200 },
        30);
    run_cases('etcd, 2 hosts', [$ta, $tb]);
    $fanout{'etcd, 2 hosts (write on A, watchers on B)'} =
        fanout($b->{plain_port}, $a->{plain_port});
    $a->stop;
    $b->stop;
}

# --- The ceiling: nginx alone answering the GET's body ("return 200") over
# TLS to the same client, no module in the way: what no GET can pass here.
my $ceiling;
{
    $getBody =~ /[\\'\$]/ and die "the GET body holds a character \"return\" cannot send as is\n";
    my $s = start_server(workers => 2, tls => 1,
        http_config => "kube_token_auth_file $dir/tokens.csv;\naccess_log off;\n"
            . 'kube_storage lmdb:' . scratch_dir() . "/bare-data;\n",
        config => "location = /bare {\n    default_type application/json;\n"
            . "    return 200 '$getBody';\n}\n");
    my $t = target($s->url, $ca);
    my $r = $t->{http}->get($t->{url} . '/bare');
    $r->{content} eq $getBody or die "/bare does not answer the GET's body\n";
    $ceiling = load([$t], '/bare');
    $s->stop;
}

# --- kube-apiserver 1.26.5 on the same etcd.
my $kasSetup = 'kube-apiserver 1.26.5, same etcd';
if (reference_binary('kube-apiserver')) {
    my $kdir = scratch_dir() . '/kas-etcd-bench';
    mkdir $kdir;
    system("openssl genrsa -out $kdir/sa.key 2048 2> /dev/null") == 0 or die "openssl\n";
    my $port = free_port();
    my $kas = start_reference_component('kube-apiserver', "--etcd-servers=$etcd->{url}",
        "--secure-port=$port", '--bind-address=127.0.0.1', "--cert-dir=$kdir/certs",
        "--token-auth-file=$dir/tokens.csv", '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc',
        "--service-account-key-file=$kdir/sa.key",
        "--service-account-signing-key-file=$kdir/sa.key",
        '--service-cluster-ip-range=10.96.0.0/16');
    my $t = target("https://127.0.0.1:$port", "$kdir/certs/apiserver.crt");
    wait_until(sub { call($t, GET => '/readyz') == 200 }, 90)
        or die "kube-apiserver did not start:\n" . Test::Kube::_slurp($kas->{log});
    # its watch cache holds the objects written here
    wait_until(sub { call($t, GET => '/api/v1/namespaces/list500/configmaps/cm-500') == 200 },
        30);
    run_cases($kasSetup, [$t]);
    $kas->{stop}->();
} else {
    note('no kube-apiserver in ../shared/bin: its column is left out');
}

printf "etcd backend (issue 17): %d s per case, %d connections (split over the hosts), TLS, "
    . "bearer token; load average %s\n", $seconds, $conns,
    join(' ', (split ' ', Test::Kube::_slurp('/proc/loadavg'))[0 .. 2]);
printf "%-40s %-36s %9s %9s %9s %6s\n", 'case', 'setup', 'req/s', 'p50 ms', 'p99 ms', 'non2xx';
for my $c (@cases) {
    my $name = $c->[0];
    for my $setup (@setups) {
        my $r = $results{$setup}{$name} or next;
        printf "%-40s %-36s %9.0f %9.2f %9.2f %6d\n", $name, $setup, $r->{rps},
            $r->{p50_us} / 1000, $r->{p99_us} / 1000, $r->{non2xx};
    }
}
printf "watch fan-out: one write to %d watchers\n", $watchers;
for my $setup (sort keys %fanout) {
    my $f = $fanout{$setup};
    if (!$f) {
        printf "  %-44s (failed, see the log)\n", $setup;
        next;
    }
    printf "  %-44s opened %s, ack->event p50 %s ms, p99 %s ms, all watchers %s ms\n", $setup,
        $f->{opened} // '?', $f->{p50_ms} // '?', $f->{p99_ms} // '?',
        $f->{last_p50_ms} // $f->{max_ms} // '?';
}
printf "ceiling: nginx alone answering the GET's body over TLS (return 200), same client: "
    . "%.0f req/s, p50 %.2f ms, p99 %.2f ms\n", $ceiling->{rps}, $ceiling->{p50_us} / 1000,
    $ceiling->{p99_us} / 1000;
if ($results{$kasSetup}) {
    my $k = $results{$kasSetup};
    for my $want (['CREATE ConfigMap (durable)', 2], ['GET one ConfigMap (consistent)', 10]) {
        my ($name, $target) = @$want;
        my $kr = $k->{$name}{rps} || 1;
        for my $setup ('etcd, 1 host', 'etcd, 2 hosts') {
            my $ratio = $results{$setup}{$name}{rps} / $kr;
            printf "target: %s on %s >= %dx kube-apiserver's: %.1fx %s\n", $name, $setup,
                $target, $ratio, $ratio >= $target ? 'met' : 'MISSED';
        }
        next unless $name =~ /^GET/;
        # What bounds a consistent GET here: the same GET that never asks
        # etcd, and nginx answering the body alone.
        my $cached = $results{'etcd, 1 host'}{'GET one ConfigMap, resourceVersion=0'}{rps};
        printf "  bounds: GET at resourceVersion=0 (no etcd round trip), 1 host: %.1fx; "
            . "the ceiling: %.1fx\n", $cached / $kr, $ceiling->{rps} / $kr;
        if ($target * $kr > $ceiling->{rps}) {
            printf "  %dx kube-apiserver's %s is %.0f req/s, above the ceiling (%.0f req/s, "
                . "%.1fx): no GET reaches it on this machine\n", $target, $name, $target * $kr,
                $ceiling->{rps}, $ceiling->{rps} / $kr;
        }
    }
}
