package Test::Kube::Crd;

=head1 NAME

Test::Kube::Crd - CustomResourceDefinitions for the tests, from what a test
says about its kind (exported by Test::Kube)

=head1 FUNCTIONS

    crd(group => G, kind => K, %opts)       the definition as a Perl structure
                                            (call() sends it as JSON)
    crd_yaml(group => G, kind => K, %opts)  the same as YAML text, for
                                            kubectl -f (or call() with
                                            type => 'application/yaml')

Options:

    plural          default lc(kind) . 's'
    name            default "<plural>.<group>"
    scope           default Namespaced
    singular, short_names => [...], categories => [...], list_kind
                    spec.names' other members, when given
    conversion      spec.conversion, when given
    schema          the openAPIV3Schema of a single version v1; default
                    {type: object, x-kubernetes-preserve-unknown-fields: true}
    versions => [ {name => 'v1', schema => S, columns => [...], ...}, ... ]
                    the versions: served unless served => false, the first
                    one the storage version unless storage is given; columns
                    are additionalPrinterColumns; any other member
                    (subresources, deprecated, ...) is copied as it is

With crd_yaml, a reference to a string is YAML text that stands where the
value would (its common indentation is removed): schema => \<<'Y' keeps a
long schema readable. Anything else is written as JSON, which is YAML too.

=cut

use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();

our @EXPORT = qw(crd crd_yaml);

my $JSON = JSON::PP->new->canonical->allow_nonref;

sub crd {
    my (%o) = @_;
    die "crd: group and kind are required\n" unless $o{group} && $o{kind};
    my $plural = $o{plural} // lc($o{kind}) . 's';
    my %names = (plural => $plural, kind => $o{kind});
    $names{singular} = $o{singular} if defined $o{singular};
    $names{shortNames} = $o{short_names} if $o{short_names};
    $names{categories} = $o{categories} if $o{categories};
    $names{listKind} = $o{list_kind} if defined $o{list_kind};
    my @versions = @{ $o{versions} || [ { name => 'v1', schema => $o{schema} } ] };
    my $first = 1;
    my @specs;
    for my $v (@versions) {
        my %v = %$v;
        my $schema = delete($v{schema}) // { type => 'object',
            'x-kubernetes-preserve-unknown-fields' => JSON::PP::true() };
        my $columns = delete $v{columns};
        push @specs, { served => JSON::PP::true(), storage => $first ? JSON::PP::true()
                : JSON::PP::false(), %v, ($columns ? (additionalPrinterColumns => $columns) : ()),
            schema => { openAPIV3Schema => $schema } };
        $first = 0;
    }
    return { apiVersion => 'apiextensions.k8s.io/v1', kind => 'CustomResourceDefinition',
        metadata => { name => $o{name} // "$plural.$o{group}" },
        spec => { group => $o{group}, names => \%names, scope => $o{scope} // 'Namespaced',
            ($o{conversion} ? (conversion => $o{conversion}) : ()), versions => \@specs } };
}

sub crd_yaml {
    (my $text = _yaml(crd(@_), '')) =~ s/\A\n//;
    return $text;
}

# The YAML of a value that follows "key:" or "-" at indentation $pad: on the
# same line when it is a scalar or empty, else on the lines below.
sub _yaml {
    my ($v, $pad) = @_;
    my $ref = ref $v;
    if ($ref eq 'SCALAR') {
        my $text = $$v;
        my ($indent) = sort { $a <=> $b } map { /^( *)\S/ ? length $1 : () } split /\n/, $text;
        $text =~ s/^ {$indent}//mg if $indent;
        $text =~ s/^(?=.)/$pad/mg;
        return "\n$text" . ($text =~ /\n\z/ ? '' : "\n");
    }
    if ($ref eq 'HASH') {
        return " {}\n" unless %$v;
        return "\n" . join '', map { "$pad$_:" . _yaml($v->{$_}, "$pad  ") } sort keys %$v;
    }
    if ($ref eq 'ARRAY') {
        return " []\n" unless @$v;
        # "- " and the first line of a block item: "- name: v1".
        return "\n" . join '', map { (my $item = _yaml($_, "$pad  ")) =~ s/\A\n$pad  / /;
            "$pad-$item" } @$v;
    }
    # A word that YAML reads as the same string goes bare.
    return " $v\n" if defined $v && !ref $v && $v =~ m{\A[A-Za-z][\w./-]*\z}
        && $v !~ /\A(?:true|false|null|yes|no|on|off|y|n)\z/i;
    return ' ' . $JSON->encode($v) . "\n";
}

1;
