# fieldValidation over HTTP and through kubectl: Strict refuses unknown and
# duplicated fields with kube-apiserver's 400, Warn (the default) and Ignore
# accept the object without them (Warn with one Warning header per field),
# a value of the wrong type is refused whatever the directive, and an unknown
# directive is a 422. Every kubectl 1.27-1.33 gets kube's messages from
# create -f, apply -f and replace -f (--validate=strict, its default),
# prints the warnings of --validate=warn, and stores nothing on an error.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();

my $s = start_server(tls => 1);

is($s->call('POST', '/api/v1/namespaces', '{"metadata":{"name":"fv"}}')->{status},
    201, 'namespace fv');
my $cms = '/api/v1/namespaces/fv/configmaps';

# --- Strict: 400 naming every field, nothing stored
my $r = $s->call('POST', "$cms?fieldValidation=Strict",
    '{"metadata":{"name":"s1","name":"s1","bogus":1},"data":{"k":"v"},"extra":{}}');
is($r->{status}, 400, 'Strict with unknown and duplicate fields: 400');
json_subset_ok(json_of($r->{body}), { kind => 'Status', status => 'Failure', reason => 'BadRequest',
    code => 400,
    message => 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding '
        . 'error: duplicate field "metadata.name", unknown field "metadata.bogus", '
        . 'unknown field "extra"' }, 'Strict: kube-apiserver\'s message, fields in order');
is($s->call('GET', "$cms/s1")->{status}, 404, 'Strict: nothing stored');

$r = $s->call('POST', "$cms?fieldValidation=Strict",
    '{"metadata":{"name":"s2"},"data":{"k":"v"}}');
is($r->{status}, 201, 'Strict with only known fields: 201');
is_deeply(warnings_of($r), [], 'Strict, nothing unknown: no warnings');

# --- Warn (also the default): 201, a Warning per field, the fields dropped
for my $case ([ 'fieldValidation=Warn', 'w1' ], [ '', 'w2' ]) {
    my ($query, $name) = @$case;
    my $label = $query || 'no directive';
    $r = $s->call('POST', "$cms?$query",
        qq({"metadata":{"name":"$name","bogus":1},"data":{"k":"v"},"extra":true}));
    is($r->{status}, 201, "$label: 201");
    is_deeply(warnings_of($r), [ '299 - "unknown field \"metadata.bogus\""',
        '299 - "unknown field \"extra\""' ], "$label: one Warning header per field");
    my $got = ($s->call('GET', "$cms/$name"))[1];
    ok(!exists $got->{extra} && !exists $got->{metadata}{bogus},
        "$label: the unknown fields are not stored");
    is($got->{data}{k}, 'v', "$label: the known fields are");
}

# --- Ignore: 201, silent, dropped
$r = $s->call('POST', "$cms?fieldValidation=Ignore",
    '{"metadata":{"name":"i1"},"data":{"k":"v"},"extra":true}');
is($r->{status}, 201, 'Ignore: 201');
is_deeply(warnings_of($r), [], 'Ignore: no warnings');
ok(!exists +($s->call(GET => "$cms/i1"))[1]{extra}, 'Ignore: the field is dropped');

# --- wrong types fail whatever the directive
for my $directive (qw(Ignore Warn Strict)) {
    $r = $s->call('POST', "/apis/apps/v1/namespaces/fv/deployments?fieldValidation=$directive",
        '{"metadata":{"name":"bad"},"spec":{"replicas":"3","selector":{"matchLabels":'
            . '{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":'
            . '[{"name":"c","image":"nginx"}]}}}}');
    is($r->{status}, 400, "$directive: a string replicas is 400");
    is(json_of($r->{body})->{message}, 'Deployment in version "v1" cannot be handled as a Deployment: '
        . 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of '
        . 'type int32', "$directive: Go's unmarshal message");
}
is($s->call('GET', '/apis/apps/v1/namespaces/fv/deployments/bad')->{status}, 404,
    'a wrong type stores nothing');

# --- YAML bodies and numbers the schema types as quantities
$r = $s->call('POST', '/api/v1/namespaces/fv/resourcequotas?fieldValidation=Strict',
    "metadata:\n  name: q\nspec:\n  hard:\n    pods: 4\n    cpu: 1.5\n",
    headers => { 'Content-Type' => 'application/yaml' });
is($r->{status}, 201, 'YAML quota with numeric amounts: 201');
is_deeply(json_of($r->{body})->{spec}{hard}, { pods => '4', cpu => '1500m' },
    'numeric quantities are stored in their canonical text');

# --- update: UpdateOptions, same rules
my $cm = ($s->call('GET', "$cms/s2"))[1];
$cm->{data}{k} = 'v2';
$cm->{unknownTop} = 1;
$r = $s->call('PUT', "$cms/s2?fieldValidation=Strict", encode_json($cm));
is($r->{status}, 400, 'update, Strict, unknown field: 400');
like(json_of($r->{body})->{message}, qr/strict decoding error: unknown field "unknownTop"$/,
    'update: the strict decoding message');
is(($s->call('GET', "$cms/s2"))[1]{data}{k}, 'v', 'update refused: unchanged');
$r = $s->call('PUT', "$cms/s2?fieldValidation=Warn", encode_json($cm));
is($r->{status}, 200, 'update, Warn: 200');
is_deeply(warnings_of($r), [ '299 - "unknown field \"unknownTop\""' ], 'update, Warn: warning');

