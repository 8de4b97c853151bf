# Authentication: the token file, service-account tokens (issued by
# TokenRequest, checked against the live ServiceAccount), an OIDC issuer
# with keys from a JWKS file, anonymous, and the review APIs; every
# credential that does not authenticate is a 401 Status, never anonymous.
use lib 't/lib';
use Test::Kube;
use File::Temp qw(tempdir);
use MIME::Base64 qw(encode_base64 decode_base64);

my $dir = tempdir(CLEANUP => 1);
$ENV{TEST_NGINX_AUTHN_DIR} = $dir;

sub b64url { my $s = encode_base64($_[0], ''); $s =~ tr{+/}{-_}; $s =~ s/=+$//; $s }
sub sh { my $out = `$_[0]`; die "failed: $_[0]" if $?; $out }

sh("openssl genrsa -out $dir/sa.key 2048 2>/dev/null");
sh("openssl ecparam -name prime256v1 -genkey -noout -out $dir/sa-ec.key 2>/dev/null");
sh("openssl genrsa -out $dir/other.key 2048 2>/dev/null");
sh("openssl genrsa -out $dir/idp.key 2048 2>/dev/null");

# The IdP's JWKS: n from the modulus, e = 65537.
my ($mod) = sh("openssl rsa -in $dir/idp.key -noout -modulus") =~ /Modulus=([0-9A-F]+)/;
open(my $f, '>', "$dir/idp-jwks.json") or die;
print $f encode_json({keys => [{kty => 'RSA', kid => 'idp-1', use => 'sig', alg => 'RS256',
    n => b64url(pack('H*', $mod)), e => 'AQAB'}]});
close $f;

open($f, '>', "$dir/tokens.csv") or die;
print $f "file-token,jane,uid-jane,\"dev,ops\"\n";
close $f;

open($f, '>', "$dir/authn.yaml") or die;
print $f <<"YAML";
apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://idp.example
    audiences: [kube]
    jwksFile: $dir/idp-jwks.json
  claimMappings:
    username: {claim: email, prefix: "oidc:"}
    groups: {claim: groups, prefix: "oidc:"}
YAML
close $f;

# A compact RS256 JWS of `$claims` signed with `$key`.
sub jwt {
    my ($key, $claims, $header) = @_;
    $header ||= {alg => 'RS256'};
    my $input = b64url(encode_json($header)) . '.' . b64url(encode_json($claims));
    open(my $in, '>', "$dir/input") or die;
    print $in $input;
    close $in;
    my $sig = sh("openssl dgst -sha256 -sign $key $dir/input");
    return "$input." . b64url($sig);
}

my $now = time;
$ENV{TEST_NGINX_OIDC_TOKEN} = jwt("$dir/idp.key", {iss => 'https://idp.example',
    aud => 'kube', exp => $now + 3600, email => 'ann@example.com', groups => ['admins']},
    {alg => 'RS256', kid => 'idp-1'});
$ENV{TEST_NGINX_OIDC_EXPIRED} = jwt("$dir/idp.key", {iss => 'https://idp.example',
    aud => 'kube', exp => $now - 3600, email => 'ann@example.com'});
$ENV{TEST_NGINX_OIDC_WRONG_AUD} = jwt("$dir/idp.key", {iss => 'https://idp.example',
    aud => 'other', exp => $now + 3600, email => 'ann@example.com'});
my %sa_claims = (iss => 'https://kube.test', aud => ['https://kube.test'],
    sub => 'system:serviceaccount:default:ghost', exp => $now + 3600, nbf => $now, iat => $now,
    'kubernetes.io' => {namespace => 'default', serviceaccount => {name => 'ghost', uid => 'u'}});
$ENV{TEST_NGINX_SA_GHOST} = jwt("$dir/sa.key", \%sa_claims);
$ENV{TEST_NGINX_SA_EXPIRED} = jwt("$dir/sa.key", {%sa_claims, exp => $now - 600});
$ENV{TEST_NGINX_SA_FOREIGN} = jwt("$dir/other.key", \%sa_claims);
$ENV{TEST_NGINX_SA_NONE} = b64url('{"alg":"none"}') . '.' . b64url(encode_json(\%sa_claims)) . '.';
$ENV{TEST_NGINX_SA_TRUNCATED} = substr($ENV{TEST_NGINX_SA_GHOST}, 0, 100);

my $http_config = <<"EOF2";
kube_token_auth_file $dir/tokens.csv;
kube_service_account_issuer https://kube.test;
kube_service_account_key_file $dir/sa-ec.key;
kube_service_account_signing_key_file $dir/sa.key;
kube_authentication_config $dir/authn.yaml;
EOF2
$ENV{TEST_NGINX_AUTHN_HTTP} = $http_config;

repeat_each(1);

add_block_preprocessor(sub {
    my $block = shift;
    $block->set_value(http_config => $http_config) unless defined $block->http_config;
    $block->set_value(tls => 1) unless defined $block->tls;
    $block->set_value(config => "location / {\n    kube_api;\n    kube_anonymous_auth on;\n}\n")
        unless defined $block->config;
});

run_tests();

# kubectl create token, then the token with kubectl, with the python client
# and through a TokenReview; a deleted ServiceAccount's token is a 401.
{
    my $s = start_server(tls => 1, http_config => $http_config,
                         config => "location / { kube_api; }");
    my ($rc, $out, $err) = kubectl($s, undef, qw(create serviceaccount robot));
    is($rc, 0, 'serviceaccount created') or diag $err;
    ($rc, my $token, $err) = kubectl($s, undef, qw(create token robot --duration=20m));
    is($rc, 0, 'kubectl create token') or diag $err;
    chomp $token;
    like($token, qr/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/, 'a compact JWS');
    my ($payload) = $token =~ /^[^.]+\.([^.]+)\./;
    $payload =~ tr{-_}{+/};
    my $claims = decode_json(decode_base64($payload . '=' x ((4 - length($payload) % 4) % 4)));
    is($claims->{'kubernetes.io'}{serviceaccount}{name}, 'robot', 'bound to robot');
    is($claims->{exp} - $claims->{iat}, 1200, '--duration=20m');
    ok($claims->{jti}, 'a jti');

    my $r = $s->request('GET', '/api/v1/namespaces/default/configmaps', cert => undef,
        headers => {Authorization => "Bearer $token"});
    is($r->{status}, 200, 'the service-account token lists configmaps') or diag $r->{body};

    ($rc, $out, $err) = kubectl($s, undef, 'auth', 'whoami', '-o', 'json', "--token=$token",
                                {cert => undef});
    is($rc, 0, 'kubectl auth whoami with the token') or diag $err;
    my $who = eval { decode_json($out) } || {};
    is($who->{status}{userInfo}{username}, 'system:serviceaccount:default:robot', 'whoami user');
    is_deeply($who->{status}{userInfo}{groups},
        ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        'whoami groups');
    like($who->{status}{userInfo}{extra}{'authentication.kubernetes.io/credential-id'}[0],
        qr/^JTI=/, 'credential-id extra');

    my $script = <<'PY';
import sys
from kubernetes import client
c = client.Configuration()
c.host = sys.argv[1]
c.verify_ssl = False
c.api_key = {"authorization": "Bearer " + sys.argv[2]}
api = client.CoreV1Api(client.ApiClient(c))
print(len(api.list_namespaced_config_map("default").items) >= 0)
PY
    ($rc, $out, $err) = run_command(['/usr/bin/python3', '-c', $script, $s->url, $token]);
    is($rc, 0, 'python client with the bearer token') or diag $err;
    like($out, qr/True/, 'python listed configmaps');

    $r = $s->request('POST', '/apis/authentication.k8s.io/v1/tokenreviews',
        headers => {'Content-Type' => 'application/json'},
        body => encode_json({apiVersion => 'authentication.k8s.io/v1', kind => 'TokenReview',
                             spec => {token => $token}}));
    is($r->{status}, 201, 'TokenReview created');
    my $review = decode_json($r->{body});
    ok($review->{status}{authenticated}, 'the token is valid');
    is($review->{status}{user}{username}, 'system:serviceaccount:default:robot', 'review user');
    is_deeply($review->{status}{audiences}, ['https://kube.test'], 'review audiences');

    $r = $s->request('POST', '/apis/authentication.k8s.io/v1/tokenreviews',
        headers => {'Content-Type' => 'application/json'},
        body => encode_json({spec => {token => 'nope'}}));
    $review = decode_json($r->{body});
    ok(!$review->{status}{authenticated}, 'a bad token is not authenticated');
    is($review->{status}{error}, 'invalid bearer token', 'review error');

    ($rc, $out, $err) = kubectl($s, undef, qw(delete serviceaccount robot));
    is($rc, 0, 'serviceaccount deleted');
    # as kube-apiserver's token cache does, a worker that authenticated the
    # token in the last 10 s still takes it; then it is refused
    my $refused = wait_until(sub {
        $s->request('GET', '/api/v1/namespaces/default/configmaps', cert => undef,
            headers => {Authorization => "Bearer $token"})->{status} == 401;
    }, 15);
    ok($refused, "a deleted ServiceAccount's token is refused once the cached success expires");
    like($s->log_since(0), qr/unable to authenticate the request .*serviceaccounts "robot" not found/,
        'the reason is logged');

    ($rc, $out, $err) = kubectl($s, undef, qw(create token robot));
    isnt($rc, 0, 'no token for a missing serviceaccount');
    like($err, qr/serviceaccounts "robot" not found/, "kube's NotFound");
    ok($s->stop, 'stopped');
}

__DATA__

=== TEST 1: a token-file user is authenticated with its groups
--- no_client_cert
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}
--- more_headers
Authorization: Bearer file-token
--- error_code: 201
--- response_body_json
{"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
 "status": {"userInfo": {"username": "jane", "uid": "uid-jane",
                         "groups": ["dev", "ops", "system:authenticated"]}}}



