# networking.k8s.io/v1 ServiceCIDRs and IPAddresses as kube-apiserver 1.33
# serves them: the default ServiceCIDR `kubernetes` naming
# kube_service_cluster_ip_range, Ready, made again once deleted; others
# created and read, shown with kube's table columns, invalid ones refused
# with kube's field paths and messages, cidrs and parentRef immutable; the
# IPAddresses kube 1.33's ClusterIP allocator keeps, one per Service's
# ClusterIP, written and deleted with the Service, refusing a taken address,
# seen by watchers, and put right by the repair at start.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1, workers => 2, http_config => <<'EOF');
kube_service_cluster_ip_range 10.96.0.0/16;
EOF
my ($st, $o);
my $base = '/apis/networking.k8s.io/v1';

# --- the default ServiceCIDR ---------------------------------------------------------------
# Kept by a pass every 10 s (kube's interval): it is there and Ready soon
# after the start, and again within a pass of being deleted.
sub default_ready {
    return wait_until(sub {
        my ($st, $o) = $s->call(GET => "$base/servicecidrs/kubernetes");
        return $st == 200 && $o->{status}{conditions} ? $o : undef;
    }, 20);
}
my $ready = {
    metadata => { name => 'kubernetes' },
    spec => { cidrs => [ '10.96.0.0/16' ] },
    status => { conditions => [ { type => 'Ready', status => 'True', reason => '',
        message => 'Kubernetes default Service CIDR is ready',
        lastTransitionTime => qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ } ] },
};
ok(default_ready(), 'the default ServiceCIDR is made Ready');
my $out = $s->kc_ok(undef, 'get servicecidr kubernetes -o json', 'get', 'servicecidr', 'kubernetes',
    '-o', 'json');
json_subset_ok(decode_json($out), $ready, 'it names the range, with the Ready condition kube sets');
# (kubectl hides managedFields)
(undef, $o) = $s->call(GET => "$base/servicecidrs/kubernetes");
json_subset_ok($o, { metadata => { managedFields => [
        { manager => 'kube-apiserver', operation => 'Update' },
        { manager => 'kubernetes-service-cidr-controller', operation => 'Update',
          subresource => 'status' } ] } },
    'made by kube-apiserver, marked Ready by the controller kube names');
like($s->kc_ok(undef, 'get servicecidr kubernetes', 'get', 'servicecidr', 'kubernetes'),
    qr{^NAME\s+CIDRS\s+AGE\nkubernetes\s+10\.96\.0\.0/16\s}m, 'kubectl shows its range');

my $uid = decode_json($out)->{metadata}{uid};
$s->kc_ok(undef, 'delete servicecidr kubernetes', 'delete', 'servicecidr', 'kubernetes');
my $again = default_ready();
json_subset_ok($again, $ready, 'deleted, it comes back Ready');
isnt($again->{metadata}{uid}, $uid, 'as a new object');

# --- other ServiceCIDRs and IPAddresses ----------------------------------------------------
($st, $o) = $s->call(POST => "$base/servicecidrs",
    { metadata => { name => 'extra' }, spec => { cidrs => [ '10.200.0.0/24', '2001:db8::/112' ] } });
is($st, 201, 'a dual-stack ServiceCIDR is created');
($st, $o) = $s->call(POST => "$base/ipaddresses",
    { metadata => { name => '10.200.0.5' },
      spec => { parentRef => { resource => 'services', namespace => 'default', name => 'web' } } });
is($st, 201, 'an IPAddress is created');
$out = $s->kc_ok(undef, 'get servicecidrs,ipaddresses', 'get', 'servicecidr/extra',
    'ipaddress/10.200.0.5');
like($out, qr{^NAME\s+CIDRS\s+AGE\nservicecidr\.networking\.k8s\.io/extra\s+10\.200\.0\.0/24,2001:db8::/112\s}m,
    'servicecidrs: the CIDRs column');
like($out, qr{^NAME\s+PARENTREF\s+AGE\nipaddress\.networking\.k8s\.io/10\.200\.0\.5\s+services/default/web\s}m,
    'ipaddresses: the ParentRef column')
    or diag $out;