$r = $s->call('PUT', "$cms/s2?fieldValidation=strict", encode_json($cm));
is($r->{status}, 422, 'an unknown directive: 422');
is(json_of($r->{body})->{message}, 'UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: '
    . 'Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    'the unknown directive: kube\'s message');

# --- Warn on objects with many unknown fields: kube's recorder writes at most
# 4,096 runes of warning text, past that every warning cut to 256 runes.
# kube-apiserver 1.26 answers this object with the same 97 headers (read by
# curl: HTTP::Tiny takes at most 64 header lines).
my $qe = "q\xc3\xa9" x 300;
my $body = qq({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge","$qe":1},)
    . join(',', map { sprintf '"x%03d%s":1', $_, 'y' x 20 } 0 .. 399) . '}';
$r = $s->call('POST', "$cms?fieldValidation=Warn&dryRun=All", $body, curl => 1);
is($r->{status}, 201, "401 unknown fields, Warn: 201") or diag($r->{body});
my $w = warnings_of($r);
is(scalar @$w, 97, '401 unknown fields: 97 Warning headers, as kube');
is($w->[0], '299 - "unknown field \"metadata.' . ("q\xc3\xa9" x 116) . '"',
    'the long one cut to 256 runes once the total passed 4,096');
is($w->[1], '299 - "unknown field \"x000yyyyyyyyyyyyyyyyyyyy\""', 'then the others in order');
is($w->[96], '299 - "unknown field \"x095yyyyyyyyyyyyyyyyyyyy\""', 'until the budget is spent');

$body = '{"metadata":{"name":"many"},' . join(',', map { qq("f$_":1) } 1 .. 50000) . '}';
$r = $s->call('POST', "$cms?fieldValidation=Warn&dryRun=All", $body, curl => 1);
is($r->{status}, 201, '50,000 unknown fields, Warn: 201');
$w = warnings_of($r);
my $bytes = 0;
$bytes += length for @$w;
ok(@$w > 100 && @$w < 500 && $bytes < 12 * 1024,
    sprintf('50,000 unknown fields: %d Warning headers of %d bytes', scalar @$w, $bytes));
is($w->[0], '299 - "unknown field \"f1\""', 'the first field first');

for my $v (kubectl_versions()) {
    (my $ns = "fv-$v") =~ s/\./-/g;
    is($s->call('POST', '/api/v1/namespaces', qq({"metadata":{"name":"$ns"}}))
        ->{status}, 201, "$v: namespace");
    my $bad = spew("bad-$v.yaml", <<"YAML");
apiVersion: v1
kind: ConfigMap
metadata:
  name: typo
  namespace: $ns
data:
  k: v
bogus: 1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: $ns
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        imagePullPolicyy: Always
YAML
    for my $verb (qw(create apply)) {
        my ($rc, $out, $err) = kubectl($s, $v, $verb, '-f', $bad);
        isnt($rc, 0, "$v $verb -f strict: fails");
        like($err, qr/\QError from server (BadRequest): error when creating "$bad": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"\E/,
            "$v $verb -f strict: kube's message for the ConfigMap");
        like($err, qr/\Qstrict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolicyy"\E/,
            "$v $verb -f strict: the nested path for the Deployment");
        is($s->call('GET', "/api/v1/namespaces/$ns/configmaps/typo")->{status}, 404,
            "$v $verb -f strict: nothing stored");
    }
    my ($rc, $out, $err) = kubectl($s, $v, 'create', '-f', $bad, '--validate=warn');
    is($rc, 0, "$v create --validate=warn: exit 0") or diag($err);
    like($err, qr/^Warning: unknown field "bogus"$/m, "$v --validate=warn: the warning printed");
    like($err, qr/^Warning: unknown field "spec\.template\.spec\.containers\[0\]\.imagePullPolicyy"$/m,
        "$v --validate=warn: the nested warning printed");
    like($out, qr{configmap/typo created}, "$v --validate=warn: created");
    my $got = ($s->call('GET', "/api/v1/namespaces/$ns/configmaps/typo"))[1];
    ok(!exists $got->{bogus}, "$v --validate=warn: the unknown field is not stored");

    # replace -f of the stored object with a new unknown field
    $got->{data}{k} = 'new';
    $got->{bogus} = 2;
    my $file = spew("replace-$v.json", encode_json($got));
    ($rc, $out, $err) = kubectl($s, $v, 'replace', '-f', $file);
    isnt($rc, 0, "$v replace -f strict: fails");
    like($err, qr/\Qstrict decoding error: unknown field "bogus"\E/,
        "$v replace -f strict: kube's message");
    is(($s->call('GET', "/api/v1/namespaces/$ns/configmaps/typo"))[1]{data}{k}, 'v',
        "$v replace -f strict: unchanged");
    ($rc, $out, $err) = kubectl($s, $v, 'replace', '-f', $file, '--validate=false');
    is($rc, 0, "$v replace --validate=false: exit 0") or diag($err);
    is(($s->call('GET', "/api/v1/namespaces/$ns/configmaps/typo"))[1]{data}{k}, 'new',
        "$v replace --validate=false: replaced, the unknown field dropped");
}

done_testing();
