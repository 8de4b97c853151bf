#include "util/deep_stack.hpp"

#include <pthread.h>

#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "util/json_depth.hpp"

namespace kube::util {

namespace {

// 16 KiB for each level the parser allows: the costliest walk (protobuf's
// reflection serializer, several frames per message) takes about 2 KiB a
// level, and sanitizer builds several times that. Only the pages touched
// are ever committed.
constexpr size_t kDeepStackBytes = size_t{16} * 1024 * json::kMaxNestingDepth;

struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
};

void* runJob(void* arg) {
    auto* job = static_cast<Job*>(arg);
    try {
        (*job->fn)();
    } catch (...) {
        job->error = std::current_exception();
    }
    return nullptr;
}

}  // namespace

bool nestsDeep(const json::Value& v) {
    return json::firstTooDeep(v, kShallowNestingDepth).has_value();
}

void runWithStackFor(const json::Value& v, const std::function<void()>& fn) {
    if (!nestsDeep(v)) {
        fn();
        return;
    }
    pthread_attr_t attr;
    if (int e = pthread_attr_init(&attr); e != 0) {
        throw std::runtime_error("cannot start a thread for a deeply nested object: " +
                                 std::string(std::strerror(e)));
    }
    pthread_attr_setstacksize(&attr, kDeepStackBytes);
    Job job{&fn, nullptr};
    pthread_t thread;
    int e = pthread_create(&thread, &attr, runJob, &job);
    pthread_attr_destroy(&attr);
    if (e != 0) {
        throw std::runtime_error("cannot start a thread for a deeply nested object: " +
                                 std::string(std::strerror(e)));
    }
    pthread_join(thread, nullptr);
    if (job.error) {
        std::rethrow_exception(job.error);
    }
}

}  // namespace kube::util
