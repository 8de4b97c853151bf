# The director: /api and /apis go to the dispatcher, /version, /healthz,
# /livez and /readyz are non-resource endpoints, and every other path is
# declined so that the rest of nginx (static files, proxy_pass) serves it.
use lib 't/lib';
use Test::Kube;

repeat_each(2);

my $config = <<'EOF';
    location / {
        kube_api;
        kube_anonymous_auth on;
        root $TEST_NGINX_HTML_DIR;
    }
    location /backend/ {
        kube_api;
        kube_anonymous_auth on;
        proxy_pass http://127.0.0.1:$TEST_NGINX_SERVER_PORT/static/;
    }
    location /static/ {
        alias $TEST_NGINX_HTML_DIR/;
    }
EOF

add_block_preprocessor(sub {
    my $block = shift;
    $block->set_value(no_error_log => "[error]") unless defined $block->no_error_log;
    $block->set_value(config => $config) unless defined $block->config;
});

run_tests();

__DATA__

=== TEST 1: a static file in the same location is served by nginx
--- user_files
>>> index.html
hello from nginx
--- request
GET /index.html
--- response_body
hello from nginx
--- response_headers
Content-Type: text/html



=== TEST 2: a missing static file gets nginx's own 404, not the API's
--- request
GET /nosuch.txt
--- error_code: 404
--- response_body_like: <html>
--- no_error_log
[alert]



=== TEST 3: proxy_pass in a kube_api location still proxies other paths
--- user_files
>>> hello.txt
proxied
--- request
GET /backend/hello.txt
--- response_body
proxied



=== TEST 4: /version is served by the module, indented
--- request
GET /version
--- response_body_json
{"major": "1", "minor": "32", "platform": "linux/amd64"}
--- response_body_like: ^\{\n  "major"
--- response_headers
Content-Type: application/json



=== TEST 5: /healthz answers ok
--- request
GET /healthz
--- response_body: ok
--- response_headers_like
Content-Type: text/plain



=== TEST 6: /livez answers ok
--- request
GET /livez
--- response_body: ok



=== TEST 7: /readyz?verbose lists the checks
--- request
GET /readyz?verbose
--- response_body_like: \[\+\]ping ok\n.*\[\+\]poststarthook/bootstrap-controller ok\n.*readyz check passed



=== TEST 8: /api goes to the dispatcher
--- request
GET /api
--- response_body_json
{"kind": "APIVersions", "versions": ["v1"]}



=== TEST 9: an unknown API group is a NotFound Status, never an HTML page
--- request
GET /apis/nosuch.example.com/v1/things
--- error_code: 404
--- response_body_json
{"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404,
 "message": "the server could not find the requested resource"}



=== TEST 10: an unknown resource of a known group version is a NotFound Status
--- request
GET /api/v1/nosuch
--- error_code: 404
--- response_body_json
{"kind": "Status", "reason": "NotFound", "details": {}}



=== TEST 11: a path that only starts like /api is not ours
--- request
GET /apiary.html
--- error_code: 404
--- response_body_like: <html>
--- no_error_log
[alert]



=== TEST 12: the API is served from a kube_api location that proxies other paths
--- request
GET /backend/../api/v1/namespaces/default
--- response_body_json
{"kind": "Namespace", "metadata": {"name": "default"}}



=== TEST 13: non-resource endpoints kube serves by go-restful refuse writes (the health checks answer any method, as kube's)
--- request
POST /version
{}
--- error_code: 405
--- response_body_json
{"kind": "Status", "reason": "MethodNotAllowed"}



=== TEST 14: kube_api serves only the location it is in
--- config
    location /api/ {
        kube_api;
        kube_anonymous_auth on;
    }
    location / {
        return 200 "other\n";
    }
--- request
GET /version
--- response_body
other
