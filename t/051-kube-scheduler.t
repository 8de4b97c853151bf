# The real kube-scheduler (v1.26.5, ../shared/bin) against this server: its
# informers sync (storage.k8s.io kinds, replicationcontrollers), it takes
# and renews its leader lease, binds a pod to a Node the test made through
# pods/binding, and marks a pod that fits nowhere Unschedulable with an event.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Time::HiRes ();

plan skip_all => 'no reference kube-scheduler (../shared/bin/kube-scheduler.xz)'
    unless reference_binary('kube-scheduler');

my $server = start_server(tls => 1, config => <<'EOF');
location / {
    kube_api;
}
EOF
my $kubeconfig = $server->kubeconfig;

# --- kube-scheduler with the admin kubeconfig; its log is read by the checks
# below.
my $started = Time::HiRes::time();
my $scheduler = start_reference_component('kube-scheduler', "--kubeconfig=$kubeconfig",
    "--authentication-kubeconfig=$kubeconfig", "--authorization-kubeconfig=$kubeconfig",
    '--bind-address=127.0.0.1', '--secure-port=' . free_port(),
    '--cert-dir=' . scratch_dir() . '/scheduler-certs', '-v=2');
my $log = $scheduler->{log};

# --- The lease: taken, then renewed.
my $lease_path = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler';
my $lease;
wait_until(sub { $lease = $server->get_json($lease_path); $lease && $lease->{spec}{holderIdentity} },
    60);
ok($lease && $lease->{spec}{holderIdentity}, 'kube-scheduler holds its lease in kube-system')
    or diag(slurp($log));
