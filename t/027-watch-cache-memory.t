# The watch cache's memory is bounded: 150 PUTs of a 900 KB ConfigMap raise
# each worker's private memory by no more than kube_watch_cache_size plus the
# live objects, the oldest events are trimmed first, /metrics reports what
# each resource's cache holds, a watch from a trimmed resourceVersion still
# gets every event (from the store's log), and a continue token older than
# the history is 410 Expired as kube's is after a compaction.
use lib 't/lib';
use Test::Kube;
use Test::More;
use POSIX ();

my $cap = 16 * 1024 * 1024;
my $puts = 150;
my $value = 'x' x (900 * 1024);

# The allocator returns freed memory at once, so that RSS shows what is
# held rather than what jemalloc keeps for reuse (figures with its defaults
# are in README).
my $s = start_server(tls => 1, workers => 2, http_config => 'kube_watch_cache_size 16m;',
    env => { MALLOC_CONF => 'dirty_decay_ms:0,muzzy_decay_ms:0' });
my $base = '/api/v1/namespaces/default/configmaps';

# call(...) -> the response of $s->call(...) with a 60 s timeout
sub call {
    my ($method, $path, $body, %o) = @_;
    return scalar $s->call($method, $path, $body, timeout => 60, %o);
}

sub rss_anon_kib {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/status" or return 0;
    while (my $line = <$fh>) {
        return $1 if $line =~ /^RssAnon:\s+(\d+)/;
    }
    return 0;
}

sub metric {
    my ($text, $name) = @_;
    return $text =~ /^\Q$name\E (\d+)$/m ? $1 : undef;
}

my $r = call(POST => $base, { metadata => { name => 'big' }, data => { v => $value } });
is($r->{status}, 201, 'the 900 KB ConfigMap is created');
my $quiet = '/api/v1/namespaces/quiet/configmaps';
is(call(POST => '/api/v1/namespaces', { metadata => { name => 'quiet' } })->{status}, 201,
    'namespace quiet');
$r = call(POST => $quiet, { metadata => { name => 'tiny' }, data => { v => '0' } });
is($r->{status}, 201, 'a small ConfigMap in another namespace');
my $start = decode_json($r->{body})->{metadata}{resourceVersion};

# A first page of a paginated list, continued after the PUTs.
$r = call(GET => "/api/v1/configmaps?limit=1");
my $continue = decode_json($r->{body})->{metadata}{continue};
ok($continue, 'a first page with a continue token');

# A watcher that reads everything: each event is encoded once for it.
my $dir = Test::Kube::cert_dir();
my $curl = fork;
die "fork: $!" unless defined $curl;
if ($curl == 0) {
    open STDOUT, '>', '/dev/null';
    open STDERR, '>', '/dev/null';
    { no warnings 'exec'; exec 'curl', '-sk', '--cert', "$dir/admin.crt", '--key', "$dir/admin.key",
        $s->url . "$base?watch=1&resourceVersion=$start"; }
    POSIX::_exit(127);
}

call(GET => $base) for 1 .. 4;
my @workers = $s->worker_pids;
is(scalar @workers, 2, 'two workers');
my %before = map { ($_ => rss_anon_kib($_)) } @workers;

my $ok = 0;
for my $i (1 .. $puts) {
    my $r = call(PUT => "$base/big", { metadata => { name => 'big' },
        data => { v => $value, i => "$i" } });
    $ok++ if $r->{status} == 200;
    if ($i % 50 == 0) {
        call(PUT => "$quiet/tiny", { metadata => { name => 'tiny' }, data => { v => "$i" } });
    }
}
is($ok, $puts, "$puts PUTs of 900 KB");
call(GET => $base) for 1 .. 4;
sleep 1;

# Each worker holds at most the cap of history, plus the live objects (one
# 900 KB ConfigMap), plus slack for the allocator's tables and caches and the
# last request's buffers (measured +18 to +22 MiB beside a busy suite; main
# grew by 157 MiB before the cap).
my $bound_kib = ($cap + 900 * 1024 + 8 * 1024 * 1024) / 1024;
for my $pid (@workers) {
    my $grew = rss_anon_kib($pid) - $before{$pid};
    diag(sprintf 'worker %d: private memory +%.1f MiB after %d PUTs of 900 KB', $pid,
        $grew / 1024, $puts);
    SKIP: {
        # ASan's allocator keeps what is freed in its quarantine (256 MiB)
        skip 'the sanitized heap holds freed memory in its quarantine', 1
            if ($ENV{SANITIZE} || '') eq '1';
        ok($grew <= $bound_kib, "worker $pid grew by ${grew} KiB, at most $bound_kib KiB");
    }
}
kill 'TERM', $curl;
waitpid $curl, 0;

