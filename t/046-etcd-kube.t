# This server and the real kube-apiserver (v1.26.5, ../shared/bin) on one
# etcd: objects either writes are read, listed, updated and watched through
# the other, because both keep kube's key layout and storage encoding.
use lib 't/lib';
use Test::Kube;
use Test::More;
use HTTP::Tiny;
use POSIX ();

my $bin_dir = $ENV{KUBE_REFERENCE_BIN} // "$Test::Kube::RepoRoot/../shared/bin";
my $xz = "$bin_dir/kube-apiserver.xz";
plan skip_all => "no $xz (the reference kube-apiserver binaries are not here)" unless -f $xz;
my $etcd = start_etcd();
plan skip_all => 'no etcd' unless $etcd;

# --- kube-apiserver on the test's etcd, token auth, loopback high ports.
my $dir = scratch_dir();
my $kas = "$dir/kube-apiserver";
my ($rc, undef, $err) = run_command(['/bin/sh', '-c', 'xz -dc "$1" > "$2" && chmod +x "$2"',
    'unpack', $xz, $kas]);
die "cannot unpack $xz: $err" if $rc;
($rc, undef, $err) = run_command(['openssl', 'genrsa', '-out', "$dir/sa.key", '2048']);
die "openssl genrsa: $err" if $rc;
my $token = 'interop-admin-token';
spew("$dir/tokens.csv", "$token,admin,admin,system:masters\n");
my $port = free_port();
my $kas_started = time;
my $kas_pid = fork;
die "fork: $!" unless defined $kas_pid;
if ($kas_pid == 0) {
    open STDOUT, '>', "$dir/kube-apiserver.log";
    open STDERR, '>&', \*STDOUT;
    { exec $kas, "--etcd-servers=$etcd->{url}", "--secure-port=$port", '--bind-address=127.0.0.1',
        "--cert-dir=$dir/kas-certs", "--token-auth-file=$dir/tokens.csv",
        '--authorization-mode=RBAC', '--service-account-issuer=https://kubernetes.default.svc',
        "--service-account-key-file=$dir/sa.key",
        "--service-account-signing-key-file=$dir/sa.key",
        "--service-cluster-ip-range=10.96.0.0/16", "--etcd-compaction-interval=3s" };
    POSIX::_exit(127);
}
END {
    local $?;    # keep the test's exit status
    if ($kas_pid) {
        kill 'TERM', $kas_pid;
        wait_until(sub { !pid_alive($kas_pid) }, 10) or kill 'KILL', $kas_pid;
        waitpid($kas_pid, 0);
    }
}
my $kas_url = "https://127.0.0.1:$port";
my $http = HTTP::Tiny->new(timeout => 10, verify_SSL => 0,
    default_headers => { Authorization => "Bearer $token" });
my $ready = wait_until(sub { $http->get("$kas_url/readyz")->{status} == 200 }, 90);
ok($ready, 'kube-apiserver v1.26.5 is ready on the test etcd')
    or BAIL_OUT('kube-apiserver did not start: ' . slurp("$dir/kube-apiserver.log"));

my $kubeconfig = "$dir/kas.kubeconfig";
spew($kubeconfig, <<"EOF");
apiVersion: v1
kind: Config
clusters:
- name: kas
  cluster: {server: "$kas_url", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: $token}
contexts:
- name: kas
  context: {cluster: kas, user: admin}
current-context: kas
EOF

# kubectl against kube-apiserver: (exit code, stdout, stderr)
sub kas_kubectl {
    my @args = @_;
    my %o = (@args && ref $args[-1] eq 'HASH') ? %{ pop @args } : ();
    return run_command([$Test::Kube::Kubectl, "--kubeconfig=$kubeconfig",
        "--cache-dir=$dir/kubectl-cache", @args], stdin => $o{stdin}, timeout => 60,
        env => { KUBECONFIG => undef, HOME => $dir });
}

# kube-apiserver's JSON of `kubectl get @args` once it exists (its watch
# cache follows etcd within moments), {} if it never does.
sub kas_get {
    my @args = @_;
    my $obj;
    wait_until(sub {
        my ($rc, $out) = kas_kubectl('get', @args, '-o', 'json');
        $obj = $rc == 0 ? json_of($out) : undef;
        $obj;
    }, 10);
    return $obj || {};
}

# --- This server on the same etcd.
# The service range kube-apiserver was given: both allocate from one RangeAllocation.
my $http_config = "kube_storage etcd:$etcd->{url};\nkube_compaction_interval 3s;\n"
    . "kube_service_cluster_ip_range 10.96.0.0/16;\n";
