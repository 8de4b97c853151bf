#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/resource_names.hpp"
#include "registry/table_cells.hpp"
#include "util/quantity.hpp"
#include "util/uid.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using util::Quantity;

// Copies every entry of `from` that `to` lacks into `to`, creating it when
// there is something to copy (an empty map is never written).
void fillMissing(json::Value& item, const char* from, const char* to, json::Allocator& a) {
    const json::Value* source = json::member(item, from);
    if (!source || !source->IsObject() || source->MemberCount() == 0) {
        return;
    }
    json::Value* target = json::member(item, to);
    if (!target || !target->IsObject()) {
        // Adding a member may move item's members: look both up again.
        json::setMember(item, to, json::Value(rapidjson::kObjectType), a);
        target = json::member(item, to);
        source = json::member(item, from);
    }
    for (const auto& m : source->GetObject()) {
        if (!json::member(*target, json::view(m.name))) {
            target->AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
        }
    }
}

// Mirrors SetDefaults_LimitRangeItem: a container's default limit is its
// max, its default request the default limit, else the min.
void defaultLimitRange(json::Value& obj, json::Allocator& a) {
    json::Value* spec = json::member(obj, "spec");
    json::Value* limits = spec && spec->IsObject() ? json::member(*spec, "limits") : nullptr;
    if (!limits || !limits->IsArray()) {
        return;
    }
    for (auto& item : limits->GetArray()) {
        if (!item.IsObject() || json::stringMember(item, "type") != "Container") {
            continue;
        }
        fillMissing(item, "max", "default", a);
        fillMissing(item, "default", "defaultRequest", a);
        fillMissing(item, "min", "defaultRequest", a);
    }
}

// Mirrors limitrangeStrategy.PrepareForCreate: a limit range sent without a
// name (and generateName) is named by a fresh UUID.
void prepareLimitRange(json::Value& obj, json::Allocator& a) {
    json::Value* metadata = json::member(obj, "metadata");
    if (metadata && metadata->IsObject() && json::stringMember(*metadata, "name").empty()) {
        json::setMember(*metadata, "name", json::stringValue(util::newUid(), a), a);
    }
}

// Mirrors validateLimitRangeTypeName.
void validateTypeName(std::string_view type, const std::string& path, field::Causes& out) {
    std::vector<std::string> msgs = registry::validation::isQualifiedName(type);
    for (const std::string& msg : msgs) {
        out.push_back(field::invalid(path, type, msg));
    }
    bool standard = type == "Pod" || type == "Container" || type == "PersistentVolumeClaim";
    if (msgs.empty() && type.find('/') == std::string_view::npos && !standard) {
        out.push_back(
            field::invalid(path, type, "must be a standard limit type or fully qualified"));
    }
}

using Amounts = std::map<std::string, Quantity>;

// The names of list `name` of `item`, checked, with their parsed amounts.
Amounts readList(const json::Value& item, std::string_view type, const char* name,
                 const std::string& path, std::set<std::string>& keys, field::Causes& out) {
    Amounts amounts;
    const json::Value* list = json::member(item, name);
    if (!list || !list->IsObject()) {
        return amounts;
    }
    for (const auto& m : list->GetObject()) {
        std::string key(json::view(m.name));
        std::string p = field::key(field::child(path, name), key);
        // Pod and container limits name what containers request; the other
        // types (PersistentVolumeClaim) may name storage too.
        if (type == "Pod" || type == "Container") {
            validateContainerResourceName(key, p, out);
        } else {
            validateResourceName(key, p, out);
        }
        keys.insert(key);
        std::string text =
            m.value.IsString() ? std::string(json::view(m.value)) : json::serialize(m.value);
        if (auto q = Quantity::parse(text)) {
            amounts.emplace(key, *q);
        }
    }
    return amounts;
}

const Quantity* find(const Amounts& amounts, const std::string& key) {
    auto it = amounts.find(key);
    return it == amounts.end() ? nullptr : &it->second;
}

// Go's %f: six decimals.
std::string goFixed(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%f", v);
    return buf;
}

