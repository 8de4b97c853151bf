package Test::Kube;

=head1 NAME

Test::Kube - Test::Nginx::Socket-style harness for nginx-kube-apiserver

=head1 SYNOPSIS

    use lib 't/lib';
    use Test::Kube;

    repeat_each(2);
    run_tests();

    __DATA__

    === TEST 1: /version answers with the server's version
    --- config
        location / {
            kube_api;
        }
    --- request
    GET /version
    --- response_body_json
    {"major": "1"}
    --- no_error_log
    [error]

Run from the repository root: C<prove t/foo.t>. Every .t file gets its own
server root (C<t/servroot-E<lt>fileE<gt>-E<lt>pidE<gt>/>, removed when the file
passes, kept for inspection when it fails or when C<TEST_KUBE_KEEP=1>), its
own loopback port, and its own certificates (C<conf/mkcerts.sh>).

=head1 BLOCK SECTIONS

Server configuration (the server is started for the first block and
restarted only when a block renders a different nginx.conf):

    --- main_config      lines for the main context
    --- http_config      lines for the http context, before the server
    --- config           lines for the server context; when absent:
                         "location / { kube_api; }" (see default_config).
                         Every kube server also gets conf/nginx.conf's
                         error_page lines and "location = /.kube-status
                         { internal; kube_status; }" (unless the config
                         says kube_status itself), so what nginx answers
                         on an API path is a Status
    --- workers: N       worker_processes (default 1, see workers())
    --- log_level: L     error_log level (default info)
    --- tls              listen with "ssl http2", certificates from
                         mkcerts.sh, ssl_verify_client optional_no_ca; the
                         request goes over TLS with the admin client cert
    --- no_kube          no load_module and no kube_storage (plain nginx)
    --- user_files       files written under <root>/html before the block:
                         ">>> path" lines, each followed by its content
    --- restart          restart nginx before this block even if unchanged
    --- clean_data       stop nginx, wipe <root>/data (the LMDB store), start
    --- skip_nginx_restart  keep the running nginx even if the config differs
    --- must_die         nginx must fail to start (check with --- error_log)

Data in <root>/data survives restarts within a file, so blocks can build
on each other; remember that repeat_each(2) runs each block twice in a row.

The request (one per block):

    --- request          "METHOD /path" then, on the next lines, the body
                         (its final newline removed)
    --- request_body     the body, exactly (overrides the one in request)
    --- request_body_size: N   a body of N bytes of "a"
    --- more_headers     "Name: value" lines; "!Name" drops a header the
                         client would add (the request then goes by curl).
                         A body gets "Content-Type: application/json" unless
                         a Content-Type is given or dropped.
    --- raw_request      bytes sent as they are on a fresh connection
                         (eval it to get \r\n); the response is read until
                         the server closes or the body is complete
    --- http2            send over TLS with HTTP/2 (curl); implies --- tls
    --- no_client_cert   TLS request without a client certificate
    --- client_cert: CN GROUP...  TLS request with a cert for user CN in
                         groups GROUP (made on demand, signed by the test CA;
                         kubectl and python blocks use it too)
    --- untrusted_client_cert: CN GROUP...  same, but signed by a CA the
                         server does not trust
    --- cert: NAME       TLS request with the client cert the file made
                         itself, cert_dir()/NAME.{crt,key}
    --- timeout: S       request timeout in seconds (default 10)
    --- no_repeat        run this block once even under repeat_each

Checks on the response:

    --- error_code: N    exact status (default 200)
    --- response_body    exact body (use the "chomp" filter, or the inline
                         "--- response_body: text" form, for no newline)
    --- response_body_like     regex, matched with /s
    --- response_body_unlike   regex that must not match
    --- response_body_json     JSON (or, with "eval", a Perl structure) that
                         the decoded body must contain: hashes match as a
                         subset, arrays element by element with equal length,
                         numbers/strings/booleans/null by type and value;
                         with eval, qr// values are matched as regexes,
                         ABSENT means the key must be missing, and true and
                         false are JSON booleans
    --- response_headers       "Name: value" exact, "!Name" absent
    --- response_headers_like  "Name: regex"

Instead of an HTTP request a block can run a client:

    --- kubectl: ARGS    run kubectl ARGS (shell words) with the server's
                         kubeconfig and a fresh --cache-dir
    --- kubectl_version: 1.NN  which kubectl (default /usr/bin/kubectl, 1.32)
    --- python           a Python script run by /usr/bin/python3 with
                         KUBECONFIG set (the kubernetes package is installed)
    --- stdin            standard input for kubectl or python
    --- exit_code: N     expected exit code (default 0)
    --- stdout           exact standard output
    --- stdout_like, --- stderr_like  regexes
    --- stdout_json      subset match of the decoded standard output

