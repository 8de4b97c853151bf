# Large and hostile input on custom resources: a CustomResourceDefinition of
# about 1 MiB (the size of prometheus-operator's largest) is accepted,
# established and served, its schema compiled once (its custom resources are
# pruned and validated against it, its OpenAPI v3 document describes every
# field); a custom resource over the 3 MiB body limit gets kube's 413, one
# nested past the decoder's 10,000 levels kube-apiserver 1.26.5's 400, and
# ones nested 9,000 deep in a field that keeps unknown fields are stored and
# read back while GETs on another connection are answered within
# loop_stall_bound(); so are they while the large CRD is created (its
# validation runs off the loop) and while small CRDs come and go beside it
# (the OpenAPI documents, megabytes with it, are rebuilt off the loop), and
# /openapi/v2 and /openapi/v3 then describe exactly the kinds served, their
# index and documents from one build; a write of the large CRD's metadata
# costs a worker that follows it a few ms of loop CPU (its spec is neither
# parsed nor compiled again); the workers live through all of it.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Digest::SHA qw(sha512_hex);
use Time::HiRes qw(time);

my $s = start_server(tls => 1, workers => 2);
my $group = 'h-large.example.com';
my $crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
my @workers = $s->worker_pids;

# A CRD of $group whose custom resources' spec has the schema $spec.
sub spec_crd {
    my ($plural, $kind, $spec) = @_;
    return crd(group => $group, kind => $kind, plural => $plural,
        schema => { type => 'object', properties => { spec => $spec } });
}

# The CPU time, in seconds, the worker's event loop (its main thread) and
# its other threads (the thread pool) have had.
sub cpu_of {
    my ($pid) = @_;
    my ($loop, $all) = (0, 0);
    for my $task (glob "/proc/$pid/task/*") {
        my ($ns) = split ' ', slurp("$task/schedstat");
        $all += $ns / 1e9;
        $loop = $ns / 1e9 if $task =~ m{/$pid\z};
    }
    return ($loop, $all - $loop);
}

sub served {
    my ($plural) = @_;
    return wait_until(sub { ($s->call(GET => "/apis/$group/v1/namespaces/big/$plural"))[0] == 200 },
        10);
}

$s->create_namespace('big');

# --- a CRD of about 1 MiB: 3,000 described fields
my $text = 'The number of widgets this field counts, in the units the operator chose. ' x 4;
my %props = map { (sprintf('field%04d', $_) => { type => 'string', maxLength => 16,
    description => $text }) } 0 .. 2999;
my $big = encode_json(spec_crd('atlases', 'Atlas', { type => 'object', properties => \%props }));
cmp_ok(length $big, '>', 1000 * 1024, 'the CRD is over 1,000 KiB') or diag(length $big);
my $other = admin_connection();
my $stall = loop_stall_bound();
my $t0 = time;
my @cpu0 = cpu_of($workers[0]);
my ($created, @lat) = latencies_while($other, $s->url . '/api/v1/namespaces/big', sub {
    return $s->request(POST => $crds, timeout => 60, body => $big,
        headers => { 'Content-Type' => 'application/json' })->{status} == 201;
});
ok($created, 'it is created');
ok(served('atlases'), '... and served');
my @cpu1 = cpu_of($workers[0]);
note(sprintf 'CPU meanwhile: %.0f ms on the loop, %.0f ms on other threads',
    1000 * ($cpu1[0] - $cpu0[0]), 1000 * ($cpu1[1] - $cpu0[1]));
my $slowest = 0;
$slowest = $_ > $slowest ? $_ : $slowest for @lat;
note(sprintf 'a %d KiB CRD created in %.0f ms; the slowest of %d GETs meanwhile %.0f ms',
    length($big) / 1024, 1000 * (time - $t0), scalar @lat, 1000 * $slowest);
ok($slowest < $stall, sprintf('... GETs meanwhile within %d ms', 1000 * $stall))
    or diag(sprintf 'slowest %.0f ms', 1000 * $slowest);
my ($st, $o, $r);
($st, $o, $r) = $s->call(POST => '/apis/' . $group . '/v1/namespaces/big/atlases',
    { apiVersion => "$group/v1", kind => 'Atlas', metadata => { name => 'a1' },
      spec => { field0000 => 'x', field2999 => 'y', nothing => 1 } });
is($st, 201, 'a custom resource of it is created');
is_deeply($o->{spec}, { field0000 => 'x', field2999 => 'y' }, '... pruned by the schema');
($st, $o) = $s->call(POST => '/apis/' . $group . '/v1/namespaces/big/atlases',
    { apiVersion => "$group/v1", kind => 'Atlas', metadata => { name => 'a2' },
      spec => { field1500 => 'x' x 17 } });
