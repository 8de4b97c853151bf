# Server-side apply on custom resources, typed by the CRD version's
# structural schema as kube-apiserver 1.26 types them: kubectl 1.32 and 1.27
# apply --server-side creates and changes a custom resource; another manager
# gets kube's 409 and its conflict message, --force-conflicts takes the
# fields; a list-map (x-kubernetes-list-map-keys name,protocol with a key
# default) merges by its keys, a set by its values, an atomic list and an
# x-kubernetes-map-type atomic object are owned whole, a map of
# additionalProperties per key, x-kubernetes-preserve-unknown-fields nodes
# are deduced; managedFields (FieldsV1 as kube writes it) on apply, create,
# replace, merge and JSON patches, and the status subresource; metadata is
# an ObjectMeta (finalizers a set, ownerReferences keyed by uid) also under a
# root that keeps unknown fields; duplicate keys are refused.
# The expected managedFields were recorded from kube-apiserver 1.26.5.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $group = 'h-crapply.example.com';
my $ns = 'crapply';
my $widgets = "/apis/$group/v1/namespaces/$ns/widgets";
my $blobs = "/apis/$group/v1/namespaces/$ns/blobs";

$s->create_namespace($ns);
my $crds = spew('crds.yaml', crd_yaml(group => $group, kind => 'Widget', singular => 'widget',
        versions => [ { name => 'v1', subresources => { status => {} }, schema => \<<'Y' } ])
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              color: {type: string}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name, protocol]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    protocol: {type: string, default: TCP}
                    port: {type: integer}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              args:
                type: array
                items: {type: string}
              labels:
                type: object
                additionalProperties: {type: string}
              selector:
                type: object
                x-kubernetes-map-type: atomic
                properties:
                  app: {type: string}
                  tier: {type: string}
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              phase: {type: string}
Y
    . "---\n" . crd_yaml(group => $group, kind => 'Blob', singular => 'blob'));
$s->kc_ok(undef, 'the definitions are created', 'apply', '-f', $crds);
ok(wait_until(sub {
    my ($st) = $s->call(GET => $widgets);
    my ($st2) = $s->call(GET => $blobs);
    return $st == 200 && $st2 == 200;
}, 10), 'both kinds are served');

sub widget {
    my ($name, $spec) = @_;
    return spew("$name-" . int(rand(1e9)) . '.yaml', "apiVersion: $group/v1\nkind: Widget\n"
        . "metadata: {name: $name, namespace: $ns}\nspec: $spec\n");
}

sub managers {
    my $path = shift;
    my ($st, $o) = $s->call(GET => $path);
    return { map { ("$_->{manager}/$_->{operation}" . ($_->{subresource} ? "/$_->{subresource}" : ''))
        => $_->{fieldsV1} } @{ $o->{metadata}{managedFields} || [] } };
}

sub spec_of {
    my ($st, $o) = $s->call(GET => $_[0]);
    return $o->{spec};
}

sub port { my ($n, $p) = @_; return qq(k:{"name":"$n","protocol":"$p"}) }

# --- m1 applies: the fields are typed by the schema ------------------------
my $w1 = widget('w1', '{size: 1, color: red, ports: [{name: http, port: 80}, '
    . '{name: dns, protocol: UDP, port: 53}], tags: [a, b], args: [x, z], labels: {k1: v1}, '
    . 'selector: {app: a}, extra: {deep: {x: 1}, list: [1, 2]}}');
my $out = $s->kc_ok(undef, 'apply --server-side creates', 'apply', '--server-side',
    '--field-manager=m1', '-f', $w1);
is($out, "widget.$group/w1 serverside-applied\n", '... and says so');
my $m1 = { 'f:spec' => {
    'f:args' => {}, 'f:color' => {}, 'f:selector' => {}, 'f:size' => {},
    'f:extra' => { 'f:deep' => { '.' => {}, 'f:x' => {} }, 'f:list' => {} },
    'f:labels' => { 'f:k1' => {} },
    'f:ports' => {
        port('dns', 'UDP') => { '.' => {}, 'f:name' => {}, 'f:port' => {}, 'f:protocol' => {} },
        port('http', 'TCP') => { '.' => {}, 'f:name' => {}, 'f:port' => {} } },
    'f:tags' => { 'v:"a"' => {}, 'v:"b"' => {} } } };
is_deeply(managers("$widgets/w1"), { 'm1/Apply' => $m1 },
    'm1 owns list-map items by name and defaulted protocol, set values, map keys; '
    . 'atomic list and map whole; deduced fields granular');
is_deeply(spec_of("$widgets/w1")->{ports},
    [ { name => 'http', port => 80, protocol => 'TCP' }, { name => 'dns', port => 53, protocol => 'UDP' } ],
    'the key default is filled in');

# --- m2 conflicts, then forces ---------------------------------------------
my $w1b = widget('w1', '{color: blue, ports: [{name: https, port: 443}, {name: http, port: 8080}], '
    . 'tags: [c], labels: {k2: v2}, selector: {tier: t}}');
