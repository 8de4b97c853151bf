# The authenticating proxy (kube's request-header authenticator) and
# impersonation: X-Remote-* is believed only over the proxy's certificate
# (signed by the request-header CA, with an allowed CN) and stripped
# otherwise; the proxy's certificate is no x509 user, even though the
# handshake trusts its CA; Impersonate-* parts are each authorized, refused
# with kube's Forbidden message, and the request then acts as the user asked
# for. A repeated or oversized Authorization header is a 401.
use lib 't/lib';
use Test::Kube;

my $certs = cert_dir();

# The front proxy's CA, which the server trusts for the handshake
# (ssl_trusted_certificate) but not for x509 users, and two certificates it
# signed: the allowed proxy (fp-front-proxy) and another name.
front_proxy_cert($_) for qw(front-proxy other-proxy);

open(my $f, '>', "$certs/tokens.csv") or die;
print $f "jane-token,jane,uid-jane,\"dev\"\n";
close $f;

my $http_config = <<"EOF";
kube_token_auth_file $certs/tokens.csv;
kube_requestheader_client_ca_file $certs/front-proxy-ca.crt;
kube_requestheader_allowed_names front-proxy;
EOF

# Extra keys carry "." and "%": header names nginx drops unless told not to.
my $config = <<"EOF";
ssl_trusted_certificate $certs/front-proxy-ca.crt;
ignore_invalid_headers off;
location / {
    kube_api;
    kube_anonymous_auth on;
}
EOF

repeat_each(1);

add_block_preprocessor(sub {
    my $block = shift;
    $block->set_value(http_config => $http_config) unless defined $block->http_config;
    $block->set_value(tls => 1) unless defined $block->tls;
    $block->set_value(config => $config) unless defined $block->config;
});

run_tests();

# What the server's own log of request headers saw: the identity headers
# were removed before anything else ran.
{
    my $s = start_server(tls => 1,
        http_config => $http_config . "log_format remote "
            . "'\$uri|\$http_x_remote_user|\$http_impersonate_user|\$http_x_remote_group';\n",
        config => "access_log logs/remote.log remote;\n$config");
    my $log = $s->root . '/logs/remote.log';
    my $r = $s->request('GET', '/api/v1/namespaces/default', cert => 'fp-front-proxy',
        headers => {'X-Remote-User' => 'alice', 'Impersonate-User' => 'bob'});
    is($r->{status}, 200, 'the proxy, impersonating') or diag $r->{body};
    $r = $s->request('GET', '/api/v1/namespaces/default',
        headers => {'X-Remote-User' => 'mallory', 'X-Remote-Group' => 'system:masters'});
    is($r->{status}, 200, 'a client certificate sending X-Remote-User');
    my $seen = sub { join '', grep { m{^/api/v1/namespaces/default\|} }
                     split /^/, Test::Kube::_slurp($log) };
    ok(wait_until(sub { (() = $seen->() =~ /\n/g) >= 2 }, 5), 'both requests logged');
    is($seen->(), "/api/v1/namespaces/default|-|-|-\n" x 2,
       'X-Remote-* and Impersonate-* are gone once used or refused');

    # kubectl --as with older clients
    for my $v (grep { $_ eq '1.27' || $_ eq '1.29' } kubectl_versions()) {
        my ($rc, $out, $err) = kubectl($s, $v, qw(create configmap), "as-$v",
            '--as=system:serviceaccount:default:robot', '--as-group=builders');
        is($rc, 0, "kubectl $v create --as a service account") or diag $err;
        ($rc, $out, $err) = kubectl($s, $v, qw(get configmap), "as-$v", '--as=bob',
            '-o', 'jsonpath={.metadata.name}');
        is($out, "as-$v", "kubectl $v get --as");
    }
    ok($s->stop, 'stopped');
}

__DATA__

=== TEST 1: the proxy's user, groups and extras are the request's user
--- cert: fp-front-proxy
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}
--- more_headers
X-Remote-User: alice
X-Remote-Group: dev
X-Remote-Group: ops
X-Remote-Extra-Scopes: s1
X-Remote-Extra-Acme.com%2Fproject: p
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "alice",
  "groups": ["dev", "ops", "system:authenticated"],
  "extra": {"scopes": ["s1"], "acme.com/project": ["p"]}}}}
