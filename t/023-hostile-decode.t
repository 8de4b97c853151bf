# Hostile bodies are decoded within bounds and exactly, as kube-apiserver
# decodes them, and no worker dies: JSON nested 200,000 and 10,001 deep
# (400, "exceeded max depth"), 10,000 deep (201); a protobuf ConfigMap whose
# fieldsV1 is 100,000 deep (201, as kube: the managed fields are replaced);
# billion-laughs YAML and YAML nested past go-yaml's 10,000 flow levels (400
# at once); invalid UTF-8 in JSON, YAML and protobuf bodies (U+FFFD, or
# go-yaml's refusal) after which the python client lists the namespace;
# Time and MicroTime at years 0000 and 9999 through JSON, YAML and protobuf;
# YAML float keys past float32 (".inf"); {"kind":5} (400); a Status echoing
# invalid UTF-8 from the path. The error log has no signal or sanitizer line.
use lib 't/lib';
use Test::Kube;
use Test::More;
use JSON::PP ();
use Time::HiRes qw(time);

my $s = start_server(tls => 1);
my @workers = $s->worker_pids;
my $ns = '/api/v1/namespaces/hostile';
my $cms = "$ns/configmaps";
my $leases = '/apis/coordination.k8s.io/v1/namespaces/hostile/leases';
my $PB = 'application/vnd.kubernetes.protobuf';

# call($method, $path, $body, $type, %headers) -> ($response, $json): the
# answer decoded as UTF-8, to compare what the server wrote byte for byte.
sub call {
    my ($method, $path, $body, $type, %h) = @_;
    my $r = $s->call($method, $path, $body, type => $type || 'application/json',
        headers => \%h);
    return ($r, eval { JSON::PP->new->utf8->allow_nonref->decode($r->{body}) } || {});
}

sub bad_request_ok {
    my ($r, $o, $message, $name) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    is($r->{status}, 400, "$name: 400") or diag(substr($r->{body}, 0, 400));
    is($o->{kind}, 'Status', "$name: a Status");
    is($o->{reason}, 'BadRequest', "$name: BadRequest");
    if (ref $message) {
        like($o->{message}, $message, "$name: message");
    } else {
        is($o->{message}, $message, "$name: message");
    }
}

