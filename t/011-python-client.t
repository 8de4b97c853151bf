# The official Python client (python3-kubernetes) over mTLS with the admin
# client certificate: list and create namespaces, create/read/replace/delete
# a ConfigMap (a stale resourceVersion is 409 Conflict, a missing object 404
# NotFound as ApiException), list across all namespaces, and a Deployment
# through AppsV1Api read back with the server's defaults filled in. Then the
# same client with protobuf: bodies built and read with classes protoc makes
# from our schema, sent and received through call_api.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();

my $s = start_server(tls => 1);

# Every step records its result or the ApiException it raised, so that one
# failing call does not hide what the others did.
my $script = <<'PY';
import json
import time
from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config()
v1 = client.CoreV1Api()
apps = client.AppsV1Api()
NS = 'py-client'
out = {}


def step(name, fn):
    try:
        out[name] = fn()
    except ApiException as e:
        try:
            body = json.loads(e.body)
        except Exception:
            body = e.body
        out[name] = {'api_exception': {'status': e.status, 'reason': e.reason, 'body': body}}
    except Exception as e:
        out[name] = {'exception': repr(e)}


def meta(o):
    return {'name': o.metadata.name, 'namespace': o.metadata.namespace,
            'uid': o.metadata.uid, 'resourceVersion': o.metadata.resource_version,
            'generation': o.metadata.generation,
            'creationTimestamp': str(o.metadata.creation_timestamp)}


def list_namespaces():
    lst = v1.list_namespace()
    return {'resourceVersion': lst.metadata.resource_version,
            'names': [n.metadata.name for n in lst.items],
            'phases': [n.status.phase for n in lst.items]}


def create_namespace():
    ns = v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
    return {'meta': meta(ns), 'labels': ns.metadata.labels, 'phase': ns.status.phase}


def create_configmap():
    cm = v1.create_namespaced_config_map(NS, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name='settings', labels={'app': 'py'}),
        data={'mode': 'fast'}))
    return {'meta': meta(cm), 'data': cm.data, 'labels': cm.metadata.labels}


def create_other():
    cm = v1.create_namespaced_config_map('default', client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name='py-other'), data={'x': 'y'}))
    return {'meta': meta(cm)}


state = {}


def read_configmap():
    cm = v1.read_namespaced_config_map('settings', NS)
    state['read'] = cm
    return {'meta': meta(cm), 'data': cm.data, 'labels': cm.metadata.labels}


def replace_configmap():
    cm = state['read']
    cm.data = {'mode': 'slow', 'extra': '1'}
    new = v1.replace_namespaced_config_map('settings', NS, cm)
    again = v1.read_namespaced_config_map('settings', NS)
    return {'meta': meta(new), 'data': new.data, 'read_back': {'meta': meta(again),
                                                              'data': again.data}}


def replace_stale():
    cm = state['read']
    cm.data = {'mode': 'stale'}
    v1.replace_namespaced_config_map('settings', NS, cm)
    return {'replaced': True}


def read_missing():
    v1.read_namespaced_config_map('nosuch', NS)
    return {'found': True}


def list_all():
    lst = v1.list_config_map_for_all_namespaces()
    return {'resourceVersion': lst.metadata.resource_version,
            'items': [[c.metadata.namespace, c.metadata.name, c.metadata.resource_version]
                      for c in lst.items]}


def delete_configmap():
    st = v1.delete_namespaced_config_map('settings', NS)
    return {'kind': st.kind, 'status': st.status,
            'details': {'name': st.details.name, 'kind': st.details.kind,
                        'uid': st.details.uid}}


def delete_other():
    v1.delete_namespaced_config_map('py-other', 'default')
    return {'deleted': True}


def create_deployment():
    dep = client.V1Deployment(
        metadata=client.V1ObjectMeta(name='web'),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={'app': 'web'}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={'app': 'web'}),
                spec=client.V1PodSpec(containers=[
                    client.V1Container(name='c', image='nginx:1.25')]))))
    d = apps.create_namespaced_deployment(NS, dep)
    return {'meta': meta(d), 'kind': d.kind, 'api_version': d.api_version}


