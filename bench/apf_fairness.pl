#!/usr/bin/perl
# API Priority and Fairness: a quiet tenant beside a noisy one, and what APF
# and the metrics cost a plain GET (issue 14's benchmark); bench/run's case
# (m):
#
#   KUBE_BUILD=<dir of the module .so> GET_LOAD=<get_load> perl bench/apf_fairness.pl
#
# Two nginx (2 workers each, jemalloc, plain HTTP on loopback, the same
# token file, AlwaysAllow) run side by side: "on" with APF and /metrics
# (the defaults), "off" with `kube_priority_and_fairness off` and
# `kube_metrics off` (max-in-flight instead). Both have
# kube_max_requests_inflight 20 + kube_max_mutating_requests_inflight 10 =
# 30 seats. On "on", FlowSchemas send user "noisy" to the queuing level
# "bench-tenants" (nominalConcurrencyShares 5 of 260: 1 seat, none lent or
# borrowed; 64 queues, handSize 4, queueLengthLimit 5) and user "quiet" to
# "bench-quiet" (10 shares: 2 seats), both ByUser, as an operator keeps a
# tenant apart from another. $GET_LOAD (bench/get_load.cpp) LISTs the 500
# ConfigMaps of namespace "tenants":
#   quiet alone          BENCH_APF_QUIET_RATE (default 100) req/s on 2
#                        connections for BENCH_APF_SECONDS (default 20),
#                        before the flood and again after it (the ratio
#                        takes the lower p99 of the two)
#   quiet under a flood  the same, while noisy sends BENCH_APF_NOISY_RATE
#                        (default 200 x quiet's, about 4 times what its one
#                        seat serves) req/s on 32 connections, its client at
#                        nice BENCH_APF_NOISY_NICE (default 10: clients
#                        elsewhere do not take the server's CPU)
#   shared level         quiet's FlowSchema sent to bench-tenants too: one
#                        seat shared by fair queuing (reported, no target:
#                        quiet waits out the noisy LIST in the seat)
# and the flood again on "off" (max-in-flight: no fairness). Quiet's client
# measures, so its threads run SCHED_FIFO (chrt; BENCH_APF_QUIET_RT=0 to
# leave it at normal priority) in every case: what it measures is the
# server's time, not its own wait for a core the flood's client holds.
# And the servers' scheduler autogroups run at nice BENCH_APF_SERVER_NICE
# (default -10; 0 leaves them at 0), both servers alike: on this one
# machine the flood's client, for all its nice 10, otherwise takes a core
# from a worker for a time slice (milliseconds) now and then, which no
# client on a machine of its own does.
# Printed: quiet's p50/p99 alone and under the flood (target: p99 within
# 2x), noisy's share of 429s, quiet's 429s.
# Then GET /api/v1/namespaces/tenants/configmaps/one as token user
# "reader" (FlowSchema global-default) on BENCH_CONNECTIONS (default 32)
# connections, BENCH_APF_ROUNDS (default 7) rounds alternating "on" and
# "off", BENCH_APF_GET_SECONDS (default 3) each: the cost of APF's
# classification and dispatch plus the metrics (target < 5%), in req/s and
# in the workers' CPU time per request (from /proc: steadier than req/s on
# a machine doing other work), each the median of the rounds' on/off ratios.
# Last, the same GET counted in instructions, which the machine's load does
# not move: one nginx per mode (master_process off, one worker) under
# valgrind's callgrind, BENCH_APF_CALLGRIND_SECONDS (default 4) of GETs on 4
# connections after a warm-up, the instructions of that window over its
# requests (BENCH_APF_CALLGRIND=0, or no valgrind, leaves it out).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../t/lib";
use Test::Kube;
use File::Temp qw(tempdir);
use HTTP::Tiny;
use POSIX ();
use Time::HiRes ();

# TAP (the harness's checks) to stderr: stdout is the table alone
Test::More->builder->output(\*STDERR);

