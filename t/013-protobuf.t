# Protobuf (application/vnd.kubernetes.protobuf) in and out, over TLS:
# kubectl 1.32 and 1.33 send them for their typed generators (create
# namespace, configmap, secret generic, serviceaccount, role, clusterrole,
# rolebinding, clusterrolebinding, deployment, job, cronjob, service
# clusterip, quota, priorityclass, pdb, ingress); each object is read back
# with get -o json showing every field kubectl set, and the kinds new to the
# schema are listed as kubectl's tables. Raw requests: a
# protobuf ConfigMap is created, garbage and a wrong kind inside the envelope
# are 400 Status and store nothing. Responses: GET, LIST, CREATE and DELETE
# with a protobuf Accept come back in protobuf (decoded here by a small
# reader of the wire format), a 404 as a protobuf Status, an Accept nothing
# meets is 406, a watch sends length-prefixed WatchEvents, and a large list
# streams as one envelope whose lengths cover it.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();
use POSIX ();

my $s = start_server(tls => 1);
my $PB = 'application/vnd.kubernetes.protobuf';
my $files = File::Temp->newdir('kube-protobuf-XXXXXX', TMPDIR => 1);

for my $v (undef, '1.33') {
    my $label = $v // '1.32';
    (my $ns = "pb-$label") =~ s/\./-/g;

    my $out = $s->kc_ok($v, "$label create namespace", 'create', 'namespace', $ns);
    is($out, "namespace/$ns created\n", "$label create namespace: kubectl's message");
    $out = $s->kc_ok($v, "$label get ns -o json", 'get', 'ns', $ns, '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Namespace', apiVersion => 'v1',
        metadata => { name => $ns, uid => qr/^[0-9a-f-]{36}$/,
            creationTimestamp => qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ },
        status => { phase => 'Active' } }, "$label: the Namespace");

    my $file = "$files/notes-$label.txt";
    open my $fh, '>', $file or die "$file: $!";
    print {$fh} "line one\nline two\n";
    close $fh or die "$file: $!";
    $out = $s->kc_ok($v, "$label create configmap", '-n', $ns, 'create', 'configmap', 'cm',
        '--from-literal', 'a=b', '--from-literal', 'empty=', "--from-file=notes.txt=$file");
    is($out, "configmap/cm created\n", "$label create configmap: kubectl's message");
    $out = $s->kc_ok($v, "$label get cm -o json", '-n', $ns, 'get', 'cm', 'cm', '-o', 'json');
    my $cm = json_of($out);
    json_subset_ok($cm, { kind => 'ConfigMap', apiVersion => 'v1',
        metadata => { name => 'cm', namespace => $ns, resourceVersion => qr/^\d+$/ },
        data => { a => 'b', empty => '', 'notes.txt' => "line one\nline two\n" } },
        "$label: the ConfigMap with every key");
    is_deeply([ sort keys %{ $cm->{data} || {} } ], [ 'a', 'empty', 'notes.txt' ],
        "$label: no other keys in data");
    ok(!exists $cm->{binaryData}, "$label: no binaryData");

    $out = $s->kc_ok($v, "$label create secret generic", '-n', $ns, 'create', 'secret', 'generic',
        's', '--from-literal', 'p=q');
    is($out, "secret/s created\n", "$label create secret: kubectl's message");
    $out = $s->kc_ok($v, "$label get secret -o json", '-n', $ns, 'get', 'secret', 's', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Secret', apiVersion => 'v1',
        metadata => { name => 's', namespace => $ns }, data => { p => 'cQ==' },
        type => 'Opaque' }, "$label: the Secret, data in base64");

    $out = $s->kc_ok($v, "$label create serviceaccount", '-n', $ns, 'create', 'serviceaccount',
        'sa');
    is($out, "serviceaccount/sa created\n", "$label create serviceaccount: kubectl's message");
    $out = $s->kc_ok($v, "$label get sa -o json", '-n', $ns, 'get', 'sa', 'sa', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'ServiceAccount', apiVersion => 'v1',
        metadata => { name => 'sa', namespace => $ns, uid => qr/^[0-9a-f-]{36}$/ } },
        "$label: the ServiceAccount");

    my $rbac = 'rbac.authorization.k8s.io';
    my $rbac_v1 = "$rbac/v1";
    $out = $s->kc_ok($v, "$label create role", '-n', $ns, 'create', 'role', 'r',
        '--verb=get,list', '--resource=pods');
    is($out, "role.$rbac/r created\n", "$label create role: kubectl's message");
    $out = $s->kc_ok($v, "$label get role -o json", '-n', $ns, 'get', 'role', 'r', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Role', apiVersion => $rbac_v1,
        metadata => { name => 'r', namespace => $ns, uid => qr/^[0-9a-f-]{36}$/ },
        rules => [ { verbs => [ 'get', 'list' ], apiGroups => [ '' ],
            resources => [ 'pods' ] } ] }, "$label: the Role and its rule");

    (my $cr = "cr-$label") =~ s/\./-/g;
    $out = $s->kc_ok($v, "$label create clusterrole", 'create', 'clusterrole', $cr, '--verb=get',
        '--resource=nodes');
    is($out, "clusterrole.$rbac/$cr created\n", "$label create clusterrole: kubectl's message");
    $out = $s->kc_ok($v, "$label get clusterrole -o json", 'get', 'clusterrole', $cr, '-o', 'json');
    my $got = json_of($out);
    json_subset_ok($got, { kind => 'ClusterRole', apiVersion => $rbac_v1,
        metadata => { name => $cr, uid => qr/^[0-9a-f-]{36}$/ },
        rules => [ { verbs => [ 'get' ], apiGroups => [ '' ], resources => [ 'nodes' ] } ] },
        "$label: the ClusterRole and its rule");
    ok(!exists $got->{aggregationRule}, "$label: the ClusterRole has no aggregationRule");

    $out = $s->kc_ok($v, "$label create rolebinding", '-n', $ns, 'create', 'rolebinding', 'rb',
        '--role=r', '--user=alice');
    is($out, "rolebinding.$rbac/rb created\n", "$label create rolebinding: kubectl's message");
    $out = $s->kc_ok($v, "$label get rolebinding -o json", '-n', $ns, 'get', 'rolebinding', 'rb',
        '-o', 'json');
    $got = json_of($out);
    json_subset_ok($got, { kind => 'RoleBinding', apiVersion => $rbac_v1,
        metadata => { name => 'rb', namespace => $ns },
        subjects => [ { kind => 'User', apiGroup => $rbac, name => 'alice' } ],
        roleRef => { apiGroup => $rbac, kind => 'Role', name => 'r' } },
        "$label: the RoleBinding, its subject and roleRef");
    ok(!exists $got->{subjects}[0]{namespace}, "$label: a User subject has no namespace");

    (my $crb = "crb-$label") =~ s/\./-/g;
    $out = $s->kc_ok($v, "$label create clusterrolebinding", 'create', 'clusterrolebinding', $crb,
        "--clusterrole=$cr", '--group=devs');
    is($out, "clusterrolebinding.$rbac/$crb created\n",
        "$label create clusterrolebinding: kubectl's message");
    $out = $s->kc_ok($v, "$label get clusterrolebinding -o json", 'get', 'clusterrolebinding', $crb,
        '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'ClusterRoleBinding', apiVersion => $rbac_v1,
        metadata => { name => $crb },
        subjects => [ { kind => 'Group', apiGroup => $rbac, name => 'devs' } ],
        roleRef => { apiGroup => $rbac, kind => 'ClusterRole', name => $cr } },
        "$label: the ClusterRoleBinding, its subject and roleRef");

    workload_generators($v, $label, $ns);
}

