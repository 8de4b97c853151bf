#include "admission/limit_ranger.hpp"

#include <cstdio>
#include <optional>
#include <vector>

#include "admission/resources.hpp"
#include "registry/encoding.hpp"
#include "util/json.hpp"

namespace kube::admission {

namespace json = util::json;
using resources::List;
using util::Quantity;

namespace {

// The values the constraints compare: milli units unless one would overflow
// (requestLimitEnforcedValues).
struct Observed {
    int64_t request, limit, enforced;
};

Observed observe(const Quantity* req, const Quantity* lim, const Quantity& enforced) {
    // resource.MaxMilliValue: the largest value whose milli value fits.
    constexpr int64_t kMaxMilliValue = INT64_MAX / 1000;
    Observed o{req ? req->value() : 0, lim ? lim->value() : 0, enforced.value()};
    if (o.request <= kMaxMilliValue && o.limit <= kMaxMilliValue &&
        o.enforced <= kMaxMilliValue) {
        o = {req ? req->milliValue() : 0, lim ? lim->milliValue() : 0, enforced.milliValue()};
    }
    return o;
}

const Quantity* find(const List& l, std::string_view k) {
    auto it = l.find(k);
    return it == l.end() ? nullptr : &it->second;
}

std::optional<std::string> minConstraint(std::string_view type, std::string_view resource,
                                         const Quantity& enforced, const List& requests,
                                         const List& limits) {
    const Quantity* req = find(requests, resource);
    const Quantity* lim = find(limits, resource);
    Observed o = observe(req, lim, enforced);
    std::string head = "minimum " + std::string(resource) + " usage per " + std::string(type) +
                       " is " + enforced.string();
    if (!req) {
        return head + ".  No request is specified";
    }
    if (o.request < o.enforced) {
        return head + ", but request is " + req->string();
    }
    if (lim && o.limit < o.enforced) {
        return head + ", but limit is " + lim->string();
    }
    return std::nullopt;
}

std::optional<std::string> maxConstraint(std::string_view type, std::string_view resource,
                                         const Quantity& enforced, const List& requests,
                                         const List& limits) {
    const Quantity* req = find(requests, resource);
    const Quantity* lim = find(limits, resource);
    Observed o = observe(req, lim, enforced);
    std::string head = "maximum " + std::string(resource) + " usage per " + std::string(type) +
                       " is " + enforced.string();
    if (!lim) {
        return head + ".  No limit is specified";
    }
    if (o.limit > o.enforced) {
        return head + ", but limit is " + lim->string();
    }
    if (req && o.request > o.enforced) {
        return head + ", but request is " + req->string();
    }
    return std::nullopt;
}

std::optional<std::string> ratioConstraint(std::string_view type, std::string_view resource,
                                           const Quantity& enforced, const List& requests,
                                           const List& limits) {
    const Quantity* req = find(requests, resource);
    const Quantity* lim = find(limits, resource);
    Observed o = observe(req, lim, enforced);
    std::string head = std::string(resource) + " max limit to request ratio per " +
                       std::string(type) + " is " + enforced.string();
    if (!req || o.request == 0) {
        return head + ", but no request is specified or request is 0";
    }
    if (!lim || o.limit == 0) {
        return head + ", but no limit is specified or limit is 0";
    }
    double observed = static_cast<double>(o.limit) / static_cast<double>(o.request);
    double display = observed;
    double max = static_cast<double>(enforced.value());
    if (enforced.value() <= INT64_MAX / 1000) {
        observed *= 1000;
        max = static_cast<double>(enforced.milliValue());
    }
    if (observed > max) {
        char ratio[64];
        std::snprintf(ratio, sizeof ratio, "%f", display);
        return head + ", but provided ratio is " + ratio;
    }
    return std::nullopt;
}

// min, max and maxLimitRequestRatio of one item against one set of amounts.
void checkItem(const json::Value& item, std::string_view type, const List& requests,
               const List& limits, std::vector<std::string>& errs) {
    auto each = [&](const char* bound, auto constraint) {
        for (const auto& [k, v] : resources::listOf(json::member(item, bound))) {
            if (auto e = constraint(type, k, v, requests, limits)) {
                errs.push_back(std::move(*e));
            }
        }
    };
    each("min", minConstraint);
    each("max", maxConstraint);
    each("maxLimitRequestRatio", ratioConstraint);
}

// utilerrors.NewAggregate(errs).Error().
std::string aggregate(const std::vector<std::string>& errs) {
    if (errs.size() == 1) {
        return errs[0];
    }
    std::string out = "[";
    for (size_t i = 0; i < errs.size(); i++) {
        out += (i ? ", " : "") + errs[i];
    }
    return out + "]";
}

// One LimitRange's errors for a pod (PodValidateLimitFunc).
std::vector<std::string> podErrors(const json::Value& range, const json::Value& pod) {
    std::vector<std::string> errs;
    const json::Value* items = json::at(range, {"spec", "limits"});
    if (!items || !items->IsArray()) {
        return errs;
    }
    for (const json::Value& item : items->GetArray()) {
        std::string_view type = item.IsObject() ? json::stringMember(item, "type") : "";
        if (type == "Container") {
            for (const char* list : {"containers", "initContainers"}) {
                const json::Value* cs = json::at(pod, {"spec", list});
                if (!cs || !cs->IsArray()) {
                    continue;
                }
                for (const json::Value& c : cs->GetArray()) {
                    if (!c.IsObject()) {
                        continue;
                    }
                    checkItem(item, type, resources::listOf(json::at(c, {"resources", "requests"})),
                              resources::listOf(json::at(c, {"resources", "limits"})), errs);
                }
            }
        } else if (type == "Pod") {
            checkItem(item, type, resources::podRequests(pod), resources::podLimits(pod), errs);
        }
    }
    return errs;
}

// One LimitRange's errors for a claim: its storage request against min and
// max (PersistentVolumeClaimValidateLimitFunc).
std::vector<std::string> claimErrors(const json::Value& range, const json::Value& claim) {
    std::vector<std::string> errs;
    const json::Value* items = json::at(range, {"spec", "limits"});
    if (!items || !items->IsArray()) {
        return errs;
    }
    List requests = resources::listOf(json::at(claim, {"spec", "resources", "requests"}));
    for (const json::Value& item : items->GetArray()) {
        if (!item.IsObject() || json::stringMember(item, "type") != "PersistentVolumeClaim") {
            continue;
        }
        for (const auto& [k, v] : resources::listOf(json::member(item, "min"))) {
            if (auto e = minConstraint("PersistentVolumeClaim", k, v, requests, {})) {
                errs.push_back(std::move(*e));
            }
        }
        // The request is what a claim's max bounds (maxRequestConstraint).
        for (const auto& [k, v] : resources::listOf(json::member(item, "max"))) {
            const Quantity* req = find(requests, k);
            std::string head = "maximum " + k + " usage per PersistentVolumeClaim is " + v.string();
            if (!req) {
                errs.push_back(head + ".  No request is specified");
            } else if (Observed o = observe(req, nullptr, v); o.request > o.enforced) {
                errs.push_back(head + ", but request is " + req->string());
            }
        }
    }
    return errs;
}

// mergeContainerResources: the Container items' defaults fill what the
// container leaves unset; returns the annotation's parts.
void applyDefaults(const json::Value& range, json::Value& pod, json::Allocator& a,
                   std::vector<std::string>& notes) {
    List defaults, defaultRequests;
    if (const json::Value* items = json::at(range, {"spec", "limits"}); items && items->IsArray()) {
        for (const json::Value& item : items->GetArray()) {
            if (item.IsObject() && json::stringMember(item, "type") == "Container") {
                for (auto& [k, v] : resources::listOf(json::member(item, "default"))) {
                    defaults.insert_or_assign(k, v);
                }
                for (auto& [k, v] : resources::listOf(json::member(item, "defaultRequest"))) {
                    defaultRequests.insert_or_assign(k, v);
                }
            }
        }
    }
    auto fill = [&a](json::Value& resources, const char* which, const List& from) {
        std::vector<std::string> set;
        json::Value* list = json::member(resources, which);
        if (!list || !list->IsObject()) {
            json::setMember(resources, which, json::Value(rapidjson::kObjectType), a);
            list = json::member(resources, which);
        }
        for (const auto& [k, v] : from) {
            if (!json::member(*list, k)) {
                list->AddMember(json::stringValue(k, a), json::stringValue(v.string(), a), a);
                set.push_back(k);
            }
        }
        if (list->ObjectEmpty()) {
            json::removeMember(resources, which);
        }
        return set;
    };
    auto join = [](const std::vector<std::string>& names) {
        std::string out;
        for (const std::string& n : names) {
            out += (out.empty() ? "" : ", ") + n;
        }
        return out;
    };
    for (auto [list, prefix] : {std::pair{"containers", "container"},
                                {"initContainers", "init container"}}) {
        json::Value* cs = json::at(pod, {"spec", list}) ? &pod["spec"][list] : nullptr;
        if (!cs || !cs->IsArray()) {
            continue;
        }
        for (json::Value& c : cs->GetArray()) {
            if (!c.IsObject()) {
                continue;
            }
            if (!json::member(c, "resources") || !c["resources"].IsObject()) {
                json::setMember(c, "resources", json::Value(rapidjson::kObjectType), a);
            }
            json::Value& res = c["resources"];
            std::vector<std::string> limits = fill(res, "limits", defaults);
            std::vector<std::string> requests = fill(res, "requests", defaultRequests);
            std::string name(json::stringMember(c, "name"));
            if (!requests.empty()) {
                notes.push_back(join(requests) + " request for " + prefix + " " + name);
            }
            if (!limits.empty()) {
                notes.push_back(join(limits) + " limit for " + prefix + " " + name);
            }
        }
    }
}

}  // namespace

LimitRanger::LimitRanger(storage::Interface& storage, const registry::KindInfo& limitRanges,
                         const registry::KindInfo& pods, const registry::KindInfo& claims)
    : storage_(storage), limitRanges_(limitRanges), pods_(pods), claims_(claims) {}

bool LimitRanger::handles(const Attributes& a) const {
    if (!a.subresource.empty() || !a.object || !a.object->IsObject()) {
        return false;
    }
    return (a.kind == &pods_ && a.operation == Operation::Create) ||
           (a.kind == &claims_ &&
            (a.operation == Operation::Create || a.operation == Operation::Update));
}

void LimitRanger::withLimitRanges(const Attributes& a,
                                  std::function<void(const json::Value& ranges)> fn,
                                  Callback done) {
    storage::ListOptions opts;
    opts.prefix = registry::collectionPrefix(limitRanges_, a.ns);
    storage_.list(opts, [fn = std::move(fn), done = std::move(done)](
                            const storage::Error& err, const storage::ListResult& res) {
        if (!err.ok()) {
            meta::Status s = meta::Status::internalError(err.message);
            done(&s);
            return;
        }
        json::Document ranges(rapidjson::kArrayType);
        for (const storage::ObjectView& item : res.items) {
            json::Document doc;
            doc.Parse(item.value.data(), item.value.size());
            if (!doc.HasParseError() && doc.IsObject()) {
                ranges.PushBack(json::Value(doc, ranges.GetAllocator()), ranges.GetAllocator());
            }
        }
        fn(ranges);
    });
}

void LimitRanger::admit(Attributes& a, Callback done) {
    if (a.kind != &pods_) {
        done(nullptr);
        return;
    }
    withLimitRanges(
        a,
        [&a, done](const json::Value& ranges) {
            std::vector<std::string> notes;
            for (const json::Value& range : ranges.GetArray()) {
                applyDefaults(range, *a.object, *a.allocator, notes);
            }
            if (!notes.empty()) {
                std::string value = "LimitRanger plugin set: ";
                for (size_t i = 0; i < notes.size(); i++) {
                    value += (i ? "; " : "") + notes[i];
                }
                json::Value& metadata = (*a.object)["metadata"];
                if (!json::member(metadata, "annotations") ||
                    !metadata["annotations"].IsObject()) {
                    json::setMember(metadata, "annotations", json::Value(rapidjson::kObjectType),
                                    *a.allocator);
                }
                json::setMember(metadata["annotations"], "kubernetes.io/limit-ranger",
                                json::stringValue(value, *a.allocator), *a.allocator);
            }
            done(nullptr);
        },
        done);
}

void LimitRanger::validate(const Attributes& a, Callback done) {
    bool pod = a.kind == &pods_;
    withLimitRanges(
        a,
        [&a, pod, done](const json::Value& ranges) {
            for (const json::Value& range : ranges.GetArray()) {
                std::vector<std::string> errs =
                    pod ? podErrors(range, *a.object) : claimErrors(range, *a.object);
                if (!errs.empty()) {
                    meta::Status s = forbidden(a, aggregate(errs));
                    done(&s);
                    return;
                }
            }
            done(nullptr);
        },
        done);
}

}  // namespace kube::admission