my $seconds = $ENV{BENCH_APF_SECONDS} || 20;
my $quietRate = $ENV{BENCH_APF_QUIET_RATE} || 100;
my $noisyRate = $ENV{BENCH_APF_NOISY_RATE} || 200 * $quietRate;
my $rounds = $ENV{BENCH_APF_ROUNDS} || 7;
my $getSeconds = $ENV{BENCH_APF_GET_SECONDS} || 3;
my $conns = $ENV{BENCH_CONNECTIONS} || 32;
my $noisyNice = $ENV{BENCH_APF_NOISY_NICE} // 10;
my $serverNice = $ENV{BENCH_APF_SERVER_NICE} // -10;
my $quietRealtime = ($ENV{BENCH_APF_QUIET_RT} // 1)
    && system('chrt -f 10 true >/dev/null 2>&1') == 0;
my $items = 500;
my $callgrindSeconds = $ENV{BENCH_APF_CALLGRIND_SECONDS} || 4;
my $callgrind = ($ENV{BENCH_APF_CALLGRIND} // 1) && system('valgrind --version >/dev/null 2>&1') == 0
    && system('callgrind_control --help >/dev/null 2>&1') == 0;
my $getLoad = $ENV{GET_LOAD} || ($ENV{KUBE_BUILD} || "$FindBin::Bin/../build") . '/get_load';
-x $getLoad or die "$getLoad is missing (make build/get_load)\n";

my $dir = tempdir(CLEANUP => 1);
Test::Kube::_spew("$dir/tokens.csv", qq{admin-token,admin,uid-admin,"system:masters"\n}
    . join '', map { "$_-token,$_,uid-$_\n" } qw(quiet noisy reader));

my $offConfig = "kube_priority_and_fairness off;\nkube_metrics off;\n";
my $limits = <<"EOF";
kube_token_auth_file $dir/tokens.csv;
kube_max_requests_inflight 20;
kube_max_mutating_requests_inflight 10;
access_log off;
EOF
my $location = "location / {\n    kube_api;\n}\n";
my %servers = (
    on => start_server(workers => 2, http_config => $limits, config => $location),
    off => start_server(workers => 2, config => $location,
        http_config => "$limits\n$offConfig"),
);

# Both servers' workers ahead of the flood's client: each nginx runs in a
# session, and so a scheduler autogroup, of its own; its nice is the
# group's share of the cores against the clients' groups
# (a negative nice needs CAP_SYS_NICE: without it they stay at 0, and the
# table's head says so)
SERVERS: for my $s ($serverNice ? values %servers : ()) {
    for my $pid ($s->worker_pids) {
        my $ag;
        unless (open($ag, '>', "/proc/$pid/autogroup") && print({$ag} $serverNice) && close($ag))
        {
            $serverNice = 0;
            last SERVERS;
        }
    }
}
my $admin = HTTP::Tiny->new(keep_alive => 1, timeout => 30);
my %json = ('Content-Type' => 'application/json', Authorization => 'Bearer admin-token');

sub post {
    my ($s, $path, $obj) = @_;
    my $r = $admin->request('POST', $s->url . $path,
        { content => encode_json($obj), headers => \%json });
    die "POST $path: $r->{status} $r->{content}\n" unless $r->{status} == 201;
    return decode_json($r->{content});
}

# post_one($server): namespace "tenants" and its ConfigMap "one", which the GETs read
sub post_one {
    my ($s) = @_;
    post($s, '/api/v1/namespaces', { metadata => { name => 'tenants' } });
    post($s, '/api/v1/namespaces/tenants/configmaps', { metadata => { name => 'one' },
        data => { 'database.host' => 'db.bench.svc.cluster.local', 'log.level' => 'info' } });
}

for my $s (values %servers) {
    post_one($s);
    for my $i (2 .. $items) {
        post($s, '/api/v1/namespaces/tenants/configmaps', { metadata => { name => "cm-$i" },
            data => { map { ("key$_" => "value $_ of configmap $i") } 1 .. 5 } });
    }
}
my $fc = '/apis/flowcontrol.apiserver.k8s.io/v1';
# level($name, $shares): a queuing level of its own, none lent or borrowed
sub level {
    my ($name, $shares) = @_;
    return post($servers{on}, "$fc/prioritylevelconfigurations", {
        metadata => { name => $name },
        spec => { type => 'Limited', limited => { nominalConcurrencyShares => $shares,
            lendablePercent => 0, borrowingLimitPercent => 0, limitResponse => { type => 'Queue',
                queuing => { queues => 64, handSize => 4, queueLengthLimit => 5 } } } } });
}
# schema($user, $level): the user's FlowSchema (ByUser) sends it to $level
sub schema {
    my ($user, $level) = @_;
    return {
        metadata => { name => "bench-$user" },
        spec => { priorityLevelConfiguration => { name => $level },
            matchingPrecedence => 500, distinguisherMethod => { type => 'ByUser' },
            rules => [{ subjects => [{ kind => 'User', user => { name => $user } }],
                resourceRules => [{ verbs => ['*'], apiGroups => ['*'], resources => ['*'],
                    namespaces => ['*'], clusterScope => JSON::PP::true }] }] } };
}
my %level = (tenants => level('bench-tenants', 5), quiet => level('bench-quiet', 10));
post($servers{on}, "$fc/flowschemas", schema('noisy', 'bench-tenants'));
post($servers{on}, "$fc/flowschemas", schema('quiet', 'bench-quiet'));
my $list = '/api/v1/namespaces/tenants/configmaps';
# classified($user, $level): both workers send $user's LIST to $level
sub classified {
    my ($user, $level) = @_;
    my $uid = $level{$level}{metadata}{uid};
    wait_until(sub {
        my $r = $admin->request('GET', $servers{on}->url . $list,
            { headers => { Authorization => "Bearer $user-token" } });
        die "LIST as $user: $r->{status}\n" unless $r->{status} == 200;
        ($r->{headers}{'x-kubernetes-pf-prioritylevel-uid'} // '') eq $uid;
    }, 10) or die "$user never reached level $level\n";
    sleep 1.2;  # the other worker too
}
classified(noisy => 'tenants');
classified(quiet => 'quiet');
{
    my $r = $admin->request('GET', $servers{on}->url . $list,
        { headers => { Authorization => 'Bearer quiet-token' } });
    my $got = $r->{status} == 200 ? scalar @{ decode_json($r->{content})->{items} } : 0;
    die "LIST as quiet: $r->{status}, $got items\n" unless $got == $items;
}

# start_load($server, $path, $who, @args) -> a pid whose output goes to a file
my $n = 0;
sub start_load {
    my ($s, $path, $who, @args) = @_;
    my $out = "$dir/load-" . $n++;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', $out or die "$out: $!";
        # the flood's client at a lower CPU priority: on this one machine it
        # would otherwise take the server's cores, as clients on their own
        # machines do not. nginx runs in a session (and scheduler autogroup)
        # of its own, so the client gets one too, niced
        if ($who eq 'noisy' && $noisyNice) {
            POSIX::setsid();
            if (open my $ag, '>', '/proc/self/autogroup') {
                print {$ag} $noisyNice;
                close $ag;
            }
            POSIX::nice($noisyNice);
        }

        # the quiet tenant's client measures the latency: its threads run
        # first (SCHED_FIFO, inherited through exec), so that what it
        # measures is the server's time and not its own wait for a core
        # the flood's client holds
        if ($who eq 'quiet' && $quietRealtime) {
            system('chrt', '-f', '-p', '10', $$) == 0 or die "chrt -f -p 10 $$ failed\n";
        }
        exec $getLoad, '--url', $s->url . $path, '--header', "Authorization: Bearer $who-token",
            @args;
        die "exec $getLoad: $!";
    }
    return [$pid, $out];
}

sub finish_load {
    my ($load) = @_;
    waitpid($load->[0], 0);
    my $text = Test::Kube::_slurp($load->[1]);
    my ($line) = $text =~ /^RESULT get (.*)$/m or die "get_load ($?): $text\n";
    my %r = map { split /=/, $_, 2 } split ' ', $line;
    die "get_load: $r{non2xx} non-2xx answers, $r{status429} of them 429\n"
        if $r{non2xx} != $r{status429};
    return \%r;
}

sub quiet {
    my ($s) = @_;
    return start_load($s, $list, 'quiet', '--seconds', $seconds, '--connections', 2,
        '--rate', $quietRate);
}

sub flood {
    my ($s) = @_;
    my $noisy = start_load($s, $list, 'noisy', '--seconds', $seconds + 2, '--connections', 32,
        '--rate', $noisyRate);
    sleep 1;  # the flood is on before quiet starts, and until it ends
    my $q = finish_load(quiet($s));
    return ($q, finish_load($noisy));
}

print STDERR "apf_fairness: quiet alone, then under the flood, APF on; the flood, APF off\n";
# alone before the flood and again after it: the ratio takes the lower p99
# of the two, the stricter baseline
my $aloneBefore = finish_load(quiet($servers{on}));
my ($underOn, $noisyOn) = flood($servers{on});
my $aloneAfter = finish_load(quiet($servers{on}));
my $alone = $aloneAfter->{p99_us} < $aloneBefore->{p99_us} ? $aloneAfter : $aloneBefore;
# quiet moves onto noisy's level: one seat shared by fair queuing
{
    my $r = $admin->request('PATCH', $servers{on}->url . "$fc/flowschemas/bench-quiet", {
        content => encode_json({ spec => { priorityLevelConfiguration => {
            name => 'bench-tenants' } } }),
        headers => { %json, 'Content-Type' => 'application/merge-patch+json' } });
    die "PATCH flowschema bench-quiet: $r->{status} $r->{content}\n" unless $r->{status} == 200;
    classified(quiet => 'tenants');
}
my ($underShared, $noisyShared) = flood($servers{on});
my ($underOff, $noisyOff) = flood($servers{off});

# The CPU seconds (user + system) the server's workers have used: per
# request, a figure the machine's other load disturbs far less than req/s.
sub worker_cpu {
    my ($s) = @_;
    my $ticks = 0;
    for my $pid ($s->worker_pids) {
        my $stat = Test::Kube::_slurp("/proc/$pid/stat");
        $stat =~ s/^.*\)\s+//s;    # past "pid (comm)"
        my @f = split ' ', $stat;
        $ticks += $f[11] + $f[12];    # utime, stime
    }
    return $ticks / POSIX::sysconf(POSIX::_SC_CLK_TCK());
}

print STDERR "apf_fairness: GET throughput, APF + metrics on vs off\n";
my (@on, @off, %cpu, %requests, @rpsRatio, @cpuRatio);
my $get = '/api/v1/namespaces/tenants/configmaps/one';
my %usRound;
for my $round (1 .. $rounds) {
    # on first in odd rounds, off first in even ones: neither gains from going first
    for my $which ($round % 2 ? qw(on off) : qw(off on)) {
        my $before = worker_cpu($servers{$which});
        my $r = finish_load(start_load($servers{$which}, $get, 'reader', '--seconds', $getSeconds,
            '--connections', $conns));
        die "GET on $which: $r->{non2xx} non-2xx answers\n" if $r->{non2xx};
        my $used = worker_cpu($servers{$which}) - $before;
        $cpu{$which} += $used;
        $requests{$which} += $r->{requests};
        push @{ $which eq 'on' ? \@on : \@off }, $r->{rps};
        $usRound{$which} = $r->{requests} ? 1e6 * $used / $r->{requests} : 0;
    }
    # each round's on/off pair ran back to back, under the same load
    push @rpsRatio, $off[-1] ? $on[-1] / $off[-1] : 0;
    push @cpuRatio, $usRound{off} ? $usRound{on} / $usRound{off} : 0;
}
for my $s (values %servers) {
    ok($s->stop, 'nginx stopped cleanly');
}

# callgrind_per_get($extraConfig) -> (instructions per GET, GETs counted):
# one nginx in a single process under callgrind, counted over a window of
# GETs after a warm-up
sub callgrind_per_get {
    my ($extra) = @_;
    # the bench servers' configuration, rendered by Test::Kube, in one process
    my $s = Test::Kube::new_server(workers => 1, main_config => "master_process off;\ndaemon off;",
        http_config => "$limits\n$extra", config => $location);
    my $d = $s->root;
    Test::Kube::_spew($s->conf_file, $s->{text});
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', "$d/logs/valgrind.log" or die;
        open STDERR, '>&', \*STDOUT or die;
        exec 'valgrind', '--tool=callgrind', "--callgrind-out-file=$d/callgrind.out",
            $Test::Kube::NginxBinary, '-p', "$d/", '-c', $s->conf_file;
        die "exec valgrind: $!";
    }
    my $url = $s->url;
    my $up = wait_until(sub {
        my $r = $admin->request('GET', "$url/api/v1/namespaces",
            { headers => { Authorization => 'Bearer admin-token' } });
        $r->{status} == 200;
    }, 180);
    my $result = eval {
        die "nginx under callgrind did not start: " . Test::Kube::_slurp($s->log_file)
            unless $up;
        post_one($s);
        my @get = ('--url', "$url$get", '--header', "'Authorization: Bearer reader-token'",
            '--connections', 4);
        system("$getLoad @get --seconds 2 >/dev/null") == 0 or die "warm-up failed\n";
        # count($work) -> (instructions, seconds) of the server while $work runs
        my $dumps = 0;
        my $count = sub {
            my ($work) = @_;
            system("callgrind_control -z $pid >/dev/null 2>&1") == 0
                or die "callgrind_control -z failed\n";
            my $t0 = Time::HiRes::time();
            $work->();
            my $seconds = Time::HiRes::time() - $t0;
            system("callgrind_control -d $pid >/dev/null 2>&1") == 0
                or die "callgrind_control -d failed\n";
            $dumps++;
            my $dump = "$d/callgrind.out.$dumps";
            wait_until(sub { -s $dump }, 30) or die "no callgrind dump $dump\n";
            my ($ir) = Test::Kube::_slurp($dump) =~ /^summary: (\d+)$/m
                or die "no summary in $dump\n";
            return ($ir, $seconds);
        };
        my $text;
        my ($ir, $seconds) = $count->(sub { $text = `$getLoad @get --seconds $callgrindSeconds` });
        my ($requests, $non2xx) = $text =~ /requests=(\d+) .* non2xx=(\d+)/
            or die "get_load: $text\n";
        die "GET under callgrind: $non2xx non-2xx answers\n" if $non2xx;
        # what the server does meanwhile without requests (its timers and
        # controllers), as long, taken out
        my ($idle, $idleSeconds) = $count->(sub { Time::HiRes::sleep($seconds) });
        [($ir - $idle * $seconds / $idleSeconds) / $requests, $requests];
    };
    my $err = $@;
    kill 'TERM', $pid;
    waitpid($pid, 0);
    die $err unless $result;
    return @$result;
}