Checks on error.log (only the lines written during this block):

    --- error_log        each line must appear (substring; with eval, an
                         array of strings and qr// regexes); polled for
                         up to 3 s
    --- no_error_log     each line must not appear
    --- wait: S          sleep S seconds before checking the log

After every block, error.log must not contain [alert], [emerg], [crit],
"AddressSanitizer", "runtime error:", "terminate called" or "exited on
signal" (the block fails otherwise; must_die blocks may log [emerg]). At
the end of the file, a worker that exited on any signal but SIGKILL in any
server's error.log fails the file, whatever the blocks checked. Every stop of nginx is a
test too: the shutdown must be graceful and clean. To forbid [error] in
every block of a file that does not say otherwise:

    add_block_preprocessor(sub {
        my $block = shift;
        $block->set_value(no_error_log => "[error]")
            unless defined $block->no_error_log;
    });

In config, request, headers, bodies, user_files, kubectl and python
sections, $TEST_NGINX_SERVER_ROOT, $TEST_NGINX_HTML_DIR,
$TEST_NGINX_DATA_DIR, $TEST_NGINX_CERT_DIR, $TEST_NGINX_SERVER_PORT and
$TEST_NGINX_URL are replaced, as is any other $TEST_NGINX_* from the
environment.

=head1 FUNCTIONS

    run_tests()                 run the __DATA__ blocks (plans no_plan)
    repeat_each(N)              run every block N times (Test::Nginx)
    workers(N), log_level(L)    defaults for every block
    no_kube()                   plain nginx for the whole file (harness self-test)
    default_config($text)       server config for blocks without --- config
    add_block_preprocessor(sub { my $block = shift; ... })

    start_server(%opts)         start and return a server, or die; options:
        config, http_config, main_config, workers, log_level, tls, no_kube,
        reuseport (listen with it: the kernel spreads connections over the
        workers, where without it one idle worker may take them all),
        env => {...} (for the nginx master), ready_path (default /readyz
        when the config has kube_api; undef to skip)
    new_server(%opts)           the same, not started ($s->start returns 0/1,
                                the reason in $s->{start_error})
    $s->port, ->root, ->url, ->html_dir, ->data_dir
    $s->kubeconfig(cert => NAME) its path (default: the admin cert)
    $s->start, ->stop (true when the exit was graceful), ->restart(%opts),
    $s->reload(%opts [, wait_old => 1]) (HUP; waits for the new workers and
        the old ones to start shutting down, or with wait_old to exit),
    $s->kill9_all (SIGKILL to master and workers, returns their pids),
    $s->wait_ready($seconds [, $path]) (undef once every worker answers
        /readyz below 500, else why not; start does it),
    $s->is_running, ->master_pid, ->worker_pids, ->log_size,
    $s->log_since($offset), ->error_log_since_start, ->fatal_lines($text),
    $s->request($method, $path, %opts) (http_request on this server)
    $s->call($method, $path, $body, %opts) -> ($status, $json, $response),
        in scalar context the response: a body that is a reference goes as
        JSON; Content-Type application/json when there is a body; $json is
        the decoded answer or {}; options headers => {...}, type => the
        Content-Type, token => T (a bearer token, and no client cert unless
        cert is given), cert, timeout, http2, no_client_cert, drop_headers
    $s->patch($kind, $path, $body, %opts) call(PATCH) with the Content-Type
        of json, merge, smp or apply (%Test::Kube::Server::PatchType)
    $s->get_json($path, %opts)  the decoded answer to a GET if 200, else undef
    $s->create_namespace($name) POST it; one test that the answer is 201
    $s->kc($version, @args [, {opts}]) kubectl(...) on this server, with a
        90 s timeout; $version undef is the default kubectl
    $s->kc_ok($version, $what, @args [, {opts}]) -> stdout (list: stdout,
        stderr); one test that kubectl exits 0 ($what undef: the command)
    $s->kc_fails($version, $what, $want, @args [, {opts}]) -> stdout; two
        tests: exit 1, and stderr is the line $want
    $s->kc_json($version, @args [, {opts}]) kubectl ... -o json, decoded or {}
    $s->fatal_free_ok($text, $what) one test: no fatal_lines in the text

    http_request($method, $url, headers => {...}, body => $str, cert => NAME,
                 http2 => 1, timeout => S, data_callback => sub,
                 drop_headers => [names])
        -> {status, headers (lowercase names, repeated ones as arrays), body,
        protocol}; HTTP::Tiny, or curl for http2/drop_headers; https uses
        the admin client cert unless cert => undef; status 599 means the
        client failed (the body says why); a data_callback (HTTP::Tiny)
        receives the body in pieces, for watches, and may die to hang up
    kubectl($server, $version, @args [, {stdin, cache_dir, cert, timeout}])
        -> (exit code, stdout, stderr); cert => NAME presents another client
        cert (with cert => undef, kubectl would prompt for a user name and
        fail: over https it needs some credentials)
    kubectl_versions()          ('1.27', ..., '1.33') of those installed
    python_client($server, $script [, {stdin, cert, timeout}])
        -> (exit code, stdout, stderr)
    client_cert($cn, @groups), untrusted_cert($cn, @groups) -> cert name
    cert_dir()                  the per-file certificate directory
    run_command(\@argv, stdin => ..., env => {...}, timeout => S)
    json_subset($got, $want) -> undef or a message; json_subset_ok(...)
    wait_until(sub { ... }, $seconds) -> the first true value or undef
    loop_stall_bound()          seconds a GET on another connection may wait while
                                a heavy request runs on the same worker: 0.1, and
                                0.4 under SANITIZE=1 (ASan makes the loop's own
                                reading and parsing 3-5 times slower)
    pid_alive($pid)             running (zombies count as gone)
    warnings_of($response)      its Warning header values, as an array ref
    http_batch(\@requests, parallel => N) -> [responses]: many requests by
        one curl process (kept-alive connections; with parallel, N at once),
        each {method, url, headers, body, cert (NAME or undef), insecure,
        max_time} answered by {status, body, headers} in the same order; a
        transfer cut at max_time (a watch) keeps the status it had
    free_port()                 a loopback port nobody listens on
    start_etcd(%opts) -> {url, pid, dir, stop => sub, start => sub}: a real
        etcd (Debian's /usr/bin/etcd) on two free loopback ports with its data
        under the server root, ready to serve; stopped by its pid with
        stop->(), or when the file ends; start->() runs it again on the same
        ports and data once stopped; undef (and a note) when etcd is not
        installed. With tls => 1 it serves https:// with the test CA's
        server certificate and asks clients for one the CA signed
        (--client-cert-auth); {cacert, cert, key} are then the files a
        client uses
    reference_binary($name)     the real kube component $name (kube-scheduler,
        kube-controller-manager, kube-apiserver: v1.26.5, ../shared/bin or
        $KUBE_REFERENCE_BIN) unpacked into the scratch directory, its path;
        undef (and a note) when the compressed binary is not there
    start_reference_component($name, @args) -> {pid, log, dir, stop => sub}:
        runs it with @args, output to scratch_dir()/$name.log; stopped by
        its pid with stop->(), or when the file ends; undef when absent
    json_of($text)              its JSON value, or {} when it is not JSON
    slurp($file)                its bytes, '' when unreadable
    spew($file, $data) -> path  write it (a relative name: under scratch_dir())
    scratch_dir()               a per-file directory for the test's own files
    b64url($bytes)              unpadded base64url
    sign_jwt($key_file, \%claims [, \%header]) -> a compact RS256 JWS
    front_proxy_cert($cn)       a client cert for CN signed by a second CA,
        the request-header CA cert_dir()/front-proxy-ca.crt -> cert name

CustomResourceDefinitions from a kind's names, versions and schemas
(Test::Kube::Crd, exported here too; its options are documented there):

    crd(group => G, kind => K, %opts)       the definition, a Perl structure
    crd_yaml(group => G, kind => K, %opts)  the same as YAML, for kubectl -f

The protobuf wire format (Test::Kube::Protobuf, exported here too), to write
protobuf request bodies and read protobuf answers:

    pb_varint($n), pb_int($number, $n), pb_bytes($number, $bytes)
    pb_envelope($apiVersion, $kind, $raw)   "k8s\0" + runtime.Unknown
    pb_fields($bytes) -> ([number, value], ...)
    pb_msg($bytes) -> {number => last value, "number*" => [every value]}
    pb_unwrap($body) -> {apiVersion, kind, raw, encoding, type} or undef

Environment: KUBE_BUILD (where the module .so is, default <repo>/build),
SANITIZE=1 (preload the ASan runtime instead of jemalloc; leak detection
off unless ASAN_OPTIONS is set), TEST_NGINX_BINARY (default /usr/sbin/nginx),
TEST_KUBE_KEEP=1 (keep the server roots).

Workers run as the user running the tests ("user root;" when that is root,
unless main_config sets a user).

=cut

use strict;
use warnings;
use Test::Base -base;
use Test::More import => [qw(done_testing note subtest explain BAIL_OUT)];

use B ();
use Config ();
use Cwd qw(abs_path);
use Digest::MD5 ();
use File::Basename qw(basename dirname);
use File::Path qw(make_path remove_tree);
use File::Temp ();
use HTTP::Tiny;
use IO::Socket::INET;
use JSON::PP ();
use POSIX qw(WNOHANG);
use Text::ParseWords qw(shellwords);
use Time::HiRes qw(sleep time);

use Test::Kube::Crd;
use Test::Kube::Protobuf;

our @EXPORT = (qw(
    run_tests repeat_each workers log_level no_kube default_config
    add_block_preprocessor
    start_server new_server http_request kubectl kubectl_versions
    python_client client_cert untrusted_cert cert_dir run_command
    json_subset json_subset_ok wait_until loop_stall_bound admin_connection latencies_while
    pid_alive decode_json encode_json ABSENT
    scrape_metrics metric_value
    warnings_of http_batch free_port b64url sign_jwt front_proxy_cert
    json_of slurp spew scratch_dir start_etcd reference_binary start_reference_component
    done_testing note subtest explain BAIL_OUT
), @Test::Kube::Crd::EXPORT, @Test::Kube::Protobuf::EXPORT);

our $RepoRoot = abs_path(dirname(abs_path(__FILE__)) . '/../../..');
our $KubeBuild = $ENV{KUBE_BUILD} || "$RepoRoot/build";
our $ModulePath = "$KubeBuild/ngx_http_kube_apiserver_module.so";
our $NginxBinary = $ENV{TEST_NGINX_BINARY} || '/usr/sbin/nginx';
our $Jemalloc = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';
our $Kubectl = '/usr/bin/kubectl';
our $KubectlDir = '/usr/lib/google-cloud-sdk/bin';
our $Python = '/usr/bin/python3';

# Lines that fail any block whose log region contains them.
our @FatalPatterns = (
    qr/\[alert\]/, qr/\[emerg\]/, qr/\[crit\]/, qr/AddressSanitizer/,
    qr/runtime error:/, qr/terminate called/, qr/exited on signal/,
);

# The error pages of every kube server: what nginx answers itself on an API
# path is a Status too (conf/nginx.conf has the same lines).
our $KubeStatusConfig = <<'EOF';
error_page 400 405 408 411 413 414 429 494 495 496 497 500 501 502 503 504 505
           /.kube-status;
location = /.kube-status {
    internal;
    kube_status;
}
EOF

my $RepeatEach = 1;
my $Workers = 1;
my $LogLevel = 'info';
my $NoKube = 0;
my $DefaultConfig = "location / {\n    kube_api;\n}\n";
my @Preprocessors;

my $OwnerPid = $$;
my $BaseDir;
my $CertsReady = 0;
my @Servers;
my $ServerSeq = 0;

my $JSON = JSON::PP->new->canonical->allow_nonref;

sub ABSENT() { return \&ABSENT }

# For "eval" sections, which Test::Base compiles in Test::Base::Filter.
{
    no warnings 'once';
    *Test::Base::Filter::ABSENT = \&ABSENT;
    *Test::Base::Filter::true = sub () { JSON::PP::true() };
    *Test::Base::Filter::false = sub () { JSON::PP::false() };
}

sub decode_json { return $JSON->decode($_[0]) }

sub warnings_of {
    my $w = $_[0]{headers}{warning};
    return [] unless defined $w;
    return ref $w ? $w : [$w];
}
sub encode_json { return $JSON->encode($_[0]) }

# json_of($text) -> its JSON value, or {} when it is not JSON
sub json_of {
    my $v = eval { decode_json($_[0]) };
    return defined $v ? $v : {};
}

# slurp($file) -> its bytes ('' when it cannot be read)
sub slurp { return _slurp($_[0]) }

# spew($file, $data) -> $file's path, written (directories made); a relative
# name goes under scratch_dir()
sub spew {
    my ($file, $data) = @_;
    $file = scratch_dir() . "/$file" unless $file =~ m{^/};
    _spew($file, $data);
    return $file;
}

sub repeat_each {
    $RepeatEach = shift if @_;
    return $RepeatEach;
}

sub workers {
    $Workers = shift if @_;
    return $Workers;
}

sub log_level {
    $LogLevel = shift if @_;
    return $LogLevel;
}

sub no_kube {
    $NoKube = @_ ? shift : 1;
    return $NoKube;
}

sub default_config {
    $DefaultConfig = shift if @_;
    return $DefaultConfig;
}

sub add_block_preprocessor {
    push @Preprocessors, @_;
}

# ---------------------------------------------------------------------------
# Per-file directories and certificates

sub base_dir {
    return $BaseDir if defined $BaseDir;
    my $name = basename($0);
    $name =~ s/\.t$//;
    $name =~ s/[^\w.-]/_/g;
    $BaseDir = "$RepoRoot/t/servroot-$name-$$";
    remove_tree($BaseDir);
    make_path($BaseDir);
    return $BaseDir;
}

# scratch_dir() -> a per-file directory for files the test writes (made on
# first use, inside the server root, so it goes with it)
sub scratch_dir {
    my $dir = base_dir() . '/files';
    make_path($dir);
    return $dir;
}

sub cert_dir {
    my $dir = base_dir() . '/certs';
    unless ($CertsReady) {
        my ($rc, $out, $err) = run_command(["$RepoRoot/conf/mkcerts.sh", $dir]);
        die "conf/mkcerts.sh $dir failed ($rc): $err" if $rc != 0;
        $CertsReady = 1;
    }
    return $dir;
}

# A file name for a subject: readable, and distinct for distinct subjects.
sub _cert_name {
    my ($prefix, $cn, @groups) = @_;
    my $name = $cn;
    $name =~ s/[^A-Za-z0-9_.-]/-/g;
    return "$prefix-$name-" . substr(Digest::MD5::md5_hex(join "\0", $cn, @groups), 0, 8);
}

# client_cert($cn, @groups): a client certificate signed by the test CA.
sub client_cert {
    my ($cn, @groups) = @_;
    my $dir = cert_dir();
    my $name = _cert_name('u', $cn, @groups);
    return $name if -f "$dir/$name.crt";
    my ($rc, $out, $err) =
        run_command(["$RepoRoot/conf/mkcerts.sh", $dir, 'client', $name, $cn, @groups]);
    die "mkcerts.sh client $name failed ($rc): $err" if $rc != 0;
    return $name;
}

# untrusted_cert($cn, @groups): a client certificate no trusted CA signed.
sub untrusted_cert {
    my ($cn, @groups) = @_;
    my $dir = cert_dir();
    my $name = _cert_name('x', $cn, @groups);
    return $name if -f "$dir/$name.crt";
    my ($rc, $out, $err) =
        run_command(["$RepoRoot/conf/mkcerts.sh", $dir, 'self-signed', $name, $cn, @groups]);
    die "mkcerts.sh self-signed $name failed ($rc): $err" if $rc != 0;
    return $name;
}

# ---------------------------------------------------------------------------
# Processes

sub _slurp {
    my ($file, $offset) = @_;
    open my $fh, '<:raw', $file or return '';
    seek $fh, $offset, 0 if $offset;
    local $/;
    my $data = <$fh>;
    close $fh;
    return defined $data ? $data : '';
}

sub _spew {
    my ($file, $data) = @_;
    make_path(dirname($file));
    open my $fh, '>:raw', $file or die "cannot write $file: $!";
    print {$fh} $data;
    close $fh or die "cannot write $file: $!";
}

# run_command(\@argv, stdin => $str, env => {NAME => value|undef}, timeout => S)
# -> (exit code, stdout, stderr); the exit code is 128+N for signal N and
# -1 when the command was killed at the timeout. Output goes through files,
# not pipes, so a daemon that inherits them cannot hold us up.
sub run_command {
    my ($argv, %o) = @_;
    local ($?, $!);
    my $tmp = File::Temp->newdir('kube-cmd-XXXXXX', TMPDIR => 1);
    my ($in, $out, $err) = map { "$tmp/$_" } qw(in out err);
    _spew($in, defined $o{stdin} ? $o{stdin} : '');
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open STDIN, '<', $in or POSIX::_exit(126);
        open STDOUT, '>', $out or POSIX::_exit(126);
        open STDERR, '>', $err or POSIX::_exit(126);
        chdir $o{cwd} if defined $o{cwd};
        for my $name (keys %{ $o{env} || {} }) {
            if (defined $o{env}{$name}) {
                $ENV{$name} = $o{env}{$name};
            } else {
                delete $ENV{$name};
            }
        }
        { no warnings 'exec'; exec { $argv->[0] } @$argv; }
        print STDERR "exec $argv->[0]: $!\n";
        POSIX::_exit(127);
    }
    my $deadline = time + (defined $o{timeout} ? $o{timeout} : 60);
    my $delay = 0.001;
    my $rc;
    while (1) {
        my $r = waitpid($pid, WNOHANG);
        if ($r == $pid) {
            my $st = $?;
            $rc = ($st & 127) ? 128 + ($st & 127) : $st >> 8;
            last;
        }
        if (time > $deadline) {
            kill 'KILL', $pid;
            waitpid($pid, 0);
            $rc = -1;
            last;
        }
        sleep $delay;
        $delay *= 2 if $delay < 0.05;
    }
    my ($stdout, $stderr) = (_slurp($out), _slurp($err));
    $stderr .= "\n(killed after $o{timeout} s)" if $rc == -1 && defined $o{timeout};
    return ($rc, $stdout, $stderr);
}

sub loop_stall_bound {
    return ($ENV{SANITIZE} || '') eq '1' ? 0.4 : 0.1;
}

# An HTTP::Tiny client on one kept-alive TLS connection with the admin's
# certificate (of cert_dir()), as another client of the same worker would
# be: latencies_while's prober.
sub admin_connection {
    my $dir = cert_dir();
    return HTTP::Tiny->new(keep_alive => 1, timeout => 10, verify_SSL => 1,
        SSL_options => { SSL_ca_file => "$dir/ca.crt", SSL_cert_file => "$dir/admin.crt",
            SSL_key_file => "$dir/admin.key" });
}

# latencies_while($client, $url, $work): runs $work (a code ref) in a child
# process while this one GETs $url with $client (an HTTP::Tiny on its own
# kept-alive connection) every 10 ms, for at most 60 s. Returns whether
# $work returned true, then each GET's latency in seconds (999 for one that
# failed). With loop_stall_bound() it shows that heavy work leaves the event
# loop free for other clients.
sub latencies_while {
    my ($client, $url, $work) = @_;
    $client->get($url);
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        POSIX::_exit($work->() ? 0 : 1);
    }
    my @latencies;
    my $deadline = time + 60;
    while (time < $deadline && waitpid($pid, POSIX::WNOHANG()) != $pid) {
        my $t0 = time;
        my $r = $client->get($url);
        push @latencies, $r->{status} == 200 ? time - $t0 : 999;
        sleep 0.01;
    }
    return ($? == 0, @latencies);
}