for my $case (
    [ servicecidrs => { metadata => { name => 'none' }, spec => {} },
      [ 'spec.cidrs' ], qr{spec.cidrs: Required value: at least one CIDR required} ],
    [ servicecidrs => { metadata => { name => 'two4' }, spec => { cidrs => [ '10.1.0.0/24', '10.2.0.0/24' ] } },
      [ 'spec.cidrs' ], qr{may specify no more than one IP for each IP family} ],
    [ servicecidrs => { metadata => { name => 'bits' }, spec => { cidrs => [ '10.1.0.1/24' ] } },
      [ 'spec.cidrs[0]' ], qr{spec.cidrs\[0\]: Invalid value: "10.1.0.1/24": must not have bits set beyond the prefix length} ],
    [ ipaddresses => { metadata => { name => '2001:db8:0::1' },
        spec => { parentRef => { resource => 'services', name => 'a' } } },
      [ 'metadata.name' ], qr{metadata.name: Invalid value: "2001:db8:0::1": must be in canonical form \("2001:db8::1"\)} ],
    [ ipaddresses => { metadata => { name => '10.0.0.9' }, spec => {} },
      [ 'spec.parentRef' ], qr{spec.parentRef: Required value} ],
    [ ipaddresses => { metadata => { name => '10.0.0.9' }, spec => { parentRef => { group => 'x' } } },
      [ 'spec.parentRef.resource', 'spec.parentRef.name' ], qr{spec.parentRef.resource: Required value} ],
) {
    my ($res, $body, $fields, $msg) = @$case;
    my ($code, $got, $raw) = $s->call(POST => "$base/$res", $body);
    is($code, 422, "$res $body->{metadata}{name}: 422");
    is_deeply([ map { $_->{field} } @{ $got->{details}{causes} || [] } ], $fields,
        "$res $body->{metadata}{name}: the fields kube names");
    like($got->{message}, $msg, "$res $body->{metadata}{name}: kube's message");
}

($st, $o) = $s->call(GET => "$base/servicecidrs/extra");
$o->{spec}{cidrs} = [ '10.201.0.0/24' ];
($st, $o) = $s->call(PUT => "$base/servicecidrs/extra", $o);
is($st, 422, 'the cidrs cannot change');
like($o->{message}, qr{spec.cidrs: Invalid value: \[\]string\{"10.201.0.0/24"\}: field is immutable},
    'with kube message');
($st, $o) = $s->call(GET => "$base/ipaddresses/10.200.0.5");
$o->{spec}{parentRef}{name} = 'other';
($st, $o) = $s->call(PUT => "$base/ipaddresses/10.200.0.5", $o);
is($st, 422, 'the parentRef cannot change');

# --- the allocator's IPAddresses --------------------------------------------------------------
my $svcs = '/api/v1/namespaces/default/services';
my $labels = { 'ipaddress.kubernetes.io/ip-family' => 'IPv4',
    'ipaddress.kubernetes.io/managed-by' => 'ipallocator.k8s.io' };
ok(wait_until(sub { ($s->call(GET => "$base/ipaddresses/10.96.0.1"))[0] == 200 }, 20),
    "the kubernetes Service's ClusterIP has its IPAddress");
(undef, $o) = $s->call(GET => "$base/ipaddresses");
my $from = $o->{metadata}{resourceVersion};

($st, $o) = $s->call(POST => $svcs, { metadata => { name => 'web' },
    spec => { ports => [ { port => 80 } ] } });
is($st, 201, 'a Service is created');
my ($ip, $svc_rv) = ($o->{spec}{clusterIP}, $o->{metadata}{resourceVersion});
my $addr = $s->kc_json(undef, 'get', 'ipaddress', $ip);
json_subset_ok($addr, { kind => 'IPAddress', apiVersion => 'networking.k8s.io/v1',
        metadata => { name => $ip, labels => $labels, uid => qr/^[0-9a-f-]{36}$/,
            creationTimestamp => qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ },
        spec => { parentRef => { resource => 'services', namespace => 'default', name => 'web' } } },
    'kubectl get ipaddress: the ClusterIP, labelled by the allocator, its parent the Service');
ok(!exists $addr->{spec}{parentRef}{group}, '... the core group left out, as kube leaves it');
my $addr_rv = $addr->{metadata}{resourceVersion};
ok($addr_rv < $svc_rv && $addr_rv >= $svc_rv - 2,
    "written in the Service's batch, just before it ($addr_rv, $svc_rv)");
like($s->kc_ok(undef, 'get ipaddresses', 'get', 'ipaddresses'),
    qr{^\Q$ip\E\s+services/default/web\s}m, 'kubectl get ipaddresses lists it');

# An address with an IPAddress already cannot be asked for.
($st, $o) = $s->call(POST => "$base/ipaddresses", { metadata => { name => '10.96.7.7' },
    spec => { parentRef => { resource => 'services', namespace => 'default', name => 'someone' } } });
is($st, 201, "a user's IPAddress in the range");
my $taken = 'Service "wants" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.7.7"}: '
    . 'failed to allocate IP 10.96.7.7: provided IP is already allocated';
