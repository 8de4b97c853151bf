#!/usr/bin/perl
# The real control plane on this server (issue 18's benchmark); bench/run's
# case (q):
#
#   KUBE_BUILD=<dir of the module .so> perl bench/control_plane.pl
#
# Starts nginx-kube-apiserver (2 workers, TLS, the admin certificate), the
# real kube-controller-manager and kube-scheduler (v1.26.5, from
# ../shared/bin or $KUBE_REFERENCE_BIN), and BENCH_CP_NODES (default 20)
# Ready Nodes, then times
#   kubectl create deployment --replicas=BENCH_CP_PODS (default 1000)
# to every Pod created, and to every Pod bound to a Node, polling a LIST
# every 100 ms. Meanwhile it samples the server's CPU (master and workers,
# from /proc) and its RSS, and prints the same for the two components. With
# BENCH_CP_REFERENCE=1 (the default when /usr/bin/etcd is installed) it does
# the same against the real kube-apiserver 1.26.5 on a real etcd, side by
# side. Without the reference binaries it prints why and exits 0.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../t/lib";
use Test::Kube;
use Time::HiRes qw(time sleep);

# TAP (the harness's checks) to stderr: stdout is the table alone
Test::More->builder->output(\*STDERR);

my $nodes = $ENV{BENCH_CP_NODES} || 20;
my $pods = $ENV{BENCH_CP_PODS} || 1000;
my $reference = $ENV{BENCH_CP_REFERENCE} // (-x '/usr/bin/etcd' ? 1 : 0);
for my $name ('kube-controller-manager', 'kube-scheduler', $reference ? 'kube-apiserver' : ()) {
    unless (reference_binary($name)) {
        print "control plane: no reference $name binary (../shared/bin), not measured\n";
        exit 0;
    }
}

my $ticks = 100;    # USER_HZ on Linux
sub cpu_seconds {
    my $total = 0;
    for my $pid (@_) {
        my $stat = slurp("/proc/$pid/stat");
        next unless $stat =~ /^\d+ \(.*\) \S (.*)$/s;
        my @f = split ' ', $1;
        $total += ($f[10] + $f[11]) / $ticks;    # utime, stime (fields 14, 15)
    }
    return $total;
}
sub rss_mib {
    my $total = 0;
    for my $pid (@_) {
        $total += $1 / 1024 if slurp("/proc/$pid/status") =~ /^VmRSS:\s+(\d+) kB/m;
    }
    return $total;
}

