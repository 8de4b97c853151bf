# A custom resource read from storage is decoded with its definition's
# current schema, as kube-apiserver 1.26.5 decodes it (every answer below
# recorded from it with the same definitions): after the schema gains a
# default, GET, LIST (paged, streamed) and WATCH show it on objects stored
# before; a field the schema no longer has is gone from reads; storage is
# not rewritten (the old schema back, the old object is back); an update or
# patch starts from the object as read and writes what it shows; a read at
# another version prunes with that version's schema.
use lib 't/lib';
use Test::Kube;
use Test::More;

my $s = start_server(tls => 1);
my $group = 'h-read.example.com';
my $widgets = "/apis/$group/v1/namespaces/h-read/widgets";

# The definition: `extra` is known to the storage version v1 only when
# `$old`; color has a default only when `$default`; v2 is served and its
# schema never has `note`.
sub widgets_crd {
    my (%o) = @_;
    my $color = $o{default} ? '{type: string, default: blue}' : '{type: string}';
    my $extra = $o{old} ? "\n      extra: {type: string}" : '';
    my $schema = sub {
        my ($note) = @_;
        return \<<"Y";
type: object
properties:
  spec:
    type: object
    properties:
      size: {type: integer}$note
      pad: {type: string}
      color: $color$extra
Y
    };
    return crd_yaml(group => $group, kind => 'Widget', singular => 'widget', versions => [
        { name => 'v1', schema => $schema->("\n      note: {type: string}") },
        { name => 'v2', schema => $schema->('') } ]);
}

# Applies the definition and waits until a read of widget `$name` shows `$want`.
sub define {
    my ($what, $name, $want, %o) = @_;
    $s->kc_ok(undef, $what, 'apply', '-f', '-', { stdin => widgets_crd(%o) });
    my $spec;
    ok(wait_until(sub {
        my ($st, $o) = $s->call(GET => "$widgets/$name");
        $spec = $o->{spec};
        return $st == 200 && $want->($spec);
    }, 5), "... and reads see it") or diag(explain($spec));
}

sub widget {
    my ($name, $spec) = @_;
    return { apiVersion => "$group/v1", kind => 'Widget', metadata => { name => $name },
        spec => $spec };
}

$s->create_namespace('h-read');
$s->kc_ok(undef, 'the widgets CRD, with extra and no default', 'apply', '-f', '-',
    { stdin => widgets_crd(old => 1) });
ok(wait_until(sub { ($s->call(GET => $widgets))[0] == 200 }, 5), 'widgets are served');

my ($st, $o) = $s->call(POST => $widgets, widget(w1 => { size => 1, extra => 'x' }));
is($st, 201, 'w1 is created with extra');
is_deeply($o->{spec}, { size => 1, extra => 'x' }, '... and no color');
my $rv1 = $o->{metadata}{resourceVersion};
# 70 objects of 4 KiB: a list of them is streamed, and decoded on a thread
for my $i (1 .. 70) {
    my ($c) = $s->call(POST => $widgets,
        widget(sprintf('p%02d', $i), { size => $i, extra => 'y', pad => 'z' x 4096 }));
    $c == 201 or fail("p$i: $c");
}

