#pragma once

#include <string>

namespace kube::util {

// A random (version 4) UUID, as metadata.uid carries.
std::string newUid();

// `n` random characters from kube's generateName alphabet (no vowels, no
// look-alikes: "bcdfghjklmnpqrstvwxz2456789").
std::string randomSuffix(size_t n);

}  // namespace kube::util