# The time the real components take to turn one Deployment into $pods bound
# Pods on $server (an object with kubeconfig, call and get_json), and what
# the server's processes (a sub returning their pids) spend meanwhile.
sub measure {
    my ($label, $qps, $server, $server_pids, $kubeconfig, $ca) = @_;
    my @common = ("--kubeconfig=$kubeconfig", "--authentication-kubeconfig=$kubeconfig",
        "--authorization-kubeconfig=$kubeconfig", '--bind-address=127.0.0.1',
        $qps ? ("--kube-api-qps=$qps", "--kube-api-burst=$qps") : ());
    my $kcm = start_reference_component('kube-controller-manager', @common,
        '--secure-port=' . free_port(), '--cert-dir=' . scratch_dir() . "/$label-kcm",
        '--use-service-account-credentials=false',
        '--controllers=*,-service-ca-cert-publisher', "--root-ca-file=$ca",
        '--service-cluster-ip-range=10.96.0.0/16', '--node-monitor-grace-period=10m');
    my $scheduler = start_reference_component('kube-scheduler', @common,
        '--secure-port=' . free_port(), '--cert-dir=' . scratch_dir() . "/$label-scheduler");
    for my $lease ('kube-controller-manager', 'kube-scheduler') {
        wait_until(sub {
            my $l = $server->get_json("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$lease");
            $l && $l->{spec}{holderIdentity};
        }, 90) or die "$label: $lease took no lease\n" . slurp($lease eq 'kube-scheduler'
            ? $scheduler->{log} : $kcm->{log});
    }
    my $now = do { my @t = gmtime; sprintf '%04d-%02d-%02dT%02d:%02d:%02dZ', $t[5] + 1900, $t[4] + 1, @t[3, 2, 1, 0] };
    for my $i (1 .. $nodes) {
        my $name = sprintf 'node-%02d', $i;
        my ($st, $body) = $server->call(POST => '/api/v1/nodes', { apiVersion => 'v1',
            kind => 'Node', metadata => { name => $name,
                labels => { 'kubernetes.io/hostname' => $name } } });
        die "$label: Node $name: $st\n" unless $st == 201;
        ($st) = $server->call(PATCH => "/api/v1/nodes/$name/status", { status => {
            capacity => { cpu => '64', memory => '256Gi', pods => '110' },
            allocatable => { cpu => '64', memory => '256Gi', pods => '110' },
            conditions => [ { type => 'Ready', status => 'True', reason => 'KubeletReady',
                message => 'ready', lastHeartbeatTime => $now, lastTransitionTime => $now } ] } },
            type => 'application/merge-patch+json');
        die "$label: Node $name status: $st\n" unless $st == 200;
    }
    # Ready nodes lose their not-ready taint to the node lifecycle controller.
    wait_until(sub {
        my $list = $server->get_json('/api/v1/nodes');
        !grep { @{ $_->{spec}{taints} || [] } } @{ $list->{items} || [] };
    }, 60) or die "$label: the nodes kept their taints\n";
    my ($st) = $server->call(POST => '/api/v1/namespaces', { apiVersion => 'v1', kind => 'Namespace',
        metadata => { name => 'scale' } });
    die "$label: namespace: $st\n" unless $st == 201;
    wait_until(sub { $server->get_json('/api/v1/namespaces/scale/serviceaccounts/default') }, 30)
        or die "$label: no default ServiceAccount\n";

    my @pids = $server_pids->();
    my ($cpu0, $kcm0, $sched0) = (cpu_seconds(@pids), cpu_seconds($kcm->{pid}),
        cpu_seconds($scheduler->{pid}));
    my $rss_peak = 0;
    my $t0 = time;
    my ($rc, undef, $err) = run_command([ '/usr/bin/kubectl', "--kubeconfig=$kubeconfig", 'create',
        'deployment', 'big', '--image=nginx:1.25', "--replicas=$pods", '-n', 'scale' ]);
    die "$label: kubectl create deployment: $err\n" if $rc;
    my ($created, $bound);
    while (time - $t0 < 600) {
        my $list = $server->get_json('/api/v1/namespaces/scale/pods?labelSelector=app%3Dbig');
        my @items = @{ ($list && $list->{items}) || [] };
        $created //= time - $t0 if @items >= $pods;
        if (@items >= $pods && !grep { !$_->{spec}{nodeName} } @items) {
            $bound = time - $t0;
            last;
        }
        my $rss = rss_mib($server_pids->());
        $rss_peak = $rss if $rss > $rss_peak;
        sleep 0.1;
    }
    die "$label: $pods Pods not bound within 600 s\n" unless defined $bound;
    my %r = (created => $created, bound => $bound, cpu => cpu_seconds($server_pids->()) - $cpu0,
        rss => $rss_peak, kcm_cpu => cpu_seconds($kcm->{pid}) - $kcm0,
        sched_cpu => cpu_seconds($scheduler->{pid}) - $sched0);
    $_->{stop}->() for $kcm, $scheduler;
    return \%r;
}

my @rates = (0, $ENV{BENCH_CP_QPS} || 1000);    # 0: the components' default rates
my %results;
for my $qps (@rates) {
    my $s = start_server(tls => 1, workers => 2, reuseport => 1,
        http_config => "access_log off;\n", config => "location / {\n    kube_api;\n}\n");
    my $pids = sub { ($s->master_pid, $s->worker_pids) };
    $results{$qps}{'nginx-kube-apiserver'} = measure("ours-$qps", $qps, $s, $pids,
        $s->kubeconfig, cert_dir() . '/ca.crt');
    $s->stop;
    reference_run($qps) if $reference;
}