=== TEST 2: the bearer scheme is case-insensitive
--- no_client_cert
--- request
GET /api/v1/namespaces/default
--- more_headers
Authorization: bEaReR file-token
--- response_body_json
{"kind": "Namespace"}



=== TEST 3: anonymous requests are system:anonymous when allowed
--- no_client_cert
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}}}



=== TEST 4: an unknown token is a 401 even with anonymous access on, and is logged
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer not-a-token
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
--- error_log
unable to authenticate the request to "/api/v1/namespaces": invalid bearer token



=== TEST 5: an expired service-account token is a 401
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer $TEST_NGINX_SA_EXPIRED
--- error_code: 401
--- error_log
service account token has expired



=== TEST 6: the token of a ServiceAccount that does not exist is a 401
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer $TEST_NGINX_SA_GHOST
--- error_code: 401
--- error_log
serviceaccounts "ghost" not found



=== TEST 7: a token signed by another key is a 401
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer $TEST_NGINX_SA_FOREIGN
--- error_code: 401
--- error_log
square/go-jose: error in cryptographic primitive



=== TEST 8: alg none is a 401
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer $TEST_NGINX_SA_NONE
--- error_code: 401
--- error_log
unknown/unsupported algorithm



=== TEST 9: a truncated JWT is a 401
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer $TEST_NGINX_SA_TRUNCATED
--- error_code: 401