($st, $o) = $s->call(POST => $svcs, { metadata => { name => 'wants' },
    spec => { clusterIP => '10.96.7.7', ports => [ { port => 80 } ] } });
is($st, 422, 'a Service asking for it: 422');
is($o->{message}, $taken, "... kube's message");
my (undef, undef, $err) = $s->kc(undef, 'create', 'service', 'clusterip', 'wants',
    '--clusterip=10.96.7.7', '--tcp=80:80');
like($err, qr{\Q$taken\E}, 'kubectl create service shows it');
is(($s->call(GET => "$svcs/wants"))[0], 404, 'nothing half-written: no Service');
(undef, $o) = $s->call(GET => "$base/ipaddresses/10.96.7.7");
is($o->{spec}{parentRef}{name}, 'someone', '... the IPAddress untouched');
ok(!$o->{metadata}{labels}, '... and unlabelled');
($st) = $s->call(DELETE => "$base/ipaddresses/10.96.7.7");
is($st, 200, "the user's IPAddress deleted");
($st, $o) = $s->call(POST => $svcs, { metadata => { name => 'wants' },
    spec => { clusterIP => '10.96.7.7', ports => [ { port => 80 } ] } });
is($st, 201, '... the address can be had: the refused create left the bitmap alone');
(undef, $o) = $s->call(GET => "$base/ipaddresses/10.96.7.7");
json_subset_ok($o, { metadata => { labels => $labels }, spec => { parentRef => { name => 'wants' } } },
    "... and it is the Service's now");

# Given back with the Service, or when it becomes an ExternalName.
($st) = $s->call(DELETE => "$svcs/web");
is($st, 200, 'the Service deleted');
$s->kc_fails(undef, 'get ipaddress after the delete',
    qq{Error from server (NotFound): ipaddresses.networking.k8s.io "$ip" not found},
    'get', 'ipaddress', $ip);
($st, $o) = $s->patch('merge', "$svcs/wants",
    { spec => { type => 'ExternalName', externalName => 'x.example.com' } });
is($st, 200, 'a Service becomes an ExternalName');
is(($s->call(GET => "$base/ipaddresses/10.96.7.7"))[0], 404, '... its IPAddress is gone');

my $r = $s->request(GET => "$base/ipaddresses?watch=true&resourceVersion=$from&timeoutSeconds=1");
my @events = map { decode_json($_) } grep { length } split /\n/, $r->{body};
my %seen;
push @{ $seen{ $_->{object}{metadata}{name} } }, $_->{type} for @events;
is_deeply($seen{$ip}, [ 'ADDED', 'DELETED' ], 'a watch of ipaddresses sees ADDED and DELETED');
is_deeply($seen{'10.96.7.7'}, [ 'ADDED', 'DELETED', 'ADDED', 'DELETED' ],
    "... for the user's and the Service's IPAddress alike");

# The repair at start: a Service's missing IPAddress is made again, the
# allocator's IPAddress of a Service that is gone is deleted.
($st, $o) = $s->call(POST => $svcs, { metadata => { name => 'kept' },
    spec => { ports => [ { port => 80 } ] } });
my $kept = $o->{spec}{clusterIP};
($st) = $s->call(DELETE => "$base/ipaddresses/$kept");
is($st, 200, "a Service's IPAddress deleted by hand");
($st) = $s->call(POST => "$base/ipaddresses", { metadata => { name => '10.96.8.8', labels => $labels },
    spec => { parentRef => { resource => 'services', namespace => 'default', name => 'gone' } } });
is($st, 201, "an allocator's IPAddress of no Service");
($st) = $s->call(POST => "$base/ipaddresses", { metadata => { name => '10.96.8.9' },
    spec => { parentRef => { resource => 'services', namespace => 'default', name => 'gone' } } });
is($st, 201, "a user's IPAddress of no Service");
ok($s->restart, 'restarted');
ok(wait_until(sub { ($s->call(GET => "$base/ipaddresses/$kept"))[0] == 200 }, 20),
    '... the missing IPAddress is made again');
(undef, $o) = $s->call(GET => "$base/ipaddresses/$kept");
json_subset_ok($o, { metadata => { labels => $labels }, spec => { parentRef => { name => 'kept' } } },
    '... for its Service');
ok(wait_until(sub { ($s->call(GET => "$base/ipaddresses/10.96.8.8"))[0] == 404 }, 20),
    "... the allocator's orphan is deleted");
is(($s->call(GET => "$base/ipaddresses/10.96.8.9"))[0], 200, "... the user's is left alone");

$s->fatal_free_ok($s->error_log_since_start, 'no alert in the error log');
done_testing;