my $conflicts = qq(Apply failed with 3 conflicts: conflicts with "m1":\n- .spec.color\n)
    . qq(- .spec.selector\n- .spec.ports[name="http",protocol="TCP"].port);
for my $v (undef, '1.27') {
    my ($rc, undef, $err) = $s->kc($v, 'apply', '--server-side', '--field-manager=m2', '-f', $w1b);
    my $kv = $v // '1.32';
    is($rc, 1, "kubectl $kv: another manager's apply fails");
    like($err, qr/^error: \Q$conflicts\E\nPlease review the fields above/,
        "kubectl $kv: ... with kube's conflict message");
}
my ($st, $o) = $s->patch(apply => "$widgets/w1?fieldManager=m2",
    '{"apiVersion":"' . $group . '/v1","kind":"Widget","metadata":{"name":"w1"},'
    . '"spec":{"color":"green","ports":[{"name":"http","port":81}]}}');
is($st, 409, 'over HTTP: 409');
is($o->{reason}, 'Conflict', '... reason Conflict');
is($o->{message}, qq(Apply failed with 2 conflicts: conflicts with "m1":\n- .spec.color\n)
    . qq(- .spec.ports[name="http",protocol="TCP"].port), '... kube\'s message');
is_deeply($o->{details}{causes}, [
    { reason => 'FieldManagerConflict', message => 'conflict with "m1"', field => '.spec.color' },
    { reason => 'FieldManagerConflict', message => 'conflict with "m1"',
      field => '.spec.ports[name="http",protocol="TCP"].port' } ], '... and its causes');
is(spec_of("$widgets/w1")->{color}, 'red', '... nothing changed');

$s->kc_ok(undef, '--force-conflicts', 'apply', '--server-side', '--field-manager=m2',
    '--force-conflicts', '-f', $w1b);
is_deeply(spec_of("$widgets/w1"), {
    args => [ 'x', 'z' ], color => 'blue', extra => { deep => { x => 1 }, list => [ 1, 2 ] },
    labels => { k1 => 'v1', k2 => 'v2' },
    ports => [ { name => 'https', port => 443, protocol => 'TCP' },
        { name => 'http', port => 8080, protocol => 'TCP' },
        { name => 'dns', port => 53, protocol => 'UDP' } ],
    selector => { tier => 't' }, size => 1, tags => [ 'a', 'b', 'c' ] },
    'list-map merged by keys, set by values, map per key, atomic object replaced');
my $m2 = { 'f:spec' => { 'f:color' => {}, 'f:selector' => {}, 'f:labels' => { 'f:k2' => {} },
    'f:ports' => { port('http', 'TCP') => { '.' => {}, 'f:name' => {}, 'f:port' => {} },
        port('https', 'TCP') => { '.' => {}, 'f:name' => {}, 'f:port' => {} } },
    'f:tags' => { 'v:"c"' => {} } } };
my $m1after = { 'f:spec' => {
    'f:args' => {}, 'f:size' => {},
    'f:extra' => { 'f:deep' => { '.' => {}, 'f:x' => {} }, 'f:list' => {} },
    'f:labels' => { 'f:k1' => {} },
    'f:ports' => {
        port('dns', 'UDP') => { '.' => {}, 'f:name' => {}, 'f:port' => {}, 'f:protocol' => {} },
        port('http', 'TCP') => { '.' => {}, 'f:name' => {} } },
    'f:tags' => { 'v:"a"' => {}, 'v:"b"' => {} } } };
is_deeply(managers("$widgets/w1"), { 'm1/Apply' => $m1after, 'm2/Apply' => $m2 },
    'the forced fields moved to m2; shared keys stay with both');

# --- m1 applies less: what only it owned goes ------------------------------
my $w1c = widget('w1', '{color: red, ports: [{name: http, port: 80}, '
    . '{name: dns, protocol: UDP, port: 53}], tags: [a]}');
$s->kc_ok('1.27', 'apply of fewer fields', 'apply', '--server-side', '--field-manager=m1',
    '--force-conflicts', '-f', $w1c);
is_deeply(spec_of("$widgets/w1"), {
    color => 'red', labels => { k2 => 'v2' },
    ports => [ { name => 'https', port => 443, protocol => 'TCP' },
        { name => 'http', port => 80, protocol => 'TCP' },
        { name => 'dns', port => 53, protocol => 'UDP' } ],
    selector => { tier => 't' }, tags => [ 'a', 'c' ] },
    'fields m1 alone owned and dropped are removed; the others stay');

# --- Update operations are tracked ------------------------------------------
$s->kc_ok(undef, 'merge patch', 'patch', 'widget', 'w1', '-n', $ns, '--type=merge', '-p',
    '{"spec":{"size":7,"labels":{"k3":"v3"}}}');
