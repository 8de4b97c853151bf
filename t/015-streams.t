# Streamed responses as nginx carries them: watches over HTTP/1.1 (chunked)
# and h2 (DATA frames); a write through one worker reaches a watcher held by
# the other at once (eventfd), not at the next safety poll; a client that
# stops reading is cut once more than kube_stream_max_buffered is unread, or
# after send_timeout, and nothing more is queued for it; a client that goes
# away releases its stream; a reload ends open watches cleanly (the last
# chunk, END_STREAM) and the old workers exit.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();
use IO::Socket::INET;
use POSIX ();
use Socket qw(SOL_SOCKET SO_RCVBUF inet_aton pack_sockaddr_in);
use Time::HiRes qw(sleep time);

my $http_config = <<'EOF';
client_body_buffer_size 4m;
log_format streams '$pid "$request" $status';
access_log logs/streams.log streams;
EOF

# Namespaces with locations of their own: "slow" cuts at 256k unread;
# "stall" and "steady" buffer up to 64m but cut after one and five seconds
# without progress.
my $config = <<'EOF';
location / {
    kube_api;
    kube_anonymous_auth on;
    add_header X-Worker $pid always;
}
location /api/v1/namespaces/slow/ {
    kube_api;
    kube_anonymous_auth on;
    kube_stream_max_buffered 256k;
}
location /api/v1/namespaces/stall/ {
    kube_api;
    kube_anonymous_auth on;
    kube_stream_max_buffered 64m;
    send_timeout 1s;
}
location /api/v1/namespaces/steady/ {
    kube_api;
    kube_anonymous_auth on;
    kube_stream_max_buffered 64m;
    send_timeout 5s;
}
EOF

sub no_errors {
    my ($s, $mark, $what) = @_;
    my @bad = grep { /\[error\]/ } split /\n/, $s->log_since($mark);
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok(!@bad, "$what: no [error] in error.log") or diag(join "\n", @bad);
}

