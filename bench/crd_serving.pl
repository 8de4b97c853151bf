#!/usr/bin/perl
# Custom resources against built-in ConfigMaps (issue 16's benchmark);
# bench/run's case (p):
#
#   KUBE_BUILD=<dir of the module .so> GET_LOAD=<get_load> perl bench/crd_serving.pl
#
# One nginx (2 workers, jemalloc, plain HTTP on loopback, AlwaysAllow, a
# bearer token). Printed:
# - the time a CustomResourceDefinition's POST takes (its validation, CEL
#   rules compiled), and from its create to its Established
#   condition, and to its resources being served on every one of
#   BENCH_CRD_PROBES (default 16) fresh connections, which reuseport spreads
#   over both workers (each polled every 10 ms);
# - GET of one object and LIST of 500 (a namespace of exactly 500), for a
#   custom resource and a ConfigMap of about the same size, in one run:
#   $GET_LOAD (bench/get_load.cpp) for BENCH_CRD_SECONDS (default 3) on
#   BENCH_CONNECTIONS (default 32) connections, the four cases in turn for
#   BENCH_CRD_ROUNDS (default 3) rounds: median req/s, p50 and p99;
# - create throughput of BENCH_CRD_CREATES (default 1000) objects, 8 at a
#   time: ConfigMaps, custom resources whose schema has no rule, and custom
#   resources with 20 x-kubernetes-validations CEL rules;
# - then GET and LIST again of the custom resources, now stored before a
#   change of their schema (a field with a default added), which every read
#   prunes and defaults.
# - what CRDs cost the other clients: GETs of a ConfigMap paced at 200/s on 8
#   connections (both workers) for BENCH_CRD_WINDOW (default 3) seconds, with
#   nothing else, while a CRD of about 1 MiB (3,000 described fields) is
#   created and served, and while three small CRDs beside it are created,
#   served, read in /openapi/v2 and /openapi/v3, deleted and gone: p50, p99
#   and the slowest; and how long the first /openapi/v2 after a change takes.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../t/lib";
use Test::Kube;
use File::Temp qw(tempdir);
use HTTP::Tiny;
use POSIX ();
use Time::HiRes qw(time sleep);

# TAP (the harness's checks) to stderr: stdout is the table alone
Test::More->builder->output(\*STDERR);

my $seconds = $ENV{BENCH_CRD_SECONDS} || 3;
my $conns = $ENV{BENCH_CONNECTIONS} || 32;
my $probes = $ENV{BENCH_CRD_PROBES} || 16;
my $creates = $ENV{BENCH_CRD_CREATES} || 1000;
my $rounds = $ENV{BENCH_CRD_ROUNDS} || 3;
my $window = $ENV{BENCH_CRD_WINDOW} || 3;
my $getLoad = $ENV{GET_LOAD} || ($ENV{KUBE_BUILD} || "$FindBin::Bin/../build") . '/get_load';
-x $getLoad or die "$getLoad is missing (make build/get_load)\n";

my $dir = tempdir(CLEANUP => 1);
Test::Kube::_spew("$dir/tokens.csv", qq{admin-token,admin,uid-admin,"system:masters"\n});
my $s = start_server(workers => 2,
    http_config => "kube_token_auth_file $dir/tokens.csv;\naccess_log off;\n",
    config => "location / {\n    kube_api;\n}\n");
my $auth = 'Bearer admin-token';
my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 60,
    default_headers => { Authorization => $auth });
my %json = ('Content-Type' => 'application/json', Authorization => $auth);
my $group = 'bench.example.com';

