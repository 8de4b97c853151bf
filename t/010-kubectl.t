# kubectl end to end over mTLS (the admin client certificate), with every
# installed kubectl (1.27 to 1.33), each in a namespace of its own:
# version, api-resources, get (table, -o json|yaml|name|jsonpath|wide, -A),
# raw JSON writes (create/replace/get/delete --raw), create -f and
# replace -f with --validate=false, the Conflict, NotFound and Invalid
# errors as kubectl prints them, and delete ns returning once the server
# has finished the deletion. Every version also runs the typed generators
# (create ns|configmap|secret generic|deployment): 1.27 to 1.31 send JSON
# bodies, 1.32 and 1.33 protobuf (t/013-protobuf.t covers every generator).
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();
use Time::HiRes qw(time);

my $s = start_server(tls => 1);

my $Conflict = 'Operation cannot be fulfilled on configmaps "cm1": the object has been '
    . 'modified; please apply your changes to the latest version and try again';
my $Invalid = 'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
    . 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '
    . q{'-' or '.', and must start and end with an alphanumeric character (e.g. }
    . q{'example.com', regex used for validation is }
    . q{'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')};
my $Age = qr/\d+[smhd]\S*/;

my $server_version = decode_json($s->request('GET', '/version')->{body})->{gitVersion};
like($server_version, qr/^v1\.\d+\.\d+/, 'GET /version names the server version');

# kc_fails($v, $what, $stderr, @args): kubectl exits 1 and prints exactly
# $stderr (one line) and nothing on stdout.
# kc_fails(...): $s->kc_fails, and kubectl printed nothing on stdout
sub kc_fails {
    my ($v, $what, @args) = @_;
    my $out = $s->kc_fails($v, $what, @args);
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    is($out, '', "$what: nothing on stdout");
}