// The relations between the amounts of one resource across the lists of
// one item: min <= defaultRequest <= default <= max, and the ratio.
void validateAmounts(const std::string& key, const std::string& path, const Amounts& max,
                     const Amounts& min, const Amounts& defaults, const Amounts& defaultRequests,
                     const Amounts& ratios, field::Causes& out) {
    const Quantity* mn = find(min, key);
    const Quantity* mx = find(max, key);
    const Quantity* def = find(defaults, key);
    const Quantity* req = find(defaultRequests, key);
    const Quantity* ratio = find(ratios, key);
    auto at = [&](const char* list) { return field::key(field::child(path, list), key); };
    auto bad = [](const Quantity& q) { return field::BadValue::raw(q.goString()); };
    if (mn && mx && mn->compare(*mx) > 0) {
        out.push_back(field::invalid(
            at("min"), bad(*mn),
            "min value " + mn->string() + " is greater than max value " + mx->string()));
    }
    if (req && mn && mn->compare(*req) > 0) {
        out.push_back(field::invalid(at("defaultRequest"), bad(*req),
                                     "min value " + mn->string() +
                                         " is greater than default request value " +
                                         req->string()));
    }
    if (req && mx && req->compare(*mx) > 0) {
        out.push_back(field::invalid(at("defaultRequest"), bad(*req),
                                     "default request value " + req->string() +
                                         " is greater than max value " + mx->string()));
    }
    if (req && def && req->compare(*def) > 0) {
        out.push_back(field::invalid(at("defaultRequest"), bad(*req),
                                     "default request value " + req->string() +
                                         " is greater than default limit value " + def->string()));
    }
    if (def && mn && mn->compare(*def) > 0) {
        out.push_back(field::invalid(
            at("default"), bad(*mn),
            "min value " + mn->string() + " is greater than default value " + def->string()));
    }
    if (def && mx && def->compare(*mx) > 0) {
        out.push_back(field::invalid(
            at("default"), bad(*mx),
            "default value " + def->string() + " is greater than max value " + mx->string()));
    }
    if (ratio && ratio->compare(*Quantity::parse("1")) < 0) {
        out.push_back(field::invalid(at("maxLimitRequestRatio"), bad(*ratio),
                                     "ratio " + ratio->string() + " is less than 1"));
    }
    if (ratio && mn && mx) {
        // resource.MaxMilliValue: past it, milli-units overflow int64.
        constexpr int64_t maxMilli = std::numeric_limits<int64_t>::max() / 1000;
        double ratioValue = static_cast<double>(ratio->value());
        int64_t minValue = mn->value();
        int64_t maxValue = mx->value();
        if (ratio->value() < maxMilli && minValue < maxMilli && maxValue < maxMilli) {
            ratioValue = static_cast<double>(ratio->milliValue()) / 1000;
            minValue = mn->milliValue();
            maxValue = mx->milliValue();
        }
        double limit = static_cast<double>(maxValue) / static_cast<double>(minValue);
        if (ratioValue > limit) {
            out.push_back(field::invalid(
                at("maxLimitRequestRatio"), bad(*ratio),
                "ratio " + ratio->string() + " is greater than max/min = " + goFixed(limit)));
        }
    }
    // Resources that cannot be overcommitted (extended ones, huge pages)
    // need the default request to be the default limit.
    if (!isOvercommitAllowed(key) && def && req && def->compare(*req) != 0) {
        out.push_back(field::invalid(at("defaultRequest"), bad(*req),
                                     "default value " + def->string() +
                                         " must equal to defaultRequest value " + req->string() +
                                         " in " + key));
    }
}

// Mirrors ValidateLimitRange (the metadata checks are the store's).
field::Causes validateLimitRange(const json::Value& obj) {
    field::Causes out;
    const json::Value* limits = json::at(obj, {"spec", "limits"});
    if (!limits || !limits->IsArray()) {
        return out;
    }
    std::set<std::string_view> types;
    for (rapidjson::SizeType i = 0; i < limits->Size(); i++) {
        const json::Value& item = (*limits)[i];
        std::string path = field::index("spec.limits", i);
        std::string_view type = json::stringMember(item, "type");
        validateTypeName(type, field::child(path, "type"), out);
        if (!types.insert(type).second) {
            out.push_back(field::duplicate(field::child(path, "type"), type));
        }
        std::set<std::string> keys;
        Amounts max = readList(item, type, "max", path, keys, out);
        Amounts min = readList(item, type, "min", path, keys, out);
        Amounts defaults, defaultRequests;
        if (type == "Pod") {
            for (const char* list : {"default", "defaultRequest"}) {
                if (cells::count(json::member(item, list)) > 0) {
                    out.push_back(field::forbidden(field::child(path, list),
                                                   "may not be specified when `type` is 'Pod'"));
                }
            }
        } else {
            defaults = readList(item, type, "default", path, keys, out);
            defaultRequests = readList(item, type, "defaultRequest", path, keys, out);
        }
        if (type == "PersistentVolumeClaim" && !json::at(item, {"min", "storage"}) &&
            !json::at(item, {"max", "storage"})) {
            out.push_back(field::required(field::child(path, "limits"),
                                          "either minimum or maximum storage value is required, "
                                          "but neither was provided"));
        }
        Amounts ratios = readList(item, type, "maxLimitRequestRatio", path, keys, out);
        for (const std::string& key : keys) {
            validateAmounts(key, path, max, min, defaults, defaultRequests, ratios, out);
        }
    }
    return out;
}

}  // namespace

registry::KindInfo limitRangeKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "LimitRange";
    k.resource = "limitranges";
    k.singular = "limitrange";
    k.shortNames = {"limits"};
    // No printer of its own.
    k.columns = cells::defaultColumns();
    k.defaults = defaultLimitRange;
    k.prepareForCreate = prepareLimitRange;
    k.validate = validateLimitRange;
    return k;
}

}  // namespace kube::apis::core
