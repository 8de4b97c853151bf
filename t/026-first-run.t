# A first run that works anywhere: `make run` (conf/run.sh) as root from a
# clone inside a private (0700) folder serves, with workers as "nobody"; a
# storage path the workers cannot use fails the start at once, with the path
# and the reason on stderr and no master left holding the port; a reload to
# such a path keeps the old server; a worker that cannot start stops nginx.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Copy qw(copy);
use File::Path qw(make_path remove_tree);
use File::Temp ();
use POSIX ();

plan skip_all => 'needs root: the workers run as "nobody"' unless $> == 0;

my $repo = $Test::Kube::RepoRoot;
my $nobody = getpwnam('nobody');
my $nogroup = getgrgid((getpwnam('nobody'))[3]);
my $user = "user nobody $nogroup;";

sub listening {
    my $port = shift;
    return IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Proto => 'tcp')
        ? 1 : 0;
}

# The default is kube-apiserver's: the admin certificate is in system:masters,
# anonymous requests reach only what the bootstrap policy gives them, other
# users what their bindings give them, and service-account tokens are signed
# with the key run.sh made.
sub secure_default {
    my ($clone, $port, $kubeconfig) = @_;
    my $url = "https://127.0.0.1:$port";
    my $kc = sub {
        my ($rc, $out, $err) = run_command(
            [ $Test::Kube::Kubectl, '--kubeconfig', $kubeconfig, @_ ], timeout => 30);
        return ($rc, $out . $err);
    };
    # get($path [, $token]) -> {status, body}: no client certificate
    my $get = sub {
        my ($path, $token) = @_;
        my ($rc, $out, $err) = run_command([ 'curl', '-sS', '--max-time', 10,
            '--cacert', "$clone/var/certs/ca.crt", '-w', '\n%{http_code}',
            defined $token ? ('-H', "Authorization: Bearer $token") : (), "$url$path" ]);
        my ($body, $code) = $out =~ /^(.*)\n(\d+)$/s;
        return { status => $rc == 0 ? $code : 599, body => $rc == 0 ? $body : $err };
    };
    ok(-s "$clone/var/certs/sa.key" && -s "$clone/var/certs/sa.pub",
        'run.sh made the service-account key pair');
    is((stat "$clone/var/certs/sa.key")[2] & 0777, 0600, 'the signing key is private');
    my ($rc, $out) = $kc->(qw(auth whoami -o jsonpath={.status.userInfo.groups}));
    is($out, '["system:masters","system:authenticated"]', 'var/kubeconfig is in system:masters');
    my $r = $get->('/version');
    is($r->{status}, 200, 'anonymous: /version');
    ok(wait_until(sub { $get->('/healthz')->{status} == 200 }, 10),
        'anonymous: /healthz, once the bootstrap policy is made');
    $r = $get->('/api/v1/namespaces');
    is($r->{status}, 403, 'anonymous: no list of namespaces');
    like($r->{body}, qr/User \\"system:anonymous\\" cannot list resource \\"namespaces\\"/,
        'with kube\'s message');
    $r = $get->('/version', 'not-a-token');
    is($r->{status}, 401, 'a bad token is a 401, not anonymous');
    ($rc, $out) = $kc->(qw(create serviceaccount robot -n first-run));
    is($rc, 0, 'a service account') or diag($out);
    ($rc, my $token) = $kc->(qw(create token robot -n first-run));
    is($rc, 0, 'kubectl create token') or diag($token);
    chomp $token;
    $r = $get->('/api/v1/namespaces/first-run/configmaps', $token);
    is($r->{status}, 403, 'the token authenticates; RBAC gives it nothing yet');
    like($r->{body}, qr/system:serviceaccount:first-run:robot/, 'as the service account');
    ($rc, $out) = $kc->(qw(create rolebinding robot-view --clusterrole=view
        --serviceaccount=first-run:robot -n first-run));
    is($rc, 0, 'bound to view') or diag($out);
    ok(wait_until(sub {
        $get->('/api/v1/namespaces/first-run/configmaps', $token)->{status} == 200 }, 2),
        'now it lists configmaps');
    $r = $get->('/api/v1/namespaces/first-run/secrets', $token);
    is($r->{status}, 403, 'but not secrets');
}

