# Authentication (x509 client certificates, anonymous) and authorization
# (AlwaysAllow, AlwaysDeny) as phases before the handler: rejections are
# Status objects with kube-apiserver's codes and messages.
use lib 't/lib';
use Test::Kube;
use IO::Socket::INET;

repeat_each(2);

add_block_preprocessor(sub {
    my $block = shift;
    $block->set_value(no_error_log => "[error]") unless defined $block->no_error_log;
});

run_tests();

# A rejected request with a body leaves the keep-alive connection usable:
# the body is discarded, and the next pipelined request is answered.
{
    my $s = start_server(config => "location / { kube_api; kube_anonymous_auth off; }");
    my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $s->port)
        or die "connect: $!";
    my $body = '{"kind":"Namespace","metadata":{"name":"x"}}';
    print $sock "POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n"
        . "Content-Type: application/json\r\nContent-Length: " . length($body) . "\r\n\r\n$body"
        . "GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    local $/;
    my $all = <$sock>;
    like($all, qr{^HTTP/1.1 401 .*"reason": "Unauthorized".*HTTP/1.1 401 }s,
        'both pipelined requests are answered on one connection');
    ok($s->stop, 'stopped');
}

__DATA__

=== TEST 1: an admin client certificate is authenticated and allowed
--- tls
--- config
    location / {
        kube_api;
    }
--- request
GET /api/v1/namespaces/default
--- response_body_json
{"kind": "Namespace", "metadata": {"name": "default"}}



=== TEST 2: no certificate and anonymous access off: 401 Unauthorized Status, indented
--- tls
--- no_client_cert
--- config
    location / {
        kube_api;
        kube_anonymous_auth off;
    }
--- request
GET /api/v1/namespaces
--- error_code: 401
--- response_body chomp
{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Unauthorized",
  "reason": "Unauthorized",
  "code": 401
}
--- response_headers
Content-Type: application/json



=== TEST 3: a certificate from an untrusted CA is refused with 401
--- tls
--- untrusted_client_cert: mallory system:masters
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
    }
--- request
GET /api/v1/namespaces
--- error_code: 401
--- response_body_json
{"kind": "Status", "reason": "Unauthorized", "code": 401}



=== TEST 4: 401 over HTTP/2 is a Status too
--- http2
--- no_client_cert
--- config
    location / {
        kube_api;
    }
--- request
GET /api/v1/namespaces
--- error_code: 401
--- response_body_json
{"kind": "Status", "reason": "Unauthorized"}



=== TEST 5: anonymous access when enabled
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
    }
--- request
GET /api/v1/namespaces/kube-system
--- response_body_json
{"kind": "Namespace", "metadata": {"name": "kube-system"}}



=== TEST 6: AlwaysDeny names the certificate's user (CN) in kube's forbidden message
--- tls
--- client_cert: alice devs
--- config
    location / {
        kube_api;
        kube_authorization_mode AlwaysDeny;
    }
--- request
GET /api/v1/namespaces/default
--- error_code: 403
--- response_body_json
{"kind": "Status", "reason": "Forbidden", "code": 403,
 "message": "namespaces \"default\" is forbidden: User \"alice\" cannot get resource \"namespaces\" in API group \"\" in the namespace \"default\": Everything is forbidden.",
 "details": {"name": "default", "kind": "namespaces"}}



=== TEST 7: AlwaysDeny for a namespaced list by the anonymous user
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_authorization_mode AlwaysDeny;
    }
--- request
GET /apis/apps/v1/namespaces/web/deployments
--- error_code: 403
--- response_body_json
{"message": "deployments.apps is forbidden: User \"system:anonymous\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"web\": Everything is forbidden.",
 "details": {"group": "apps", "kind": "deployments"}}



=== TEST 8: AlwaysDeny for a non-resource path
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_authorization_mode AlwaysDeny;
    }
--- request
GET /healthz
--- error_code: 403
--- response_body_json
{"reason": "Forbidden",
 "message": "forbidden: User \"system:anonymous\" cannot get path \"/healthz\": Everything is forbidden."}



=== TEST 9: a subresource is named resource/subresource in the message
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_authorization_mode AlwaysDeny;
    }
--- request
PUT /api/v1/namespaces/default/pods/p1/status
{}
--- error_code: 403
--- response_body_json
{"message": "pods \"p1\" is forbidden: User \"system:anonymous\" cannot update resource \"pods/status\" in API group \"\" in the namespace \"default\": Everything is forbidden."}



=== TEST 10: the mode is per location
--- config
    location /api/ {
        kube_api;
        kube_anonymous_auth on;
        kube_authorization_mode AlwaysDeny;
    }
    location / {
        kube_api;
        kube_anonymous_auth on;
    }
--- request
GET /version
--- response_body_json
{"major": "1"}



=== TEST 11: paths the director declines are not authenticated (static file, no cert)
--- tls
--- no_client_cert
--- user_files
>>> public.txt
public
--- config
    location / {
        kube_api;
        root $TEST_NGINX_HTML_DIR;
    }
--- request
GET /public.txt
--- response_body
public
