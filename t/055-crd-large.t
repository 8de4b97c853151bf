# Large and hostile input on custom resources: a CustomResourceDefinition of
# about 1 MiB (the size of prometheus-operator's largest) is accepted,
# established and served, its schema compiled once (its custom resources are
# pruned and validated against it, its OpenAPI v3 document describes every
# field); a custom resource over the 3 MiB body limit gets kube's 413, one
# nested past the decoder's 10,000 levels kube-apiserver 1.26.5's 400, and
# ones nested 9,000 deep in a field that keeps unknown fields are stored and
# read back while GETs on another connection are answered within
# loop_stall_bound(); the workers live through all of it.
use lib 't/lib';
use Test::Kube;
use Test::More;
use Time::HiRes qw(time);

my $s = start_server(tls => 1);
my $group = 'h-large.example.com';
my $crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
my @workers = $s->worker_pids;

sub crd {
    my ($plural, $kind, $spec) = @_;
    return { apiVersion => 'apiextensions.k8s.io/v1', kind => 'CustomResourceDefinition',
        metadata => { name => "$plural.$group" },
        spec => { group => $group, scope => 'Namespaced',
            names => { plural => $plural, kind => $kind },
            versions => [ { name => 'v1', served => JSON::PP::true(),
                storage => JSON::PP::true(), schema => { openAPIV3Schema => { type => 'object',
                    properties => { spec => $spec } } } } ] } };
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
my $big = encode_json(crd('atlases', 'Atlas', { type => 'object', properties => \%props }));
cmp_ok(length $big, '>', 1000 * 1024, 'the CRD is over 1,000 KiB') or diag(length $big);
my $other = admin_connection();
my $stall = loop_stall_bound();
my $t0 = time;
my ($created, @lat) = latencies_while($other, $s->url . '/api/v1/namespaces/big', sub {
    return $s->request(POST => $crds, timeout => 60, body => $big,
        headers => { 'Content-Type' => 'application/json' })->{status} == 201;
});
ok($created, 'it is created');
my $slowest = 0;
$slowest = $_ > $slowest ? $_ : $slowest for @lat;
note(sprintf 'a %d KiB CRD created in %.0f ms; the slowest GET meanwhile %.0f ms',
    length($big) / 1024, 1000 * (time - $t0), 1000 * $slowest);
my ($st, $o, $r);
ok(served('atlases'), '... and served');
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

# --- bodies over the limit and past the decoder's depth
is($s->call(POST => $crds, crd('bags', 'Bag', { type => 'object',
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
