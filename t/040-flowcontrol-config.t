# API Priority and Fairness's configuration objects: kube's bootstrap
# FlowSchemas and PriorityLevelConfigurations exist after the first start and
# are listed at v1 (kubectl 1.32) and v1beta3 (kubectl 1.27); a FlowSchema
# naming a missing level gets the Dangling condition, which clears when the
# level is created; invalid objects are refused with kube's messages; a
# restart restores a suggested object's spec while it is annotated
# autoupdate-spec "true", leaves it when "false", and recreates a deleted
# mandatory one. Two workers: one maintains, both serve.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1, workers => 2);
my $gv = '/apis/flowcontrol.apiserver.k8s.io';

sub kc {
    my ($version, @args) = @_;
    my ($rc, $out, $err) = kubectl($s, $version, @args, { timeout => 30 });
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    is($rc, 0, "kubectl $version @args") or diag($err);
    return $out;
}

sub get_json {
    my $path = shift;
    my $r = $s->request('GET', $path);
    return $r->{status} == 200 ? decode_json($r->{body}) : undef;
}

sub send_json {
    my ($method, $path, $obj) = @_;
    return $s->request($method, $path, headers => { 'Content-Type' => 'application/json' },
        body => encode_json($obj));
}

sub dangling {
    my $fs = get_json("$gv/v1/flowschemas/$_[0]") or return '';
    my ($c) = grep { $_->{type} eq 'Dangling' } @{ $fs->{status}{conditions} || [] };
    return $c ? "$c->{status} $c->{reason}" : '';
}

# --- bootstrap ----------------------------------------------------------------------------------

ok(wait_until(sub { get_json("$gv/v1/flowschemas/global-default") }, 10), 'bootstrap done');
my $fs = kc('1.32', 'get', 'flowschemas');
like($fs, qr/^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$/m,
    'flowschema columns');
like($fs, qr/^exempt\s+exempt\s+1\s+<none>\s+\S+\s+False$/m, 'exempt row');
like($fs, qr/^kube-system-service-accounts\s+workload-high\s+900\s+ByNamespace\s/m,
    'kube-system-service-accounts row');
for my $name (qw(exempt probes system-leader-election endpoint-controller workload-leader-election
                 system-node-high system-nodes kube-controller-manager kube-scheduler
                 kube-system-service-accounts service-accounts global-default catch-all)) {
    like($fs, qr/^\Q$name\E\s/m, "flowschema $name");
}
my $pl = kc('1.27', 'get', 'prioritylevelconfigurations');
like($pl, qr/^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE$/m,
    'priority level columns');
like($pl, qr/^catch-all\s+Limited\s+5\s+<none>\s+<none>\s+<none>\s/m, 'catch-all row');
like($pl, qr/^workload-low\s+Limited\s+100\s+128\s+6\s+50\s/m, 'workload-low row');
like($pl, qr/^exempt\s+Exempt\s+<none>\s/m, 'exempt row');
is(scalar(() = $pl =~ /^\S+\s+(?:Limited|Exempt)\s/mg), 8, 'eight levels');

my $beta = get_json("$gv/v1beta3/prioritylevelconfigurations/system");
is($beta->{apiVersion}, 'flowcontrol.apiserver.k8s.io/v1beta3', 'read at v1beta3');
is($beta->{metadata}{annotations}{'apf.kubernetes.io/autoupdate-spec'}, 'true', 'annotated');
my $list = get_json("$gv/v1beta3/flowschemas");
is($list->{apiVersion}, 'flowcontrol.apiserver.k8s.io/v1beta3', 'list at v1beta3');
is(get_json("$gv/v1/flowschemas/catch-all")->{apiVersion}, 'flowcontrol.apiserver.k8s.io/v1',
    'read at v1');
ok(wait_until(sub { dangling('catch-all') eq 'False Found' }, 5), 'bootstrap schemas not dangling');

# --- Dangling -----------------------------------------------------------------------------------

my $r = send_json('POST', "$gv/v1beta3/flowschemas", {
    apiVersion => 'flowcontrol.apiserver.k8s.io/v1beta3', kind => 'FlowSchema',
    metadata => { name => 'h-tenant' },
    spec => { priorityLevelConfiguration => { name => 'h-level' },
              distinguisherMethod => { type => 'ByUser' },
              rules => [{ subjects => [{ kind => 'User', user => { name => 'alice' } }],
                          nonResourceRules => [{ verbs => ['*'], nonResourceURLs => ['*'] }] }] } });
is($r->{status}, 201, 'flowschema created at v1beta3');
is(decode_json($r->{body})->{spec}{matchingPrecedence}, 1000, 'matchingPrecedence defaults to 1000');
ok(wait_until(sub { dangling('h-tenant') eq 'True NotFound' }, 5), 'Dangling while the level is missing');
my $msg = (grep { $_->{type} eq 'Dangling' }
    @{ get_json("$gv/v1/flowschemas/h-tenant")->{status}{conditions} })[0]{message};
