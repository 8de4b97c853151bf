# The real kube-controller-manager and kube-scheduler (v1.26.5, ../shared/bin)
# against this server, as a control plane: both take their leader leases, a
# new namespace gets its ServiceAccount and root CA ConfigMap, a Deployment
# turns into a ReplicaSet and Pods bound to a Node, scaling follows, a
# Service gets a ClusterIP, Endpoints and an EndpointSlice, a Job gets its
# Pod, deleting the Deployment collects what it owned, deleting the
# namespace completes, events are recorded, and neither component logs a
# resource it could not list or watch.
use lib 't/lib';
use Test::Kube;
use Test::More;

plan skip_all => 'no reference kube-controller-manager and kube-scheduler in ../shared/bin'
    unless reference_binary('kube-controller-manager') && reference_binary('kube-scheduler');

# The service range the controller manager is given too.
my $server = start_server(tls => 1, workers => 2, reuseport => 1,
    http_config => "kube_service_cluster_ip_range 10.96.0.0/16;\n", config => <<'EOF');
location / {
    kube_api;
}
EOF
my $kubeconfig = $server->kubeconfig;
my $certs = cert_dir();
my @common = ("--kubeconfig=$kubeconfig", "--authentication-kubeconfig=$kubeconfig",
    "--authorization-kubeconfig=$kubeconfig", '--bind-address=127.0.0.1', '-v=2');

# The node lifecycle controller would mark the test's Node unreachable 40 s
# after its last heartbeat, which no kubelet sends here; a grace period
# longer than the file keeps it Ready.
my $kcm = start_reference_component('kube-controller-manager', @common,
    '--secure-port=' . free_port(), '--cert-dir=' . scratch_dir() . '/kcm-certs',
    '--use-service-account-credentials=false', '--controllers=*,-service-ca-cert-publisher',
    "--root-ca-file=$certs/ca.crt", "--cluster-signing-cert-file=$certs/ca.crt",
    "--cluster-signing-key-file=$certs/ca.key", '--service-cluster-ip-range=10.96.0.0/16',
    '--node-monitor-grace-period=10m');
my $scheduler = start_reference_component('kube-scheduler', @common,
    '--secure-port=' . free_port(), '--cert-dir=' . scratch_dir() . '/scheduler-certs');

# --- Leader election: each component takes its lease in kube-system.
for my $name ('kube-controller-manager', 'kube-scheduler') {
    my $lease;
    wait_until(sub {
        $lease = $server->get_json("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$name");
        $lease && $lease->{spec}{holderIdentity};
    }, 60);
    ok($lease && $lease->{spec}{holderIdentity}, "$name holds its lease")
        or diag(slurp($name eq 'kube-scheduler' ? $scheduler->{log} : $kcm->{log}));
}

# --- A new namespace: its default ServiceAccount and the root CA ConfigMap.
my $ns = 'flows';
$server->create_namespace($ns);
my $sa = wait_until(sub { $server->get_json("/api/v1/namespaces/$ns/serviceaccounts/default") }, 30);
ok($sa, 'the namespace has its default ServiceAccount');
my $root_ca = wait_until(sub { $server->get_json("/api/v1/namespaces/$ns/configmaps/kube-root-ca.crt") },
    30);
is($root_ca && $root_ca->{data}{'ca.crt'}, slurp("$certs/ca.crt"),
    'kube-root-ca.crt holds the root CA the controller manager was given');

# --- A Node with room, Ready.
my ($st, $body) = $server->call(POST => '/api/v1/nodes', { apiVersion => 'v1', kind => 'Node',
    metadata => { name => 'node-a', labels => { 'kubernetes.io/hostname' => 'node-a' } } });
is($st, 201, 'Node created') or diag(explain($body));
my $now = do { my @t = gmtime; sprintf '%04d-%02d-%02dT%02d:%02d:%02dZ', $t[5] + 1900, $t[4] + 1, @t[3, 2, 1, 0] };
($st, $body) = $server->patch(merge => '/api/v1/nodes/node-a/status', { status => {
    capacity => { cpu => '32', memory => '64Gi', pods => '110' },
    allocatable => { cpu => '32', memory => '64Gi', pods => '110' },
    conditions => [ { type => 'Ready', status => 'True', reason => 'KubeletReady',
        message => 'ready', lastHeartbeatTime => $now, lastTransitionTime => $now } ] } });
