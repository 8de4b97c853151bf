# Table output (meta.k8s.io/v1 and v1beta1) when the Accept header asks for
# it, with the columns kubectl prints, typed cells and PartialObjectMetadata
# rows; plain JSON otherwise.
use lib 't/lib';
use Test::Kube;
use Test::More;
use JSON::PP ();

my $s = start_server(config => "location / { kube_api; kube_anonymous_auth on; }");
my $table = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

$s->call(POST => '/api/v1/namespaces', {metadata => {name => 'tables'}});
my ($st) = $s->call(POST => '/api/v1/namespaces/tables/configmaps',
    {metadata => {name => 'a'}, data => {x => '1', y => '2'}, binaryData => {z => 'AA=='}});
is($st, 201, 'create a configmap');

my ($code, $t) = $s->call(GET => '/api/v1/namespaces/tables/configmaps?limit=500', undef, headers => { Accept => $table });
is($code, 200, 'list as Table');
is($t->{kind}, 'Table', 'kind Table');
is($t->{apiVersion}, 'meta.k8s.io/v1', 'meta.k8s.io/v1, the first choice');
like($t->{metadata}{resourceVersion}, qr/^\d+$/, 'the list resourceVersion');
is_deeply([map { $_->{name} } @{$t->{columnDefinitions}}], [qw(Name Data Age)], 'columns Name Data Age');
is($t->{columnDefinitions}[0]{format}, 'name', 'Name has format name');
is($t->{columnDefinitions}[0]{type}, 'string', 'Name is a string');
is(scalar @{$t->{rows}}, 1, 'one row');
my $cells = $t->{rows}[0]{cells};
is($cells->[0], 'a', 'the Name cell');
ok(!JSON::PP::is_bool($cells->[1]) && $cells->[1] == 3, 'Data counts data and binaryData: 3');
like(JSON::PP::encode_json($t->{rows}[0]{cells}), qr/^\["a",3,"\d+s"\]$/, 'cells are typed JSON: the count is a number, Age a duration');
is($t->{rows}[0]{object}{kind}, 'PartialObjectMetadata', 'row object is PartialObjectMetadata');
is($t->{rows}[0]{object}{metadata}{name}, 'a', '... with the metadata');
ok(!exists $t->{rows}[0]{object}{data}, '... and nothing else');

($code, $t) = $s->call(GET => '/api/v1/namespaces/tables/configmaps?includeObject=None', undef, headers => { Accept => $table });
ok(exists $t->{rows}[0]{object} && !defined $t->{rows}[0]{object}, 'includeObject=None: object is null');
($code, $t) = $s->call(GET => '/api/v1/namespaces/tables/configmaps?includeObject=Object', undef, headers => { Accept => $table });
is_deeply($t->{rows}[0]{object}{data}, {x => '1', y => '2'}, 'includeObject=Object: the full object');

($code, $t) = $s->call(GET => '/api/v1/namespaces/tables/configmaps/a', undef, headers => { Accept => $table });
is($t->{kind}, 'Table', 'a single GET as Table');
is(scalar @{$t->{rows}}, 1, '... has one row');

($code, $t) = $s->call(GET => '/api/v1/namespaces/tables/configmaps/a', undef,
    headers => { Accept => 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
is($t->{apiVersion}, 'meta.k8s.io/v1beta1', 'a v1beta1 Table when only v1beta1 is asked for');

($code, $t) = $s->call(GET => '/api/v1/namespaces/tables/configmaps/nosuch', undef, headers => { Accept => $table });
is($code, 404, 'errors stay Status objects with a Table Accept');
is($t->{kind}, 'Status', '... a Status');

($code, $t) = $s->call(GET => '/api/v1/namespaces', undef, headers => { Accept => $table });
is_deeply([map { $_->{name} } @{$t->{columnDefinitions}}], [qw(Name Status Age)], 'namespaces: Name Status Age');
my ($def) = grep { $_->{cells}[0] eq 'default' } @{$t->{rows}};
is($def->{cells}[1], 'Active', 'default is Active');

$s->call(POST => '/apis/apps/v1/namespaces/tables/deployments', {metadata => {name => 'web'},
    spec => {replicas => 3, selector => {matchLabels => {app => 'web'}},
             template => {metadata => {labels => {app => 'web'}},
                          spec => {containers => [{name => 'nginx', image => 'nginx:1.25'}]}}}});
($code, $t) = $s->call(GET => '/apis/apps/v1/namespaces/tables/deployments', undef, headers => { Accept => $table });
is_deeply([map { $_->{name} } grep { $_->{priority} == 0 } @{$t->{columnDefinitions}}],
    [qw(Name Ready Up-to-date Available Age)], 'deployments: Name Ready Up-to-date Available Age');
is_deeply([map { $_->{name} } grep { $_->{priority} == 1 } @{$t->{columnDefinitions}}],
    [qw(Containers Images Selector)], '... and for -o wide: Containers Images Selector');
is($t->{rows}[0]{cells}[1], '0/3', 'Ready 0/3');
is_deeply([@{$t->{rows}[0]{cells}}[5, 6, 7]], ['nginx', 'nginx:1.25', 'app=web'], 'wide cells');

$s->call(POST => '/api/v1/namespaces/tables/services', {metadata => {name => 'svc'},
    spec => {selector => {app => 'web'}, ports => [{name => 'http', port => 80}, {name => 'https', port => 443, protocol => 'TCP'}]}});
($code, $t) = $s->call(GET => '/api/v1/namespaces/tables/services', undef, headers => { Accept => $table });
is_deeply([map { $_->{name} } grep { $_->{priority} == 0 } @{$t->{columnDefinitions}}],
    ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age'], 'services: kubectl\'s columns');
is($t->{rows}[0]{cells}[4], '80/TCP,443/TCP', 'Port(s) 80/TCP,443/TCP');

($code, $t, my $r) = $s->call(GET => '/api/v1/namespaces/tables/configmaps', undef, headers => { Accept => 'application/json' });
is($t->{kind}, 'ConfigMapList', 'plain JSON when no Table is asked for');

ok($s->stop, 'stopped gracefully');
ok(!$s->fatal_lines($s->error_log_since_start), 'no alert in the error log');
done_testing();