=== TEST 10: an OIDC user is mapped with its prefixes
--- no_client_cert
--- request
POST /apis/authentication.k8s.io/v1/selfsubjectreviews
{}
--- more_headers
Authorization: Bearer $TEST_NGINX_OIDC_TOKEN
--- error_code: 201
--- response_body_json
{"status": {"userInfo": {"username": "oidc:ann@example.com",
                         "groups": ["oidc:admins", "system:authenticated"]}}}



=== TEST 11: an expired OIDC token is a 401
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer $TEST_NGINX_OIDC_EXPIRED
--- error_code: 401
--- error_log
oidc: verify token: oidc: token is expired



=== TEST 12: an OIDC token for another audience is a 401
--- no_client_cert
--- request
GET /api/v1/namespaces
--- more_headers
Authorization: Bearer $TEST_NGINX_OIDC_WRONG_AUD
--- error_code: 401
--- error_log
oidc: expected audience in ["kube"] got ["other"]



=== TEST 13: the issuer's discovery document
--- no_client_cert
--- request
GET /.well-known/openid-configuration
--- response_headers
Content-Type: application/json
Cache-Control: public, max-age=3600
--- response_body_json eval
{issuer => "https://kube.test", jwks_uri => qr{^https://[^/]+/openid/v1/jwks$},
 response_types_supported => ["id_token"], subject_types_supported => ["public"],
 id_token_signing_alg_values_supported => ["ES256", "RS256"]}



=== TEST 14: the issuer's keys, with kube's key ids
--- no_client_cert
--- request
GET /openid/v1/jwks
--- response_headers
Content-Type: application/jwk-set+json
--- response_body_json eval
{keys => [{use => "sig", kty => "EC", kid => qr/^[\w-]{43}$/, alg => "ES256", crv => "P-256"},
          {use => "sig", kty => "RSA", kid => qr/^[\w-]{43}$/, alg => "RS256", e => "AQAB"}]}



=== TEST 15: the token subresource is in discovery as kube lists it
--- request
GET /api/v1
--- response_body_like
\{"name":"serviceaccounts/token","singularName":"","namespaced":true,"group":"authentication.k8s.io","version":"v1","kind":"TokenRequest","verbs":\["create"\]\}



=== TEST 16: a ServiceAccount to ask tokens of
--- request
POST /api/v1/namespaces/default/serviceaccounts
{"metadata":{"name":"builder"}}
--- error_code: 201



=== TEST 17: a TokenRequest shorter than ten minutes is invalid
--- request
POST /api/v1/namespaces/default/serviceaccounts/builder/token
{"spec":{"expirationSeconds":100}}
--- error_code: 422
--- response_body_json
{"reason": "Invalid", "message": "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 100: may not specify a duration less than 10 minutes"}



=== TEST 18: a TokenRequest bound to a missing pod is a 404
--- request
POST /api/v1/namespaces/default/serviceaccounts/builder/token
{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"nope"}}}
--- error_code: 404
--- response_body_json
{"reason": "NotFound", "message": "pods \"nope\" not found"}



=== TEST 19: a bad token file stops nginx -t with its name and line
--- http_config
kube_token_auth_file $TEST_NGINX_HTML_DIR/bad.csv;
--- user_files
>>> bad.csv
t1,alice,uid
t2,bob
--- must_die
--- error_log
must have at least 3 columns (token, user name, user uid), found 2 on line 2