def read_deployment():
    d = apps.read_namespaced_deployment('web', NS)
    c = d.spec.template.spec.containers[0]
    return {'meta': meta(d), 'replicas': d.spec.replicas,
            'strategy': d.spec.strategy.type,
            'maxSurge': d.spec.strategy.rolling_update.max_surge,
            'maxUnavailable': d.spec.strategy.rolling_update.max_unavailable,
            'revisionHistoryLimit': d.spec.revision_history_limit,
            'progressDeadlineSeconds': d.spec.progress_deadline_seconds,
            'selector': d.spec.selector.match_labels,
            'image': c.image, 'imagePullPolicy': c.image_pull_policy,
            'restartPolicy': d.spec.template.spec.restart_policy,
            'dnsPolicy': d.spec.template.spec.dns_policy}


def delete_namespace():
    resp = v1.delete_namespace(NS, _preload_content=False)
    body = json.loads(resp.data)
    return {'http_status': resp.status, 'kind': body.get('kind'),
            'phase': body.get('status', {}).get('phase')}


def read_deleted_namespace():
    # The namespace controller finishes the deletion off the request path;
    # the read raises 404 once it has.
    for _ in range(200):
        v1.read_namespace(NS)
        time.sleep(0.05)
    return {'found': True}


def read_deployment_after():
    apps.read_namespaced_deployment('web', NS)
    return {'found': True}


step('list_namespaces', list_namespaces)
step('create_namespace', create_namespace)
step('create_configmap', create_configmap)
step('create_other', create_other)
step('read_configmap', read_configmap)
step('replace_configmap', replace_configmap)
step('replace_stale', replace_stale)
step('read_missing', read_missing)
step('list_all', list_all)
step('delete_configmap', delete_configmap)
step('read_deleted_configmap', read_configmap)
step('delete_other', delete_other)
step('create_deployment', create_deployment)
step('read_deployment', read_deployment)
step('delete_namespace', delete_namespace)
step('read_deleted_namespace', read_deleted_namespace)
step('read_deployment_after', read_deployment_after)
print(json.dumps(out, default=str))
PY

my ($rc, $stdout, $stderr) = python_client($s, $script, { timeout => 120 });
is($rc, 0, 'the python script runs') or diag($stderr);
my $out = eval { decode_json($stdout) } || {};
ok(scalar keys %$out, 'the script printed its results as JSON')
    or diag("stdout: $stdout\nstderr: $stderr");

sub step_ok {
    my ($name, $want, $what) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return json_subset_ok($out->{$name}, $want, "$name: $what");
}

my $Uid = qr/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
my $Rv = qr/^[1-9]\d*$/;

# --- namespaces -----------------------------------------------------------------
step_ok('list_namespaces', { resourceVersion => $Rv }, 'the list has a resourceVersion');
my %have = map { $_ => 1 } @{ $out->{list_namespaces}{names} || [] };
ok($have{$_}, "list_namespaces: $_ exists") for qw(default kube-system kube-public kube-node-lease);
ok(!grep({ $_ ne 'Active' } @{ $out->{list_namespaces}{phases} || [] }),
    'list_namespaces: every namespace is Active');

step_ok('create_namespace', { meta => { name => 'py-client', uid => $Uid, resourceVersion => $Rv },
    labels => { 'kubernetes.io/metadata.name' => 'py-client' }, phase => 'Active' },
    'the namespace, labelled and Active');

# --- a ConfigMap: create, read, replace, conflict --------------------------------
step_ok('create_configmap', { meta => { name => 'settings', namespace => 'py-client',
    uid => $Uid, resourceVersion => $Rv, creationTimestamp => qr/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/ },
    data => { mode => 'fast' }, labels => { app => 'py' } },
    'created with uid, resourceVersion, timestamp');
my $created = $out->{create_configmap}{meta} || {};
my $rv1 = $created->{resourceVersion} // 0;