$s->kc_ok(undef, 'json patch', 'patch', 'widget', 'w1', '-n', $ns, '--type=json', '-p',
    '[{"op":"add","path":"/spec/tags/-","value":"z"}]');
is_deeply(managers("$widgets/w1")->{'kubectl-patch/Update'},
    { 'f:spec' => { 'f:labels' => { 'f:k3' => {} }, 'f:size' => {}, 'f:tags' => { 'v:"z"' => {} } } },
    'patches are an Update manager owning what they changed');
my $st_yaml = spew('status.yaml', "apiVersion: $group/v1\nkind: Widget\n"
    . "metadata: {name: w1, namespace: $ns}\nstatus: {phase: Ready}\n");
$s->kc_ok(undef, 'apply to the status subresource', 'apply', '--server-side',
    '--field-manager=st', '--subresource=status', '-f', $st_yaml);
is_deeply(managers("$widgets/w1")->{'st/Apply/status'}, { 'f:status' => { 'f:phase' => {} } },
    'the status applier owns the status');

my $w2 = widget('w2', '{size: 2, ports: [{name: p, port: 1}]}');
$s->kc_ok(undef, 'create', 'create', '-f', $w2);
is_deeply(managers("$widgets/w2"), { 'kubectl-create/Update' => { 'f:spec' => {
    '.' => {}, 'f:size' => {},
    'f:ports' => { '.' => {}, port('p', 'TCP') => { '.' => {}, 'f:name' => {}, 'f:port' => {},
        'f:protocol' => {} } } } } }, 'create: kubectl-create owns every field it set');
my $w2obj = $s->kc_json(undef, 'get', 'widget', 'w2', '-n', $ns);
$w2obj->{spec}{size} = 3;
$s->kc_ok(undef, 'replace', 'replace', '-f', spew('w2r.json', encode_json($w2obj)));
is_deeply(managers("$widgets/w2")->{'kubectl-replace/Update'}, { 'f:spec' => { 'f:size' => {} } },
    'replace: kubectl-replace owns what it changed');
$s->kc_fails(undef, 'apply over an updater', 'error: Apply failed with 1 conflict: conflict with '
    . qq("kubectl-replace" using $group/v1: .spec.size\nPlease review the fields above--they )
    . "currently have other managers. Here\nare the ways you can resolve this warning:\n"
    . "* If you intend to manage all of these fields, please re-run the apply\n"
    . "  command with the `--force-conflicts` flag.\n"
    . "* If you do not intend to manage all of the fields, please edit your\n"
    . "  manifest to remove references to the fields that should keep their\n"
    . "  current managers.\n"
    . "* You may co-own fields by updating your manifest to match the existing\n"
    . "  value; in this case, you'll become the manager if the other manager(s)\n"
    . "  stop managing the field (remove it from their configuration).\n"
    . 'See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts',
    'apply', '--server-side', '--field-manager=m3', '-f', $w2);

# --- bad lists ----------------------------------------------------------------
($st, $o) = $s->patch(apply => "$widgets/w3?fieldManager=m",
    qq({"apiVersion":"$group/v1","kind":"Widget","metadata":{"name":"w3"},)
    . '"spec":{"ports":[{"name":"a"},{"name":"a"}]}}');
is($st, 500, 'duplicate list-map keys (one defaulted): refused as kube refuses them');
is($o->{message}, "failed to create typed patch object (/w3; $group/v1, Kind=Widget): "
    . '.spec.ports: duplicate entries for key [name="a",protocol="TCP"]', '... in its words');
($st) = $s->call(GET => "$widgets/w3");
is($st, 404, '... and nothing is created');

# --- a root that keeps unknown fields still has an ObjectMeta ---------------
my $b1 = spew('b1.yaml', "apiVersion: $group/v1\nkind: Blob\nmetadata:\n  name: b1\n"
    . "  namespace: $ns\n  labels: {lx: ly}\n  finalizers: [example.com/f]\n"
    . "  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c, uid: \"1234\"}]\n"
    . "spec: {a: {b: 1}, l: [1, 2]}\ndata: {k: v}\n");
$s->kc_ok(undef, 'apply to a schemaless kind', 'apply', '--server-side', '-f', $b1);
is_deeply(managers("$blobs/b1"), { 'kubectl/Apply' => {
    'f:data' => { '.' => {}, 'f:k' => {} },
    'f:metadata' => { 'f:finalizers' => { 'v:"example.com/f"' => {} }, 'f:labels' => { 'f:lx' => {} },
        'f:ownerReferences' => { 'k:{"uid":"1234"}' => {} } },
    'f:spec' => { '.' => {}, 'f:a' => { '.' => {}, 'f:b' => {} }, 'f:l' => {} } } },
    'metadata typed as ObjectMeta, the rest deduced');
$s->kc_ok(undef, 'the finalizer is dropped', 'patch', 'blob', 'b1', '-n', $ns, '--type=merge',
    '-p', '{"metadata":{"finalizers":null}}');

done_testing;
