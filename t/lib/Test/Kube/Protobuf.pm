package Test::Kube::Protobuf;

=head1 NAME

Test::Kube::Protobuf - the protobuf wire format, enough to write kube's
protobuf bodies and read its answers (exported by Test::Kube)

=head1 FUNCTIONS

Writing:

    pb_varint($n)                   a base-128 varint
    pb_int($number, $n)             field $number as a varint (wire type 0)
    pb_bytes($number, $bytes)       field $number length-delimited (wire type 2):
                                    strings, bytes and embedded messages
    pb_envelope($apiVersion, $kind, $raw)
                                    a protobuf request body: "k8s\0" and a
                                    runtime.Unknown holding the message $raw,
                                    with the empty contentEncoding and
                                    contentType kube writes

Reading (each dies on a truncated or unexpected wire type):

    pb_fields($bytes)  -> ([number, value], ...) every field in order: varints
                          as numbers, length-delimited fields as bytes
    pb_msg($bytes)     -> {number => last value, "number*" => [every value]}
    pb_unwrap($body)   -> {apiVersion, kind, raw, encoding, type} of a
                          "k8s\0" envelope, or undef when $body is not one

=cut

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(pb_varint pb_int pb_bytes pb_envelope pb_fields pb_msg pb_unwrap);

sub pb_varint {
    my $n = shift;
    my $out = '';
    while ($n >= 0x80) {
        $out .= chr(($n & 0x7f) | 0x80);
        $n >>= 7;
    }
    return $out . chr($n);
}

sub pb_int {
    my ($number, $n) = @_;
    return pb_varint($number << 3) . pb_varint($n);
}

sub pb_bytes {
    my ($number, $bytes) = @_;
    return pb_varint(($number << 3) | 2) . pb_varint(length $bytes) . $bytes;
}

sub pb_envelope {
    my ($api_version, $kind, $raw) = @_;
    return "k8s\0" . pb_bytes(1, pb_bytes(1, $api_version) . pb_bytes(2, $kind))
        . pb_bytes(2, $raw) . pb_bytes(3, '') . pb_bytes(4, '');
}

sub pb_fields {
    my $bytes = shift;
    my @out;
    my $read_varint = sub {
        my ($n, $shift) = (0, 0);
        while (1) {
            die "truncated varint\n" if $bytes eq '';
            my $b = ord substr($bytes, 0, 1, '');
            $n |= ($b & 0x7f) << $shift;
            return $n unless $b & 0x80;
            $shift += 7;
        }
    };
    while ($bytes ne '') {
        my $tag = $read_varint->();
        my ($number, $type) = ($tag >> 3, $tag & 7);
        if ($type == 0) {
            push @out, [ $number, $read_varint->() ];
        } elsif ($type == 2) {
            my $len = $read_varint->();
            die "truncated field $number\n" if length $bytes < $len;
            push @out, [ $number, substr($bytes, 0, $len, '') ];
        } else {
            die "unexpected wire type $type\n";
        }
    }
    return @out;
}

sub pb_msg {
    my %m;
    for my $f (pb_fields(shift)) {
        $m{ $f->[0] } = $f->[1];
        push @{ $m{"$f->[0]*"} }, $f->[1];
    }
    return \%m;
}

sub pb_unwrap {
    my $body = shift;
    return undef unless defined $body && substr($body, 0, 4) eq "k8s\0";
    my $u = eval { pb_msg(substr($body, 4)) } or return undef;
    my $tm = pb_msg($u->{1} // '');
    return { apiVersion => $tm->{1}, kind => $tm->{2}, raw => $u->{2},
        encoding => $u->{3}, type => $u->{4} };
}

1;
