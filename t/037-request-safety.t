# Request limits and safety, as kube-apiserver's handler chain has them: a
# request that is not long-running gets kube_request_timeout or a shorter
# ?timeout= and is answered kube's 504 when it runs past it (a protobuf
# rendering of a 1 MB object off the loop, a write waiting for its group
# commit), the late answer dropped and the write still made; a ?timeout=
# that is no Go duration is a 400 before authentication; a watch has no
# timeout. A 4 MiB body is a 413, 100,000-deep JSON and YAML are 400s and
# the workers live on. kube_cors_allowed_origins gives an allowed Origin
# kube's Access-Control-* headers and answers its preflight 204 before
# authentication; other origins get none. Every answer carries
# Cache-Control: no-cache, private. Texts are kube-apiserver 1.26's.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Time::HiRes qw(time sleep);

my $s = start_server(config => <<'EOF');
kube_cors_allowed_origins ^https://allowed\.example$ //localhost(:|$);
location / {
    kube_api;
    kube_anonymous_auth on;
}
location /api/v1/namespaces/slow/ {
    kube_api;
    kube_anonymous_auth on;
    kube_request_timeout 1ms;
}
location /api/v1/namespaces/private/ {
    kube_api;
}
EOF
my @workers = $s->worker_pids;
my $PB = 'application/vnd.kubernetes.protobuf';

for my $ns (qw(lim slow)) {
    my $r = $s->call(POST => '/api/v1/namespaces', qq({"metadata":{"name":"$ns"}}));
    is($r->{status}, 201, "namespace $ns");
}

# --- the request deadline ------------------------------------------------------

my $timeout_body = '{"metadata":{},"status":"Failure","message":"Timeout: request did not '
    . 'complete within the allotted timeout","reason":"Timeout","details":{},"code":504}' . "\n";

sub timed_out_ok {
    my ($r, $name) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    is($r->{status}, 504, "$name: 504") or diag(substr($r->{body}, 0, 300));
    is($r->{body}, $timeout_body, "$name: kube's Status, without kind, and a newline");
    is($r->{headers}{'content-type'}, 'text/plain; charset=utf-8', "$name: the type Go sniffs");
    is($r->{headers}{'cache-control'}, 'no-cache, private', "$name: Cache-Control");
    is($r->{headers}{connection}, 'close', "$name: the connection is not reused");
}

