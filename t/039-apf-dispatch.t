# API Priority and Fairness, dispatching: a tenant mapped to a tiny Reject
# level gets kube's 429 with Retry-After and the X-Kubernetes-PF-* headers
# while another tenant is served; a tenant on a tiny queuing level waits
# (parked, on either worker) and is served once a seat frees, or gets 429
# after kube's 15 s wait limit; a watch needs a seat only to start; a
# FlowSchema change applies without restart.
# Needs the flowcontrol objects served (the configuration side); skipped
# without them.
use lib 't/lib';
use Test::Kube;
use Test::More;
use IO::Socket::INET;
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
}

{
    # a watch gives its seat back once started
    my @w = map { $s->watch('/api/v1/namespaces/default/configmaps?watch=1',
        headers => { Authorization => 'Bearer rejected-token' }) } 1 .. 3;
    is($_->status, 200, 'watches on a one-seat level: each starts') for @w;
    ok(wait_until(sub { create('rejected')->{status} == 201 }, 3),
        'and none keeps the seat');
    $_->close for @w;
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

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'no alert, crit or emerg in error.log') or diag(join "\n", @bad);
ok($s->stop, 'graceful stop');

done_testing;
