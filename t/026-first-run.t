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