# --- conf/run.sh from a copy inside a 0700 folder -----------------------------------------------

{
    my $top = File::Temp->newdir('kube-first-run-XXXXXX', TMPDIR => 1, CLEANUP => 0);
    my $home = "$top/home";
    mkdir $home, 0700 or die "mkdir $home: $!";
    my $clone = "$home/clone";
    make_path("$clone/conf");
    for my $f (qw(run.sh mkcerts.sh mkkubeconfig.sh nginx.conf audit-policy.yaml)) {
        copy("$repo/conf/$f", "$clone/conf/$f") or die "copy $f: $!";
        chmod 0755, "$clone/conf/$f";
    }
    my $port = Test::Kube::_free_port();
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', "$top/stdout";
        open STDERR, '>', "$top/stderr";
        $ENV{PORT} = $port;
        $ENV{BUILD} = $Test::Kube::KubeBuild;
        exec "$clone/conf/run.sh" or POSIX::_exit(127);
    }
    my $kubeconfig = "$clone/var/kubeconfig";
    my $ready = wait_until(sub {
        return 0 unless -f $kubeconfig && Test::Kube::_alive($pid);
        my ($rc, $out) = run_command(
            [ $Test::Kube::Kubectl, '--kubeconfig', $kubeconfig, 'get', '--raw', '/readyz' ],
            timeout => 5);
        return $rc == 0 && $out =~ /^ok/;
    }, 60);
    ok($ready, 'run.sh from a 0700 folder: the server answers with var/kubeconfig')
        or diag(Test::Kube::_slurp("$top/stderr") . Test::Kube::_slurp("$clone/var/logs/error.log"));
    my ($rc, $out, $err) = run_command(
        [ $Test::Kube::Kubectl, '--kubeconfig', $kubeconfig, 'create', 'namespace', 'first-run' ]);
    is($rc, 0, 'kubectl writes to the store') or diag($err);
    secure_default($clone, $port, $kubeconfig);
    my @workers = Test::Kube::_children($pid);
    is(scalar @workers, 2, 'two workers');
    is((stat "/proc/$_")[4], $nobody, "worker $_ runs as nobody") for @workers;
    like(Test::Kube::_slurp("$top/stdout"), qr{nginx-kube-apiserver on https://127\.0\.0\.1:$port},
        'the ready banner');
    my $state = "/var/lib/nginx-kube-apiserver$clone";
    like(Test::Kube::_slurp("$top/stderr"), qr/cannot reach \Q$clone\E\/var: .* \Q$state\E/,
        'run.sh says where the store went');
    ok(-d "$state/data" && (stat "$state/data")[4] == $nobody,
        'the store is made by nginx for the worker user');
    kill 'QUIT', $pid;
    ok(wait_until(sub { waitpid($pid, POSIX::WNOHANG()) == $pid }, 15), 'Ctrl-C-like stop');
    ok(!listening($port), 'the port is free');
    my @bad = grep { /\[alert\]|\[emerg\]|\[crit\]|exited on signal/ }
        split /\n/, Test::Kube::_slurp("$clone/var/logs/error.log");
    ok(!@bad, 'error.log: no alert, emerg or crit') or diag(join "\n", @bad);
    remove_tree("/var/lib/nginx-kube-apiserver$top", $top);
}

# --- storage paths the workers cannot use -------------------------------------------------------

my $private;

sub fails_to_start {
    my ($name, $http, $want, %o) = @_;
    my $s = new_server(main_config => $user, http_config => $http, %o);
    ok(!$s->start, "$name: nginx does not start");
    like($s->{start_error} // '', qr/^nginx exited with 1: .*\Q$want\E/m,
        "$name: stderr says which path and why")
        or diag($s->{start_error});
    ok(!$s->is_running && !listening($s->port), "$name: no master holds the port");
    return $s;
}