sub create {
    my ($s, $ns, $name, $size) = @_;
    my $r = $s->request('POST', "/api/v1/namespaces/$ns/configmaps",
        headers => { 'Content-Type' => 'application/json' },
        body => encode_json({ apiVersion => 'v1', kind => 'ConfigMap',
            metadata => { name => $name }, data => { x => 'x' x ($size // 1) } }),
        timeout => 20);
    return $r->{status};
}

# A watch on a plain socket with a small receive buffer, for a client that
# reads nothing: the kernel then holds little of what nginx sends.
sub stalled_watch {
    my ($s, $path) = @_;
    my $sock = IO::Socket::INET->new(Proto => 'tcp') or die "socket: $!";
    setsockopt($sock, SOL_SOCKET, SO_RCVBUF, 4096) or die "setsockopt: $!";
    $sock->connect(pack_sockaddr_in($s->port, inet_aton('127.0.0.1'))) or die "connect: $!";
    syswrite($sock, "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n");
    return $sock;
}

# Everything a socket still delivers: (bytes, how it ended: eof, reset or
# timeout).
sub read_to_end {
    my ($sock, $timeout) = @_;
    $sock->blocking(0);
    my ($data, $deadline) = ('', time + $timeout);
    while (time < $deadline) {
        my $n = sysread($sock, my $buf, 1 << 20);
        return ($data, 'eof') if defined $n && $n == 0;
        if (!defined $n) {
            return ($data, 'reset') unless $!{EAGAIN} || $!{EWOULDBLOCK};
            sleep 0.02;
            next;
        }
        $data .= $buf;
    }
    return ($data, 'timeout');
}

# A watch by curl in the background (h2 over TLS): its output, headers and
# exit code go to files (the harness reaps our children, so a child process
# waits for curl and writes down how it ended).
sub curl_watch {
    my ($s, $path, @args) = @_;
    my $dir = File::Temp->newdir('kube-curl-XXXXXX', TMPDIR => 1);
    my $certs = cert_dir();
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', "$dir/body" or POSIX::_exit(1);
        open STDERR, '>', "$dir/err" or POSIX::_exit(1);
        my $curl = fork // POSIX::_exit(1);
        if ($curl == 0) {
            exec('curl', '-sS', '-N', '--http2', '-D', "$dir/head",
                '--cacert', "$certs/ca.crt", '--cert', "$certs/admin.crt",
                '--key', "$certs/admin.key", @args, $s->url . $path) or POSIX::_exit(127);
        }
        open my $pf, '>', "$dir/pid" or POSIX::_exit(1);
        print {$pf} $curl;
        close $pf;
        waitpid($curl, 0);
        my $rc = $?;
        open my $fh, '>', "$dir/rc.tmp" or POSIX::_exit(1);
        print {$fh} $rc & 127 ? 128 + ($rc & 127) : $rc >> 8;
        close $fh;
        rename "$dir/rc.tmp", "$dir/rc";
        POSIX::_exit(0);
    }
    return { pid => $pid, dir => $dir };
}

sub curl_body { slurp("$_[0]{dir}/body") }
sub curl_head { slurp("$_[0]{dir}/head") }

# curl's exit code once it ended, or undef after `timeout` seconds.
sub curl_exit {
    my ($c, $timeout) = @_;
    my $rc = wait_until(sub { -e "$c->{dir}/rc" ? slurp("$c->{dir}/rc") . ' ' : undef },
        $timeout);
    return defined $rc ? $rc + 0 : undef;
}

sub curl_pid {
    my $c = shift;
    return wait_until(sub { slurp("$c->{dir}/pid") =~ /^(\d+)$/ ? $1 : undef }, 5);
}

# Ends curl (a client that goes away) and its waiting parent.
sub curl_kill {
    my $c = shift;
    return if -e "$c->{dir}/rc";
    my $pid = curl_pid($c);
    kill 'TERM', $pid if $pid;
    curl_exit($c, 5);
}

# The status in the access log line of a request once it ended; a stream
# that ended early still logs the 200 that went out.
sub logged_status {
    my ($s, $path, $timeout) = @_;
    my $quoted = quotemeta "GET $path ";
    return wait_until(sub {
        slurp($s->root . '/logs/streams.log') =~ /^\d+ "$quoted\S+" (\d+)$/m ? $1 : undef;
    }, $timeout);
}

# ---------------------------------------------------------------------------
# HTTP/1.1, two workers.

my $s = start_server(workers => 2, reuseport => 1, http_config => $http_config,
    config => $config);
$s->create_namespace($_) for qw(streams slow stall steady);

# --- A write reaches watchers on both workers at once: the writer's worker
# wakes the other through its eventfd (the safety poll runs once a second).
{
    my $base = '/api/v1/namespaces/streams/configmaps';
    my (%by_worker, @watchers);
    for my $i (1 .. 40) {
        my $w = $s->watch("$base?watch=true&allowWatchBookmarks=false");
        is($w->status, 200, "watcher $i answers 200") or last;
        my $worker = $w->head->{headers}{'x-worker'};
        push @watchers, [ $worker, $w ] unless $by_worker{$worker}++;
        last if @watchers == 2;
    }
    is(scalar @watchers, 2, 'a watcher on each worker');
    like($watchers[0][1]->head->{headers}{'transfer-encoding'} // '', qr/chunked/,
        'HTTP/1.1 watches are chunked');

    my @lag;
    for my $i (1 .. 5) {
        is(create($s, 'streams', "wake-$i"), 201, "wake-$i created");
        my $t0 = time;
        for my $pair (@watchers) {
            my ($worker, $w) = @$pair;
            my $e = $w->next_event(5);
            is($e && $e->{object}{metadata}{name}, "wake-$i", "worker $worker sees wake-$i")
                or diag(explain $e);
            push @lag, time - $t0;
        }
    }
    my @sorted = sort { $a <=> $b } @lag;
    my $median = $sorted[ int(@sorted / 2) ];
    cmp_ok($median, '<', 0.25, 'events arrive without waiting for the safety poll')
        or diag("delays after the create answered: @lag");
    $_->[1]->close for @watchers;
}

# --- A client that goes away releases its stream: the request ends (nginx
# logs it) at once, and the next writes and watches work.
{
    my $mark = $s->log_size;
    my $path = '/api/v1/namespaces/streams/configmaps?watch=true&labelSelector=gone%3Dyes';
    my $w = $s->watch($path);
    is($w->status, 200, 'a watch to abandon answers 200');
    $w->close;
    is(logged_status($s, $path, 5), 200, 'the abandoned watch ended at once');

    my $w2 = $s->watch('/api/v1/namespaces/streams/configmaps?watch=true&labelSelector=again%3Dyes');
    is($w2->status, 200, 'a new watch answers 200');
    my $r = $s->request('POST', '/api/v1/namespaces/streams/configmaps',
        headers => { 'Content-Type' => 'application/json' },
        body => encode_json({ apiVersion => 'v1', kind => 'ConfigMap',
            metadata => { name => 'after-gone', labels => { again => 'yes' } } }));
    is($r->{status}, 201, 'a write after the disconnect succeeds');
    my $e = $w2->next_event(5);
    is($e && $e->{object}{metadata}{name}, 'after-gone', 'the new watch sees it');
    $w2->close;
    no_errors($s, $mark, 'client disconnect');
}

# --- A client that reads nothing is cut once more than
# kube_stream_max_buffered is unread; nothing more is queued for it.
{
    my $mark = $s->log_size;
    my $path = '/api/v1/namespaces/slow/configmaps?watch=true';
    my $sock = stalled_watch($s, $path);
    sleep 0.3;
    my ($written, $at_cut, $cut, $after) = (0, 0, 0, 0);
    for my $i (1 .. 40) {
        is(create($s, 'slow', "big-$i", 500_000), 201, "big-$i created") or last;
        $written += 500_000;
        if ($cut) {
            # a few more writes: none of them may reach the cut stream
            last if ++$after == 4;
        } elsif ($s->log_since($mark) =~ /watch stream cut \(too much unread\): (\d+) bytes/) {
            ($cut, $at_cut) = ($1, $written);
        }
    }
    ok($cut, 'the stalled watch was cut') or diag($s->log_since($mark));
    cmp_ok($cut, '<=', 256 * 1024 + 600_000,
        'at the cut, at most the limit and one event were unread');
    my ($data, $how) = read_to_end($sock, 10);
    is($how, 'eof', 'the cut connection is closed');
    cmp_ok(length $data, '<', $at_cut * 1.01,
        "nothing written after the cut reached the client ($written bytes written)");
    unlike($data, qr/\r\n0\r\n\r\n\z/, 'a cut stream has no clean end');
    is(logged_status($s, $path, 5), 200, 'the cut watch ended');
    my $metrics = $s->request(GET => '/metrics')->{body};
    like($metrics, qr/^kube_apiserver_stream_ends_total\{reason="cut"\} [1-9]\d*$/m,
        '/metrics counts the cut watch') or diag($metrics);
    no_errors($s, $mark, 'slow client');
}

# --- A client that reads slowly but steadily gets everything and is not
# cut: whenever it takes bytes, nginx writes more and send_timeout starts
# again (the writes go on after the last event was produced).
{
    my $mark = $s->log_size;
    my $sock = stalled_watch($s, '/api/v1/namespaces/steady/configmaps?watch=true');
    my $out = File::Temp->new;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        # a few KiB (the small receive buffer) every 5 ms
        my ($data, $events, $deadline) = ('', 0, time + 40);
        while (time < $deadline) {
            my $n = sysread($sock, my $buf, 65536);
            last unless $n;
            $data .= $buf;
            $events = () = $data =~ /"name":"steady-\d+"/g;
            last if $events >= 12;
            sleep 0.005;
        }
        open my $fh, '>', $out->filename or POSIX::_exit(1);
        print {$fh} "$events";
        close $fh;
        POSIX::_exit(0);
    }
    for my $i (1 .. 12) {
        is(create($s, 'steady', "steady-$i", 500_000), 201, "steady-$i created") or last;
    }
    ok(wait_until(sub { -s $out->filename }, 40), 'the steady reader finished');
    is(slurp($out->filename), 12, 'the steady reader got every event');
    unlike($s->log_since($mark), qr/watch stream cut/, 'the steady reader was not cut');
    no_errors($s, $mark, 'steady reader');
    close $sock;
}

# --- A client that stalls under the buffer limit is cut after send_timeout.
{
    my $mark = $s->log_size;
    my $path = '/api/v1/namespaces/stall/configmaps?watch=true';
    my $sock = stalled_watch($s, $path);
    sleep 0.3;
    for my $i (1 .. 12) {
        is(create($s, 'stall', "stall-$i", 500_000), 201, "stall-$i created") or last;
    }
    ok(wait_until(sub { $s->log_since($mark) =~ /watch stream cut \(client timed out\)/ }, 5),
        'the stalled watch was cut after send_timeout') or diag($s->log_since($mark));
    my ($data, $how) = read_to_end($sock, 10);
    is($how, 'eof', 'the timed out connection is closed');
    is(logged_status($s, $path, 5), 200, 'the timed out watch ended');
    no_errors($s, $mark, 'send_timeout');
}

# --- A reload ends open watches cleanly; the old workers then exit.
{
    my $mark = $s->log_size;
    my @old = $s->worker_pids;
    my @watchers = map { $s->watch('/api/v1/namespaces/streams/configmaps?watch=true') } 1 .. 4;
    is($_->status, 200, 'a watch before the reload answers 200') for @watchers;
    my $t0 = time;
    ok($s->reload(wait_old => 1), 'reload: the old workers exit');
    my $took = time - $t0;
    for my $i (0 .. $#watchers) {
        ok($watchers[$i]->ended(5), "watch $i ended with the last chunk");
    }
    cmp_ok($took, '<', 5, 'the old workers left within seconds');
    ok(!grep({ pid_alive($_) } @old), 'no old worker is left');
    $s->fatal_free_ok($s->log_since($mark), 'reload with open watches');
    no_errors($s, $mark, 'reload with open watches');
    is(create($s, 'streams', 'after-reload'), 201, 'the new workers serve writes');
}

$s->fatal_free_ok($s->error_log_since_start, 'HTTP/1.1');
ok($s->stop, 'nginx stops gracefully');

# ---------------------------------------------------------------------------
# h2 over TLS.

my $t = start_server(workers => 2, tls => 1, reuseport => 1, http_config => $http_config,
    config => $config);
$t->create_namespace($_) for qw(streams slow);

# --- A watch over h2 receives events; a closed h2 client releases it.
{
    my $mark = $t->log_size;
    my $path = '/api/v1/namespaces/streams/configmaps?watch=true';
    my $c = curl_watch($t, $path);
    ok(wait_until(sub { curl_head($c) =~ m{^HTTP/2 200}m }, 5), 'the h2 watch answers 200')
        or diag(curl_head($c) . slurp("$c->{dir}/err"));
    is(create($t, 'streams', 'over-h2'), 201, 'over-h2 created');
    ok(wait_until(sub { curl_body($c) =~ /"name":"over-h2"/ }, 5), 'the h2 watch sees it')
        or diag(curl_body($c));
    curl_kill($c);
    is(logged_status($t, $path, 5), 200, 'the closed h2 watch ended at once');
    is(create($t, 'streams', 'after-h2'), 201, 'writes go on after the h2 client left');
    no_errors($t, $mark, 'h2 watch');
}

# --- A stalled h2 reader is cut as well: once it reads again, it finds its
# stream reset.
{
    my $mark = $t->log_size;
    my $path = '/api/v1/namespaces/slow/configmaps?watch=true';
    my $c = curl_watch($t, $path);
    ok(wait_until(sub { curl_head($c) =~ m{^HTTP/2 200}m }, 5), 'the h2 watch answers 200');
    my $pid = curl_pid($c);
    kill 'STOP', $pid;
    my $cut;
    for my $i (1 .. 40) {
        is(create($t, 'slow', "h2big-$i", 500_000), 201, "h2big-$i created") or last;
        last if $cut = $t->log_since($mark) =~ /watch stream cut \(too much unread\)/;
    }
    ok($cut, 'the stalled h2 watch was cut') or diag($t->log_since($mark));
    kill 'CONT', $pid;
    my $rc = curl_exit($c, 20);
    ok($rc, 'curl reads on and finds the stream reset') or diag('curl: ' . ($rc // 'running'));
    curl_kill($c);
    is(logged_status($t, $path, 5), 200, 'the cut h2 watch ended');
    is(create($t, 'streams', 'after-h2-cut'), 201, 'writes go on after the cut');
    no_errors($t, $mark, 'stalled h2 reader');
}

# --- A reload ends h2 watches with END_STREAM.
{
    my $mark = $t->log_size;
    my @old = $t->worker_pids;
    my @c = map { curl_watch($t, '/api/v1/namespaces/streams/configmaps?watch=true') } 1 .. 3;
    for my $c (@c) {
        ok(wait_until(sub { curl_head($c) =~ m{^HTTP/2 200}m }, 5), 'an h2 watch answers 200');
    }
    ok($t->reload(wait_old => 1), 'reload: the old workers exit');
    for my $c (@c) {
        is(curl_exit($c, 5), 0, 'the h2 watch ended cleanly') or diag(slurp("$c->{dir}/err"));
        curl_kill($c);
    }
    ok(!grep({ pid_alive($_) } @old), 'no old worker is left');
    $t->fatal_free_ok($t->log_since($mark), 'h2 reload with open watches');
    no_errors($t, $mark, 'h2 reload with open watches');
}

$t->fatal_free_ok($t->error_log_since_start, 'h2');
ok($t->stop, 'nginx stops gracefully');

done_testing();
