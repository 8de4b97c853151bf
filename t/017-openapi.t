# OpenAPI v2 and v3 over TLS: the documents, their ETags and caching headers
# as kube-apiserver sends them (raw requests), then what kubectl does with
# them. kubectl explain (1.27, 1.32, 1.33) shows our fields, types and
# descriptions; with every installed kubectl (1.27 to 1.33), create -f of a
# ConfigMap and a Deployment with the default --validate=strict succeeds and
# sends fieldValidation=Strict (the server said it validates, through the
# PATCH operation of the group-version's document), and apply -f creates a
# new object, then reports a second identical apply as unchanged.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();

my $s = start_server(tls => 1);

my $JSON = 'application/json';
my $PB_V2 = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

sub get {
    my ($path, %headers) = @_;
    return $s->request('GET', $path, headers => { Accept => $JSON, %headers });
}

# The -v=6 line of a request to $path with fieldValidation=Strict answered
# 201: "POST https://...?...fieldValidation=Strict 201 Created" up to 1.32,
# 'verb="POST" url="https://...?...fieldValidation=Strict" status="201 Created"'
# from 1.33.
sub sent_strict {
    my ($verb, $path) = @_;
    return qr{\b$verb\b\S*\ (?:url=)?"?https://[^/\s]+\Q$path\E\?
              [^\s"]*fieldValidation=Strict\b[^\s"]*"?\ (?:status=")?201}x;
}

# --- /openapi/v3: the index -------------------------------------------------

