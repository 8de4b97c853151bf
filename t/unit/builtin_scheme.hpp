#pragma once

// The scheme of the built-in kinds, built once per test binary.

#include "registry/scheme.hpp"

namespace kube::testing {

inline const registry::Scheme& builtinScheme() {
    static const registry::Scheme scheme = [] {
        registry::Scheme s;
        registry::addBuiltinKinds(s);
        return s;
    }();
    return scheme;
}

}  // namespace kube::testing
