#include "apis/batch/job_spec.hpp"

#include "apis/core/pod_spec.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::batch {

void validateJobSpec(const json::Value* spec, const std::string& path, field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value& s = spec && spec->IsObject() ? *spec : empty;
    for (std::string_view count :
         {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"}) {
        field::validateNonnegative(json::member(s, count), field::child(path, count), out);
    }
    field::validateEnum(json::member(s, "completionMode"), field::child(path, "completionMode"),
                        {"NonIndexed", "Indexed"}, out);
    const json::Value* tmpl = json::member(s, "template");
    std::string tmplPath = field::child(path, "template");
    core::validatePodTemplate(tmpl, tmplPath, out);
    if (tmpl && tmpl->IsObject()) {
        std::string_view restart = registry::cells::text(*tmpl, {"spec", "restartPolicy"});
        if (restart != "OnFailure" && restart != "Never") {
            out.push_back(field::notSupported(field::child(tmplPath, "spec.restartPolicy"), restart,
                                              {"OnFailure", "Never"}));
        }
    }
}

}  // namespace kube::apis::batch