# /metrics: what the configmaps cache holds.
$r = call(GET => '/metrics');
is($r->{status}, 200, '/metrics');
my $m = $r->{body};
my $held = metric($m, 'apiserver_watch_cache_bytes{resource="configmaps"}');
ok(defined $held && $held <= $cap && $held > $cap - 2 * 1024 * 1024,
    "the configmaps history holds at most the cap, and nearly all of it ($held bytes)");
my $events = metric($m, 'apiserver_watch_cache_events{resource="configmaps"}');
ok(defined $events && $events >= 15 && $events <= 20,
    "about 17 replaced versions of 900 KB fit ($events events)");
# The live ConfigMaps: the test's and the server's own (kube-system's
# extension-apiserver-authentication).
my $live = decode_json(call(GET => '/api/v1/configmaps')->{body});
is(metric($m, 'apiserver_watch_cache_objects{resource="configmaps"}'), scalar @{ $live->{items} },
    'the live objects');
ok(@{ $live->{items} } >= 2, '... the two of the test among them');
ok(metric($m, 'apiserver_watch_cache_objects{resource="namespaces"}') >= 5, 'the namespaces');
ok(metric($m, 'apiserver_watch_cache_objects_bytes{resource="configmaps"}') > 900 * 1024,
    'their stored bytes');
ok(metric($m, 'apiserver_watch_cache_events_received_total{resource="configmaps"}') >= $puts + 3,
    'every event was received');
is(metric($m, 'apiserver_watch_cache_history_capacity_bytes'), $cap, 'the worker cap');
is(metric($m, 'apiserver_watch_cache_capacity_bytes'), $cap, 'the resource cap defaults to it');
ok(metric($m, 'apiserver_watch_cache_history_bytes') <= $cap, 'the worker total');
like($m, qr/^# TYPE apiserver_watch_cache_bytes gauge$/m, 'typed for Prometheus');
is(metric($m, 'apiserver_watch_cache_events{resource="secrets"}'), 0, 'and every other resource');

# A watch from before the history still gets every event, from the log: the
# small ConfigMap's three updates, in order, and nothing else.
my $w = $s->watch("$quiet?watch=1&resourceVersion=$start");
my @got;
while (my $e = $w->next_event(10)) {
    push @got, "$e->{type} $e->{object}{data}{v}";
    last if @got == 3;
}
is_deeply(\@got, ['MODIFIED 50', 'MODIFIED 100', 'MODIFIED 150'],
    'a watch from a trimmed resourceVersion replays from the log') or diag(explain \@got, $w->head);
$w->close;

# A list at that resourceVersion, and the continue token: 410 Expired.
$r = call(GET => "$base?resourceVersion=$start&resourceVersionMatch=Exact");
is($r->{status}, 410, 'a list at a trimmed resourceVersion is 410');
is(decode_json($r->{body})->{reason}, 'Expired', 'Expired');
$r = call(GET => "/api/v1/configmaps?limit=1&continue=$continue");
is($r->{status}, 410, 'a continue token older than the history is 410');
like(decode_json($r->{body})->{message}, qr/^The provided continue parameter is too old/,
    "kube's message");

is_deeply([ $s->fatal_lines($s->error_log_since_start) ], [], 'no worker crashed');

# The directive's arguments.
for my $case (['kube_watch_cache_size lots;', qr/invalid size "lots"/],
              ['kube_watch_cache_size 1m other=2m;', qr/invalid parameter "other=2m"/],
              ['kube_watch_cache_size 1m resource=big;', qr/invalid parameter "resource=big"/],
              ["kube_watch_cache_size 1m;\nkube_watch_cache_size 2m;",
               qr/"kube_watch_cache_size" directive is duplicate/]) {
    my $bad = new_server(http_config => $case->[0]);
    ok(!$bad->start, 'nginx refuses: ' . ($case->[0] =~ s/\n/ /r));
    like($bad->{start_error} // '', $case->[1], 'with the reason');
}
my $good = new_server(tls => 1, http_config => 'kube_watch_cache_size 64m resource=8m;');
ok($good->start, 'kube_watch_cache_size 64m resource=8m; is accepted');
$r = $good->request(GET => '/metrics');
like($r->{body}, qr/^apiserver_watch_cache_capacity_bytes 8388608$/m, 'the resource cap');
$good->stop;

done_testing;
