# /healthz, /livez and /readyz as kube-apiserver serves them: named checks
# (ping, log, the storage's, informer-sync, the PostStartHooks
# bootstrap-controller, rbac/bootstrap-roles and
# priority-and-fairness-config-producer, shutdown), "ok" or the
# ?verbose list, ?exclude= with kube's warning for names that match no
# check, /<endpoint>/<check>, 404 for others, X-Content-Type-Options and
# Cache-Control; anonymous users may read the three endpoints
# (system:public-info-viewer) and not their checks. Right after a first
# start /readyz answers 500 until the bootstrap is done, as kube's does.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Time::HiRes qw(time sleep);

my $s = new_server(tls => 1, workers => 2, reuseport => 1, ready_path => undef,
    config => <<'EOF');
location / {
    kube_api;
    kube_anonymous_auth on;
    kube_authorization_mode RBAC;
}
EOF
ok($s->start, 'started') or BAIL_OUT($s->{start_error});

# Polled from the start: answers before the bootstrap ends fail with the
# checks' lines, reasons withheld.
my (@early, $ready);
my $t0 = time;
while (time - $t0 < 20) {
    my $r = $s->request('GET', '/readyz');
    next if $r->{status} == 599;
    if ($r->{status} == 200) {
        $ready = $r;
        last;
    }
    push @early, $r;
}
ok($ready, '/readyz turns 200 once started') or diag(explain(\@early));
note(scalar(@early) . ' answers before ready');
for my $r (@early[0 .. ($#early < 2 ? $#early : 2)]) {
    is($r->{status}, 500, 'not ready yet: 500, as kube answers');
    like($r->{body}, qr/\A(?:\[[+-]\]\S+ (?:ok|failed: reason withheld)\n)+readyz check failed\n\z/,
        '... every check listed, and "readyz check failed"');
    like($r->{body}, qr/^\[-\]/m, '... one of them failing');
    is($r->{headers}{'x-content-type-options'}, 'nosniff', '... nosniff');
}
# One worker is ready; the other may still be filling its caches.
is($s->wait_ready(20), undef, 'every worker ready');

sub get {
    my ($path, %o) = @_;
    return $s->request('GET', $path, %o);
}

sub text_ok {
    my ($r, $status, $body, $nosniff, $name) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    is($r->{status}, $status, "$name: $status");
    is($r->{body}, $body, "$name: body");
    is($r->{headers}{'content-type'}, 'text/plain; charset=utf-8', "$name: text/plain");
    is($r->{headers}{'x-content-type-options'}, $nosniff ? 'nosniff' : undef,
        "$name: X-Content-Type-Options " . ($nosniff ? 'nosniff' : 'absent'));
    is($r->{headers}{'cache-control'}, 'no-cache, private', "$name: Cache-Control");
}

my $common = "[+]ping ok\n[+]log ok\n[+]lmdb ok\n";
my $hooks = "[+]poststarthook/bootstrap-controller ok\n[+]poststarthook/rbac/bootstrap-roles ok\n"
    . "[+]poststarthook/priority-and-fairness-config-producer ok\n";

for my $endpoint (qw(healthz livez readyz)) {
    text_ok(get("/$endpoint"), 200, 'ok', 1, "/$endpoint");
    text_ok(get("/$endpoint", cert => undef), 200, 'ok', 1, "/$endpoint for anonymous");
    my $r = get("/$endpoint/ping", cert => undef);
    is($r->{status}, 403, "/$endpoint/ping is not for anonymous");
    like($r->{body}, qr{cannot get path \\"/$endpoint/ping\\"}, '... forbidden by RBAC');
    text_ok(get("/$endpoint/ping"), 200, 'ok', 0, "/$endpoint/ping");
    text_ok(get("/$endpoint/lmdb"), 200, 'ok', 0, "/$endpoint/lmdb (the storage's check)");
    text_ok(get("/$endpoint/poststarthook/rbac/bootstrap-roles"), 200, 'ok', 0,
        "/$endpoint/poststarthook/rbac/bootstrap-roles");
    text_ok(get("/$endpoint/nope"), 404, "404 page not found\n", 1, "/$endpoint/nope");
    text_ok(get("/$endpoint/"), 404, "404 page not found\n", 1, "/$endpoint/");
}

text_ok(get('/healthz?verbose'), 200, $common . $hooks . "healthz check passed\n", 1,
    '/healthz?verbose');
text_ok(get('/livez?verbose=1'), 200, $common . $hooks . "livez check passed\n", 1,
    '/livez?verbose=1');
text_ok(get('/readyz?verbose'), 200,
    $common . "[+]informer-sync ok\n" . $hooks . "[+]shutdown ok\nreadyz check passed\n", 1,
    '/readyz?verbose');
text_ok(get('/readyz?verbose', cert => undef), 200,
    $common . "[+]informer-sync ok\n" . $hooks . "[+]shutdown ok\nreadyz check passed\n", 1,
    '/readyz?verbose for anonymous');
text_ok(get('/readyz/informer-sync'), 200, 'ok', 0, '/readyz/informer-sync');
text_ok(get('/readyz/shutdown'), 200, 'ok', 0, '/readyz/shutdown');
text_ok(get('/livez/shutdown'), 404, "404 page not found\n", 1, '/livez/shutdown: readiness only');
text_ok(get('/healthz/informer-sync'), 404, "404 page not found\n", 1,
    '/healthz/informer-sync: readiness only');

text_ok(get('/readyz?verbose&exclude=lmdb&exclude=nope&exclude=x2'), 200,
    "[+]ping ok\n[+]log ok\n[+]lmdb excluded: ok\n[+]informer-sync ok\n" . $hooks
    . "[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for \"nope\",\"x2\"\n"
    . "readyz check passed\n", 1, '?exclude=, with a warning for unknown names');
text_ok(get('/livez?exclude=lmdb&exclude=nope'), 200, 'ok', 1, '?exclude= without verbose');

# Other methods, as kube's mux answers them (recorded from kube-apiserver
# 1.26.5 as a user allowed every verb): the health checks, /metrics, the
# OpenAPI documents, /apis and /apis/<group> answer any method; /version,
# /api, /api/v1 and /apis/<group>/<version> are GET only (405).
for my $case (['/healthz', 200], ['/readyz/informer-sync', 200], ['/livez/ping', 200],
              ['/metrics', 200], ['/openapi/v2', 200], ['/apis', 200], ['/apis/apps', 200],
              ['/version', 405], ['/api', 405], ['/api/v1', 405], ['/apis/apps/v1', 405]) {
    my ($path, $code) = @$case;
    for my $method (qw(POST PUT DELETE)) {
        is($s->request($method, $path)->{status}, $code, "$method $path: $code");
    }
}
is($s->request('POST', '/healthz', cert => undef)->{status}, 403,
    'POST /healthz anonymously: 403 (system:public-info-viewer may only get)');

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'no alert, crit or emerg in error.log') or diag(join "\n", @bad);
ok($s->stop, 'graceful stop');

done_testing;
