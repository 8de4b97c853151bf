# A hostile client cannot hold connections: a request body must arrive whole
# within kube_request_body_timeout (a body sent a byte at a time is answered
# with kube's request timeout and its connection closed), and limit_conn caps
# the requests in progress per client address with a 429 Status.
use lib 't/lib';
use Test::Kube;
use Test::More;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);

$SIG{PIPE} = 'IGNORE';

my $s = start_server(
    http_config => <<'EOF',
limit_conn_zone $binary_remote_addr zone=per_addr:1m;
limit_conn_status 429;
EOF
    config => <<'EOF');
kube_request_body_timeout 3s;
location / {
    kube_api;
    kube_anonymous_auth on;
}
location /api/v1/namespaces/limited/ {
    kube_api;
    kube_anonymous_auth on;
    limit_conn per_addr 2;
}
location = /connections {
    stub_status;
}
EOF

my $ns_body = '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"limited"}}';
is($s->request('POST', '/api/v1/namespaces', body => $ns_body,
    headers => { 'Content-Type' => 'application/json' })->{status}, 201, 'a namespace');

# stub_status: "Active connections: N", this request's own included
sub active {
    my $body = $s->request('GET', '/connections')->{body};
    return $body =~ /Active connections: (\d+)/ ? $1 : -1;
}

sub slow_upload {
    my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $s->port,
        Proto => 'tcp') or die "connect: $!";
    print {$sock} "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
        . "Host: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";
    $sock->blocking(0);
    return $sock;
}

# One byte a second until the server answers or closes; -> (response, the
# seconds to the answer, the seconds to the close).
sub trickle {
    my ($sock, $limit) = @_;
    my $t0 = time;
    my ($data, $answered, $closed) = ('', undef, undef);
    my $next = 0;
    while (time - $t0 < $limit) {
        if (time >= $next && !defined $answered) {
            syswrite($sock, ' ');
            $next = time + 1;
        }
        my $rin = '';
        vec($rin, fileno($sock), 1) = 1;
        next unless select($rin, undef, undef, 0.05);
        my $n = sysread($sock, my $buf, 65536);
        if (!$n) {
            $closed = time - $t0;
            last;
        }
        $data .= $buf;
        $answered //= time - $t0;
    }
    return ($data, $answered, $closed);
}

{
    my $sock = slow_upload();
    my ($data, $answered, $closed) = trickle($sock, 10);
    ok(defined $answered && $answered >= 2.5 && $answered < 5,
        'a body sent a byte a second is answered at the 3 s deadline')
        or diag("answered after " . ($answered // 'never'));
    my ($head, $body) = split /\r\n\r\n/, $data, 2;
    like($head, qr{^HTTP/1\.1 504 }, '504, as kube-apiserver answers a slow body');
    like($head, qr{^Content-Type: application/json\r?$}mi, 'JSON');
    like($head, qr{^Connection: close\r?$}mi, 'the connection is not kept alive');
    json_subset_ok(eval { decode_json($body) } || {},
        { kind => 'Status', status => 'Failure', reason => 'Timeout', code => 504, details => {},
          message => 'Timeout: request did not complete within the allotted timeout' },
        'kube\'s timeout Status');
    ok(defined $closed && $closed - $answered < 1,
        'the server closes the connection right after the answer')
        or diag("closed after " . ($closed // 'never'));
    close $sock;
}

{
    my @socks = map { slow_upload() } 1 .. 20;
    sleep 1;
    cmp_ok(active(), '>=', 21, '20 slow uploads hold 20 connections');
    ok(wait_until(sub { active() == 1 }, 6), 'after the deadline every one is freed')
        or diag('active connections: ' . active());
    close $_ for @socks;
}

{
    # a body that keeps coming and ends within the deadline is served
    my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $s->port,
        Proto => 'tcp') or die "connect: $!";
    my $cm = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"in-time"}}';
    print {$sock} "POST /api/v1/namespaces/limited/configmaps HTTP/1.1\r\nHost: localhost\r\n"
        . "Content-Type: application/json\r\nContent-Length: " . length($cm)
        . "\r\nConnection: close\r\n\r\n";
    for my $part (unpack '(a20)*', $cm) {
        sleep 0.5;
        print {$sock} $part;
    }
    local $/;
    my $resp = <$sock>;
    like($resp, qr{^HTTP/1\.1 201 }, 'a body that arrives within the deadline is served');
}

{
    my @watches = map {
        $s->watch('/api/v1/namespaces/limited/configmaps?watch=1')
    } 1 .. 2;
    is($_->status, 200, 'a watch is in progress') for @watches;
    my $r = $s->request('GET', '/api/v1/namespaces/limited/configmaps');
    is($r->{status}, 429, 'a third request in progress from the address: 429');
    is($r->{headers}{'content-type'}, 'application/json', '429: JSON');
    is($r->{headers}{'retry-after'}, '1', '429: Retry-After as kube-apiserver sends it');
    json_subset_ok(eval { decode_json($r->{body}) } || {},
        { kind => 'Status', reason => 'TooManyRequests', code => 429,
          message => 'Too many requests, please try again later.',
          details => { retryAfterSeconds => 1 } },
        'kube\'s TooManyRequests Status');
    is($s->request('GET', '/api/v1/namespaces/default')->{status}, 200,
        'a location without the limit still serves');
    $_->close for @watches;
    ok(wait_until(sub {
        $s->request('GET', '/api/v1/namespaces/limited/configmaps')->{status} == 200 }, 5),
        'once the watches end, the address is served again');
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'no alert, crit or emerg in error.log') or diag(join "\n", @bad);
ok($s->stop, 'graceful stop');

done_testing;
