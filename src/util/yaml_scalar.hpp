#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

// Scalar resolution for util/yaml.hpp: what go-yaml v2 makes of one YAML
// scalar when it decodes into an interface{}.
namespace kube::util::yaml {

enum class ScalarType { Null, Bool, Int, Uint, Float, String };

struct Scalar {
    ScalarType type = ScalarType::Null;
    bool b = false;
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0;   // Float
    std::string s;  // String
};

// Mirrors go-yaml v2's decoder.scalar: `tag` is the scalar's long-form tag
// ("" when none), `implicit` is true for a plain scalar without a tag. On a
// tag the value cannot have, returns go-yaml's message without its "yaml: "
// prefix ("cannot decode !!str `abc` as a !!int").
std::optional<std::string> resolveScalar(std::string_view tag, std::string_view value,
                                         bool implicit, Scalar* out);

// strconv.FormatFloat(d, 'g', -1, 32 or 64): shortest digits, exponent form
// below 1e-4 and from 1e6 on; "NaN", "+Inf", "-Inf".
std::string formatGoFloat(double d, bool asFloat32);

}  // namespace kube::util::yaml
