#include "apis/core/field_errors.hpp"

#include <algorithm>
#include <utility>

namespace kube::apis::core::field {

namespace json = util::json;
using registry::validation::goQuote;

BadValue goStringMap(const json::Value* map) {
    if (!map || !map->IsObject()) {
        return BadValue::raw("map[string]string(nil)");
    }
    std::vector<std::pair<std::string_view, std::string_view>> kv;
    for (const auto& m : map->GetObject()) {
        kv.emplace_back(json::view(m.name), json::view(m.value));
    }
    std::sort(kv.begin(), kv.end());
    std::string out = "map[string]string{";
    for (size_t i = 0; i < kv.size(); i++) {
        out += (i ? ", " : "") + goQuote(kv[i].first) + ":" + goQuote(kv[i].second);
    }
    return BadValue::raw(out + "}");
}

void validatePortNumber(const json::Value* v, const std::string& path, Causes& out) {
    if (!v || !v->IsInt64()) {
        return;
    }
    int64_t p = v->GetInt64();
    if (p < 1 || p > 65535) {
        out.push_back(invalid(path, p, "must be between 1 and 65535, inclusive"));
    }
}

void validateEnum(const json::Value* v, const std::string& path,
                  std::initializer_list<std::string_view> supported, Causes& out) {
    if (!v || !v->IsString()) {
        return;
    }
    std::string_view s = json::view(*v);
    if (std::find(supported.begin(), supported.end(), s) == supported.end()) {
        out.push_back(
            notSupported(path, s, std::vector<std::string>(supported.begin(), supported.end())));
    }
}

void validateNonnegative(const json::Value* v, const std::string& path, Causes& out) {
    if (v && v->IsInt64() && v->GetInt64() < 0) {
        out.push_back(invalid(path, v->GetInt64(), "must be greater than or equal to 0"));
    }
}

}  // namespace kube::apis::core::field
