#include <sstream>
#include <string>
#include <vector>

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

// Mirrors SetDefaults_CronJob; the job template gets only pod defaults.
void defaultCronJob(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    defaulting::setString(spec, "concurrencyPolicy", "Allow", a);
    defaulting::setBool(spec, "suspend", false, a);
    defaulting::setInt(spec, "successfulJobsHistoryLimit", 3, a);
    defaulting::setInt(spec, "failedJobsHistoryLimit", 1, a);
    json::Value& jobTemplate = defaulting::ensureObject(spec, "jobTemplate", a);
    json::Value& jobSpec = defaulting::ensureObject(jobTemplate, "spec", a);
    if (jobSpec.IsObject()) {
        core::defaultPodTemplate(jobSpec, a);
    }
}

// Mirrors cronJobStrategy.PrepareForCreate: no status yet.
void prepareCronJob(json::Value& obj, json::Allocator& a) {
    json::setMember(obj, "status", json::Value(rapidjson::kObjectType), a);
}

// The field-count check of cron.ParseStandard, with robfig/cron's message.
void validateSchedule(std::string_view schedule, field::Causes& out) {
    if (schedule.empty()) {
        out.push_back(field::required("spec.schedule"));
        return;
    }
    std::istringstream in{std::string(schedule)};
    std::vector<std::string> fields;
    for (std::string f; in >> f;) {
        fields.push_back(f);
    }
    bool descriptor = !fields.empty() && fields[0].front() == '@';
    if (!descriptor && fields.size() != 5) {
        std::string list;
        for (const auto& f : fields) {
            list += list.empty() ? f : " " + f;
        }
        out.push_back(field::invalid("spec.schedule", schedule,
                                     "expected exactly 5 fields, found " +
                                         std::to_string(fields.size()) + ": [" + list + "]"));
    }
    if (schedule.find("TZ") != std::string_view::npos) {
        out.push_back(field::invalid("spec.schedule", schedule,
                                     "cannot use TZ or CRON_TZ in schedule, use timeZone field "
                                     "instead"));
    }
}

// The essentials of ValidateCronJobCreate.
field::Causes validateCronJob(const json::Value& obj) {
    field::Causes out;
    std::string_view name = cells::text(obj, {"metadata", "name"});
    if (name.size() > 52) {
        out.push_back(field::invalid("metadata.name", name, "must be no more than 52 characters"));
    }
    validateSchedule(cells::text(obj, {"spec", "schedule"}), out);
    const json::Value* policy = json::at(obj, {"spec", "concurrencyPolicy"});
    if (!policy || json::view(*policy).empty()) {
        out.push_back(field::required("spec.concurrencyPolicy"));
    } else {
        field::validateEnum(policy, "spec.concurrencyPolicy", {"Allow", "Forbid", "Replace"}, out);
    }
    for (std::string_view count :
         {"startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"}) {
        field::validateNonnegative(json::at(obj, {"spec", count}), field::child("spec", count),
                                   out);
    }
    const json::Value* jobSpec = json::at(obj, {"spec", "jobTemplate", "spec"});
    validateJobSpec(jobSpec, "spec.jobTemplate.spec", out);
    if (const json::Value* sel = jobSpec ? json::member(*jobSpec, "selector") : nullptr;
        sel && !sel->IsNull()) {
        out.push_back(field::invalid("spec.jobTemplate.spec.selector",
                                     field::BadValue::raw(apps::selectorGoString(sel)),
                                     "`selector` will be auto-generated"));
    }
    if (jobSpec && cells::isTrue(*jobSpec, {"manualSelector"})) {
        out.push_back(
            field::notSupported("spec.jobTemplate.spec.manualSelector", true, {"nil", "false"}));
    }
    return out;
}

std::string lastSchedule(const json::Value& obj, const TableContext& ctx) {
    std::string_view t = cells::text(obj, {"status", "lastScheduleTime"});
    return t.empty() ? "<none>" : util::time::humanSince(t, ctx.now);
}

}  // namespace

registry::KindInfo cronJobKind() {
    registry::KindInfo k;
    k.group = "batch";
    k.version = "v1";
    k.kind = "CronJob";
    k.resource = "cronjobs";
    k.singular = "cronjob";
    k.shortNames = {"cj"};
    k.categories = {"all"};
    k.tracksGeneration = true;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Schedule", "string", "The schedule in Cron format.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "schedule"}));
                          }),
        cells::textColumn("Timezone", "string", "The time zone the schedule is read in.",
                          [](const json::Value& obj, const TableContext&) {
                              std::string_view tz = cells::text(obj, {"spec", "timeZone"});
                              return tz.empty() ? std::string("<none>") : std::string(tz);
                          }),
        cells::textColumn("Suspend", "boolean", "Whether subsequent executions are suspended.",
                          [](const json::Value& obj, const TableContext&) {
                              return cells::boolPtr(obj, {"spec", "suspend"});
                          }),
        cells::countColumn("Active", "integer", "The number of currently running jobs.",
                           [](const json::Value& obj) {
                               return cells::count(json::at(obj, {"status", "active"}));
                           }),
        cells::textColumn("Last Schedule", "string", "When the job was last scheduled.",
                          lastSchedule),
        cells::ageColumn(),
        apps::containersColumn(),
        apps::imagesColumn(),
        apps::selectorColumn(),
    };
    k.defaults = defaultCronJob;
    k.prepareForCreate = prepareCronJob;
    k.validate = validateCronJob;
    return k;
}

}  // namespace kube::apis::batch
