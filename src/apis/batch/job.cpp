#include <string>

#include "apis/apps/workload.hpp"
#include "apis/batch/job_spec.hpp"
#include "apis/batch/kinds.hpp"
#include "apis/core/defaulting.hpp"
#include "apis/core/pod_spec.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "util/time.hpp"

namespace kube::apis::batch {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
using registry::TableContext;

// Mirrors SetDefaults_Job (JobPodReplacementPolicy on, as in kube 1.29+).
void defaultJob(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    if (defaulting::isUnset(spec, "completions") && defaulting::isUnset(spec, "parallelism")) {
        defaulting::setInt(spec, "completions", 1, a);
    }
    defaulting::setInt(spec, "parallelism", 1, a);
    defaulting::setInt(spec, "backoffLimit",
                       defaulting::isUnset(spec, "backoffLimitPerIndex") ? 6 : 2147483647, a);
    defaulting::setDefault(spec, "completionMode", json::stringValue("NonIndexed", a), a);
    defaulting::setBool(spec, "suspend", false, a);
    defaulting::setDefault(
        spec, "podReplacementPolicy",
        json::stringValue(
            defaulting::isUnset(spec, "podFailurePolicy") ? "TerminatingOrFailed" : "Failed", a),
        a);
    defaulting::setBool(spec, "manualSelector", false, a);
    if (json::Value* policy = json::member(spec, "podFailurePolicy");
        policy && policy->IsObject()) {
        defaulting::forEachElement(*policy, "rules", [&](json::Value& rule) {
            defaulting::forEachElement(rule, "onPodConditions", [&](json::Value& pattern) {
                defaulting::setString(pattern, "status", "True", a);
            });
        });
    }
    core::defaultPodTemplate(spec, a);
    // A job without labels of its own takes its pods' labels.
    const json::Value* podLabels = json::at(spec, {"template", "metadata", "labels"});
    json::Value& metadata = defaulting::ensureObject(obj, "metadata", a);
    if (podLabels && podLabels->IsObject() && metadata.IsObject() &&
        cells::count(json::member(metadata, "labels")) == 0) {
        // Copied before adding: podLabels lives in `spec`, not in `metadata`.
        json::Value copy(*json::at(obj, {"spec", "template", "metadata", "labels"}), a);
        json::setMember(metadata, "labels", std::move(copy), a);
    }
}

// Mirrors jobStrategy.PrepareForCreate: unless the selector is manual, pods
// are labelled with the job's name and uid and selected by the uid.
void prepareJob(json::Value& obj, json::Allocator& a) {
    json::setMember(obj, "status", json::Value(rapidjson::kObjectType), a);
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject() || cells::isTrue(spec, {"manualSelector"})) {
        return;
    }
    std::string name(cells::text(obj, {"metadata", "name"}));
    std::string uid(cells::text(obj, {"metadata", "uid"}));
    json::Value& tmpl = defaulting::ensureObject(spec, "template", a);
    json::Value& meta = defaulting::ensureObject(tmpl, "metadata", a);
    json::Value& labels = defaulting::ensureObject(meta, "labels", a);
    if (!labels.IsObject()) {
        return;
    }
    for (const char* key : {"job-name", "batch.kubernetes.io/job-name"}) {
        defaulting::setDefault(labels, key, json::stringValue(name, a), a);
    }
    for (const char* key : {"controller-uid", "batch.kubernetes.io/controller-uid"}) {
        defaulting::setDefault(labels, key, json::stringValue(uid, a), a);
    }
    json::Value& selector = defaulting::ensureObject(spec, "selector", a);
    json::Value& matchLabels = defaulting::ensureObject(selector, "matchLabels", a);
    defaulting::setDefault(matchLabels, "batch.kubernetes.io/controller-uid",
                           json::stringValue(uid, a), a);
}

field::Causes validateJob(const json::Value& obj) {
    field::Causes out;
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* spec = json::member(obj, "spec");
    if (const json::Value* selector = json::at(obj, {"spec", "selector"}); !selector) {
        out.push_back(field::required("spec.selector"));
    } else {
        field::validateLabelSelector(selector, "spec.selector", false, out);
    }
    apps::validateSelectorMatchesTemplate(spec && spec->IsObject() ? *spec : empty, out);
    validateJobSpec(spec, "spec", out);
    return out;
}