sub call {
    my ($method, $path, $obj, $want) = @_;
    my $r = $http->request($method, $s->url . $path,
        { defined $obj ? (content => encode_json($obj)) : (), headers => \%json });
    die "$method $path: $r->{status} $r->{content}\n" if $want && $r->{status} != $want;
    return ($r->{status}, $r->{content} =~ /^\{/ ? decode_json($r->{content}) : undef);
}

# A CRD of kind $kind whose spec has twenty integer fields f0..f19, each with a
# rule of its own when $rules is set.
sub crd {
    my ($kind, $plural, $rules) = @_;
    my %props = map {
        ("f$_" => { type => 'integer',
            $rules ? ('x-kubernetes-validations' => [
                { rule => "self >= $_ && self < 1000000", message => "f$_ out of range" } ]) : () })
    } 0 .. 19;
    return { apiVersion => 'apiextensions.k8s.io/v1', kind => 'CustomResourceDefinition',
        metadata => { name => "$plural.$group" },
        spec => { group => $group, scope => 'Namespaced',
            names => { plural => $plural, singular => lc $kind, kind => $kind },
            versions => [ { name => 'v1', served => JSON::PP::true(), storage => JSON::PP::true(),
                schema => { openAPIV3Schema => { type => 'object', properties => {
                    spec => { type => 'object', properties => \%props },
                    data => { type => 'object', additionalProperties => { type => 'string' } },
                } } } } ] } };
}

sub established {
    my ($name) = @_;
    my (undef, $o) = call(GET => "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name");
    return grep { $_->{type} eq 'Established' && $_->{status} eq 'True' }
        @{ $o->{status}{conditions} || [] };
}

# Creates the CRD and times Established and served on $probes fresh
# connections (one HTTP::Tiny each, kept alive once it has its 200).
sub create_crd {
    my ($kind, $plural, $rules) = @_;
    my @clients = map { HTTP::Tiny->new(keep_alive => 1, timeout => 10,
        default_headers => { Authorization => $auth }) } 1 .. $probes;
    my $t0 = time;
    call(POST => '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        crd($kind, $plural, $rules), 201);
    my $posted = time - $t0;
    my ($tEstablished, $tServed);
    my %served;
    my $path = $s->url . "/apis/$group/v1/namespaces/default/$plural";
    while (time - $t0 < 30) {
        $tEstablished //= time - $t0 if established("$plural.$group");
        for my $i (grep { !$served{$_} } 0 .. $#clients) {
            $served{$i} = 1 if $clients[$i]->get($path)->{status} == 200;
        }
        if (keys %served == @clients) {
            $tServed = time - $t0;
            last if defined $tEstablished;
        }
        sleep 0.01;
    }
    die "$plural: not established and served within 30 s\n"
        unless defined $tEstablished && defined $tServed;
    return ($posted, $tEstablished, $tServed);
}

my ($posted, $established, $served) = create_crd('Widget', 'widgets', 0);
my ($postedRules, $establishedRules, $servedRules) = create_crd('Ruled', 'ruleds', 1);

# Objects of about the same size: twenty small integers, or twenty data keys.
my %spec = map { ("f$_" => 1000 + $_) } 0 .. 19;
my %data = map { ("f$_" => "v" . (1000 + $_)) } 0 .. 19;
sub widget {
    my ($plural, $name) = @_;
    my $kind = $plural eq 'widgets' ? 'Widget' : 'Ruled';
    return { apiVersion => "$group/v1", kind => $kind, metadata => { name => $name },
        spec => \%spec };
}

sub fill {
    my ($path, $make, $count, $prefix) = @_;
    my $t0 = time;
    for (my $i = 0; $i < $count; $i += 200) {
        my @batch = map { { method => 'POST', url => $s->url . $path, headers => \%json,
            body => encode_json($make->("$prefix$_")) } }
            $i .. ($i + 199 < $count ? $i + 199 : $count - 1);
        my $res = http_batch(\@batch, parallel => 8);
        my @bad = grep { $_->{status} != 201 } @$res;
        die scalar(@bad) . " creates in $path failed: $bad[0]{status} $bad[0]{body}\n" if @bad;
    }
    return $count / (time - $t0);
}

call(POST => '/api/v1/namespaces', { metadata => { name => $_ } }, 201) for qw(list create);
my $cms = '/api/v1/namespaces/list/configmaps';
my $widgets = "/apis/$group/v1/namespaces/list/widgets";
fill($cms, sub { { metadata => { name => $_[0] }, data => \%data } }, 500, 'cm-');
fill($widgets, sub { widget('widgets', $_[0]) }, 500, 'w-');

my $n = 0;
sub load {
    my ($path) = @_;
    my $out = "$dir/load-" . $n++;
    system("$getLoad --url " . $s->url . "$path --seconds $seconds --connections $conns"
        . " --header 'Authorization: $auth' > $out 2>&1") == 0
        or die "get_load failed: " . Test::Kube::_slurp($out);
    my ($line) = Test::Kube::_slurp($out) =~ /^RESULT get (.*)$/m or die "get_load: no result\n";
    return { map { split /=/, $_, 2 } split ' ', $line };
}

my @reads = (
    [ 'GET one ConfigMap', "$cms/cm-7" ],
    [ 'GET one custom resource', "$widgets/w-7" ],
    [ 'LIST 500 ConfigMaps', $cms ],
    [ 'LIST 500 custom resources', $widgets ],
);
# Rounds of the four cases in turn; each figure is the median of its rounds
# (noise on a shared machine moves one round by tens of percent).
my %rounds;
for (1 .. $rounds) {
    push @{ $rounds{ $_->[0] } }, load($_->[1]) for @reads;
}
sub median_of {
    my ($case, $key) = @_;
    my @v = sort { $a <=> $b } map { $_->{$key} } @{ $rounds{$case} };
    return $v[@v / 2];
}
my %read = map {
    my $case = $_->[0];
    ($case => { map { ($_ => median_of($case, $_)) } qw(rps p50_us p99_us) })
} @reads;

my $createCm = fill('/api/v1/namespaces/create/configmaps',
    sub { { metadata => { name => $_[0] }, data => \%data } }, $creates, 'cm-');
my $createWidget = fill("/apis/$group/v1/namespaces/create/widgets",
    sub { widget('widgets', $_[0]) }, $creates, 'w-');
my $createRuled = fill("/apis/$group/v1/namespaces/create/ruleds",
    sub { widget('ruleds', $_[0]) }, $creates, 'r-');
# The rules hold: one that fails is refused.
my ($st) = call(POST => "/apis/$group/v1/namespaces/create/ruleds",
    { %{ widget('ruleds', 'bad') }, spec => { %spec, f3 => 2 } });
die "a custom resource breaking a rule got $st, not 422\n" unless $st == 422;

# The same reads of custom resources stored before their schema changed (a
# field with a default added): each is pruned and defaulted on every read.
my $changed = crd('Widget', 'widgets', 0);
$changed->{spec}{versions}[0]{schema}{openAPIV3Schema}{properties}{spec}{properties}{f20} =
    { type => 'integer', default => 20 };
my (undef, $current) = call(GET => "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.$group");
$changed->{metadata}{resourceVersion} = $current->{metadata}{resourceVersion};
call(PUT => "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.$group", $changed, 200);
my $t0 = time;
until ((call(GET => "$widgets/w-7"))[1]{spec}{f20}) {
    die "widgets: the default not read within 10 s\n" if time - $t0 > 10;
    sleep 0.01;
}
my @stale = (
    [ 'GET one, stored before', "$widgets/w-7" ],
    [ 'LIST 500, stored before', $widgets ],
);
for (1 .. $rounds) {
    push @{ $rounds{ $_->[0] } }, load($_->[1]) for @stale;
}
for (@stale) {
    my $case = $_->[0];
    $read{$case} = { map { ($_ => median_of($case, $_)) } qw(rps p50_us p99_us) };
}

# GETs of one ConfigMap, paced, on both workers, for $window seconds while
# $work runs (then idle until the window ends).
sub paced_gets_while {
    my ($work) = @_;
    my $out = "$dir/load-" . $n++;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        exec("$getLoad --url " . $s->url . "$cms/cm-7 --seconds $window --connections 8"
            . " --rate 200 --header 'Authorization: $auth' > $out 2>&1") or POSIX::_exit(1);
    }
    sleep 0.3;  # the connections are up
    $work->();
    waitpid($pid, 0);
    die "get_load failed: " . Test::Kube::_slurp($out) if $?;
    my ($line) = Test::Kube::_slurp($out) =~ /^RESULT get (.*)$/m or die "get_load: no result\n";
    return { map { split /=/, $_, 2 } split ' ', $line };
}

sub large_crd {
    my $text = 'The number of widgets this field counts, in the units the operator chose. ' x 4;
    my %props = map { (sprintf('field%04d', $_) => { type => 'string', maxLength => 16,
        description => $text }) } 0 .. 2999;
    my $crd = crd('Atlas', 'atlases', 0);
    $crd->{spec}{versions}[0]{schema}{openAPIV3Schema}{properties}{spec} =
        { type => 'object', properties => \%props };
    return $crd;
}

sub served_everywhere {
    my ($plural) = @_;
    my @clients = map { HTTP::Tiny->new(keep_alive => 1, timeout => 10,
        default_headers => { Authorization => $auth }) } 1 .. $probes;
    my $t0 = time;
    my %served;
    while (time - $t0 < 30 && keys %served < @clients) {
        for my $i (grep { !$served{$_} } 0 .. $#clients) {
            $served{$i} = 1 if $clients[$i]->get($s->url
                . "/apis/$group/v1/namespaces/default/$plural")->{status} == 200;
        }
        sleep 0.01;
    }
    die "$plural: not served on every connection within 30 s\n" if keys %served < @clients;
}

# Encoded before the window: JSON::PP takes its time over a megabyte.
my $largeBody = encode_json(large_crd());
my $idle = paced_gets_while(sub {});
my $largeCreate = paced_gets_while(sub {
    my $r = $http->request(POST => $s->url . '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        { content => $largeBody, headers => \%json });
    die "the large CRD: $r->{status} $r->{content}\n" unless $r->{status} == 201;
    served_everywhere('atlases');
});
my @firstV2;
my $churn = paced_gets_while(sub {
    for my $i (1 .. 3) {
        call(POST => '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
            crd("Tiny$i", "tinies$i", 0), 201);
        served_everywhere("tinies$i");
        my $t0 = time;
        $http->get($s->url . '/openapi/v2');
        push @firstV2, time - $t0;
        $http->get($s->url . '/openapi/v3');
        $http->get($s->url . "/openapi/v3/apis/$group/v1");
        call(DELETE => "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/tinies$i.$group");
        my $t1 = time;
        sleep 0.01 while time - $t1 < 30 && $http->get($s->url
            . "/apis/$group/v1/namespaces/default/tinies$i")->{status} != 404;
    }
});

sub ms { return sprintf '%.2f', $_[0] / 1000 }
printf "crd: POST answered in %.0f ms, Established %.0f ms after it was sent, served on %d"
    . " connections (both workers) after %.0f ms; with 20 CEL rules %.0f, %.0f and %.0f ms\n",
    1000 * $posted, 1000 * $established, $probes, 1000 * $served, 1000 * $postedRules,
    1000 * $establishedRules, 1000 * $servedRules;
printf "%-30s %9s %9s %9s\n", '', 'req/s', 'p50 ms', 'p99 ms';
for (@reads, @stale) {
    my $r = $read{ $_->[0] };
    printf "%-30s %9.0f %9s %9s\n", $_->[0], $r->{rps}, ms($r->{p50_us}), ms($r->{p99_us});
}
printf "custom resource / ConfigMap: GET %.2f, LIST of 500 %.2f\n",
    $read{'GET one custom resource'}{rps} / $read{'GET one ConfigMap'}{rps},
    $read{'LIST 500 custom resources'}{rps} / $read{'LIST 500 ConfigMaps'}{rps};
printf "custom resources stored before a schema change / since: GET %.2f, LIST of 500 %.2f\n",
    $read{'GET one, stored before'}{rps} / $read{'GET one custom resource'}{rps},
    $read{'LIST 500, stored before'}{rps} / $read{'LIST 500 custom resources'}{rps};
printf "creates/s (8 at a time, %d each): ConfigMap %.0f, custom resource %.0f,"
    . " custom resource with 20 CEL rules %.0f\n", $creates, $createCm, $createWidget, $createRuled;
printf "%-44s %9s %9s %9s\n", 'GETs of a ConfigMap (200/s, both workers)', 'p50 ms', 'p99 ms',
    'max ms';
for ([ 'with nothing else', $idle ], [ 'while a 1 MiB CRD is created and served', $largeCreate ],
    [ 'while 3 small CRDs come and go beside it', $churn ]) {
    printf "%-44s %9s %9s %9s\n", $_->[0], ms($_->[1]{p50_us}), ms($_->[1]{p99_us}),
        ms($_->[1]{max_us});
}
printf "first /openapi/v2 after a CRD is served (1 MiB CRD installed): %s ms\n",
    join(', ', map { sprintf '%.0f', 1000 * $_ } @firstV2);
$s->stop;