--- no_error_log
[error]



=== TEST 2: the proxy's user creates objects
--- cert: fp-front-proxy
--- request
POST /api/v1/namespaces/default/configmaps
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"by-alice"}}
--- more_headers
X-Remote-User: alice
--- error_code: 201
--- response_body_json
{"metadata": {"name": "by-alice"}}



=== TEST 3: the proxy's user comes before a bearer token (kube's union order)
--- cert: fp-front-proxy
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
X-Remote-User: alice
Authorization: Bearer jane-token
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "alice", "groups": ["system:authenticated"]}}}



=== TEST 4: X-Remote-User over a normal client certificate is ignored
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
X-Remote-User: mallory
X-Remote-Group: system:masters
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "kube-admin",
  "groups": ["system:masters", "system:authenticated"]}}}



=== TEST 5: X-Remote-User with a bearer token is ignored
--- no_client_cert
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
X-Remote-User: mallory
Authorization: Bearer jane-token
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "jane", "groups": ["dev", "system:authenticated"]}}}



=== TEST 6: X-Remote-User without any credential is anonymous
--- no_client_cert
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
X-Remote-User: mallory
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "system:anonymous"}}}



=== TEST 7: the proxy's certificate alone is no x509 user, though the handshake trusts it
--- cert: fp-front-proxy
--- request
GET /api/v1/namespaces
--- error_code: 401
--- response_body_json
{"kind": "Status", "reason": "Unauthorized", "code": 401}
--- error_log
unable to authenticate the request to "/api/v1/namespaces": verifying certificate failed: x509: unable to get local issuer certificate



=== TEST 8: a CN the allowed names lack is not a proxy
--- cert: fp-other-proxy
--- request
GET /api/v1/namespaces
--- more_headers
X-Remote-User: alice
--- error_code: 401
--- error_log
x509: subject with cn=other-proxy is not in the allowed list



=== TEST 9: admin impersonates a user with groups, extras and a uid
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
Impersonate-User: bob
Impersonate-Group: g1
Impersonate-Group: g2
Impersonate-Extra-Scopes: view
Impersonate-Extra-Acme.com%2Fteam: red
Impersonate-Uid: uid-bob
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "bob", "uid": "uid-bob",
  "groups": ["g1", "g2", "system:authenticated"],
  "extra": {"scopes": ["view"], "acme.com/team": ["red"]}}}}



=== TEST 10: a service account impersonated gets its groups
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
Impersonate-User: system:serviceaccount:default:robot
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "system:serviceaccount:default:robot",
  "groups": ["system:serviceaccounts", "system:serviceaccounts:default",
             "system:authenticated"]}}}



=== TEST 11: system:anonymous impersonated is unauthenticated
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
Impersonate-User: system:anonymous
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}}}



=== TEST 12: the proxy's user may impersonate too
--- cert: fp-front-proxy
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
X-Remote-User: alice
Impersonate-User: carol
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "carol", "groups": ["system:authenticated"]}}}



=== TEST 13: groups and extras without a user are kube's internal error
--- request
GET /api/v1/namespaces?limit=1
--- more_headers
Impersonate-Group: g1
Impersonate-Extra-Foo: v
--- error_code: 500
--- response_body_json
{"kind": "Status", "status": "Failure", "reason": "InternalError", "code": 500,
 "message": "Internal Server Error: \"/api/v1/namespaces?limit=1\": requested [{Group  g1    } {UserExtra  v  authentication.k8s.io/v1  foo}] without impersonating a user"}
