# What kube-apiserver keeps itself for Services, on two workers and a tiny
# range (kube_service_cluster_ip_range 10.96.0.0/29: six addresses, the
# first the `kubernetes` Service's; kube_service_node_port_range
# 30000-30002): ClusterIPs allocated at random, requested ones checked,
# headless services, dual-stack fields as kube defaults them on a
# single-stack cluster, node ports, kube's 422s for taken and foreign
# values, kube's 500 for an exhausted range with nothing half-allocated,
# release on delete and on type change, and all of it kept across a
# restart. Every message was recorded from kube-apiserver 1.26.5. Each
# ClusterIP also has its IPAddress (kube 1.33's dual write), moved with it.
use lib 't/lib';
use Test::Kube;
use Test::More;
use JSON::PP ();

my $s = start_server(tls => 1, workers => 2, http_config => <<'EOF');
kube_service_cluster_ip_range 10.96.0.0/29;
kube_service_node_port_range 30000-30002;
EOF
my $ns = 'svc-alloc';
$s->kc_ok(undef, 'create namespace', 'create', 'namespace', $ns);
my $path = "/api/v1/namespaces/$ns/services";

sub svc {
    my ($name, %spec) = @_;
    return { apiVersion => 'v1', kind => 'Service', metadata => { name => $name },
        spec => { ports => [ { port => 80 } ], %spec } };
}

sub create {
    my ($name, %spec) = @_;
    return $s->call('POST', $path, svc($name, %spec));
}

sub invalid_ok {
    my ($st, $o, $message, $what) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    is($st, 422, "$what: 422");
    is($o->{reason}, 'Invalid', "$what: Invalid");
    is($o->{message}, $message, "$what: kube's message");
}

my ($st, $o, $raw);
my $range = qr/^10\.96\.0\.[2-6]$/;

# --- what the server keeps about itself --------------------------------------------------
my $port = $s->port + 0;
my $kube_svc = wait_until(sub {
    my ($st, $o) = $s->call('GET', '/api/v1/namespaces/default/services/kubernetes');
    return $st == 200 ? $o : undef;
}, 20);
ok($kube_svc, 'the kubernetes Service is made');
json_subset_ok($kube_svc, { metadata => { name => 'kubernetes', namespace => 'default',
        labels => { component => 'apiserver', provider => 'kubernetes' },
        managedFields => [ { manager => 'kube-apiserver', operation => 'Update' } ] },
    spec => { type => 'ClusterIP', clusterIP => '10.96.0.1', clusterIPs => ['10.96.0.1'],
        ipFamilies => ['IPv4'], ipFamilyPolicy => 'SingleStack', sessionAffinity => 'None',
        ports => [ { name => 'https', protocol => 'TCP', port => 443, targetPort => $port } ] } },
    "the kubernetes Service: the range's first address, 443 to the server's port");