is($st, 422, '... and validated by it');
is($o->{message}, qq{Atlas.$group "a2" is invalid: spec.field1500: Too long: may not be longer }
    . 'than 16', "... with kube's message");
my $doc = $s->get_json("/openapi/v3/apis/$group/v1");
my ($def) = grep { /\.Atlas$/ } keys %{ $doc->{components}{schemas} || {} };
is(scalar keys %{ $def ? $doc->{components}{schemas}{$def}{properties}{spec}{properties} : {} },
    3000, 'its OpenAPI v3 document describes all 3,000 fields');

# --- small CRDs come and go beside the large one: each change rebuilds the
# OpenAPI documents (megabytes with it), off the loop. Once a kind is served
# the documents asked for describe it, and once it is gone they do not; the
# v3 index names the very documents served with it.
sub openapi_describes {
    my ($plural) = @_;
    my $path = "/apis/$group/v1/namespaces/{namespace}/$plural";
    my $v2 = $s->request(GET => '/openapi/v2', timeout => 60);
    my $index = $s->request(GET => '/openapi/v3', timeout => 60);
    my $v3 = $s->request(GET => "/openapi/v3/apis/$group/v1", timeout => 60);
    return 'a document is not 200' if grep { $_->{status} != 200 } $v2, $index, $v3;
    return 'a document is not one whole JSON object'
        if grep { $_->{body} !~ /\A\{.*\}\z/s } $v2, $index, $v3;
    my ($hash) = $index->{body} =~ m{"/openapi/v3/apis/\Q$group\E/v1\?hash=([0-9A-F]{128})"};
    return 'the v3 index and document are of different builds'
        unless $hash && $hash eq uc sha512_hex($v3->{body})
        && $v3->{headers}{etag} eq qq{"$hash"};
    my $in2 = index($v2->{body}, qq{"$path"}) >= 0;
    my $in3 = index($v3->{body}, qq{"$path"}) >= 0;
    return $in2 && $in3 ? 'described' : !$in2 && !$in3 ? 'absent' : 'v2 and v3 disagree';
}
my $churn = scratch_dir() . '/churn';
@cpu0 = cpu_of($workers[0]);
(my $churned, @lat) = latencies_while($other, $s->url . '/api/v1/namespaces/big', sub {
    my @seen;
    for my $i (1 .. 3) {
        my $plural = "tinies$i";
        my $crd = spec_crd($plural, "Tiny$i", { type => 'object' });
        return 0 unless $s->call(POST => $crds, $crd)->{status} == 201 && served($plural);
        push @seen, "$plural served: " . openapi_describes($plural);
        $s->call(DELETE => "$crds/$plural.$group");
        return 0 unless wait_until(sub {
            ($s->call(GET => "/apis/$group/v1/namespaces/big/$plural"))[0] == 404 }, 20);
        push @seen, "$plural gone: " . openapi_describes($plural);
    }
    spew($churn, join("\n", @seen) . "\n");
    return 1;
});
ok($churned, 'three small CRDs created, served, deleted and gone beside the large one');
@cpu1 = cpu_of($workers[0]);
my ($onLoop, $aside) = ($cpu1[0] - $cpu0[0], $cpu1[1] - $cpu0[1]);
# Six rebuilds of megabytes of documents: on the loop they were most of its
# work (~300 ms of loop CPU against ~5 ms on threads here).
ok($aside > $onLoop, '... the OpenAPI documents rebuilt off the loop')
    or diag(sprintf 'CPU: %.0f ms on the loop, %.0f ms on other threads', 1000 * $onLoop,
        1000 * $aside);
note(sprintf 'CPU meanwhile: %.0f ms on the loop, %.0f ms on other threads', 1000 * $onLoop,
    1000 * $aside);
is_deeply([ split /\n/, slurp($churn) ],
    [ map { ("tinies$_ served: described", "tinies$_ gone: absent") } 1 .. 3 ],
    '... /openapi/v2 and /openapi/v3 describe each while it is served, and not once it is gone,'
    . ' the v3 index and documents from one build');
$slowest = 0;
$slowest = $_ > $slowest ? $_ : $slowest for @lat;
my @sorted = sort { $a <=> $b } @lat;
note(sprintf 'CRDs added and removed: %d GETs meanwhile, median %.1f ms, slowest %.0f ms',
    scalar @lat, 1000 * $sorted[@sorted / 2], 1000 * $slowest);
ok($slowest < $stall, sprintf('... GETs meanwhile within %d ms', 1000 * $stall))
    or diag(sprintf 'slowest %.0f ms', 1000 * $slowest);

