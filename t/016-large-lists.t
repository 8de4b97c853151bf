# Large lists (1,000 ConfigMaps of 100 KiB, one LIST = ~98 MiB of JSON)
# are written while they are produced, in JSON and in protobuf: every client
# receives every item once with the list's resourceVersion, gzip-compressed
# by nginx's gzip module when asked (and only above 128 KiB), pagination
# keeps working across concurrent writes, a client that stalls is cut after
# send_timeout with the worker's memory bounded, and a small GET on another
# connection to the same worker is answered while a huge list is in flight.
use lib 't/lib';
use Test::Kube;
use Test::More;
use IO::Socket::SSL;
use IO::Uncompress::Gunzip qw(gunzip $GunzipError);
use File::Temp ();
use Time::HiRes qw(sleep time);

my $http_config = <<'EOF';
gzip on;
gzip_types application/json application/vnd.kubernetes.protobuf;
gzip_min_length 128k;
send_timeout 3s;
EOF

my $s = start_server(tls => 1, workers => 1, http_config => $http_config);
my $base = '/api/v1/namespaces/big/configmaps';
my $count = 1000;
my $value = 'x' x (100 * 1024 - 200);

# call(...) -> the response of $s->call(...) with a 120 s timeout
sub call {
    my ($method, $path, $body, %o) = @_;
    return scalar $s->call($method, $path, $body, timeout => 120, %o);
}

