# API Priority and Fairness, dispatching: a tenant mapped to a tiny Reject
# level gets kube's 429 with Retry-After and the X-Kubernetes-PF-* headers
# while another tenant is served; a tenant on a tiny queuing level waits
# (parked, on either worker) and is served once a seat frees, or gets 429
# after kube's 15 s wait limit; a watch needs a seat only to start, a
# streamed list until it is written; a
# FlowSchema change applies without restart; the apiserver_flowcontrol_*
# metrics count each of these by flow schema and priority level.
# Needs the flowcontrol objects served (the configuration side); skipped
# without them.
use lib 't/lib';
use Test::Kube;
use Test::More;
use IO::Socket::INET;
use Socket ();
use Time::HiRes qw(time sleep);

$SIG{PIPE} = 'IGNORE';

my $dir = cert_dir();
open my $fh, '>', "$dir/apf-tokens.csv" or die "$dir/apf-tokens.csv: $!";
print {$fh} "admin-token,admin,1,\"system:masters\"\n", "noisy-token,noisy,2\n",
    "rejected-token,rejected,3\n", "quiet-token,quiet,4\n";
close $fh;

# a total of 3 seats: each of our levels gets one (ceil(3 * 1 / shares))
my $s = start_server(workers => 2, reuseport => 1, http_config => <<"EOF", config => <<'EOF2');
kube_max_requests_inflight 2;
kube_max_mutating_requests_inflight 1;
kube_token_auth_file $dir/apf-tokens.csv;
EOF
location / {
    kube_api;
}
EOF2

my $group = '/apis/flowcontrol.apiserver.k8s.io/v1';
my %admin = (Authorization => 'Bearer admin-token', 'Content-Type' => 'application/json');

if ($s->request('GET', $group, headers => \%admin)->{status} != 200) {
    $s->stop;
    plan skip_all => 'flowcontrol.apiserver.k8s.io/v1 is not served';
}

sub post_admin {
    my ($path, $obj) = @_;
    my $r = $s->request('POST', "$group/$path", body => encode_json($obj), headers => \%admin);
    is($r->{status}, 201, "created $path $obj->{metadata}{name}") or diag($r->{body});
    return decode_json($r->{body});
}

sub level {
    my ($name, $response) = @_;
    return post_admin('prioritylevelconfigurations', {
        apiVersion => 'flowcontrol.apiserver.k8s.io/v1', kind => 'PriorityLevelConfiguration',
        metadata => { name => $name },
        spec => { type => 'Limited', limited => { nominalConcurrencyShares => 1,
            lendablePercent => 0, borrowingLimitPercent => 0, limitResponse => $response } } });
}

sub schema {
    my ($name, $user, $level) = @_;
    return post_admin('flowschemas', {
        apiVersion => 'flowcontrol.apiserver.k8s.io/v1', kind => 'FlowSchema',
        metadata => { name => $name },
        spec => { priorityLevelConfiguration => { name => $level }, matchingPrecedence => 100,
            distinguisherMethod => { type => 'ByUser' },
            rules => [{ subjects => [{ kind => 'User', user => { name => $user } }],
                resourceRules => [{ verbs => ['*'], apiGroups => ['*'], resources => ['*'],
                    namespaces => ['*'], clusterScope => JSON::PP::true }] }] } });
}

my $reject_pl = level('t-reject', { type => 'Reject' });
my $queue_pl = level('t-queue',
    { type => 'Queue', queuing => { queues => 8, handSize => 2, queueLengthLimit => 2 } });
my $reject_fs = schema('t-rejected', 'rejected', 't-reject');
my $queue_fs = schema('t-noisy', 'noisy', 't-queue');

my $cm = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"cm-"}}';

sub create {
    my ($who) = @_;
    return $s->request('POST', '/api/v1/namespaces/default/configmaps', body => $cm,
        headers => { 'Content-Type' => 'application/json', Authorization => "Bearer $who-token" },
        timeout => 30);
}

# a create by $who; $len bytes of body announced, $body sent
sub raw_create {
    my ($who, $len, $body) = @_;
    my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $s->port,
        Proto => 'tcp') or die "connect: $!";
    print {$sock} "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\n"
        . "Authorization: Bearer $who-token\r\nContent-Type: application/json\r\n"
        . "Content-Length: $len\r\n\r\n" . ($body // '');
    return $sock;
}

sub answer {
    my ($sock, $wait) = @_;
    my ($t0, $data) = (time, '');
    while (time - $t0 < $wait && $data !~ /\r\n\r\n/) {
        my $rin = '';
        vec($rin, fileno($sock), 1) = 1;
        select($rin, undef, undef, 0.05) or next;
        sysread($sock, my $buf, 65536) or last;
        $data .= $buf;
    }
    return $data;
}

