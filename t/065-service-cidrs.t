# networking.k8s.io/v1 ServiceCIDRs and IPAddresses as kube-apiserver 1.33
# serves them: the default ServiceCIDR `kubernetes` naming
# kube_service_cluster_ip_range, Ready, made again once deleted; others
# created and read, shown with kube's table columns, invalid ones refused
# with kube's field paths and messages, cidrs and parentRef immutable.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1, http_config => <<'EOF');
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

done_testing;
