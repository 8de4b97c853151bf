// The strict IP and CIDR checks of the fields new in kube (an IPAddress's
// name, a ServiceCIDR's cidrs) say what kube 1.33's validation.IsValidIP and
// validation.IsValidCIDR say: what its sloppy parser refuses is invalid, then
// at most one of leading zeros, an IPv4-mapped address, bits beyond the
// prefix, a non-canonical form.
#include <string>
#include <vector>

#include "registry/ip_validation.hpp"

// cmocka last: its fail() macro breaks standard headers included after it.
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}
// clang-format on

namespace {

namespace v = kube::registry::validation;

const char* const kBadIP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const char* const kBadCIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

struct Case {
    const char* value;
    const char* message;  // null: valid
};

void check(const std::vector<std::string>& got, const Case& c) {
    if (!c.message) {
        if (!got.empty()) {
            fail_msg("\"%s\": valid, got \"%s\"", c.value, got[0].c_str());
        }
        return;
    }
    if (got.size() != 1 || got[0] != c.message) {
        fail_msg("\"%s\": want \"%s\", got %zu messages (\"%s\")", c.value, c.message, got.size(),
                 got.empty() ? "" : got[0].c_str());
    }
}

void ips_in_canonical_form_are_valid(void**) {
    for (const Case& c : {
             Case{"10.9.8.7", nullptr},
             Case{"0.0.0.0", nullptr},
             Case{"255.255.255.255", nullptr},
             Case{"::", nullptr},
             Case{"::1", nullptr},
             Case{"fe80::abc", nullptr},
             Case{"2001:db8::ffff", nullptr},
             // one zero field stays; of two equal runs the first is "::"
             Case{"2001:db8:0:1:1:1:1:1", nullptr},
             Case{"2001:db8::1:0:0:1", nullptr},
             Case{"1:0:0:1::", nullptr},
         }) {
        check(v::isValidCanonicalIP(c.value), c);
    }
}

void unparsable_ips_are_invalid_and_nothing_more(void**) {
    for (const char* value :
         {"", "10.9.8", "10.9.8.7.6", "256.1.1.1", "a.b.c.d", "10.9.8.7:80", " 10.9.8.7",
          "10.9.8.7/32", "2001:db8::1::2", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8",
          "1:2:3:4:5:6:7", "2001:db8::1:", "::10000", "::1%eth0", "2001:db8::g", "1.2.3.4::",
          "::1.2.3", "1::2:3:4:5:6:1.2.3.4", "1:2:3:4:5:1.2.3.4"}) {
        check(v::isValidCanonicalIP(value), {value, kBadIP});
    }
}

// What Go's old net.ParseIP reads and netip.ParseAddr does not: leading zeros
// in an IPv4 part, also as an IPv6 address's tail, and IPv6 fields of more
// than four digits.
void leading_zeros_are_refused(void**) {
    for (const char* value : {"010.9.8.7", "10.09.8.7", "10.9.8.000", "0000010.9.8.7",
                              "::ffff:010.9.8.7", "00001::1", "2001:00db8::1"}) {
        check(v::isValidCanonicalIP(value), {value, "must not have leading 0s"});
    }
}

void ipv4_mapped_ipv6_is_refused(void**) {
    for (const char* value : {"::ffff:10.9.8.7", "::ffff:a09:807", "0:0:0:0:0:ffff:10.9.8.7"}) {
        check(v::isValidCanonicalIP(value), {value, "must not be an IPv4-mapped IPv6 address"});
    }
}

// Go's net.IP.String: lowercase, no leading zeros, the first longest run of
// two or more zero fields as "::", and an IPv4 tail in hex unless mapped.
void non_canonical_ipv6_names_its_canonical_form(void**) {
    for (const Case& c : {
             Case{"2001:DB8::1", "must be in canonical form (\"2001:db8::1\")"},
             Case{"2001:db8:0:0:0:0:0:1", "must be in canonical form (\"2001:db8::1\")"},
             Case{"2001:db8::0:1", "must be in canonical form (\"2001:db8::1\")"},
             Case{"0001::1", "must be in canonical form (\"1::1\")"},
             Case{"2001:db8::0", "must be in canonical form (\"2001:db8::\")"},
             Case{"0:0:0:0:0:0:0:0", "must be in canonical form (\"::\")"},
             Case{"2001:0:0:1:0:0:0:1", "must be in canonical form (\"2001:0:0:1::1\")"},
             Case{"2001:db8::1:0:0:0:1", "must be in canonical form (\"2001:db8:0:1::1\")"},
             Case{"::1.2.3.4", "must be in canonical form (\"::102:304\")"},
             Case{"::ffff:0:1.2.3.4", "must be in canonical form (\"::ffff:0:102:304\")"},
         }) {
        check(v::isValidCanonicalIP(c.value), c);
    }
}

void subnet_cidrs_in_canonical_form_are_valid(void**) {
    for (const char* value : {"10.9.8.0/24", "10.96.0.0/12", "0.0.0.0/0", "10.9.8.7/32",
                              "2001:db8::/64", "::/0", "fd00::1/128", "2001:db8:0:1::/64"}) {
        check(v::isValidCanonicalCIDR(value), {value, nullptr});
    }
}

void unparsable_cidrs_are_invalid_and_nothing_more(void**) {
    for (const char* value :
         {"", "10.9.8.0", "10.9.8.0/", "/24", "10.9.8.0/33", "2001:db8::/129", "10.9.8.0/+8",
          "10.9.8.0/-1", "10.9.8.0/ab", "10.9.8.0/24/24", "10.9.8/24", "256.9.8.0/24",
          "2001:db8::g/64", "10.9.8.0 /24", "fe80::%eth0/64", "10.9.8.0/4294967320"}) {
        check(v::isValidCanonicalCIDR(value), {value, kBadCIDR});
    }
}

// The first thing wrong is all kube says: leading zeros, then a mapped
// address, then bits beyond the prefix, then the form.
void cidr_faults_are_named_one_at_a_time(void**) {
    const char* zeros = "must not have leading 0s in IP or prefix length";
    const char* mapped = "must not have an IPv4-mapped IPv6 address";
    const char* bits = "must not have bits set beyond the prefix length";
    for (const Case& c : {
             Case{"010.9.8.0/24", zeros},
             Case{"10.9.8.0/024", zeros},
             Case{"10.9.8.0/0000024", zeros},  // the sloppy parser reads any zeros
             Case{"10.9.8.0/00", zeros},
             Case{"010.9.8.1/24", zeros},  // bits set too: not said
             Case{"00002001:db8::/64", zeros},
             Case{"::ffff:10.9.8.0/120", mapped},
             Case{"::ffff:10.9.8.1/120", mapped},  // bits set too: not said
             Case{"10.9.8.1/24", bits},
             Case{"10.96.0.1/12", bits},
             Case{"2001:db8::1/64", bits},
             Case{"2001:DB8::1/64", bits},  // not canonical either: not said
             Case{"2001:DB8::/64", "must be in canonical form (\"2001:db8::/64\")"},
             Case{"2001:db8:0:0::/64", "must be in canonical form (\"2001:db8::/64\")"},
             Case{"0::/0", "must be in canonical form (\"::/0\")"},
         }) {
        check(v::isValidCanonicalCIDR(c.value), c);
    }
}

// The families a dual-stack ServiceCIDR's pair is checked for come from the
// sloppy parser: a mapped address is IPv4, leading zeros are read.
void cidr_families_are_the_sloppy_parsers(void**) {
    assert_int_equal(v::cidrFamily("10.96.0.0/12"), 4);
    assert_int_equal(v::cidrFamily("10.9.8.1/24"), 4);
    assert_int_equal(v::cidrFamily("010.9.8.0/24"), 4);
    assert_int_equal(v::cidrFamily("::ffff:10.9.8.0/120"), 4);
    assert_int_equal(v::cidrFamily("2001:db8::/64"), 6);
    assert_int_equal(v::cidrFamily("::/0"), 6);
    assert_int_equal(v::cidrFamily("10.9.8.0"), 0);
    assert_int_equal(v::cidrFamily("10.9.8.0/33"), 0);
    assert_int_equal(v::cidrFamily(""), 0);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ips_in_canonical_form_are_valid),
        cmocka_unit_test(unparsable_ips_are_invalid_and_nothing_more),
        cmocka_unit_test(leading_zeros_are_refused),
        cmocka_unit_test(ipv4_mapped_ipv6_is_refused),
        cmocka_unit_test(non_canonical_ipv6_names_its_canonical_form),
        cmocka_unit_test(subnet_cidrs_in_canonical_form_are_valid),
        cmocka_unit_test(unparsable_cidrs_are_invalid_and_nothing_more),
        cmocka_unit_test(cidr_faults_are_named_one_at_a_time),
        cmocka_unit_test(cidr_families_are_the_sloppy_parsers),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