step_ok('read_configmap', { meta => { uid => $created->{uid} // '', resourceVersion => "$rv1",
    creationTimestamp => $created->{creationTimestamp} // '' },
    data => { mode => 'fast' }, labels => { app => 'py' } }, 'read back as created');

step_ok('replace_configmap', { meta => { uid => $created->{uid} // '' },
    data => { mode => 'slow', extra => '1' },
    read_back => { data => { mode => 'slow', extra => '1' } } },
    'the data changed, the uid did not');
my $rv2 = $out->{replace_configmap}{meta}{resourceVersion} // 0;
ok($rv2 > $rv1, "replace_configmap: the resourceVersion bumped ($rv1 -> $rv2)");
is($out->{replace_configmap}{read_back}{meta}{resourceVersion}, $rv2,
    'replace_configmap: a read after the replace sees the new resourceVersion');

step_ok('replace_stale', { api_exception => { status => 409, body => { kind => 'Status',
    status => 'Failure', reason => 'Conflict', code => 409,
    message => 'Operation cannot be fulfilled on configmaps "settings": the object has been '
        . 'modified; please apply your changes to the latest version and try again',
    details => { name => 'settings', kind => 'configmaps' } } } },
    'a stale resourceVersion raises ApiException 409 Conflict');

step_ok('read_missing', { api_exception => { status => 404, body => { kind => 'Status',
    reason => 'NotFound', code => 404, message => 'configmaps "nosuch" not found',
    details => { name => 'nosuch', kind => 'configmaps' } } } },
    'a missing object raises ApiException 404 NotFound');

# --- list across all namespaces ---------------------------------------------------
my @items = @{ $out->{list_all}{items} || [] };
my %listed = map { ("$_->[0]/$_->[1]" => $_->[2]) } @items;
is($listed{'py-client/settings'}, $rv2,
    'list_all: settings in py-client, at its latest resourceVersion');
ok(exists $listed{'default/py-other'}, 'list_all: py-other in default');
my $list_rv = $out->{list_all}{resourceVersion} // 0;
ok(!grep({ $_->[2] > $list_rv } @items),
    "list_all: the list's resourceVersion ($list_rv) is at least every item's");
is_deeply([ map { "$_->[0]/$_->[1]" } @items ],
    [ sort { $a cmp $b } map { "$_->[0]/$_->[1]" } @items ],
    'list_all: items sorted by namespace and name');

# --- delete -----------------------------------------------------------------------
step_ok('delete_configmap', { kind => 'Status', status => 'Success',
    details => { name => 'settings', kind => 'configmaps', uid => $created->{uid} // '' } },
    'a Success Status naming the object');
step_ok('read_deleted_configmap', { api_exception => { status => 404,
    body => { reason => 'NotFound' } } }, 'gone after delete');
step_ok('delete_other', { deleted => JSON::PP::true() }, 'deleted');

# --- a Deployment through AppsV1Api ----------------------------------------------
step_ok('create_deployment', { kind => 'Deployment', api_version => 'apps/v1',
    meta => { name => 'web', namespace => 'py-client', uid => $Uid, generation => 1 } },
    'created');
my $dep_uid = $out->{create_deployment}{meta}{uid} // '';
step_ok('read_deployment', { meta => { name => 'web', uid => $dep_uid, generation => 1 },
    replicas => 1, strategy => 'RollingUpdate', maxSurge => '25%', maxUnavailable => '25%',
    revisionHistoryLimit => 10, progressDeadlineSeconds => 600,
    selector => { app => 'web' }, image => 'nginx:1.25', imagePullPolicy => 'IfNotPresent',
    restartPolicy => 'Always', dnsPolicy => 'ClusterFirst' },
    'read back with the defaults filled in');

# --- delete the namespace ----------------------------------------------------------
step_ok('delete_namespace', { http_status => 200, kind => 'Namespace', phase => 'Terminating' },
    'the Namespace comes back Terminating');
step_ok('read_deleted_namespace', { api_exception => { status => 404, body => {
    reason => 'NotFound', message => 'namespaces "py-client" not found' } } },
    'the server finished the deletion');
step_ok('read_deployment_after', { api_exception => { status => 404 } },
    'the Deployment went with its namespace');

# --- the same client with protobuf enabled ----------------------------------------
# Python classes from our own .proto files (protoc --python_out, Debian's
# python3-protobuf); the client sends and reads protobuf bodies through
# call_api, and reads the same objects back with its typed JSON API.
my $gen = File::Temp->newdir('kube-pypb-XXXXXX', TMPDIR => 1);
my $proto_dir = "$Test::Kube::RepoRoot/src/apis/proto";
my ($prc, $pout, $perr) = run_command([ 'protoc', "-I$proto_dir", "--python_out=$gen",
    glob("$proto_dir/kapi/*.proto") ]);
is($prc, 0, 'protoc --python_out of our schema') or diag($perr);

my $pb_script = <<'PY';
import json
import os
import sys

sys.path.insert(0, os.environ['KAPI_PY'])
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from kapi import core_pb2, meta_pb2, runtime_pb2
from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config()
api = client.ApiClient()
v1 = client.CoreV1Api(api)
PB = 'application/vnd.kubernetes.protobuf'
NS = 'py-pb'
out = {}


def envelope(api_version, kind, msg):
    u = runtime_pb2.Unknown()
    u.typeMeta.apiVersion = api_version
    u.typeMeta.kind = kind
    u.raw = msg.SerializeToString()
    u.contentEncoding = ''
    u.contentType = ''
    return b'k8s\x00' + u.SerializeToString()


def unwrap(body):
    assert body[:4] == b'k8s\x00', body[:16]
    u = runtime_pb2.Unknown()
    u.ParseFromString(body[4:])
    return u


# A <Kind>List is ListMeta + repeated items on the wire: one message made
# here from the schema's own ConfigMap, as client-go's generated lists are.
fdp = descriptor_pb2.FileDescriptorProto(name='test_lists.proto', package='test',
                                         dependency=['kapi/core.proto', 'kapi/meta.proto'])
lst = fdp.message_type.add(name='ConfigMapList')
F = descriptor_pb2.FieldDescriptorProto
lst.field.add(name='metadata', number=1, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
              type_name='.kapi.meta.v1.ListMeta')
lst.field.add(name='items', number=2, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
              type_name='.kapi.core.v1.ConfigMap')
pool = descriptor_pool.Default()
pool.Add(fdp)
ConfigMapList = message_factory.MessageFactory(pool).GetPrototype(
    pool.FindMessageTypeByName('test.ConfigMapList'))


def call(method, path, body=None):
    headers = {'Accept': PB}
    if body is not None:
        headers['Content-Type'] = PB
    try:
        resp = api.call_api(path, method, header_params=headers, body=body,
                            _preload_content=False)[0]
        return resp.status, resp.getheader('Content-Type'), resp.data
    except ApiException as e:
        return e.status, e.headers.get('Content-Type'), e.body


def step(name, fn):
    try:
        out[name] = fn()
    except Exception as e:
        out[name] = {'exception': repr(e)}


def meta(m):
    return {'name': m.name, 'namespace': m.namespace, 'uid': m.uid,
            'resourceVersion': m.resourceVersion}


def status_of(body):
    u = unwrap(body)
    st = meta_pb2.Status()
    st.ParseFromString(u.raw)
    return {'kind': u.typeMeta.kind, 'apiVersion': u.typeMeta.apiVersion, 'status': st.status,
            'reason': st.reason, 'code': st.code, 'message': st.message,
            'details': {'name': st.details.name, 'kind': st.details.kind}}


def create_namespace():
    ns = core_pb2.Namespace()
    ns.metadata.name = NS
    code, ctype, body = call('POST', '/api/v1/namespaces', envelope('v1', 'Namespace', ns))
    got = core_pb2.Namespace()
    got.ParseFromString(unwrap(body).raw)
    return {'code': code, 'type': ctype, 'meta': meta(got.metadata), 'phase': got.status.phase,
            'labels': dict(got.metadata.labels)}


def create_configmap():
    cm = core_pb2.ConfigMap()
    cm.metadata.name = 'settings'
    cm.metadata.labels['app'] = 'py'
    cm.data['mode'] = 'fast'
    cm.data['empty'] = ''
    cm.binaryData['raw'] = b'\x00\xff'
    code, ctype, body = call('POST', '/api/v1/namespaces/%s/configmaps' % NS,
                             envelope('v1', 'ConfigMap', cm))
    u = unwrap(body)
    got = core_pb2.ConfigMap()
    got.ParseFromString(u.raw)
    return {'code': code, 'type': ctype, 'kind': u.typeMeta.kind, 'meta': meta(got.metadata),
            'data': dict(got.data), 'binary': got.binaryData['raw'].hex(),
            'created_seconds': got.metadata.creationTimestamp.seconds}


def read_configmap():
    code, ctype, body = call('GET', '/api/v1/namespaces/%s/configmaps/settings' % NS)
    got = core_pb2.ConfigMap()
    got.ParseFromString(unwrap(body).raw)
    typed = v1.read_namespaced_config_map('settings', NS)  # the JSON path
    return {'code': code, 'type': ctype, 'meta': meta(got.metadata), 'data': dict(got.data),
            'labels': dict(got.metadata.labels),
            'json': {'meta': {'name': typed.metadata.name, 'namespace': typed.metadata.namespace,
                              'uid': typed.metadata.uid,
                              'resourceVersion': typed.metadata.resource_version},
                     'data': typed.data, 'binary': typed.binary_data,
                     'created_seconds': int(typed.metadata.creation_timestamp.timestamp())}}


def list_configmaps():
    code, ctype, body = call('GET', '/api/v1/namespaces/%s/configmaps' % NS)
    u = unwrap(body)
    lst = ConfigMapList()
    lst.ParseFromString(u.raw)
    return {'code': code, 'kind': u.typeMeta.kind,
            'resourceVersion': lst.metadata.resourceVersion,
            'names': [i.metadata.name for i in lst.items]}


def read_missing():
    code, ctype, body = call('GET', '/api/v1/namespaces/%s/configmaps/nosuch' % NS)
    return {'code': code, 'type': ctype, 'status': status_of(body)}


def delete_configmap():
    code, ctype, body = call('DELETE', '/api/v1/namespaces/%s/configmaps/settings' % NS)
    return {'code': code, 'type': ctype, 'status': status_of(body)}


def delete_namespace():
    code, ctype, body = call('DELETE', '/api/v1/namespaces/' + NS)
    got = core_pb2.Namespace()
    got.ParseFromString(unwrap(body).raw)
    return {'code': code, 'phase': got.status.phase}


step('create_namespace', create_namespace)
step('create_configmap', create_configmap)
step('read_configmap', read_configmap)
step('list_configmaps', list_configmaps)
step('read_missing', read_missing)
step('delete_configmap', delete_configmap)
step('delete_namespace', delete_namespace)
print(json.dumps(out, default=str))
PY

($rc, $stdout, $stderr) = python_client($s, $pb_script,
    { timeout => 120, env => { KAPI_PY => "$gen" } });
is($rc, 0, 'the protobuf python script runs') or diag($stderr);
$out = eval { decode_json($stdout) } || {};
ok(scalar keys %$out, 'the protobuf script printed its results')
    or diag("stdout: $stdout\nstderr: $stderr");

my $PB = 'application/vnd.kubernetes.protobuf';
step_ok('create_namespace', { code => 201, type => $PB,
    meta => { name => 'py-pb', uid => $Uid, resourceVersion => $Rv },
    phase => 'Active', labels => { 'kubernetes.io/metadata.name' => 'py-pb' } },
    'a Namespace posted in protobuf, answered in protobuf');
step_ok('create_configmap', { code => 201, type => $PB, kind => 'ConfigMap',
    meta => { name => 'settings', namespace => 'py-pb', uid => $Uid, resourceVersion => $Rv },
    data => { mode => 'fast', empty => '' }, binary => '00ff',
    created_seconds => qr/^\d{10}$/ },
    'a ConfigMap posted in protobuf comes back with its data, empty value and bytes');
my $pbc = $out->{create_configmap}{meta} || {};
step_ok('read_configmap', { code => 200, type => $PB, meta => $pbc,
    data => { mode => 'fast', empty => '' }, labels => { app => 'py' },
    json => { meta => $pbc, data => { mode => 'fast', empty => '' }, binary => { raw => 'AP8=' },
        created_seconds => $out->{create_configmap}{created_seconds} // -1 } },
    'read in protobuf, and the same object through the typed JSON API');
step_ok('list_configmaps', { code => 200, kind => 'ConfigMapList', resourceVersion => $Rv,
    names => [ 'settings' ] }, 'a ConfigMapList decodes as ListMeta + items');
step_ok('read_missing', { code => 404, type => $PB, status => { kind => 'Status',
    apiVersion => 'v1', status => 'Failure', reason => 'NotFound', code => 404,
    message => 'configmaps "nosuch" not found',
    details => { name => 'nosuch', kind => 'configmaps' } } },
    'a missing object: ApiException with a protobuf Status body');
step_ok('delete_configmap', { code => 200, type => $PB, status => { kind => 'Status',
    status => 'Success', code => 0, details => { name => 'settings', kind => 'configmaps' } } },
    'delete: a protobuf success Status');
step_ok('delete_namespace', { code => 200, phase => 'Terminating' },
    'the Namespace comes back Terminating, in protobuf');

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit/sanitizer lines') or diag(join "\n", @bad);
ok($s->stop, 'nginx stops gracefully');

done_testing();