sub nested { my ($n, $inner) = @_; return ('[' x $n) . ($inner // '') . (']' x $n) }

sub configmap_json {
    my ($name, $x) = @_;
    return qq({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"$name"},"x":$x});
}

my $unrecognized = 'the object provided is unrecognized (must be of type ConfigMap): ';
my $summary = '({"apiVersion":"v1","kind":"Con ...)';

my ($r, $o) = call(POST => '/api/v1/namespaces', '{"metadata":{"name":"hostile"}}');
is($r->{status}, 201, 'namespace for the test');

# --- JSON depth -------------------------------------------------------------

my $t0 = time;
($r, $o) = call(POST => $cms, nested(200000));
ok(length(nested(200000)) == 400000, 'the body is 400 KB');
bad_request_ok($r, $o, $unrecognized . "couldn't get version/kind; json parse error: invalid "
    . "character '[' exceeded max depth (5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b ...)",
    '200,000 nested arrays');
ok(time - $t0 < 2, '200,000 nested arrays are refused at once');

($r, $o) = call(POST => $cms, configmap_json('deep', nested(200000)));
bad_request_ok($r, $o, $unrecognized . "couldn't get version/kind; json parse error: invalid "
    . "character '[' exceeded max depth $summary", '200,000 nested arrays in a ConfigMap');

($r, $o) = call(POST => $cms, configmap_json('deep', nested(10000)));
bad_request_ok($r, $o, $unrecognized . "couldn't get version/kind; json parse error: invalid "
    . "character '[' exceeded max depth $summary", '10,001 levels');

($r, $o) = call(POST => $cms, configmap_json('deep', ('{"a":' x 10000) . '1' . ('}' x 10000)));
bad_request_ok($r, $o, $unrecognized . "couldn't get version/kind; json parse error: invalid "
    . "character '{' exceeded max depth $summary", '10,001 levels of objects');

($r, $o) = call(POST => $cms, configmap_json('deep', nested(9999)));
is($r->{status}, 201, '10,000 levels (the object and 9,999 arrays) are created')
    or diag(substr($r->{body}, 0, 400));
is($o->{metadata}{name}, 'deep', '... the ConfigMap, without the unknown field');
ok(!exists $o->{x}, '... the unknown field dropped');

# 10,000 levels in a place that is stored: managedFields' fieldsV1. kube
# keeps a valid one however deep; the server keeps one up to 1,000 levels
# (no schema's paths come near) and replaces a deeper one, as kube
# replaces managed fields it cannot decode.
sub deep_managed_fields {
    my ($name, $depth) = @_;
    my $fields = ('{"f:a":' x $depth) . '{}' . ('}' x $depth);
    return call(POST => $cms, qq({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"$name",)
        . qq("managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1",)
        . qq("fieldsType":"FieldsV1","fieldsV1":$fields}]},"data":{"a":"b"}}));
}
($r, $o) = deep_managed_fields('deepmf', 9994);
is($r->{status}, 201, 'a 10,000-deep fieldsV1 in JSON is decoded') or diag(substr($r->{body}, 0, 400));
ok(!grep({ ($_->{manager} // '') eq 'm' } @{ $o->{metadata}{managedFields} || [] }),
    '... and replaced');
($r, $o) = deep_managed_fields('deepmf2', 400);
is($r->{status}, 201, 'a 400-deep fieldsV1');
ok(grep({ ($_->{manager} // '') eq 'm' } @{ $o->{metadata}{managedFields} || [] }),
    '... is kept, as kube keeps it');
# too deep for the python client's decoder: gone before that client lists
is((call(DELETE => "$cms/$_"))[0]->{status}, 200, "$_ deleted") for qw(deepmf deepmf2);

# --- protobuf ---------------------------------------------------------------

# ConfigMap: metadata = 1 (name = 1, managedFields = 17), data = 2 (a map).
sub configmap_pb {
    my ($name, $data, $fieldsv1) = @_;
    my $meta = pb_bytes(1, $name);
    if (defined $fieldsv1) {
        $meta .= pb_bytes(17, pb_bytes(1, 'm') . pb_bytes(2, 'Update') . pb_bytes(3, 'v1')
            . pb_bytes(6, 'FieldsV1') . pb_bytes(7, pb_bytes(1, $fieldsv1)));
    }
    my $raw = pb_bytes(1, $meta);
    $raw .= pb_bytes(2, pb_bytes(1, $_) . pb_bytes(2, $data->{$_})) for sort keys %$data;
    return pb_envelope('v1', 'ConfigMap', $raw);
}

my $deep_fields = ('{"f:a":' x 100000) . '{}' . ('}' x 100000);
($r, $o) = call(POST => $cms, configmap_pb('pbdeep', { k => 'v' }, $deep_fields), $PB,
    Accept => 'application/json');
is($r->{status}, 201, 'protobuf with a 100,000-deep fieldsV1: created, as kube does')
    or diag(substr($r->{body}, 0, 400));
is($o->{data}{k}, 'v', '... with its data');
ok(!grep({ ($_->{manager} // '') eq 'm' } @{ $o->{metadata}{managedFields} || [] }),
    "... and not the client's managed fields");

($r, $o) = call(POST => $cms, configmap_pb('pbtrunc', {}) . 'x', $PB);
is($r->{status}, 400, 'protobuf with a length past the end: 400');

# --- YAML -------------------------------------------------------------------

my $lol = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n"
    . qq(  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n);
my $prev = 'a';
for my $n ('b' .. 'i') {
    $lol .= "  $n: &$n [" . join(',', ("*$prev") x 9) . "]\n";
    $prev = $n;
}
my $yaml_summary = '(61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)';
$t0 = time;
($r, $o) = call(POST => $cms, $lol, 'application/yaml');
bad_request_ok($r, $o, $unrecognized . "yaml: document contains excessive aliasing $yaml_summary",
    'billion laughs');
ok(time - $t0 < 2, 'billion laughs is refused at once');

my $yhead = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deepy\n";
($r, $o) = call(POST => $cms, $yhead . 'x: ' . nested(10001) . "\n", 'application/yaml');
bad_request_ok($r, $o, $unrecognized . "yaml: line 5: exceeded max depth of 10000 $yaml_summary",
    'YAML nested 10,001 flow levels');
($r, $o) = call(POST => $cms, $yhead . 'x: ' . ('[' x 200000) . "\n", 'application/yaml');
bad_request_ok($r, $o, $unrecognized . "yaml: line 5: exceeded max depth of 10000 $yaml_summary",
    'YAML nested 200,000 flow levels');
($r, $o) = call(POST => $cms, $yhead . "x:\n  y: " . nested(10000) . "\n", 'application/yaml');
bad_request_ok($r, $o, $unrecognized . "couldn't get version/kind; json parse error: invalid "
    . "character '[' exceeded max depth $yaml_summary", 'YAML whose JSON is 10,002 levels');
($r, $o) = call(POST => $cms, $yhead . 'x: ' . nested(9999) . "\n", 'application/yaml');
is($r->{status}, 201, 'YAML of 10,000 levels is created') or diag(substr($r->{body}, 0, 400));

($r, $o) = call(POST => $cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: floatkeys\n"
    . "data:\n  1e300: a\n  -1.0e40: b\n  1e-50: c\n  1.5: d\n  1e-45: e\n", 'application/yaml');
is($r->{status}, 201, 'YAML float keys') or diag($r->{body});
is_deeply($o->{data}, { '.inf' => 'a', '-.inf' => 'b', '0' => 'c', '1.5' => 'd', '1e-45' => 'e' },
    '... formatted as float32, as kube does');

# --- invalid UTF-8 ----------------------------------------------------------

my $bad = "a\xffb\xc3(c\xed\xa0\x80d";
my $fixed = "a\x{fffd}b\x{fffd}(c\x{fffd}\x{fffd}\x{fffd}d";
($r, $o) = call(POST => $cms, qq({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"utf8j"},)
    . qq("data":{"k":"$bad","k2":"\\ud800"}}));
is($r->{status}, 201, 'invalid UTF-8 in JSON: created') or diag($r->{body});
is($o->{data}{k}, $fixed, '... each invalid byte as U+FFFD, as kube stores it');
is($o->{data}{k2}, "\x{fffd}", '... a lone surrogate escape as U+FFFD');

($r, $o) = call(POST => $cms,
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: utf8y\ndata:\n  k: \"$bad\"\n",
    'application/yaml');
bad_request_ok($r, $o, $unrecognized . "yaml: invalid leading UTF-8 octet $yaml_summary",
    'invalid UTF-8 in YAML');

($r, $o) = call(POST => $cms, configmap_pb('utf8p', { k => $bad }), $PB,
    Accept => 'application/json');
is($r->{status}, 201, 'invalid UTF-8 in protobuf: created') or diag($r->{status} . ' ' . $r->{body});
is($o->{data}{k}, $fixed, '... each invalid byte as U+FFFD');

my ($rc, $stdout, $stderr) = python_client($s, <<'PY', { timeout => 60 });
import json
from kubernetes import client, config
config.load_kube_config()
items = client.CoreV1Api().list_namespaced_config_map('hostile').items
print(json.dumps({i.metadata.name: (i.data or {}) for i in items}))
PY
is($rc, 0, 'the python client lists the namespace') or diag($stderr);
my $listed = eval { JSON::PP->new->decode($stdout) } || {};
is($listed->{utf8j}{k}, $fixed, '... and reads the replaced characters');
is($listed->{utf8p}{k}, $fixed, '... of the protobuf body too');

# A Status echoing the path: valid UTF-8 (JSON::PP refuses anything else).
$r = $s->request(GET => "$cms/a%FFb");
is($r->{status}, 404, 'a name with an invalid byte: 404');
my $st = eval { JSON::PP->new->utf8->decode($r->{body}) };
ok($st, '... whose Status is valid UTF-8') or diag($@);
is($st->{details}{name}, "a\x{fffd}b", '... naming the object with U+FFFD');

# --- {"kind":5} -------------------------------------------------------------

($r, $o) = call(POST => $cms, '{"kind":5}');
bad_request_ok($r, $o, $unrecognized . "couldn't get version/kind; json parse error: json: cannot "
    . 'unmarshal number into Go struct field .kind of type string ({"kind":5})', '{"kind":5}');
($r, $o) = call(POST => $cms, '{"apiVersion":5,"kind":"ConfigMap","metadata":{"name":"a"}}');
bad_request_ok($r, $o, $unrecognized . "couldn't get version/kind; json parse error: json: cannot "
    . 'unmarshal number into Go struct field .apiVersion of type string ({"apiVersion":5,"kind":"Config ...)',
    'an apiVersion that is a number');

# --- extreme times ----------------------------------------------------------

my @times = (['9999-12-31T23:59:59.999999Z', 253402300799, 999999000],
    ['0000-01-01T00:00:00.000000Z', -62167219200, 0],
    ['0001-01-01T00:00:00.000000Z', -62135596800, 0],
    ['1816-03-01T12:00:00.000001Z', -4854600000, 1000]);
my $i = 0;
for my $t (@times) {
    my ($text) = @$t;
    $i++;
    ($r, $o) = call(POST => $leases, qq({"metadata":{"name":"j$i"},"spec":{"acquireTime":"$text"}}));
    is($r->{status}, 201, "JSON Lease at $text") or diag($r->{body});
    ($r, $o) = call(GET => "$leases/j$i");
    is($o->{spec}{acquireTime}, $text, '... read back exactly');
    ($r, $o) = call(POST => $leases, "metadata:\n  name: y$i\nspec:\n  acquireTime: \"$text\"\n",
        'application/yaml');
    is($o->{spec}{acquireTime}, $text, "YAML Lease at $text");
}

# Lease: metadata = 1, spec = 2 (acquireTime = 3: seconds = 1, nanos = 2).
sub twos { my $n = shift; return $n & ~0 }  # an int64 as its varint's unsigned value
$i = 0;
for my $t (@times) {
    my ($text, $secs, $nanos) = @$t;
    $i++;
    my $ts = pb_varint(1 << 3) . pb_varint(twos($secs)) . pb_int(2, $nanos);
    my $body = pb_envelope('coordination.k8s.io/v1', 'Lease',
        pb_bytes(1, pb_bytes(1, "p$i")) . pb_bytes(2, pb_bytes(3, $ts)));
    ($r, $o) = call(POST => $leases, $body, $PB, Accept => 'application/json');
    is($r->{status}, 201, "protobuf Lease at $text") or diag($r->{body});
    is($o->{spec}{acquireTime}, $text, '... shown exactly') or diag($r->{headers}{'content-type'} . ' ' . $r->{body});
    $r = $s->request(GET => "$leases/p$i", headers => { Accept => $PB });
    my $want = pb_varint(1 << 3) . pb_varint(twos($secs));
    ok(index($r->{body}, $want) >= 0, '... and sent back in protobuf with the same seconds');
}

my $events = '/api/v1/namespaces/hostile/events';
$i = 0;
for my $text ('9999-12-31T23:59:59Z', '0000-01-01T00:00:00Z') {
    $i++;
    ($r, $o) = call(POST => $events, qq({"metadata":{"name":"e$i"},"involvedObject":)
        . qq({"kind":"ConfigMap","name":"x","namespace":"hostile"},"firstTimestamp":"$text"}));
    $o->{metadata}{name} =~ /^e/ or diag($r->{body});
    is($o->{firstTimestamp}, $text, "Event (Time) at $text");
}

# --- no worker died ---------------------------------------------------------

my @bad_lines = $s->fatal_lines($s->error_log_since_start);
ok(!@bad_lines, 'no worker exited on a signal, no sanitizer report') or diag(join "\n", @bad_lines);
unlike($s->error_log_since_start, qr/exited on signal/, 'no "exited on signal" in error.log');
is_deeply([sort $s->worker_pids], [sort @workers], 'the same workers serve throughout');

done_testing();