sub reference_run {
    my ($qps) = @_;
    # kube-apiserver 1.26.5 on its own etcd, the admin by a token.
    my $etcd = start_etcd() or die "no etcd\n";
    my $dir = scratch_dir() . "/kas-$qps";
    mkdir $dir;
    spew("$dir/tokens.csv", qq{admin-token,admin,uid-admin,"system:masters"\n});
    system("openssl genrsa -out $dir/sa.key 2048 2> /dev/null") == 0 or die "openssl\n";
    my $port = free_port();
    my $kas = start_reference_component('kube-apiserver', "--etcd-servers=$etcd->{url}",
        "--secure-port=$port", '--bind-address=127.0.0.1', "--cert-dir=$dir/kas-certs",
        "--token-auth-file=$dir/tokens.csv", '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc',
        "--service-account-key-file=$dir/sa.key", "--service-account-signing-key-file=$dir/sa.key",
        '--service-cluster-ip-range=10.96.0.0/16');
    my $url = "https://127.0.0.1:$port";
    spew("$dir/kas.kubeconfig", <<"EOF");
apiVersion: v1
kind: Config
clusters: [{name: kas, cluster: {server: "$url", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: admin-token}}]
contexts: [{name: kas, context: {cluster: kas, user: admin}}]
current-context: kas
EOF
    my $kasClient = Test::Kube::ReferenceClient->new($url, 'admin-token');
    wait_until(sub { my ($st) = $kasClient->call(GET => '/readyz'); $st == 200 }, 60)
        or die "kube-apiserver did not start:\n" . slurp($kas->{log});
    # kube-apiserver's serving certificate is self-signed: its CA for the
    # components is that certificate.
    $results{$qps}{'kube-apiserver 1.26.5 + etcd'} = measure("kas-$qps", $qps, $kasClient,
        sub { ($kas->{pid}, $etcd->{pid}) }, "$dir/kas.kubeconfig", "$dir/kas-certs/apiserver.crt");
    $kas->{stop}->();
    $etcd->{stop}->();
}

printf "control plane: kubectl create deployment --replicas=%d, %d Nodes, real kube-controller-manager"
    . " and kube-scheduler 1.26.5\n", $pods, $nodes;
printf "%-52s %9s %7s %12s %14s %9s %11s\n", '', 'created s', 'bound s', 'server CPU s',
    'server RSS MiB', 'kcm CPU s', 'sched CPU s';
for my $qps (@rates) {
    for my $name (sort keys %{ $results{$qps} }) {
        my $r = $results{$qps}{$name};
        printf "%-52s %9.1f %7.1f %12.1f %14.0f %9.1f %11.1f\n",
            $name . ($qps ? ", client rates $qps/s" : ', default client rates'), $r->{created},
            $r->{bound}, $r->{cpu}, $r->{rss}, $r->{kcm_cpu}, $r->{sched_cpu};
    }
}

# The few calls measure() makes, against kube-apiserver with a bearer token.
package Test::Kube::ReferenceClient;
use HTTP::Tiny;
use JSON::PP ();

sub new {
    my ($class, $url, $token) = @_;
    return bless { url => $url, http => HTTP::Tiny->new(keep_alive => 1, timeout => 30,
        verify_SSL => 0, default_headers => { Authorization => "Bearer $token" }) }, $class;
}

sub call {
    my ($self, $method, $path, $body, %o) = @_;
    my $r = $self->{http}->request($method, $self->{url} . $path, { defined $body
        ? (content => JSON::PP::encode_json($body),
            headers => { 'Content-Type' => $o{type} // 'application/json' }) : () });
    my $json = eval { JSON::PP::decode_json($r->{content}) } // {};
    return ($r->{status}, $json, $r);
}

sub get_json {
    my ($self, $path) = @_;
    my ($st, $json) = $self->call(GET => $path);
    return $st == 200 ? $json : undef;
}