# --- the schema gains a default and loses extra
define('color gets a default, extra goes', 'w1',
    sub { ($_[0]{color} // '') eq 'blue' }, default => 1);
($st, $o) = $s->call(GET => "$widgets/w1");
is($st, 200, 'GET w1');
is_deeply($o->{spec}, { size => 1, color => 'blue' },
    '... shows the default and not the field the schema lost');
is($o->{metadata}{resourceVersion}, $rv1, '... at the resourceVersion it was stored at');

($st, $o) = $s->call(GET => $widgets);
is($st, 200, 'LIST');
is(scalar @{ $o->{items} }, 71, '... of every widget');
is_deeply([grep { ($_->{spec}{color} // '') ne 'blue' || exists $_->{spec}{extra} }
    @{ $o->{items} }], [], '... each with the default and without extra');

($st, $o) = $s->call(GET => "$widgets?limit=3");
is_deeply([map { [$_->{metadata}{name}, $_->{spec}{color}, exists $_->{spec}{extra}] }
    @{ $o->{items} }], [[p01 => 'blue', ''], [p02 => 'blue', ''], [p03 => 'blue', '']],
    'a page of the list: the same');

($st, $o) = $s->call(GET => "$widgets?labelSelector=missing!%3Dx");
is(scalar(grep { $_->{spec}{color} eq 'blue' } @{ $o->{items} }), 71,
    'a list with a label selector: the same');

my $w = $s->watch("$widgets?watch=true");
my %seen;
while (my $e = $w->next_event(3)) {
    $seen{ $e->{object}{metadata}{name} } = [$e->{type}, $e->{object}{spec}{color},
        exists $e->{object}{spec}{extra} ? 1 : 0];
    last if keys %seen == 71;
}
is_deeply($seen{w1}, ['ADDED', 'blue', 0], 'WATCH: w1 is ADDED with the default, without extra');
is(scalar(grep { $_->[1] eq 'blue' && !$_->[2] } values %seen), 71, '... and so is every widget');

($st, $o) = $s->call(GET => "/apis/$group/v2/namespaces/h-read/widgets/w1");
is_deeply([$o->{apiVersion}, $o->{spec}], ["$group/v2", { size => 1, color => 'blue' }],
    'GET at v2: the storage version\'s default');

# --- storage was not rewritten
define('the default goes again, extra is back', 'w1',
    sub { !exists $_[0]{color} && ($_[0]{extra} // '') eq 'x' }, old => 1);
($st, $o) = $s->call(GET => "$widgets/w1");
is_deeply($o->{spec}, { size => 1, extra => 'x' }, 'GET w1: as stored, extra back, no color');
($st, $o) = $s->call(GET => "$widgets/p07");
is_deeply([$o->{spec}{extra}, exists $o->{spec}{color}], ['y', ''], 'GET p07: the same');

# --- a write starts from the object as read, and stores what it shows
define('color gets its default again, extra goes again', 'w1',
    sub { ($_[0]{color} // '') eq 'blue' }, default => 1);
($st, $o) = $s->patch(merge => "$widgets/w1", { metadata => { labels => { a => 'b' } } });
is($st, 200, 'a merge patch of a label');
is_deeply([$o->{spec}, $o->{metadata}{generation}], [{ size => 1, color => 'blue' }, 1],
    '... answers with the default, without extra, at generation 1');
my $t = widget(p08 => { size => 80, pad => 'q' });
($st, $o) = $s->call(GET => "$widgets/p08");
$t->{metadata}{resourceVersion} = $o->{metadata}{resourceVersion};
($st, $o) = $s->call(PUT => "$widgets/p08", $t);
is_deeply([$st, $o->{spec}], [200, { size => 80, pad => 'q', color => 'blue' }],
    'an update without color: the default');
define('the default goes once more, extra is back', 'p09',
    sub { !exists $_[0]{color} && exists $_[0]{extra} }, old => 1);
($st, $o) = $s->call(GET => "$widgets/w1");
is_deeply($o->{spec}, { size => 1, color => 'blue' },
    'GET w1: the patch stored the default, and extra is gone for good');
($st, $o) = $s->call(GET => "$widgets/p09");
is_deeply([$o->{spec}{extra}, exists $o->{spec}{color}], ['y', ''],
    'GET p09, not written since: as stored');

# --- objects written under the current schema read as written
($st, $o) = $s->call(POST => $widgets, widget(n1 => { size => 5, note => 'hi' }));
is_deeply([$st, $o->{spec}], [201, { size => 5, note => 'hi' }], 'a new widget with a note');
($st, $o) = $s->call(GET => "$widgets/n1");
is_deeply($o->{spec}, { size => 5, note => 'hi' }, '... reads as written');
($st, $o) = $s->call(GET => "/apis/$group/v2/namespaces/h-read/widgets/n1");
is_deeply($o->{spec}, { size => 5 }, '... and at v2, whose schema has no note, without it');

$s->fatal_free_ok($s->error_log_since_start, 'reads of widgets');
done_testing;
