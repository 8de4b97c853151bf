# admissionregistration.k8s.io/v1 and apiregistration.k8s.io/v1 with kubectl: webhook
# configurations created and listed as kube-apiserver 1.26.5 lists them (NAME WEBHOOKS AGE),
# refused with its 422 and field paths; a ValidatingAdmissionPolicy and its binding (kube 1.33)
# whose CEL does not compile refused; the Warning a write gets while a registered webhook or bound
# policy would have matched it (webhooks are not called, policies not evaluated, yet); and the
# local APIServices kube's aggregator lists, kept in step as a CRD's group/version comes and goes.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $adm = '/apis/admissionregistration.k8s.io/v1';
$s->create_namespace('h-admreg');

# --- discovery as kubectl api-resources shows it
my $resources = $s->kc_ok(undef, undef, 'api-resources');
for my $line (
    [ 'mutatingwebhookconfigurations', 'admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration' ],
    [ 'validatingwebhookconfigurations', 'admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration' ],
    [ 'validatingadmissionpolicies', 'admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy' ],
    [ 'validatingadmissionpolicybindings', 'admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding' ],
    [ 'apiservices', 'apiregistration.k8s.io/v1', 'APIService' ],
) {
    my ($name, $gv, $kind) = @$line;
    like($resources, qr{^\Q$name\E +\Q$gv\E +false +\Q$kind\E$}m,
        "api-resources lists $name without a short name");
}

# --- a webhook configuration: created, defaulted, listed
my $hook = <<'Y';
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: h-admreg-hook}
webhooks:
- name: cm.admreg.example.com
  clientConfig: {url: "https://hooks.example.com/validate"}
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
  sideEffects: None
  admissionReviewVersions: [v1]
Y
$s->kc_ok(undef, 'create a validating webhook configuration', 'create', '-f', '-', { stdin => $hook });
like($s->kc_ok(undef, undef, 'get', 'validatingwebhookconfigurations'),
    qr/\ANAME +WEBHOOKS +AGE\nh-admreg-hook +1 +\d+s\n\z/, 'kubectl get shows NAME WEBHOOKS AGE');
my $stored = $s->get_json("$adm/validatingwebhookconfigurations/h-admreg-hook");
is_deeply([ @{ $stored->{webhooks}[0] }{qw(failurePolicy matchPolicy timeoutSeconds)} ],
    [ 'Fail', 'Equivalent', 10 ], '... with kube\'s defaults');
is($stored->{webhooks}[0]{rules}[0]{scope}, '*', '... and the rule\'s scope');

# --- bad configurations: kube 1.26.5's 422 and field paths
my ($st, $o) = $s->call(POST => "$adm/mutatingwebhookconfigurations", {
    metadata => { name => 'bad' },
    webhooks => [
        { name => 'nodots', clientConfig => { url => 'ftp://user@x/y' }, sideEffects => 'Some',
          timeoutSeconds => 31, admissionReviewVersions => ['v2'] },
        { name => 'b.example.com', clientConfig => {}, admissionReviewVersions => [],
          rules => [ { operations => [], apiGroups => [], apiVersions => [], resources => [] } ] },
    ] });
is($st, 422, 'an invalid mutating webhook configuration: 422');
is($o->{message}, 'MutatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: ['
    . 'webhooks[0].name: Invalid value: "nodots": should be a domain with at least three segments '
    . 'separated by dots, webhooks[0].sideEffects: Unsupported value: "Some": supported values: '
    . '"None", "NoneOnDryRun", webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value '
    . 'must be between 1 and 30 seconds, webhooks[0].clientConfig.url: Invalid value: "ftp": '
    . '\'https\' is the only allowed URL scheme; desired format: https://host[/path], '
    . 'webhooks[0].clientConfig.url: Invalid value: "user": user information is not permitted in '
    . 'the URL, webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include '
    . 'at least one of v1, v1beta1, webhooks[1].rules[0].operations: Required value, '
    . 'webhooks[1].rules[0].apiGroups: Required value, webhooks[1].rules[0].apiVersions: Required '
    . 'value, webhooks[1].rules[0].resources: Required value, webhooks[1].sideEffects: Required '
    . 'value: must specify one of None, NoneOnDryRun, webhooks[1].clientConfig: Required value: '
    . 'exactly one of url or service is required, webhooks[1].admissionReviewVersions: Required '
    . 'value: must specify one of v1, v1beta1]', '... with kube\'s message');

# --- the Warning a matching write gets
my $r;
($st, $o, $r) = $s->call(POST => '/api/v1/namespaces/h-admreg/configmaps',
    { metadata => { name => 'cm1' } });
is($st, 201, 'a configmap the webhook would have matched is created');
is_deeply(warnings_of($r), [ '299 - "ValidatingWebhookConfiguration \\"h-admreg-hook\\": webhook '
    . '\\"cm.admreg.example.com\\" was not called: this server does not call admission webhooks '
    . 'yet"' ], '... with a Warning saying the webhook was not called');
my (undef, $err) = $s->kc_ok(undef, 'kubectl create configmap', '-n', 'h-admreg', 'create',
    'configmap', 'cm2');
like($err, qr/^Warning: ValidatingWebhookConfiguration "h-admreg-hook": webhook /m,
    '... which kubectl shows');
($st, $o, $r) = $s->call(POST => '/api/v1/namespaces/h-admreg/secrets',
    { metadata => { name => 's1' } });