{
    my $base = Test::Kube::base_dir();
    $private = "$base/private";
    mkdir $private, 0700 or die "mkdir $private: $!";

    fails_to_start('a store behind a 0700 folder of another user',
        "kube_storage lmdb:$private/data;",
        qq{kube-apiserver: the worker user "nobody" cannot use "$private/data": }
        . qq{"$private" is not searchable (13: Permission denied)});

    fails_to_start('a body temp path behind a 0700 folder', '',
        qq{kube-apiserver: the worker user "nobody" cannot use "$private/body": }
        . qq{"$private" is not searchable (13: Permission denied)},
        config => "client_body_temp_path $private/body;\nlocation / { kube_api; }");

    Test::Kube::_spew("$base/a-file", "not a directory\n");
    fails_to_start('a file where the store should be',
        "kube_storage lmdb:$base/a-file;",
        qq{kube-apiserver: storage "$base/a-file" is not a directory});

    make_path("$base/garbage");
    Test::Kube::_spew("$base/garbage/data.mdb", 'x' x 65536);
    chown $nobody, -1, "$base/garbage", "$base/garbage/data.mdb";
    fails_to_start('a store that is not LMDB\'s',
        "kube_storage lmdb:$base/garbage;",
        qq{kube-apiserver: the worker user "nobody" cannot use "$base/garbage": lmdb: open});

    make_path("$base/foreign");
    Test::Kube::_spew("$base/foreign/data.mdb", '');
    chmod 0600, "$base/foreign/data.mdb";
    fails_to_start('a store file the worker user cannot write',
        "kube_storage lmdb:$base/foreign;",
        qq{"$base/foreign/data.mdb" cannot be opened for writing (13: Permission denied)});
}

{
    my $s = start_server(main_config => $user);
    ok($s->is_running, 'workers as nobody with a store they can use');
    is((stat $s->data_dir)[4], $nobody, 'the store belongs to the worker user');
    is($s->request('GET', '/api/v1/namespaces/default')->{status}, 401, 'serving');
    my $offset = $s->log_size;
    ok(!$s->reload(http_config => "kube_storage lmdb:$private/data;"),
        'a reload to a store the workers cannot use fails');
    like($s->log_since($offset), qr/\Q"$private" is not searchable\E/, 'the log says why');
    ok($s->is_running, 'the master keeps running');
    is($s->request('GET', '/api/v1/namespaces/default')->{status}, 401,
        'the old workers keep serving');
    $s->{checked_upto} = $s->log_size;
    ok($s->stop, 'graceful stop');
}

# --- a worker that cannot start stops nginx -----------------------------------------------------

{
    # one reader slot for three workers: the master's check passes, the
    # second and third workers cannot open the store
    my $s = new_server(main_config => $user, workers => 3);
    my $data = $s->data_dir;
    $s->configure(main_config => $user, workers => 3,
        http_config => "kube_storage lmdb:$data max_readers=1;");
    Test::Kube::_spew($s->conf_file, $s->{text});
    my $t0 = time;
    my ($rc, $out, $err) = run_command(
        [ $Test::Kube::NginxBinary, '-p', $s->root . '/', '-c', $s->conf_file,
          '-g', 'daemon off;' ],
        env => { Test::Kube::_nginx_env() }, timeout => 30);
    is($rc, 0, 'the master exits by itself') or diag($err);
    cmp_ok(time - $t0, '<', 15, 'at once');
    ok(!listening($s->port), 'no one holds the port');
    my $log = $s->log_since(0);
    like($log, qr/MDB_READERS_FULL/, 'the worker says why it cannot start');
    like($log, qr/the worker cannot start, stopping nginx/, 'and that it stops nginx');
    like($log, qr/signal 15 \(SIGTERM\) received from \d+, exiting/,
        'the master, root, takes the signal of a worker running as nobody');
}

done_testing;