# create deployment|job|cronjob|service clusterip|quota|priorityclass|pdb|ingress
# and each object as get -o json shows it.
sub workload_generators {
    my ($v, $label, $ns) = @_;

    my $out = $s->kc_ok($v, "$label create deployment", '-n', $ns, 'create', 'deployment', 'web',
        '--image=nginx', '--replicas=2', '--port=80');
    is($out, "deployment.apps/web created\n", "$label create deployment: kubectl's message");
    $out = $s->kc_ok($v, "$label get deploy -o json", '-n', $ns, 'get', 'deploy', 'web', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Deployment', apiVersion => 'apps/v1',
        metadata => { name => 'web', namespace => $ns, labels => { app => 'web' },
            generation => 1 },
        spec => { replicas => 2, selector => { matchLabels => { app => 'web' } },
            template => { metadata => { labels => { app => 'web' } },
                spec => { containers => [ { name => 'nginx', image => 'nginx',
                    ports => [ { containerPort => 80, protocol => 'TCP' } ] } ] } } } },
        "$label: the Deployment with its replicas, selector, image and port");

    $out = $s->kc_ok($v, "$label create job", '-n', $ns, 'create', 'job', 'j', '--image=busybox',
        '--', 'echo', 'hi');
    is($out, "job.batch/j created\n", "$label create job: kubectl's message");
    $out = $s->kc_ok($v, "$label get job -o json", '-n', $ns, 'get', 'job', 'j', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Job', apiVersion => 'batch/v1',
        metadata => { name => 'j', namespace => $ns },
        spec => { template => { spec => { restartPolicy => 'Never',
            containers => [ { name => 'j', image => 'busybox',
                command => [ 'echo', 'hi' ] } ] } } } },
        "$label: the Job with its command");

    $out = $s->kc_ok($v, "$label create cronjob", '-n', $ns, 'create', 'cronjob', 'c',
        '--image=busybox', '--schedule=*/5 * * * *');
    is($out, "cronjob.batch/c created\n", "$label create cronjob: kubectl's message");
    $out = $s->kc_ok($v, "$label get cronjob -o json", '-n', $ns, 'get', 'cronjob', 'c', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'CronJob', apiVersion => 'batch/v1',
        metadata => { name => 'c', namespace => $ns },
        spec => { schedule => '*/5 * * * *', jobTemplate => { metadata => { name => 'c' },
            spec => { template => { spec => { restartPolicy => 'OnFailure',
                containers => [ { name => 'c', image => 'busybox' } ] } } } } } },
        "$label: the CronJob with its schedule and job template");

    $out = $s->kc_ok($v, "$label create service clusterip", '-n', $ns, 'create', 'service',
        'clusterip', 's', '--tcp=80:8080');
    is($out, "service/s created\n", "$label create service: kubectl's message");
    $out = $s->kc_ok($v, "$label get svc -o json", '-n', $ns, 'get', 'svc', 's', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Service', apiVersion => 'v1',
        metadata => { name => 's', namespace => $ns, labels => { app => 's' } },
        spec => { type => 'ClusterIP', selector => { app => 's' },
            ports => [ { name => '80-8080', protocol => 'TCP', port => 80,
                targetPort => 8080 } ] } },
        "$label: the Service with its port and numeric targetPort");

    $out = $s->kc_ok($v, "$label create quota", '-n', $ns, 'create', 'quota', 'q',
        '--hard=cpu=1,memory=1G,pods=2');
    is($out, "resourcequota/q created\n", "$label create quota: kubectl's message");
    $out = $s->kc_ok($v, "$label get quota -o json", '-n', $ns, 'get', 'quota', 'q', '-o', 'json');
    my $got = json_of($out);
    json_subset_ok($got, { kind => 'ResourceQuota', apiVersion => 'v1',
        metadata => { name => 'q', namespace => $ns, uid => qr/^[0-9a-f-]{36}$/ },
        spec => { hard => { cpu => '1', memory => '1G', pods => '2' } }, status => {} },
        "$label: the ResourceQuota with its hard amounts as strings");
    is_deeply([ sort keys %{ $got->{spec}{hard} || {} } ], [ 'cpu', 'memory', 'pods' ],
        "$label: no other hard amounts");

    (my $pc = "high-$label") =~ s/\./-/g;
    $out = $s->kc_ok($v, "$label create priorityclass", 'create', 'priorityclass', $pc,
        '--value=1000', '--description=x');
    is($out, "priorityclass.scheduling.k8s.io/$pc created\n",
        "$label create priorityclass: kubectl's message");
    $out = $s->kc_ok($v, "$label get pc -o json", 'get', 'pc', $pc, '-o', 'json');
    $got = json_of($out);
    json_subset_ok($got, { kind => 'PriorityClass', apiVersion => 'scheduling.k8s.io/v1',
        metadata => { name => $pc, namespace => ABSENT, generation => 1 },
        value => 1000, description => 'x', preemptionPolicy => 'PreemptLowerPriority',
        globalDefault => ABSENT },
        "$label: the PriorityClass, cluster scoped, with its value and description");

    $out = $s->kc_ok($v, "$label create pdb", '-n', $ns, 'create', 'pdb', 'p', '--selector=app=web',
        '--min-available=1');
    is($out, "poddisruptionbudget.policy/p created\n", "$label create pdb: kubectl's message");
    $out = $s->kc_ok($v, "$label get pdb -o json", '-n', $ns, 'get', 'pdb', 'p', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'PodDisruptionBudget', apiVersion => 'policy/v1',
        metadata => { name => 'p', namespace => $ns, generation => 1 },
        spec => { minAvailable => 1, selector => { matchLabels => { app => 'web' } },
            maxUnavailable => ABSENT },
        status => { disruptionsAllowed => 0, currentHealthy => 0, desiredHealthy => 0,
            expectedPods => 0 } },
        "$label: the PodDisruptionBudget, minAvailable a number");

    $out = $s->kc_ok($v, "$label create ingress", '-n', $ns, 'create', 'ingress', 'i',
        '--rule=foo.com/bar=svc1:8080');
    is($out, "ingress.networking.k8s.io/i created\n", "$label create ingress: kubectl's message");
    $out = $s->kc_ok($v, "$label get ing -o json", '-n', $ns, 'get', 'ing', 'i', '-o', 'json');
    json_subset_ok(json_of($out), { kind => 'Ingress', apiVersion => 'networking.k8s.io/v1',
        metadata => { name => 'i', namespace => $ns, generation => 1 },
        spec => { rules => [ { host => 'foo.com', http => { paths => [ { path => '/bar',
            pathType => 'Exact', backend => { service => { name => 'svc1',
                port => { number => 8080 } } } } ] } } ] },
        status => { loadBalancer => {} } },
        "$label: the Ingress rule with its path, type and service backend");
}

