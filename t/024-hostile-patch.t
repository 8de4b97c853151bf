# Patches a client can make hostile: an everyday strategic merge patch
# that de-duplicates a list (kubectl patch --type strategic of a finalizer
# the object already has), patches nested 10,000 deep, a merge patch of
# 60,000 keys, a strategic merge patch of a merge-keyed list of 40,000 items,
# a JSON patch of 10,000 operations on an object of 100,000 keys, one of
# doubling copies and one whose copies grow a small object. Each succeeds correctly or answers kube's Status, fast;
# GETs on another connection are answered within 100 ms (400 ms under SANITIZE=1) while the largest
# patches run on the same (only) worker; no worker exits on a signal.
use lib 't/lib';
use Test::Kube;
use Test::More;
use POSIX ();
use Time::HiRes qw(time sleep);

my $s = start_server(tls => 1);

my %type = %Test::Kube::Server::PatchType;

# call($method, $path, $body, $contentType) -> ($status, $json, $seconds, $response):
# $s->call with a 60 s timeout, timed.
sub call {
    my ($method, $path, $body, $contentType) = @_;
    my $t0 = time;
    my ($st, $obj, $r) = $s->call($method, $path, $body, timeout => 60,
        type => $contentType // 'application/json');
    return ($st, $obj, time - $t0, $r);
}

sub patch_as {
    my ($kind, $path, $body) = @_;
    return call(PATCH => $path, $body, $type{$kind});
}

# A client on one kept-alive connection (the admin's certificate), as
# other clients of the same worker would be.
my $other = admin_connection();

# A PATCH whose answer is only counted, not decoded (the client's CPU
# stays free for the GETs meanwhile).
sub raw_patch {
    my ($kind, $path, $body) = @_;
    my $t0 = time;
    my $r = $s->request(PATCH => $path, headers => { 'Content-Type' => $type{$kind} },
        timeout => 60, body => $body);
    return ($r->{status}, $r->{body}, time - $t0);
}

my $stall = loop_stall_bound();
my $within = sprintf 'within %d ms', 1000 * $stall;

sub max_of {
    my $m = 0;
    $m = $_ > $m ? $_ : $m for @_;
    diag(sprintf '%d GETs meanwhile, slowest %.0f ms', scalar @_, 1000 * $m)
        if $ENV{TEST_VERBOSE};
    return $m;
}

my ($st, $o) = call(POST => '/api/v1/namespaces', '{"metadata":{"name":"hostile"}}');
is($st, 201, 'namespace hostile');
my $cms = '/api/v1/namespaces/hostile/configmaps';
($st) = call(POST => $cms, '{"metadata":{"name":"probe"},"data":{"a":"1"}}');
is($st, 201, 'configmap probe, for the GETs meanwhile');

# --- The finalizer the object already has, through real kubectl -------------------

($st) = call(POST => $cms,
    '{"metadata":{"name":"fin","finalizers":["example.com/a","example.com/b"]}}');
is($st, 201, 'configmap fin with two finalizers');
my ($rc, $out, $err) = kubectl($s, undef, '-n', 'hostile', 'patch', 'configmap', 'fin',
    '--type', 'strategic', '-p', '{"metadata":{"finalizers":["example.com/a"]}}',
    '-o', 'jsonpath={.metadata.finalizers}');
is($rc, 0, 'kubectl patch --type strategic of a finalizer already there succeeds') or diag($err);
is($out, '["example.com/a","example.com/b"]', '... and the set is unchanged');
($rc, $out, $err) = kubectl($s, undef, '-n', 'hostile', 'patch', 'configmap', 'fin',
    '--type', 'strategic', '-p',
    '{"metadata":{"finalizers":["example.com/b","example.com/c","example.com/b"]}}',
    '-o', 'jsonpath={.metadata.finalizers}');
is($rc, 0, 'a patch repeating a finalizer succeeds') or diag($err);
is($out, '["example.com/a","example.com/b","example.com/c"]', '... each once, kube\'s order');
($st, $o) = call(GET => "$cms/fin");
is_deeply($o->{metadata}{finalizers}, ['example.com/a', 'example.com/b', 'example.com/c'],
    'the stored object says the same');

# --- 10,000 levels deep --------------------------------------------------------------

my $depth = 10000;
my $deep = '{"a":' x $depth . 'null' . '}' x $depth;
for my $kind (qw(merge smp)) {
    ($st, $o) = patch_as($kind => "$cms/probe", qq({"metadata":{"annotations":{"x":"y"}},"data":$deep}));
    ok($st == 200 || $st == 400 || $st == 422,
        "$kind patch of $depth nested objects ending in null: a Status or the object")
        or diag("$st $o->{message}");
}
my $deepArray = '[' x $depth . ']' x $depth;
($st, $o) = patch_as(json => "$cms/probe",
    qq([{"op":"add","path":"/metadata/annotations/deep","value":$deepArray}]));
ok($st == 200 || $st == 400 || $st == 422, "JSON patch with a value of $depth nested arrays")
    or diag("$st $o->{message}");
($st, $o) = call(GET => "$cms/probe");
is($st, 200, 'the worker still serves');

# --- Large patches, fast -------------------------------------------------------------

my $n = 60000;
my $data = join ',', map { qq("k$_":"v") } 0 .. $n - 1;
($st) = call(POST => $cms, qq({"metadata":{"name":"wide"},"data":{$data}}));
is($st, 201, "configmap wide with $n keys");
my $mp = '{"data":{' . join(',', map { $_ % 2 ? qq("k$_":null) : qq("n$_":"w") } 0 .. $n - 1)
    . '}}';
my ($took, $done, @lat, $body);
# timed as the server answers, before the client decodes 60,000 keys and as
# many managed fields
($st, $body, $took) = raw_patch(merge => "$cms/wide", $mp);
$o = json_of($body);
is($st, 200, "a merge patch of $n keys");
is(scalar keys %{ $o->{data} }, $n, '... half deleted, half added');
ok($took < 2, '... in well under the seconds it took at O(N^2)') or diag("${took}s");

my $items = 40000;
my $refs = join ',', map { qq({"apiVersion":"v1","kind":"X","name":"o$_","uid":"u$_"}) }
    0 .. $items - 1;
my $smp = qq({"metadata":{"ownerReferences":[$refs]}});
($st) = call(POST => $cms, '{"metadata":{"name":"owned"}}');
is($st, 201, 'configmap owned');
($done, @lat) = latencies_while($other, $s->url . "$cms/probe", sub {
    my ($st, $body, $took) = raw_patch(smp => "$cms/owned", $smp);
    my $uids = () = $body =~ /"uid":"u\d+"/g;
    diag(sprintf 'smp of %d ownerReferences: %d in %.0f ms', $items, $st, 1000 * $took)
        if $ENV{TEST_VERBOSE};
    return $st == 200 && $uids == $items && $took < 3;
});
ok($done, "a strategic merge patch of $items merge-keyed items succeeds in seconds");
ok(@lat && max_of(@lat) < $stall, "... while GETs on another connection are answered $within")
    or diag(sprintf '%d GETs, slowest %.0f ms', scalar @lat, 1000 * max_of(@lat));
# The same list merged again: every item matched by its uid.
($done, @lat) = latencies_while($other, $s->url . "$cms/probe", sub {
    my ($st, $body, $took) = raw_patch(smp => "$cms/owned", $smp);
    my $uids = () = $body =~ /"uid":"u\d+"/g;
    return $st == 200 && $uids == $items && $took < 3;
});
ok($done, '... and again, matching each item by its merge key');
ok(@lat && max_of(@lat) < $stall, "... GETs meanwhile $within")
    or diag(sprintf '%d GETs, slowest %.0f ms', scalar @lat, 1000 * max_of(@lat));

# The largest ConfigMap kube stores (1 MiB of data), and patches of it of
# each type up to 3 MiB.
my $big = 40000;
$data = join ',', map { sprintf '"key%06d":"value%06d"', $_, $_ } 0 .. $big - 1;
($st) = call(POST => $cms, qq({"metadata":{"name":"big"},"data":{$data}}));
is($st, 201, "configmap big: $big keys, " . int(length($data) / 1024) . ' KiB');
my %patches = (
    merge => '{"data":{' . join(',', map { sprintf '"key%06d":"other%06d"', $_, $_ } 0 .. $big - 1)
        . ',' . join(',', map { sprintf '"gone%06d":null', $_ } 0 .. 2.2 * $big) . '}}',
    smp => '{"data":{' . join(',', map { sprintf '"key%06d":"again%06d"', $_, $_ } 0 .. $big - 1)
        . ',' . join(',', map { sprintf '"gone%06d":null', $_ } 0 .. 2.2 * $big) . '}}',
    # 10,000 operations (kube's most): values added and removed again.
    json => '[' . join(',', map {
        sprintf('{"op":"add","path":"/data/tmp%06d","value":"%0550d"},', $_, $_)
            . sprintf('{"op":"remove","path":"/data/tmp%06d"}', $_)
    } 0 .. 4799) . ']',
);
for my $kind (qw(merge smp json)) {
    ($done, @lat) = latencies_while($other, $s->url . "$cms/probe", sub {
        my ($st, $body, $took) = raw_patch($kind => "$cms/big", $patches{$kind});
        diag(sprintf "%s patch of %d KiB: %d in %.0f ms", $kind, length($patches{$kind}) / 1024,
            $st, 1000 * $took) if $ENV{TEST_VERBOSE};
        return $st == 200 && $took < 3;
    });
    ok($done, "$kind patch of " . int(length($patches{$kind}) / 1024) . ' KiB of it: 200');
    ok(@lat && max_of(@lat) < $stall, "... GETs meanwhile $within")
        or diag(sprintf '%d GETs, slowest %.0f ms', scalar @lat, 1000 * max_of(@lat));
}

# --- Doubling copies stop at kube's 3 MiB of copies ----------------------------------

($st) = call(POST => $cms, '{"metadata":{"name":"dbl","annotations":{"a":"' . 'x' x 1000 . '"}}}');
is($st, 201, 'configmap dbl');
my $ops = '[{"op":"add","path":"/metadata/labels","value":{}}'
    . join('', map { qq(,{"op":"copy","from":"/metadata/annotations","path":"/metadata/annotations/k$_"}) } 0 .. 29)
    . ']';
($st, $o, $took, my $r) = patch_as(json => "$cms/dbl", $ops);
is($st, 422, 'a JSON patch of doubling copies: 422');
is($o->{message}, 'the server rejected our request due to an error in our request',
    "... with kube's message");
ok(length $r->{body} < 1024, '... short') or diag(length $r->{body});
ok($took < 2, '... and soon') or diag("${took}s");

# --- A small object that copies grow, answered in protobuf ---------------------------
# The request and the stored object are small, the result is not: the
# patch is built, and its answer encoded, off the loop.

($st) = call(POST => $cms, '{"metadata":{"name":"grow"},"data":{"a":"' . 'g' x 65536 . '"}}');
is($st, 201, 'configmap grow: 64 KiB');
$ops = '[' . join(',', map { qq({"op":"copy","from":"/data/a","path":"/data/b$_"}) } 0 .. 13) . ']';
($done, @lat) = latencies_while($other, $s->url . "$cms/probe", sub {
    my $r = $s->request(PATCH => "$cms/grow", timeout => 60, body => $ops,
        headers => { 'Content-Type' => $type{json},
            Accept => 'application/vnd.kubernetes.protobuf' });
    return $r->{status} == 200 && length($r->{body}) > 15 * 65536
        && $r->{headers}{'content-type'} eq 'application/vnd.kubernetes.protobuf';
});
ok($done, 'a JSON patch of 14 copies growing it to 960 KiB: 200 in protobuf');
ok(@lat && max_of(@lat) < $stall, "... GETs meanwhile $within")
    or diag(sprintf '%d GETs, slowest %.0f ms', scalar @lat, 1000 * max_of(@lat));
($st, $o) = call(GET => "$cms/grow");
is(scalar(grep { length($o->{data}{$_}) == 65536 } keys %{ $o->{data} }), 15, '... every copy stored');

my $log = $s->error_log_since_start;
unlike($log, qr/exited on signal/, 'no worker exited on a signal');

done_testing;
