# Watch and the resourceVersion rules of list, as kube-apiserver serves them:
# events written through one worker reach watchers on the other, replays
# from a resourceVersion, initial events and their closing bookmark,
# periodic bookmarks and timeoutSeconds, selector transitions, the legacy
# /watch/ path, kube's errors for bad watch options, list at an exact or
# too large resourceVersion, continue tokens that keep one snapshot across
# concurrent writes, 410 Expired after compaction, and the clients: kubectl
# get -w (every version), get --chunk-size, wait --for=delete and
# --for=jsonpath, and the Python client's watch.Watch().stream.
use lib 't/lib';
use Test::Kube;
use Test::More;
use POSIX ();
use Time::HiRes qw(sleep time);

my $config = <<'EOF';
location / {
    kube_api;
    add_header X-Worker $pid always;
}
EOF

my $s = start_server(tls => 1, workers => 2, reuseport => 1, config => $config);

sub cm {
    my ($name, %o) = @_;
    return { apiVersion => 'v1', kind => 'ConfigMap',
        metadata => { name => $name, ($o{labels} ? (labels => $o{labels}) : ()),
            ($o{rv} ? (resourceVersion => $o{rv}) : ()) },
        data => $o{data} || { k => 'v' } };
}

sub list_rv {
    my ($path) = @_;
    my ($st, $o) = $s->call(GET => $path);
    return $o->{metadata}{resourceVersion};
}