# wait_until(sub { ... }, $seconds): polls until the sub returns true.
sub wait_until {
    my ($cond, $seconds) = @_;
    my $deadline = time + (defined $seconds ? $seconds : 10);
    my $delay = 0.005;
    while (1) {
        my $v = $cond->();
        return $v if $v;
        return undef if time > $deadline;
        sleep $delay;
        $delay *= 2 if $delay < 0.1;
    }
}

sub pid_alive { return _alive(@_) }

# The daemonised nginx masters (and workers whose master died) are re-parented
# to us rather than to PID 1, so that we can reap them and leave no zombies.
if ($^O eq 'linux' && $Config::Config{archname} =~ /^x86_64/) {
    syscall(157, 36, 1, 0, 0, 0);    # prctl(PR_SET_CHILD_SUBREAPER, 1)
}

# Reaps every exited child. run_command reaps its own children before it
# returns, so whatever is left here is nginx: a master, or a worker whose
# master died before it.
sub _reap {
    local ($?, $!);
    my $r;
    1 while ($r = waitpid(-1, WNOHANG)) > 0;
    return $r;
}

sub _alive {
    my $pid = shift;
    return 0 unless $pid;
    _reap();
    return 0 unless kill(0, $pid);
    # Someone else's orphan may stay a zombie until PID 1 reaps it.
    my $stat = _slurp("/proc/$pid/stat");
    return 0 if $stat =~ /^\d+ \(.*\) [ZX] /s;
    return 1;
}

sub _children {
    my $ppid = shift;
    my @pids;
    opendir my $dh, '/proc' or return ();
    for my $pid (grep { /^\d+$/ } readdir $dh) {
        my $stat = _slurp("/proc/$pid/stat");
        next unless $stat =~ /^\d+ \(.*\) (\S) (\d+) /s;
        push @pids, $pid + 0 if $2 == $ppid && $1 ne 'Z' && $1 ne 'X';
    }
    closedir $dh;
    return sort { $a <=> $b } @pids;
}

sub _free_port {
    my $sock = IO::Socket::INET->new(
        LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp', Listen => 1,
        ReuseAddr => 1,
    ) or die "cannot find a free port: $!";
    my $port = $sock->sockport;
    close $sock;
    return $port;
}

# start_etcd(%opts) -> {url, pid, dir, stop}; see FUNCTIONS.
my @Etcds;

sub start_etcd {
    my %o = @_;
    my $bin = '/usr/bin/etcd';
    unless (-x $bin) {
        note("no $bin (Debian's etcd-server)");
        return undef;
    }
    my $dir = base_dir() . '/etcd' . (scalar(@Etcds) + 1);
    make_path($dir);
    my ($client, $peer) = (_free_port(), _free_port());
    my $url = ($o{tls} ? 'https' : 'http') . "://127.0.0.1:$client";
    my $e = { url => $url, dir => $dir, port => $client };
    my (@tls, %ssl);
    if ($o{tls}) {
        my $certs = cert_dir();
        my $name = client_cert('etcd-client');
        @$e{qw(cacert cert key)} = ("$certs/ca.crt", "$certs/$name.crt", "$certs/$name.key");
        @tls = ('--cert-file', "$certs/server.crt", '--key-file', "$certs/server.key",
            '--trusted-ca-file', "$certs/ca.crt", '--client-cert-auth');
        %ssl = (verify_SSL => 1, SSL_options => { SSL_ca_file => $e->{cacert},
            SSL_cert_file => $e->{cert}, SSL_key_file => $e->{key} });
    }
    $e->{start} = sub {
        my $pid = fork;
        die "fork: $!" unless defined $pid;
        if ($pid == 0) {
            open STDOUT, '>>', "$dir/etcd.log";
            open STDERR, '>&', \*STDOUT;
            { exec $bin, '--name', 'test', '--data-dir', "$dir/data",
                '--listen-client-urls', $url, '--advertise-client-urls', $url,
                '--listen-peer-urls', "http://127.0.0.1:$peer",
                '--initial-advertise-peer-urls', "http://127.0.0.1:$peer",
                '--initial-cluster', "test=http://127.0.0.1:$peer", @tls };
            POSIX::_exit(127);
        }
        $e->{pid} = $pid;
        my $ready = wait_until(sub {
            my $r = HTTP::Tiny->new(timeout => 2, %ssl)->get("$url/health");
            $r->{status} == 200 && $r->{content} =~ /"health":\s*"true"/;
        }, 20);
        die "etcd did not start: " . _slurp("$dir/etcd.log") unless $ready;
    };
    $e->{stop} = sub {
        my $pid = $e->{pid};
        return unless _alive($pid);
        kill 'TERM', $pid;
        wait_until(sub { !_alive($pid) }, 10) or kill 'KILL', $pid;
        waitpid($pid, 0);
    };
    push @Etcds, $e;
    $e->{start}->();
    return $e;
}

# reference_binary($name) / start_reference_component($name, @args); see
# FUNCTIONS.
my @Components;

sub reference_binary {
    my $name = shift;
    my $dir = $ENV{KUBE_REFERENCE_BIN} // "$RepoRoot/../shared/bin";
    my $xz = "$dir/$name.xz";
    unless (-f $xz) {
        note("no $xz (the reference $name binary is not here)");
        return undef;
    }
    my $bin = scratch_dir() . "/$name";
    return $bin if -x $bin;
    my $unpack = 'xz -dc "$1" > "$2.part" && chmod +x "$2.part" && mv "$2.part" "$2"';
    my ($rc, undef, $err) = run_command(['/bin/sh', '-c', $unpack, 'unpack', $xz, $bin]);
    die "cannot unpack $xz: $err" if $rc;
    return $bin;
}

sub start_reference_component {
    my ($name, @args) = @_;
    my $bin = reference_binary($name) // return undef;
    my $c = { name => $name, log => scratch_dir() . "/$name.log", dir => scratch_dir() };
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open STDOUT, '>', $c->{log};
        open STDERR, '>&', \*STDOUT;
        { exec $bin, @args };
        POSIX::_exit(127);
    }
    $c->{pid} = $pid;
    $c->{stop} = sub {
        my $p = $c->{pid};
        return unless _alive($p);
        kill 'TERM', $p;
        wait_until(sub { !_alive($p) }, 10) or kill 'KILL', $p;
        waitpid($p, 0);
    };
    push @Components, $c;
    return $c;
}

my $Asan;

sub _preload {
    if (($ENV{SANITIZE} || '') eq '1') {
        unless (defined $Asan) {
            # libstdc++ too: nginx does not link it, and ASan finds the real
            # __cxa_throw for its interceptor only in what is loaded when it
            # starts (else the module's first exception aborts the worker:
            # "CHECK failed ... real___cxa_throw")
            my @libs;
            for my $lib (qw(libasan.so libstdc++.so.6)) {
                my ($rc, $out) = run_command(['gcc', "-print-file-name=$lib"]);
                chomp $out;
                push @libs, abs_path($out) || $out;
            }
            $Asan = join ' ', @libs;
        }
        return $Asan;
    }
    return -e $Jemalloc ? $Jemalloc : undef;
}

# The environment nginx starts with. nginx never frees its cycle pool at
# exit, so LeakSanitizer would report every worker exit: leak detection is
# off unless ASAN_OPTIONS says otherwise.
sub _nginx_env {
    my $preload = _preload();
    my %env = $preload ? (LD_PRELOAD => $preload) : ();
    if (($ENV{SANITIZE} || '') eq '1' && !defined $ENV{ASAN_OPTIONS}) {
        $env{ASAN_OPTIONS} = 'detect_leaks=0';
    }
    return %env;
}

# ---------------------------------------------------------------------------
# HTTP

sub _curl_request {
    my ($method, $url, %o) = @_;
    my $tmp = File::Temp->newdir('kube-curl-XXXXXX', TMPDIR => 1);
    my @cmd = ('curl', '-sS', '-o', "$tmp/body", '-D', "$tmp/head",
        '-w', '%{http_version}', '--max-time', $o{timeout} || 10,
        $o{http2} ? '--http2' : '--http1.1', '-H', 'Expect:');
    if ($method eq 'HEAD') {
        push @cmd, '--head';
    } else {
        push @cmd, '-X', $method;
    }
    if ($url =~ /^https:/) {
        push @cmd, '--cacert', cert_dir() . '/ca.crt';
        if (defined $o{cert}) {
            push @cmd, '--cert', cert_dir() . "/$o{cert}.crt", '--key',
                cert_dir() . "/$o{cert}.key";
        }
    }
    push @cmd, '-H', "$_:" for @{ $o{drop_headers} || [] };
    my $h = $o{headers} || {};
    for my $name (sort keys %$h) {
        for my $v (ref $h->{$name} ? @{ $h->{$name} } : $h->{$name}) {
            push @cmd, '-H', "$name: $v";
        }
    }
    if (defined $o{body}) {
        _spew("$tmp/req", $o{body});
        push @cmd, '--data-binary', "\@$tmp/req";
    }
    push @cmd, $url;
    my ($rc, $out, $err) = run_command(\@cmd, timeout => ($o{timeout} || 10) + 5);
    if ($rc != 0) {
        return { status => 599, headers => {}, body => "curl failed ($rc): $err",
            protocol => '' };
    }
    my $res = _parse_head(_slurp("$tmp/head"));
    $res->{body} = _slurp("$tmp/body");
    $res->{protocol} = $out eq '2' ? 'HTTP/2' : "HTTP/$out";
    return $res;
}

