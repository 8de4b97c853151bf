#include "registry/patch/scalar_key.hpp"

#include <cstring>

namespace kube::registry::patch {

namespace {

template <typename T>
std::string tagged(char tag, T bits) {
    std::string out(1 + sizeof bits, tag);
    std::memcpy(out.data() + 1, &bits, sizeof bits);
    return out;
}

}  // namespace

std::optional<std::string> scalarKey(const util::json::Value* v) {
    if (!v || v->IsNull()) {
        return std::string("n");
    }
    if (v->IsString()) {
        std::string out = "s";
        out.append(v->GetString(), v->GetStringLength());
        return out;
    }
    if (v->IsBool()) {
        return std::string(v->GetBool() ? "t" : "f");
    }
    if (v->IsInt64()) {
        return tagged('i', v->GetInt64());
    }
    if (v->IsUint64()) {
        // Above INT64_MAX: never equal to an int64.
        return tagged('u', v->GetUint64());
    }
    if (v->IsNumber()) {
        double d = v->GetDouble();
        return tagged('d', d == 0 ? 0.0 : d);
    }
    return std::nullopt;
}

}  // namespace kube::registry::patch