my $server = start_server(http_config => $http_config, config => <<'EOF');
location / {
    kube_api;
    kube_anonymous_auth on;
}
EOF

# This server's answer to GET $path once it is $status.
sub get_when {
    my ($path, $status) = @_;
    my @r;
    wait_until(sub { @r = $server->call(GET => $path); $r[0] == $status }, 10);
    return @r;
}

my $deployment = sub {
    my ($name) = @_;
    return { apiVersion => 'apps/v1', kind => 'Deployment', metadata => { name => $name },
        spec => { replicas => 2, selector => { matchLabels => { app => $name } },
            template => { metadata => { labels => { app => $name } },
                spec => { containers => [ { name => 'web', image => 'nginx:1.25' } ] } } } };
};

# --- Written here, read by kube-apiserver.
{
    my $ns = 'written-here';
    $server->create_namespace($ns);
    my ($st, $cm) = $server->call(POST => "/api/v1/namespaces/$ns/configmaps", {
        apiVersion => 'v1', kind => 'ConfigMap', metadata => { name => 'cm',
            labels => { from => 'nginx' } }, data => { greeting => 'hello' } });
    is($st, 201, 'ConfigMap created here');
    my ($dst, $deploy) = $server->call(POST => "/apis/apps/v1/namespaces/$ns/deployments",
        $deployment->('web'));
    is($dst, 201, 'Deployment created here');
    my ($sst, $svc) = $server->call(POST => "/api/v1/namespaces/$ns/services", {
        apiVersion => 'v1', kind => 'Service', metadata => { name => 'web' },
        spec => { selector => { app => 'web' }, ports => [ { port => 80, targetPort => 8080 } ] } });
    is($sst, 201, 'Service created here');

    my $kns = kas_get('namespace', $ns);
    is($kns->{status}{phase}, 'Active', 'kube-apiserver reads the Namespace');
    my $kcm = kas_get('configmap', 'cm', '-n', $ns);
    is($kcm->{data}{greeting}, 'hello', 'kube-apiserver reads the ConfigMap');
    is($kcm->{metadata}{uid}, $cm->{metadata}{uid}, '... same uid');
    is($kcm->{metadata}{resourceVersion}, $cm->{metadata}{resourceVersion},
        '... same resourceVersion');
    is($kcm->{metadata}{labels}{from}, 'nginx', '... and labels');
    my $kd = kas_get('deployment', 'web', '-n', $ns);
    is($kd->{spec}{replicas}, 2, 'kube-apiserver reads the Deployment');
    is($kd->{spec}{template}{spec}{containers}[0]{image}, 'nginx:1.25', '... its pod template');
    is($kd->{metadata}{uid}, $deploy->{metadata}{uid}, '... same uid');
    my $ksvc = kas_get('service', 'web', '-n', $ns);
    is($ksvc->{spec}{ports}[0]{targetPort}, 8080, 'kube-apiserver reads the Service');
    is($ksvc->{spec}{clusterIP}, $svc->{spec}{clusterIP}, '... with the clusterIP given here');

    my ($lrc, $lout) = kas_kubectl('get', 'configmaps,deployments,services', '-n', $ns,
        '-o', 'name');
    is($lrc, 0, 'kube-apiserver lists them');
    like($lout, qr{^configmap/cm$}m, '... the ConfigMap');
    like($lout, qr{^deployment\.apps/web$}m, '... the Deployment');
    like($lout, qr{^service/web$}m, '... the Service');

    # kube-apiserver updates what this server wrote, and back.
    my ($prc, undef, $perr) = kas_kubectl('patch', 'configmap', 'cm', '-n', $ns, '--type=merge',
        '-p', '{"data":{"greeting":"patched by kube"}}');
    is($prc, 0, 'kube-apiserver patches the ConfigMap') or diag($perr);
    my $got;
    wait_until(sub { (undef, $got) = $server->call(GET => "/api/v1/namespaces/$ns/configmaps/cm");
        ($got->{data}{greeting} // '') eq 'patched by kube' }, 10);
    is($got->{data}{greeting}, 'patched by kube', "this server reads kube-apiserver's patch");
    my ($ust) = $server->call(PUT => "/api/v1/namespaces/$ns/configmaps/cm", { %$got,
        data => { greeting => 'updated here' } });
    is($ust, 200, 'this server updates it at the resourceVersion it read');
    my $again;
    wait_until(sub { $again = kas_get('configmap', 'cm', '-n', $ns);
        ($again->{data}{greeting} // '') eq 'updated here' }, 10);
    is($again->{data}{greeting}, 'updated here', '... which kube-apiserver reads');

    my ($drc) = kas_kubectl('delete', 'deployment', 'web', '-n', $ns, '--wait=false');
    is($drc, 0, 'kube-apiserver deletes the Deployment');
    my ($gone) = get_when("/apis/apps/v1/namespaces/$ns/deployments/web", 404);
    is($gone, 404, '... and this server no longer finds it');
}

# --- Written by kube-apiserver, read here.
{
    my $ns = 'written-by-kube';
    my $manifest = <<"EOF";
apiVersion: v1
kind: Namespace
metadata:
  name: $ns
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: $ns
data:
  greeting: from kube
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: $ns
spec:
  replicas: 3
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: busybox:1.36
        args: [sleep, "3600"]
---
apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: $ns
spec:
  selector: {app: api}
  ports:
  - port: 443
    targetPort: 8443
EOF
    my ($arc, undef, $aerr) = kas_kubectl('apply', '-f', '-', { stdin => $manifest });
    is($arc, 0, 'kubectl apply against kube-apiserver') or diag($aerr);

    my ($nst, $nsobj) = get_when("/api/v1/namespaces/$ns", 200);
    is($nst, 200, 'this server reads the Namespace');
    is($nsobj->{status}{phase}, 'Active', '... Active');
    my ($cst, $cm) = get_when("/api/v1/namespaces/$ns/configmaps/cm", 200);
    is($cst, 200, 'this server reads the ConfigMap');
    is($cm->{data}{greeting}, 'from kube', '... with its data');
    my $kcm = kas_get('configmap', 'cm', '-n', $ns);
    is($cm->{metadata}{uid}, $kcm->{metadata}{uid}, '... same uid');
    is($cm->{metadata}{resourceVersion}, $kcm->{metadata}{resourceVersion},
        '... same resourceVersion');
    ok(grep({ $_->{manager} eq 'kubectl-client-side-apply' }
        @{ $cm->{metadata}{managedFields} || [] }), "... and kube's managedFields");
    my ($dst, $d) = get_when("/apis/apps/v1/namespaces/$ns/deployments/api", 200);
    is($dst, 200, 'this server reads the Deployment');
    is($d->{spec}{replicas}, 3, '... its replicas');
    is_deeply($d->{spec}{template}{spec}{containers}[0]{args}, ['sleep', '3600'],
        '... its pod template');
    is($d->{spec}{strategy}{type}, 'RollingUpdate', "... with kube's defaults");
    my ($sst, $svc) = get_when("/api/v1/namespaces/$ns/services/api", 200);
    is($sst, 200, 'this server reads the Service');
    like($svc->{spec}{clusterIP} // '', qr/^10\.96\./, "... with kube's allocated clusterIP");
    is($svc->{spec}{ports}[0]{targetPort}, 8443, '... and its ports');

    my ($lst, $list) = $server->call(GET => "/api/v1/namespaces/$ns/configmaps");
    is($lst, 200, 'this server lists ConfigMaps');
    ok(grep({ $_->{metadata}{name} eq 'cm' } @{ $list->{items} }), "... with kube's");

    # A watch here sees kube-apiserver's writes.
    my $w = $server->watch("/api/v1/namespaces/$ns/configmaps?watch=true"
        . "&resourceVersion=$list->{metadata}{resourceVersion}");
    my ($crc) = kas_kubectl('create', 'configmap', 'later', '-n', $ns, '--from-literal=k=v');
    is($crc, 0, 'kube-apiserver creates another ConfigMap');
    my $e = $w->next_event(10);
    is($e && "$e->{type} $e->{object}{metadata}{name} $e->{object}{data}{k}", 'ADDED later v',
        "this server's watcher sees it");

    # And this server's write through kubectl is read back by kube.
    $server->kc_ok(undef, 'kubectl scale here', 'scale', 'deployment', 'api', '-n', $ns,
        '--replicas=5');
    my $kd;
    wait_until(sub { $kd = kas_get('deployment', 'api', '-n', $ns);
        ($kd->{spec}{replicas} // 0) == 5 }, 10);
    is($kd->{spec}{replicas}, 5, 'kube-apiserver reads the scale made here');
}

# --- Custom resources: kube-apiserver's definition is served here, and the
# custom resources either writes (JSON under /registry/<group>/<plural>) are
# read by the other.
{
    my $ns = 'custom';
    my $crd = crd_yaml(group => 'stable.example.com', kind => 'CronTab', singular => 'crontab',
        short_names => ['ct'], schema => \<<'S') . <<"EOF";
type: object
properties:
  spec:
    type: object
    properties:
      cronSpec: {type: string}
      replicas: {type: integer}
S
---
apiVersion: v1
kind: Namespace
metadata:
  name: $ns
EOF
    my $cr = <<"EOF";
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: from-kube
  namespace: $ns
spec:
  cronSpec: "*/5 * * * *"
  replicas: 2
EOF
    my ($arc, undef, $aerr) = kas_kubectl('apply', '-f', '-', { stdin => $crd });
    is($arc, 0, 'kube-apiserver creates a CustomResourceDefinition') or diag($aerr);
    # Its own discovery follows the definition within moments.
    my $applied = wait_until(sub { (kas_kubectl('apply', '-f', '-', { stdin => $cr }))[0] == 0 },
        30);
    ok($applied, '... and a custom resource');
    my $base = "/apis/stable.example.com/v1/namespaces/$ns/crontabs";
    my ($gst, $ct) = get_when("$base/from-kube", 200);
    is($gst, 200, "this server serves kube-apiserver's definition and reads its resource");
    is($ct->{spec}{cronSpec}, '*/5 * * * *', '... its spec');
    my $kct = kas_get('crontab', 'from-kube', '-n', $ns);
    is($ct->{metadata}{uid}, $kct->{metadata}{uid}, '... same uid');
    is($ct->{metadata}{resourceVersion}, $kct->{metadata}{resourceVersion},
        '... same resourceVersion');

    my ($cst, $mine) = $server->call(POST => $base, { apiVersion => 'stable.example.com/v1',
        kind => 'CronTab', metadata => { name => 'from-here' },
        spec => { cronSpec => '0 * * * *', replicas => 1, dropped => 'x' } });
    is($cst, 201, 'a custom resource created here');
    my $kmine = kas_get('crontab', 'from-here', '-n', $ns);
    is($kmine->{spec}{cronSpec}, '0 * * * *', 'kube-apiserver reads it');
    is($kmine->{metadata}{uid}, $mine->{metadata}{uid}, '... same uid');
    ok(!exists $kmine->{spec}{dropped}, '... pruned here as kube prunes');
    my ($src, $stored) = run_command(['/usr/bin/etcdctl', '--endpoints', $etcd->{url}, 'get',
        '--print-value-only', "/registry/stable.example.com/crontabs/$ns/from-here"],
        env => { ETCDCTL_API => 3 });
    my $value = $src == 0 ? json_of($stored) : {};
    is($value->{kind}, 'CronTab', "it is JSON under kube's key in etcd");
    ok(!exists $value->{metadata}{resourceVersion}, '... without a resourceVersion');

    my ($prc, undef, $perr) = kas_kubectl('patch', 'crontab', 'from-here', '-n', $ns,
        '--type=merge', '-p', '{"spec":{"replicas":4}}');
    is($prc, 0, 'kube-apiserver patches it') or diag($perr);
    my $got;
    wait_until(sub { (undef, $got) = $server->call(GET => "$base/from-here");
        ($got->{spec}{replicas} // 0) == 4 }, 10);
    is($got->{spec}{replicas}, 4, "this server reads kube-apiserver's patch");
    my ($lst, $list) = $server->call(GET => $base);
    is(join(',', sort map { $_->{metadata}{name} } @{ $list->{items} || [] }),
        'from-here,from-kube', 'this server lists both');
}

# --- Compaction beside kube-apiserver: both take part in its compact_rev_key
# protocol every 3 s, and etcd is compacted once per interval between them.
{
    sleep 7;
    my $elapsed = time - $kas_started;
    my $compactions = () = slurp("$etcd->{dir}/etcd.log") =~ /finished scheduled compaction/g;
    cmp_ok($compactions, '>=', 2, 'etcd is compacted every interval');
    cmp_ok($compactions, '<=', int($elapsed / 3) + 1,
        "... once per interval, not by both ($compactions in $elapsed s)");
    my ($rc, $out) = run_command(['/usr/bin/etcdctl', '--endpoints', $etcd->{url}, 'get',
        'compact_rev_key', '-w', 'json'], env => { ETCDCTL_API => 3 });
    my $version = $rc == 0 ? json_of($out)->{kvs}[0]{version} : 0;
    cmp_ok($version, '<=', int($elapsed / 3) + 2,
        "compact_rev_key's clock moves once per interval ($version)");
    is(($server->call(GET => '/readyz'))[0], 200, 'this server is ready throughout');
    is($http->get("$kas_url/readyz")->{status}, 200, '... and so is kube-apiserver');
}

done_testing;

