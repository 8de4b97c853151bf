# Bad input gets a clear 4xx Status with kube-apiserver's reason and wording,
# and changes nothing: malformed JSON and YAML, the wrong kind or apiVersion
# for the path, oversized bodies (Content-Length, chunked, HTTP/2), unknown
# media types, invalid names, labels and fields.
use lib 't/lib';
use Test::Kube;
use Test::More;
use JSON::PP ();

my $config = <<'EOF';
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_max_request_body_size 4k;
    }
EOF

my $s = start_server(config => $config, tls => 1);
my $path = '/api/v1/namespaces/bad/configmaps';

sub status_ok {
    my ($code, $reason, $message, $st, $o, $r, $name) = @_;
    is($st, $code, "$name: $code");
    is($o->{kind}, 'Status', "$name: a Status") or diag($r->{body});
    is($o->{reason}, $reason, "$name: $reason");
    if (ref $message) {
        like($o->{message}, $message, "$name: message");
    } elsif (defined $message) {
        is($o->{message}, $message, "$name: message");
    }
    like($r->{headers}{'content-type'}, qr{^application/json}, "$name: JSON, not an nginx page");
}

my ($st, $o, $r) = $s->call(POST => '/api/v1/namespaces', '{"metadata":{"name":"bad"}}');
is($st, 201, 'namespace for the test');

status_ok(400, 'BadRequest',
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1",)',
    $s->call(POST => $path, '{"apiVersion":"v1",'), 'truncated JSON');

status_ok(400, 'BadRequest', qr/^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character /,
    $s->call(POST => $path, 'definitely not json'), 'garbage');

status_ok(400, 'BadRequest', qr/must be of type ConfigMap/, $s->call(POST => $path, '[1,2,3]'),
    'a JSON array');

status_ok(400, 'BadRequest', qr/^the object provided is unrecognized \(must be of type ConfigMap\): yaml: line \d+: /,
    $s->call(POST => $path, "metadata:\n  name: x\n bad: [\n", headers => {'Content-Type' => 'application/yaml'}),
    'malformed YAML');

status_ok(400, 'BadRequest',
    'Namespace in version "v1" cannot be handled as a ConfigMap: the kind of the object (Namespace) does not match the kind of the resource (ConfigMap)',
    $s->call(POST => $path, '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"k"}}'),
    'the wrong kind for the path');

status_ok(400, 'BadRequest',
    'the API version in the data (apps/v1) does not match the expected API version (v1)',
    $s->call(POST => $path, '{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"v"}}'),
    'the wrong apiVersion for the path');

status_ok(400, 'BadRequest', qr/cannot unmarshal string into Go struct field ConfigMap.metadata/,
    $s->call(POST => $path, '{"metadata":"x"}'), 'metadata that is not an object');

status_ok(415, 'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    $s->call(POST => $path, 'name=x', headers => {'Content-Type' => 'application/x-www-form-urlencoded'}),
    'an unknown content type');

status_ok(406, 'NotAcceptable', qr/^406: Not Acceptable/,
    $s->call(GET => $path, undef, headers => {Accept => 'text/html'}), 'an Accept it cannot meet');

my $big = '{"metadata":{"name":"big"},"data":{"k":"' . ('x' x 5000) . '"}}';
status_ok(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 4096',
    $s->call(POST => $path, $big), 'a body over the limit (Content-Length)');

status_ok(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 4096',
    $s->call(POST => $path, $big, http2 => 1), 'a body over the limit (HTTP/2)');

{
    # chunked: no Content-Length, nginx's body reader enforces the limit
    my $url = $s->url . $path;
    my $out = `printf '%s' '$big' | curl -sk --cert-type PEM -H 'Transfer-Encoding: chunked' -H 'Content-Type: application/json' --data-binary \@- $url -o - -w '\\n%{http_code}'`;
    my ($body, $code) = $out =~ /^(.*)\n(\d+)$/s;
    is($code, 413, 'a chunked body over the limit: 413');
    my $obj = eval { decode_json($body) } || {};
    is($obj->{reason}, 'RequestEntityTooLarge', '... as a Status') or diag($out);
}

status_ok(422, 'Invalid', qr/^ConfigMap "labels" is invalid: metadata.labels: Invalid value: "not ok!": /,
    $s->call(POST => $path, '{"metadata":{"name":"labels","labels":{"a":"not ok!"}}}'), 'an invalid label value');

status_ok(422, 'Invalid', qr/^ConfigMap "keys" is invalid: data\[bad key!\]: Invalid value: "bad key!": /,
    $s->call(POST => $path, '{"metadata":{"name":"keys"},"data":{"bad key!":"v"}}'), 'an invalid data key');

status_ok(422, 'Invalid', qr/^Deployment.apps "d" is invalid: \[spec.selector: Required value, /,
    $s->call(POST => '/apis/apps/v1/namespaces/bad/deployments',
        '{"metadata":{"name":"d"},"spec":{"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}'),
    'a deployment without a selector');

status_ok(422, 'Invalid', qr/^ConfigMap "x{254}" is invalid: metadata.name: Invalid value: "x{254}": must be no more than 253 characters/,
    $s->call(POST => $path, '{"metadata":{"name":"' . ('x' x 254) . '"}}'), 'a name that is too long');

# nothing of the above was stored
($st, $o) = $s->call(GET => $path);
is($st, 200, 'list after the bad requests');
is_deeply($o->{items}, [], 'nothing was stored');
($st, $o) = $s->call(GET => '/apis/apps/v1/namespaces/bad/deployments');
is_deeply($o->{items}, [], 'no deployment was stored');

ok($s->stop, 'nginx stopped gracefully');
my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'no alert or crash in the error log') or diag(join "\n", @bad);

done_testing();
