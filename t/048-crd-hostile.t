# CustomResourceDefinitions whose schemas nest as deep as a JSON body may:
# `properties` 1,000 and 4,900 levels deep, `items` and
# `additionalProperties` 9,980 deep. kube-apiserver 1.26.5 accepts each
# (4,900 levels of properties in 9 s, items 9,980 deep in 32 s; it times
# out on additionalProperties 9,980 deep). Here each is created, read as JSON
# and as protobuf and deleted, in well under a second, while GETs on
# another connection to the same (only) worker are answered within 100 ms
# (400 ms under SANITIZE=1); a missing type 4,900 levels down gets kube's
# 422; written back in protobuf (past protobuf's default limit of 100 nested
# messages, which this server's protobuf reader keeps) they get a 400; no
# worker exits on a signal (these schemas overflowed the stack, and protobuf
# output took 34 s of the loop).
use lib 't/lib';
use Test::Kube;
use Test::More;
use POSIX ();
use Time::HiRes qw(time sleep);

my $s = start_server(tls => 1);
my $crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
my $pb = 'application/vnd.kubernetes.protobuf';
my $stall = loop_stall_bound();
my $within = sprintf 'within %d ms', 1000 * $stall;

# A CRD named `$plural` whose schema is `$open` repeated `$depth` times
# around {"type":"string"} (or `$leaf`), each closed by `$close`.
sub deep_crd {
    my (%o) = @_;
    my $schema = $o{open} x $o{depth} . ($o{leaf} // '{"type":"string"}') . $o{close} x $o{depth};
    return qq({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)
        . qq("metadata":{"name":"$o{plural}.h-deepcrd.example.com"},"spec":{"group":)
        . qq("h-deepcrd.example.com","scope":"Namespaced","names":{"plural":"$o{plural}",)
        . qq("kind":"Deep"},"versions":[{"name":"v1","served":true,"storage":true,)
        . qq("schema":{"openAPIV3Schema":{"type":"object","properties":{"a":$schema}}}}]}});
}

my %props = (open => '{"type":"object","properties":{"a":', close => '}}');
my @cases = (
    [ 'properties 1,000 deep', deep_crd(%props, plural => 'p1000s', depth => 1000) ],
    [ 'properties 4,900 deep', deep_crd(%props, plural => 'p4900s', depth => 4900) ],
    [ 'items 9,980 deep', deep_crd(plural => 'i9980s', depth => 9980,
        open => '{"type":"array","items":', close => '}') ],
    [ 'additionalProperties 9,980 deep', deep_crd(plural => 'a9980s', depth => 9980,
        open => '{"type":"object","additionalProperties":', close => '}') ],
);

# A client on one kept-alive connection (the admin's certificate), as other
# clients of the same worker would be.
my $other = admin_connection();

# Runs the request in a child process while this one GETs a namespace on the
# other connection; returns the request's status, the answer's length and
# content type, and the slowest GET meanwhile (999 for a failed one).
sub timed_request {
    my ($method, $path, %o) = @_;
    my $file = scratch_dir() . "/answer";
    my (undef, @latencies) = latencies_while($other, $s->url . '/api/v1/namespaces/default', sub {
        my $r = $s->request($method => $path, timeout => 60, %o);
        my $type = $r->{headers}{'content-type'} // '';
        spew($file, "$r->{status} $type\n" . ($r->{body} // ''));
        return 1;
    });
    my $slowest = 0;
    $slowest = $_ > $slowest ? $_ : $slowest for @latencies;
    my ($head, $body) = split /\n/, slurp($file), 2;
    my ($status, $type) = split / /, $head // '', 2;
    return ($status // 0, $body // '', $type // '', $slowest);
}

for my $case (@cases) {
    my ($what, $body) = @$case;
    my ($name) = $body =~ /"name":"([^"]+)"/;
    my ($st, $out, $type, $slowest) = timed_request(POST => $crds, body => $body,
        headers => { 'Content-Type' => 'application/json' });
    is($st, 201, "$what: created");
    ok($slowest < $stall, "... GETs meanwhile $within")
        or diag(sprintf 'slowest %.0f ms', 1000 * $slowest);
    # the controllers accept its names and establish it (two status writes;
    # the body is read as text: too deep for JSON::PP)
    ok(wait_until(sub {
        $s->request(GET => "$crds/$name")->{body}
            =~ /"type":"Established","status":"True"/;
    }, 10), '... and Established');

    ($st, $out) = timed_request(GET => "$crds/$name");
    is($st, 200, "$what: read as JSON");
    is(length($out) > length($body), 1, '... the whole schema');
    my $rv = json_of($out)->{metadata}{resourceVersion};

    ($st, $out, $type, $slowest) = timed_request(GET => "$crds/$name",
        headers => { Accept => $pb });
    is("$st $type", "200 $pb", "$what: read as protobuf");
    ok($slowest < $stall, "... GETs meanwhile $within")
        or diag(sprintf 'slowest %.0f ms', 1000 * $slowest);
    my $u = pb_unwrap($out);
    is($u && $u->{kind}, 'CustomResourceDefinition', '... a CustomResourceDefinition');

    # Written back in protobuf: this server's protobuf reader stops at
    # protobuf's default 100 nested messages, so the body gets a 400 Status
    # and nothing changes (kube's Go decoder reads any depth and accepts it).
    ($st, my $back, $type, $slowest) = timed_request(PUT => "$crds/$name", body => $out,
        headers => { 'Content-Type' => $pb });
    is($st, 400, "$what: written back in protobuf: 400");
    like(json_of($back)->{message} // '', qr/proto/, '... a Status that names the protobuf body');
    ok($slowest < $stall, "... GETs meanwhile $within")
        or diag(sprintf 'slowest %.0f ms', 1000 * $slowest);
    ($st, $out) = timed_request(GET => "$crds/$name");
    is($st, 200, '... the CRD is still there');
    is(json_of($out)->{metadata}{resourceVersion}, $rv, '... unchanged');

    ($st) = timed_request(DELETE => "$crds/$name");
    is($st, 200, "$what: deleted");
}

# kube-apiserver 1.26.5's answer to a leaf without a type 4,900 levels down.
my ($st, $out, $type, $slowest) = timed_request(POST => $crds,
    body => deep_crd(%props, plural => 'bad4900s', depth => 4899, leaf => '{}'),
    headers => { 'Content-Type' => 'application/json' });
is($st, 422, 'properties 4,900 deep ending in a schema without a type: 422');
my $status = json_of($out);
is_deeply([ map { "$_->{reason} $_->{field}: $_->{message}" } @{ $status->{details}{causes} } ],
    [ 'FieldValueRequired spec.validation.openAPIV3Schema' . '.properties[a]' x 4900
        . '.type: Required value: must not be empty for specified object fields' ],
    '... kube\'s cause, at the full path');
ok($slowest < $stall, "... GETs meanwhile $within")
    or diag(sprintf 'slowest %.0f ms', 1000 * $slowest);

my $log = $s->error_log_since_start;
unlike($log, qr/exited on signal/, 'no worker exited on a signal');

done_testing;
