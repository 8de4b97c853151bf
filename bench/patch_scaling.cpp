// How the three patch types scale with the size of the patch: a merge patch
// of N keys into a ConfigMap of N keys, a strategic merge patch of a
// merge-keyed list (N containers, half of them new, in a $setElementOrder)
// and of a primitive set (N finalizers, half repeated, N/4 deleted through
// $deleteFromPrimitiveList), and a JSON patch of min(N, 10,000) operations
// on an object of N keys. Prints the CPU milliseconds of the best of three
// runs (decoding the patch included) and nanoseconds per item: linear growth
// keeps the latter flat. Then, with no N given, the acceptance case of each
// type: a patch as big as kube accepts (3 MiB) of an object as big.
//
//   patch_scaling [-c merge|list|set|json] [N ...]
//                             (default: every case; 1000 3000 10000 30000 100000)
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "endpoints/protobuf_codec.hpp"
#include "registry/patch/json_patch.hpp"
#include "registry/patch/merge_patch.hpp"
#include "registry/patch/strategic_merge_patch.hpp"
#include "util/json.hpp"

namespace json = kube::util::json;
namespace patch = kube::registry::patch;

namespace {

std::string key(const char* prefix, int i) {
    return std::string(prefix) + std::to_string(i);
}

// A ConfigMap with data keys k0..k<n-1>, and a merge patch that changes
// the even ones, deletes every tenth and adds n/2 new keys.
std::pair<std::string, std::string> mergeCase(int n) {
    std::string doc = R"({"metadata":{"name":"m"},"data":{)";
    for (int i = 0; i < n; ++i) {
        doc += (i ? "," : "") + ("\"" + key("k", i) + "\":\"v\"");
    }
    doc += "}}";
    std::string p = R"({"data":{)";
    bool first = true;
    for (int i = 0; i < n; i += 2) {
        p += (first ? "" : ",") + ("\"" + key("k", i) + (i % 10 ? "\":\"w\"" : "\":null"));
        first = false;
    }
    for (int i = 0; i < n / 2; ++i) {
        p += ",\"" + key("new", i) + "\":\"x\"";
    }
    p += "}}";
    return {doc, p};
}

// A Pod with containers c0..c<n-1>, and a patch naming every other one and
// n/2 new ones, with their order.
std::pair<std::string, std::string> listCase(int n) {
    std::string doc = R"({"metadata":{"name":"p"},"spec":{"containers":[)";
    for (int i = 0; i < n; ++i) {
        doc += (i ? "," : "") + ("{\"name\":\"" + key("c", i) + "\",\"image\":\"i\"}");
    }
    doc += "]}}";
    std::string items;
    std::string order;
    for (int i = 0; i < n; i += 2) {
        items += (i ? "," : "") + ("{\"name\":\"" + key("c", i) + "\",\"image\":\"j\"}");
        order += (i ? "," : "") + ("{\"name\":\"" + key("c", i) + "\"}");
        items += ",{\"name\":\"" + key("d", i) + "\",\"image\":\"k\"}";
        order += ",{\"name\":\"" + key("d", i) + "\"}";
    }
    std::string p = R"({"spec":{"$setElementOrder/containers":[)" + order + R"(],"containers":[)" +
                    items + "]}}";
    return {doc, p};
}

// finalizers f0..f<n-1>; the patch repeats the even ones, adds n/2 and
// deletes every fourth.
std::pair<std::string, std::string> setCase(int n) {
    std::string doc = R"({"metadata":{"name":"p","finalizers":[)";
    for (int i = 0; i < n; ++i) {
        doc += (i ? "," : "") + ("\"" + key("f", i) + "\"");
    }
    doc += "]}}";
    std::string add;
    std::string del;
    for (int i = 0; i < n; i += 2) {
        add += (i ? "," : "") + ("\"" + key("f", i) + "\",\"" + key("g", i) + "\"");
    }
    for (int i = 0; i < n; i += 4) {
        del += (i ? "," : "") + ("\"" + key("f", i + 1) + "\"");
    }
    std::string p = R"({"metadata":{"finalizers":[)" + add +
                    R"(],"$deleteFromPrimitiveList/finalizers":[)" + del + "]}}";
    return {doc, p};
}

// A ConfigMap of n data keys and min(n, 10000) operations (kube's limit):
// replace, remove and add spread over the keys, and a test. Added and
// replaced values are `pad` bytes long.
std::pair<std::string, std::string> jsonCase(int n, size_t pad = 1) {
    std::string doc = mergeCase(n).first;
    std::string r = "\"" + std::string(pad, 'r') + "\"";
    std::string a = "\"" + std::string(pad, 'a') + "\"";
    int ops = n < 10000 ? n : 10000;
    std::string p = "[";
    for (int i = 0; i < ops; ++i) {
        int k = static_cast<int>((static_cast<long long>(i) * n) / ops);
        std::string path = "\"/data/" + key("k", k) + "\"";
        if (i) {
            p += ",";
        }
        switch (i % 4) {
            case 0:
                p += "{\"op\":\"replace\",\"path\":" + path + ",\"value\":" + r + "}";
                break;
            case 1:
                p += "{\"op\":\"remove\",\"path\":" + path + "}";
                break;
            case 2:
                p += "{\"op\":\"add\",\"path\":\"/data/" + key("a", k) + "\",\"value\":" + a + "}";
                break;
            default:
                p += "{\"op\":\"test\",\"path\":" + path + ",\"value\":\"v\"}";
                break;
        }
    }
    return {doc, p + "]"};
}

double cpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// The CPU time of this thread (the machine may be busy with other work;
// waiting for a core does not count), best of kRuns: `prepare` parses the
// object again before each run.
constexpr int kRuns = 3;
double timeMs(const std::function<void()>& prepare, const std::function<void()>& run) {
    double best = 0;
    for (int i = 0; i < kRuns; ++i) {
        prepare();
        double start = cpuMs();
        run();
        double ms = cpuMs() - start;
        best = i == 0 || ms < best ? ms : best;
    }
    return best;
}

void report(const char* name, int n, size_t doc, size_t patch, double ms) {
    std::printf("%-24s %7d %9zu %9zu %9.2f %8.1f\n", name, n, doc, patch, ms, ms * 1e6 / n);
}

using Case = std::pair<std::string, std::string>;

struct PatchType {
    const char* option;  // -c's name
    const char* name;
    std::function<Case(int)> build;
    // Applies the patch to the parsed object.
    std::function<std::optional<patch::Error>(json::Document&, const std::string&)> apply;
};

// Times one case; false when the patch failed.
bool run(const PatchType& t, int n, const Case& c) {
    json::Document d;
    std::optional<patch::Error> err;
    double ms = timeMs([&] { json::parse(c.first, d); }, [&] { err = t.apply(d, c.second); });
    report(t.name, n, c.first.size(), c.second.size(), ms);
    if (err) {
        std::fprintf(stderr, "%s: %s\n", t.name, err->message.c_str());
    }
    return !err;
}

// The largest n whose object and patch both fit in kube's 3 MiB body limit.
int largestWithin3MiB(const std::function<Case(int)>& build) {
    constexpr size_t kLimit = 3 << 20;
    auto bigger = [&](int n) {
        Case c = build(n);
        return std::max(c.first.size(), c.second.size());
    };
    int n = static_cast<int>(1000.0 * kLimit / static_cast<double>(bigger(1000)));
    while (bigger(n) > kLimit) {
        n -= n / 100 + 1;
    }
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "-c" && i + 1 < argc) {
            only = argv[++i];
        } else {
            sizes.push_back(std::atoi(argv[i]));
        }
    }
    bool bodies = sizes.empty();
    if (sizes.empty()) {
        sizes = {1000, 3000, 10000, 30000, 100000};
    }
    const auto* pod = kube::endpoints::protobufSchema("v1", "Pod");
    auto smp = [pod](json::Document& d, const std::string& p) {
        return patch::applyStrategicMergePatch(d, p, patch::PatchSchema(pod), true, nullptr,
                                               nullptr);
    };
    auto jsonPatch = [](json::Document& d, const std::string& p) -> std::optional<patch::Error> {
        patch::Error e;
        auto jp = patch::JsonPatch::decode(p, true, nullptr, &e);
        return jp ? jp->apply(d) : std::optional<patch::Error>(e);
    };
    std::vector<PatchType> types = {
        {"merge", "merge patch (keys)", mergeCase,
         [](json::Document& d, const std::string& p) {
             return patch::applyMergePatch(d, p, true, nullptr);
         }},
        {"list", "smp merge-keyed list", listCase, smp},
        {"set", "smp primitive set", setCase, smp},
        {"json", "json patch (ops <= 10k)", [](int n) { return jsonCase(n); }, jsonPatch},
    };
    auto wanted = [&only](const PatchType& t) { return only.empty() || only == t.option; };
    std::printf("%-24s %7s %9s %9s %9s %8s\n", "case", "N", "object", "patch", "cpu ms",
                "ns/item");
    bool ok = true;
    for (int n : sizes) {
        for (const PatchType& t : types) {
            if (wanted(t)) {
                ok &= run(t, n, t.build(n));
            }
        }
    }
    if (!bodies) {
        return ok ? 0 : 1;
    }
    // The acceptance case: the biggest patch kube accepts (3 MiB) of the
    // biggest object; for JSON patch, 10,000 operations with values padded
    // to fill the 3 MiB.
    std::printf("\n3 MiB patch of a 3 MiB object (target < 50 ms each):\n");
    for (const PatchType& t : types) {
        if (!wanted(t)) {
            continue;
        }
        if (std::string(t.option) == "json") {
            int n = largestWithin3MiB([](int k) { return Case(mergeCase(k).first, ""); });
            size_t pad = ((3 << 20) - jsonCase(n, 0).second.size()) / 5000 - 1;
            ok &= run(t, n, jsonCase(n, pad));
        } else {
            int n = largestWithin3MiB(t.build);
            ok &= run(t, n, t.build(n));
        }
    }
    return ok ? 0 : 1;
}