# --- writes of the large CRD's metadata alone (labels; kube's own
# controllers write its conditions the same way) reach every worker's cache;
# a worker that did not take the request reads its metadata and status
# without the 1 MiB spec, and compiles nothing. Before, every revision cost
# each worker a parse of the whole and a compile of its schema (~40 ms).
my @before = map { [ cpu_of($_) ] } @workers;
my $labels = 5;
for my $i (1 .. $labels) {
    is($s->patch(merge => "$crds/atlases.$group", { metadata => { labels => { round => "r$i" } } })
        ->{status}, 200, "label $i of the large CRD written") or last;
}
ok(wait_until(sub {
    my $crd = $s->get_json("$crds/atlases.$group");
    ($crd->{metadata}{labels}{round} // '') eq "r$labels" }, 10), '... and read back');
sleep 1;    # every worker's cache has the last revision
my @perUpdate = map { 1000 * ((cpu_of($workers[$_]))[0] - $before[$_][0]) / $labels } 0 .. $#workers;
my ($least) = sort { $a <=> $b } @perUpdate;
note(sprintf 'loop CPU per label write of the large CRD, by worker: %s ms',
    join(', ', map { sprintf '%.1f', $_ } @perUpdate));
# the loop-stall bound's scale: 15 ms, 60 under the sanitizers
my $followBound = 150 * loop_stall_bound();
cmp_ok($least, '<', $followBound,
    "... costs a worker that only follows it under $followBound ms of loop CPU");
ok(served('atlases'), '... which still serves it');

# --- bodies over the limit and past the decoder's depth
is($s->call(POST => $crds, spec_crd('bags', 'Bag', { type => 'object',
    'x-kubernetes-preserve-unknown-fields' => JSON::PP::true() }))->{status}, 201, 'the bags CRD');
ok(served('bags'), '... served');
my $bags = "/apis/$group/v1/namespaces/big/bags";
(undef, $o, $r) = $s->call(POST => $bags, '{"apiVersion":"' . $group . '/v1","kind":"Bag",'
    . '"metadata":{"name":"huge"},"spec":{"k":"' . ('x' x (3.5 * 1024 * 1024)) . '"}}');
is($r->{status}, 413, 'a 3.5 MiB custom resource: 413');
json_subset_ok($o, { kind => 'Status', reason => 'RequestEntityTooLarge', code => 413,
    message => 'Request entity too large: limit is 3145728' }, "... kube's Status");
my $head = '{"apiVersion":"' . $group . '/v1","kind":"Bag","metadata":{"name":"deep"},"spec":{"x":';
(undef, $o, $r) = $s->call(POST => $bags, $head . ('[' x 20000) . (']' x 20000) . '}}');
is($r->{status}, 400, 'a custom resource nested 20,000 deep: 400');
is($o->{message}, 'the object provided is unrecognized (must be of type Bag): couldn\'t get '
    . "version/kind; json parse error: invalid character '[' exceeded max depth "
    . '({"apiVersion":"h-large.example ...)', "... kube-apiserver 1.26.5's message");

for my $case ([ arrays => '[', ']' ], [ objects => '{"a":', '}' ]) {
    my ($what, $open, $close) = @$case;
    my $name = "deep-$what";
    my $body = '{"apiVersion":"' . $group . '/v1","kind":"Bag","metadata":{"name":"' . $name
        . '"},"spec":{"x":' . ($open x 9000) . ($what eq 'arrays' ? '' : '1') . ($close x 9000)
        . '}}';
    my $file = scratch_dir() . "/$name";
    (my $done, @lat) = latencies_while($other, $s->url . '/api/v1/namespaces/big', sub {
        my $r = $s->request(POST => $bags, timeout => 60, body => $body,
            headers => { 'Content-Type' => 'application/json' });
        spew($file, $r->{status});
        return $r->{status} == 201;
    });
    ok($done, "9,000-deep $what in a field that keeps unknown fields: 201")
        or diag(slurp($file));
    $slowest = 0;
    $slowest = $_ > $slowest ? $_ : $slowest for @lat;
    ok($slowest < $stall, sprintf('... GETs meanwhile within %d ms', 1000 * $stall))
        or diag(sprintf 'slowest %.0f ms', 1000 * $slowest);
    $r = $s->request(GET => "$bags/$name");
    is($r->{status}, 200, '... read back');
    is(length($r->{body}) > 18000, 1, '... whole');
}

is(($s->call(GET => '/readyz'))[0], 200, 'the server is alive after them');
is_deeply([ sort $s->worker_pids ], [ sort @workers ], '... with the same workers');

done_testing;