my $eps = wait_until(sub {
    my ($st, $o) = $s->call('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
    return $st == 200 ? $o : undef;
}, 20);
json_subset_ok($eps, { metadata => { labels => { 'endpointslice.kubernetes.io/skip-mirror' => 'true' } },
    subsets => [ { addresses => [ { ip => '127.0.0.1' } ],
        ports => [ { name => 'https', port => $port, protocol => 'TCP' } ] } ] },
    'its Endpoints name the listening address and port');
my $slice = wait_until(sub {
    my ($st, $o) = $s->call('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    return $st == 200 ? $o : undef;
}, 20);
json_subset_ok($slice, { kind => 'EndpointSlice', apiVersion => 'discovery.k8s.io/v1',
    metadata => { generation => 1, labels => { 'kubernetes.io/service-name' => 'kubernetes' } },
    addressType => 'IPv4',
    endpoints => [ { addresses => ['127.0.0.1'], conditions => { ready => JSON::PP::true } } ],
    ports => [ { name => 'https', protocol => 'TCP', port => $port } ] },
    'and its EndpointSlice');
my $out = $s->kc_ok(undef, 'get endpointslices', 'get', 'endpointslices', '-n', 'default');
like($out, qr/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/m, 'kubectl get endpointslices: columns');
like($out, qr/^kubernetes\s+IPv4\s+$port\s+127\.0\.0\.1\s+\S+$/m, 'kubectl get endpointslices: row');
($st, $o) = $s->call('PUT', '/api/v1/namespaces/default/endpoints/kubernetes',
    { %$eps, subsets => [ { addresses => [ { ip => '10.1.1.1' } ] } ] });
is($st, 200, 'the kubernetes Endpoints changed by hand');
ok(wait_until(sub {
    my (undef, $o) = $s->call('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
    return ($o->{subsets}[0]{addresses}[0]{ip} // '') eq '127.0.0.1';
}, 25), '... are put back within a pass');

my $leases = wait_until(sub {
    my ($st, $o) = $s->call('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases');
    my @l = grep { $_->{metadata}{name} =~ /^kube-apiserver-[a-z2-7]{26}$/ } @{ $o->{items} || [] };
    return @l ? \@l : undef;
}, 20);
is(scalar(@{ $leases || [] }), 1, 'one kube-apiserver-<id> Lease in kube-system');
my $lease = $leases->[0];
json_subset_ok($lease, { metadata => { labels => { 'k8s.io/component' => 'kube-apiserver',
        'kubernetes.io/hostname' => qr/./ } },
    spec => { holderIdentity => qr/^\Q$lease->{metadata}{name}\E_[0-9a-f-]{36}$/,
        leaseDurationSeconds => 3600,
        renewTime => qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/ } },
    'the identity Lease: labels, holder, duration and a MicroTime renewal');
ok(wait_until(sub {
    my (undef, $o) = $s->call('GET',
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$lease->{metadata}{name}");
    return ($o->{spec}{renewTime} // '') ne $lease->{spec}{renewTime};
}, 25), '... renewed');

my ($cst, $cm) = $s->call('GET',
    '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
is($cst, 200, 'the extension-apiserver-authentication ConfigMap is made');
is($cm->{data}{'client-ca-file'}, slurp(cert_dir() . '/ca.crt'),
    '... client-ca-file holds ssl_client_certificate');
ok(!exists $cm->{data}{'requestheader-client-ca-file'}, '... and no request-header keys without one');

# The kind the slices are: kube's validation.
my $es = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
($st, $o) = $s->call('POST', $es, { metadata => { name => 'e1' },
    endpoints => [ { addresses => ['1.2.3.4'] } ], ports => [ { port => 80 } ] });
invalid_ok($st, $o, 'EndpointSlice.discovery.k8s.io "e1" is invalid: addressType: Required value',
    'an EndpointSlice without addressType');
($st, $o) = $s->call('POST', $es, { metadata => { name => 'e2' }, addressType => 'IPv9',
    endpoints => [] });
invalid_ok($st, $o, 'EndpointSlice.discovery.k8s.io "e2" is invalid: addressType: Unsupported value: '
    . '"IPv9": supported values: "FQDN", "IPv4", "IPv6"', 'an unknown addressType');
my $label = q{a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', }
    . q{and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', }
    . q{regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')};
($st, $o) = $s->call('POST', $es, { metadata => { name => 'e3' }, addressType => 'IPv4',
    endpoints => [ { addresses => [] }, { addresses => ['bogus'] } ],
    ports => [ { name => 'Bad_', port => 0 }, { name => 'a', port => 80 }, { name => 'a', port => 81 } ] });
invalid_ok($st, $o, 'EndpointSlice.discovery.k8s.io "e3" is invalid: [endpoints[0].addresses: Required '
    . 'value: must contain at least 1 address, endpoints[1].addresses[0]: Invalid value: "bogus": must '
    . 'be a valid IPv4 address, endpoints[1].addresses[0]: Invalid value: "bogus": must be a valid IP '
    . qq{address, ports[0].name: Invalid value: "Bad_": $label, ports[2].name: Duplicate value: "a"]},
    'bad endpoints and ports');
($st, $o) = $s->call('POST', $es, { metadata => { name => 'e4' }, addressType => 'IPv4',
    endpoints => [ { addresses => ['1.2.3.4'], hostname => 'Bad_H' } ],
    ports => [ { name => 'a', port => 80, protocol => 'XX' } ] });
invalid_ok($st, $o, qq{EndpointSlice.discovery.k8s.io "e4" is invalid: [endpoints[0].hostname: Invalid }
    . qq{value: "Bad_H": $label, ports[0].protocol: Unsupported value: "XX": supported values: }
    . q{"SCTP", "TCP", "UDP"]}, 'a bad hostname and protocol');
($st, $o) = $s->call('POST', $es, { metadata => { name => 'e5' }, addressType => 'IPv4',
    endpoints => [ { addresses => ['1.2.3.4'] } ], ports => [ { port => 80 } ] });
is($st, 201, 'a valid EndpointSlice: 201');
is_deeply($o->{ports}, [ { name => '', protocol => 'TCP', port => 80 } ],
    'its port defaults to name "" and TCP');
$s->call('DELETE', "$es/e5");

# --- ClusterIPs ---------------------------------------------------------------------------
($st, $o, $raw) = create('a');
is($st, 201, 'a ClusterIP service: 201') or diag($raw->{body});
like($o->{spec}{clusterIP}, $range, 'a ClusterIP from the range, not the kubernetes one');
is_deeply($o->{spec}{clusterIPs}, [ $o->{spec}{clusterIP} ], 'clusterIPs holds it');
is_deeply($o->{spec}{ipFamilies}, ['IPv4'], 'ipFamilies defaulted to IPv4');
is($o->{spec}{ipFamilyPolicy}, 'SingleStack', 'ipFamilyPolicy defaulted to SingleStack');
my $a_ip = $o->{spec}{clusterIP};
my $ipaddresses = '/apis/networking.k8s.io/v1/ipaddresses';
sub parent_of {
    my ($st, $o) = $s->call('GET', "$ipaddresses/$_[0]");
    return $st == 200 ? $o->{spec}{parentRef} : undef;
}
is_deeply(parent_of($a_ip), { resource => 'services', namespace => $ns, name => 'a' },
    "its IPAddress names the Service");

($st, $o) = create('taken', clusterIP => $a_ip);
invalid_ok($st, $o, qq{Service "taken" is invalid: spec.clusterIPs: Invalid value: }
    . qq{[]string{"$a_ip"}: failed to allocate IP $a_ip: provided IP is already allocated},
    'a taken ClusterIP');
($st, $o) = create('outside', clusterIP => '10.97.0.5');
invalid_ok($st, $o, q{Service "outside" is invalid: spec.clusterIPs: Invalid value: }
    . q{[]string{"10.97.0.5"}: failed to allocate IP 10.97.0.5: the provided IP (10.97.0.5) }
    . q{is not in the valid range. The range of valid IPs is 10.96.0.0/29},
    'a ClusterIP outside the range');
($st, $o) = create('broadcast', clusterIP => '10.96.0.7');
is($st, 422, 'the broadcast address is outside the range: 422');
($st, $o) = create('bogus', clusterIP => 'bogus');
invalid_ok($st, $o, q{Service "bogus" is invalid: spec.clusterIPs[0]: Invalid value: "bogus": }
    . q{must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)}, 'a ClusterIP that is no IP');
($st, $o) = create('v6', clusterIP => 'fd00::5');
invalid_ok($st, $o, q{Service "v6" is invalid: spec.clusterIPs[0]: Invalid value: }
    . q{[]string{"fd00::5"}: IPv6 is not configured on this cluster}, 'an IPv6 ClusterIP');
($st, $o) = create('dual', ipFamilyPolicy => 'RequireDualStack');
invalid_ok($st, $o, q{Service "dual" is invalid: spec.ipFamilyPolicy: Invalid value: }
    . q{"RequireDualStack": this cluster is not configured for dual-stack services},
    'RequireDualStack');
($st, $o) = create('fam6', ipFamilies => ['IPv6']);
invalid_ok($st, $o, q{Service "fam6" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": }
    . q{not configured on this cluster}, 'ipFamilies IPv6');
($st, $o) = create('mismatch', clusterIP => '10.96.0.3', clusterIPs => ['10.96.0.4']);
invalid_ok($st, $o, q{Service "mismatch" is invalid: spec.clusterIPs: Invalid value: }
    . q{[]string{"10.96.0.4"}: first value must match `clusterIP`}, 'clusterIPs[0] != clusterIP');

($st, $o) = create('prefer', ipFamilyPolicy => 'PreferDualStack');
is($st, 201, 'PreferDualStack: 201');
is_deeply($o->{spec}{ipFamilies}, ['IPv4'], 'PreferDualStack: one family on this cluster');
($st, $o) = create('headless', clusterIP => 'None');
is($st, 201, 'a headless service: 201');
is_deeply($o->{spec}{clusterIPs}, ['None'], 'headless: clusterIPs None');
is_deeply($o->{spec}{ipFamilies}, [ 'IPv4', 'IPv6' ], 'headless, selectorless: both families');
is($o->{spec}{ipFamilyPolicy}, 'RequireDualStack', 'headless, selectorless: RequireDualStack');
($st, $o) = create('headless-sel', clusterIP => 'None', selector => { app => 'x' });
is_deeply($o->{spec}{ipFamilies}, ['IPv4'], 'headless with a selector: IPv4');
is($o->{spec}{ipFamilyPolicy}, 'SingleStack', 'headless with a selector: SingleStack');
($st, $o) = create('ext', type => 'ExternalName', externalName => 'x.example.com', ports => []);
is($st, 201, 'an ExternalName service: 201');
ok(!exists $o->{spec}{clusterIP} && !exists $o->{spec}{ipFamilies},
    'an ExternalName service gets no ClusterIP and no families');

# --- node ports ---------------------------------------------------------------------------
($st, $o) = create('np', type => 'NodePort', ports => [ { port => 80, nodePort => 30000 } ]);
is($st, 201, 'a NodePort service asking for 30000: 201');
is($o->{spec}{ports}[0]{nodePort}, 30000, '... gets it');
my $np_ip = $o->{spec}{clusterIP};
($st, $o) = create('np2', type => 'NodePort', ports => [ { port => 80, nodePort => 30000 } ]);
invalid_ok($st, $o, q{Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30000: }
    . q{provided port is already allocated}, 'a taken node port');
($st, $o) = create('np3', type => 'NodePort', ports => [ { port => 80, nodePort => 80 } ]);
invalid_ok($st, $o, q{Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 80: }
    . q{provided port is not in the valid range. The range of valid ports is 30000-30002},
    'a node port outside the range');
($st, $o) = create('cip', ports => [ { port => 80, nodePort => 30001 } ]);
invalid_ok($st, $o, q{Service "cip" is invalid: spec.ports[0].nodePort: Forbidden: }
    . q{may not be used when `type` is 'ClusterIP'}, 'a node port on a ClusterIP service');
($st, $o) = create('lb', type => 'LoadBalancer', ports => [ { name => 'a', port => 80 },
    { name => 'b', port => 80, protocol => 'UDP' } ]);
is($st, 201, 'a LoadBalancer with TCP and UDP on port 80: 201');
my $lb_port = $o->{spec}{ports}[0]{nodePort};
ok($lb_port == 30001 || $lb_port == 30002, 'one node port from the range');
is($o->{spec}{ports}[1]{nodePort}, $lb_port, '... shared by both protocols, as kube does');

# The IP range is full now (kubernetes, a, prefer, np, lb and one more).
($st, $o) = create('last');
is($st, 201, 'the last address: 201');
(undef, $o) = $s->call('GET', $ipaddresses);
is(scalar(grep { ($_->{metadata}{labels}{'ipaddress.kubernetes.io/managed-by'} // '')
        eq 'ipallocator.k8s.io' } @{ $o->{items} }), 6, 'six IPAddresses for the six addresses');
($st, $o) = create('full');
is($st, 500, 'an exhausted IP range: 500');
is($o->{message}, 'Internal error occurred: failed to allocate a serviceIP: range is full',
    "... kube's message");
($st, $o) = create('full-np', type => 'NodePort');
is($st, 500, 'a NodePort service when no IP is left: 500');
($st, $o) = create('full-np', type => 'NodePort', clusterIP => $a_ip);
is($st, 422, '... and asking for a taken one: 422');

# --- release ------------------------------------------------------------------------------
($st) = $s->call('DELETE', "$path/a");
is($st, 200, 'delete a');
($st, $o) = create('again', clusterIP => $a_ip, type => 'NodePort');
is($st, 201, "a's ClusterIP is free again: 201");
is(parent_of($a_ip)->{name}, 'again', '... its IPAddress now names the new Service');
my $again_port = $o->{spec}{ports}[0]{nodePort};
ok($again_port && $again_port != 30000 && $again_port != $lb_port,
    'the last node port goes to it');
($st, $o) = create('np-full', type => 'NodePort', clusterIP => 'None');
is($st, 500, 'an exhausted node port range: 500');
is($o->{message}, 'Internal error occurred: failed to allocate a nodePort: range is full',
    "... kube's message");

# NodePort -> ClusterIP: the node port goes back.
($st, $o, $raw) = $s->patch('merge', "$path/np", { spec => { type => 'ClusterIP' } });
is($st, 200, 'NodePort to ClusterIP: 200') or diag($raw->{body});
ok(!exists $o->{spec}{ports}[0]{nodePort}, '... the node port is dropped');
is($o->{spec}{clusterIP}, $np_ip, '... the ClusterIP stays');
($st, $o) = create('np4', type => 'NodePort', clusterIP => 'None',
    ports => [ { port => 80, nodePort => 30000 } ]);
is($st, 201, '30000 is free again: 201');

# ClusterIP -> ExternalName: the ClusterIP goes back.
($st, $o, $raw) = $s->patch('merge', "$path/np",
    { spec => { type => 'ExternalName', externalName => 'y.example.com' } });
is($st, 200, 'ClusterIP to ExternalName: 200') or diag($raw->{body});
ok(!exists $o->{spec}{clusterIP}, '... the ClusterIP is dropped');
is(parent_of($np_ip), undef, '... and its IPAddress');
($st, $o) = create('np-ip', clusterIP => $np_ip);
is($st, 201, "np's old ClusterIP is free again: 201");

# --- kubectl ------------------------------------------------------------------------------
$out = $s->kc_ok(undef, 'get svc', 'get', 'svc', '-n', $ns, 'again', 'np4', 'ext');
like($out, qr{^again\s+NodePort\s+\Q$a_ip\E\s+<none>\s+80:$again_port/TCP\s+\S+$}m,
    'kubectl get svc: the NodePort service');
like($out, qr{^np4\s+NodePort\s+None\s+<none>\s+80:30000/TCP\s+\S+$}m,
    'kubectl get svc: the headless NodePort service');
like($out, qr{^ext\s+ExternalName\s+<none>\s+x\.example\.com\s+<none>\s+\S+$}m,
    'kubectl get svc: the ExternalName service');

# --- every worker, and a restart, agree -----------------------------------------------------
ok($s->restart, 'restarted');
($st, $o) = create('after', clusterIP => $a_ip);
is($st, 422, 'after a restart the ClusterIP is still taken: 422');
($st, $o) = create('after2');
is($st, 500, 'after a restart the range is still full');
$s->kc_ok(undef, 'delete namespace', 'delete', 'namespace', $ns, '--wait=true',
    { timeout => 60 });
my $free;
for (1 .. 50) {
    ($st, $o) = create_in('default', 'after3', clusterIP => $a_ip);
    last if ($free = $st == 201);
    select(undef, undef, undef, 0.2);
}
ok($free, "deleting the namespace released its services' ClusterIPs");
(undef, $o) = $s->call('GET', $ipaddresses);
is_deeply([ grep { $_->{spec}{parentRef}{namespace} eq $ns } @{ $o->{items} } ], [],
    '... and their IPAddresses');
$s->call('DELETE', '/api/v1/namespaces/default/services/after3');

sub create_in {
    my ($in, $name, %spec) = @_;
    return $s->call('POST', "/api/v1/namespaces/$in/services", svc($name, %spec));
}

$s->fatal_free_ok($s->error_log_since_start, 'no alert in the error log');
done_testing();
