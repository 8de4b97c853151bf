# Two worker processes sharing one LMDB store: concurrent creates served by
# both workers, concurrent lists that agree with each other and with the
# resourceVersion rule, acknowledged writes surviving kill -9 of every nginx
# process, creates in flight across a graceful reload, and a write answered
# by one worker readable at once from the other.
use lib 't/lib';
use Test::Kube;
use Test::More;
use File::Temp ();
use IO::Select;
use IO::Socket::INET;
use POSIX ();
use Time::HiRes qw(sleep time);

my $http_config = <<'EOF';
log_format workers '$pid $request $status';
access_log logs/workers.log workers;
EOF
my $config = <<'EOF';
location / {
    kube_api;
    kube_anonymous_auth on;
    add_header X-Worker $pid always;
}
EOF

my $s = start_server(workers => 2, http_config => $http_config, config => $config);
my $worker_log = $s->root . '/logs/workers.log';

sub cm_body {
    my ($name, %data) = @_;
    return encode_json({ apiVersion => 'v1', kind => 'ConfigMap', metadata => { name => $name },
        data => { %data } });
}

# create($ns, $name) -> {name, status, uid, rv, worker} on a new connection
sub create {
    my ($ns, $name) = @_;
    my $r = $s->request('POST', "/api/v1/namespaces/$ns/configmaps",
        headers => { 'Content-Type' => 'application/json' }, body => cm_body($name, n => $name),
        timeout => 10);
    my $o = eval { decode_json($r->{body}) } || {};
    return { name => $name, status => $r->{status}, uid => $o->{metadata}{uid},
        rv => $o->{metadata}{resourceVersion}, worker => $r->{headers}{'x-worker'},
        ($r->{status} == 201 ? () : (body => substr($r->{body}, 0, 300))) };
}

# list($ns) -> ({status, rv, worker}, [items])
sub list {
    my $ns = shift;
    my $r = $s->request('GET', "/api/v1/namespaces/$ns/configmaps", timeout => 10);
    my $o = eval { decode_json($r->{body}) } || {};
    return ({ status => $r->{status}, rv => $o->{metadata}{resourceVersion},
        worker => $r->{headers}{'x-worker'} }, $o->{items} || []);
}

# spawn($n, sub { my ($index, $emit, $stop_file) = @_; ... }): $n child
# processes, each emitting records (hashes) into a file of its own; collect
# waits for them and returns every record. The harness may reap an exited
# child before we do, so the records travel through files, not exit codes.
sub spawn {
    my ($n, $work) = @_;
    my $dir = File::Temp->newdir('kube-workers-XXXXXX', TMPDIR => 1);
    my @pids;
    for my $i (0 .. $n - 1) {
        my $pid = fork;
        die "fork: $!" unless defined $pid;
        if ($pid == 0) {
            open my $fh, '>', "$dir/out.$i" or POSIX::_exit(1);
            my $emit = sub {
                print {$fh} encode_json($_[0]), "\n";
                $fh->flush;
            };
            eval { $work->($i, $emit, "$dir/stop"); 1 }
                or $emit->({ error => "child $i died: $@" });
            close $fh;
            POSIX::_exit(0);
        }
        push @pids, $pid;
    }
    return { dir => $dir, pids => \@pids, n => $n };
}

sub records {
    my $job = shift;
    my @recs;
    for my $i (0 .. $job->{n} - 1) {
        push @recs, map { decode_json($_) } grep { /\S/ } split /\n/, slurp("$job->{dir}/out.$i");
    }
    return @recs;
}

sub stop_children {
    my $job = shift;
    open my $fh, '>', "$job->{dir}/stop" or die "$job->{dir}/stop: $!";
    close $fh;
}

sub collect {
    my $job = shift;
    my $deadline = time + 60;
    for my $pid (@{ $job->{pids} }) {
        while (waitpid($pid, POSIX::WNOHANG()) == 0) {
            if (time > $deadline) {
                kill 'KILL', $pid;
                waitpid($pid, 0);
                last;
            }
            sleep 0.01;
        }
    }
    my @recs = records($job);
    my @errors = grep { $_->{error} } @recs;
    ok(!@errors, 'the client processes ran to the end')
        or diag(join "\n", map { $_->{error} } @errors);
    return grep { !$_->{error} } @recs;
}