# Parsing ~98 MiB with JSON::PP takes minutes: Python's json does it in a
# second. Returns "items unique-names shortest-value resourceVersion".
sub summarize {
    my ($bytes) = @_;
    my $tmp = File::Temp->new;
    print {$tmp} $bytes;
    close $tmp;
    my ($rc, $out, $err) = run_command(['/usr/bin/python3', '-c', <<'PY', $tmp->filename]);
import json, sys
d = json.load(open(sys.argv[1]))
items = d.get('items') or []
print(len(items), len({i['metadata']['name'] for i in items}),
      min((len(i['data']['v']) for i in items), default=0), d['metadata']['resourceVersion'])
PY
    return $rc == 0 ? ($out =~ s/\n\z//r) : "python failed: $err";
}

# The same summary of a protobuf list (the "k8s\0" envelope around a
# ConfigMapList: metadata = 1 with resourceVersion = 2, items = 2, each with
# metadata = 1 holding name = 1, and data = 2 entries of key = 1, value = 2),
# read with a minimal wire-format walker.
sub summarize_protobuf {
    my ($bytes) = @_;
    my $tmp = File::Temp->new;
    print {$tmp} $bytes;
    close $tmp;
    my ($rc, $out, $err) = run_command(['/usr/bin/python3', '-c', <<'PY', $tmp->filename]);
import sys
def fields(b):
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        if tag & 7 == 0:
            v, i = varint(b, i)
        elif tag & 7 == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError('wire type %d' % (tag & 7))
        yield tag >> 3, v
def varint(b, i):
    n = shift = 0
    while True:
        c = b[i]; i += 1
        n |= (c & 0x7f) << shift
        if not c & 0x80:
            return n, i
        shift += 7
def first(b, number):
    return next((v for f, v in fields(b) if f == number), b'')
data = open(sys.argv[1], 'rb').read()
assert data[:4] == b'k8s\0', data[:16]
unknown = data[4:]
type_meta, raw = first(unknown, 1), first(unknown, 2)
assert first(type_meta, 2) == b'ConfigMapList', type_meta
rv = first(first(raw, 1), 2).decode()
names, shortest = [], None
for f, item in fields(raw):
    if f != 2:
        continue
    names.append(first(first(item, 1), 1))
    for g, entry in fields(item):
        if g == 2 and first(entry, 1) == b'v':
            n = len(first(entry, 2))
            shortest = n if shortest is None else min(shortest, n)
print(len(names), len(set(names)), shortest or 0, rv)
PY
    return $rc == 0 ? ($out =~ s/\n\z//r) : "python failed: $err";
}

sub rss_kib {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/status" or return 0;
    while (<$fh>) {
        return $1 if /^VmRSS:\s+(\d+)/;
    }
    return 0;
}

is(call(POST => '/api/v1/namespaces', { metadata => { name => 'big' } })->{status}, 201,
    'namespace big');
my $created = 0;
for my $i (1 .. $count) {
    my $r = call(POST => $base, { metadata => { name => sprintf('cm%04d', $i) },
        data => { v => $value } });
    $created++ if $r->{status} == 201;
}
is($created, $count, "$count ConfigMaps of 100 KiB");

# --- Raw HTTP, without and with gzip.
my $plain = call(GET => $base);
is($plain->{status}, 200, 'LIST of ~98 MiB');
ok(!$plain->{headers}{'content-encoding'}, '... not compressed unless asked');
ok(!defined $plain->{headers}{'content-length'}, '... streamed (no Content-Length)');
like(summarize($plain->{body}), qr/^$count $count ${\ length $value} [1-9]\d*$/,
    '... every item once, whole, with the list\'s resourceVersion');

my $gz = call(GET => $base, undef, headers => { 'Accept-Encoding' => 'gzip' });
is($gz->{headers}{'content-encoding'}, 'gzip', 'with Accept-Encoding: gzip it is gzipped');
ok(length($gz->{body}) < length($plain->{body}) / 10, '... and much smaller')
    or diag(length $gz->{body});
my $unzipped;
gunzip(\$gz->{body} => \$unzipped) or diag("gunzip: $GunzipError");
like(summarize($unzipped), qr/^$count $count /, '... and decompresses to every item');

# --- The same list in protobuf, as client-go's informers ask for it.
my $PB = 'application/vnd.kubernetes.protobuf';
my $pb = call(GET => $base, undef, headers => { Accept => "$PB, application/json" });
is($pb->{headers}{'content-type'}, $PB, 'LIST in protobuf: the protobuf media type');
ok(!defined $pb->{headers}{'content-length'}, '... streamed (no Content-Length)');
like(summarize_protobuf($pb->{body}), qr/^$count $count ${\ length $value} [1-9]\d*$/,
    '... every item once, whole, with the list\'s resourceVersion');
my $pbgz = call(GET => $base, undef,
    headers => { Accept => $PB, 'Accept-Encoding' => 'gzip' });
is($pbgz->{headers}{'content-encoding'}, 'gzip', 'protobuf with Accept-Encoding: gzip is gzipped');
gunzip(\$pbgz->{body} => \$unzipped) or diag("gunzip: $GunzipError");
like(summarize_protobuf($unzipped), qr/^$count $count /,
    '... and decompresses to every item');

my $small = call(GET => "$base?limit=1", undef, headers => { 'Accept-Encoding' => 'gzip' });
ok(!$small->{headers}{'content-encoding'}, 'a response under 128 KiB is not compressed');

# --- Pagination across concurrent writes (pages read with regexes: JSON::PP
# would take minutes over 98 MiB).
sub page {
    my ($body) = @_;
    my ($rv) = $body =~ /^\{"kind":"ConfigMapList","apiVersion":"v1","metadata":\{"resourceVersion":"(\d+)"/;
    my ($continue) = substr($body, 0, 1000) =~ /"continue":"([^"]+)"/;
    my @names = $body =~ /"name":"(cm\d{4})"/g;
    return ($rv, $continue, @names);
}

{
    my ($rv, $continue, @seen) = page(call(GET => "$base?limit=150")->{body});
    ok($rv && $continue, 'a first page of 150 with a continue token');
    call(DELETE => "$base/cm0500");
    call(POST => $base, { metadata => { name => 'cm0000' }, data => { v => 'late' } });
    while ($continue) {
        my ($prv, $next, @names) = page(call(GET => "$base?limit=150&continue=$continue")->{body});
        is($prv, $rv, 'a page at the first page\'s resourceVersion');
        push @seen, @names;
        $continue = $next;
    }
    is(join(',', @seen), join(',', map { sprintf 'cm%04d', $_ } 1 .. $count),
        'pages return each object of the snapshot once');
    call(DELETE => "$base/cm0000");
    call(POST => $base, { metadata => { name => 'cm0500' }, data => { v => $value } });
}

# --- kubectl (every version: -o name; the oldest, 1.32 and the newest:
# -o json, which takes longer) and the Python client.
{
    my @versions = kubectl_versions();
    my %json = map { $_ => 1 } ($versions[0], '1.32', $versions[-1]);
    for my $v (@versions) {
        my ($rc, $out, $err) = kubectl($s, $v, qw(get configmaps -n big -o name),
            { timeout => 120 });
        is($rc, 0, "kubectl $v get cm -o name") or diag($err);
        my @names = grep { m{^configmap/cm\d{4}$} } split /\n/, $out;
        is(scalar @names, $count, '... prints every ConfigMap');
        my %u = map { $_ => 1 } @names;
        is(scalar keys %u, $count, '... once');
        next unless $json{$v};
        ($rc, $out, $err) = kubectl($s, $v, qw(get configmaps -n big -o json),
            { timeout => 180 });
        is($rc, 0, "kubectl $v get cm -o json") or diag($err);
        like(summarize($out), qr/^$count $count ${\ length $value} /, '... every item, whole')
            or diag(substr($out, 0, 300));
    }
    my ($rc, $out, $err) = python_client($s, <<'PY', { timeout => 180 });
from kubernetes import client, config
config.load_kube_config()
items = client.CoreV1Api().list_namespaced_config_map('big').items
print(len(items), len({i.metadata.name for i in items}), min(len(i.data['v']) for i in items))
PY
    is($rc, 0, 'the Python client lists them') or diag($err);
    is($out, "$count $count " . length($value) . "\n", '... every item once, whole');
}

# --- A client that stalls; small requests meanwhile.
{
    my ($worker) = $s->worker_pids;
    my $before = rss_kib($worker);
    my $dir = cert_dir();
    my $sock = IO::Socket::SSL->new(PeerAddr => '127.0.0.1', PeerPort => $s->port,
        SSL_ca_file => "$dir/ca.crt", SSL_verifycn_name => '127.0.0.1',
        SSL_verifycn_scheme => 'http', SSL_cert_file => "$dir/admin.crt",
        SSL_key_file => "$dir/admin.key") or die "connect: $SSL_ERROR";
    print {$sock} "GET $base HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n";
    my $got = '';
    while (length $got < 16384) {
        my $n = sysread($sock, my $buf, 4096) or last;
        $got .= $buf;
    }
    like($got, qr{^HTTP/1.1 200}, 'a client reads the first KiB of the list, then stalls');
    my $t0 = time;
    my $get = call(GET => "$base/cm0001");
    is($get->{status}, 200, 'meanwhile a GET on another connection is answered');
    ok(time - $t0 < 5, '... promptly') or diag(time - $t0);
    sleep 1;
    my $during = rss_kib($worker);
    ok($during - $before < 64 * 1024, 'the worker holds a bounded amount for the stalled list')
        or diag("RSS before $before KiB, during $during KiB");
    # Not reading for longer than send_timeout, then reading what is left:
    # the server closed the connection before the list was complete.
    sleep 6;
    my ($rest, $eof) = (0, 0);
    my $deadline = time + 20;
    while (time < $deadline) {
        my $rin = '';
        vec($rin, fileno($sock), 1) = 1;
        next unless $sock->pending || select(my $r = $rin, undef, undef, 0.2);
        my $n = sysread($sock, my $buf, 1 << 20);
        if (defined $n && $n == 0) {
            $eof = 1;
            last;
        }
        last unless defined $n || $!{EAGAIN};
        $rest += $n // 0;
    }
    my $cut = $eof && length($got) + $rest < length $plain->{body};
    ok($cut, 'the stalled client is cut after send_timeout');
    close $sock;
}

# --- /metrics counts how the streams ended, across workers.
{
    my $m = $s->request(GET => '/metrics');
    is($m->{status}, 200, '/metrics');
    like($m->{headers}{'content-type'}, qr{^text/plain; version=0\.0\.4}, '... Prometheus text');
    my %ends = $m->{body} =~ /^kube_apiserver_stream_ends_total\{reason="(\w+)"\} (\d+)$/mg;
    is(join(',', sort keys %ends), 'cut,finished,gone,timed_out', '... every end reason');
    ok($ends{finished} >= 5, '... the streamed lists that finished') or diag($m->{body});
    ok($ends{timed_out} >= 1, '... the stalled client, timed out') or diag($m->{body});
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit lines') or diag(join "\n", @bad);

done_testing;