my %ir;
if ($callgrind) {
    print STDERR "apf_fairness: instructions per GET under callgrind, APF + metrics on vs off\n";
    for my $which (qw(on off)) {
        $ir{$which} = [callgrind_per_get($which eq 'on' ? '' : $offConfig)];
    }
}

sub ms { return sprintf '%.2f', $_[0] / 1000 }
sub share { my ($r) = @_; return $r->{requests} ? 100 * $r->{status429} / $r->{requests} : 0 }
sub sum { my $t = 0; $t += $_ for @_; return $t }
sub median { my @v = sort { $a <=> $b } @_; return @v ? $v[$#v / 2] : 0 }

printf "(m) APF: quiet tenant (%d req/s, 2 conns) vs noisy (%d req/s, 32 conns), LIST of %d "
    . "ConfigMaps, %d s;\n", $quietRate, $noisyRate, $items, $seconds;
print "    noisy on level bench-tenants (1 seat, 64 queues, handSize 4, queueLengthLimit 5), "
    . "quiet on bench-quiet (2 seats)\n    or, \"shared\", on bench-tenants too, ByUser; "
    . "quiet's client " . ($quietRealtime ? "SCHED_FIFO" : "at normal priority")
    . ", noisy's at nice $noisyNice, the servers' autogroups at nice $serverNice\n";
printf "%-34s %9s %9s %9s %8s %8s\n", 'case', 'req/s', 'p50', 'p99', '429s', '429 %';
my @rows = (
    ['quiet alone (APF on)', $aloneBefore],
    ['quiet under flood (APF on)', $underOn],
    ['noisy flood (APF on)', $noisyOn],
    ['quiet alone again (APF on)', $aloneAfter],
    ['quiet under flood (shared level)', $underShared],
    ['noisy flood (shared level)', $noisyShared],
    ['quiet under flood (APF off)', $underOff],
    ['noisy flood (APF off)', $noisyOff],
);
for my $row (@rows) {
    my ($label, $r) = @$row;
    printf "%-34s %9s %7sms %7sms %8d %7.1f%%\n", $label, $r->{rps}, ms($r->{p50_us}),
        ms($r->{p99_us}), $r->{status429}, share($r);
}
my $ratio = $alone->{p99_us} ? $underOn->{p99_us} / $alone->{p99_us} : 0;
printf "quiet p99 under the flood / alone (the lower of its two): %.2f (target <= 2: %s); "
    . "noisy's 429 share %.1f%%; quiet's 429s %d\n", $ratio, $ratio <= 2 ? 'met' : 'NOT met', share($noisyOn),
    $underOn->{status429};
# on one shared seat, quiet waits out the noisy LIST holding it (its writing
# included): about one more LIST time, whatever the dispatcher does
printf "shared level: quiet p99 under the flood / alone %.2f, quiet's 429s %d (for comparison: "
    . "fair queuing within one level, no target)\n",
    $alone->{p99_us} ? $underShared->{p99_us} / $alone->{p99_us} : 0, $underShared->{status429};
my ($sOn, $sOff) = (sum(@on), sum(@off));
printf "(m) GET configmap, token user, %d conns, %d x %d s alternated: APF + metrics on %s, "
    . "off %s req/s\n", $conns, $rounds, $getSeconds, join('/', @on), join('/', @off);
# the client shares the server's cores, so a round's figures move by several
# per cent with the machine; the median of the rounds' on/off ratios, each
# pair measured back to back, is the steady figure
my ($rpsCost, $cpuCost) = (1 - median(@rpsRatio), median(@cpuRatio) - 1);
printf "APF + metrics cost: %.1f%% of req/s (median of the rounds' on/off; all rounds summed "
    . "%.1f%%; target < 5%%: %s)\n", 100 * $rpsCost, 100 * (1 - $sOn / $sOff),
    $rpsCost < 0.05 ? 'met' : 'NOT met';
my %usPer = map { ($_ => $requests{$_} ? 1e6 * $cpu{$_} / $requests{$_} : 0) } qw(on off);
printf "server CPU per GET: on %.1f us, off %.1f us (all rounds): APF + metrics add %.1f%% "
    . "(median of the rounds: %.1f%%)\n", $usPer{on}, $usPer{off},
    $usPer{off} ? 100 * ($usPer{on} / $usPer{off} - 1) : 0, 100 * $cpuCost;
if ($callgrind) {
    my $more = $ir{on}[0] / $ir{off}[0] - 1;
    printf "instructions per GET (callgrind, one worker, %d and %d GETs): on %.0f, off %.0f: APF + "
        . "metrics add %.0f (%.1f%% of the GET's instructions in user space)\n", $ir{on}[1],
        $ir{off}[1], $ir{on}[0], $ir{off}[0], $ir{on}[0] - $ir{off}[0], 100 * $more;
} else {
    print "instructions per GET: not measured (no valgrind, or BENCH_APF_CALLGRIND=0)\n";
}
done_testing();