# creates_until_stopped($ns, $prefix, $max, $stop_on_599): a child body that
# creates ConfigMaps one after another on new connections until the stop
# file appears or $max are done (or, with $stop_on_599, a request gets no
# answer: the server is gone).
sub creates_until_stopped {
    my ($ns, $prefix, $max, $stop_on_599) = @_;
    return sub {
        my ($i, $emit, $stop) = @_;
        for my $k (0 .. $max - 1) {
            last if -e $stop;
            my $rec = create($ns, sprintf('%s-%d-%03d', $prefix, $i, $k));
            $emit->($rec);
            last if $stop_on_599 && $rec->{status} == 599;
        }
    };
}

# lost(\%listed, @creates) -> the creates missing from %listed or listed
# with another uid
sub lost {
    my ($listed, @creates) = @_;
    return grep { !$listed->{ $_->{name} }
        || $listed->{ $_->{name} }{metadata}{uid} ne $_->{uid} } @creates;
}

sub items_by_name {
    my $items = shift;
    return map { $_->{metadata}{name} => $_ } @$items;
}

# --- the heap ---------------------------------------------------------------------------
my $heap = ($ENV{SANITIZE} || '') eq '1'
    ? qr/kube-apiserver: jemalloc is not active/
    : qr/kube-apiserver: jemalloc \S+ is the heap/;
like($s->error_log_since_start, $heap, 'error.log says whether jemalloc is the heap');
my @workers = $s->worker_pids;
is(scalar @workers, 2, 'two worker processes');

