# Max-in-flight (kube_priority_and_fairness off): the read-only and mutating
# limits hold for the host, across both workers; a request over its limit
# gets kube's 429 with Retry-After at once; watches take no seat; a
# system:masters user is served whatever the load; a seat frees when its
# request ends, also when the client goes away. With APF on (the default)
# the max-in-flight limits do not apply.
use lib 't/lib';
use Test::Kube;
use Test::More;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);

$SIG{PIPE} = 'IGNORE';

my $dir = cert_dir();
open my $fh, '>', "$dir/inflight-tokens.csv" or die "$dir/inflight-tokens.csv: $!";
print {$fh} "admin-token,admin,1,\"system:masters\"\n";
close $fh;

my $config = <<'EOF';
add_header X-Worker $pid always;
location / {
    kube_api;
    kube_anonymous_auth on;
}
EOF

my $s = start_server(workers => 2, reuseport => 1, http_config => <<"EOF", config => $config);
kube_priority_and_fairness off;
kube_max_requests_inflight 2;
kube_max_mutating_requests_inflight 1;
kube_token_auth_file $dir/inflight-tokens.csv;
EOF

my $cm = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"cm-"}}';
my %json = ('Content-Type' => 'application/json');

sub create {
    my ($server, %headers) = @_;
    return $server->request('POST', '/api/v1/namespaces/default/configmaps', body => $cm,
        headers => { %json, %headers });
}

# A create whose body is still being uploaded: it holds its seat from the
# flow-control phase on, while its body is read.
sub slow_upload {
    my ($server) = @_;
    my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $server->port,
        Proto => 'tcp') or die "connect: $!";
    print {$sock} "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
        . "Host: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";
    return $sock;
}

# The answer on a socket within $wait seconds, '' if none.
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

# A slow upload that got the seat: a request that ended just before may
# still hold it for the instant its worker takes to free it.
sub hold_seat {
    my ($server) = @_;
    for (1 .. 20) {
        my $sock = slow_upload($server);
        return $sock if answer($sock, 0.3) eq '';
        close $sock;
    }
    die 'no slow upload got the seat';
}

is(create($s)->{status}, 201, 'a create is served');

{
    my $held = hold_seat($s);
    my $r = create($s);
    is($r->{status}, 429, 'a create is refused while another is in progress');
    is($r->{headers}{'retry-after'}, '1', '429: Retry-After 1, as kube');
    is($r->{headers}{'content-type'}, 'application/json', '429: JSON');
    json_subset_ok(eval { decode_json($r->{body}) } || {},
        { kind => 'Status', status => 'Failure', reason => 'TooManyRequests',
          code => 429, message => 'Too many requests, please try again later.',
          details => { retryAfterSeconds => 1 } },
        'kube\'s TooManyRequests Status');

    # fresh connections: the kernel spreads them over both workers
    my (%workers, @codes);
    for (1 .. 12) {
        my $r = create($s);
        push @codes, $r->{status};
        $workers{$r->{headers}{'x-worker'} // ''}++;
    }
    is_deeply([grep { $_ != 429 } @codes], [], 'every create over the limit: 429')
        or diag(explain \@codes, explain \%workers);
    is(scalar(grep { $_ ne '' } keys %workers), 2,
        'both workers refuse: the limit holds for the host')
        or diag(explain \%workers);

    # read-only requests have their own limit; watches take no seat
    my $watch = $s->watch('/api/v1/namespaces/default/configmaps?watch=1');
    is($watch->status, 200, 'a watch is in progress');
    my $watch2 = $s->watch('/api/v1/namespaces/default/configmaps?watch=1');
    is($watch2->status, 200, 'and another, as many as the read-only limit');
    my @gets = map { $s->request('GET', '/api/v1/namespaces/default/configmaps')->{status} }
        1 .. 6;
    is_deeply(\@gets, [(200) x 6], 'lists are served: watches take no read-only seat');

    is(create($s, Authorization => 'Bearer admin-token')->{status}, 201,
        'system:masters is served over the limit, as kube');

    $watch->close;
    $watch2->close;
    close $held;
    ok(wait_until(sub { create($s)->{status} == 201 }, 5),
        'the client went away: its seat is free, a create is served');
}

{
    # two slow creates: the second is refused at once, not queued
    my $held = hold_seat($s);
    my $t0 = time;
    my $second = slow_upload($s);
    like(answer($second, 3), qr{^HTTP/1\.1 429 }, 'a create over the limit is refused before its body');
    cmp_ok(time - $t0, '<', 2, 'at once: max-in-flight does not queue');
    close $second;
    close $held;
}

{
    # a reload keeps the zone: the old workers' seats still count
    my $held = hold_seat($s);
    ok($s->reload, 'reloaded');
    is(create($s)->{status}, 429, 'a seat held in an old worker counts for the new ones');
    close $held;
    ok(wait_until(sub { create($s)->{status} == 201 }, 5),
        'released by the old worker: the new ones serve');
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'no alert, crit or emerg in error.log') or diag(join "\n", @bad);
ok($s->stop, 'graceful stop');

# APF on (the default): it replaces max-in-flight; without a configuration
# from the API objects, requests pass
my $apf = start_server(workers => 2, reuseport => 1, config => $config, http_config => <<'EOF');
kube_max_requests_inflight 1;
kube_max_mutating_requests_inflight 1;
EOF
{
    my $held = hold_seat($apf);
    my @codes = map { create($apf)->{status} } 1 .. 4;
    is_deeply(\@codes, [(201) x 4], 'APF on: the max-in-flight limits do not apply');
    close $held;
}
@bad = $apf->fatal_lines($apf->error_log_since_start);
ok(!@bad, 'APF on: no alert, crit or emerg in error.log') or diag(join "\n", @bad);
ok($apf->stop, 'APF on: graceful stop');

done_testing;
