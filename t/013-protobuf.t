# Protobuf request bodies (application/vnd.kubernetes.protobuf), over TLS:
# kubectl 1.32 and 1.33 send them for their typed generators (create
# namespace, configmap, secret generic, serviceaccount, role, clusterrole,
# rolebinding, clusterrolebinding); each object is read back with get -o json
# showing every field kubectl set. Raw requests: a
# protobuf ConfigMap is created, garbage and a wrong kind inside the envelope
# are 400 Status and store nothing.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();

my $s = start_server(tls => 1);
my $files = File::Temp->newdir('kube-protobuf-XXXXXX', TMPDIR => 1);

sub kc {
    my ($v, @args) = @_;
    return kubectl($s, $v, @args, { timeout => 30 });
}

sub kc_ok {
    my ($v, $what, @args) = @_;
    my ($rc, $out, $err) = kc($v, @args);
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    is($rc, 0, "$what: exit 0") or diag("kubectl @args\nstdout: $out\nstderr: $err");
    return $out;
}

sub json_of {
    my $text = shift;
    return eval { decode_json($text) } || {};
}

# The protobuf wire format, just enough to build envelopes by hand.
sub varint {
    my $n = shift;
    my $out = '';
    while ($n >= 0x80) {
        $out .= chr(($n & 0x7f) | 0x80);
        $n >>= 7;
    }
    return $out . chr($n);
}

sub field {
    my ($number, $bytes) = @_;
    return varint(($number << 3) | 2) . varint(length $bytes) . $bytes;
}

sub envelope {
    my ($api_version, $kind, $raw) = @_;
    return "k8s\0" . field(1, field(1, $api_version) . field(2, $kind)) . field(2, $raw)
        . field(3, '') . field(4, '');
}

sub pb_post {
    my ($path, $body) = @_;
    my $r = $s->request('POST', $path,
        headers => { 'Content-Type' => 'application/vnd.kubernetes.protobuf' },
        body => $body);
    return ($r->{status}, json_of($r->{body}), $r);
}

for my $v (undef, '1.33') {
    my $label = $v // '1.32';
    (my $ns = "pb-$label") =~ s/\./-/g;

    my $out = kc_ok($v, "$label create namespace", 'create', 'namespace', $ns);
    is($out, "namespace/$ns created\n", "$label create namespace: kubectl's message");
    $out = kc_ok($v, "$label get ns -o json", 'get', 'ns', $ns, '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Namespace', apiVersion => 'v1',
        metadata => { name => $ns, uid => qr/^[0-9a-f-]{36}$/,
            creationTimestamp => qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ },
        status => { phase => 'Active' } }, "$label: the Namespace");

    my $file = "$files/notes-$label.txt";
    open my $fh, '>', $file or die "$file: $!";
    print {$fh} "line one\nline two\n";
    close $fh or die "$file: $!";
    $out = kc_ok($v, "$label create configmap", '-n', $ns, 'create', 'configmap', 'cm',
        '--from-literal', 'a=b', '--from-literal', 'empty=', "--from-file=notes.txt=$file");
    is($out, "configmap/cm created\n", "$label create configmap: kubectl's message");
    $out = kc_ok($v, "$label get cm -o json", '-n', $ns, 'get', 'cm', 'cm', '-o', 'json');
    my $cm = json_of($out);
    json_subset_ok($cm, { kind => 'ConfigMap', apiVersion => 'v1',
        metadata => { name => 'cm', namespace => $ns, resourceVersion => qr/^\d+$/ },
        data => { a => 'b', empty => '', 'notes.txt' => "line one\nline two\n" } },
        "$label: the ConfigMap with every key");
    is_deeply([ sort keys %{ $cm->{data} || {} } ], [ 'a', 'empty', 'notes.txt' ],
        "$label: no other keys in data");
    ok(!exists $cm->{binaryData}, "$label: no binaryData");

    $out = kc_ok($v, "$label create secret generic", '-n', $ns, 'create', 'secret', 'generic',
        's', '--from-literal', 'p=q');
    is($out, "secret/s created\n", "$label create secret: kubectl's message");
    $out = kc_ok($v, "$label get secret -o json", '-n', $ns, 'get', 'secret', 's', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Secret', apiVersion => 'v1',
        metadata => { name => 's', namespace => $ns }, data => { p => 'cQ==' },
        type => 'Opaque' }, "$label: the Secret, data in base64");

    $out = kc_ok($v, "$label create serviceaccount", '-n', $ns, 'create', 'serviceaccount',
        'sa');
    is($out, "serviceaccount/sa created\n", "$label create serviceaccount: kubectl's message");
    $out = kc_ok($v, "$label get sa -o json", '-n', $ns, 'get', 'sa', 'sa', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'ServiceAccount', apiVersion => 'v1',
        metadata => { name => 'sa', namespace => $ns, uid => qr/^[0-9a-f-]{36}$/ } },
        "$label: the ServiceAccount");

    my $rbac = 'rbac.authorization.k8s.io';
    my $rbac_v1 = "$rbac/v1";
    $out = kc_ok($v, "$label create role", '-n', $ns, 'create', 'role', 'r',
        '--verb=get,list', '--resource=pods');
    is($out, "role.$rbac/r created\n", "$label create role: kubectl's message");
    $out = kc_ok($v, "$label get role -o json", '-n', $ns, 'get', 'role', 'r', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Role', apiVersion => $rbac_v1,
        metadata => { name => 'r', namespace => $ns, uid => qr/^[0-9a-f-]{36}$/ },
        rules => [ { verbs => [ 'get', 'list' ], apiGroups => [ '' ],
            resources => [ 'pods' ] } ] }, "$label: the Role and its rule");

    (my $cr = "cr-$label") =~ s/\./-/g;
    $out = kc_ok($v, "$label create clusterrole", 'create', 'clusterrole', $cr, '--verb=get',
        '--resource=nodes');
    is($out, "clusterrole.$rbac/$cr created\n", "$label create clusterrole: kubectl's message");
    $out = kc_ok($v, "$label get clusterrole -o json", 'get', 'clusterrole', $cr, '-o', 'json');
    my $got = json_of($out);
    json_subset_ok($got, { kind => 'ClusterRole', apiVersion => $rbac_v1,
        metadata => { name => $cr, uid => qr/^[0-9a-f-]{36}$/ },
        rules => [ { verbs => [ 'get' ], apiGroups => [ '' ], resources => [ 'nodes' ] } ] },
        "$label: the ClusterRole and its rule");
    ok(!exists $got->{aggregationRule}, "$label: the ClusterRole has no aggregationRule");

    $out = kc_ok($v, "$label create rolebinding", '-n', $ns, 'create', 'rolebinding', 'rb',
        '--role=r', '--user=alice');
    is($out, "rolebinding.$rbac/rb created\n", "$label create rolebinding: kubectl's message");
    $out = kc_ok($v, "$label get rolebinding -o json", '-n', $ns, 'get', 'rolebinding', 'rb',
        '-o', 'json');
    $got = json_of($out);
    json_subset_ok($got, { kind => 'RoleBinding', apiVersion => $rbac_v1,
        metadata => { name => 'rb', namespace => $ns },
        subjects => [ { kind => 'User', apiGroup => $rbac, name => 'alice' } ],
        roleRef => { apiGroup => $rbac, kind => 'Role', name => 'r' } },
        "$label: the RoleBinding, its subject and roleRef");
    ok(!exists $got->{subjects}[0]{namespace}, "$label: a User subject has no namespace");

    (my $crb = "crb-$label") =~ s/\./-/g;
    $out = kc_ok($v, "$label create clusterrolebinding", 'create', 'clusterrolebinding', $crb,
        "--clusterrole=$cr", '--group=devs');
    is($out, "clusterrolebinding.$rbac/$crb created\n",
        "$label create clusterrolebinding: kubectl's message");
    $out = kc_ok($v, "$label get clusterrolebinding -o json", 'get', 'clusterrolebinding', $crb,
        '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'ClusterRoleBinding', apiVersion => $rbac_v1,
        metadata => { name => $crb },
        subjects => [ { kind => 'Group', apiGroup => $rbac, name => 'devs' } ],
        roleRef => { apiGroup => $rbac, kind => 'ClusterRole', name => $cr } },
        "$label: the ClusterRoleBinding, its subject and roleRef");
}