diag(sprintf 'lease taken %.1f s after the scheduler started', Time::HiRes::time() - $started);
my $first_renew = $lease->{spec}{renewTime} // '';
my $renewed = wait_until(sub {
    my $l = $server->get_json($lease_path);
    $l && ($l->{spec}{renewTime} // '') ne $first_renew;
}, 20);
ok($renewed, 'kube-scheduler renews its lease');

# --- Everything its informers list synced: nothing it could not list or watch.
my $synced = wait_until(sub { slurp($log) =~ /successfully acquired lease/ }, 30);
ok($synced, 'its informers synced: it went on to leader election and won');
my $text = slurp($log);
my @failed = $text =~ /(failed to list \S+|Failed to watch \S+)/g;
is_deeply(\@failed, [], 'the scheduler listed and watched every resource it wanted')
    or diag(join "\n", grep { /failed to list|Failed to watch/ } split /\n/, $text);

# --- A Node with room for pods.
my $ns = 'sched';
$server->create_namespace($ns);
my $node = { apiVersion => 'v1', kind => 'Node',
    metadata => { name => 'node-a', labels => { 'kubernetes.io/hostname' => 'node-a' } } };
my ($st, $body) = $server->call(POST => '/api/v1/nodes', $node);
is($st, 201, 'Node created') or diag(explain($body));
my $status = { status => {
    capacity => { cpu => '4', memory => '8Gi', pods => '110' },
    allocatable => { cpu => '4', memory => '8Gi', pods => '110' },
    conditions => [ { type => 'Ready', status => 'True', reason => 'KubeletReady',
        message => 'ready', lastHeartbeatTime => '2026-01-01T00:00:00Z',
        lastTransitionTime => '2026-01-01T00:00:00Z' } ] } };
($st, $body) = $server->patch(merge => '/api/v1/nodes/node-a/status', $status);
is($st, 200, 'Node status says Ready with 4 CPUs') or diag(explain($body));
# kube-apiserver's TaintNodesByCondition admission taints a new node
# not-ready, which the controller manager's node lifecycle controller lifts
# once it is Ready; with no controller manager here, lift it as it would.
($st, $body) = $server->patch(merge => '/api/v1/nodes/node-a', { spec => { taints => undef } });
is($st, 200, 'Node carries no taint');

sub pod {
    my ($name, $cpu) = @_;
    return { apiVersion => 'v1', kind => 'Pod', metadata => { name => $name },
        spec => { containers => [ { name => 'c', image => 'nginx:1.25',
            resources => { requests => { cpu => $cpu } } } ] } };
}

# Creates a pod once the namespace's default ServiceAccount is there (the
# ServiceAccount admission plugin waits for it); its status code.
sub create_pod {
    my ($name, $cpu) = @_;
    my $code;
    wait_until(sub {
        ($code) = $server->call(POST => "/api/v1/namespaces/$ns/pods", pod($name, $cpu));
        $code != 403 && $code != 500;
    }, 10);
    return $code;
}

# --- A pod that fits is bound to the node.
my $t0 = Time::HiRes::time();
is(create_pod('fits', '100m'), 201, 'pod created');
my $pod;
my $bound = wait_until(sub {
    $pod = $server->get_json("/api/v1/namespaces/$ns/pods/fits");
    $pod && $pod->{spec}{nodeName};
}, 30);
my $bind_time = Time::HiRes::time() - $t0;
is($pod->{spec}{nodeName}, 'node-a', 'the scheduler bound the pod to the node')
    or diag(slurp($log));
diag(sprintf 'pod bound %.2f s after it was created', $bind_time);
my ($scheduled) = grep { $_->{type} eq 'PodScheduled' } @{ $pod->{status}{conditions} || [] };
is($scheduled->{status}, 'True', 'its PodScheduled condition is True');
like($scheduled->{lastTransitionTime} // '', qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    '... since a time');
my $events;
my $event_seen = wait_until(sub {
    $events = $server->get_json("/api/v1/namespaces/$ns/events");
    grep { $_->{reason} eq 'Scheduled' && $_->{involvedObject}{name} eq 'fits' }
        @{ $events->{items} || [] };
}, 20);
ok($event_seen, 'a Scheduled event names the pod');

# --- A pod that fits nowhere: Unschedulable, and an event says why.
is(create_pod('too-big', '64'), 201, 'a pod asking for 64 CPUs is created');
my $unschedulable = wait_until(sub {
    my $p = $server->get_json("/api/v1/namespaces/$ns/pods/too-big");
    ($scheduled) = grep { $_->{type} eq 'PodScheduled' } @{ $p->{status}{conditions} || [] };
    $scheduled && $scheduled->{status} eq 'False';
}, 30);
ok($unschedulable, 'its PodScheduled condition is False');
is($scheduled->{reason}, 'Unschedulable', '... reason Unschedulable');
like($scheduled->{message} // '', qr/Insufficient cpu/, '... the message says why');
my ($failed_event);
wait_until(sub {
    $events = $server->get_json("/api/v1/namespaces/$ns/events");
    ($failed_event) = grep { $_->{reason} eq 'FailedScheduling'
        && $_->{involvedObject}{name} eq 'too-big' } @{ $events->{items} || [] };
    $failed_event;
}, 20);
ok($failed_event, 'a FailedScheduling event names the pod');
like($failed_event->{message} // '', qr/Insufficient cpu/, '... and says why');
my $p = $server->get_json("/api/v1/namespaces/$ns/pods/too-big");
ok(!$p->{spec}{nodeName}, '... and the pod stays unbound');

# --- The storage kinds the scheduler watches, through kubectl.
my $out = $server->kc_ok(undef, 'kubectl get storageclass,csidriver,csinode',
    'get', 'storageclass,csidriver,csinode');
my $sc = { apiVersion => 'storage.k8s.io/v1', kind => 'StorageClass',
    metadata => { name => 'fast' }, provisioner => 'csi.example.com' };
($st, $body) = $server->call(POST => '/apis/storage.k8s.io/v1/storageclasses', $sc);
is($st, 201, 'StorageClass created');
is($body->{reclaimPolicy}, 'Delete', '... reclaimPolicy defaults to Delete');
is($body->{volumeBindingMode}, 'Immediate', '... volumeBindingMode to Immediate');
$out = $server->kc_ok(undef, undef, 'get', 'sc');
like($out, qr/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n/,
    'kubectl get sc shows kube\'s columns');
like($out, qr/^fast\s+csi\.example\.com\s+Delete\s+Immediate\s+false\s+\S+$/m, '... and the class');

# --- Storage objects the scheduler's informers now watch arrive as protobuf
# events; a pod scheduled after them is still bound, and nothing failed to
# decode or list.
for my $obj (
    [ '/apis/storage.k8s.io/v1/csidrivers', { apiVersion => 'storage.k8s.io/v1',
        kind => 'CSIDriver', metadata => { name => 'csi.example.com' }, spec => {} } ],
    [ '/apis/storage.k8s.io/v1/csinodes', { apiVersion => 'storage.k8s.io/v1', kind => 'CSINode',
        metadata => { name => 'node-a' }, spec => { drivers => [ { name => 'csi.example.com',
            nodeID => 'node-a', topologyKeys => ['topology.example.com/zone'],
            allocatable => { count => 8 } } ] } } ],
    [ "/apis/storage.k8s.io/v1/namespaces/$ns/csistoragecapacities", {
        apiVersion => 'storage.k8s.io/v1', kind => 'CSIStorageCapacity',
        metadata => { name => 'fast-a' }, storageClassName => 'fast', capacity => '10Gi',
        nodeTopology => { matchLabels => { 'kubernetes.io/hostname' => 'node-a' } } } ],
    [ '/api/v1/namespaces/' . $ns . '/replicationcontrollers', { apiVersion => 'v1',
        kind => 'ReplicationController', metadata => { name => 'rc' }, spec => { replicas => 0,
            template => { metadata => { labels => { app => 'rc' } },
                spec => { containers => [ { name => 'c', image => 'nginx:1.25' } ] } } } } ],
) {
    ($st, $body) = $server->call(POST => $obj->[0], $obj->[1]);
    is($st, 201, "$obj->[1]{kind} created") or diag(explain($body));
}
is(create_pod('after-storage', '100m'), 201, 'another pod created');
wait_until(sub {
    $pod = $server->get_json("/api/v1/namespaces/$ns/pods/after-storage");
    $pod && $pod->{spec}{nodeName};
}, 30);
is($pod->{spec}{nodeName}, 'node-a', '... and bound with the CSI objects in place');
$out = $server->kc_ok(undef, undef, 'get', 'csidriver,csinode');
like($out, qr/^csidriver\.storage\.k8s\.io\/csi\.example\.com\s+true\s+false\s+false\s+<unset>\s+false\s+Persistent\s/m,
    'kubectl get csidriver shows its defaults');
like($out, qr/^csinode\.storage\.k8s\.io\/node-a\s+1\s/m, 'kubectl get csinode counts its drivers');
$text = slurp($log);
my @errors = grep { /failed to list|Failed to watch|unable to decode|Unhandled Error|failed to decode/i }
    split /\n/, $text;
is_deeply(\@errors, [], 'the scheduler logged no list, watch or decode failure');

# The scheduler is still alive and still holds the lease.
ok(pid_alive($scheduler->{pid}), 'the scheduler is still running');
my $l = $server->get_json($lease_path);
is($l->{spec}{holderIdentity}, $lease->{spec}{holderIdentity}, '... and still holds its lease');
$server->fatal_free_ok($server->error_log_since_start, 'the server');

done_testing();