# --- tables of the kinds new to the schema, as kubectl 1.32 prints them -----------
{
    my $ns = 'pb-1-32';
    my $age = qr/\d+s/;
    my $out = $s->kc_ok(undef, 'get quota', '-n', $ns, 'get', 'quota');
    # The quota controller has filled status.hard and status.used.
    like($out, qr{\ANAME\s+AGE\s+REQUEST\s+LIMIT\nq\s+$age\s+cpu: 0/1, memory: 0/1G, pods: 0/2\s*\n\z},
        'get quota: Name, Age, Request, Limit (kube 1.32 order)');
    $out = $s->kc_ok(undef, 'get pc', 'get', 'pc', 'high-1-32');
    like($out, qr/\ANAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n
        high-1-32\s+1000\s+false\s+$age\s+PreemptLowerPriority\n\z/x,
        'get pc: the value, not a global default, the preemption policy');
    $out = $s->kc_ok(undef, 'get pdb', '-n', $ns, 'get', 'pdb');
    like($out, qr/\ANAME\s+MIN\ AVAILABLE\s+MAX\ UNAVAILABLE\s+ALLOWED\ DISRUPTIONS\s+AGE\n
        p\s+1\s+N\/A\s+0\s+$age\n\z/x,
        'get pdb: minAvailable 1, maxUnavailable N/A, no disruptions allowed yet');
    $out = $s->kc_ok(undef, 'get ing', '-n', $ns, 'get', 'ing');
    like($out, qr/\ANAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\n
        i\s+<none>\s+foo\.com\s+80\s+$age\n\z/x,
        'get ing: no class, the host, no address yet, port 80');
    $out = $s->kc_ok(undef, 'get quota,pdb,ing -o name', '-n', $ns, 'get', 'quota,pdb,ing', '-o', 'name');
    is($out, "resourcequota/q\npoddisruptionbudget.policy/p\ningress.networking.k8s.io/i\n",
        'get quota,pdb,ing -o name: the short names resolve through discovery');
}


