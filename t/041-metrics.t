# /metrics: kube-apiserver's metrics in the Prometheus text format, read
# by a real parser (python3-prometheus-client), counted across the workers
# of the host: requests by kube's labels (a GET, a LIST, a 404, an apply, a
# dry run), histograms whose cumulative buckets end in +Inf = count, the
# in-flight and long-running gauges, watch events, a terminated watcher,
# stored objects, the process basics; and /metrics is authorized like any
# non-resource URL (system:monitoring's).
use lib 't/lib';
use Test::Kube;
use Test::More;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_RCVBUF inet_aton pack_sockaddr_in);
use Time::HiRes qw(sleep time);

my $s = start_server(workers => 2, reuseport => 1, config => <<'EOF');
location / {
    kube_api;
    kube_anonymous_auth on;
    kube_stream_max_buffered 64k;
    add_header X-Worker $pid always;
}
EOF

sub create_cm {
    my ($ns, $name, %o) = @_;
    return $s->request(POST => "/api/v1/namespaces/$ns/configmaps" . ($o{query} // ''),
        headers => { 'Content-Type' => 'application/json' },
        body => encode_json({ metadata => { name => $name },
                              data => { v => $o{data} // 'x' } }));
}

is($s->request(POST => '/api/v1/namespaces', headers => { 'Content-Type' => 'application/json' },
    body => '{"metadata":{"name":"m"}}')->{status}, 201, 'namespace m');
is(create_cm('m', 'one')->{status}, 201, 'configmap one');

my %get = (verb => 'GET', group => '', version => 'v1', resource => 'configmaps',
    subresource => '', scope => 'resource', component => 'apiserver', dry_run => '',
    system_client => '');
my %list = (%get, verb => 'LIST', scope => 'namespace');
my %dur_get = %get;
delete @dur_get{qw(system_client)};

subtest 'the families, with kube\'s names and types' => sub {
    my ($m, $types) = scrape_metrics($s);
    my %want = (
        apiserver_request => 'counter', apiserver_request_duration_seconds => 'histogram',
        apiserver_response_sizes => 'histogram', apiserver_current_inflight_requests => 'gauge',
        apiserver_longrunning_requests => 'gauge', apiserver_storage_objects => 'gauge',
        apiserver_watch_events => 'counter', apiserver_watch_events_sizes => 'histogram',
        apiserver_terminated_watchers => 'counter', process_resident_memory_bytes => 'gauge',
        process_start_time_seconds => 'gauge', process_cpu_seconds => 'counter',
        process_open_fds => 'gauge', apiserver_flowcontrol_rejected_requests => 'counter',
        apiserver_flowcontrol_current_inqueue_requests => 'gauge',
        apiserver_flowcontrol_request_wait_duration_seconds => 'histogram');
    for my $f (sort keys %want) {
        is($types->{$f}, $want{$f}, "$f is a $want{$f}");
    }
    cmp_ok(metric_value($m, 'process_resident_memory_bytes'), '>', 1 << 20, 'resident memory');
    my $start = metric_value($m, 'process_start_time_seconds');
    cmp_ok($start, '>', time - 600, 'start time: recent');
    cmp_ok($start, '<=', time, 'start time: not in the future');
    ok(exists $m->{apiserver_current_inflight_requests}{'request_kind=mutating'},
        'in-flight mutating requests');
    is(metric_value($m, 'apiserver_storage_objects', resource => 'configmaps'), 1,
        'stored configmaps');
    is(metric_value($m, 'apiserver_storage_objects', resource => 'namespaces'), 5,
        'stored namespaces (default, kube-system, kube-public, kube-node-lease, m)');
};

subtest 'a GET, a LIST and a 404 move their series, across both workers' => sub {
    my ($m0) = scrape_metrics($s);
    my $n = 40;
    my %pids;
    for my $i (1 .. $n) {
        my $r = $s->request(GET => '/api/v1/namespaces/m/configmaps/one');
        is($r->{status}, 200, "GET $i");
        $pids{ $r->{headers}{'x-worker'} // '' } = 1;
    }
    is($s->request(GET => '/api/v1/namespaces/m/configmaps')->{status}, 200, 'LIST');
    is($s->request(GET => '/api/v1/namespaces/m/configmaps/none')->{status}, 404, 'a 404');
    is($s->request(GET => '/api/v1/namespaces/m/configmaps/one',
        headers => { 'User-Agent' => 'kube-scheduler/v1.26.5 (linux/amd64)' })->{status}, 200,
        'a GET from kube-scheduler');
    is($s->request(GET => '/api/v1/nosuchresources')->{status}, 404,
        'an unknown resource (not counted, as kube\'s installer has no route)');
    is($s->request(GET => '/version')->{status}, 200, '/version (not counted, as kube)');
    my ($m) = scrape_metrics($s);

    is(metric_value($m, 'apiserver_request_total', %get, code => 200)
        - metric_value($m0, 'apiserver_request_total', %get, code => 200), $n,
        "$n GETs counted, verb GET, scope resource, code 200");
    is(metric_value($m, 'apiserver_request_total', %list, code => 200)
        - metric_value($m0, 'apiserver_request_total', %list, code => 200), 1,
        'the LIST: verb LIST, scope namespace');
    is(metric_value($m, 'apiserver_request_total', %get, code => 404)
        - metric_value($m0, 'apiserver_request_total', %get, code => 404), 1,
        'the 404, with its code');
    is(metric_value($m, 'apiserver_request_total', %get, code => 200,
        system_client => 'kube-scheduler'), 1, 'system_client kube-scheduler');
    is(metric_value($m, 'apiserver_request_total', resource => 'nosuchresources'), 0,
        'no series for an unknown resource');
    is(metric_value($m, 'apiserver_request_total', subresource => '/version'), 0,
        'no series for /version');
    cmp_ok(metric_value($m, 'apiserver_request_total', subresource => '/readyz', verb => 'GET',
        component => '', scope => '', code => 200), '>=', 1, '/readyz: kube counts it');

    is(scalar(keys %pids), 2, 'both workers answered some of the GETs (X-Worker)');

    # histograms: cumulative, +Inf = count; the duration has no code label
    my $count = metric_value($m, 'apiserver_request_duration_seconds_count', %dur_get);
    is($count, metric_value($m0, 'apiserver_request_duration_seconds_count', %dur_get) + $n + 2,
        'duration count: the GETs, the 404 and kube-scheduler\'s');
    my @le = qw(0.005 0.025 0.05 0.1 0.2 0.4 0.6 0.8 1 1.25 1.5 2 3 4 5 6 8 10 15 20 30 45 60
        +Inf);
    my @b = map { metric_value($m, 'apiserver_request_duration_seconds_bucket', %dur_get, le => $_) }
        @le;
    is(scalar(grep { $b[$_] < $b[$_ - 1] } 1 .. $#b), 0, 'duration buckets are cumulative');
    is($b[-1], $count, 'the +Inf bucket is the count');
    cmp_ok($b[0], '>', 0, 'some GETs under 5 ms');
    my $sum = metric_value($m, 'apiserver_request_duration_seconds_sum', %dur_get);
    cmp_ok($sum, '>', 0, 'a positive sum');
    cmp_ok($sum, '<', $count * 60, 'a sum within the buckets');

    my %sz = %dur_get;
    delete $sz{dry_run};
    my $sizes = metric_value($m, 'apiserver_response_sizes_count', %sz);
    is($sizes, metric_value($m, 'apiserver_response_sizes_bucket', %sz, le => '+Inf'),
        'response sizes: +Inf = count');
    cmp_ok(metric_value($m, 'apiserver_response_sizes_bucket', %sz, le => '1000'), '>=', $n,
        'the GETs\' bodies are under 1000 bytes');
    cmp_ok(metric_value($m, 'apiserver_response_sizes_sum', %sz), '>', 100 * $n,
        'their bytes are summed');
};

subtest 'verbs as kube names them: POST, PATCH, DELETE, dry_run' => sub {
    is(create_cm('m', 'dry', query => '?dryRun=All')->{status}, 201, 'a dry-run create');
    is(create_cm('m', 'gone')->{status}, 201, 'a create');
    is($s->request(PATCH => '/api/v1/namespaces/m/configmaps/gone',
        headers => { 'Content-Type' => 'application/merge-patch+json' },
        body => '{"data":{"v":"y"}}')->{status}, 200, 'a merge patch');
    is($s->request(DELETE => '/api/v1/namespaces/m/configmaps/gone')->{status}, 200,
        'a delete');
    my ($m) = scrape_metrics($s);
    is(metric_value($m, 'apiserver_request_total', %get, verb => 'POST', dry_run => 'All',
        code => 201), 1, 'POST with dry_run All, scope resource');
    is(metric_value($m, 'apiserver_request_total', %get, verb => 'POST', code => 201), 2,
        'POST without a dry run (one and gone)');
    is(metric_value($m, 'apiserver_request_total', %get, verb => 'PATCH', code => 200), 1, 'PATCH');
    is(metric_value($m, 'apiserver_request_total', %get, verb => 'DELETE', code => 200), 1,
        'DELETE');
    is(metric_value($m, 'apiserver_storage_objects', resource => 'configmaps'), 1,
        'the dry run stored nothing');
};

subtest 'watches: long-running while open, their events, a terminated watcher' => sub {
    my $w = $s->watch('/api/v1/namespaces/m/configmaps?watch=1&resourceVersion=0');
    is($w->status, 200, 'a watch');
    my $e = $w->next_event(5);
    is($e && $e->{type}, 'ADDED', 'its first event');
    my %lr = (verb => 'WATCH', group => '', version => 'v1', resource => 'configmaps',
        subresource => '', scope => 'namespace', component => 'apiserver');
    my ($m) = scrape_metrics($s);
    is(metric_value($m, 'apiserver_longrunning_requests', %lr), 1, 'one long-running WATCH');
    cmp_ok(metric_value($m, 'apiserver_watch_events_total', group => '', version => 'v1',
        kind => 'ConfigMap'), '>=', 1, 'watch events of ConfigMaps');
    is(metric_value($m, 'apiserver_watch_events_sizes_count', kind => 'ConfigMap'),
        metric_value($m, 'apiserver_watch_events_total', kind => 'ConfigMap'),
        'one size per event');
    $w->close;
    ok(wait_until(sub {
        my ($m2) = scrape_metrics($s);
        metric_value($m2, 'apiserver_longrunning_requests', %lr) == 0
            && metric_value($m2, 'apiserver_request_total', %lr, code => 200, dry_run => '',
                system_client => '') >= 1;
    }, 5), 'closed: no longer long-running, and counted as a WATCH')
        or diag(join "\n", grep { /WATCH/ } split /\n/, $s->request(GET => '/metrics')->{body});

    # a watcher that reads nothing is cut
    my $sock = IO::Socket::INET->new(Proto => 'tcp') or die "socket: $!";
    setsockopt($sock, SOL_SOCKET, SO_RCVBUF, 4096) or die "setsockopt: $!";
    $sock->connect(pack_sockaddr_in($s->port, inet_aton('127.0.0.1'))) or die "connect: $!";
    syswrite($sock, "GET /api/v1/namespaces/m/configmaps?watch=true HTTP/1.1\r\n"
        . "Host: 127.0.0.1\r\nAccept: application/json\r\n\r\n");
    sleep 0.3;
    my $cut = 0;
    for my $i (1 .. 30) {
        is(create_cm('m', "big-$i", data => 'x' x 200_000)->{status}, 201, "big-$i");
        my ($m3) = scrape_metrics($s);
        last if ($cut = metric_value($m3, 'apiserver_terminated_watchers_total',
            resource => 'configmaps')) >= 1;
    }
    is($cut, 1, 'apiserver_terminated_watchers_total{resource="configmaps"}')
        or diag($s->request(GET => '/metrics')->{body} =~ /^(kube_apiserver_stream_ends.*)$/mg);
    close $sock;
};

# The GET count once it passed `before`: a worker counts a request in its
# log phase, after the response left, so the scrape that follows may reach
# another worker first.
sub count_after_get {
    my ($before) = @_;
    my $count;
    wait_until(sub {
        my ($m) = scrape_metrics($s);
        $count = metric_value($m, 'apiserver_request_total', %get, code => 200);
        $count > $before;
    }, 5);
    return $count;
}

subtest 'the counts survive a reload' => sub {
    my ($m0) = scrape_metrics($s);
    my $before = metric_value($m0, 'apiserver_request_total', %get, code => 200);
    ok($s->reload(wait_old => 1), 'reloaded');
    $s->request(GET => '/api/v1/namespaces/m/configmaps/one');
    is(count_after_get($before), $before + 1, 'the count went on');
};

subtest 'the counts of a worker killed with -9 stay counted' => sub {
    # each worker counts into its own series; /metrics sums them all
    my ($m0) = scrape_metrics($s);
    my $before = metric_value($m0, 'apiserver_request_total', %get, code => 200);
    my @old = $s->worker_pids;
    kill 'KILL', $old[0];
    ok(wait_until(sub {
        my @now = $s->worker_pids;
        @now == @old && !grep { $_ == $old[0] } @now }, 10), 'the master started another');
    $s->request(GET => '/api/v1/namespaces/m/configmaps/one');
    is(count_after_get($before), $before + 1, 'the count went on');
};

ok($s->stop, 'stopped cleanly');

# -- /metrics is system:monitoring's under RBAC ---------------------------------

{
    my $r = start_server(tls => 1, config => <<'EOF');
location / {
    kube_api;
    kube_authorization_mode RBAC;
}
EOF
    my $mon = client_cert('prom', 'system:monitoring');
    my $plain = client_cert('nomon');
    my $res = $r->request(GET => '/metrics', cert => $plain);
    is($res->{status}, 403, 'a user without system:monitoring: 403');
    like($res->{body}, qr/forbidden: User \\"nomon\\" cannot get path \\"\/metrics\\"/,
        'kube\'s message');
    my ($m) = scrape_metrics($r, cert => $mon);
    ok($m && exists $m->{apiserver_request_total}, 'a member of system:monitoring scrapes it');
    ok($r->stop, 'stopped cleanly');
}

done_testing;