sub every_version {
    my ($v, $ns) = @_;

    # --- version and discovery ------------------------------------------------
    my $out = $s->kc_ok($v, 'version', 'version');
    like($out, qr/^Server Version: .*\Q$server_version\E/m, 'version prints the server version');

    $out = $s->kc_ok($v, 'api-resources', 'api-resources');
    like($out, qr/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/m,
        'api-resources: header');
    like($out, qr/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m,
        'api-resources: configmaps, shortname cm, namespaced');
    like($out, qr/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m,
        'api-resources: namespaces are cluster-scoped');
    like($out, qr{^deployments\s+deploy\s+apps/v1\s+true\s+Deployment$}m,
        'api-resources: deployments in apps/v1');

    # --- namespaces -------------------------------------------------------------
    $out = $s->kc_ok($v, 'get ns', 'get', 'ns');
    my @lines = split /\n/, $out;
    like($lines[0] // '', qr/^NAME\s+STATUS\s+AGE$/, 'get ns: NAME STATUS AGE');
    like($out, qr/^default\s+Active\s+$Age$/m, 'get ns: default is Active');
    like($out, qr/^kube-system\s+Active\s+$Age$/m, 'get ns: kube-system is Active');

    $out = $s->kc_ok($v, 'get ns default -o json', 'get', 'ns', 'default', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Namespace', apiVersion => 'v1',
        metadata => { name => 'default', uid => qr/^[0-9a-f-]{36}$/,
            labels => { 'kubernetes.io/metadata.name' => 'default' } },
        status => { phase => 'Active' } }, 'get ns default -o json: the Namespace');

    $out = $s->kc_ok($v, 'get ns default -o yaml', 'get', 'ns', 'default', '-o', 'yaml');
    like($out, qr/^apiVersion: v1\nkind: Namespace\nmetadata:\n/m,
        'get ns default -o yaml: kind and metadata');
    like($out, qr/^  name: default$/m, 'get ns default -o yaml: the name');
    like($out, qr/^  phase: Active$/m, 'get ns default -o yaml: the phase');

    $out = $s->kc_ok($v, 'get ns default -o name', 'get', 'ns', 'default', '-o', 'name');
    is($out, "namespace/default\n", 'get ns default -o name');

    $out = $s->kc_ok($v, 'get ns default -o jsonpath', 'get', 'ns', 'default', '-o',
        'jsonpath={.metadata.name}');
    is($out, 'default', 'get ns default -o jsonpath={.metadata.name}');

    # --- raw JSON writes ----------------------------------------------------------
    my $nsfile = spew("ns-$ns.json",
        qq({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"$ns"}}));
    $out = $s->kc_ok($v, 'create --raw namespace', 'create', '--raw', '/api/v1/namespaces',
        '-f', $nsfile);
    json_subset_ok(json_of($out), { kind => 'Namespace', metadata => { name => $ns },
        status => { phase => 'Active' } }, 'create --raw namespace: the created Namespace');

    my $cmfile = spew("cm1-$ns.json", qq({"apiVersion":"v1","kind":"ConfigMap",)
        . qq("metadata":{"name":"cm1"},"data":{"a":"b","c":"d"}}));
    $out = $s->kc_ok($v, 'create --raw configmap', 'create', '--raw',
        "/api/v1/namespaces/$ns/configmaps", '-f', $cmfile);
    my $cm = json_of($out);
    json_subset_ok($cm, { kind => 'ConfigMap', apiVersion => 'v1',
        metadata => { name => 'cm1', namespace => $ns, resourceVersion => qr/^\d+$/ },
        data => { a => 'b', c => 'd' } }, 'create --raw configmap: the created ConfigMap');
    my $rv1 = $cm->{metadata}{resourceVersion} // '0';

    my $cm2file = spew("cm2-$ns.json", qq({"apiVersion":"v1","kind":"ConfigMap",)
        . qq("metadata":{"name":"cm2"},"data":{"x":"y"}}));
    $s->kc_ok($v, 'create --raw second configmap', 'create', '--raw',
        "/api/v1/namespaces/$ns/configmaps", '-f', $cm2file);

    # --- reading ConfigMaps ---------------------------------------------------------
    $out = $s->kc_ok($v, 'get cm', '-n', $ns, 'get', 'cm');
    @lines = split /\n/, $out;
    like($lines[0] // '', qr/^NAME\s+DATA\s+AGE$/, 'get cm: NAME DATA AGE');
    like($lines[1] // '', qr/^cm1\s+2\s+$Age$/, 'get cm: cm1 with 2 keys');
    like($lines[2] // '', qr/^cm2\s+1\s+$Age$/, 'get cm: cm2 with 1 key');
    is(scalar @lines, 3, 'get cm: two rows');

    $out = $s->kc_ok($v, 'get cm -A', 'get', 'cm', '-A');
    @lines = split /\n/, $out;
    like($lines[0] // '', qr/^NAMESPACE\s+NAME\s+DATA\s+AGE$/,
        'get cm -A: NAMESPACE NAME DATA AGE');
    like($out, qr/^\Q$ns\E\s+cm1\s+2\s+$Age$/m, 'get cm -A: lists cm1 in its namespace');
    like($out, qr/^\Q$ns\E\s+cm2\s+1\s+$Age$/m, 'get cm -A: lists cm2 in its namespace');

    $out = $s->kc_ok($v, 'get cm cm1 -o yaml', '-n', $ns, 'get', 'cm', 'cm1', '-o', 'yaml');
    like($out, qr/^apiVersion: v1\ndata:\n  a: b\n  c: d\nkind: ConfigMap\nmetadata:\n/,
        'get cm cm1 -o yaml: the data');
    like($out, qr/^  name: cm1\n  namespace: \Q$ns\E\n  resourceVersion: "$rv1"\n/m,
        'get cm cm1 -o yaml: name, namespace, resourceVersion');

    $out = $s->kc_ok($v, 'get cm -o wide', '-n', $ns, 'get', 'cm', '-o', 'wide');
    like($out, qr/\ANAME\s+DATA\s+AGE\ncm1\s+2\s+$Age\ncm2\s+1\s+$Age\n\z/,
        'get cm -o wide: configmaps have no wide columns');

    $out = $s->kc_ok($v, 'get --raw', 'get', '--raw', "/api/v1/namespaces/$ns/configmaps/cm1");
    json_subset_ok(json_of($out), { kind => 'ConfigMap', metadata => { name => 'cm1',
        resourceVersion => $rv1 }, data => { a => 'b', c => 'd' } }, 'get --raw: the object');

    # --- replace, and Conflict on a stale resourceVersion ---------------------------
    my $repfile = spew("cm1-rv-$ns.json", qq({"apiVersion":"v1","kind":"ConfigMap",)
        . qq("metadata":{"name":"cm1","namespace":"$ns","resourceVersion":"$rv1"},)
        . qq("data":{"a":"changed"}}));
    # kubectl 1.27 and 1.28 validate replace --raw bodies against OpenAPI.
    $out = $s->kc_ok($v, 'replace --raw', 'replace', '--raw',
        "/api/v1/namespaces/$ns/configmaps/cm1", '-f', $repfile, '--validate=false');
    my $rep = json_of($out);
    my $rv2 = $rep->{metadata}{resourceVersion} // '0';
    json_subset_ok($rep, { data => { a => 'changed' },
        metadata => { uid => $cm->{metadata}{uid} } }, 'replace --raw: the data changed, same uid');
    ok($rv2 > $rv1, "replace --raw: resourceVersion bumped ($rv1 -> $rv2)");

    kc_fails($v, 'replace --raw with a stale resourceVersion',
        "Error from server (Conflict): $Conflict",
        'replace', '--raw', "/api/v1/namespaces/$ns/configmaps/cm1", '-f', $repfile,
        '--validate=false');
    kc_fails($v, 'replace -f with a stale resourceVersion',
        qq{Error from server (Conflict): error when replacing "$repfile": $Conflict},
        'replace', '-f', $repfile, '--validate=false');

    my $rep2file = spew("cm1-rv2-$ns.json", qq({"apiVersion":"v1","kind":"ConfigMap",)
        . qq("metadata":{"name":"cm1","namespace":"$ns","resourceVersion":"$rv2"},)
        . qq("data":{"a":"again","e":"f"}}));
    $out = $s->kc_ok($v, 'replace -f', 'replace', '-f', $rep2file, '--validate=false');
    is($out, "configmap/cm1 replaced\n", 'replace -f: configmap/cm1 replaced');
    $out = $s->kc_ok($v, 'get cm cm1 -o jsonpath after replace', '-n', $ns, 'get', 'cm', 'cm1',
        '-o', 'jsonpath={.data.a},{.data.e}');
    is($out, 'again,f', 'replace -f: the data was stored');

    # --- NotFound -------------------------------------------------------------------------
    kc_fails($v, 'get cm nosuch', 'Error from server (NotFound): configmaps "nosuch" not found',
        '-n', $ns, 'get', 'cm', 'nosuch');
    kc_fails($v, 'delete cm nosuch',
        'Error from server (NotFound): configmaps "nosuch" not found',
        '-n', $ns, 'delete', 'cm', 'nosuch');
    kc_fails($v, 'get ns nosuch', 'Error from server (NotFound): namespaces "nosuch" not found',
        'get', 'ns', 'nosuch');
    kc_fails($v, 'get cm in a missing namespace',
        'Error from server (NotFound): namespaces "nosuch" not found',
        '-n', 'nosuch', 'get', 'cm', 'x');

    # --- delete -------------------------------------------------------------------------
    $out = $s->kc_ok($v, 'delete --raw', 'delete', '--raw', "/api/v1/namespaces/$ns/configmaps/cm2");
    json_subset_ok(json_of($out), { kind => 'Status', status => 'Success',
        details => { name => 'cm2', kind => 'configmaps' } }, 'delete --raw: a Success Status');

    $out = $s->kc_ok($v, 'delete cm cm1', '-n', $ns, 'delete', 'cm', 'cm1');
    is($out, qq{configmap "cm1" deleted\n}, 'delete cm cm1: configmap "cm1" deleted');
    kc_fails($v, 'get cm cm1 after delete',
        'Error from server (NotFound): configmaps "cm1" not found', '-n', $ns, 'get', 'cm', 'cm1');

    # --- a Deployment from a JSON file ---------------------------------------------------------
    my $depfile = spew("deploy-$ns.json", qq({"apiVersion":"apps/v1","kind":"Deployment",)
        . qq("metadata":{"name":"web","namespace":"$ns"},"spec":{"selector":{"matchLabels":)
        . qq({"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":)
        . qq({"containers":[{"name":"c","image":"nginx"}]}}}}));
    $out = $s->kc_ok($v, 'create -f deployment', 'create', '-f', $depfile, '--validate=false');
    is($out, "deployment.apps/web created\n", 'create -f: deployment.apps/web created');

    $out = $s->kc_ok($v, 'get deploy', '-n', $ns, 'get', 'deploy');
    @lines = split /\n/, $out;
    like($lines[0] // '', qr/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/,
        'get deploy: NAME READY UP-TO-DATE AVAILABLE AGE');
    like($lines[1] // '', qr{^web\s+0/1\s+0\s+0\s+$Age$}, 'get deploy: web, 0/1 ready');

    # --- delete ns: the server finishes the deletion, kubectl returns ----------------------
    my $t0 = time;
    $out = $s->kc_ok($v, 'delete ns', 'delete', 'ns', $ns);
    my $took = time - $t0;
    is($out, qq{namespace "$ns" deleted\n}, "delete ns: namespace \"$ns\" deleted");
    ok($took < 10, sprintf('delete ns returned promptly (%.1f s)', $took));
    kc_fails($v, 'get ns after delete ns',
        qq{Error from server (NotFound): namespaces "$ns" not found}, 'get', 'ns', $ns);
    is($s->request('GET', "/apis/apps/v1/namespaces/$ns/deployments/web")->{status}, 404,
        'delete ns removed the Deployment in it');
}

# The typed generators (JSON bodies up to 1.31, protobuf from 1.32).
sub typed_generators {
    my ($v, $ns) = @_;

    my $out = $s->kc_ok($v, 'create ns', 'create', 'ns', $ns);
    is($out, "namespace/$ns created\n", "create ns: namespace/$ns created");
    kc_fails($v, 'create ns twice',
        qq{Error from server (AlreadyExists): namespaces "$ns" already exists},
        'create', 'ns', $ns);

    $out = $s->kc_ok($v, 'create configmap', '-n', $ns, 'create', 'configmap', 'cm1',
        '--from-literal=a=b', '--from-literal=c=d');
    is($out, "configmap/cm1 created\n", 'create configmap: configmap/cm1 created');
    $out = $s->kc_ok($v, 'get cm cm1 -o json', '-n', $ns, 'get', 'cm', 'cm1', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'ConfigMap', metadata => { name => 'cm1',
        namespace => $ns }, data => { a => 'b', c => 'd' } },
        'create configmap --from-literal: the data was stored');

    kc_fails($v, 'create configmap twice',
        'error: failed to create configmap: configmaps "cm1" already exists',
        '-n', $ns, 'create', 'configmap', 'cm1', '--from-literal=a=b');
    kc_fails($v, 'create configmap in a missing namespace',
        'error: failed to create configmap: namespaces "nosuch" not found',
        '-n', 'nosuch', 'create', 'configmap', 'cm1', '--from-literal=a=b');
    kc_fails($v, 'create configmap with an invalid name',
        "error: failed to create configmap: $Invalid",
        '-n', $ns, 'create', 'configmap', 'Bad_Name', '--from-literal=a=b');

    $out = $s->kc_ok($v, 'create secret generic', '-n', $ns, 'create', 'secret', 'generic', 's1',
        '--from-literal=pw=hunter2');
    is($out, "secret/s1 created\n", 'create secret generic: secret/s1 created');
    $out = $s->kc_ok($v, 'get secret s1 -o jsonpath', '-n', $ns, 'get', 'secret', 's1', '-o',
        'jsonpath={.type} {.data.pw}');
    is($out, 'Opaque aHVudGVyMg==', 'create secret generic: type Opaque, data base64');

    $out = $s->kc_ok($v, 'create deployment', '-n', $ns, 'create', 'deployment', 'web',
        '--image=nginx');
    is($out, "deployment.apps/web created\n", 'create deployment: deployment.apps/web created');
    kc_fails($v, 'create deployment twice',
        'error: failed to create deployment: deployments.apps "web" already exists',
        '-n', $ns, 'create', 'deployment', 'web', '--image=nginx');
    $out = $s->kc_ok($v, 'get deploy web -o jsonpath', '-n', $ns, 'get', 'deploy', 'web', '-o',
        'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}');
    is($out, '1 nginx', 'create deployment: one replica of the image');

    $out = $s->kc_ok($v, 'delete ns (typed)', 'delete', 'ns', $ns);
    is($out, qq{namespace "$ns" deleted\n}, 'delete ns of the typed namespace');
    is($s->request('GET', "/api/v1/namespaces/$ns/secrets/s1")->{status}, 404,
        'delete ns removed the Secret in it');
}

my @versions = kubectl_versions();
ok(scalar @versions, 'kubectl versions installed: ' . join(' ', @versions));

for my $v (@versions) {
    my ($minor) = $v =~ /^1\.(\d+)$/;
    my $ns = "kubectl-1-$minor";
    subtest "kubectl $v" => sub {
        every_version($v, $ns);
        typed_generators($v, "$ns-typed");
    };
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit/sanitizer lines') or diag(join "\n", @bad);
ok($s->stop, 'nginx stops gracefully');

done_testing();
