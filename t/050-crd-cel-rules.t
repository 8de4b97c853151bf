# The x-kubernetes-validations rules of a CustomResourceDefinition: a CRD
# whose rules do not compile, are not bool or cost more than kube's budgets
# (per rule, times how often its node can occur, and for the whole schema)
# is refused with kube-apiserver 1.26.5's 422 (recorded from it), and nothing
# is stored; rules of the shapes real CRDs use (escaped property names,
# map lists, bounded quadratic checks) are accepted. Evaluating rules over
# custom resources is tested in t/unit/test_cel_rules.cpp.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

# A CRD of group h-cel.example.com whose versions v1, v2, ... have these
# schemas (YAML), the first one stored.
sub cel_crd {
    my ($kind, @schemas) = @_;
    return crd_yaml(group => 'h-cel.example.com', kind => $kind,
        versions => [ map { +{ name => 'v' . ($_ + 1), schema => \$schemas[$_] } } 0 .. $#schemas ]);
}

my $tail = ' (try simplifying the rule, or adding maxItems, maxProperties, and maxLength '
    . 'where arrays, maps, and strings are declared)';
my $at = 'spec.validation.openAPIV3Schema';
my $rules = "$at.properties[spec].x-kubernetes-validations";

# --- rules that do not compile, are not bool, or cost too much
my $bad = cel_crd('Gadget', <<'S');
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer}
      tags: {type: array, items: {type: string}}
    x-kubernetes-validations:
    - rule: self.replicas >= 0 && self.nope
    - rule: self.replicas
      message: replicas
    - rule: self.tags.all(a, self.tags.all(b, a != b || a == b))
S
$s->kc_fails(undef, 'create -f a CRD with bad rules',
    qq~The CustomResourceDefinition "gadgets.h-cel.example.com" is invalid: \n~
    . qq~* $rules\[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replicas >= 0 ~
    . qq~&& self.nope", Message:""}: compilation failed: ERROR: <input>:1:27: undefined field ~
    . qq~'nope'\n | self.replicas >= 0 && self.nope\n | ..........................^\n~
    . qq~* $rules\[1].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replicas", ~
    . qq~Message:"replicas"}: cel expression must evaluate to a bool\n~
    . qq~* $rules\[2].rule: Forbidden: estimated rule cost exceeds budget by factor of more than ~
    . qq~100x$tail\n~
    . qq~* $rules\[2].rule: Forbidden: contributed to estimated rule cost total exceeding cost ~
    . qq~limit for entire OpenAPIv3 schema\n~
    . qq~* $at: Forbidden: x-kubernetes-validations estimated rule cost total for entire ~
    . qq~OpenAPIv3 schema exceeds budget by factor of more than 100x$tail~,
    'create', '-f', '-', { stdin => $bad });
my ($st) = $s->call('GET', "$crds/gadgets.h-cel.example.com");
is($st, 404, 'the refused CRD is not stored');

# The same over HTTP: the Status and its causes.
my $bad_json = $s->kc_ok(undef, 'the CRD as JSON', 'create', '--dry-run=client', '-o', 'json',
    '-f', '-', { stdin => $bad });
($st, my $status) = $s->call('POST', $crds, $bad_json);
is($st, 422, 'POST: 422');
json_subset_ok($status, { kind => 'Status', reason => 'Invalid', code => 422,
    details => { name => 'gadgets.h-cel.example.com', group => 'apiextensions.k8s.io',
        kind => 'CustomResourceDefinition', causes => [
        { reason => 'FieldValueInvalid', field => "$rules\[0].rule" },
        { reason => 'FieldValueInvalid', field => "$rules\[1].rule",
          message => 'Invalid value: apiextensions.ValidationRule{Rule:"self.replicas", '
              . 'Message:"replicas"}: cel expression must evaluate to a bool' },
        { reason => 'FieldValueForbidden', field => "$rules\[2].rule",
          message => "Forbidden: estimated rule cost exceeds budget by factor of more than 100x$tail" },
        { reason => 'FieldValueForbidden', field => "$rules\[2].rule" },
        { reason => 'FieldValueForbidden', field => $at } ] } },
    'POST: kube\'s Status, a cause per problem');

# --- versions with their own schemas: the error names the version
my $escaped = <<'S';
type: object
properties:
  spec:
    type: object
    properties:
      x-y: {type: string, maxLength: 10}
    x-kubernetes-validations:
    - rule: self.x__dash__y != 'a'
S
(my $unescaped = $escaped) =~ s/self\.x__dash__y/self.x-y/;
$unescaped =~ s/maxLength: 10/maxLength: 11/;
$s->kc_fails(undef, 'create -f a CRD whose second version names x-y unescaped',
    qq~The CustomResourceDefinition "gizmos.h-cel.example.com" is invalid: spec.versions[1].~
    . qq~schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ~
    . qq~apiextensions.ValidationRule{Rule:"self.x-y != 'a'", Message:""}: compilation failed: ~
    . qq~ERROR: <input>:1:5: undefined field 'x'\n | self.x-y != 'a'\n | ....^\n~
    . qq~ERROR: <input>:1:8: undeclared reference to 'y' (in container '')\n~
    . qq~ | self.x-y != 'a'\n | .......^~,
    'create', '-f', '-', { stdin => cel_crd('Gizmo', $escaped, $unescaped) });

# --- rules of the shapes real CRDs use are accepted
my $good = cel_crd('Route', <<'S');
type: object
properties:
  spec:
    type: object
    properties:
      namespace: {type: string, maxLength: 63}
      x-y: {type: string, maxLength: 10}
      listeners:
        type: array
        maxItems: 64
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name, port]
          properties:
            name: {type: string, maxLength: 253}
            hostname: {type: string, maxLength: 253}
            port: {type: integer}
            protocol: {type: string, maxLength: 255}
          x-kubernetes-validations:
          - rule: self.port == oldSelf.port
            message: port is immutable
        x-kubernetes-validations:
        - rule: self.all(l1, self.exists_one(l2, l1.name == l2.name))
        - rule: "self.all(l, l.protocol in ['TCP', 'UDP'] ? (!has(l.hostname) || l.hostname == '') : true)"
      labels:
        type: object
        additionalProperties: {type: string}
        x-kubernetes-validations:
        - rule: self.all(k, !k.startsWith('h-cel.example.com/'))
    x-kubernetes-validations:
    - rule: "!has(self.__namespace__) || self.__namespace__ != 'kube-system'"
    - rule: "!has(self.x__dash__y) || self.x__dash__y.matches('^[a-z]+$')"