# --- raw protobuf requests --------------------------------------------------------
my $path = '/api/v1/namespaces/pb-1-32/configmaps';
my $cm_raw = pb_bytes(1, pb_bytes(1, 'raw') . pb_bytes(3, 'pb-1-32'))
    . pb_bytes(2, pb_bytes(1, 'k') . pb_bytes(2, 'v'));
my ($st, $o) = $s->call(POST => $path, pb_envelope('v1', 'ConfigMap', $cm_raw), type => $PB);
is($st, 201, 'a protobuf ConfigMap by hand: 201');
json_subset_ok($o, { kind => 'ConfigMap', metadata => { name => 'raw' }, data => { k => 'v' } },
    'a protobuf ConfigMap by hand: the created object, in JSON');

sub count_configmaps {
    my $r = $s->request('GET', $path);
    return scalar @{ json_of($r->{body})->{items} || [] };
}
my $before = count_configmaps();

my $r;
($st, $o, $r) = $s->call(POST => $path, "k8s\0garbage!", type => $PB);
is($st, 400, 'garbage after the magic: 400');
is($o->{kind}, 'Status', 'garbage after the magic: a Status') or diag($r->{body});
is($o->{reason}, 'BadRequest', 'garbage after the magic: BadRequest');
is($o->{message}, 'the object provided is unrecognized (must be of type ConfigMap): '
    . 'proto: cannot parse invalid wire-format data (6b3873006761726261676521)',
    'garbage after the magic: the message');

