# What a custom resource's schema does to it, as kube-apiserver 1.26.5 does
# (every answer below recorded from it with the same definition): defaults
# filled on create, unknown fields pruned (a Warning, or a 400 under
# fieldValidation=Strict, also from kubectl --validate=strict), the OpenAPI
# checks (required, minimum, enum, maxLength, list-type set) with kube's
# messages, x-kubernetes-validations CEL rules (a failed rule's message, a
# transition rule on update, rules skipped after a blocking error), the
# additionalPrinterColumns in kubectl's table (a filter JSONPath, priority 1
# under -o wide) and kubectl explain from the OpenAPI documents. A Webhook
# conversion, which this server cannot call, fails requests at the other
# versions with kube's 500.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $group = 'h-schema.example.com';
my $tanks = "/apis/$group/v1/namespaces/h-schema/tanks";

my $crd = crd_yaml(group => $group, kind => 'Tank', singular => 'tank', versions => [
    { name => 'v1', subresources => { status => {} }, columns => \<<'C', schema => \<<'S' } ]);
- {name: Size, type: integer, jsonPath: .spec.size}
- {name: Color, type: string, jsonPath: .spec.color}
- {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
- {name: Owner, type: string, jsonPath: .spec.owner, priority: 1}
C
        type: object
        description: A tank holds water.
        properties:
          spec:
            type: object
            description: What the tank should be.
            required: [size]
            x-kubernetes-validations:
            - rule: "self.size <= self.max"
              message: size must not exceed max
            - rule: "!has(oldSelf.owner) || (has(self.owner) && self.owner == oldSelf.owner)"
              message: owner is immutable
            properties:
              size: {type: integer, minimum: 1, description: Litres.}
              max: {type: integer, default: 10}
              color: {type: string, enum: [red, blue], default: red}
              owner: {type: string, maxLength: 8}
              tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
          status:
            type: object
            properties:
              conditions:
                type: array
                items: {type: object, properties: {type: {type: string}, status: {type: string}}}
S

$s->create_namespace('h-schema');
$s->kc_ok(undef, 'create the tanks CRD', 'create', '-f', '-', { stdin => $crd });
ok(wait_until(sub { ($s->call(GET => $tanks))[0] == 200 }, 5), 'tanks are served');

sub tank {
    my ($name, $spec) = @_;
    return { apiVersion => "$group/v1", kind => 'Tank', metadata => { name => $name },
        spec => $spec };
}

# --- defaults and pruning
my ($st, $o, $r) = $s->call(POST => $tanks, tank(t1 => { size => 3, owner => 'ann' }));
is($st, 201, 'a tank is created');
is_deeply($o->{spec}, { size => 3, owner => 'ann', max => 10, color => 'red' },
    '... with the defaults of max and color');
($st, $o, $r) = $s->call(POST => $tanks, tank(t8 => { size => 2, bogus => 1 }));
is($st, 201, 'a tank with a field the schema does not know is created');
is_deeply(warnings_of($r), ['299 - "unknown field \\"spec.bogus\\""'], '... with kube\'s warning');
is_deeply($s->get_json("$tanks/t8")->{spec}, { size => 2, max => 10, color => 'red' },
    '... and stored without it');
($st, $o) = $s->call(POST => "$tanks?fieldValidation=Strict",
    tank(t7 => { size => 2, bogus => 1, zzz => {} }));
is($st, 400, 'unknown fields under fieldValidation=Strict: 400');
is($o->{message}, 'Tank in version "v1" cannot be handled as a Tank: strict decoding error: '
    . 'unknown field "spec.bogus", unknown field "spec.zzz"', '... with kube\'s message');
is(($s->call(GET => "$tanks/t7"))[0], 404, '... and nothing stored');
my ($rc, $out, $err) = $s->kc(undef, 'create', '--validate=strict', '-f', '-',
    { stdin => encode_json(tank(t9 => { size => 2, bogus => 1 })) });
isnt($rc, 0, 'kubectl create --validate=strict of an unknown field fails');
like($err, qr/strict decoding error: unknown field "spec\.bogus"/, '... naming it');

# --- the OpenAPI checks and the CEL rules, with kube 1.26.5's messages
my @refused = (
    [ 'a rule fails', { size => 30 },
      'spec: Invalid value: "object": size must not exceed max' ],
    [ 'an enum', { size => 2, color => 'green' },
      '[spec.color: Unsupported value: "green": supported values: "red", "blue", <nil>: Invalid '
      . 'value: "null": some validation rules were not checked because the object was invalid; '
      . 'correct the existing errors to complete validation]' ],
    [ 'a minimum', { size => 0 },
      'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1' ],
    [ 'a required field', { max => 5 },
      '[spec.size: Required value, <nil>: Invalid value: "null": some validation rules were not '
      . 'checked because the object was invalid; correct the existing errors to complete '
      . 'validation]' ],
    [ 'a maxLength', { size => 2, owner => 'abcdefghij' },
      '[spec.owner: Too long: may not be longer than 8, <nil>: Invalid value: "null": some '
      . 'validation rules were not checked because the object was invalid; correct the existing '
      . 'errors to complete validation]' ],
    [ 'a set with a duplicate', { size => 2, tags => [ 'a', 'a' ] },
      'spec.tags[1]: Duplicate value: "a"' ],
);
my $n = 10;
for my $case (@refused) {
    my ($what, $spec, $want) = @$case;
    my $name = 't' . $n++;
    ($st, $o) = $s->call(POST => $tanks, tank($name => $spec));
    is($st, 422, "$what: 422");
    is($o->{message}, qq{Tank.$group "$name" is invalid: $want}, "... $what: kube's message");
}
($st, $o) = $s->call(PATCH => "$tanks/t1", '{"spec":{"owner":"bob"}}',
    type => 'application/merge-patch+json');
is($st, 422, 'a transition rule refuses an update');
is($o->{message}, qq{Tank.$group "t1" is invalid: spec: Invalid value: "object": owner is immutable},
    '... with its message');
($st, $o) = $s->call(PATCH => "$tanks/t1", '{"spec":{"size":4}}',
    type => 'application/merge-patch+json');
is($st, 200, '... and lets another change through');

# --- printer columns and explain
($st) = $s->call(PATCH => "$tanks/t1/status",
    '{"status":{"conditions":[{"type":"Other","status":"False"},{"type":"Ready","status":"True"}]}}',
    type => 'application/merge-patch+json');
is($st, 200, 'the status subresource takes conditions');
is($s->kc_ok(undef, undef, '-n', 'h-schema', 'get', 'tanks'),
    "NAME   SIZE   COLOR   READY\nt1     4      red     True\nt8     2      red     \n",
    'kubectl get shows the printer columns as kube does');
is($s->kc_ok(undef, undef, '-n', 'h-schema', 'get', 'tanks', '-o', 'wide'),
    "NAME   SIZE   COLOR   READY   OWNER\nt1     4      red     True    ann\n"
    . "t8     2      red             \n", '... and the priority-1 column under -o wide');
is($s->kc_ok(undef, undef, 'explain', 'tank.spec'), <<'E', 'kubectl explain reads the schema');
GROUP:      h-schema.example.com
KIND:       Tank
VERSION:    v1

FIELD: spec <Object>


DESCRIPTION:
    What the tank should be.
    
FIELDS:
  color	<string>
  enum: red, blue
    <no description>

  max	<integer>
    <no description>

  owner	<string>
    <no description>

  size	<integer> -required-
    Litres.

  tags	<[]string>
    <no description>


E
like($s->kc_ok('1.27', undef, 'explain', 'tank.spec.size'), qr/FIELD: size <integer>\n\nDESCRIPTION:\n +Litres\./,
    '... and kubectl 1.27 too');

# --- a Webhook conversion: versions other than the storage one answer as
# kube does when the webhook fails (a 500 naming the version converted
# from), the storage version is served; a listKind of its own
my $pipes = crd_yaml(group => $group, kind => 'Pipe', list_kind => 'PipeCollection',
    conversion => \<<'Y', versions => [ { name => 'v1' }, { name => 'v2' } ]);
strategy: Webhook
webhook:
  conversionReviewVersions: [v1]
  clientConfig:
    service: {namespace: default, name: nowhere, path: /convert, port: 443}
Y
$s->kc_ok(undef, 'create the pipes CRD', 'create', '-f', '-', { stdin => $pipes });
my $pipes1 = "/apis/$group/v1/namespaces/h-schema/pipes";
my $pipes2 = "/apis/$group/v2/namespaces/h-schema/pipes";
ok(wait_until(sub { ($s->call(GET => $pipes2))[0] == 500 }, 5), 'pipes are served');
($st) = $s->call(POST => $pipes1, { apiVersion => "$group/v1", kind => 'Pipe',
    metadata => { name => 'p1' }, spec => { a => 1 } });
is($st, 201, 'a pipe is created at the storage version');
($st, $o) = $s->call(GET => "$pipes1/p1");
is("$st $o->{apiVersion}", "200 $group/v1", '... and read there');
is($s->get_json($pipes1)->{kind}, 'PipeCollection', '... listed as its listKind');
my $failed = sub {
    my ($from) = @_;
    return { kind => 'Status', apiVersion => 'v1', metadata => {}, status => 'Failure',
        message => "conversion webhook for $group/$from, Kind=Pipe failed: this server does not "
            . 'call conversion webhooks', code => 500 };
};
($st, $o) = $s->call(GET => "$pipes2/p1");
is($st, 500, 'read at another version: 500');
is_deeply($o, $failed->('v1'), '... kube\'s Status for a failed webhook, from the stored v1');
($st, $o) = $s->call(GET => $pipes2);
is_deeply([ $st, $o ], [ 500, $failed->('v1') ], '... a list too');
($st, $o) = $s->call(POST => $pipes2, { apiVersion => "$group/v2", kind => 'Pipe',
    metadata => { name => 'p2' } });
is_deeply([ $st, $o ], [ 500, $failed->('v2') ], '... a create at v2 names v2');
is(($s->call(GET => "$pipes1/p2"))[0], 404, '... and stores nothing');

done_testing;