S
my ($out) = $s->kc_ok(undef, 'create -f a CRD with Gateway-shaped rules', 'create', '-f', '-',
    { stdin => $good });
is($out, "customresourcedefinition.apiextensions.k8s.io/routes.h-cel.example.com created\n",
    'the CRD with rules is created');

# Adding an unbounded quadratic rule on update is refused the same way.
(undef, my $got) = $s->call('GET', "$crds/routes.h-cel.example.com");
my $spec = $got->{spec}{versions}[0]{schema}{openAPIV3Schema}{properties}{spec};
push @{ $spec->{properties}{labels}{'x-kubernetes-validations'} },
    { rule => "self.all(a, self.all(b, a == b || self[a] != self[b]))" };
($st, $status) = $s->call('PUT', "$crds/routes.h-cel.example.com", $got);
is($st, 422, 'PUT with an unbounded quadratic rule: 422');
is($status->{details}{causes}[0]{field},
    "$at.properties[spec].properties[labels].x-kubernetes-validations[1].rule",
    '... at the new rule');
like($status->{details}{causes}[0]{message},
    qr/^Forbidden: estimated rule cost exceeds budget by factor of more than 100x/,
    '... with kube\'s cost message');

my @bad = grep { /\[(?:alert|error|emerg|crit)\]/ } split /\n/, $s->error_log_since_start;
ok(!@bad, 'no [alert] or [error] logged') or diag(join "\n", @bad);
done_testing();