($st, $o) = $s->call(POST => $path, 'not protobuf at all', type => $PB);
is($st, 400, 'no magic: 400');
like($o->{message},
    qr/provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/,
    'no magic: the message');

my $full = pb_envelope('v1', 'ConfigMap', $cm_raw);
($st, $o) = $s->call(POST => $path, substr($full, 0, length($full) - 12), type => $PB);
is($st, 400, 'truncated: 400');
like($o->{message},
    qr/^the object provided is unrecognized \(must be of type ConfigMap\): unexpected EOF \(6b38/,
    'truncated: unexpected EOF');

my $ns_raw = pb_bytes(1, pb_bytes(1, 'wrong-kind'));
($st, $o) = $s->call(POST => $path, pb_envelope('v1', 'Namespace', $ns_raw), type => $PB);
is($st, 400, 'a Namespace posted as a ConfigMap: 400');
is($o->{message}, 'Namespace in version "v1" cannot be handled as a ConfigMap: the kind of the '
    . 'object (Namespace) does not match the kind of the resource (ConfigMap)',
    'a Namespace posted as a ConfigMap: the message JSON gives too');

is(count_configmaps(), $before, 'nothing stored by the rejected bodies');
is($s->request('GET', '/api/v1/namespaces/wrong-kind')->{status}, 404,
    'no Namespace made from the wrong-kind body');

# --- protobuf responses -------------------------------------------------------------
# ObjectMeta -> the fields the tests compare.
sub pb_meta {
    my $m = pb_msg(shift // '');
    my $ts = pb_msg($m->{8} // '');
    return { name => $m->{1}, namespace => $m->{3}, uid => $m->{5},
        resourceVersion => $m->{6}, creationTimestamp => $ts->{1} };
}

sub pb_map {
    my %out;
    for my $entry (@{ $_[0] || [] }) {
        my $e = pb_msg($entry);
        $out{ $e->{1} // '' } = $e->{2} // '';
    }
    return \%out;
}

# A ConfigMap's raw bytes -> {metadata, data}.
sub pb_configmap {
    my $m = pb_msg(shift);
    return { metadata => pb_meta($m->{1}), data => pb_map($m->{'2*'}) };
}

# A Status envelope -> its fields.
sub pb_status {
    my $env = pb_unwrap(shift) or return {};
    my $m = pb_msg($env->{raw});
    my $d = defined $m->{5} ? pb_msg($m->{5}) : undef;
    return { kind => $env->{kind}, apiVersion => $env->{apiVersion}, status => $m->{2},
        message => $m->{3}, reason => $m->{4}, code => $m->{6},
        details => $d && { name => $d->{1}, group => $d->{2}, kind => $d->{3}, uid => $d->{6} } };
}

my $KUBECTL_ACCEPT = "$PB,application/json";

sub pb_get {
    my ($path, $accept) = @_;
    return $s->request('GET', $path, headers => { Accept => $accept // $KUBECTL_ACCEPT });
}

my $cm_path = "$path/raw";
$r = pb_get($cm_path);
is($r->{status}, 200, 'GET with kubectl\'s typed Accept: 200');
is($r->{headers}{'content-type'}, $PB, 'GET: the protobuf media type');
my $env = pb_unwrap($r->{body});
ok($env, 'GET: the body is a k8s envelope') or diag(unpack 'H*', $r->{body});
is_deeply([ @{$env}{qw(apiVersion kind encoding type)} ], [ 'v1', 'ConfigMap', '', '' ],
    'GET: typeMeta v1 ConfigMap, the empty contentEncoding and contentType written out');
my $cm_pb = pb_configmap($env->{raw});
my $cm_json = json_of($s->request('GET', $cm_path)->{body});
is_deeply($cm_pb->{metadata}, { name => 'raw', namespace => 'pb-1-32',
        uid => $cm_json->{metadata}{uid}, resourceVersion => $cm_json->{metadata}{resourceVersion},
        creationTimestamp => $cm_pb->{metadata}{creationTimestamp} },
    'GET: the metadata JSON shows, uid and resourceVersion included');
ok($cm_pb->{metadata}{creationTimestamp} > 1_600_000_000,
    'GET: creationTimestamp in seconds');
is_deeply($cm_pb->{data}, { k => 'v' }, 'GET: the data');

$r = pb_get($path);
is($r->{status}, 200, 'LIST in protobuf: 200');
is($r->{headers}{'content-type'}, $PB, 'LIST: the protobuf media type');
$env = pb_unwrap($r->{body});
is($env && $env->{kind}, 'ConfigMapList', 'LIST: kind ConfigMapList');
my $list = pb_msg($env->{raw} // '');
my $lm = pb_msg($list->{1} // '');
like($lm->{2} // '', qr/^\d+$/, 'LIST: ListMeta carries the resourceVersion');
my @pb_names = map { pb_configmap($_)->{metadata}{name} } @{ $list->{'2*'} || [] };
my @json_names = map { $_->{metadata}{name} }
    @{ json_of($s->request('GET', $path)->{body})->{items} || [] };
is_deeply(\@pb_names, \@json_names, 'LIST: the same items as the JSON list, in order');

my $new_raw = pb_bytes(1, pb_bytes(1, 'pb-created'))
    . pb_bytes(2, pb_bytes(1, 'x') . pb_bytes(2, 'y'));
$r = $s->request('POST', $path, headers => { 'Content-Type' => $PB, Accept => $KUBECTL_ACCEPT },
    body => pb_envelope('v1', 'ConfigMap', $new_raw));
is($r->{status}, 201, 'CREATE with a protobuf body and Accept: 201');
is($r->{headers}{'content-type'}, $PB, 'CREATE: answered in protobuf');
$env = pb_unwrap($r->{body});
my $created = pb_configmap($env->{raw} // '');
is($created->{metadata}{name}, 'pb-created', 'CREATE: the created object');
like($created->{metadata}{uid} // '', qr/^[0-9a-f-]{36}$/, 'CREATE: with its uid');

$r = $s->request('DELETE', "$path/pb-created", headers => { Accept => $PB });
is($r->{status}, 200, 'DELETE in protobuf: 200');
is($r->{headers}{'content-type'}, $PB, 'DELETE: the protobuf media type');
is_deeply(pb_status($r->{body}), { kind => 'Status', apiVersion => 'v1', status => 'Success',
        message => '', reason => '', code => 0, details => { name => 'pb-created', group => '',
            kind => 'configmaps', uid => $created->{metadata}{uid} } },
    'DELETE: a success Status naming the object, code 0 as its JSON has none');

$r = pb_get("$path/nosuch");
is($r->{status}, 404, 'GET a missing object in protobuf: 404');
is($r->{headers}{'content-type'}, $PB, '404: a protobuf Status');
is_deeply(pb_status($r->{body}), { kind => 'Status', apiVersion => 'v1', status => 'Failure',
        message => 'configmaps "nosuch" not found', reason => 'NotFound', code => 404,
        details => { name => 'nosuch', group => '', kind => 'configmaps', uid => '' } },
    '404: NotFound with kube\'s message and details');

$r = pb_get('/api/v1/nosuchresource', $PB);
is($r->{status}, 404, 'an unknown resource in protobuf: 404');
is(pb_status($r->{body})->{message}, 'the server could not find the requested resource',
    'an unknown resource: the generic NotFound, in protobuf');

$r = pb_get($cm_path, 'application/xml');
is($r->{status}, 406, 'Accept application/xml: 406');
is($r->{headers}{'content-type'}, 'application/json', '406: a JSON Status');
json_subset_ok(json_of($r->{body}), { kind => 'Status', reason => 'NotAcceptable', code => 406,
        message => "406: Not Acceptable\n\nAvailable representations: application/json, $PB" },
    '406: kube\'s message naming what is served');

$r = pb_get($cm_path, "$PB;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;"
    . 'g=meta.k8s.io,application/json');
is($r->{headers}{'content-type'}, 'application/json',
    'a protobuf Table is skipped: kube transforms to Table in JSON only');
is(json_of($r->{body})->{kind}, 'Table', 'the JSON Table that came next');

# --- a protobuf watch: length-prefixed WatchEvents --------------------------------
my $wns = 'pb-watch';
$s->request('POST', '/api/v1/namespaces', headers => { 'Content-Type' => 'application/json' },
    body => encode_json({ metadata => { name => $wns } }));
for my $name (qw(a b)) {
    $s->request('POST', "/api/v1/namespaces/$wns/configmaps",
        headers => { 'Content-Type' => 'application/json' },
        body => encode_json({ metadata => { name => $name }, data => { v => $name } }));
}
my $child = fork();
die "fork: $!" unless defined $child;
if ($child == 0) {
    # While the parent watches: one new object, one change.
    sleep 1;
    $s->request('POST', "/api/v1/namespaces/$wns/configmaps",
        headers => { 'Content-Type' => 'application/json' },
        body => encode_json({ metadata => { name => 'c' }, data => { v => 'c' } }));
    $s->request('PUT', "/api/v1/namespaces/$wns/configmaps/a",
        headers => { 'Content-Type' => 'application/json' },
        body => encode_json({ metadata => { name => 'a' }, data => { v => 'a2' } }));
    POSIX::_exit(0);
}
$r = pb_get("/api/v1/namespaces/$wns/configmaps?watch=1&timeoutSeconds=3",
    "$PB;stream=watch, application/json");
waitpid($child, 0);
is($r->{status}, 200, 'a protobuf watch: 200');
is($r->{headers}{'content-type'}, "$PB;stream=watch", 'a protobuf watch: its stream media type');
my @events;
my $stream = $r->{body};
while (length $stream >= 4) {
    my $n = unpack 'N', substr($stream, 0, 4, '');
    last if length $stream < $n;
    my $ev = pb_msg(substr($stream, 0, $n, ''));
    my $obj = pb_unwrap(pb_msg($ev->{2} // '')->{1});
    my $cm = pb_configmap($obj ? $obj->{raw} : '');
    push @events, join ' ', $ev->{1} // '?', $obj ? $obj->{kind} : 'no-envelope',
        $cm->{metadata}{name} // '', $cm->{data}{v} // '';
}
is($stream, '', 'a protobuf watch: whole frames only');
is_deeply(\@events, [ 'ADDED ConfigMap a a', 'ADDED ConfigMap b b', 'ADDED ConfigMap c c',
        'MODIFIED ConfigMap a a2' ],
    'a protobuf watch: each frame a WatchEvent holding the object\'s own envelope');

$r = $s->request('DELETE', "/api/v1/namespaces/$wns/configmaps", headers => { Accept => $PB });
is($r->{status}, 200, 'DELETE a collection in protobuf: 200');
$env = pb_unwrap($r->{body});
is($env && $env->{kind}, 'ConfigMapList', 'DELETE a collection: the deleted objects as a list');
my @deleted = @{ pb_msg($env->{raw} // '')->{'2*'} || [] };
is_deeply([ map { pb_configmap($_)->{metadata}{name} } @deleted ], [ 'a', 'b', 'c' ],
    'DELETE a collection: every object it deleted');

# --- a large list, streamed in protobuf ----------------------------------------------
my $lns = 'pb-large';
$s->request('POST', '/api/v1/namespaces', headers => { 'Content-Type' => 'application/json' },
    body => encode_json({ metadata => { name => $lns } }));
my $filler = 'x' x 2048;
my $made = 0;
for my $i (1 .. 300) {
    my $cr = $s->request('POST', "/api/v1/namespaces/$lns/configmaps",
        headers => { 'Content-Type' => 'application/json' },
        body => encode_json({ metadata => { name => sprintf('cm-%03d', $i) },
            data => { v => $filler } }));
    $made++ if $cr->{status} == 201;
}
is($made, 300, '300 ConfigMaps of 2 KiB');
$r = pb_get("/api/v1/namespaces/$lns/configmaps", $PB);
is($r->{status}, 200, 'the large list in protobuf: 200');
ok(!defined $r->{headers}{'content-length'}, 'the large list: streamed (no Content-Length)');
$env = pb_unwrap($r->{body});
is($env && $env->{kind}, 'ConfigMapList', 'the large list: one ConfigMapList envelope');
is(length($r->{body}), length(pb_envelope('v1', 'ConfigMapList', $env->{raw} // '')),
    'the large list: the envelope\'s lengths cover the body exactly');
$list = pb_msg($env->{raw} // '');
my @items = map { pb_configmap($_) } @{ $list->{'2*'} || [] };
is(scalar @items, 300, 'the large list: 300 items');
my %seen;
$seen{ $_->{metadata}{name} }++ for @items;
is(scalar(grep { $seen{ sprintf('cm-%03d', $_) } == 1 } 1 .. 300), 300,
    'the large list: every item exactly once');
ok(!grep({ ($_->{data}{v} // '') ne $filler } @items), 'the large list: every item whole');

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit/sanitizer lines') or diag(join "\n", @bad);
ok($s->stop, 'nginx stops gracefully');
done_testing();