# a ConfigMap of about 1 MB, whose protobuf is rendered off the loop
my $data = join(',', map { qq("k$_":") . ('x' x 100) . '"' } 1 .. 9000);
my $r = $s->call(POST => '/api/v1/namespaces/lim/configmaps?timeout=1h',
    qq({"metadata":{"name":"big"},"data":{$data}}));
is($r->{status}, 201, 'a 1 MB ConfigMap') or diag(substr($r->{body}, 0, 300));
# where every request has 1 ms, the create may outlast it: it is made all the same
$r = $s->call(POST => '/api/v1/namespaces/slow/configmaps',
    qq({"metadata":{"name":"big"},"data":{$data}}));
like($r->{status}, qr/^(201|504)$/, 'a 1 MB ConfigMap where requests have 1 ms: 201 or 504');
ok(wait_until(sub { $s->call(GET => '/api/v1/namespaces/slow/configmaps/big')->{status} == 200 }, 5),
    '... and it is created');

my $o;
(undef, $o, $r) = $s->call(GET => '/api/v1/namespaces/lim/configmaps/big?timeout=1ms', undef,
    headers => { Accept => $PB });
timed_out_ok($r, '?timeout=1ms on a protobuf rendering');
$r = $s->call(GET => '/api/v1/namespaces/lim/configmaps/big', undef, headers => { Accept => $PB });
is($r->{status}, 200, 'the same read with the default timeout (60 s) is answered');
like($r->{body}, qr/^k8s\0/, '... in protobuf');
$r = $s->call(GET => '/api/v1/namespaces/lim/configmaps/big?timeout=0', undef, headers => { Accept => $PB });
is($r->{status}, 200, '?timeout=0 is the default timeout, as in kube');
$r = $s->call(GET => '/api/v1/namespaces/lim/configmaps/big?timeout=-5s', undef, headers => { Accept => $PB });
is($r->{status}, 200, 'a negative ?timeout= is the default timeout too');

$r = $s->call(GET => '/api/v1/namespaces/slow/configmaps/big', undef, headers => { Accept => $PB });
timed_out_ok($r, 'kube_request_timeout 1ms');
$r = $s->call(GET => '/api/v1/namespaces/slow/configmaps/big?timeout=1h', undef, headers => { Accept => $PB });
timed_out_ok($r, 'a ?timeout= past kube_request_timeout is capped by it');
$r = $s->call(GET => '/api/v1/namespaces/slow/configmaps/big');
is($r->{status}, 200, 'what is answered at once is never timed out');

# A write waits for its group commit off the loop: with 1 ms it may be
# answered 504 while the write goes on; the object is then stored all the same.
my ($timed_out, $name);
for my $i (1 .. 40) {
    $r = $s->call(POST => '/api/v1/namespaces/lim/configmaps?timeout=1ms',
        qq({"metadata":{"name":"late-$i"},"data":{"k":"v"}}));
    if ($r->{status} == 504) {
        ($timed_out, $name) = ($r, "late-$i");
        last;
    }
    is($r->{status}, 201, "a create in time is created (late-$i)") or last;
}
SKIP: {
    skip 'no commit outlasted 1 ms', 6 unless $timed_out;
    timed_out_ok($timed_out, 'a create whose commit outlasted ?timeout=1ms');
    ok(wait_until(sub { $s->call(GET => "/api/v1/namespaces/lim/configmaps/$name")->{status} == 200 }, 5),
        '... its late answer was dropped, and the write was made');
}

my $invalid = 'invalid timeout specified in the request URL - time: ';
for my $case (['abc', 'invalid duration "abc"'], ['1x', 'unknown unit "x" in duration "1x"'],
              ['1', 'missing unit in duration "1"'], ['5.5.5s', 'missing unit in duration "5.5.5s"']) {
    my ($t, $why) = @$case;
    (undef, $o, $r) = $s->call(GET => "/api/v1/namespaces/lim/configmaps?timeout=$t");
    is($r->{status}, 400, "?timeout=$t: 400");
    json_subset_ok($o, { kind => 'Status', apiVersion => 'v1', status => 'Failure', code => 400,
        reason => 'BadRequest', message => $invalid . $why }, "?timeout=$t: kube's message");
}
$r = $s->call(GET => '/api/v1/namespaces/private/configmaps');
is($r->{status}, 401, 'an anonymous request where anonymous is off: 401');
(undef, $o, $r) = $s->call(GET => '/api/v1/namespaces/private/configmaps?timeout=abc');
is($r->{status}, 400, '... with a bad ?timeout=, 400 first: the deadline comes before authentication');
(undef, $o, $r) = $s->call(GET => '/version?timeout=abc');
is($r->{status}, 400, 'non-resource paths have the deadline too');
$r = $s->call(GET => '/api/v1/namespaces/lim/configmaps?watch=1&timeoutSeconds=1&timeout=abc');
is($r->{status}, 200, 'a watch is long-running: no deadline, ?timeout= unread');

# --- bodies ----------------------------------------------------------------------

(undef, $o, $r) = $s->call(POST => '/api/v1/namespaces/lim/configmaps',
    '{"metadata":{"name":"huge"},"data":{"k":"' . ('x' x (4 * 1024 * 1024)) . '"}}');
is($r->{status}, 413, 'a 4 MiB body: 413');
json_subset_ok($o, { kind => 'Status', reason => 'RequestEntityTooLarge', code => 413,
    message => 'Request entity too large: limit is 3145728' }, "... kube's Status");

my $unrecognized = 'the object provided is unrecognized (must be of type ConfigMap): ';
(undef, $o, $r) = $s->call(POST => '/api/v1/namespaces/lim/configmaps',
    ('[' x 100000) . (']' x 100000));
is($r->{status}, 400, '100,000-deep JSON: 400');
is($o->{message}, $unrecognized . "couldn't get version/kind; json parse error: invalid character "
    . "'[' exceeded max depth (5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b ...)",
    "... kube's message");
(undef, $o, $r) = $s->call(POST => '/api/v1/namespaces/lim/configmaps',
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\nx: "
        . ('[' x 100000) . (']' x 100000) . "\n", type => 'application/yaml');
is($r->{status}, 400, '100,000-deep YAML: 400');
is($o->{message}, $unrecognized . 'yaml: line 5: exceeded max depth of 10000 '
    . '(61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)', "... kube's message");
$r = $s->call(GET => '/readyz');
is($r->{status}, 200, 'the server is alive after them');
is_deeply([sort $s->worker_pids], [sort @workers], '... with the same workers');

# --- CORS ------------------------------------------------------------------------

my %cors = (
    'access-control-allow-methods' => 'POST, GET, OPTIONS, PUT, DELETE, PATCH',
    'access-control-allow-headers' => 'Content-Type, Content-Length, Accept-Encoding, '
        . 'X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
    'access-control-expose-headers' => 'Date',
    'access-control-allow-credentials' => 'true',
);

sub cors_ok {
    my ($r, $origin, $name) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    is($r->{headers}{'access-control-allow-origin'}, $origin, "$name: the origin is echoed");
    is($r->{headers}{$_}, $cors{$_}, "$name: $_") for sort keys %cors;
}

for my $origin ('https://allowed.example', 'http://localhost:8001') {
    $r = $s->call(OPTIONS => '/api/v1/namespaces/private/configmaps', undef, headers => {
        Origin => $origin, 'Access-Control-Request-Method' => 'GET',
        'Access-Control-Request-Headers' => 'authorization' });
    is($r->{status}, 204, "a preflight from $origin: 204, before authentication");
    is($r->{body}, '', '... no body');
    cors_ok($r, $origin, 'preflight');
    is($r->{headers}{'cache-control'}, 'no-cache, private', 'preflight: Cache-Control');
}

$r = $s->call(GET => '/api/v1/namespaces/lim/configmaps?limit=1', undef,
    headers => { Origin => 'https://allowed.example' });
is($r->{status}, 200, 'a simple request from an allowed origin');
cors_ok($r, 'https://allowed.example', 'simple request');
$r = $s->call(GET => '/api/v1/namespaces/private/configmaps', undef,
    headers => { Origin => 'https://allowed.example' });
is($r->{status}, 401, 'an unauthenticated one: 401');
cors_ok($r, 'https://allowed.example', '401');

for my $origin ('https://allowed.example.evil', 'https://other.example') {
    $r = $s->call(GET => '/api/v1/namespaces/lim/configmaps?limit=1', undef, headers => { Origin => $origin });
    is($r->{status}, 200, "$origin: served");
    ok(!grep(/^access-control-/, keys %{ $r->{headers} }), "$origin: no CORS header");
    $r = $s->call(OPTIONS => '/api/v1/namespaces/private/configmaps', undef, headers => { Origin => $origin });
    isnt($r->{status}, 204, "$origin: no preflight answer");
    ok(!grep(/^access-control-/, keys %{ $r->{headers} }), "$origin: ... and no CORS header");
}

# --- Cache-Control -----------------------------------------------------------------

for my $path ('/api/v1/namespaces', '/api', '/apis/apps/v1', '/version', '/readyz', '/livez/ping',
              '/openapi/v2', '/api/v1/namespaces/nope', '/api/v1/namespaces/private/configmaps') {
    $r = $s->call(GET => $path);
    is($r->{headers}{'cache-control'}, 'no-cache, private', "$path ($r->{status}): Cache-Control");
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'no alert, crit or emerg in error.log') or diag(join "\n", @bad);
ok($s->stop, 'graceful stop');

done_testing;
