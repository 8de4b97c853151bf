# apiextensions.k8s.io/v1 CustomResourceDefinitions as a built-in kind:
# created, read, listed (Table: Name and Created At), watched, updated and
# deleted with kubectl and over HTTP; the server's defaults and the status a
# create or an update through the object leaves (kube's strategy: the user's
# status is dropped, the storage version is recorded); the status
# subresource; invalid CRDs answered with kube-apiserver 1.26.5's messages
# (recorded from it); strict decoding inside schemas; and a CRD in protobuf
# as kube-apiserver 1.26.5 wrote it. Custom resources are not served here.
use lib 't/lib';
use Test::Kube;
use Test::More;
use MIME::Base64 ();

my $s = start_server(tls => 1);
my $crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
my $name = 'widgets.h-crd.example.com';

# The widgets CRD as YAML, of group h-crd.example.com unless told otherwise.
sub widgets_yaml {
    my (%o) = @_;
    return crd_yaml(group => 'h-crd.example.com', kind => 'Widget', schema => {
        type => 'object', properties => { spec => { type => 'object',
            'x-kubernetes-preserve-unknown-fields' => JSON::PP::true() } } }, %o);
}

# --- create with kubectl; what the server stored
my ($out) = $s->kc_ok(undef, 'create -f', 'create', '-f', '-',
    { stdin => widgets_yaml() });
is($out, "customresourcedefinition.apiextensions.k8s.io/$name created\n",
    'create -f: kubectl\'s line');

# The owner worker's controllers accept its names and establish it; the
# writes below start from that state.
ok(wait_until(sub {
    my $c = $s->get_json("$crds/$name") || {};
    return grep { $_->{type} eq 'Established' && $_->{status} eq 'True' }
        @{ $c->{status}{conditions} || [] };
}, 5), 'the CRD is Established');
my ($st, $crd) = $s->call('GET', "$crds/$name");
is($st, 200, 'GET the CRD');
json_subset_ok($crd, {
    kind => 'CustomResourceDefinition', apiVersion => 'apiextensions.k8s.io/v1',
    metadata => { name => $name, generation => 1 },
    spec => { group => 'h-crd.example.com', scope => 'Namespaced',
        names => { plural => 'widgets', singular => 'widget', kind => 'Widget',
            listKind => 'WidgetList' },
        conversion => { strategy => 'None' } },
}, 'the defaults: singular, listKind, conversion None');
is_deeply($crd->{status}{storedVersions}, ['v1'], 'status: the storage version is stored');
is_deeply($crd->{status}{acceptedNames}, $crd->{spec}{names},
    'status: the names are accepted (t/049 covers the controllers)');

# --- read with kubectl: names, short names, the default Table
for my $what ([ 'crd', $name ], [ 'crds', $name ],
    [ 'customresourcedefinitions.apiextensions.k8s.io', $name ]) {
    ($out) = $s->kc_ok(undef, "get @$what", 'get', @$what);
    like($out, qr/^NAME\s+CREATED AT\n\Q$name\E\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n\z/,
        "get @$what: kube's default table, Name and Created At");
}
($out) = $s->kc_ok(undef, 'api-resources', 'api-resources', '--api-group=apiextensions.k8s.io');
like($out, qr{^customresourcedefinitions \s+ crd,crds \s+ apiextensions\.k8s\.io/v1 \s+ false
    \s+ CustomResourceDefinition$}mx,
    'api-resources: cluster-scoped, short names crd and crds');
my $r = $s->call('GET', '/apis/apiextensions.k8s.io/v1');
json_subset_ok(json_of($r->{body}), { resources => [
    { name => 'customresourcedefinitions', namespaced => JSON::PP::false(),
      kind => 'CustomResourceDefinition', shortNames => [ 'crd', 'crds' ],
      categories => ['api-extensions'] },
    { name => 'customresourcedefinitions/status', verbs => [ 'get', 'patch', 'update' ] } ] },
    'discovery: the kind, its category and its status subresource');

# --- list and watch
my ($lst, $list);
($lst, $list) = $s->call('GET', $crds);
is($lst, 200, 'list');
is($list->{kind}, 'CustomResourceDefinitionList', 'list kind');
is_deeply([ map { $_->{metadata}{name} } @{ $list->{items} } ], [$name], 'the list holds the CRD');
my $w = $s->watch("$crds?watch=true&resourceVersion=$list->{metadata}{resourceVersion}");
is($w->status, 200, 'watch opens');

