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

BadValue goStringList(const json::Value* list) {
    if (!list || !list->IsArray()) {
        return BadValue::raw("[]string(nil)");
    }
    std::string out = "[]string{";
    for (rapidjson::SizeType i = 0; i < list->Size(); i++) {
        const json::Value& item = (*list)[i];
        out += (i ? ", " : "") + goQuote(item.IsString() ? json::view(item) : std::string_view());
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

void validateLabelSelector(const json::Value* selector, const std::string& path,
                           bool allowInvalidLabelValues, Causes& out) {
    if (!selector || !selector->IsObject()) {
        return;
    }
    const json::Value* labels = json::member(*selector, "matchLabels");
    std::string labelsPath = child(path, "matchLabels");
    if (labels && labels->IsObject()) {
        for (const auto& m : labels->GetObject()) {
            for (const std::string& msg :
                 registry::validation::isQualifiedName(json::view(m.name))) {
                out.push_back(invalid(labelsPath, json::view(m.name), msg));
            }
            for (const std::string& msg :
                 registry::validation::isValidLabelValue(json::view(m.value))) {
                out.push_back(invalid(labelsPath, json::view(m.value), msg));
            }
        }
    }
    const json::Value* exprs = json::member(*selector, "matchExpressions");
    if (!exprs || !exprs->IsArray()) {
        return;
    }
    for (rapidjson::SizeType i = 0; i < exprs->Size(); i++) {
        const json::Value& req = (*exprs)[i];
        std::string p = index(child(path, "matchExpressions"), i);
        std::string_view op = json::stringMember(req, "operator");
        const json::Value* values = json::member(req, "values");
        rapidjson::SizeType n = values && values->IsArray() ? values->Size() : 0;
        if (op == "In" || op == "NotIn") {
            if (n == 0) {
                out.push_back(required(child(p, "values"),
                                       "must be specified when `operator` is 'In' or 'NotIn'"));
            }
        } else if (op == "Exists" || op == "DoesNotExist") {
            if (n > 0) {
                out.push_back(forbidden(child(p, "values"),
                                        "may not be specified when `operator` is 'Exists' or "
                                        "'DoesNotExist'"));
            }
        } else {
            out.push_back(invalid(child(p, "operator"), op, "not a valid selector operator"));
        }
        std::string_view key = json::stringMember(req, "key");
        for (const std::string& msg : registry::validation::isQualifiedName(key)) {
            out.push_back(invalid(child(p, "key"), key, msg));
        }
        for (rapidjson::SizeType j = 0; !allowInvalidLabelValues && j < n; j++) {
            std::string_view value = json::view((*values)[j]);
            for (const std::string& msg : registry::validation::isValidLabelValue(value)) {
                out.push_back(invalid(index(child(p, "values"), j), value, msg));
            }
        }
    }
}

std::vector<std::string> isValidPortName(std::string_view port) {
    std::vector<std::string> out;
    if (port.size() > 15) {
        out.push_back("must be no more than 15 characters");
    }
    if (port.empty() ||
        port.find_first_not_of("-abcdefghijklmnopqrstuvwxyz0123456789") != std::string_view::npos) {
        out.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if (port.find_first_of("abcdefghijklmnopqrstuvwxyz") == std::string_view::npos) {
        out.push_back("must contain at least one letter (a-z)");
    }
    if (port.find("--") != std::string_view::npos) {
        out.push_back("must not contain consecutive hyphens");
    }
    if (!port.empty() && (port.front() == '-' || port.back() == '-')) {
        out.push_back("must not begin or end with a hyphen");
    }
    return out;
}

bool sameMember(const util::json::Value& a, const util::json::Value& b, std::string_view name) {
    const util::json::Value* x = a.IsObject() ? util::json::member(a, name) : nullptr;
    const util::json::Value* y = b.IsObject() ? util::json::member(b, name) : nullptr;
    if (x && x->IsNull()) {
        x = nullptr;
    }
    if (y && y->IsNull()) {
        y = nullptr;
    }
    return (!x && !y) || (x && y && *x == *y);
}

void validateImmutableWhenSet(const util::json::Value& obj, const util::json::Value& old,
                              std::initializer_list<std::string_view> fields, Causes& out) {
    auto isSet = [](const util::json::Value& o) {
        const util::json::Value* v = util::json::member(o, "immutable");
        return v && v->IsBool() && v->GetBool();
    };
    if (!isSet(old)) {
        return;
    }
    constexpr std::string_view why = "field is immutable when `immutable` is set";
    if (!isSet(obj)) {
        out.push_back(forbidden("immutable", why));
    }
    for (std::string_view f : fields) {
        if (!sameMember(obj, old, f)) {
            out.push_back(forbidden(f, why));
        }
    }
}

}  // namespace kube::apis::core::field