# $who's one seat, held by a create whose body is still being uploaded
sub hold_seat {
    my ($who) = @_;
    for (1 .. 20) {
        my $sock = raw_create($who, 100);
        return $sock if answer($sock, 0.3) eq '';
        close $sock;
    }
    die "no slow upload of $who got the seat";
}

# the configuration reaches the dispatcher within a second
ok(wait_until(sub {
    (create('rejected')->{headers}{'x-kubernetes-pf-prioritylevel-uid'} // '')
        eq $reject_pl->{metadata}{uid} }, 5), 'the new levels classify within seconds');

my ($before) = scrape_metrics($s, headers => \%admin);
my %rejected = (flow_schema => 't-rejected', priority_level => 't-reject');
my %noisy = (flow_schema => 't-noisy', priority_level => 't-queue');
sub moved {
    my ($after, $name, %labels) = @_;
    return metric_value($after, $name, %labels) - metric_value($before, $name, %labels);
}

{
    my $held = hold_seat('rejected');
    my $r = create('rejected');
    is($r->{status}, 429, 'a Reject level without a free seat: 429');
    is($r->{headers}{'retry-after'}, '1', '429: Retry-After 1');
    json_subset_ok(eval { decode_json($r->{body}) } || {},
        { kind => 'Status', reason => 'TooManyRequests', code => 429,
          message => 'Too many requests, please try again later.' },
        'kube\'s TooManyRequests Status');
    is($r->{headers}{'x-kubernetes-pf-prioritylevel-uid'}, $reject_pl->{metadata}{uid},
        '429: the priority level\'s UID');
    is($r->{headers}{'x-kubernetes-pf-flowschema-uid'}, $reject_fs->{metadata}{uid},
        '429: the flow schema\'s UID');
    my @quiet = map { create('quiet')->{status} } 1 .. 5;
    is_deeply(\@quiet, [(201) x 5], 'another tenant is served meanwhile');
    is($s->request('GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1',
        headers => { Authorization => 'Bearer rejected-token' })->{status}, 429,
        'a watch needs a seat to start: 429');
    close $held;
    # the seat goes back once the server sees the client gone
    ok(wait_until(sub { create('rejected')->{status} == 201 }, 3), 'the held seat frees');
}

{
    # a watch gives its seat back once started, so three in a row all
    # start and stay open. The create just served gives its seat back when
    # its request is freed, a moment after its answer left (as kube's, once
    # the handler returns): a watch refused in that moment tries again, and
    # one that kept its seat would refuse the next watch for good
    my @w;
    for (1 .. 3) {
        my $w;
        wait_until(sub {
            $w->close if $w;
            $w = $s->watch('/api/v1/namespaces/default/configmaps?watch=1',
                headers => { Authorization => 'Bearer rejected-token' });
            $w->status == 200 }, 3);
        push @w, $w;
    }
    is($_->status, 200, 'watches on a one-seat level: each starts') for @w;
    ok(wait_until(sub { create('rejected')->{status} == 201 }, 3),
        'and none keeps the seat');
    $_->close for @w;
}

{
    # a list answered as a stream keeps its seat until it is written, as
    # kube's filter keeps a list's seat until its handler has written it: a
    # client that does not read 8 MB of ConfigMaps holds its level's one seat
    my %json = (%admin);
    is($s->request('POST', '/api/v1/namespaces', body => '{"metadata":{"name":"apf-big"}}',
        headers => \%json)->{status}, 201, 'namespace apf-big');
    for my $i (1 .. 8) {
        my $big = encode_json({ metadata => { name => "big-$i" }, data => { v => 'x' x 1000000 } });
        is($s->request('POST', '/api/v1/namespaces/apf-big/configmaps', body => $big,
            headers => \%json)->{status}, 201, "a 1 MB ConfigMap $i") or last;
    }
    my $reader = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $s->port,
        Proto => 'tcp') or die "connect: $!";
    setsockopt($reader, Socket::SOL_SOCKET(), Socket::SO_RCVBUF(), 4096);
    print {$reader} "GET /api/v1/namespaces/apf-big/configmaps HTTP/1.1\r\nHost: localhost\r\n"
        . "Authorization: Bearer rejected-token\r\n\r\n";
    like(answer($reader, 5), qr{^HTTP/1\.1 200 }, 'a large list starts streaming');
    is(create('rejected')->{status}, 429, '... and its seat stays taken while it is written');
    close $reader;
    ok(wait_until(sub { create('rejected')->{status} == 201 }, 3),
        '... until its client has gone');
}