is_deeply(warnings_of($r), [], 'a secret it does not match gets none');

# --- a ValidatingAdmissionPolicy whose expression does not compile, then one that does
my $policy = {
    metadata => { name => 'h-admreg-policy' },
    spec => {
        matchConstraints => { resourceRules => [ { operations => ['CREATE'], apiGroups => [''],
            apiVersions => ['v1'], resources => ['secrets'] } ] },
        validations => [ { expression => "object.metadata.name.startsWith('s') +" } ] } };
($st, $o) = $s->call(POST => "$adm/validatingadmissionpolicies", $policy);
is($st, 422, 'a policy whose expression does not compile: 422');
like($o->{message}, qr/^ValidatingAdmissionPolicy\.admissionregistration\.k8s\.io "h-admreg-policy" is invalid: spec\.validations\[0\]\.expression: Invalid value: "object\.metadata\.name\.startsWith\('s'\) \+": compilation failed: ERROR: <input>:1:/,
    '... naming the expression as kube does');
$policy->{spec}{validations} = [ { expression => "object.metadata.name.startsWith('s')" } ];
($st, $o) = $s->call(POST => "$adm/validatingadmissionpolicies", $policy);
is($st, 201, 'a policy that compiles is created');
is($o->{spec}{failurePolicy}, 'Fail', '... with failurePolicy Fail');
($st) = $s->call(POST => "$adm/validatingadmissionpolicybindings", {
    metadata => { name => 'h-admreg-binding' },
    spec => { policyName => 'h-admreg-policy', validationActions => ['Deny'] } });
is($st, 201, 'its binding is created');
like($s->kc_ok(undef, undef, 'get', 'validatingadmissionpolicybindings'),
    qr/\ANAME +POLICYNAME +PARAMREF +AGE\nh-admreg-binding +h-admreg-policy +<unset> +\d+s\n\z/,
    'kubectl get shows the binding\'s columns');
ok(wait_until(sub {
    my (undef, undef, $w) = $s->call(POST => '/api/v1/namespaces/h-admreg/secrets',
        { metadata => { generateName => 's-' } });
    grep { /ValidatingAdmissionPolicy \\"h-admreg-policy\\" \(binding \\"h-admreg-binding\\"\) was not evaluated/ }
        @{ warnings_of($w) };
}, 5), 'a secret the bound policy would have checked gets a Warning saying so');

# --- APIServices: the local ones kube's aggregator lists
my $list = $s->kc_ok(undef, undef, 'get', 'apiservices');
like($list, qr/\ANAME +SERVICE +AVAILABLE +AGE\nv1\. +Local +True +\d+s\n/,
    'kubectl get apiservices starts with v1., Local, True');
like($list, qr/^v1\.admissionregistration\.k8s\.io +Local +True /m, '... lists admissionregistration');
unlike($list, qr/apiregistration/, '... and not the aggregator\'s own group');
my $apps = $s->get_json('/apis/apiregistration.k8s.io/v1/apiservices/v1.apps');
is_deeply($apps->{spec}, { group => 'apps', version => 'v1', groupPriorityMinimum => 17800,
    versionPriority => 15 }, 'v1.apps has kube\'s priorities');
is_deeply([ map { @$_{qw(type status reason message)} } @{ $apps->{status}{conditions} } ],
    [ 'Available', 'True', 'Local', 'Local APIServices are always available' ],
    '... and is Available as a local one');
($st, $o) = $s->call(POST => '/apis/apiregistration.k8s.io/v1/apiservices', {
    metadata => { name => 'v1.wrong' },
    spec => { group => 'h-admreg.example.com', version => 'v1', groupPriorityMinimum => 0,
              versionPriority => 10 } });
is($st, 422, 'an invalid APIService: 422');
is($o->{message}, 'APIService.apiregistration.k8s.io "v1.wrong" is invalid: [metadata.name: '
    . 'Invalid value: "v1.wrong": must be `spec.version+"."+spec.group`: '
    . '"v1.h-admreg.example.com", spec.groupPriorityMinimum: Invalid value: 0: must be positive '
    . 'and less than 20000]', '... with kube\'s message');

my $crd = crd_yaml(group => 'h-admreg.example.com', kind => 'Gadget');
my $crdService = '/apis/apiregistration.k8s.io/v1/apiservices/v1.h-admreg.example.com';
$s->kc_ok(undef, 'create a CRD', 'create', '-f', '-', { stdin => $crd });
ok(wait_until(sub { ($s->call(GET => $crdService))[0] == 200 }, 10),
    'its group/version gets a local APIService');
my $gadgets = $s->get_json($crdService);
is_deeply([ $gadgets->{spec}{groupPriorityMinimum}, $gadgets->{spec}{versionPriority},
    $gadgets->{metadata}{labels}{'kube-aggregator.kubernetes.io/automanaged'} ],
    [ 1000, 100, 'true' ], '... with the crd registration controller\'s priorities and label');
$s->kc_ok(undef, 'delete the CRD', 'delete', 'crd', 'gadgets.h-admreg.example.com');
ok(wait_until(sub { ($s->call(GET => $crdService))[0] == 404 }, 10),
    '... and loses it with the definition');

$s->kc_ok(undef, 'delete the webhook configuration', 'delete', 'validatingwebhookconfiguration',
    'h-admreg-hook');
done_testing;