is($st, 200, 'Node status says Ready') or diag(explain($body));
# The node lifecycle controller lifts the not-ready taint of a Ready node.
my $untainted = wait_until(sub {
    my $n = $server->get_json('/api/v1/nodes/node-a');
    $n && !grep { $_->{key} eq 'node.kubernetes.io/not-ready' } @{ $n->{spec}{taints} || [] };
}, 30);
ok($untainted, 'the Ready node carries no not-ready taint');

# Objects of a kind in the namespace that match a label, by a GET.
sub items {
    my ($path, $selector) = @_;
    my $q = defined $selector ? '?labelSelector=' . $selector : '';
    my $list = $server->get_json("$path$q");
    return @{ ($list && $list->{items}) || [] };
}
sub pods_of { return items("/api/v1/namespaces/$ns/pods", $_[0]) }

# --- A Deployment of 3: a ReplicaSet, 3 Pods owned by it, bound to the Node.
$server->kc_ok(undef, undef, 'create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=3',
    '-n', $ns);
my @rs;
wait_until(sub { @rs = items("/apis/apps/v1/namespaces/$ns/replicasets", 'app=web'); @rs == 1 }, 30);
is(scalar @rs, 1, 'the Deployment has one ReplicaSet');
my $deployment = $server->get_json("/apis/apps/v1/namespaces/$ns/deployments/web");
is($rs[0]{metadata}{ownerReferences}[0]{uid}, $deployment->{metadata}{uid},
    '... owned by the Deployment');