my $r = get('/openapi/v3');
is($r->{status}, 200, 'GET /openapi/v3: 200');
is($r->{headers}{'content-type'}, $JSON, '/openapi/v3: application/json');
like($r->{headers}{etag} // '', qr/^"[0-9A-F]{128}"$/, '/openapi/v3: a quoted SHA-512 ETag');
my $index = json_of($r->{body});
my %url = map { $_ => $index->{paths}{$_}{serverRelativeURL} } keys %{ $index->{paths} || {} };
for my $gv ('api', 'api/v1', 'apis', 'apis/apps', 'apis/apps/v1', 'apis/batch/v1',
            'apis/rbac.authorization.k8s.io/v1', 'version') {
    like($url{$gv} // '', qr{^/openapi/v3/\Q$gv\E\?hash=[0-9A-F]{128}$},
        "the index lists $gv with its hash");
}
is(get('/openapi/v3', 'If-None-Match' => $r->{headers}{etag})->{status}, 304,
    '/openapi/v3 with its ETag in If-None-Match: 304');

# --- /openapi/v3/<gv> --------------------------------------------------------

my ($hash) = ($url{'api/v1'} // '') =~ /hash=(\w+)/;
$r = get($url{'api/v1'} . '&timeout=32s');
is($r->{status}, 200, 'the hashed api/v1 URL: 200');
is($r->{headers}{'content-type'}, $JSON, 'api/v1: application/json');
is($r->{headers}{'cache-control'}, 'public, immutable', 'the hashed URL may be cached for good');
like($r->{headers}{expires} // '', qr/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/,
    'the hashed URL has an Expires date');
is($r->{headers}{etag}, "\"$hash\"", 'the ETag is the hash');
is($r->{headers}{vary}, 'Accept', 'Vary: Accept');
my $core = json_of($r->{body});
is($core->{openapi}, '3.0.0', 'api/v1 is an OpenAPI 3.0 document');
my $patch = $core->{paths}{'/api/v1/namespaces/{namespace}/configmaps/{name}'}{patch} || {};
is_deeply($patch->{'x-kubernetes-group-version-kind'},
    { group => '', version => 'v1', kind => 'ConfigMap' }, 'the PATCH names its kind');
ok((grep { $_->{name} eq 'fieldValidation' } @{ $patch->{parameters} || [] }),
    'the PATCH documents fieldValidation in place');
ok(exists $core->{components}{schemas}{'io.k8s.api.core.v1.ConfigMap'},
    'api/v1 defines io.k8s.api.core.v1.ConfigMap');

$r = get('/openapi/v3/api/v1');
is($r->{status}, 200, 'api/v1 without a hash: 200');
is($r->{headers}{'cache-control'}, 'no-cache, private', 'without a hash: no-cache, private');
ok($r->{body} eq get($url{'api/v1'})->{body}, 'the same document either way');

$r = get('/openapi/v3/apis/apps/v1?hash=ABC');
is($r->{status}, 301, 'a stale hash: 301');
is($r->{headers}{location}, $url{'apis/apps/v1'}, 'to the current URL');

my ($apps) = ($url{'apis/apps/v1'} // '') =~ /hash=(\w+)/;
is(get('/openapi/v3/apis/apps/v1', 'If-None-Match' => qq{"$apps"})->{status}, 304,
    'a group-version document with its ETag in If-None-Match: 304');

$r = get('/openapi/v3/apis/nosuch.example.com/v1');
is($r->{status}, 404, 'an unknown group-version: 404');
json_subset_ok(json_of($r->{body}), { kind => 'Status', reason => 'NotFound', code => 404 },
    'the 404 is a NotFound Status');

$r = get('/openapi/v3/api/v1',
    Accept => 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf');
is($r->{status}, 406, 'v3 in protobuf only: 406');

# --- /openapi/v2 ------------------------------------------------------------

$r = get('/openapi/v2');
is($r->{status}, 200, 'GET /openapi/v2: 200');
is($r->{headers}{'content-type'}, $JSON, '/openapi/v2: application/json');
my $etag = $r->{headers}{etag} // '';
like($etag, qr/^"[0-9A-F]{128}"$/, '/openapi/v2: a quoted SHA-512 ETag');
is($r->{headers}{vary}, 'Accept', '/openapi/v2: Vary: Accept');
my $v2 = json_of($r->{body});
is($v2->{swagger}, '2.0', '/openapi/v2 is a Swagger 2.0 document');
my $dpatch = $v2->{paths}{'/apis/apps/v1/namespaces/{namespace}/deployments/{name}'}{patch} || {};
is($dpatch->{operationId}, 'patchAppsV1NamespacedDeployment', 'v2: the Deployment PATCH');
ok((grep { ($_->{name} // '') eq 'fieldValidation' && $_->{in} eq 'query' }
        @{ $dpatch->{parameters} || [] }), 'v2: its fieldValidation parameter, in place');
is(get('/openapi/v2', 'If-None-Match' => $etag)->{status}, 304,
    '/openapi/v2 with its ETag in If-None-Match: 304');
$r = get('/openapi/v2', Accept => $PB_V2);
is($r->{status}, 200, '/openapi/v2 in protobuf: 200');
is($r->{headers}{'content-type'}, 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    '/openapi/v2 in protobuf: gnostic\'s media type');
is($r->{headers}{etag}, $etag, 'the protobuf form shares the ETag');
is(substr($r->{body}, 0, 5), "\x0a\x032.0", 'the protobuf starts with swagger "2.0"');
is(get('/openapi/v2', Accept => 'text/html')->{status}, 406, '/openapi/v2 as text/html: 406');

# --- kubectl explain ----------------------------------------------------------

for my $v (grep { my $x = $_; grep { $_ eq $x } kubectl_versions() } '1.27', '1.32', '1.33') {
    my $out = $s->kc_ok($v, "$v explain configmap", 'explain', 'configmap');
    like($out, qr/^KIND:\s+ConfigMap\nVERSION:\s+v1\n/m, "$v explain configmap: kind and version");
    like($out, qr/Configuration data for pods to read/, "$v explain configmap: our description");
    like($out, qr/^  data\t<map\[string\]string>\n\s+The text values, by key\./m,
        "$v explain configmap: data, its type and description");
    like($out, qr/^  immutable\t<boolean>/m, "$v explain configmap: immutable is a boolean");

    $out = $s->kc_ok($v, "$v explain deployment.spec.template.spec.containers", 'explain',
        'deployment.spec.template.spec.containers');
    like($out, qr/^GROUP:\s+apps\n/m, "$v explain containers: the group");
    like($out, qr/^FIELD:\s+containers <\[\]Container>/m, "$v explain containers: the field");
    like($out, qr/^  name\t<string> -required-\n\s+The container's name, unique in the pod\./m,
        "$v explain containers: name is required");
    like($out, qr/^  ports\t<\[\]ContainerPort>/m, "$v explain containers: ports");
    like($out, qr/^  resources\t<ResourceRequirements>/m, "$v explain containers: resources");

    $out = $s->kc_ok($v, "$v explain pod.spec.containers.ports", 'explain',
        'pod.spec.containers.ports');
    like($out, qr/^  containerPort\t<integer> -required-\n\s+The port number the container/m,
        "$v explain ports: containerPort, an integer, required");
    like($out, qr/^  protocol\t<string>\n\s+"TCP" \(the default\)/m, "$v explain ports: protocol");

    $out = $s->kc_ok($v, "$v explain --recursive cronjob.spec", 'explain', '--recursive',
        'cronjob.spec');
    like($out, qr/^  jobTemplate\t<JobTemplateSpec> -required-$/m,
        "$v explain --recursive cronjob.spec: jobTemplate");
    like($out, qr/^  schedule\t<string> -required-$/m, "$v explain --recursive: schedule");
    like($out, qr/^          containers\t<\[\]Container> -required-$/m,
        "$v explain --recursive: the pod template's containers, nested");

    $out = $s->kc_ok($v, "$v explain deployments --api-version=apps/v1", 'explain', 'deployments',
        '--api-version=apps/v1');
    like($out, qr/^KIND:\s+Deployment\nVERSION:\s+v1\n/m, "$v explain --api-version=apps/v1");
    like($out, qr/^  spec\t<DeploymentSpec>/m, "$v explain deployments: spec");
}

# --- create -f and apply -f with every kubectl ---------------------------------

for my $v (kubectl_versions()) {
    (my $tag = $v) =~ s/\.//g;
    my $ns = "oa-$tag";
    $s->kc_ok($v, "$v create namespace", 'create', 'namespace', $ns);
    my $cm = spew("cm-$tag.yaml", <<"YAML");
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: $ns
data:
  greeting: hello
YAML
    my $deploy = spew("deploy-$tag.yaml", <<"YAML");
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: $ns
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
YAML
    my ($out, $err) = $s->kc_ok($v, "$v create -f configmap", 'create', '-f', $cm, '-v=6');
    is($out, "configmap/cm created\n", "$v create -f configmap: kubectl's message");
    like($err, sent_strict('POST', "/api/v1/namespaces/$ns/configmaps"),
        "$v create -f configmap: sent with fieldValidation=Strict");
    ($out, $err) = $s->kc_ok($v, "$v create -f deployment", 'create', '-f', $deploy, '-v=6');
    is($out, "deployment.apps/web created\n", "$v create -f deployment: kubectl's message");
    like($err, sent_strict('POST', "/apis/apps/v1/namespaces/$ns/deployments"),
        "$v create -f deployment: sent with fieldValidation=Strict");
    unlike($err, qr/warning|error/i, "$v create -f: no warning");

    my $applied = spew("applied-$tag.yaml", <<"YAML");
apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  namespace: $ns
data:
  k: v
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
  namespace: $ns
spec:
  selector:
    matchLabels: {app: applied}
  template:
    metadata:
      labels: {app: applied}
    spec:
      containers:
      - name: app
        image: busybox
YAML
    ($out, $err) = $s->kc_ok($v, "$v apply -f (new)", 'apply', '-f', $applied);
    is($out, "configmap/applied created\ndeployment.apps/applied created\n",
        "$v apply -f: both created");
    is($err, '', "$v apply -f: nothing on stderr");
    ($out, $err) = $s->kc_ok($v, "$v apply -f (again)", 'apply', '-f', $applied);
    is($out, "configmap/applied unchanged\ndeployment.apps/applied unchanged\n",
        "$v apply -f again: unchanged");
    is($err, '', "$v apply -f again: nothing on stderr");
    my $got = json_of(scalar $s->kc_ok($v, "$v get configmap applied", '-n', $ns, 'get', 'cm',
        'applied', '-o', 'json'));
    like($got->{metadata}{annotations}{'kubectl.kubernetes.io/last-applied-configuration'} // '',
        qr/"name":"applied"/, "$v apply -f: the last-applied annotation is stored");
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit/sanitizer lines') or diag(join "\n", @bad);
ok($s->stop, 'nginx stops gracefully');
done_testing();