# --- (a) 30 concurrent creates, then 20 concurrent lists ----------------------------------
$s->create_namespace('durable');
my $log_mark = -s $worker_log || 0;
my $job = spawn(6, sub {
    my ($i, $emit) = @_;
    $emit->(create('durable', sprintf('cm-%02d', $i * 5 + $_))) for 0 .. 4;
});
my @created = collect($job);
is(scalar @created, 30, '30 creates answered');
my @not_created = grep { $_->{status} != 201 } @created;
ok(!@not_created, 'every concurrent create answered 201')
    or diag(explain [ @not_created[0 .. ($#not_created > 4 ? 4 : $#not_created)] ]);
my %created = map { $_->{name} => $_ } @created;
my @names = map { sprintf 'cm-%02d', $_ } 0 .. 29;
is_deeply([ sort keys %created ], \@names, 'the creates named cm-00 .. cm-29');

# A worker logs a request after its response has gone out, so a client can
# read its answer before the line is written: give the log a moment.
my (%create_pids, $logged);
for my $try (1 .. 50) {
    %create_pids = ();
    for my $line (split /\n/, substr(slurp($worker_log), $log_mark)) {
        $create_pids{$1}++ if $line =~ m{^(\d+) POST /api/v1/namespaces/durable/configmaps \S+ 201$};
    }
    $logged = 0;
    $logged += $_ for values %create_pids;
    last if $logged >= 30;
    select(undef, undef, undef, 0.1);
}
is($logged, 30, 'the access log has the 30 creates');
ok(keys %create_pids >= 2, 'both workers served creates: '
    . join(', ', map { "pid $_: $create_pids{$_}" } sort keys %create_pids));

my %rvs;
$rvs{ $_->{rv} // '' }++ for @created;
is(scalar(grep { /^\d+$/ } keys %rvs), 30, 'the 30 creates got 30 distinct resourceVersions');

$job = spawn(5, sub {
    my ($i, $emit) = @_;
    for (1 .. 4) {
        my ($meta, $items) = list('durable');
        $emit->({ %$meta, items => [ map { [ $_->{metadata}{name}, $_->{metadata}{uid},
            $_->{metadata}{resourceVersion} ] } @$items ] });
    }
});
my @lists = collect($job);
is(scalar @lists, 20, '20 lists answered');
my %list_pids;
my $lists_ok = 1;
for my $l (@lists) {
    $list_pids{ $l->{worker} // '?' }++;
    my @got = map { $_->[0] } @{ $l->{items} };
    my @bad;
    push @bad, "status $l->{status}" unless $l->{status} == 200;
    push @bad, 'names: ' . join(',', @got) unless join(',', @got) eq join(',', @names);
    for my $it (@{ $l->{items} }) {
        my $c = $created{ $it->[0] } || {};
        push @bad, "$it->[0]: uid/rv $it->[1]/$it->[2], created $c->{uid}/$c->{rv}"
            unless ($c->{uid} // '') eq ($it->[1] // '') && ($c->{rv} // '') eq ($it->[2] // '');
        push @bad, "$it->[0]: rv $it->[2] above the list's $l->{rv}"
            unless ($l->{rv} // 0) >= ($it->[2] // 0);
    }
    my %seen;
    push @bad, 'duplicate resourceVersions' if grep { $seen{ $_->[2] // '' }++ } @{ $l->{items} };
    if (@bad) {
        $lists_ok = 0;
        diag("list served by $l->{worker}: " . join('; ', @bad[0 .. ($#bad > 4 ? 4 : $#bad)]));
    }
}
ok($lists_ok, 'every list has exactly the 30 names, sorted, with the uids and distinct '
    . "resourceVersions the creates returned, and a list resourceVersion >= every item's");
note('lists served by: ' . join(', ', map { "pid $_: $list_pids{$_}" } sort keys %list_pids));
$s->fatal_free_ok($s->error_log_since_start, 'concurrent creates and lists');

# --- (b) durability: kill -9 of every nginx process ------------------------------------------
my %before = map { $_->[0] => $_ } @{ $lists[0]{items} || [] };
my $last = create('durable', 'last-write');
is($last->{status}, 201, 'a last write is acknowledged with 201');
my @killed = $s->kill9_all;
is(scalar @killed, 3, 'kill -9 right after the acknowledgement: master and both workers');
ok($s->start, 'nginx starts again on the same data');
like($s->error_log_since_start, $heap, 'the restarted server logs the heap again');

my ($meta, $items) = list('durable');
is($meta->{status}, 200, 'list after the restart');
my %after = items_by_name($items);
is_deeply([ sort keys %after ], [ @names, 'last-write' ],
    'the 30 objects and the last write survived kill -9');
my @changed = grep {
    my $prev = $before{$_};
    !$after{$_} || $after{$_}{metadata}{uid} ne $prev->[1]
        || $after{$_}{metadata}{resourceVersion} ne $prev->[2];
} @names;
ok(!@changed, 'identical uids and resourceVersions after the restart')
    or diag("changed: @changed");
is($after{'last-write'}{metadata}{uid}, $last->{uid}, 'the last write kept its uid');
is($after{'last-write'}{metadata}{resourceVersion}, $last->{rv},
    'the last write kept its resourceVersion');
ok(($meta->{rv} // 0) >= $last->{rv}, 'the store revision did not go back after the restart');

# A burst of creates cut by kill -9: every acknowledged one survives.
$s->create_namespace('burst');
$job = spawn(3, creates_until_stopped('burst', 'b', 300, 1));
ok(wait_until(sub { (() = grep { $_->{status} == 201 } records($job)) >= 15 }, 20),
    'creates are being acknowledged');
$s->kill9_all;
my @burst = collect($job);
my @acked = grep { $_->{status} == 201 } @burst;
my @odd = grep { $_->{status} != 201 && $_->{status} != 599 } @burst;
ok(!@odd, 'every create got 201 or no answer at all (the server was killed)')
    or diag(explain [ @odd[0 .. ($#odd > 4 ? 4 : $#odd)] ]);
ok($s->start, 'nginx starts again after the burst was cut');
($meta, $items) = list('burst');
%after = items_by_name($items);
my @lost = lost(\%after, @acked);
ok(!@lost, scalar(@acked) . ' acknowledged creates of the burst all survived kill -9')
    or diag('lost: ' . join(' ', map { $_->{name} } @lost[0 .. ($#lost > 9 ? 9 : $#lost)]));
my $created_again = create('durable', 'after-restart');
is($created_again->{status}, 201, 'the restarted server accepts writes');
ok($created_again->{rv} > $last->{rv},
    'new writes get higher resourceVersions than before the kill');
$s->fatal_free_ok($s->error_log_since_start, 'restart after kill -9');

# --- (c) graceful reload while creates are in flight ---------------------------------------------
$s->create_namespace('reload');
my $mark = $s->log_size;
my @old_workers = $s->worker_pids;
$job = spawn(4, creates_until_stopped('reload', 'r', 500, 0));
ok(wait_until(sub { records($job) >= 10 }, 20), 'creates are in flight');
ok($s->reload, 'nginx -s reload while they run');
my %old = map { $_ => 1 } @old_workers;
my @new_workers = grep { !$old{$_} } $s->worker_pids;
is(scalar @new_workers, 2, 'two new workers after the reload');
my $seen_at_reload = records($job);
ok(wait_until(sub { records($job) >= $seen_at_reload + 20 }, 20),
    'creates go on after the reload');
stop_children($job);
my @flight = collect($job);
my @answered = grep { $_->{status} == 201 } @flight;
my @failed = grep { $_->{status} != 201 } @flight;
ok(!@failed, scalar(@flight) . ' creates across the reload all answered 201')
    or diag(explain [ @failed[0 .. ($#failed > 4 ? 4 : $#failed)] ]);
my %by = map { $_ => 0 } @old_workers, @new_workers;
$by{ $_->{worker} // '' }++ for @answered;
ok((grep { $by{$_} } @old_workers) && (grep { $by{$_} } @new_workers),
    'old and new workers both answered creates: '
    . join(', ', map { ($old{$_} ? 'old' : 'new') . " $_: $by{$_}" } sort keys %by));
ok(wait_until(sub { !grep { pid_alive($_) } @old_workers }, 15), 'the old workers exit');

($meta, $items) = list('reload');
is($meta->{status}, 200, 'list after the reload');
%after = items_by_name($items);
@lost = lost(\%after, @answered);
ok(!@lost, 'every create answered 201 across the reload is listed with its uid')
    or diag('lost: ' . join(' ', map { $_->{name} } @lost[0 .. ($#lost > 9 ? 9 : $#lost)]));
my %answered = map { $_->{name} => 1 } @answered;
my @extra = grep { !$answered{$_} } sort keys %after;
ok(!@extra, 'and nothing else is listed (no write committed without its answer)')
    or diag("listed but not answered 201: @extra");
my $reload_log = $s->log_since($mark);
my @alerts = grep { /\[alert\]/ } split /\n/, $reload_log;
ok(!@alerts, 'no [alert] in error.log during the reload (old workers finish their requests)')
    or diag(join "\n", @alerts);
$s->fatal_free_ok($reload_log, 'reload');

# --- (d) a write answered by one worker is readable at once from the other -----------------------
$mark = $s->log_size;
$s->create_namespace('cross');

# Ten create-then-read rounds, each read on a new connection.
my $cross_ok = 1;
for my $k (1 .. 10) {
    my $c = create('cross', "fresh-$k");
    unless ($c->{status} == 201) {
        $cross_ok = 0;
        diag("create fresh-$k: $c->{status}");
        next;
    }
    for my $n (1 .. 10) {
        my $r = $s->request('GET', "/api/v1/namespaces/cross/configmaps/fresh-$k");
        my $o = eval { decode_json($r->{body}) } || {};
        next if $r->{status} == 200 && ($o->{metadata}{uid} // '') eq $c->{uid};
        $cross_ok = 0;
        diag("GET fresh-$k on new connection $n: $r->{status} $r->{body}");
    }
}
ok($cross_ok, 'a create is readable on the next 10 new connections, every time');

# Sequential new connections tend to land on the same idle worker, so the
# cross-worker case pins keep-alive connections to each worker.
my %pinned;
for my $try (1 .. 10) {
    my @conns = map { KeepAlive->new($s->port) } 1 .. 12;
    for my $c (@conns) {
        my $r = $c->request('GET', '/version');
        push @{ $pinned{ $r->{headers}{'x-worker'} // '?' } }, $c if $r->{status} == 200;
    }
    last if (grep { $_ ne '?' } keys %pinned) >= 2;
}
my @pinned_workers = sort grep { $_ ne '?' } keys %pinned;
is(scalar @pinned_workers, 2, 'keep-alive connections pinned to both workers');

SKIP: {
    skip 'no connections on both workers', 3 unless @pinned_workers == 2;
    my $pin_ok = 1;
    my %pairs;
    for my $k (1 .. 10) {
        my ($wa, $wb) = $k % 2 ? @pinned_workers : reverse @pinned_workers;
        my $writer = $pinned{$wa}[0];
        my $reader = $pinned{$wb}[0];
        my $w = $writer->request('POST', '/api/v1/namespaces/cross/configmaps',
            cm_body("pinned-$k", k => "$k"));
        my $wo = eval { decode_json($w->{body}) } || {};
        my $r = $reader->request('GET', "/api/v1/namespaces/cross/configmaps/pinned-$k");
        my $ro = eval { decode_json($r->{body}) } || {};
        $pairs{"$w->{headers}{'x-worker'}->$r->{headers}{'x-worker'}"}++;
        next if $w->{status} == 201 && $r->{status} == 200
            && ($ro->{metadata}{uid} // '') eq ($wo->{metadata}{uid} // 'none')
            && ($ro->{metadata}{resourceVersion} // '') eq ($wo->{metadata}{resourceVersion} // '')
            && $w->{headers}{'x-worker'} ne $r->{headers}{'x-worker'};
        $pin_ok = 0;
        diag("pinned-$k: create $w->{status} by $w->{headers}{'x-worker'}, "
            . "get $r->{status} by $r->{headers}{'x-worker'}: $r->{body}");
    }
    ok($pin_ok, 'a create answered by one worker is read at once by the other, both ways');
    is(scalar keys %pairs, 2, 'both directions were exercised: ' . join(', ', sort keys %pairs));

    # And a list from the other worker right after a create includes it.
    my ($wa, $wb) = @pinned_workers;
    my $w = $pinned{$wa}[0]->request('POST', '/api/v1/namespaces/cross/configmaps',
        cm_body('pinned-list', k => 'v'));
    my $l = $pinned{$wb}[0]->request('GET', '/api/v1/namespaces/cross/configmaps');
    my $lo = eval { decode_json($l->{body}) } || {};
    my $wo = eval { decode_json($w->{body}) } || {};
    my $listed = grep { $_->{metadata}{name} eq 'pinned-list' } @{ $lo->{items} || [] };
    ok($w->{status} == 201 && $listed
        && ($lo->{metadata}{resourceVersion} // 0) >= ($wo->{metadata}{resourceVersion} // 1),
        "a list on the other worker right after a create includes it");
}
$_->finish for map { @$_ } values %pinned;

$s->fatal_free_ok($s->log_since($mark), 'cross-worker reads');
$mark = $s->log_size;
ok($s->stop, 'nginx stops gracefully');
$s->fatal_free_ok($s->log_since($mark), 'shutdown');

done_testing();

# A minimal HTTP/1.1 client on one kept-alive connection, so that a test
# knows which worker (one connection, one worker) answers.
package KeepAlive;

sub new {
    my ($class, $port) = @_;
    my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
        Proto => 'tcp', Timeout => 5) or die "connect: $!";
    $sock->autoflush(1);
    return bless { sock => $sock, buf => '' }, $class;
}

sub finish {
    my $self = shift;
    close $self->{sock} if $self->{sock};
    $self->{sock} = undef;
}

sub _fill {
    my $self = shift;
    my $sel = IO::Select->new($self->{sock});
    die "read timeout\n" unless $sel->can_read(10);
    my $n = sysread($self->{sock}, $self->{buf}, 65536, length $self->{buf});
    die "connection closed\n" unless $n;
}

# request($method, $path [, $json_body]) -> {status, headers, body}
sub request {
    my ($self, $method, $path, $body) = @_;
    my $req = "$method $path HTTP/1.1\r\nHost: localhost\r\n";
    $req .= "Content-Type: application/json\r\nContent-Length: " . length($body) . "\r\n"
        if defined $body;
    $req .= "\r\n" . ($body // '');
    my $res = eval {
        syswrite($self->{sock}, $req) == length $req or die "write: $!\n";
        $self->_fill while index($self->{buf}, "\r\n\r\n") < 0;
        my $end = index $self->{buf}, "\r\n\r\n";
        my $head = substr $self->{buf}, 0, $end + 4, '';
        my ($status) = $head =~ m{^HTTP/1\.1 (\d{3})};
        my %h;
        $h{ lc $1 } = $2 while $head =~ /^([^:\r\n]+):\s*(.*?)\r$/mg;
        my $content = '';
        if (($h{'transfer-encoding'} // '') =~ /chunked/i) {
            while (1) {
                $self->_fill while $self->{buf} !~ /\A[0-9a-fA-F]+[^\r\n]*\r\n/;
                $self->{buf} =~ s/\A([0-9a-fA-F]+)[^\r\n]*\r\n//;
                my $len = hex $1;
                $self->_fill while length($self->{buf}) < $len + 2;
                $content .= substr $self->{buf}, 0, $len, '';
                substr $self->{buf}, 0, 2, '';
                last if $len == 0;
            }
        } else {
            my $len = $h{'content-length'} // 0;
            $self->_fill while length($self->{buf}) < $len;
            $content = substr $self->{buf}, 0, $len, '';
        }
        { status => $status // 599, headers => \%h, body => $content };
    };
    return $res || { status => 599, headers => {}, body => "keep-alive request failed: $@" };
}