my @pods;
my $bound = wait_until(sub {
    @pods = pods_of('app=web');
    @pods == 3 && !grep { ($_->{spec}{nodeName} // '') ne 'node-a' } @pods;
}, 60);
ok($bound, 'three Pods exist, bound to the Node')
    or diag(explain([ map { [$_->{metadata}{name}, $_->{spec}{nodeName}] } @pods ]));
is(scalar(grep { $_->{metadata}{ownerReferences}[0]{uid} eq $rs[0]{metadata}{uid} } @pods), 3,
    '... each owned by the ReplicaSet');
my $status_ok = wait_until(sub {
    my $d = $server->get_json("/apis/apps/v1/namespaces/$ns/deployments/web");
    $d && ($d->{status}{replicas} // 0) == 3 && ($d->{status}{updatedReplicas} // 0) == 3
        && ($d->{status}{observedGeneration} // 0) == $d->{metadata}{generation};
}, 30);
ok($status_ok, 'the Deployment status counts 3 updated replicas');

# --- Scaling follows.
$server->kc_ok(undef, undef, 'scale', 'deployment', 'web', '--replicas=5', '-n', $ns);
ok(wait_until(sub { @pods = pods_of('app=web'); @pods == 5 && !grep { !$_->{spec}{nodeName} } @pods },
    60), 'scaled to 5: five Pods, bound');
$server->kc_ok(undef, undef, 'scale', 'deployment', 'web', '--replicas=2', '-n', $ns);
ok(wait_until(sub {
    @pods = grep { !$_->{metadata}{deletionTimestamp} } pods_of('app=web');
    @pods == 2;
}, 60), 'scaled to 2: two Pods left');

# --- A Service: a ClusterIP from the range, Endpoints and an EndpointSlice
# that follow a Pod becoming ready (marked so here, as its kubelet would).
$server->kc_ok(undef, undef, 'expose', 'deployment', 'web', '--port=80', '-n', $ns);
my $svc = $server->get_json("/api/v1/namespaces/$ns/services/web");
like($svc->{spec}{clusterIP} // '', qr/^10\.96\.\d+\.\d+$/, 'the Service has a ClusterIP from the range');
my $ready_pod = $pods[0]{metadata}{name};
($st, $body) = $server->patch(merge => "/api/v1/namespaces/$ns/pods/$ready_pod/status", { status => {
    phase => 'Running', podIP => '10.244.0.7', podIPs => [ { ip => '10.244.0.7' } ],
    conditions => [ { type => 'Ready', status => 'True', lastTransitionTime => $now } ] } });
is($st, 200, 'one Pod marked Running and Ready with an IP') or diag(explain($body));
my $endpoints;
ok(wait_until(sub {
    $endpoints = $server->get_json("/api/v1/namespaces/$ns/endpoints/web");
    $endpoints && ($endpoints->{subsets}[0]{addresses}[0]{ip} // '') eq '10.244.0.7';
}, 30), 'the Endpoints list the ready Pod') or diag(explain($endpoints));
my @slices;
ok(wait_until(sub {
    @slices = items("/apis/discovery.k8s.io/v1/namespaces/$ns/endpointslices",
        'kubernetes.io/service-name=web');
    @slices && grep { ($_->{addresses}[0] // '') eq '10.244.0.7' } @{ $slices[0]{endpoints} || [] };
}, 30), 'an EndpointSlice lists it too') or diag(explain(\@slices));

# --- A Job gets its Pod.
$server->kc_ok(undef, undef, 'create', 'job', 'once', '--image=busybox:1.36', '-n', $ns, '--',
    'true');
my @job_pods;
ok(wait_until(sub { @job_pods = pods_of('job-name=once'); @job_pods == 1 }, 30),
    'the Job has its Pod');
is($job_pods[0]{metadata}{ownerReferences}[0]{kind}, 'Job', '... owned by the Job');

# --- Events were recorded by both components.
my %reasons;
wait_until(sub {
    %reasons = map { ($_->{reason} => 1) } items("/api/v1/namespaces/$ns/events");
    $reasons{ScalingReplicaSet} && $reasons{SuccessfulCreate} && $reasons{Scheduled};
}, 30);
ok($reasons{$_}, "a $_ event was recorded") for qw(ScalingReplicaSet SuccessfulCreate Scheduled);

# --- Deleting the Deployment collects its ReplicaSet and Pods. A Pod bound
# to a Node is deleted gracefully and stays Terminating until its kubelet
# confirms; with no kubelet here, the test confirms as one would.
$server->kc_ok(undef, undef, 'delete', 'deployment', 'web', '-n', $ns, '--wait=false');
ok(wait_until(sub {
    !items("/apis/apps/v1/namespaces/$ns/replicasets", 'app=web')
        && !grep { !$_->{metadata}{deletionTimestamp} } pods_of('app=web');
}, 60), 'the garbage collector removed the ReplicaSet and is deleting its Pods')
    or diag(explain([ map { [$_->{metadata}{name}, $_->{metadata}{deletionTimestamp}] } pods_of('app=web') ]));
sub confirm_terminating_pods {
    for my $pod (grep { $_->{metadata}{deletionTimestamp} } pods_of()) {
        $server->call(DELETE => "/api/v1/namespaces/$ns/pods/$pod->{metadata}{name}",
            { apiVersion => 'v1', kind => 'DeleteOptions', gracePeriodSeconds => 0 });
    }
}
confirm_terminating_pods();
ok(wait_until(sub { !pods_of('app=web') }, 30), '... and once confirmed they are gone');

# --- Deleting the namespace completes.
($st) = $server->call(DELETE => "/api/v1/namespaces/$ns");
is($st, 200, 'namespace deletion accepted');
ok(wait_until(sub {
    confirm_terminating_pods();
    my (undef, undef, $r) = $server->call(GET => "/api/v1/namespaces/$ns");
    $r->{status} == 404;
}, 60), 'the namespace is gone');

# --- Nothing either component wanted was refused or missing.
for my $c ($kcm, $scheduler) {
    my $text = slurp($c->{log});
    my @failed = $text =~ /(failed to list \S+|Failed to watch \S+|forbidden: User)/g;
    is_deeply(\@failed, [], "$c->{name} listed and watched everything it wanted")
        or diag(join "\n", grep { /failed to list|Failed to watch|forbidden/ } split /\n/, $text);
    ok(pid_alive($c->{pid}), "$c->{name} is still running");
}
$server->fatal_free_ok($server->error_log_since_start, 'the server logged nothing fatal');

done_testing();