# The last header block of a response head (interim 1xx blocks skipped).
sub _parse_head {
    my $head = shift;
    my @blocks = grep { /\S/ } split /\r?\n\r?\n/, $head;
    my $last = @blocks ? $blocks[-1] : '';
    my @lines = split /\r?\n/, $last;
    my $status_line = shift(@lines) // '';
    my ($proto, $status, $reason) = $status_line =~ m{^(\S+)\s+(\d+)\s*(.*)$};
    my %headers;
    for my $line (@lines) {
        next unless $line =~ /^([^:]+):\s*(.*?)\s*$/;
        my ($n, $v) = (lc $1, $2);
        if (exists $headers{$n}) {
            $headers{$n} = [ ref $headers{$n} ? @{ $headers{$n} } : $headers{$n}, $v ];
        } else {
            $headers{$n} = $v;
        }
    }
    return { status => $status // 599, reason => $reason // '', headers => \%headers,
        protocol => $proto // '' };
}

# http_request($method, $url, %opts) -> {status, headers, body, protocol}
sub http_request {
    my ($method, $url, %o) = @_;
    my $https = $url =~ /^https:/;
    my $cert = exists $o{cert} ? $o{cert} : $https ? 'admin' : undef;
    $cert = undef if $o{no_client_cert};
    return _curl_request($method, $url, %o, cert => $cert)
        if $o{http2} || $o{curl} || $o{drop_headers};

    my %args = (max_redirect => 0, timeout => $o{timeout} || 10, keep_alive => 0,
        agent => $o{agent} || 'Test-Kube/1.0');
    if ($https) {
        my $dir = cert_dir();
        my %ssl = (SSL_ca_file => "$dir/ca.crt");
        if (defined $cert) {
            $ssl{SSL_cert_file} = "$dir/$cert.crt";
            $ssl{SSL_key_file} = "$dir/$cert.key";
        }
        $args{verify_SSL} = 1;
        $args{SSL_options} = \%ssl;
    }
    my $ua = HTTP::Tiny->new(%args);
    my %req = (headers => $o{headers} || {});
    $req{content} = $o{body} if defined $o{body};
    $req{data_callback} = $o{data_callback} if $o{data_callback};
    my $r = $ua->request($method, $url, \%req);
    return {
        status => $r->{status}, reason => $r->{reason}, headers => $r->{headers} || {},
        body => defined $r->{content} ? $r->{content} : '', protocol => $r->{protocol} || '',
    };
}

# http_batch(\@requests, parallel => N) -> [{status, body, headers}, ...]
# One curl process for all the requests, described in a config file (one
# "next" section each), so connections are kept alive between them and a
# matrix of hundreds of cells costs no process per cell.
sub http_batch {
    my ($requests, %o) = @_;
    my $tmp = File::Temp->newdir('kube-batch-XXXXXX', TMPDIR => 1);
    my $q = sub { my $v = shift; $v =~ s/(["\\])/\\$1/g; qq{"$v"} };
    my @sections;
    for my $i (0 .. $#$requests) {
        my $r = $requests->[$i];
        my @l = ('silent', 'http1.1', 'header = "Expect:"',
            'url = ' . $q->($r->{url}), 'request = ' . $q->($r->{method} || 'GET'),
            "output = \"$tmp/$i.body\"", "dump-header = \"$tmp/$i.head\"",
            'max-time = ' . ($r->{max_time} || 10),
            'write-out = "%{http_code}\\n"');
        if ($r->{url} =~ /^https:/) {
            push @l, $r->{insecure} ? 'insecure' : 'cacert = ' . $q->(cert_dir() . '/ca.crt');
            if (defined $r->{cert}) {
                push @l, 'cert = ' . $q->(cert_dir() . "/$r->{cert}.crt"),
                    'key = ' . $q->(cert_dir() . "/$r->{cert}.key");
            }
        }
        my $h = $r->{headers} || {};
        for my $name (sort keys %$h) {
            for my $v (ref $h->{$name} ? @{ $h->{$name} } : $h->{$name}) {
                push @l, 'header = ' . $q->("$name: $v");
            }
        }
        if (defined $r->{body}) {
            _spew("$tmp/$i.req", $r->{body});
            push @l, "data-binary = \"\@$tmp/$i.req\"";
        }
        push @sections, join "\n", @l;
    }
    _spew("$tmp/config", join("\nnext\n", @sections) . "\n");
    my @cmd = ('curl', '-K', "$tmp/config");
    splice @cmd, 1, 0, '--parallel', '--parallel-max', $o{parallel} if $o{parallel};
    my $limit = 30;
    $limit += $_->{max_time} || 10 for @$requests;
    run_command(\@cmd, timeout => $o{parallel} ? 60 : $limit);
    my @out;
    for my $i (0 .. $#$requests) {
        my $head = _slurp("$tmp/$i.head");
        my $res = $head eq '' ? { status => 599, headers => {} } : _parse_head($head);
        $res->{body} = _slurp("$tmp/$i.body");
        push @out, $res;
    }
    return \@out;
}

sub free_port { return _free_port() }

sub b64url {
    require MIME::Base64;
    my $s = MIME::Base64::encode_base64($_[0], '');
    $s =~ tr{+/}{-_};
    $s =~ s/=+$//;
    return $s;
}

# sign_jwt($key_file, \%claims [, \%header]) -> a compact JWS signed with
# the RSA key in $key_file (RS256).
sub sign_jwt {
    my ($key, $claims, $header) = @_;
    my $input = b64url(encode_json($header || { alg => 'RS256' })) . '.'
        . b64url(encode_json($claims));
    my $tmp = File::Temp->newdir('kube-jwt-XXXXXX', TMPDIR => 1);
    _spew("$tmp/input", $input);
    my ($rc, $sig, $err) =
        run_command([ 'openssl', 'dgst', '-sha256', '-sign', $key, "$tmp/input" ]);
    die "openssl dgst -sign $key failed ($rc): $err" if $rc != 0;
    return "$input." . b64url($sig);
}

# front_proxy_cert($cn) -> the name of a client certificate for $cn signed
# by the front proxy's CA (cert_dir()/front-proxy-ca.crt, made once), the
# CA kube_requestheader_client_ca_file names.
sub front_proxy_cert {
    my ($cn) = @_;
    my $dir = cert_dir();
    my $name = "fp-$cn";
    return $name if -f "$dir/$name.crt";
    my $cnf = "$dir/front-proxy.cnf";
    _spew($cnf, "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = unused\n"
        . "[ca]\nbasicConstraints = critical, CA:TRUE\n"
        . "keyUsage = critical, keyCertSign, cRLSign, digitalSignature\n"
        . "[client]\nbasicConstraints = critical, CA:FALSE\n"
        . "keyUsage = critical, digitalSignature, keyEncipherment\n"
        . "extendedKeyUsage = clientAuth\n");
    my $sh = sub {
        my ($rc, $out, $err) = run_command([@_]);
        die "@_ failed ($rc): $err" if $rc != 0;
    };
    my @ec = ('openssl', 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256');
    unless (-f "$dir/front-proxy-ca.crt") {
        $sh->(@ec, '-out', "$dir/front-proxy-ca.key");
        $sh->('openssl', 'req', '-x509', '-new', '-config', $cnf, '-extensions', 'ca',
            '-key', "$dir/front-proxy-ca.key", '-subj', '/CN=front-proxy-ca', '-days', 3650,
            '-out', "$dir/front-proxy-ca.crt");
    }
    $sh->(@ec, '-out', "$dir/$name.key");
    $sh->('openssl', 'req', '-new', '-config', $cnf, '-key', "$dir/$name.key",
        '-subj', "/CN=$cn", '-out', "$dir/$name.csr");
    $sh->('openssl', 'x509', '-req', '-in', "$dir/$name.csr", '-CA', "$dir/front-proxy-ca.crt",
        '-CAkey', "$dir/front-proxy-ca.key", '-set_serial',
        '0x' . substr(Digest::MD5::md5_hex($cn), 0, 12), '-days', 3650,
        '-extfile', $cnf, '-extensions', 'client', '-out', "$dir/$name.crt");
    return $name;
}

# One request written as raw bytes on a fresh connection; the response is
# read until the server closes, the body is complete, or the timeout.
sub _raw_request {
    my ($port, $tls, $bytes, %o) = @_;
    local $SIG{PIPE} = 'IGNORE';
    my $timeout = $o{timeout} || 10;
    my $sock;
    if ($tls) {
        require IO::Socket::SSL;
        my $dir = cert_dir();
        $sock = IO::Socket::SSL->new(
            PeerAddr => '127.0.0.1', PeerPort => $port, Timeout => $timeout,
            SSL_ca_file => "$dir/ca.crt", SSL_verifycn_name => '127.0.0.1',
            SSL_verifycn_scheme => 'http',
            defined $o{cert}
                ? (SSL_cert_file => "$dir/$o{cert}.crt", SSL_key_file => "$dir/$o{cert}.key")
                : (),
        );
        return { status => 599, headers => {}, body => "connect: $IO::Socket::SSL::SSL_ERROR" }
            unless $sock;
    } else {
        $sock = IO::Socket::INET->new(
            PeerAddr => '127.0.0.1', PeerPort => $port, Proto => 'tcp', Timeout => $timeout,
        ) or return { status => 599, headers => {}, body => "connect: $!" };
    }
    print {$sock} $bytes;
    my $data = '';
    my $deadline = time + $timeout;
    my $sel = '';
    vec($sel, fileno($sock), 1) = 1;
    while (time < $deadline) {
        my $pending = $tls ? $sock->pending : 0;
        unless ($pending) {
            my $rin = $sel;
            next unless select($rin, undef, undef, 0.1);
        }
        my $n = sysread($sock, my $buf, 65536);
        last unless $n;
        $data .= $buf;
        last if _raw_complete($data);
    }
    close $sock;
    return { status => 599, headers => {}, body => 'no response' } if $data eq '';
    return _parse_raw_response($data);
}

sub _raw_complete {
    my $data = shift;
    my $end = index $data, "\r\n\r\n";
    return 0 if $end < 0;
    my $head = substr $data, 0, $end;
    return 0 if $head =~ m{^HTTP/\S+ 1\d\d };
    my $body_len = length($data) - $end - 4;
    return $body_len >= $1 if $head =~ /^content-length:\s*(\d+)/mi;
    return $data =~ /\r\n0\r\n(?:.*?\r\n)?\r\n\z/s if $head =~ /^transfer-encoding:\s*chunked/mi;
    return $head =~ m{^HTTP/\S+ (?:204|304) } ? 1 : 0;
}

sub _parse_raw_response {
    my $data = shift;
    my ($head, $body);
    while (1) {
        ($head, $body) = split /\r\n\r\n/, $data, 2;
        last unless $head =~ m{^HTTP/\S+ 1\d\d } && defined $body;
        $data = $body;
    }
    my $res = _parse_head($head);
    $body = '' unless defined $body;
    my $te = $res->{headers}{'transfer-encoding'} || '';
    if ($te =~ /chunked/i) {
        my $decoded = '';
        while ($body =~ s/\A([0-9a-fA-F]+)[^\r\n]*\r\n//) {
            my $len = hex $1;
            last if $len == 0;
            $decoded .= substr($body, 0, $len, '');
            $body =~ s/\A\r\n//;
        }
        $body = $decoded;
    } elsif (defined $res->{headers}{'content-length'}) {
        $body = substr($body, 0, $res->{headers}{'content-length'});
    }
    $res->{body} = $body;
    return $res;
}

# ---------------------------------------------------------------------------
# Clients

sub _kubectl_path {
    my $version = shift;
    return $Kubectl if !defined $version || $version eq '1.32';
    return "$KubectlDir/kubectl.$version";
}

sub kubectl_versions {
    return grep { -x _kubectl_path($_) } map { "1.$_" } 27 .. 33;
}

# kubectl($server, $version, @args [, {stdin, cache_dir, cert, timeout, env}])
sub kubectl {
    my ($server, $version, @args) = @_;
    my %o = (@args && ref $args[-1] eq 'HASH') ? %{ pop @args } : ();
    my $bin = _kubectl_path($version);
    die "kubectl $version is not installed ($bin)" unless -x $bin;
    my $cache = $o{cache_dir};
    my $tmp;
    unless (defined $cache) {
        $tmp = File::Temp->newdir('kube-cache-XXXXXX', TMPDIR => 1);
        $cache = "$tmp";
    }
    my $kubeconfig = $server->kubeconfig(exists $o{cert} ? (cert => $o{cert}) : ());
    return run_command(
        [ $bin, "--kubeconfig=$kubeconfig", "--cache-dir=$cache", @args ],
        stdin => $o{stdin}, timeout => $o{timeout} || 60,
        env => { KUBECONFIG => undef, HOME => "$cache", %{ $o{env} || {} } },
    );
}

# python_client($server, $script [, {stdin, cert, timeout, env}])
sub python_client {
    my ($server, $script, $opts) = @_;
    my %o = %{ $opts || {} };
    my $tmp = File::Temp->newdir('kube-py-XXXXXX', TMPDIR => 1);
    _spew("$tmp/script.py", $script);
    my $kubeconfig = $server->kubeconfig(exists $o{cert} ? (cert => $o{cert}) : ());
    return run_command(
        [ $Python, "$tmp/script.py" ],
        stdin => $o{stdin}, timeout => $o{timeout} || 60,
        env => { KUBECONFIG => $kubeconfig, PYTHONDONTWRITEBYTECODE => 1,
            %{ $o{env} || {} } },
    );
}

# ---------------------------------------------------------------------------
# JSON subset matching

sub _is_number {
    my $v = shift;
    return 0 if !defined $v || ref $v;
    my $f = B::svref_2object(\$v)->FLAGS;
    return ($f & (B::SVp_IOK | B::SVp_NOK)) && !($f & B::SVp_POK) ? 1 : 0;
}

sub _is_bool {
    my $v = shift;
    return JSON::PP::is_bool($v) || (ref $v eq 'SCALAR' && defined $$v && $$v =~ /^[01]$/);
}

sub _show {
    my $v = shift;
    my $s = eval { $JSON->encode($v) } // "$v";
    $s = substr($s, 0, 300) . '...' if length $s > 300;
    return $s;
}

# json_subset($got, $want) -> undef when $got contains $want, else a message
sub json_subset {
    my ($got, $want, $path) = @_;
    $path = '$' unless defined $path;
    my $bad = sub { return "$path: got " . _show($got) . ", want " . ($_[0] // _show($want)) };
    if (ref $want eq 'CODE' && $want == \&ABSENT) {
        return "$path: present (" . _show($got) . "), want absent";
    }
    if (ref $want eq 'Regexp') {
        return undef if defined $got && !ref $got && $got =~ $want;
        return $bad->("a match for $want");
    }
    if (ref $want eq 'HASH') {
        return $bad->() unless ref $got eq 'HASH';
        for my $k (sort keys %$want) {
            my $w = $want->{$k};
            if (ref $w eq 'CODE' && $w == \&ABSENT) {
                next unless exists $got->{$k};
            } elsif (!exists $got->{$k}) {
                return "$path.$k: missing, want " . _show($w);
            }
            my $e = json_subset($got->{$k}, $w, "$path.$k");
            return $e if defined $e;
        }
        return undef;
    }
    if (ref $want eq 'ARRAY') {
        return $bad->() unless ref $got eq 'ARRAY';
        return "$path: got " . scalar(@$got) . " items, want " . scalar(@$want)
            . " (got " . _show($got) . ")"
            unless @$got == @$want;
        for my $i (0 .. $#$want) {
            my $e = json_subset($got->[$i], $want->[$i], "$path\[$i]");
            return $e if defined $e;
        }
        return undef;
    }
    if (_is_bool($want)) {
        my $wv = ref $want eq 'SCALAR' ? $$want : !!$want;
        return undef if JSON::PP::is_bool($got) && !!$got == !!$wv;
        return $bad->($wv ? 'true' : 'false');
    }
    if (!defined $want) {
        return defined $got ? $bad->('null') : undef;
    }
    if (_is_number($want)) {
        return undef if _is_number($got) && $got == $want;
        return $bad->("the number $want");
    }
    return undef if defined $got && !ref $got && !_is_number($got) && $got eq $want;
    return $bad->();
}

sub json_subset_ok {
    my ($got, $want, $name) = @_;
    my $e = json_subset($got, $want);
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok(!defined $e, $name) or diag($e);
    return !defined $e;
}

# ---------------------------------------------------------------------------
# Metrics

# scrape_metrics($server, %request_opts) -> ({name}{labels} = value, {name} =
# type): every sample of GET /metrics, parsed by prometheus_client, labels as
# `k=v,...` sorted; tests that the answer is 200 text/plain and parses.
sub scrape_metrics {
    my ($srv, %o) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    my $r = $srv->request(GET => '/metrics', %o);
    is($r->{status}, 200, 'GET /metrics') or return;
    like($r->{headers}{'content-type'}, qr{^text/plain}, 'text/plain');
    my $file = $srv->root . '/scrape.txt';
    _spew($file, $r->{body});
    my ($rc, $out, $err) = run_command([$Python, '-c', <<'PY', $file]);
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = {"types": {}, "samples": []}
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    out["types"][fam.name] = fam.type
    for s in fam.samples:
        out["samples"].append([s.name, s.labels, s.value])
print(json.dumps(out))
PY
    is($rc, 0, 'the scrape parses as Prometheus text') or diag($err);
    my $got = decode_json($out);
    my %m;
    for my $smp (@{ $got->{samples} }) {
        my ($name, $labels, $value) = @$smp;
        my $key = join ',', map { "$_=$labels->{$_}" } sort keys %$labels;
        $m{$name}{$key} = $value;
    }
    return (\%m, $got->{types});
}

# metric_value($samples, $name, %labels) -> the sum of the series of `name`
# whose labels include %labels (0 when none).
sub metric_value {
    my ($m, $name, %want) = @_;
    my $sum = 0;
    for my $key (keys %{ $m->{$name} || {} }) {
        my %l = map { split /=/, $_, 2 } split /,/, $key;
        next if grep { ($l{$_} // "\0") ne $want{$_} } keys %want;
        $sum += $m->{$name}{$key};
    }
    return $sum;
}

# ---------------------------------------------------------------------------
# Servers

sub new_server {
    my %opts = @_;
    my $s = Test::Kube::Server->_new(%opts);
    push @Servers, $s;
    return $s;
}

sub start_server {
    my $s = new_server(@_);
    $s->start or die "nginx failed to start: $s->{start_error}";
    return $s;
}

# ---------------------------------------------------------------------------
# Blocks

sub _section {
    my ($block, $name) = @_;
    return exists $block->{$name} ? $block->$name : undef;
}

sub _has {
    my ($block, $name) = @_;
    return exists $block->{$name};
}

sub _subst {
    my ($s, $text) = @_;
    return $text unless defined $text && !ref $text;
    my %vars = (
        TEST_NGINX_SERVER_ROOT => $s->root, TEST_NGINX_HTML_DIR => $s->html_dir,
        TEST_NGINX_DATA_DIR => $s->data_dir, TEST_NGINX_SERVER_PORT => $s->port,
    );
    $vars{TEST_NGINX_CERT_DIR} = cert_dir() if $text =~ /\$TEST_NGINX_CERT_DIR\b/;
    my %env = map { $_ => $ENV{$_} } grep { /^TEST_NGINX_/ } keys %ENV;
    # URL depends on the scheme, which the block decides; filled by the caller.
    $text =~ s/\$(TEST_NGINX_[A-Z0-9_]+)/
        exists $vars{$1} ? $vars{$1} : exists $s->{vars}{$1} ? $s->{vars}{$1}
        : exists $env{$1} ? $env{$1} : "\$$1"/ge;
    return $text;
}

sub _block_server_opts {
    my ($block, $s) = @_;
    my %o;
    $o{tls} = _has($block, 'tls') || _has($block, 'http2') ? 1 : 0;
    $o{no_kube} = $NoKube || _has($block, 'no_kube') ? 1 : 0;
    my $w = _section($block, 'workers');
    $o{workers} = defined $w && $w =~ /(\d+)/ ? $1 : $Workers;
    my $l = _section($block, 'log_level');
    $o{log_level} = defined $l && $l =~ /(\w+)/ ? $1 : $LogLevel;
    $s->{vars}{TEST_NGINX_URL} = ($o{tls} ? 'https' : 'http') . '://127.0.0.1:' . $s->port;
    for my $k (qw(main_config http_config config)) {
        $o{$k} = _subst($s, _section($block, $k));
    }
    $o{config} = $o{no_kube} ? '' : $DefaultConfig unless defined $o{config};
    return %o;
}

sub _user_files {
    my ($s, $spec) = @_;
    return unless defined $spec;
    my @parts = split /^>>>[ \t]*(\S+)[ \t]*\n/m, $spec;
    shift @parts;
    while (@parts) {
        my ($path, $content) = splice @parts, 0, 2;
        die "bad user_files path $path" if $path =~ m{(^|/)\.\.(/|$)} || $path =~ m{^/};
        _spew($s->html_dir . "/$path", _subst($s, $content // ''));
    }
}

sub _patterns {
    my $spec = shift;
    return () unless defined $spec;
    return ($spec) if ref $spec eq 'Regexp';
    return @$spec if ref $spec eq 'ARRAY';
    return grep { /\S/ } split /\n/, $spec;
}

sub _log_matches {
    my ($log, $pat) = @_;
    return ref $pat eq 'Regexp' ? $log =~ $pat : index($log, $pat) >= 0;
}

sub _fatal_ok {
    my ($s, $text, $name, $allow_emerg) = @_;
    my @bad = $s->fatal_lines($text);
    @bad = grep { !/\[emerg\]/ } @bad if $allow_emerg;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok(!@bad, "$name - error.log has no alert/emerg/crit/sanitizer lines")
        or diag(join '', map { "    $_\n" } @bad[0 .. ($#bad > 19 ? 19 : $#bad)]);
}

sub _stop_checked {
    my ($s, $why) = @_;
    my $clean = $s->stop;
    my $log = $s->log_since($s->{checked_upto});
    $s->{checked_upto} = $s->log_size;
    ok($clean, "nginx stopped gracefully ($why)")
        or diag("nginx did not exit within the grace period after SIGQUIT");
    _fatal_ok($s, $log, "nginx stopped ($why)");
}

sub _parse_request {
    my ($block, $s) = @_;
    my $req = _subst($s, _section($block, 'request'));
    $req =~ s/\A\s+//;
    my ($line, $body) = split /\n/, $req, 2;
    $line =~ s/\s+\z//;
    my ($method, $uri) = split ' ', $line;
    die "bad --- request line: $line" unless defined $uri;
    if (defined $body && $body ne '') {
        chomp $body;
    } else {
        $body = undef;
    }
    $body = _subst($s, $block->request_body) if _has($block, 'request_body');
    if (_has($block, 'request_body_size')) {
        my ($n) = $block->request_body_size =~ /(\d+)/;
        $body = 'a' x $n;
    }
    my %headers;
    my %drop;
    for my $h (split /\n/, _subst($s, _section($block, 'more_headers')) // '') {
        next unless $h =~ /\S/;
        if ($h =~ /^\s*!\s*(\S+)/) {
            $drop{ lc $1 } = 1;
            next;
        }
        die "bad --- more_headers line: $h" unless $h =~ /^\s*([^:\s]+)\s*:\s*(.*?)\s*$/;
        if (exists $headers{$1}) {
            $headers{$1} = [ ref $headers{$1} ? @{ $headers{$1} } : $headers{$1}, $2 ];
        } else {
            $headers{$1} = $2;
        }
    }
    if (defined $body && !$drop{'content-type'} && !grep { lc $_ eq 'content-type' } keys %headers) {
        $headers{'Content-Type'} = 'application/json';
    }
    $uri = "/$uri" unless $uri =~ m{^/};
    return ($method, $uri, \%headers, $body, [ sort keys %drop ]);
}

sub _block_cert {
    my $block = shift;
    return (cert => undef) if _has($block, 'no_client_cert');
    if (_has($block, 'client_cert')) {
        return (cert => client_cert(shellwords($block->client_cert)));
    }
    if (_has($block, 'untrusted_client_cert')) {
        return (cert => untrusted_cert(shellwords($block->untrusted_client_cert)));
    }
    if (_has($block, 'cert')) {
        my ($name) = $block->cert =~ /(\S+)/;
        return (cert => $name);
    }
    return ();
}

# A *_like section: a qr// from eval, or text whose final newline is not
# part of the pattern.
sub _regex {
    my $pat = shift;
    return $pat if ref $pat eq 'Regexp';
    chomp $pat;
    return qr/$pat/s;
}

sub _header_value {
    my ($headers, $name) = @_;
    my $v = $headers->{ lc $name };
    return undef unless defined $v;
    return ref $v ? join(', ', @$v) : $v;
}

sub _check_response {
    my ($block, $name, $res) = @_;
    my $want = _has($block, 'error_code') ? $block->error_code : 200;
    $want =~ s/\s+//g;
    is($res->{status}, $want, "$name - status code")
        or diag("response body: " . substr($res->{body}, 0, 2000));
    if (_has($block, 'http2')) {
        is($res->{protocol}, 'HTTP/2', "$name - served over HTTP/2");
    }
    if (_has($block, 'response_body')) {
        is($res->{body}, $block->response_body, "$name - response body");
    }
    if (_has($block, 'response_body_like')) {
        my $pat = _regex($block->response_body_like);
        like($res->{body}, $pat, "$name - response body like");
    }
    if (_has($block, 'response_body_unlike')) {
        my $pat = _regex($block->response_body_unlike);
        unlike($res->{body}, $pat, "$name - response body unlike");
    }
    if (_has($block, 'response_body_json')) {
        _json_check($res->{body}, $block->response_body_json, "$name - response body json");
    }
    if (_has($block, 'response_headers')) {
        for my $line (split /\n/, $block->response_headers) {
            next unless $line =~ /\S/;
            if ($line =~ /^\s*!\s*(\S+)\s*$/) {
                my $v = _header_value($res->{headers}, $1);
                ok(!defined $v, "$name - header $1 absent")
                    or diag("$1: $v");
            } elsif ($line =~ /^\s*([^:\s]+)\s*:\s*(.*?)\s*$/) {
                is(_header_value($res->{headers}, $1), $2, "$name - header $1");
            } else {
                die "bad --- response_headers line: $line";
            }
        }
    }
    if (_has($block, 'response_headers_like')) {
        for my $line (split /\n/, $block->response_headers_like) {
            next unless $line =~ /\S/;
            die "bad --- response_headers_like line: $line"
                unless $line =~ /^\s*([^:\s]+)\s*:\s*(.*?)\s*$/;
            my ($h, $pat) = ($1, $2);
            like(_header_value($res->{headers}, $h) // '', qr/$pat/, "$name - header $h like");
        }
    }
}

sub _json_check {
    my ($text, $want, $name) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    my $got = eval { $JSON->decode($text) };
    unless (defined $got || $text =~ /^\s*null\s*$/) {
        fail($name);
        diag("not JSON ($@): " . substr($text, 0, 2000));
        return;
    }
    unless (ref $want) {
        $want = eval { $JSON->decode($want) };
        die "$name: the expected value is not JSON: $@" if $@;
    }
    json_subset_ok($got, $want, $name) or diag("got: " . substr($text, 0, 2000));
}

sub _check_command {
    my ($block, $name, $rc, $out, $err) = @_;
    my $want = _has($block, 'exit_code') ? $block->exit_code : 0;
    $want =~ s/\s+//g;
    is($rc, $want, "$name - exit code") or diag("stdout: $out\nstderr: $err");
    if (_has($block, 'stdout')) {
        is($out, $block->stdout, "$name - stdout");
    }
    if (_has($block, 'stdout_like')) {
        my $pat = _regex($block->stdout_like);
        like($out, $pat, "$name - stdout like");
    }
    if (_has($block, 'stderr_like')) {
        my $pat = _regex($block->stderr_like);
        like($err, $pat, "$name - stderr like");
    }
    if (_has($block, 'stdout_json')) {
        _json_check($out, $block->stdout_json, "$name - stdout json");
    }
}

# Runs one repetition of a block against the file's server $s.
sub _run_block {
    my ($s, $block, $rep, $reps) = @_;
    my $name = $block->name . ($reps > 1 ? " (repeat $rep)" : '');
    my %opts = _block_server_opts($block, $s);
    my $text = $s->render(%opts);
    my $must_die = _has($block, 'must_die');

    my $restart = !$s->is_running || _has($block, 'restart') || _has($block, 'clean_data')
        || ($text ne ($s->{running_text} // '') && !_has($block, 'skip_nginx_restart'));
    my $mark = $s->log_size;
    if ($restart) {
        _stop_checked($s, "before $name") if $s->is_running;
        remove_tree($s->data_dir) if _has($block, 'clean_data');
        $s->configure(%opts);
        _user_files($s, _section($block, 'user_files'));
        $mark = $s->log_size;
        my $ok = $s->start;
        if (!$ok && $s->{module_missing}) {
            fail("$name - nginx started");
            diag($s->{start_error});
        } elsif ($must_die) {
            ok(!$ok, "$name - nginx failed to start");
        } elsif (!$ok) {
            fail("$name - nginx started");
            diag($s->{start_error});
        }
        unless ($ok) {
            $s->{running_text} = undef;
            _check_logs($s, $block, $name, $mark);
            return;
        }
    } else {
        fail("$name - must_die, but nginx is running") if $must_die;
        _user_files($s, _section($block, 'user_files'));
    }

    my $tls = $s->{opts}{tls};
    my %cert = _block_cert($block);
    my $timeout = _section($block, 'timeout');
    $timeout = defined $timeout && $timeout =~ /([\d.]+)/ ? $1 : 10;

    if (_has($block, 'kubectl')) {
        my $args = _subst($s, $block->kubectl);
        $args =~ s/\n/ /g;
        my $stdin = _subst($s, _section($block, 'stdin'));
        my ($rc, $out, $err) = kubectl($s, _section($block, 'kubectl_version'),
            shellwords($args), { stdin => $stdin, %cert, timeout => $timeout * 6 });
        _check_command($block, $name, $rc, $out, $err);
    } elsif (_has($block, 'python')) {
        my ($rc, $out, $err) = python_client($s, _subst($s, $block->python),
            { stdin => _subst($s, _section($block, 'stdin')), %cert, timeout => $timeout * 6 });
        _check_command($block, $name, $rc, $out, $err);
    } elsif (_has($block, 'raw_request')) {
        my $cert = exists $cert{cert} ? $cert{cert} : 'admin';
        my $res = _raw_request($s->port, $tls, _subst($s, $block->raw_request),
            cert => $cert, timeout => $timeout);
        _check_response($block, $name, $res);
    } elsif (_has($block, 'request')) {
        my ($method, $uri, $headers, $body, $drop) = _parse_request($block, $s);
        my $res = http_request($method, $s->url . $uri, headers => $headers, body => $body,
            timeout => $timeout, http2 => _has($block, 'http2'), %cert,
            @$drop ? (drop_headers => $drop) : ());
        _check_response($block, $name, $res);
    }
    _check_logs($s, $block, $name, $mark);
}

sub _check_logs {
    my ($s, $block, $name, $mark) = @_;
    my $wait = _section($block, 'wait');
    sleep $1 if defined $wait && $wait =~ /([\d.]+)/;
    my @want = _patterns(_subst($s, _section($block, 'error_log')));
    if (@want) {
        wait_until(sub {
            my $log = $s->log_since($mark);
            !grep { !_log_matches($log, $_) } @want;
        }, 3);
    }
    my $log = $s->log_since($mark);
    for my $pat (@want) {
        ok(_log_matches($log, $pat), "$name - error.log contains " . (ref $pat ? $pat : "\"$pat\""))
            or diag("error.log since the block started:\n$log");
    }
    for my $pat (_patterns(_subst($s, _section($block, 'no_error_log')))) {
        my @hits = grep { _log_matches($_, $pat) } split /\n/, $log;
        ok(!@hits, "$name - error.log lacks " . (ref $pat ? $pat : "\"$pat\""))
            or diag(join "\n", @hits[0 .. ($#hits > 9 ? 9 : $#hits)]);
    }
    my $since = $s->{checked_upto} // $mark;
    $since = $mark if $mark < $since;
    _fatal_ok($s, $s->log_since($since), $name, _has($block, 'must_die'));
    $s->{checked_upto} = $s->log_size;
}

sub run_tests {
    plan('no_plan') unless Test::Builder->new->has_plan;
    my @blocks = blocks();
    for my $block (@blocks) {
        $_->($block) for @Preprocessors;
    }
    my $s = new_server();
    for my $block (@blocks) {
        my $reps = _has($block, 'no_repeat') ? 1 : $RepeatEach;
        for my $rep (1 .. $reps) {
            _run_block($s, $block, $rep, $reps);
        }
    }
    _stop_checked($s, 'end of file') if $s->is_running;
}

# ---------------------------------------------------------------------------
# Cleanup: every nginx this process started is stopped, even after a die.

my %SignalNumber = (HUP => 1, INT => 2, TERM => 15);
for my $sig (sort keys %SignalNumber) {
    $SIG{$sig} = sub { exit 128 + $SignalNumber{$sig} } unless $SIG{$sig};
}

END {
    if ($$ == $OwnerPid) {
        my $rc = $?;
        $_->{stop}->() for @Components;    # their watches would hold nginx's exit
        for my $s (@Servers) {
            eval { $s->stop(grace => 3) if $s->is_running; 1 } or warn $@;
        }
        $_->{stop}->() for @Etcds;
        # A worker that died on a signal fails the file, even where no block
        # looked at that part of the log (SIGKILL is what tests send).
        for my $s (@Servers) {
            my @crashes = grep { /exited on signal (\d+)/ && $1 != 9 }
                split /\n/, _slurp($s->log_file);
            next unless @crashes;
            print STDERR "# $_\n" for 'a worker exited on a signal (' . $s->log_file . '):',
                @crashes;
            $rc ||= 1;
        }
        wait_until(sub { _reap() == -1 }, 2);
        if (defined $BaseDir) {
            my $passing = $rc == 0 && Test::Builder->new->is_passing;
            if ($passing && !$ENV{TEST_KUBE_KEEP}) {
                remove_tree($BaseDir);
            } else {
                print STDERR "# server root kept: $BaseDir\n";
            }
        }
        $? = $rc;
    }
}

# ===========================================================================

package Test::Kube::Server;

use strict;
use warnings;
use File::Path qw(make_path remove_tree);
use Time::HiRes qw(sleep time);

my @ConfigKeys = qw(main_config http_config config workers log_level tls reuseport no_kube ready_path env);

sub _new {
    my ($class, %opts) = @_;
    my $self = bless {}, $class;
    $self->{index} = ++$ServerSeq;
    $self->{root} = Test::Kube::base_dir() . "/$self->{index}";
    $self->{port} = Test::Kube::_free_port();
    remove_tree($self->{root});
    make_path(map { "$self->{root}/$_" } qw(conf logs tmp html data));
    $self->configure(%opts);
    return $self;
}

sub root { $_[0]{root} }
sub port { $_[0]{port} }
sub html_dir { "$_[0]{root}/html" }
sub data_dir { "$_[0]{root}/data" }
sub log_file { "$_[0]{root}/logs/error.log" }
sub pid_file { "$_[0]{root}/logs/nginx.pid" }
sub conf_file { "$_[0]{root}/conf/nginx.conf" }
sub scheme { $_[0]{opts}{tls} ? 'https' : 'http' }
sub url { $_[0]->scheme . '://127.0.0.1:' . $_[0]{port} }
sub master_pid { $_[0]{pid} }

# configure(%opts): sets the configuration the next start or reload uses.
sub configure {
    my ($self, %opts) = @_;
    my %known = map { $_ => 1 } @ConfigKeys;
    for my $k (keys %opts) {
        die "unknown server option $k" unless $known{$k};
    }
    my %o = (workers => $Workers, log_level => $LogLevel, tls => 0, no_kube => $NoKube,
        %opts);
    $o{config} = $o{no_kube} ? '' : $DefaultConfig unless defined $o{config};
    $self->{opts} = \%o;
    $self->{text} = $self->render(%o);
    return $self;
}

# render(%opts) -> the nginx.conf text for these options
sub render {
    my ($self, %o) = @_;
    %o = (workers => $Workers, log_level => $LogLevel, tls => 0, no_kube => $NoKube, %o);
    $o{config} = $o{no_kube} ? '' : $DefaultConfig unless defined $o{config};
    my $root = $self->{root};
    my $main = $o{main_config} // '';
    my $http = $o{http_config} // '';
    my $t = '';
    # Workers run as the user running the tests, so they can use what the
    # harness made (the data directory, user files).
    $t .= "user root;\n" if $> == 0 && $main !~ /^\s*user\s/m;
    $t .= "load_module $ModulePath;\n" unless $o{no_kube};
    $t .= "worker_processes $o{workers};\n";
    $t .= "pid $root/logs/nginx.pid;\n";
    $t .= "error_log $root/logs/error.log $o{log_level};\n";
    $t .= _indent($main, '') . "\n";
    $t .= "events {\n    worker_connections 1024;\n}\n\n";
    $t .= "http {\n";
    $t .= "    access_log $root/logs/access.log;\n";
    for my $p (qw(client_body proxy fastcgi uwsgi scgi)) {
        $t .= "    ${p}_temp_path $root/tmp/$p;\n";
    }
    $t .= "    kube_storage lmdb:$root/data;\n"
        unless $o{no_kube} || $http =~ /^\s*kube_storage\s/m;
    $t .= _indent($http, '    ') . "\n";
    $t .= "    server {\n";
    $t .= "        listen 127.0.0.1:$self->{port}" . ($o{tls} ? ' ssl http2' : '')
        . ($o{reuseport} ? ' reuseport' : '') . ";\n";
    $t .= "        server_name localhost;\n";
    if ($o{tls}) {
        my $certs = Test::Kube::cert_dir();
        $t .= "        ssl_certificate $certs/server.crt;\n";
        $t .= "        ssl_certificate_key $certs/server.key;\n";
        $t .= "        ssl_client_certificate $certs/ca.crt;\n";
        $t .= "        ssl_verify_client optional_no_ca;\n";
    }
    $t .= _indent($KubeStatusConfig, '        ') . "\n"
        unless $o{no_kube} || $o{config} =~ /\bkube_status\b/;
    $t .= _indent($o{config}, '        ') . "\n";
    $t .= "    }\n}\n";
    return $t;
}

sub _indent {
    my ($text, $pad) = @_;
    return '' unless defined $text && $text =~ /\S/;
    my @lines = split /\n/, $text;
    my ($min) = sort { $a <=> $b } map { /^(\s*)/; length $1 } grep { /\S/ } @lines;
    return join "\n", map { /\S/ ? $pad . substr($_, $min) : '' } @lines;
}

sub is_running {
    my $self = shift;
    return $self->{pid} && Test::Kube::_alive($self->{pid}) ? 1 : 0;
}

sub worker_pids {
    my $self = shift;
    return () unless $self->{pid};
    return Test::Kube::_children($self->{pid});
}

sub log_size {
    my $self = shift;
    return -s $self->log_file || 0;
}

sub log_since {
    my ($self, $offset) = @_;
    return Test::Kube::_slurp($self->log_file, $offset || 0);
}

sub error_log_since_start {
    my $self = shift;
    return $self->log_since($self->{start_offset});
}

sub fatal_lines {
    my ($self, $text) = @_;
    my @bad;
    for my $line (split /\n/, $text) {
        push @bad, $line if grep { $line =~ $_ } @FatalPatterns;
    }
    return @bad;
}

# kubeconfig(cert => NAME) -> the path of a kubeconfig for this server that
# presents NAME's client cert (default admin; undef for none).
sub kubeconfig {
    my ($self, %o) = @_;
    my $cert = !exists $o{cert} ? 'admin' : defined $o{cert} ? $o{cert} : 'none';
    my $file = $cert eq 'admin' ? "$self->{root}/kubeconfig" : "$self->{root}/kubeconfig-$cert";
    my $url = $self->url;
    my $key = "$url $cert";
    return $file if ($self->{kubeconfigs}{$file} // '') eq $key && -f $file;
    # Only https needs the certificates; do not make them for plain http.
    my $dir = $url =~ /^https:/ ? Test::Kube::cert_dir() : Test::Kube::base_dir() . '/certs';
    my ($rc, $out, $err) = Test::Kube::run_command(
        [ "$RepoRoot/conf/mkkubeconfig.sh", $dir, $url, $file, $cert ]);
    die "mkkubeconfig.sh failed ($rc): $err" if $rc != 0;
    $self->{kubeconfigs}{$file} = $key;
    return $file;
}

sub request {
    my ($self, $method, $path, %o) = @_;
    return Test::Kube::http_request($method, $self->url . $path, %o);
}

# call($method, $path, $body, %opts) -> ($status, $json, $response), or in
# scalar context the response: a request whose body, when a reference, is
# sent as JSON; $json is the decoded answer ({} when it is not JSON).
sub call {
    my ($self, $method, $path, $body, %o) = @_;
    my %req = map { exists $o{$_} ? ($_ => $o{$_}) : () }
        qw(cert timeout http2 no_client_cert drop_headers data_callback curl);
    my %headers;
    if (defined $o{token}) {
        $headers{Authorization} = "Bearer $o{token}";
        $req{cert} = undef unless exists $o{cert};
    }
    if (defined $body) {
        $req{body} = ref $body ? Test::Kube::encode_json($body) : $body;
        $headers{'Content-Type'} = 'application/json';
    }
    $headers{'Content-Type'} = $o{type} if defined $o{type};
    %headers = (%headers, %{ $o{headers} || {} });
    my $r = $self->request($method, $path, headers => \%headers, %req);
    return $r unless wantarray;
    return ($r->{status}, Test::Kube::json_of($r->{body}), $r);
}

our %PatchType = (
    json => 'application/json-patch+json',
    merge => 'application/merge-patch+json',
    smp => 'application/strategic-merge-patch+json',
    apply => 'application/apply-patch+yaml',
);

# patch($kind, $path, $body, %opts): call(PATCH ...) with the Content-Type of
# $kind (json, merge, smp, apply)
sub patch {
    my ($self, $kind, $path, $body, %o) = @_;
    die "unknown patch kind $kind" unless $PatchType{$kind};
    return $self->call(PATCH => $path, $body, type => $PatchType{$kind}, %o);
}

# get_json($path, %opts) -> the decoded answer to a GET when it is 200, else undef
sub get_json {
    my ($self, $path, %o) = @_;
    my ($status, $json) = $self->call(GET => $path, undef, %o);
    return $status == 200 ? $json : undef;
}

# create_namespace($name): POSTs the Namespace, one test that it was created
sub create_namespace {
    my ($self, $ns, %o) = @_;
    my ($status, $json, $r) = $self->call(POST => '/api/v1/namespaces',
        { apiVersion => 'v1', kind => 'Namespace', metadata => { name => $ns } }, %o);
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::is($status, 201, "namespace $ns created") or Test::More::diag($r->{body});
    return $json;
}

# kc($version, @args [, {opts}]) -> (exit code, stdout, stderr): kubectl on
# this server (version undef: the default kubectl; timeout 90 s by default)
sub kc {
    my ($self, $version, @args) = @_;
    my %o = (@args && ref $args[-1] eq 'HASH') ? %{ pop @args } : ();
    return Test::Kube::kubectl($self, $version, @args, { timeout => 90, %o });
}

# kc_ok($version, $what, @args [, {opts}]) -> stdout, or (stdout, stderr):
# one test that kubectl exits 0 ($what undef: "kubectl @args")
sub kc_ok {
    my ($self, $version, $what, @args) = @_;
    my ($rc, $out, $err) = $self->kc($version, @args);
    my @shown = grep { !ref } @args;
    $what //= "kubectl @shown";
    $what = "$version $what" if defined $version;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::is($rc, 0, "$what: exit 0")
        or Test::More::diag("kubectl @shown\nstdout: $out\nstderr: $err");
    return wantarray ? ($out, $err) : $out;
}

# kc_fails($version, $what, $want, @args [, {opts}]) -> stdout: two tests,
# that kubectl exits 1 and that its stderr is the line $want
sub kc_fails {
    my ($self, $version, $what, $want, @args) = @_;
    my ($rc, $out, $err) = $self->kc($version, @args);
    my @shown = grep { !ref } @args;
    $what = "$version $what" if defined $version;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::is($rc, 1, "$what: exit 1")
        or Test::More::diag("kubectl @shown\nstdout: $out\nstderr: $err");
    Test::More::is($err, "$want\n", "$what: stderr");
    return $out;
}

# kc_json($version, @args [, {opts}]) -> kubectl's "-o json" output decoded
# ({} when it is not JSON)
sub kc_json {
    my ($self, $version, @args) = @_;
    my %o = (@args && ref $args[-1] eq 'HASH') ? %{ pop @args } : ();
    my (undef, $out) = $self->kc($version, @args, '-o', 'json', \%o);
    return Test::Kube::json_of($out);
}

# fatal_free_ok($log_text, $what): one test that the text has none of the
# fatal lines (alert, emerg, crit, sanitizer reports)
sub fatal_free_ok {
    my ($self, $text, $what) = @_;
    my @bad = $self->fatal_lines($text);
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::ok(!@bad, "$what: error.log has no alert/emerg/crit/sanitizer lines")
        or Test::More::diag(join "\n", @bad[0 .. ($#bad > 19 ? 19 : $#bad)]);
}

# watch($path, %opts) -> a Test::Kube::Watch streaming GET on its own
# connection (HTTP/1.1; admin certificate over TLS unless cert => ...).
sub watch {
    my ($self, $path, %o) = @_;
    return Test::Kube::Watch->open($self, $path, %o);
}

sub _ready_path {
    my $self = shift;
    return $self->{opts}{ready_path} if exists $self->{opts}{ready_path};
    return undef if $self->{opts}{no_kube};
    return $self->{text} =~ /(?:^|[\s{;])kube_api\s*;/ ? '/readyz' : undef;
}

# The master listens before it writes the pid file, so a running master is
# enough for plain nginx; a kube_api server must also answer the ready path
# below 500 (a 401/403 still proves the module is up). Each worker answers
# for itself and a new connection reaches any of them, so with several
# workers the same status must come back 3 times per worker in a row (a
# worker still filling its caches answers 500, or 403 to anonymous users).
sub _wait_ready {
    my ($self, $deadline) = @_;
    my $path = $self->_ready_path;
    return undef unless defined $path;
    return $self->wait_ready($deadline - time, $path);
}

# wait_ready(SECONDS, PATH = /readyz) -> undef once every worker answers
# PATH below 500 (as above), else why not.
sub wait_ready {
    my ($self, $seconds, $path) = @_;
    $path //= '/readyz';
    my $workers = $self->{opts}{workers} || 1;
    my $need = $workers > 1 ? 3 * $workers : 1;
    my ($last, $same) = (undef, 0);
    my $ok = Test::Kube::wait_until(sub {
        while (1) {
            my $r = $self->request('GET', $path, timeout => 2);
            if ($r->{status} >= 500) {
                ($last, $same) = ($r, 0);
                return 0;
            }
            $same = $last && $last->{status} == $r->{status} ? $same + 1 : 1;
            $last = $r;
            return 1 if $same >= $need;
        }
    }, $seconds);
    return undef if $ok;
    return "GET $path answered $last->{status}: " . substr($last->{body}, 0, 500);
}

sub _log_tail {
    my ($self, $offset) = @_;
    my $log = $self->log_since($offset);
    $log = '...' . substr($log, -4000) if length $log > 4000;
    return "error.log:\n$log";
}

# start -> 1, or 0 with the reason in $self->{start_error}
sub start {
    my $self = shift;
    return 1 if $self->is_running;
    $self->{start_error} = undef;
    $self->{module_missing} = 0;
    make_path(map { "$self->{root}/$_" } qw(conf logs tmp html data));
    unless ($self->{opts}{no_kube} || -f $ModulePath) {
        $self->{start_error} = "the module is not built: $ModulePath (run make)";
        $self->{module_missing} = 1;
        return 0;
    }
    Test::Kube::_spew($self->conf_file, $self->{text});
    $self->kubeconfig;
    unlink $self->pid_file;
    my $offset = $self->{start_offset} = $self->log_size;
    my ($rc, $out, $err) = Test::Kube::run_command(
        [ $NginxBinary, '-p', "$self->{root}/", '-c', $self->conf_file, '-e', $self->log_file ],
        env => { Test::Kube::_nginx_env(), %{ $self->{opts}{env} || {} } },
        timeout => 30,
    );
    if ($rc != 0) {
        $self->{start_error} = "nginx exited with $rc: $out$err\n" . $self->_log_tail($offset);
        return 0;
    }
    my $deadline = time + 10;
    my $pid = Test::Kube::wait_until(sub {
        my $p = Test::Kube::_slurp($self->pid_file);
        $p =~ /^(\d+)/ && Test::Kube::_alive($1) ? $1 : 0;
    }, 10);
    unless ($pid) {
        $self->{start_error} = "no nginx master (pid file " . $self->pid_file . ")\n"
            . $self->_log_tail($offset);
        return 0;
    }
    $self->{pid} = $pid;
    if (my $why = $self->_wait_ready($deadline)) {
        $self->{start_error} = "nginx is not ready: $why\n" . $self->_log_tail($offset);
        $self->kill9_all;
        return 0;
    }
    $self->{running_text} = $self->{text};
    return 1;
}

# stop(grace => S): SIGQUIT, then SIGTERM and SIGKILL if the master is still
# there after S seconds (default 10). True when the graceful stop worked.
sub stop {
    my ($self, %o) = @_;
    my $pid = $self->{pid};
    return 1 unless $pid && Test::Kube::_alive($pid);
    my @workers = $self->worker_pids;
    kill 'QUIT', $pid;
    my $gone = sub { my @p = @_; sub { !grep { Test::Kube::_alive($_) } @p } };
    my $clean = Test::Kube::wait_until($gone->($pid, @workers), $o{grace} // 10) ? 1 : 0;
    unless ($clean) {
        kill 'TERM', $pid;
        unless (Test::Kube::wait_until($gone->($pid), 3)) {
            kill 'KILL', $pid, $self->worker_pids;
        }
        kill 'KILL', grep { Test::Kube::_alive($_) } @workers;
        Test::Kube::wait_until($gone->($pid, @workers), 5);
    }
    $self->{pid} = undef;
    $self->{running_text} = undef;
    return $clean;
}

# restart(%opts): stop, reconfigure when options are given, start.
sub restart {
    my ($self, %opts) = @_;
    $self->stop;
    $self->configure(%{ $self->{opts} }, %opts) if %opts;
    return $self->start;
}

# reload(%opts): new configuration (when options are given) through SIGHUP;
# true once a full set of new workers runs and the server is ready. With
# wait_old => 1, also waits for the old workers to exit.
sub reload {
    my ($self, %opts) = @_;
    my $wait_old = delete $opts{wait_old};
    return 0 unless $self->is_running;
    if (%opts) {
        $self->configure(%{ $self->{opts} }, %opts);
        Test::Kube::_spew($self->conf_file, $self->{text});
    }
    my @old = $self->worker_pids;
    my %old = map { $_ => 1 } @old;
    my $offset = $self->log_size;
    kill 'HUP', $self->{pid};
    my $deadline = time + 10;
    # An old worker accepts connections until it starts shutting down, which
    # it shows in its process title before closing its listening sockets.
    my $ok = Test::Kube::wait_until(sub {
        return -1 if $self->log_since($offset) =~ /\[emerg\]/;
        my @new = grep { !$old{$_} } $self->worker_pids;
        return 0 if @new < $self->{opts}{workers};
        return !grep {
            Test::Kube::_alive($_) && Test::Kube::_slurp("/proc/$_/cmdline") !~ /shutting down/
        } @old;
    }, 10);
    return 0 unless $ok && $ok != -1;
    if ($wait_old) {
        Test::Kube::wait_until(sub { !grep { Test::Kube::_alive($_) } @old }, 10) or return 0;
    }
    return 0 if $self->_wait_ready($deadline);
    $self->{running_text} = $self->{text};
    return 1;
}

# kill9_all: SIGKILL to the master and every worker, as a crash would.
sub kill9_all {
    my $self = shift;
    my $pid = $self->{pid};
    return () unless $pid;
    my @all = ($pid, $self->worker_pids);
    kill 'KILL', @all;
    Test::Kube::wait_until(sub { !grep { Test::Kube::_alive($_) } @all }, 5);
    unlink $self->pid_file;
    $self->{pid} = undef;
    $self->{running_text} = undef;
    return @all;
}

# ---------------------------------------------------------------------------
# A streaming watch: one connection, events read as they arrive.

package Test::Kube::Watch;

use IO::Socket::INET;
use Time::HiRes ();

sub open {
    my ($class, $server, $path, %o) = @_;
    local $SIG{PIPE} = 'IGNORE';
    my $tls = $server->{opts}{tls};
    my $sock;
    if ($tls) {
        require IO::Socket::SSL;
        my $dir = Test::Kube::cert_dir();
        my $cert = exists $o{cert} ? $o{cert} : 'admin';
        $sock = IO::Socket::SSL->new(
            PeerAddr => '127.0.0.1', PeerPort => $server->port, Timeout => 10,
            SSL_ca_file => "$dir/ca.crt", SSL_verifycn_name => '127.0.0.1',
            SSL_verifycn_scheme => 'http',
            defined $cert ? (SSL_cert_file => "$dir/$cert.crt", SSL_key_file => "$dir/$cert.key")
                          : (),
        ) or die "watch connect: $IO::Socket::SSL::SSL_ERROR";
    } else {
        $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $server->port,
            Proto => 'tcp', Timeout => 10) or die "watch connect: $!";
    }
    $sock->blocking(0);
    my $headers = join '', map { "$_: $o{headers}{$_}\r\n" } sort keys %{ $o{headers} || {} };
    my $req = "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
        . "${headers}Connection: close\r\n\r\n";
    my $self = bless { sock => $sock, tls => $tls, raw => '', body => '', lines => [],
        head => undef, ended => 0, closed => 0 }, $class;
    $self->_write($req);
    return $self;
}

sub _write {
    my ($self, $bytes) = @_;
    my $deadline = Time::HiRes::time() + 10;
    while (length $bytes && Time::HiRes::time() < $deadline) {
        my $n = syswrite($self->{sock}, $bytes);
        if (defined $n) {
            substr($bytes, 0, $n, '');
        } else {
            select(undef, undef, undef, 0.01);
        }
    }
}

# Reads what is available within `timeout` seconds; false once the server closed.
sub _fill {
    my ($self, $timeout) = @_;
    return 0 if $self->{closed};
    my $sock = $self->{sock};
    my $pending = $self->{tls} ? $sock->pending : 0;
    unless ($pending) {
        my $rin = '';
        vec($rin, fileno($sock), 1) = 1;
        return 1 unless select($rin, undef, undef, $timeout);
    }
    my $n = sysread($sock, my $buf, 1 << 20);
    if (defined $n && $n == 0) {
        $self->{closed} = 1;
        return 0;
    }
    if (!defined $n) {
        return 1 if $!{EAGAIN} || $!{EWOULDBLOCK} || ($self->{tls} && $IO::Socket::SSL::SSL_ERROR
            && $IO::Socket::SSL::SSL_ERROR =~ /want/i);
        $self->{closed} = 1;
        return 0;
    }
    $self->{raw} .= $buf;
    $self->_parse;
    return 1;
}

sub _parse {
    my $self = shift;
    if (!$self->{head}) {
        my $end = index $self->{raw}, "\r\n\r\n";
        return if $end < 0;
        $self->{head} = Test::Kube::_parse_head(substr($self->{raw}, 0, $end));
        substr($self->{raw}, 0, $end + 4, '');
    }
    my $chunked = ($self->{head}{headers}{'transfer-encoding'} || '') =~ /chunked/i;
    if (!$chunked) {
        $self->{body} .= $self->{raw};
        $self->{raw} = '';
    }
    while ($chunked && $self->{raw} =~ /\A([0-9a-fA-F]+)[^\r\n]*\r\n/) {
        my $len = hex $1;
        my $hl = length($&);
        last if length($self->{raw}) < $hl + $len + 2;
        if ($len == 0) {
            $self->{ended} = 1;
            $self->{raw} = '';
            last;
        }
        $self->{body} .= substr($self->{raw}, $hl, $len);
        substr($self->{raw}, 0, $hl + $len + 2, '');
    }
    while ((my $nl = index $self->{body}, "\n") >= 0) {
        push @{ $self->{lines} }, substr($self->{body}, 0, $nl + 1, '');
    }
}

# The status line and headers, waiting up to `timeout` seconds for them.
sub head {
    my ($self, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 10);
    while (!$self->{head} && Time::HiRes::time() < $deadline) {
        last unless $self->_fill(0.05);
    }
    return $self->{head};
}

sub status { my $h = $_[0]->head; return $h ? $h->{status} : 599 }

# The next event (decoded), or undef after `timeout` seconds or at the end.
sub next_event {
    my ($self, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 10);
    while (!@{ $self->{lines} } && Time::HiRes::time() < $deadline) {
        last unless $self->_fill(0.05);
        last if $self->{ended} && !@{ $self->{lines} };
    }
    my $line = shift @{ $self->{lines} };
    return undef unless defined $line;
    return Test::Kube::decode_json($line);
}

# Every event that arrives until `timeout` seconds pass without one.
sub drain {
    my ($self, $timeout) = @_;
    my @events;
    while (my $e = $self->next_event($timeout // 1)) {
        push @events, $e;
    }
    return @events;
}

# True once the stream ended cleanly (the terminating chunk arrived).
sub ended {
    my ($self, $timeout) = @_;
    my $deadline = Time::HiRes::time() + ($timeout // 10);
    while (!$self->{ended} && Time::HiRes::time() < $deadline) {
        last unless $self->_fill(0.05);
    }
    return $self->{ended};
}

sub closed { $_[0]{closed} }

sub close {
    my $self = shift;
    close $self->{sock} if $self->{sock};
    $self->{sock} = undef;
    $self->{closed} = 1;
}

sub DESTROY { $_[0]->close if $_[0]{sock} }

1;
