#include "endpoints/handlers/scope.hpp"
#include "util/deep_stack.hpp"
#include "util/json_depth.hpp"

namespace kube::endpoints {

namespace {

// Objects at least this large are rendered off the loop unless sent as
// stored: the size from which an update is built off the loop too.
constexpr size_t kRenderOffLoopBytes = 256 * 1024;
// Smaller ones are too when they nest deeper than a walk may go on the
// loop's stack (a CRD schema thousands of levels deep: its walk runs on a
// thread of its own, which the loop would wait for). Below this size that
// costs too little to look for.
constexpr size_t kDeepCheckBytes = 16 * 1024;

// Whether rendering `stored` for `r` is more than copying its bytes.
bool reencodes(const RenderOptions& r) {
    return r.output.form != OutputForm::Json || r.pretty;
}

}  // namespace

void respondObject(const Scope& s, int code, std::string_view stored,
                   std::vector<std::pair<std::string, std::string>> headers) {
    bool heavy = stored.size() >= kRenderOffLoopBytes ||
                 (stored.size() >= kDeepCheckBytes &&
                  util::json::textNestsDeeperThan(stored, util::kShallowNestingDepth));
    if (!heavy || !reencodes(s->render)) {
        HttpResponse r = objectResponse(code, stored, s->render);
        for (auto& h : headers) {
            r.headers.push_back(std::move(h));
        }
        s->respond(std::move(r));
        return;
    }
    // The job owns what it reads: the bytes (the caller's are gone once it
    // returns) and the render options.
    struct Job {
        std::string stored;
        RenderOptions render;
        HttpResponse response;
    };
    auto job = std::make_shared<Job>(Job{std::string(stored), s->render, {}});
    s->store.loop().runBlocking(
        [job, code] { job->response = objectResponse(code, job->stored, job->render); },
        [s, job, headers = std::move(headers)]() mutable {
            for (auto& h : headers) {
                job->response.headers.push_back(std::move(h));
            }
            s->respond(std::move(job->response));
        });
}

}  // namespace kube::endpoints
