#include "registry/patch/scalar_key.hpp"

#include <cstring>
#include <functional>
#include <string_view>

#include "registry/patch/go_format.hpp"

namespace kube::registry::patch {

namespace {

size_t mix(uint64_t x, uint64_t tag) {
    x ^= tag * 0x9e3779b97f4a7c15ULL;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<size_t>(x);
}

}  // namespace

bool goScalarEqual(const util::json::Value* a, const util::json::Value* b) {
    bool aNil = !a || a->IsNull();
    bool bNil = !b || b->IsNull();
    if (aNil || bNil) {
        return aNil && bNil;
    }
    return goEqual(*a, *b);
}

bool isGoScalar(const util::json::Value* v) {
    return !v || !(v->IsObject() || v->IsArray());
}

size_t goScalarHash(const util::json::Value* v) {
    if (!v || v->IsNull()) {
        return mix(0, 1);
    }
    if (v->IsString()) {
        return std::hash<std::string_view>()(util::json::view(*v));
    }
    if (v->IsBool()) {
        return mix(v->GetBool(), 2);
    }
    if (v->IsInt64()) {
        return mix(static_cast<uint64_t>(v->GetInt64()), 3);
    }
    if (v->IsUint64()) {
        return mix(v->GetUint64(), 4);
    }
    if (v->IsNumber()) {
        double d = v->GetDouble();
        if (d == 0) {
            d = 0;  // -0 equals 0
        }
        uint64_t bits = 0;
        std::memcpy(&bits, &d, sizeof bits);
        return mix(bits, 5);
    }
    return 0;
}

}  // namespace kube::registry::patch