// Mirrors ValidateJobUpdate after ValidateJob: completions, selector and
// the pod template may not change, save a suspended job's scheduling
// directives before it ever started (JobMutableNodeSchedulingDirectives).
field::Causes validateJobUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateJob(obj);
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value* oldp = json::member(old, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    const json::Value& oldSpec = oldp && oldp->IsObject() ? *oldp : empty;
    if (!core::field::sameMember(spec, oldSpec, "completions")) {
        out.push_back(core::field::invalid("spec.completions",
                                           core::field::BadValue(spec["completions"]),
                                           "field is immutable"));
    }
    if (!core::field::sameMember(spec, oldSpec, "selector")) {
        out.push_back(core::field::invalid(
            "spec.selector",
            core::field::BadValue::raw(apps::selectorGoString(json::member(spec, "selector"))),
            "field is immutable"));
    }
    json::Document oldTemplate;
    if (const json::Value* t = json::member(oldSpec, "template")) {
        oldTemplate.CopyFrom(*t, oldTemplate.GetAllocator());
    }
    const json::Value* tmpl = json::member(spec, "template");
    bool schedulingMutable = cells::isTrue(oldSpec, {"suspend"}) &&
                             !json::at(old, {"status", "startTime"}) && tmpl &&
                             tmpl->IsObject() && oldTemplate.IsObject();
    if (schedulingMutable) {
        auto& a = oldTemplate.GetAllocator();
        auto carry = [&](const json::Value& from, json::Value& to, std::string_view key) {
            const json::Value* v = json::member(from, key);
            if (v) {
                json::setMember(to, key, json::Value(*v, a), a);
            } else {
                json::removeMember(to, key);
            }
        };
        static const json::Value none(rapidjson::kObjectType);
        const json::Value* meta = json::member(*tmpl, "metadata");
        const json::Value* podSpec = json::member(*tmpl, "spec");
        json::Value& oldMeta = core::defaulting::ensureObject(oldTemplate, "metadata", a);
        json::Value& oldPodSpec = core::defaulting::ensureObject(oldTemplate, "spec", a);
        for (std::string_view k : {"labels", "annotations"}) {
            carry(meta ? *meta : none, oldMeta, k);
        }
        for (std::string_view k : {"nodeSelector", "tolerations", "affinity", "schedulingGates"}) {
            carry(podSpec ? *podSpec : none, oldPodSpec, k);
        }
    }
    bool same = tmpl ? (oldTemplate.IsObject() && *tmpl == oldTemplate) : oldTemplate.IsNull();
    if (!same) {
        out.push_back(core::field::invalid(
            "spec.template", tmpl ? core::field::BadValue(*tmpl) : core::field::BadValue::null(),
            "field is immutable"));
    }
    return out;
}

bool hasCondition(const json::Value& job, std::string_view type) {
    const json::Value* conds = json::at(job, {"status", "conditions"});
    if (conds && conds->IsArray()) {
        for (const auto& c : conds->GetArray()) {
            if (json::stringMember(c, "type") == type) {
                return json::stringMember(c, "status") == "True";
            }
        }
    }
    return false;
}

std::string jobStatus(const json::Value& job) {
    if (hasCondition(job, "Complete")) {
        return "Complete";
    }
    if (hasCondition(job, "Failed")) {
        return "Failed";
    }
    if (!cells::text(job, {"metadata", "deletionTimestamp"}).empty()) {
        return "Terminating";
    }
    if (hasCondition(job, "Suspended")) {
        return "Suspended";
    }
    if (hasCondition(job, "FailureTarget")) {
        return "FailureTarget";
    }
    return "Running";
}

std::string completions(const json::Value& job) {
    std::string succeeded = std::to_string(cells::integer(job, {"status", "succeeded"}));
    if (const json::Value* c = json::at(job, {"spec", "completions"}); c && c->IsInt64()) {
        return succeeded + "/" + std::to_string(c->GetInt64());
    }
    int64_t parallelism = cells::integer(job, {"spec", "parallelism"});
    if (parallelism > 1) {
        return succeeded + "/1 of " + std::to_string(parallelism);
    }
    return succeeded + "/1";
}

std::string duration(const json::Value& job, const TableContext& ctx) {
    auto start = util::time::parseRFC3339(cells::text(job, {"status", "startTime"}));
    if (!start) {
        return "";
    }
    auto end = util::time::parseRFC3339(cells::text(job, {"status", "completionTime"}));
    return util::time::humanDuration(util::time::secondsBetween(
        *start, end ? *end : std::chrono::floor<util::time::Duration>(ctx.now)));
}

}  // namespace

registry::KindInfo jobKind() {
    registry::KindInfo k;
    k.group = "batch";
    k.version = "v1";
    k.kind = "Job";
    k.resource = "jobs";
    k.singular = "job";
    k.categories = {"all"};
    k.tracksGeneration = true;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Status", "string", "Status of the job.",
            [](const json::Value& obj, const TableContext&) { return jobStatus(obj); }),
        cells::textColumn(
            "Completions", "string", "Succeeded pods out of the completions wanted.",
            [](const json::Value& obj, const TableContext&) { return completions(obj); }),
        cells::textColumn("Duration", "string", "Time required to complete the job.", duration),
        cells::ageColumn(),
        apps::containersColumn(),
        apps::imagesColumn(),
        apps::selectorColumn(),
    };
    k.defaults = defaultJob;
    k.prepareForCreate = prepareJob;
    k.validate = validateJob;
    k.validateUpdate = validateJobUpdate;
    k.selectableFields = {
        {"metadata.name"}, {"metadata.namespace"}, {"status.successful", "", "0"}};
    return k;
}

}  // namespace kube::apis::batch