# --- raw protobuf requests --------------------------------------------------------
my $path = '/api/v1/namespaces/pb-1-32/configmaps';
my $cm_raw = field(1, field(1, 'raw') . field(3, 'pb-1-32'))
    . field(2, field(1, 'k') . field(2, 'v'));
my ($st, $o) = pb_post($path, envelope('v1', 'ConfigMap', $cm_raw));
is($st, 201, 'a protobuf ConfigMap by hand: 201');
json_subset_ok($o, { kind => 'ConfigMap', metadata => { name => 'raw' }, data => { k => 'v' } },
    'a protobuf ConfigMap by hand: the created object, in JSON');

sub count_configmaps {
    my $r = $s->request('GET', $path);
    return scalar @{ json_of($r->{body})->{items} || [] };
}
my $before = count_configmaps();

my $r;
($st, $o, $r) = pb_post($path, "k8s\0garbage!");
is($st, 400, 'garbage after the magic: 400');
is($o->{kind}, 'Status', 'garbage after the magic: a Status') or diag($r->{body});
is($o->{reason}, 'BadRequest', 'garbage after the magic: BadRequest');
is($o->{message}, 'the object provided is unrecognized (must be of type ConfigMap): '
    . 'proto: cannot parse invalid wire-format data (6b3873006761726261676521)',
    'garbage after the magic: the message');

($st, $o) = pb_post($path, 'not protobuf at all');
is($st, 400, 'no magic: 400');
like($o->{message},
    qr/provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/,
    'no magic: the message');

my $full = envelope('v1', 'ConfigMap', $cm_raw);
($st, $o) = pb_post($path, substr($full, 0, length($full) - 12));
is($st, 400, 'truncated: 400');
like($o->{message},
    qr/^the object provided is unrecognized \(must be of type ConfigMap\): unexpected EOF \(6b38/,
    'truncated: unexpected EOF');

my $ns_raw = field(1, field(1, 'wrong-kind'));
($st, $o) = pb_post($path, envelope('v1', 'Namespace', $ns_raw));
is($st, 400, 'a Namespace posted as a ConfigMap: 400');
is($o->{message}, 'Namespace in version "v1" cannot be handled as a ConfigMap: the kind of the '
    . 'object (Namespace) does not match the kind of the resource (ConfigMap)',
    'a Namespace posted as a ConfigMap: the message JSON gives too');

is(count_configmaps(), $before, 'nothing stored by the rejected bodies');
is($s->request('GET', '/api/v1/namespaces/wrong-kind')->{status}, 404,
    'no Namespace made from the wrong-kind body');

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit/sanitizer lines') or diag(join "\n", @bad);
ok($s->stop, 'nginx stops gracefully');
done_testing();
