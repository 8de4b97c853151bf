# Audit: kube's audit.k8s.io/v1 Policy decides each request's level, and
# the JSON-lines log has the Events kube-apiserver writes (the shapes were
# compared with a kube-apiserver 1.26 run with the same policy): a create
# at each level, a watch's ResponseStarted, a 401 and a 403, the Audit-Id
# header, `nginx -s reopen` after a rename and a reload losing no line.
use lib 't/lib';
use Test::Kube;
use Test::More;
use POSIX ();

my $Policy = <<'EOF';
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz", "/livez", "/healthz"]
- level: None
  namespaces: ["a-none"]
- level: Request
  namespaces: ["a-req"]
- level: RequestResponse
  namespaces: ["a-rr"]
- level: RequestResponse
  namespaces: ["a-omit"]
  omitStages: ["RequestReceived"]
- level: Metadata
EOF

my $AuditConfig = "kube_audit_policy_file policy.yaml;\nkube_audit_log logs/audit.log;";

sub audit_server {
    my (%opts) = @_;
    my $policy = delete $opts{policy} // $Policy;
    my $s = new_server(http_config => $AuditConfig, %opts);
    open my $f, '>', $s->root . '/conf/policy.yaml' or die $!;
    print $f $policy;
    close $f;
    return $s;
}

sub lines_of {
    my ($path) = @_;
    open my $f, '<', $path or return ();
    my @lines = map { decode_json($_) } grep { /\S/ } <$f>;
    close $f;
    return @lines;
}

# The events of one request, once `$n` of them are written.
sub events_of {
    my ($s, $id, $n, $file) = @_;
    $file //= $s->root . '/logs/audit.log';
    my @ev;
    wait_until(sub { @ev = grep { $_->{auditID} eq $id } lines_of($file); @ev >= $n }, 5);
    return @ev;
}

sub create_cm {
    my ($s, $ns, %o) = @_;
    return $s->request('POST', "/api/v1/namespaces/$ns/configmaps",
        body => qq({"metadata":{"name":"cm1"},"data":{"a":"b"}}),
        headers => { 'Content-Type' => 'application/json', %{ $o{headers} || {} } });
}

# -- the policy is checked when nginx starts ----------------------------------