# --- update through the object: spec changes bump the generation, the
# user's status is ignored
my $next = { %$crd };
$next->{spec}{versions}[0]{schema}{openAPIV3Schema}{description} = 'a widget';
$next->{status} = { storedVersions => ['v9'], acceptedNames => { plural => 'x', kind => 'X' } };
($st, my $updated) = $s->call('PUT', "$crds/$name", $next);
is($st, 200, 'PUT a spec change');
is($updated->{metadata}{generation}, 2, 'the generation moves with the spec');
is_deeply($updated->{status}, $crd->{status}, 'the status sent with the object is ignored');
my $e = $w->next_event(5);
is($e && $e->{type}, 'MODIFIED', 'the watch sees the update');
is($e && $e->{object}{metadata}{generation}, 2, '... with the new generation');

# --- the status subresource writes only the status
my $status_put = { %$updated, spec => { %{ $updated->{spec} }, scope => 'Cluster' },
    status => { %{ $updated->{status} },
        acceptedNames => { plural => 'widgets', kind => 'Widget' } } };
$status_put->{metadata} = { %{ $updated->{metadata} }, labels => { x => 'y' } };
($st, my $after) = $s->call('PUT', "$crds/$name/status", $status_put);
is($st, 200, 'PUT /status');
is_deeply($after->{status}{acceptedNames}, { plural => 'widgets', kind => 'Widget' },
    '/status: the status is written');
is($after->{spec}{scope}, 'Namespaced', '/status: the spec is not');
ok(!exists $after->{metadata}{labels}, '/status: nor the labels');
is($after->{metadata}{generation}, 2, '/status: the generation stays');
# the naming controller gives back the names the spec asks for
ok(wait_until(sub { ($s->get_json("$crds/$name") || {})->{status}{acceptedNames}{singular} }, 5),
    'the names the spec asks for are accepted again');
$after = $s->get_json("$crds/$name");
($st, my $bad_status) = $s->call('PUT', "$crds/$name/status", { %$after,
    status => { %{ $after->{status} },
        acceptedNames => { plural => 'Bad_Plural', kind => 'Widget' } } });
is($st, 422, '/status: invalid accepted names are 422');
is($bad_status->{details}{causes}[0]{field}, 'status.acceptedNames.plural', '... at their field');

# --- what may not change
($st, my $immutable) = $s->call('PUT', "$crds/$name",
    { %$after, spec => { %{ $after->{spec} }, group => 'other.example.com' } });
is($st, 422, 'changing the group: 422');
is($immutable->{message}, qq{CustomResourceDefinition.apiextensions.k8s.io "$name" is invalid: }
    . 'spec.group: Invalid value: "other.example.com": field is immutable',
    'changing the group: kube\'s message');
($st, my $gone_version) = $s->call('PUT', "$crds/$name", { %$after, spec => { %{ $after->{spec} },
    versions => [ { %{ $after->{spec}{versions}[0] }, name => 'v2' } ] } });
is($st, 422, 'dropping a stored version: 422');
is($gone_version->{message}, qq{CustomResourceDefinition.apiextensions.k8s.io "$name" is invalid: }
    . 'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions',
    'dropping a stored version: kube\'s message');

# --- delete
($out) = $s->kc_ok(undef, 'delete crd', 'delete', 'crd', $name);
is($out, qq{customresourcedefinition.apiextensions.k8s.io "$name" deleted\n},
    'delete: kubectl\'s line');
my @events = $w->drain(1);
is(join(',', map { $_->{type} } @events) =~ s/^(MODIFIED,)+//r, 'DELETED',
    'the watch sees the status updates (the delete marks it), then the deletion');
$s->kc_fails(undef, 'get a deleted CRD', 'Error from server (NotFound): '
    . qq{customresourcedefinitions.apiextensions.k8s.io "$name" not found}, 'get', 'crd', $name);

# --- invalid CRDs: kube-apiserver 1.26.5's messages, nothing stored
$s->kc_fails(undef, 'create -f a CRD with a one-label group and a field without a type',
    qq{The CustomResourceDefinition "widgets.example" is invalid: \n}
    . qq{* spec.group: Invalid value: "example": should be a domain with at least one dot\n}
    . '* spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be '
    . 'empty for specified object fields',
    'create', '-f', '-', { stdin => widgets_yaml(group => 'example',
        schema => { type => 'object', properties => { spec => {} } }) });
my $two_storage = crd(group => 'h.example.com', kind => 'Widget', versions => [ map {
    +{ name => $_, storage => JSON::PP::true(), schema => { type => 'object' } } } qw(v1 v2) ]);