{
    my $held = hold_seat('noisy');
    my @parked = map { raw_create('noisy', length $cm, $cm) } 1 .. 2;
    is(answer($_, 1), '', 'a queuing level without a free seat: the request waits') for @parked;
    is(create('quiet')->{status}, 201, 'another tenant is served meanwhile');
    close $held;
    for my $p (@parked) {
        my $a = answer($p, 5);
        like($a, qr{^HTTP/1\.1 201 }, 'served once the seat frees');
        like($a, qr{^X-Kubernetes-PF-PriorityLevel-UID: \Q$queue_pl->{metadata}{uid}\E\r?$}mi,
            'with the priority level\'s UID');
    }
}

{
    my $held = hold_seat('noisy');
    my $t0 = time;
    my $waiting = raw_create('noisy', length $cm, $cm);
    like(answer($waiting, 20), qr{^HTTP/1\.1 429 }, 'a wait past the limit: 429');
    cmp_ok(time - $t0, '>=', 14, 'after kube\'s 15 s request wait limit');
    close $waiting;

    # the FlowSchema now sends noisy to the exempt level
    my $r = $s->request('PATCH', "$group/flowschemas/t-noisy",
        body => '{"spec":{"priorityLevelConfiguration":{"name":"exempt"}}}',
        headers => { %admin, 'Content-Type' => 'application/merge-patch+json' });
    is($r->{status}, 200, 'the FlowSchema is changed');
    ok(wait_until(sub { create('noisy')->{status} == 201 }, 3),
        'the change applies without restart: noisy is exempt now');
    close $held;
}

{
    my ($m) = scrape_metrics($s, headers => \%admin);
    my $fc = 'apiserver_flowcontrol';
    cmp_ok(moved($m, "${fc}_rejected_requests_total", %rejected, reason => 'concurrency-limit'),
        '>=', 2, 'rejected_requests_total: the Reject level\'s create and watch, concurrency-limit');
    is(moved($m, "${fc}_rejected_requests_total", %noisy, reason => 'concurrency-limit'), 0,
        '... and none of the queuing level\'s');
    cmp_ok(moved($m, "${fc}_dispatched_requests_total", %rejected), '>=', 4,
        'dispatched_requests_total: its served requests and watches');
    is(moved($m, "${fc}_rejected_requests_total", %noisy, reason => 'time-out'), 1,
        'the request that waited past the limit: time-out');
    is(moved($m, "${fc}_rejected_requests_total", %noisy, reason => 'queue-full'), 0,
        'no queue was full');
    cmp_ok(moved($m, "${fc}_dispatched_requests_total", %noisy), '>=', 4,
        'the held seats and the parked requests served are dispatched');
    cmp_ok(moved($m, "${fc}_request_wait_duration_seconds_count", %noisy, execute => 'true'),
        '>=', 4, 'request_wait_duration_seconds: each dispatched request\'s wait');
    cmp_ok(moved($m, "${fc}_request_wait_duration_seconds_sum", %noisy, execute => 'true'),
        '>=', 1.5, '... the parked ones waited a second or more');
    cmp_ok(moved($m, "${fc}_request_wait_duration_seconds_sum", %noisy, execute => 'false'),
        '>=', 14, '... and the one turned away, 15 s');
    cmp_ok(moved($m, "${fc}_dispatched_requests_total", flow_schema => 't-noisy',
        priority_level => 'exempt'), '>=', 1, 'exempt requests are dispatched too');
    cmp_ok(metric_value($m, "${fc}_request_execution_seconds_count", %noisy, type => 'regular'),
        '>=', 4, 'request_execution_seconds: the requests that ran');
    is(metric_value($m, "${fc}_current_inqueue_requests", %noisy), 0,
        'current_inqueue_requests: none waits now');
    # the held upload was closed just before: the worker ends it once it
    # sees the close, a moment later
    ok(wait_until(sub {
        my ($now) = scrape_metrics($s, headers => \%admin);
        metric_value($now, "${fc}_current_executing_requests", %noisy) == 0 }, 5),
        'current_executing_requests: none runs now');
    is(metric_value($m, "${fc}_nominal_limit_seats", priority_level => 't-reject'), 1,
        'nominal_limit_seats: one seat of 3');
    is(metric_value($m, "${fc}_current_limit_seats", priority_level => 't-queue'), 1,
        'current_limit_seats');
    is(metric_value($m, "${fc}_request_concurrency_limit", priority_level => 't-queue'), 1,
        'request_concurrency_limit');
    cmp_ok(moved($m, 'apiserver_request_total', code => 429), '>=', 3,
        'apiserver_request_total counts the 429s');
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'no alert, crit or emerg in error.log') or diag(join "\n", @bad);
ok($s->stop, 'graceful stop');

done_testing;
