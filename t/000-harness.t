# Self-test of t/lib/Test/Kube.pm with plain nginx: the only file that runs
# without the kube module.
use lib 't/lib';
use Test::Kube;

no_kube();
repeat_each(2);

run_tests();

# --- hand-written tests with the exported helpers -----------------------------

{
    my $s = start_server(no_kube => 1, workers => 2, config => <<'EOF');
location / {
    return 200 "one";
}
EOF
    my $r = http_request('GET', $s->url . '/');
    is($r->{status}, 200, 'start_server: status');
    is($r->{body}, 'one', 'start_server: body');
    like($s->url, qr{^http://127\.0\.0\.1:\d+$}, 'url');
    my @workers = $s->worker_pids;
    is(scalar @workers, 2, 'worker_pids lists both workers');

    ok($s->reload(config => 'location / { return 200 "two"; }'), 'reload');
    is($s->request('GET', '/')->{body}, 'two', 'reload: the new config serves');
    my %old = map { $_ => 1 } @workers;
    ok(!grep({ $old{$_} } $s->worker_pids) || wait_until(sub {
        !grep { $old{$_} } $s->worker_pids
    }, 10), 'reload: the old workers exit');

    my $master = $s->master_pid;
    ok($s->restart, 'restart');
    isnt($s->master_pid, $master, 'restart: a new master');
    is($s->request('GET', '/')->{body}, 'two', 'restart keeps the config');

    my @killed = $s->kill9_all;
    is(scalar @killed, 3, 'kill9_all: master and two workers');
    ok(!(grep { pid_alive($_) } @killed), 'kill9_all: all gone');
    ok(!$s->is_running, 'kill9_all: not running');
    is($s->request('GET', '/')->{status}, 599, 'kill9_all: nothing listens');
    ok($s->start, 'start after kill9_all');
    is($s->request('GET', '/')->{body}, 'two', 'serving again');

    my @bad = $s->fatal_lines($s->error_log_since_start);
    ok(!@bad, 'error_log_since_start: no fatal lines') or diag(join "\n", @bad);

    my ($victim) = $s->worker_pids;
    kill 'KILL', $victim;
    ok(wait_until(sub { my @w = $s->worker_pids; @w == 2 && !grep { $_ == $victim } @w }),
        'the master replaces a killed worker');
    @bad = $s->fatal_lines($s->error_log_since_start);
    like(join("\n", @bad), qr/\[alert\].*exited on signal 9/,
        'fatal_lines reports the killed worker');

    ok($s->stop, 'stop is graceful');
    ok(!$s->is_running, 'stopped');
}

{
    my $s = new_server(no_kube => 1, config => 'bogus_directive on;');
    ok(!$s->start, 'a bad config does not start');
    like($s->{start_error}, qr/unknown directive "bogus_directive"/, 'start_error says why');
}

{
    my $s = start_server(no_kube => 1, tls => 1, config => <<'EOF');
location /whoami {
    return 200 "$ssl_client_s_dn";
}
location /hello {
    return 200 "hello";
}
EOF
    like($s->url, qr{^https://127\.0\.0\.1:\d+$}, 'tls url');
    my $r = http_request('GET', $s->url . '/whoami');
    is($r->{body}, 'CN=kube-admin,O=system:masters', 'https request presents the admin cert');
    $r = http_request('GET', $s->url . '/whoami', cert => undef);
    is($r->{status}, 200, 'https without a client cert');
    is($r->{body}, '', 'no client cert, no subject');
    $r = http_request('GET', $s->url . '/whoami', http2 => 1);
    is($r->{protocol}, 'HTTP/2', 'http2 => 1 negotiates h2');
    is($r->{body}, 'CN=kube-admin,O=system:masters', 'h2 with the admin cert');

    open my $fh, '<', $s->kubeconfig or die;
    my $kc = do { local $/; <$fh> };
    like($kc, qr/certificate-authority-data: \S+/, 'kubeconfig has the CA');
    like($kc, qr/client-key-data: \S+/, 'kubeconfig has the client key');
    like($kc, qr{server: https://127\.0\.0\.1:${\ $s->port}}, 'kubeconfig points at the server');

    my ($rc, $out, $err) = kubectl($s, undef, 'get', '--raw', '/whoami');
    is($rc, 0, 'kubectl get --raw over mTLS') or diag($err);
    is($out, 'CN=kube-admin,O=system:masters', 'kubectl presents the admin cert');

    open $fh, '<', $s->kubeconfig(cert => undef) or die;
    $kc = do { local $/; <$fh> };
    unlike($kc, qr/client-certificate-data/, 'kubeconfig(cert => undef) has no client cert');

    my $alice = client_cert('alice', 'devs', 'ops');
    ($rc, $out, $err) = kubectl($s, undef, 'get', '--raw', '/whoami', { cert => $alice });
    is($out, 'CN=alice,O=ops,O=devs', 'kubectl with another client cert') or diag($err);

    ($rc, $out, $err) = python_client($s, <<'EOF');
import os
from kubernetes import client, config
config.load_kube_config()
api = client.ApiClient()
resp = api.call_api('/whoami', 'GET', _preload_content=False)
print(resp[0].data.decode(), os.environ['KUBECONFIG'])
EOF
    is($rc, 0, 'python client runs') or diag($err);
    is($out, 'CN=kube-admin,O=system:masters ' . $s->kubeconfig . "\n",
        'python client talks mTLS with KUBECONFIG');
    ok($s->stop, 'tls server stops gracefully');
}

{
    my @versions = kubectl_versions();
    ok(scalar(grep { $_ eq '1.32' } @versions), 'kubectl 1.32 is installed')
        or diag("found: @versions");
    my $s = new_server(no_kube => 1);
    for my $v (@versions) {
        my ($rc, $out, $err) = kubectl($s, $v, 'version', '--client', '-o', 'json');
        is($rc, 0, "kubectl $v version --client") or diag($err);
        my $j = eval { decode_json($out) } || {};
        like($j->{clientVersion}{gitVersion} // '', qr/^v\Q$v\E\./, "kubectl $v is $v");
    }
}

{
    my $got = decode_json('{"a":1,"b":"1","c":[1,{"d":true}],"e":null,"f":{"g":"h"}}');
    is(json_subset($got, decode_json('{"a":1,"c":[1,{}],"e":null}')), undef,
        'json_subset: a subset matches');
    like(json_subset($got, decode_json('{"a":"1"}')), qr/^\$\.a: got 1, want "1"/,
        'json_subset: a number is not a string');
    like(json_subset($got, decode_json('{"b":1}')), qr/^\$\.b:/,
        'json_subset: a string is not a number');
    like(json_subset($got, decode_json('{"c":[1]}')), qr/^\$\.c: got 2 items, want 1/,
        'json_subset: arrays need the same length');
    like(json_subset($got, decode_json('{"c":[1,{"d":false}]}')), qr/^\$\.c\[1\]\.d:/,
        'json_subset: booleans compare');
    like(json_subset($got, decode_json('{"x":null}')), qr/^\$\.x: missing/,
        'json_subset: null needs the key');
    is(json_subset($got, { f => { g => qr/^h$/ }, z => ABSENT }), undef,
        'json_subset: regexes and ABSENT');
    like(json_subset($got, { f => ABSENT }), qr/^\$\.f: present/, 'json_subset: ABSENT fails');

    my $s = new_server(no_kube => 1);
    my @bad = $s->fatal_lines(join "\n",
        '2026/01/01 00:00:00 [alert] 1#1: worker process 2 exited on signal 11',
        '2026/01/01 00:00:00 [error] 1#1: *1 open() failed',
        '==12==ERROR: AddressSanitizer: heap-use-after-free',
        'src/x.cpp:3:5: runtime error: signed integer overflow');
    is(scalar @bad, 3, 'fatal_lines finds alert, ASan and UBSan lines');
}

__DATA__

=== TEST 1: return serves a body
--- config
    location /hello {
        return 200 "hello";
    }
--- request
GET /hello
--- response_body: hello
--- response_headers
Content-Type: text/plain
!X-Missing
--- no_error_log
[error]



=== TEST 2: static files come from user_files
--- config
    location /files/ {
        root html;
    }
--- user_files
>>> files/a.json
{"kind": "Thing",
 "items": [1, 2]}
--- request
GET /files/a.json
--- response_body
{"kind": "Thing",
 "items": [1, 2]}
--- response_body_json
{"kind": "Thing", "items": [1, 2]}
--- response_headers_like
Last-Modified: GMT$
Content-Length: ^\d+$



=== TEST 3: a missing file is a 404 and logs an error
--- config
    location /files/ {
        root html;
    }
--- request
GET /files/nope
--- error_code: 404
--- response_body_like: <title>404 Not Found</title>
--- error_log
open() "$TEST_NGINX_HTML_DIR/files/nope" failed



=== TEST 4: more_headers reach the server, a body gets a JSON content type
--- config
    location /echo {
        return 200 "$http_x_one|$http_x_two|$content_type|$request_method";
    }
--- request
POST /echo
{"a": 1}
--- more_headers
X-One: 1
X-Two: two words
--- response_body: 1|two words|application/json|POST



=== TEST 5: !Content-Type drops the default content type
--- config
    location /echo {
        return 200 "[$content_type]";
    }
--- request
PUT /echo
body
--- more_headers
!Content-Type
--- response_body: []



=== TEST 6: request_body_size makes an oversized body
--- config
    client_max_body_size 100;
    location /upload {
        return 200 "small enough";
    }
--- request
POST /upload
--- request_body_size: 1000
--- error_code: 413
--- error_log
client intended to send too large body: 1000 bytes



=== TEST 7: response_body_json matches a subset with types
--- config
    location /json {
        default_type application/json;
        return 200 '{"kind":"Status","code":404,"rv":"12","ok":true,"x":null,"meta":{"a":"b","c":"d"}}';
    }
--- request
GET /json
--- response_body_json
{"kind": "Status", "code": 404, "rv": "12", "ok": true, "x": null, "meta": {"c": "d"}}
--- response_headers
Content-Type: application/json



=== TEST 8: response_body_json with eval, regexes and ABSENT
--- config
    location /json {
        return 200 '{"message":"configmaps \\"a\\" not found","code":404}';
    }
--- request
GET /json
--- response_body_json eval
{ message => qr/^configmaps "a" not found$/, code => 404, reason => ABSENT }



=== TEST 9: TLS with h2 and the admin client certificate
--- tls
--- http2
--- config
    location /whoami {
        return 200 "$ssl_client_verify $ssl_client_s_dn $server_protocol";
    }
--- request
GET /whoami
--- response_body: SUCCESS CN=kube-admin,O=system:masters HTTP/2.0



=== TEST 10: a body over HTTP/2
--- http2
--- config
    location /upload {
        return 200 "$request_method $content_type $http_content_length";
    }
--- request
POST /upload
{"kind": "ConfigMap"}
--- response_body: POST application/json 21



=== TEST 11: TLS over HTTP/1.1 with the admin client certificate
--- tls
--- config
    location /whoami {
        return 200 "$ssl_client_verify $ssl_client_s_dn $server_protocol";
    }
--- request
GET /whoami
--- response_body: SUCCESS CN=kube-admin,O=system:masters HTTP/1.1



=== TEST 12: TLS without a client certificate
--- tls
--- no_client_cert
--- config
    location /whoami {
        return 200 "$ssl_client_verify";
    }
--- request
GET /whoami
--- response_body: NONE



=== TEST 13: TLS with a generated user certificate
--- tls
--- client_cert: jane team-a team-b
--- config
    location /whoami {
        return 200 "$ssl_client_verify $ssl_client_s_dn";
    }
--- request
GET /whoami
--- response_body: SUCCESS CN=jane,O=team-b,O=team-a



=== TEST 14: TLS with an untrusted client certificate
--- tls
--- untrusted_client_cert: mallory
--- config
    location /whoami {
        return 200 "$ssl_client_verify";
    }
--- request
GET /whoami
--- response_body_like: ^FAILED:



=== TEST 15: raw_request over TLS presents the admin cert
--- tls
--- config
    location /whoami {
        return 200 "$ssl_client_s_dn";
    }
--- raw_request eval
"GET /whoami HTTP/1.0\r\n\r\n"
--- response_body: CN=kube-admin,O=system:masters



=== TEST 16: raw_request sends bytes as they are
--- config
    location /raw {
        return 200 "$request_uri $server_protocol";
    }
--- raw_request eval
"GET /raw/../raw?x=1 HTTP/1.0\r\nHost: localhost\r\n\r\n"
--- response_body: /raw/../raw?x=1 HTTP/1.0



=== TEST 17: raw_request reads a chunked response on a kept-alive connection
--- config
    location /c.txt {
        root html;
        sub_filter 'hi' 'ho';
        sub_filter_types text/plain;
    }
--- user_files
>>> c.txt
hi
--- raw_request eval
"GET /c.txt HTTP/1.1\r\nHost: localhost\r\n\r\n"
--- response_body
ho
--- response_headers
Transfer-Encoding: chunked



=== TEST 18: a config nginx rejects must_die
--- config
    location / {
        no_such_directive on;
    }
--- must_die
--- error_log
unknown directive "no_such_directive"



=== TEST 19: kubectl runs as a block
--- kubectl: version --client -o json
--- stdout_json eval
{ clientVersion => { major => '1', minor => qr/^32/ } }



=== TEST 20: an older kubectl runs as a block
--- kubectl: version --client
--- kubectl_version: 1.27
--- stdout_like: GitVersion:"v1\.27\.



=== TEST 21: kubectl reports a failure through exit_code and stderr
--- kubectl: get --raw /nope
--- exit_code: 1
--- stderr_like: NotFound|not found



=== TEST 22: python runs as a block with KUBECONFIG
--- python
import os, sys
print(open(os.environ["KUBECONFIG"]).read().count("server: http://127.0.0.1:"), sys.stdin.read().strip())
--- stdin
from stdin
--- stdout
1 from stdin



=== TEST 23: $TEST_NGINX_* placeholders are replaced
--- config
    location /vars {
        return 200 "$server_port $TEST_NGINX_SERVER_PORT";
    }
--- request
GET /vars
--- response_body_like: ^(\d+) \1$



=== TEST 24: skip_nginx_restart keeps the running config
--- no_repeat
--- config
    location /vars {
        return 200 "changed";
    }
--- skip_nginx_restart
--- request
GET /vars
--- response_body_like: ^\d+ \d+$