my $version = sub {
    my ($v) = @_;
    return qq|apiextensions.CustomResourceDefinitionVersion{Name:"$v", Served:true, Storage:true, |
        . 'Deprecated:false, DeprecationWarning:(*string)(nil), '
        . 'Schema:(*apiextensions.CustomResourceValidation)(nil), '
        . 'Subresources:(*apiextensions.CustomResourceSubresources)(nil), '
        . 'AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}';
};
($st, my $invalid) = $s->call('POST', $crds, $two_storage);
is($st, 422, 'two storage versions: 422');
json_subset_ok($invalid, { kind => 'Status', reason => 'Invalid', code => 422,
    details => { name => 'widgets.h.example.com', group => 'apiextensions.k8s.io',
        kind => 'CustomResourceDefinition' },
    message => 'CustomResourceDefinition.apiextensions.k8s.io "widgets.h.example.com" is invalid: '
        . '[spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{'
        . $version->('v1') . ', ' . $version->('v2') . '}: must have exactly one version marked '
        . 'as storage version, status.storedVersions: Invalid value: ' . $version->('v2')
        . ': must have the storage version v2]' }, 'two storage versions: kube\'s message');
is($s->call('GET', "$crds/widgets.h.example.com")->{status}, 404, 'nothing stored');

# --- decoding: unknown fields of a schema are reported, except inside the
# schema unions (items, additionalProperties), which kube decodes loosely
my $schema_body = sub {
    my ($schema) = @_;
    return crd(group => 'h-crd.example.com', kind => 'Widget', schema => decode_json($schema));
};
my $cannot = 'CustomResourceDefinition in version "v1" cannot be handled as a '
    . 'CustomResourceDefinition: ';
($st, my $strict) = $s->call('POST', "$crds?fieldValidation=Strict", $schema_body->(
    '{"type":"object","bogus0":1,"properties":{"spec":{"type":"object","bogus1":1,'
    . '"additionalProperties":{"type":"string","bogus2":1}},"list":{"type":"array",'
    . '"items":{"type":"string","bogus3":1}}}}'));
is($st, 400, 'Strict: unknown schema fields are 400');
is($strict->{message}, $cannot . 'strict decoding error: unknown field '
    . '"spec.versions[0].schema.openAPIV3Schema.bogus0", unknown field '
    . '"spec.versions[0].schema.openAPIV3Schema.properties.spec.bogus1"',
    'Strict: kube\'s message, without the fields inside items and additionalProperties');
($st, my $type_error) = $s->call('POST', $crds, $schema_body->(
    '{"type":"object","properties":{"spec":{"type":"object",'
    . '"x-kubernetes-preserve-unknown-fields":"yes"}}}'));
is($st, 400, 'a string for a boolean extension: 400');
is($type_error->{message}, $cannot . 'json: cannot unmarshal string into Go struct field '
    . 'JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties'
    . '.x-kubernetes-preserve-unknown-fields of type bool', '... with Go\'s message');
($st, $type_error) = $s->call('POST', $crds, $schema_body->(
    '{"type":"object","properties":{"spec":{"type":"object","additionalProperties":5}}}'));
is($st, 400, 'a number for additionalProperties: 400');
is($type_error->{message}, $cannot . 'boolean or JSON schema expected', '... with kube\'s message');
($st, $type_error) = $s->call('POST', $crds, $schema_body->(
    '{"type":"object","properties":{"spec":{"type":"object","additionalProperties":{"type":5}}}}'));
is($st, 400, 'a wrong type inside additionalProperties: 400');
is($type_error->{message}, $cannot . 'json: cannot unmarshal number into Go struct field '
    . 'JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.additionalProperties '
    . 'of type string', '... naming the union, as Go does');

# --- protobuf: a CRD as kube-apiserver 1.26.5 wrote it (dryRun create, Accept
# protobuf): two versions, a schema with defaults, enums, int-or-string,
# a list map, CEL rules, additionalProperties true and a schema, the status
# and scale subresources and a printer column
my $PB = 'application/vnd.kubernetes.protobuf';
my $kube_pb = MIME::Base64::decode_base64(join '', qw(
    azhzAAozChdhcGlleHRlbnNpb25zLms4cy5pby92MRIYQ3VzdG9tUmVzb3VyY2VEZWZpbml0aW9uErEMCpgDChlnYWRnZXRz
    LmgtY3JkLmV4YW1wbGUuY29tEgAaACIAKiRlODYzMzk0OC1jZTdkLTQyMzItODgzYy1mNWRkNDkzMGYxNjkyADgBQggIhO2f
    2AYQAFoGCgFhEgFiigG3AgoEY3VybBIGVXBkYXRlGhdhcGlleHRlbnNpb25zLms4cy5pby92MSIICITtn9gGEAAyCEZpZWxk
    c1YxOvcBCvQBeyJmOm1ldGFkYXRhIjp7ImY6bGFiZWxzIjp7Ii4iOnt9LCJmOmEiOnt9fX0sImY6c3BlYyI6eyJmOmNvbnZl
    cnNpb24iOnsiLiI6e30sImY6c3RyYXRlZ3kiOnt9fSwiZjpncm91cCI6e30sImY6bmFtZXMiOnsiZjpjYXRlZ29yaWVzIjp7
    fSwiZjpraW5kIjp7fSwiZjpsaXN0S2luZCI6e30sImY6cGx1cmFsIjp7fSwiZjpzaG9ydE5hbWVzIjp7fSwiZjpzaW5ndWxh
    ciI6e319LCJmOnNjb3BlIjp7fSwiZjp2ZXJzaW9ucyI6e319fUIAEoMJChFoLWNyZC5leGFtcGxlLmNvbRouCgdnYWRnZXRz
    EgZnYWRnZXQaAmdkIgZHYWRnZXQqCkdhZGdldExpc3QyA2FsbCIHQ2x1c3RlcjrzBwoCdjEQARgAIoQHCoEHCgASACIIYSBn
    YWRnZXQqBm9iamVjdDIAOgBQAGAAegCQAQDqAbIFCgRzcGVjEqkFCgASACIAKgZvYmplY3QyADoAUABgAHoAkAEAugEEc2l6
    ZeoBMQoEZnJlZRIpCgASACIAKgZvYmplY3QyADoAUABgAHoAkAEA8gECCAGoAgC4AgDAAgDqAZkBCgVpdGVtcxKPAQoAEgAi
    ACoFYXJyYXkyADoAUABgAHoAkAEAwgFcCloKABIAIgAqBm9iamVjdDIAOgBQAGAAegCQAQC6AQRuYW1l6gEsCgRuYW1lEiQK
    ABIAIgAqBnN0cmluZzIAOgBQAGAAegCQAQCoAgC4AgDAAgCoAgC4AgDAAgCoAgC4AgDAAgDKAgRuYW1l0gIDbWFw6gFZCgZs
    YWJlbHMSTwoAEgAiACoGb2JqZWN0MgA6AFAAYAB6AJABAPIBKAgBEiQKABIAIgAqBnN0cmluZzIAOgBQAGAAegCQAQCoAgC4
    AgDAAgCoAgC4AgDAAgDqAUIKBG1vZGUSOgoAEgAiACoGc3RyaW5nMgA6AFAAYAB6Bl5bYWJdJJABAKIBBQoDImEiogEFCgMi
    YiKoAgC4AgDAAgDqAXUKBHBvcnQSbQoAEgAiACoAMgA6AFAAYAB6AJABANoBJQoAEgAiACoHaW50ZWdlcjIAOgBQAGAAegCQ
    AQCoAgC4AgDAAgDaASQKABIAIgAqBnN0cmluZzIAOgBQAGAAegCQAQCoAgC4AgDAAgCoAgC4AgDAAgHqAS4KA3JhdxInCgAS
    ACIAKgZvYmplY3QyADoAUABgAHoAkAEAqAIAsAIBuAIBwAIA6gFECgRzaXplEjwKABIAIgAqB2ludGVnZXIyADoAQgMKATNJ
    AAAAAAAAJEBQAFkAAAAAAADwP2AAegCQAQCoAgC4AgDAAgCoAgC4AgDAAgDiAhkKDXNlbGYuc2l6ZSA+IDASCHBvc2l0aXZl
    6gGbAQoGc3RhdHVzEpABCgASACIAKgZvYmplY3QyADoAUABgAHoAkAEA6gE2CghyZXBsaWNhcxIqCgASACIAKgdpbnRlZ2Vy
    MgVpbnQzMjoAUABgAHoAkAEAqAIAuAIAwAIA6gEwCghzZWxlY3RvchIkCgASACIAKgZzdHJpbmcyADoAUABgAHoAkAEAqAIA
    uAIAwAIAqAIAuAIAwAIAqAIAuAIAwAIAKjQKABIwCgouc3BlYy5zaXplEhAuc3RhdHVzLnJlcGxpY2FzGhAuc3RhdHVzLnNl
    bGVjdG9yMiIKBFNpemUSB2ludGVnZXIaACIBZCgBMgouc3BlYy5zaXplOAFCBnVzZSB2Mjo1CgJ2MhABGAEiKQonCgASACIA
    KgZvYmplY3QyADoAUABgAHoAkAEAqAIAsAIBuAIAwAIAOABKBgoETm9uZVAAGg4SCAoAEgAiACoAGgJ2MhoAIgA=
));
my $kube_spec = decode_json(<<'JSON');
{
 "group": "h-crd.example.com",
 "names": {
  "plural": "gadgets",
  "singular": "gadget",
  "shortNames": [
   "gd"
  ],
  "kind": "Gadget",
  "listKind": "GadgetList",
  "categories": [
   "all"
  ]
 },
 "scope": "Cluster",
 "versions": [
  {
   "name": "v1",
   "served": true,
   "storage": false,
   "deprecated": true,
   "deprecationWarning": "use v2",
   "schema": {
    "openAPIV3Schema": {
     "description": "a gadget",
     "type": "object",
     "properties": {
      "spec": {
       "type": "object",
       "required": [
        "size"
       ],
       "properties": {
        "free": {
         "type": "object",
         "additionalProperties": true
        },
        "items": {
         "type": "array",
         "items": {
          "type": "object",
          "required": [
           "name"
          ],
          "properties": {
           "name": {
            "type": "string"
           }
          }
         },
         "x-kubernetes-list-map-keys": [
          "name"
         ],
         "x-kubernetes-list-type": "map"
        },
        "labels": {
         "type": "object",
         "additionalProperties": {
          "type": "string"
         }
        },
        "mode": {
         "type": "string",
         "pattern": "^[ab]$",
         "enum": [
          "a",
          "b"
         ]
        },
        "port": {
         "anyOf": [
          {
           "type": "integer"
          },
          {
           "type": "string"
          }
         ],
         "x-kubernetes-int-or-string": true
        },
        "raw": {
         "type": "object",
         "x-kubernetes-preserve-unknown-fields": true,
         "x-kubernetes-embedded-resource": true
        },
        "size": {
         "type": "integer",
         "default": 3,
         "maximum": 10,
         "minimum": 1
        }
       },
       "x-kubernetes-validations": [
        {
         "rule": "self.size > 0",
         "message": "positive"
        }
       ]
      },
      "status": {
       "type": "object",
       "properties": {
        "replicas": {
         "type": "integer",
         "format": "int32"
        },
        "selector": {
         "type": "string"
        }
       }
      }
     }
    }
   },
   "subresources": {
    "status": {},
    "scale": {
     "specReplicasPath": ".spec.size",
     "statusReplicasPath": ".status.replicas",
     "labelSelectorPath": ".status.selector"
    }
   },
   "additionalPrinterColumns": [
    {
     "name": "Size",
     "type": "integer",
     "description": "d",
     "priority": 1,
     "jsonPath": ".spec.size"
    }
   ]
  },
  {
   "name": "v2",
   "served": true,
   "storage": true,
   "schema": {
    "openAPIV3Schema": {
     "type": "object",
     "x-kubernetes-preserve-unknown-fields": true
    }
   }
  }
 ],
 "conversion": {
  "strategy": "None"
 }
}
JSON
my $gadgets = 'gadgets.h-crd.example.com';
$r = $s->call('POST', $crds, $kube_pb, type => $PB, headers => { Accept => $PB });
is($r->{status}, 201, 'a protobuf CRD from kube: 201');
is($r->{headers}{'content-type'}, $PB, '... answered in protobuf');
is(substr($r->{body}, 0, 4), "k8s\0", '... in kube\'s envelope');
($st, my $read) = $s->call('GET', "$crds/$gadgets");
is_deeply($read->{spec}, $kube_spec, 'its spec reads as kube\'s JSON of it');
is_deeply($read->{status}{storedVersions}, ['v2'], 'the storage version is recorded');
# the CRD controller writes its conditions meanwhile: read once they are
# written, so that the PUT below does not race them into a 409
ok(wait_until(sub {
    my $crd = $s->get_json("$crds/$gadgets") || {};
    grep { $_->{type} eq 'Established' && $_->{status} eq 'True' }
        @{ $crd->{status}{conditions} || [] } }, 10), '... established');
$r = $s->call('GET', "$crds/$gadgets", undef, headers => { Accept => $PB });
is($r->{headers}{'content-type'}, $PB, 'GET in protobuf');
$r = $s->call('PUT', "$crds/$gadgets", $r->{body}, type => $PB);
is($r->{status}, 200, 'PUT back what this server wrote in protobuf: 200');
my $put = json_of($r->{body});
is_deeply($put->{spec}, $kube_spec, '... the spec unchanged');
is($put->{metadata}{generation}, 1, '... so the generation stays');
is($s->call('DELETE', "$crds/$gadgets")->{status}, 200, 'delete it');

done_testing();
