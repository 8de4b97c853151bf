#include "registry/table_cells.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "util/time.hpp"

namespace kube::registry::cells {

namespace {

// One requirement of a label selector, as labels.Requirement prints it.
struct Requirement {
    std::string key;
    std::string text;
};

std::string joinSorted(const json::Value* values) {
    std::vector<std::string> v;
    if (values && values->IsArray()) {
        for (const auto& e : values->GetArray()) {
            v.emplace_back(json::view(e));
        }
    }
    std::sort(v.begin(), v.end());
    std::string out;
    for (const auto& s : v) {
        out += out.empty() ? s : "," + s;
    }
    return out;
}

std::string expressionText(const json::Value& e) {
    std::string key(json::stringMember(e, "key"));
    std::string_view op = json::stringMember(e, "operator");
    const json::Value* values = json::member(e, "values");
    if (op == "In") {
        return key + " in (" + joinSorted(values) + ")";
    }
    if (op == "NotIn") {
        return key + " notin (" + joinSorted(values) + ")";
    }
    if (op == "DoesNotExist") {
        return "!" + key;
    }
    return key;  // Exists
}

}  // namespace

TableColumn textColumn(std::string name, std::string type, std::string description, TextCell cell,
                       int priority) {
    TableColumn c;
    c.name = std::move(name);
    c.type = std::move(type);
    c.description = std::move(description);
    c.priority = priority;
    c.cell = [cell = std::move(cell)](const json::Value& obj, const TableContext& ctx,
                                      json::Allocator& a) {
        return json::stringValue(cell(obj, ctx), a);
    };
    return c;
}

TableColumn countColumn(std::string name, std::string type, std::string description, CountCell cell,
                        int priority) {
    TableColumn c;
    c.name = std::move(name);
    c.type = std::move(type);
    c.description = std::move(description);
    c.priority = priority;
    c.cell = [cell = std::move(cell)](const json::Value& obj, const TableContext&,
                                      json::Allocator&) {
        return json::Value(static_cast<int64_t>(cell(obj)));
    };
    return c;
}

TableColumn nameColumn(int priority) {
    TableColumn c = textColumn(
        "Name", "string",
        "Name must be unique within a namespace. It is required when creating resources and "
        "cannot be updated.",
        [](const json::Value& obj, const TableContext&) {
            return std::string(text(obj, {"metadata", "name"}));
        },
        priority);
    c.format = "name";
    return c;
}

TableColumn ageColumn() {
    return textColumn(
        "Age", "string",
        "CreationTimestamp is the server time when the object was created, "
        "shown as the time elapsed since then.",
        [](const json::Value& obj, const TableContext& ctx) { return age(obj, ctx); });
}

std::vector<TableColumn> defaultColumns() {
    return {
        nameColumn(),
        textColumn(
            "Created At", "date",
            "CreationTimestamp is the server time when the object was created.",
            [](const json::Value& obj, const TableContext&) {
                auto t = util::time::parseRFC3339(text(obj, {"metadata", "creationTimestamp"}));
                // Go's zero time when there is none.
                return t ? util::time::formatRFC3339(*t) : "0001-01-01T00:00:00Z";
            }),
    };
}

std::string_view text(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    return v ? json::view(*v) : std::string_view();
}

int64_t integer(const json::Value& obj, std::initializer_list<std::string_view> path,
                int64_t fallback) {
    const json::Value* v = json::at(obj, path);
    if (v && v->IsInt64()) {
        return v->GetInt64();
    }
    if (v && v->IsNumber()) {
        return static_cast<int64_t>(v->GetDouble());
    }
    return fallback;
}

int64_t count(const json::Value* v) {
    if (v && v->IsObject()) {
        return v->MemberCount();
    }
    if (v && v->IsArray()) {
        return v->Size();
    }
    return 0;
}

bool isTrue(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    return v && v->IsBool() && v->GetBool();
}

std::string age(const json::Value& obj, const TableContext& ctx) {
    return util::time::humanSince(text(obj, {"metadata", "creationTimestamp"}), ctx.now);
}

std::string formatLabels(const json::Value* labels) {
    std::vector<std::pair<std::string_view, std::string_view>> kv;
    if (labels && labels->IsObject()) {
        for (const auto& m : labels->GetObject()) {
            kv.emplace_back(json::view(m.name), json::view(m.value));
        }
    }
    std::sort(kv.begin(), kv.end());
    std::string out;
    for (const auto& [k, v] : kv) {
        if (!out.empty()) {
            out += ",";
        }
        out.append(k).append("=").append(v);
    }
    return out.empty() ? "<none>" : out;
}

std::string labelSelectorString(const json::Value* selector) {
    if (!selector || !selector->IsObject()) {
        return "";
    }
    std::vector<Requirement> reqs;
    if (const json::Value* ml = json::member(*selector, "matchLabels"); ml && ml->IsObject()) {
        for (const auto& m : ml->GetObject()) {
            std::string key(json::view(m.name));
            reqs.push_back({key, key + "=" + std::string(json::view(m.value))});
        }
    }
    if (const json::Value* me = json::member(*selector, "matchExpressions"); me && me->IsArray()) {
        for (const auto& e : me->GetArray()) {
            reqs.push_back({std::string(json::stringMember(e, "key")), expressionText(e)});
        }
    }
    std::stable_sort(reqs.begin(), reqs.end(),
                     [](const Requirement& x, const Requirement& y) { return x.key < y.key; });
    std::string out;
    for (const auto& r : reqs) {
        out += out.empty() ? r.text : "," + r.text;
    }
    return out;
}

std::string formatLabelSelector(const json::Value* selector) {
    std::string s = labelSelectorString(selector);
    return s.empty() ? "<none>" : s;
}

std::string join(const json::Value* array, std::string_view sep) {
    std::string out;
    if (!array || !array->IsArray()) {
        return out;
    }
    bool first = true;
    for (const auto& e : array->GetArray()) {
        if (!first) {
            out += sep;
        }
        out += json::view(e);
        first = false;
    }
    return out;
}

namespace {

// `member` of each element of `containers`, comma-separated.
std::string joinContainerMember(const json::Value* containers, std::string_view member) {
    std::string out;
    if (containers && containers->IsArray()) {
        for (const auto& c : containers->GetArray()) {
            out += &c == containers->Begin() ? "" : ",";
            out += json::stringMember(c, member);
        }
    }
    return out;
}

}  // namespace

std::string containerNames(const json::Value* containers) {
    return joinContainerMember(containers, "name");
}

std::string containerImages(const json::Value* containers) {
    return joinContainerMember(containers, "image");
}

std::string boolPtr(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    if (!v || !v->IsBool()) {
        return "<unset>";
    }
    return v->GetBool() ? "True" : "False";
}

std::string loadBalancerIngress(const json::Value& obj) {
    std::set<std::string> result;
    const json::Value* ingress = json::at(obj, {"status", "loadBalancer", "ingress"});
    if (ingress && ingress->IsArray()) {
        for (const auto& i : ingress->GetArray()) {
            std::string_view ip = json::stringMember(i, "ip");
            std::string_view host = json::stringMember(i, "hostname");
            if (!ip.empty()) {
                result.emplace(ip);
            } else if (!host.empty()) {
                result.emplace(host);
            }
        }
    }
    std::string out;
    for (const std::string& s : result) {
        out += out.empty() ? s : "," + s;
    }
    return out;
}

}  // namespace kube::registry::cells