--- error_log
impersonation: requested [{Group  g1    }



=== TEST 14: kubectl --as, --as-group and --as-uid with auth whoami
--- kubectl: auth whoami --as=bob --as-group=g1 --as-group=g2 --as-uid=u-1 -o json
--- stdout_json
{"kind": "SelfSubjectReview", "status": {"userInfo": {"username": "bob", "uid": "u-1",
  "groups": ["g1", "g2", "system:authenticated"]}}}



=== TEST 15: a refused impersonation is kube's Forbidden for that part
--- config
location / {
    kube_api;
    kube_authorization_mode AlwaysDeny;
}
--- request
GET /api/v1/namespaces
--- no_client_cert
--- more_headers
Authorization: Bearer jane-token
Impersonate-User: bob
--- error_code: 403
--- response_body_json
{"kind": "Status", "reason": "Forbidden", "code": 403,
 "message": "users \"bob\" is forbidden: User \"jane\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope: Everything is forbidden.",
 "details": {"name": "bob", "kind": "users"}}
--- error_log
"jane" may not impersonate users "bob"



=== TEST 16: a refused service-account impersonation names its namespace
--- config
location / {
    kube_api;
    kube_authorization_mode AlwaysDeny;
}
--- request
GET /api/v1/namespaces
--- no_client_cert
--- more_headers
Authorization: Bearer jane-token
Impersonate-User: system:serviceaccount:ns1:robot
--- error_code: 403
--- response_body_json
{"message": "serviceaccounts \"robot\" is forbidden: User \"jane\" cannot impersonate resource \"serviceaccounts\" in API group \"\" in the namespace \"ns1\": Everything is forbidden."}



=== TEST 17: a repeated Authorization header is a 401
--- no_client_cert
--- raw_request eval
"GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer jane-token\r\nAuthorization: Bearer jane-token\r\nConnection: close\r\n\r\n"
--- error_code: 401
--- response_body_json
{"kind": "Status", "reason": "Unauthorized", "code": 401}
--- error_log
unable to authenticate the request: repeated Authorization header



=== TEST 18: a repeated Authorization header over HTTP/2 is a 401
--- http2
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer jane-token
Authorization: Bearer other
--- error_code: 401
--- response_body_json
{"kind": "Status", "reason": "Unauthorized", "code": 401}



=== TEST 19: an Authorization header over large_client_header_buffers is a 401
--- no_client_cert
--- raw_request eval
"GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " . ("a" x 9000) . "\r\nConnection: close\r\n\r\n"
--- error_code: 401
--- response_body_json
{"kind": "Status", "reason": "Unauthorized", "code": 401}
--- error_log
Authorization header over large_client_header_buffers



=== TEST 20: another oversized header stays nginx's 400
--- no_client_cert
--- raw_request eval
"GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nX-Big: " . ("a" x 9000) . "\r\nConnection: close\r\n\r\n"
--- error_code: 400
--- response_body_json
{"kind": "Status", "code": 400}



=== TEST 21: configured username and uid headers
--- http_config
kube_requestheader_client_ca_file $TEST_NGINX_CERT_DIR/front-proxy-ca.crt;
kube_requestheader_username_headers X-User X-Remote-User;
kube_requestheader_uid_headers X-Remote-Uid;
--- cert: fp-front-proxy
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
X-Remote-User: alice
X-User: zed
X-Remote-Uid: 7
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "zed", "uid": "7", "groups": ["system:authenticated"]}}}



=== TEST 22: a request-header CA file without a certificate stops nginx
--- http_config
kube_requestheader_client_ca_file /dev/null;
--- must_die
--- error_log
"kube_requestheader_client_ca_file": "/dev/null": no PEM certificate or CRL could be read



=== TEST 23: a kube_requestheader_* list given twice stops nginx
--- http_config
kube_requestheader_client_ca_file $TEST_NGINX_CERT_DIR/front-proxy-ca.crt;
kube_requestheader_allowed_names a;
kube_requestheader_allowed_names b;
--- must_die
--- error_log
"kube_requestheader_allowed_names" directive is duplicate



=== TEST 24: without the CA file the headers mean nothing (and are warned about)
--- http_config
kube_requestheader_allowed_names front-proxy;
--- cert: fp-front-proxy
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
X-Remote-User: alice
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "front-proxy", "groups": ["system:authenticated"]}}}
--- error_log
"kube_requestheader_*" directives have no effect without "kube_requestheader_client_ca_file"