{
    my $s = audit_server(tls => 1, policy => "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
        . "rules:\n- level: Foo\n");
    ok(!$s->start, 'a policy with an unknown level: nginx does not start');
    like($s->error_log_since_start . ($s->{start_error} // ''),
        qr{loading audit policy file: rules\[0\]\.level: Unsupported value: "Foo": supported values: "None", "Metadata", "Request", "RequestResponse": from file \S+/conf/policy\.yaml},
        'the error names the field, the value and the file, in kube\'s words');

    $s = audit_server(tls => 1, policy => "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n");
    ok(!$s->start, 'a policy without rules: nginx does not start');
    like($s->error_log_since_start . ($s->{start_error} // ''),
        qr{loaded illegal policy with 0 rules}, 'kube\'s message');
}

my $s = audit_server(tls => 1, config => <<'EOF');
location / {
    kube_api;
}
location /api/v1/namespaces/a-deny/ {
    kube_api;
    kube_anonymous_auth on;
    kube_authorization_mode AlwaysDeny;
}
EOF
$s->start or die "nginx failed to start: $s->{start_error}";
my $log = $s->root . '/logs/audit.log';

for my $ns (qw(a-none a-meta a-req a-rr a-omit)) {
    my $r = $s->request('POST', '/api/v1/namespaces', body => qq({"metadata":{"name":"$ns"}}),
        headers => { 'Content-Type' => 'application/json' });
    is($r->{status}, 201, "namespace $ns");
}

# -- a create at each level -----------------------------------------------------

subtest 'None: the answer has an Audit-Id, the log nothing' => sub {
    my $r = create_cm($s, 'a-none');
    is($r->{status}, 201);
    like($r->{headers}{'audit-id'}, qr/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        'a UUID');
    my $after = create_cm($s, 'a-meta', headers => { 'Audit-ID' => 'marker-none' });
    events_of($s, 'marker-none', 2);
    is(scalar(grep { $_->{auditID} eq $r->{headers}{'audit-id'} } lines_of($log)), 0,
        'no event for the None-level request');
};

subtest 'Metadata: RequestReceived and ResponseComplete, no objects' => sub {
    my $r = create_cm($s, 'a-meta', headers => { 'X-Forwarded-For' => '10.1.2.3, 10.4.5.6',
        'User-Agent' => 'audit-probe/1.0' });
    is($r->{status}, 409, 'cm1 exists already (made by the previous subtest)');
    $r = $s->request('POST', '/api/v1/namespaces/a-meta/configmaps',
        body => qq({"metadata":{"name":"cm2"}}), agent => 'audit-probe/1.0',
        headers => { 'Content-Type' => 'application/json', 'X-Forwarded-For' => '10.1.2.3, 10.4.5.6' });
    is($r->{status}, 201);
    my $id = $r->{headers}{'audit-id'};
    my @ev = events_of($s, $id, 2);
    is(scalar @ev, 2, 'two events');
    is_deeply([ map { $_->{stage} } @ev ], [qw(RequestReceived ResponseComplete)], 'stages');
    my ($rr, $rc) = @ev;
    json_subset_ok($rr, {
        kind => 'Event', apiVersion => 'audit.k8s.io/v1', level => 'Metadata', auditID => $id,
        requestURI => '/api/v1/namespaces/a-meta/configmaps', verb => 'create',
        user => { username => 'kube-admin', groups => ['system:masters', 'system:authenticated'] },
        sourceIPs => ['10.1.2.3', '10.4.5.6', '127.0.0.1'],
        objectRef => { resource => 'configmaps', namespace => 'a-meta', apiVersion => 'v1',
            name => ABSENT },
        responseStatus => ABSENT, annotations => ABSENT,
    }, 'RequestReceived: no name yet, no status, no annotations');
    is($rr->{stageTimestamp}, $rr->{requestReceivedTimestamp}, 'its stage time is the request\'s');
    like($rr->{requestReceivedTimestamp}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/,
        'microseconds, RFC 3339');
    json_subset_ok($rc, {
        level => 'Metadata',
        objectRef => { resource => 'configmaps', namespace => 'a-meta', name => 'cm2',
            apiVersion => 'v1' },
        responseStatus => { metadata => {}, code => 201 },
        requestObject => ABSENT, responseObject => ABSENT,
        annotations => { 'authorization.k8s.io/decision' => 'allow',
            'authorization.k8s.io/reason' => '' },
    }, 'ResponseComplete: the name from the body, the code, the decision');
    ok($rc->{stageTimestamp} ge $rc->{requestReceivedTimestamp}, 'completed after received');
};

subtest 'Request: the request object, no response object' => sub {
    my $r = create_cm($s, 'a-req');
    is($r->{status}, 201);
    my @ev = events_of($s, $r->{headers}{'audit-id'}, 2);
    is_deeply([ map { $_->{stage} } @ev ], [qw(RequestReceived ResponseComplete)], 'stages');
    ok(!exists $ev[0]{requestObject}, 'not at RequestReceived');
    json_subset_ok($ev[1], {
        level => 'Request', requestObject => { metadata => { name => 'cm1' }, data => { a => 'b' } },
        responseObject => ABSENT, responseStatus => { code => 201 },
    });
};

subtest 'RequestResponse: both objects' => sub {
    my $r = create_cm($s, 'a-rr');
    is($r->{status}, 201);
    my $uid = decode_json($r->{body})->{metadata}{uid};
    my @ev = events_of($s, $r->{headers}{'audit-id'}, 2);
    json_subset_ok($ev[1], {
        level => 'RequestResponse', stage => 'ResponseComplete',
        requestObject => { metadata => { name => 'cm1' } },
        responseObject => { kind => 'ConfigMap', apiVersion => 'v1',
            metadata => { name => 'cm1', namespace => 'a-rr', uid => $uid } },
    });

    $r = $s->request('GET', '/api/v1/namespaces/a-rr/configmaps/nope');
    is($r->{status}, 404);
    @ev = events_of($s, $r->{headers}{'audit-id'}, 2);
    json_subset_ok($ev[1], {
        responseStatus => { metadata => {}, status => 'Failure',
            message => 'configmaps "nope" not found', reason => 'NotFound',
            details => { name => 'nope', kind => 'configmaps' }, code => 404 },
        responseObject => { kind => 'Status', code => 404 },
    }, 'an error\'s Status in responseStatus, as kube');
};

subtest 'omitStages: RequestReceived is left out' => sub {
    my $r = create_cm($s, 'a-omit');
    is($r->{status}, 201);
    my @ev = events_of($s, $r->{headers}{'audit-id'}, 1);
    sleep 0.3;
    @ev = grep { $_->{auditID} eq $r->{headers}{'audit-id'} } lines_of($log);
    is_deeply([ map { $_->{stage} } @ev ], ['ResponseComplete'], 'only ResponseComplete');
};

# -- long-running, 401, 403, Audit-Id ------------------------------------------

subtest 'a watch: ResponseStarted, then ResponseComplete when it ends' => sub {
    my $r = $s->request('GET', '/api/v1/namespaces/a-meta/configmaps?watch=1&timeoutSeconds=1');
    is($r->{status}, 200);
    my @ev = events_of($s, $r->{headers}{'audit-id'}, 3);
    is_deeply([ map { $_->{stage} } @ev ], [qw(RequestReceived ResponseStarted ResponseComplete)],
        'three stages');
    is($ev[1]{verb}, 'watch');
    is_deeply($ev[1]{responseStatus}, { metadata => {}, code => 200 }, 'started with 200');
    ok($ev[2]{stageTimestamp} gt $ev[1]{stageTimestamp}, 'completed later');

    # a list is not long-running
    $r = $s->request('GET', '/api/v1/namespaces/a-meta/configmaps');
    @ev = events_of($s, $r->{headers}{'audit-id'}, 2);
    sleep 0.3;
    @ev = grep { $_->{auditID} eq $r->{headers}{'audit-id'} } lines_of($log);
    is_deeply([ map { $_->{stage} } @ev ], [qw(RequestReceived ResponseComplete)], 'a list: two');
};

subtest '401: one ResponseStarted event without a user, as kube' => sub {
    my $r = $s->request('GET', '/api/v1/namespaces/a-meta/configmaps', cert => undef);
    is($r->{status}, 401);
    my $id = $r->{headers}{'audit-id'};
    ok($id, 'the 401 has an Audit-Id');
    my @ev = events_of($s, $id, 1);
    sleep 0.3;
    @ev = grep { $_->{auditID} eq $id } lines_of($log);
    is(scalar @ev, 1, 'one event');
    json_subset_ok($ev[0], {
        level => 'Metadata', stage => 'ResponseStarted', verb => 'list', user => {},
        objectRef => { resource => 'configmaps', namespace => 'a-meta' },
        responseStatus => { metadata => {}, status => 'Failure', message => 'Unauthorized',
            reason => 'Unauthorized', code => 401 },
        annotations => ABSENT,
    });
};

subtest '403: the forbid decision, the Forbidden status' => sub {
    # anonymous: system:masters would pass even AlwaysDeny, as in kube
    my $r = $s->request('GET', '/api/v1/namespaces/a-deny/configmaps', cert => undef);
    is($r->{status}, 403);
    my @ev = events_of($s, $r->{headers}{'audit-id'}, 2);
    json_subset_ok($ev[1], {
        stage => 'ResponseComplete',
        responseStatus => { status => 'Failure', reason => 'Forbidden', code => 403,
            details => { kind => 'configmaps' } },
        annotations => { 'authorization.k8s.io/decision' => 'forbid',
            'authorization.k8s.io/reason' => 'Everything is forbidden.' },
    });
    ok(!exists $ev[0]{annotations}, 'RequestReceived comes before authorization');
};

subtest 'a client\'s Audit-ID is kept, in the header and the log' => sub {
    my $r = $s->request('GET', '/version', headers => { 'Audit-ID' => 'my-own-id' });
    is($r->{status}, 200);
    is($r->{headers}{'audit-id'}, 'my-own-id');
    my @ev = events_of($s, 'my-own-id', 2);
    json_subset_ok($ev[1], { verb => 'get', requestURI => '/version', objectRef => ABSENT,
        responseStatus => { code => 200 } });
};

subtest '/metrics counts events and levels' => sub {
    my $r = $s->request('GET', '/metrics');
    like($r->{body}, qr/^apiserver_audit_event_total [1-9]\d*$/m, 'events');
    like($r->{body}, qr/^apiserver_audit_level_total\{level="None"\} [1-9]/m, 'None levels');
    like($r->{body}, qr/^apiserver_audit_error_total\{plugin="buffered"\} 0$/m, 'nothing dropped');
};

# -- nginx -s reopen and reload lose nothing ------------------------------------

subtest 'reopen: the renamed file keeps what came before, the new one the rest' => sub {
    my @before = map { $s->request('GET', "/version", headers => { 'Audit-ID' => "before-$_" }) }
        1 .. 20;
    rename $log, "$log.1" or die $!;
    # written after the rename and before the reopen: still the old file
    $s->request('GET', '/version', headers => { 'Audit-ID' => 'between' });
    kill 'USR1', $s->master_pid;
    ok(wait_until(sub { -e $log }, 5), 'nginx made a new file');
    $s->request('GET', '/version', headers => { 'Audit-ID' => "after-$_" }) for 1 .. 20;
    events_of($s, 'after-20', 2);
    my @old = lines_of("$log.1");
    my @new = lines_of($log);
    for my $i (1 .. 20) {
        is(scalar(grep { $_->{auditID} eq "before-$i" } @old), 2, "before-$i in the old file");
        is(scalar(grep { $_->{auditID} eq "after-$i" } @new), 2, "after-$i in the new file");
    }
    is(scalar(grep { $_->{auditID} eq 'between' } @old, @new), 2, 'the one in between: once');
    is(scalar(grep { $_->{auditID} =~ /^after-/ } @old), 0, 'nothing new in the old file');
};

subtest 'reload: the old worker writes its open watch\'s last event before it exits' => sub {
    my $pid = fork // die;
    if ($pid == 0) {
        $s->request('GET', '/api/v1/namespaces/a-meta/configmaps?watch=1&timeoutSeconds=60',
            headers => { 'Audit-ID' => 'reload-watch' }, timeout => 30);
        POSIX::_exit(0);
    }
    events_of($s, 'reload-watch', 2);
    $s->request('GET', '/version', headers => { 'Audit-ID' => "pre-reload-$_" }) for 1 .. 20;
    ok($s->reload(wait_old => 1), 'reloaded, the old worker is gone');
    my @ev = events_of($s, 'reload-watch', 3);
    is_deeply([ map { $_->{stage} } @ev ], [qw(RequestReceived ResponseStarted ResponseComplete)],
        'the watch completed in the log');
    my @all = lines_of($log);
    is(scalar(grep { $_->{auditID} =~ /^pre-reload-/ } @all), 40, 'every event of the old worker');
    my $r = $s->request('GET', '/version', headers => { 'Audit-ID' => 'post-reload' });
    is(scalar(events_of($s, 'post-reload', 2)), 2, 'the new worker writes');
    waitpid $pid, 0;
};

ok($s->stop, 'stopped gracefully');
unlike($s->error_log_since_start, qr/\[(alert|crit|emerg)\]/, 'no alerts');

done_testing;