is($msg, 'This FlowSchema references the PriorityLevelConfiguration object named "h-level" but '
    . 'there is no such object', 'Dangling message');
$r = send_json('POST', "$gv/v1/prioritylevelconfigurations", {
    apiVersion => 'flowcontrol.apiserver.k8s.io/v1', kind => 'PriorityLevelConfiguration',
    metadata => { name => 'h-level' },
    spec => { type => 'Limited', limited => { limitResponse => { type => 'Queue', queuing => {} } } } });
is($r->{status}, 201, 'level created at v1');
is_deeply(decode_json($r->{body})->{spec}{limited},
    { nominalConcurrencyShares => 30, lendablePercent => 0,
      limitResponse => { type => 'Queue', queuing => { queues => 64, handSize => 8, queueLengthLimit => 50 } } },
    'level defaults');
ok(wait_until(sub { dangling('h-tenant') eq 'False Found' }, 5), 'Dangling clears');
like(kc('1.32', 'get', 'flowschema', 'h-tenant'), qr/^h-tenant\s+h-level\s+1000\s+ByUser\s+\S+\s+False$/m,
    'MissingPL False');

# --- validation ---------------------------------------------------------------------------------

$r = send_json('POST', "$gv/v1/flowschemas", {
    metadata => { name => 'h-bad' },
    spec => { matchingPrecedence => 1, priorityLevelConfiguration => { name => '' },
              distinguisherMethod => { type => 'ByFoo' },
              rules => [{ subjects => [{ kind => 'User' }],
                          resourceRules => [{ verbs => ['*', 'get'], apiGroups => [], resources => ['pods'] }],
                          nonResourceRules => [{ verbs => ['get'], nonResourceURLs => ['/x*'] }] }] } });
is($r->{status}, 422, 'invalid flowschema: 422');
my $st = decode_json($r->{body});
is($st->{message}, 'FlowSchema.flowcontrol.apiserver.k8s.io "h-bad" is invalid: ['
    . q{spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1, }
    . q{spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByFoo"}: supported values: "ByNamespace", "ByUser", }
    . q{spec.priorityLevelConfiguration.name: Required value: must reference a priority level, }
    . q{spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User', }
    . q{spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if '*' is present, must not specify other verbs, }
    . q{spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group, }
    . q{spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace, }
    . q{spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/x*": wildcard can only do suffix matching]},
    'kube messages');
$r = send_json('POST', "$gv/v1beta3/prioritylevelconfigurations", {
    metadata => { name => 'h-badpl' },
    spec => { type => 'Limited', limited => { nominalConcurrencyShares => -1, lendablePercent => 101,
              borrowingLimitPercent => -2, limitResponse => { type => 'Reject', queuing => {} } } } });
is($r->{status}, 422, 'invalid level: 422');
is(decode_json($r->{body})->{message},
    'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "h-badpl" is invalid: ['
    . 'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be positive, '
    . 'spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited, '
    . 'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive, '
    . 'spec.limited.borrowingLimitPercent: Invalid value: -2: if specified, must be a non-negative integer]',
    'level messages');
my $ca = get_json("$gv/v1/prioritylevelconfigurations/catch-all");
$ca->{spec}{limited}{nominalConcurrencyShares} = 7;
$r = send_json('PUT', "$gv/v1/prioritylevelconfigurations/catch-all", $ca);
is($r->{status}, 422, 'a mandatory spec cannot change');
like(decode_json($r->{body})->{message}, qr/spec of 'catch-all' must equal the fixed value$/,
    'fixed value message');

# --- restart: the ensurer -----------------------------------------------------------------------

my $low = get_json("$gv/v1/prioritylevelconfigurations/workload-low");
$low->{spec}{limited}{nominalConcurrencyShares} = 7;
is(send_json('PUT', "$gv/v1/prioritylevelconfigurations/workload-low", $low)->{status}, 200,
    'workload-low changed, autoupdate true');
my $lead = get_json("$gv/v1/prioritylevelconfigurations/leader-election");
$lead->{spec}{limited}{nominalConcurrencyShares} = 3;
$lead->{metadata}{annotations}{'apf.kubernetes.io/autoupdate-spec'} = 'false';
is(send_json('PUT', "$gv/v1/prioritylevelconfigurations/leader-election", $lead)->{status}, 200,
    'leader-election changed, autoupdate false');
kc('1.32', 'delete', 'flowschema', 'catch-all');
ok($s->restart, 'restart');
ok(wait_until(sub { get_json("$gv/v1/flowschemas/catch-all") }, 10),
    'a deleted mandatory flowschema is created again');
ok(wait_until(sub { (get_json("$gv/v1/prioritylevelconfigurations/workload-low") || {})
    ->{spec}{limited}{nominalConcurrencyShares} == 100 }, 10), 'autoupdate true: spec restored');
is(get_json("$gv/v1/prioritylevelconfigurations/leader-election")->{spec}{limited}
    {nominalConcurrencyShares}, 3, 'autoupdate false: spec kept');

$s->stop;
done_testing;