sub summary {
    return join ', ', map {
        $_->{type} . ' ' . ($_->{object}{metadata}{name} // $_->{object}{metadata}{resourceVersion})
    } @_;
}

sub rvs_increase {
    my @rv = map { $_->{object}{metadata}{resourceVersion} } @_;
    for my $i (1 .. $#rv) {
        return 0 unless $rv[$i] > $rv[$i - 1];
    }
    return 1;
}

for my $ns (qw(w-cross w-init w-sel w-list w-kubectl w-py)) {
    my ($st) = $s->call(POST => '/api/v1/namespaces', { metadata => { name => $ns } });
    is($st, 201, "namespace $ns");
}

# --- Across workers: watchers on both workers see writes made on either.
{
    my $base = '/api/v1/namespaces/w-cross/configmaps';
    my $rv = list_rv($base);
    my (%by_worker, @watchers);
    for my $i (1 .. 40) {
        my $w = $s->watch("$base?watch=true&resourceVersion=$rv");
        is($w->status, 200, "watcher $i answers 200") or last;
        my $worker = $w->head->{headers}{'x-worker'};
        push @watchers, [$worker, $w];
        $by_worker{$worker}++;
        last if keys %by_worker == 2 && @watchers >= 4;
    }
    is(scalar keys %by_worker, 2, 'watchers are held by both workers');
    my (%writers, @done);
    for my $i (1 .. 40) {
        my ($st, $o, $r) = $s->call(POST => $base, cm("c$i"));
        is($st, 201, "create c$i") or last;
        push @done, "c$i";
        $writers{$r->{headers}{'x-worker'}}++;
        last if keys %writers == 2 && @done >= 2;
    }
    is(scalar keys %writers, 2, 'writes were answered by both workers');
    my ($st, $o) = $s->call(PUT => "$base/c1", cm('c1', data => { k => 'v2' }));
    is($st, 200, 'update c1');
    ($st) = $s->call(DELETE => "$base/c1");
    is($st, 200, 'delete c1');
    my $want = join ', ', (map { "ADDED $_" } @done), 'MODIFIED c1', 'DELETED c1';
    for my $pair (@watchers) {
        my ($worker, $w) = @$pair;
        my @events;
        while (@events < @done + 2) {
            my $e = $w->next_event(5) or last;
            push @events, $e;
        }
        is(summary(@events), $want, "the watcher on worker $worker saw every write, in order");
        ok(rvs_increase(@events), '... with rising resourceVersions');
        is(summary($w->drain(0.3)), '', '... and nothing twice');
    }
    my @events = ();
    my $w = $s->watch("$base?watch=true&resourceVersion=$rv");
    while (my $e = $w->next_event(3)) {
        push @events, $e;
        last if @events == @done + 2;
    }
    is(summary(@events), $want, 'a watch from the old resourceVersion replays the same events');
    my $deleted = $events[-1]{object};
    is($deleted->{data}{k}, 'v2', 'DELETED carries the last state');
    ok($deleted->{metadata}{resourceVersion} > $events[-2]{object}{metadata}{resourceVersion},
        '... at the deletion\'s resourceVersion');
    $_->[1]->close for @watchers;
}

# --- A reload ends watches cleanly; watching again from the last
# resourceVersion seen misses nothing written meanwhile.
{
    my $base = '/api/v1/namespaces/w-cross/configmaps';
    my $rv = list_rv($base);
    my $w = $s->watch("$base?watch=true&resourceVersion=$rv");
    $s->call(POST => $base, cm('before-reload'));
    my $e = $w->next_event(5);
    is(summary($e), 'ADDED before-reload', 'a watch before the reload');
    my $last = $e->{object}{metadata}{resourceVersion};
    ok($s->reload, 'nginx -s reload');
    ok($w->ended(5), 'the watch of the retiring worker ends cleanly');
    $s->call(POST => $base, cm('during-reload'));
    $s->call(DELETE => "$base/before-reload");
    my $again = $s->watch("$base?watch=true&resourceVersion=$last");
    is(summary($again->next_event(5), $again->next_event(5)),
        'ADDED during-reload, DELETED before-reload',
        'watching again from the last resourceVersion misses nothing');
    $again->close;
}

# --- Initial events, the initial-events-end bookmark, bookmarks, timeout.
{
    my $base = '/api/v1/namespaces/w-init/configmaps';
    $s->call(POST => $base, cm($_)) for qw(a b);
    my $w = $s->watch("$base?watch=true");
    is(summary($w->next_event(5), $w->next_event(5)), 'ADDED a, ADDED b',
        'a watch without resourceVersion starts with the current state');
    $s->call(POST => $base, cm('c'));
    is(summary($w->next_event(5)), 'ADDED c', '... then what changes');
    $w->close;

    $w = $s->watch("$base?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
        . '&allowWatchBookmarks=true');
    my @e = map { $w->next_event(5) } 1 .. 4;
    is(summary(@e[0 .. 2]), 'ADDED a, ADDED b, ADDED c', 'sendInitialEvents sends the state');
    is($e[3]{type}, 'BOOKMARK', '... then a bookmark');
    is($e[3]{object}{metadata}{annotations}{'k8s.io/initial-events-end'}, 'true',
        '... annotated k8s.io/initial-events-end');
    is($e[3]{object}{kind}, 'ConfigMap', '... an empty object of the kind');
    ok($e[3]{object}{metadata}{resourceVersion} >= $e[2]{object}{metadata}{resourceVersion},
        '... at the state\'s resourceVersion');
    $w->close;

    my $rv = list_rv($base);
    my $t0 = time;
    $w = $s->watch("$base?watch=true&resourceVersion=$rv&allowWatchBookmarks=true"
        . '&timeoutSeconds=4');
    my $b = $w->next_event(6);
    is($b && $b->{type}, 'BOOKMARK', 'a bookmark comes before the timeout');
    ok(time - $t0 >= 1.5 && time - $t0 < 3.5, '... about two seconds before it')
        or diag(time - $t0);
    ok($w->ended(6), 'timeoutSeconds ends the stream cleanly');
    ok(time - $t0 >= 3.5 && time - $t0 < 6, '... after about four seconds') or diag(time - $t0);

    # kube: timeoutSeconds times a second in Go's int64 nanoseconds; below
    # zero (-1, or 9223372037 s, which wraps) the watch is over at once, an
    # integer it cannot parse is a 400, and one that wraps to 0 the default.
    for my $t ('-1', '9223372037') {
        $t0 = time;
        my $r = $s->request(GET => "$base?watch=true&timeoutSeconds=$t", timeout => 5);
        is($r->{status}, 200, "timeoutSeconds=$t: 200");
        is($r->{body}, '', '... with no events');
        ok(time - $t0 < 2, '... at once') or diag(time - $t0);
    }
    for my $t ('', 'soon', '1.5', '99999999999999999999') {
        my $r = $s->request(GET => "$base?watch=true&timeoutSeconds=$t");
        is($r->{status}, 400, "timeoutSeconds=$t: 400");
        my $why = $t eq '99999999999999999999' ? 'value out of range' : 'invalid syntax';
        is(eval { decode_json($r->{body})->{message} },
            "strconv.ParseInt: parsing \"$t\": $why", '... strconv\'s message');
    }
    $w = $s->watch("$base?watch=true&timeoutSeconds=-9223372036854775808");
    is(summary($w->next_event(5)), 'ADDED a', 'timeoutSeconds that wraps to 0: a watch');
    ok(!$w->ended(2), '... that lasts');
    $w->close;
}

# --- Selectors on the stream; the legacy /watch/ path.
{
    my $base = '/api/v1/namespaces/w-sel/configmaps';
    $s->call(POST => $base, cm('x', labels => { app => 'web' }));
    $s->call(POST => $base, cm('y', labels => { app => 'db' }));
    my $w = $s->watch("$base?watch=true&labelSelector=app%3Dweb");
    is(summary($w->next_event(5)), 'ADDED x', 'a label-selected watch starts with the selection');
    my $name = $s->watch('/api/v1/watch/namespaces/w-sel/configmaps/y');
    is(summary($name->next_event(5)), 'ADDED y', 'the legacy /watch/ path of one object');
    my $field = $s->watch("$base?watch=true&fieldSelector=metadata.name%3Dx");
    is(summary($field->next_event(5)), 'ADDED x', 'a field-selected watch');
    $s->call(PUT => "$base/y", cm('y', labels => { app => 'web' }));
    $s->call(PUT => "$base/x", cm('x', labels => { app => 'db' }));
    $s->call(PUT => "$base/x", cm('x', labels => { app => 'other' }));
    $s->call(DELETE => "$base/y");
    is(summary($w->drain(1)), 'ADDED y, DELETED x, DELETED y',
        'entering the selection is ADDED, leaving it DELETED');
    is(summary($name->drain(0.5)), 'MODIFIED y, DELETED y', '... the one object\'s changes');
    is(summary($field->drain(0.5)), 'MODIFIED x, MODIFIED x', '... by field');
    $_->close for $w, $name, $field;

    my ($st, $o) = $s->call(GET => "$base?watch=true&labelSelector=a%3D%3D%3Db");
    is($st, 400, 'a bad label selector on a watch is 400');
    like($o->{message}, qr/unable to parse requirement/, '... with kube\'s message');
    ($st, $o) = $s->call(GET => "$base?watch=true&sendInitialEvents=true");
    is($st, 422, 'sendInitialEvents without resourceVersionMatch is 422');
    is($o->{message}, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
        . 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        '... with kube\'s message');
    ($st, $o) = $s->call(GET => "$base?watch=true&resourceVersion=abc");
    is($st, 400, 'a resourceVersion that is not a number is 400');
}

# --- List: exact versions, too large versions, snapshots across pages.
{
    my $base = '/api/v1/namespaces/w-list/configmaps';
    $s->call(POST => $base, cm(sprintf 'p%02d', $_)) for 1 .. 10;
    my $rv = list_rv($base);
    $s->call(DELETE => "$base/p01");
    $s->call(POST => $base, cm('p11'));
    my ($st, $o) = $s->call(GET => "$base?resourceVersion=$rv&resourceVersionMatch=Exact");
    is($st, 200, 'a list at an exact older resourceVersion');
    is(join(',', map { $_->{metadata}{name} } @{ $o->{items} }),
        join(',', map { sprintf 'p%02d', $_ } 1 .. 10), '... shows the state then');
    is($o->{metadata}{resourceVersion}, $rv, '... and says which');
    ($st, $o) = $s->call(GET => "$base?resourceVersion=$rv&resourceVersionMatch=NotOlderThan");
    ok((grep { $_->{metadata}{name} eq 'p11' } @{ $o->{items} }),
        'NotOlderThan shows the latest state');
    ($st, $o) = $s->call(GET => "$base?resourceVersion=99999999");
    is($st, 504, 'a resourceVersion the store has not reached is 504');
    like($o->{message}, qr/^Too large resource version: 99999999, current: \d+$/,
        '... Too large resource version');
    is($o->{details}{causes}[0]{reason}, 'ResourceVersionTooLarge', '... with its cause');
    ($st, $o) = $s->call(GET => "$base?resourceVersionMatch=Exact");
    is($st, 422, 'resourceVersionMatch without resourceVersion is 422');

    # Pages keep the first page's snapshot while others write.
    my @before = map { $_->{metadata}{name} } @{ ($s->call(GET => $base))[1]{items} };
    ($st, $o) = $s->call(GET => "$base?limit=3");
    my @seen = map { $_->{metadata}{name} } @{ $o->{items} };
    is($o->{metadata}{remainingItemCount}, @before - 3, 'remainingItemCount');
    my $page_rv = $o->{metadata}{resourceVersion};
    $s->call(DELETE => "$base/p05");
    $s->call(POST => $base, cm('p00'));
    $s->call(POST => $base, cm('p99'));
    while (my $c = $o->{metadata}{continue}) {
        ($st, $o) = $s->call(GET => "$base?limit=3&continue=$c");
        is($st, 200, 'next page') or last;
        is($o->{metadata}{resourceVersion}, $page_rv, '... at the first page\'s resourceVersion');
        push @seen, map { $_->{metadata}{name} } @{ $o->{items} };
    }
    is(join(',', @seen), join(',', @before),
        'every object of the snapshot once, none written later');
}

# --- 410 Expired after compaction (a server that compacts every second).
{
    my $c = start_server(tls => 1, http_config => 'kube_compaction_interval 1s;');
    my $base = '/api/v1/namespaces/default/configmaps';
    my $first = decode_json($c->request(POST => $base,
        headers => { 'Content-Type' => 'application/json' }, body => encode_json(cm('old')))->{body});
    my $old = $first->{metadata}{resourceVersion};
    $c->request(POST => $base, headers => { 'Content-Type' => 'application/json' },
        body => encode_json(cm('old2')));
    my $r = $c->request(GET => "$base?limit=1");
    sleep 3.2;
    $c->request(POST => $base, headers => { 'Content-Type' => 'application/json' },
        body => encode_json(cm("new$_"))) for 1 .. 3;
    sleep 2.2;
    $c->request(POST => $base, headers => { 'Content-Type' => 'application/json' },
        body => encode_json(cm('newest')));
    my $w = $c->watch("$base?watch=true&resourceVersion=" . ($old - 1));
    is($w->status, 200, 'a watch from a compacted revision answers 200');
    my $e = $w->next_event(5);
    is($e && $e->{type}, 'ERROR', '... then one ERROR event');
    is($e->{object}{code}, 410, '... 410');
    is($e->{object}{reason}, 'Expired', '... Expired');
    like($e->{object}{message}, qr/^too old resource version: \d+ \(\d+\)$/,
        '... too old resource version');
    ok($w->ended(5), '... and the stream ends');
    my $o = decode_json($c->request(GET =>
        "$base?resourceVersion=$old&resourceVersionMatch=Exact")->{body});
    is($o->{code}, 410, 'a list at a compacted exact resourceVersion is 410');
    is($o->{message}, 'The resourceVersion for the provided list is too old.', '... kube\'s message');
    my $stale = decode_json($r->{body})->{metadata}{continue};
    ok($stale, 'a continue token from before the compaction');
    $o = decode_json($c->request(GET => "$base?limit=1&continue=$stale")->{body});
    is($o->{code}, 410, '... is 410 after it');
    like($o->{message}, qr/^The provided continue parameter is too old/, '... kube\'s message');

    # The Python client sees the 410 and recovers by listing again.
    my ($rc, $out, $err) = python_client($c, <<"PY", { timeout => 60 });
import json, threading, time
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

config.load_kube_config()
v1 = client.CoreV1Api()
result = {}
try:
    for ev in watch.Watch().stream(v1.list_namespaced_config_map, 'default',
                                   resource_version='@{[$old - 1]}', timeout_seconds=5):
        result.setdefault('events', []).append(ev['type'])
except ApiException as e:
    result['expired'] = e.status
listed = v1.list_namespaced_config_map('default')
result['relisted'] = len(listed.items)


def later():
    time.sleep(1)
    client.CoreV1Api().create_namespaced_config_map(
        'default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='after-relist')))


threading.Thread(target=later).start()
w = watch.Watch()
for ev in w.stream(v1.list_namespaced_config_map, 'default',
                   resource_version=listed.metadata.resource_version, timeout_seconds=10):
    result['next'] = [ev['type'], ev['object'].metadata.name]
    w.stop()
print(json.dumps(result))
PY
    is($rc, 0, 'the Python client ran') or diag($err);
    my $py = eval { decode_json($out) } || {};
    is($py->{expired}, 410, 'the Python client\'s watch from a compacted revision raises 410')
        or diag($out);
    is($py->{relisted}, 6, '... it lists again') or diag($out);
    is_deeply($py->{next}, ['ADDED', 'after-relist'], '... and watches on from the new list')
        or diag($out);
    $c->stop;
}

# --- kubectl: get -w (every version), --chunk-size, wait.
sub spawn {
    my ($version, @args) = @_;
    my $out = File::Temp->new;
    my $cache = File::Temp->newdir;
    my $kubeconfig = $s->kubeconfig;
    my $bin = $version eq '1.32' ? '/usr/bin/kubectl'
        : "/usr/lib/google-cloud-sdk/bin/kubectl.$version";
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', $out->filename or POSIX::_exit(1);
        open STDERR, '>&', \*STDOUT or POSIX::_exit(1);
        $ENV{HOME} = "$cache";
        delete $ENV{KUBECONFIG};
        { exec $bin, "--kubeconfig=$kubeconfig", "--cache-dir=$cache", @args };
        POSIX::_exit(127);
    }
    return { pid => $pid, out => $out, cache => $cache };
}

sub output {
    my $p = shift;
    open my $fh, '<', $p->{out}->filename or return '';
    local $/;
    return scalar <$fh> // '';
}

sub finish {
    my ($p, $timeout) = @_;
    my $deadline = time + ($timeout // 10);
    while (time < $deadline) {
        my $r = waitpid($p->{pid}, POSIX::WNOHANG());
        return $? >> 8 if $r == $p->{pid};
        sleep 0.05;
    }
    kill 'KILL', $p->{pid};
    waitpid($p->{pid}, 0);
    return -1;
}

$s->call(POST => '/api/v1/namespaces/w-kubectl/configmaps', cm('seed'));
for my $v (kubectl_versions()) {
    my $base = '/api/v1/namespaces/w-kubectl/configmaps';
    my $name = 'k' . ($v =~ s/\.//r);
    my $p = spawn($v, qw(get configmaps -n w-kubectl -w --output-watch-events));
    ok(wait_until(sub { output($p) =~ /ADDED\s+seed/ }, 15),
        "kubectl $v get -w lists, then watches") or diag(output($p));
    $s->call(POST => $base, cm($name));
    $s->call(PUT => "$base/$name", cm($name, data => { k => 'v2', l => 'x' }));
    $s->call(DELETE => "$base/$name");
    ok(wait_until(sub { output($p) =~ /DELETED\s+$name/ }, 10),
        "kubectl $v get -w prints the events") or diag(output($p));
    kill 'TERM', $p->{pid};
    finish($p, 5);
    like(output($p), qr/ADDED\s+$name\s.*\n.*MODIFIED\s+$name\s+2\s.*\n.*DELETED\s+$name/,
        "... ADDED, MODIFIED (2 data keys), DELETED");
}

{
    my $base = '/api/v1/namespaces/w-kubectl/configmaps';
    $s->call(POST => $base, cm("chunk$_")) for 1 .. 5;
    my ($rc, $out) = kubectl($s, '1.32', qw(get configmaps -n w-kubectl --chunk-size=2 -o name));
    is($rc, 0, 'kubectl get --chunk-size=2');
    is(join(',', sort grep { /chunk/ } split /\n/, $out),
        join(',', map { "configmap/chunk$_" } 1 .. 5), '... lists every object once');

    $s->call(POST => $base, cm('doomed'));
    my $p = spawn('1.32', qw(wait --for=delete configmap/doomed -n w-kubectl --timeout=20s));
    sleep 1;
    $s->call(DELETE => "$base/doomed");
    is(finish($p, 15), 0, 'kubectl wait --for=delete returns once the object is gone')
        or diag(output($p));

    $s->call(POST => $base, cm('flag', data => { state => 'off' }));
    $p = spawn('1.32', 'wait', '--for=jsonpath={.data.state}=on', 'configmap/flag',
        '-n', 'w-kubectl', '--timeout=20s');
    sleep 1;
    $s->call(PUT => "$base/flag", cm('flag', data => { state => 'on' }));
    is(finish($p, 15), 0, 'kubectl wait --for=jsonpath returns once the field matches')
        or diag(output($p));
    like(output($p), qr{configmap/flag condition met}, '... condition met');
}

# --- The Python client's watch.
{
    my ($rc, $out, $err) = python_client($s, <<'PY', { timeout => 60 });
import json, threading, time
from kubernetes import client, config, watch

config.load_kube_config()
v1 = client.CoreV1Api()
NS = 'w-py'
rv = v1.list_namespaced_config_map(NS).metadata.resource_version


def writer():
    time.sleep(1)
    w = client.CoreV1Api()
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name='py1'), data={'a': '1'})
    w.create_namespaced_config_map(NS, body)
    body.data = {'a': '2'}
    w.replace_namespaced_config_map('py1', NS, body)
    w.delete_namespaced_config_map('py1', NS)


threading.Thread(target=writer).start()
seen = []
w = watch.Watch()
for ev in w.stream(v1.list_namespaced_config_map, NS, resource_version=rv, timeout_seconds=20):
    seen.append([ev['type'], ev['object'].metadata.name, ev['object'].data])
    if len(seen) == 3:
        w.stop()
print(json.dumps(seen))
PY
    is($rc, 0, 'the Python client watch ran') or diag($err);
    is_deeply(eval { decode_json($out) }, [['ADDED', 'py1', { a => '1' }],
        ['MODIFIED', 'py1', { a => '2' }], ['DELETED', 'py1', { a => '2' }]],
        'watch.Watch().stream decodes ADDED, MODIFIED, DELETED') or diag($out);
}

my @bad = $s->fatal_lines($s->error_log_since_start);
ok(!@bad, 'error.log has no alert/emerg/crit lines') or diag(join "\n", @bad);

done_testing;
