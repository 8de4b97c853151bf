// How the three patch types scale with the size of the patch: a merge patch
// of N keys into a ConfigMap of N keys, a strategic merge patch of a
// merge-keyed list (N containers, half of them new, in a $setElementOrder)
// and of a primitive set (N finalizers, half repeated, N deleted through
// $deleteFromPrimitiveList), and a JSON patch of min(N, 10,000) operations
// on an object of N keys. Prints milliseconds per case and nanoseconds per
// item: linear growth keeps the latter flat.
//
//   patch_scaling [-c merge|list|set|json] [N ...]
//                             (default: every case; 1000 3000 10000 30000 100000)
#include <chrono>
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

// A ConfigMap of n data keys and min(n, 10000) operations: replace, remove
// and add spread over the keys, and a test.
std::pair<std::string, std::string> jsonCase(int n) {
    std::string doc = mergeCase(n).first;
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
                p += "{\"op\":\"replace\",\"path\":" + path + ",\"value\":\"r\"}";
                break;
            case 1:
                p += "{\"op\":\"remove\",\"path\":" + path + "}";
                break;
            case 2:
                p += "{\"op\":\"add\",\"path\":\"/data/" + key("a", k) + "\",\"value\":\"a\"}";
                break;
            default:
                p += "{\"op\":\"test\",\"path\":" + path + ",\"value\":\"v\"}";
                break;
        }
    }
    return {doc, p + "]"};
}

double timeMs(const std::function<void()>& run) {
    auto start = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

void report(const char* name, int n, size_t bytes, double ms) {
    std::printf("%-26s %8d %10zu %10.2f %10.1f\n", name, n, bytes, ms, ms * 1e6 / n);
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
    if (sizes.empty()) {
        sizes = {1000, 3000, 10000, 30000, 100000};
    }
    auto wanted = [&only](const char* c) { return only.empty() || only == c; };
    const auto* pod = kube::endpoints::protobufSchema("v1", "Pod");
    std::printf("%-26s %8s %10s %10s %10s\n", "case", "N", "bytes", "ms", "ns/item");
    bool failed = false;
    for (int n : sizes) {
        json::Document d;
        std::optional<patch::Error> err;
        double ms = 0;
        if (wanted("merge")) {
            auto [mdoc, mpatch] = mergeCase(n);
            json::parse(mdoc, d);
            ms = timeMs([&] { err = patch::applyMergePatch(d, mpatch, true, nullptr); });
            failed |= err.has_value();
            report("merge patch (keys)", n, mdoc.size() + mpatch.size(), ms);
        }
        if (wanted("list")) {
            auto [ldoc, lpatch] = listCase(n);
            json::parse(ldoc, d);
            ms = timeMs([&] {
                err = patch::applyStrategicMergePatch(d, lpatch, patch::PatchSchema(pod), true,
                                                      nullptr, nullptr);
            });
            failed |= err.has_value();
            report("smp merge-keyed list", n, ldoc.size() + lpatch.size(), ms);
        }
        if (wanted("set")) {
            auto [sdoc, spatch] = setCase(n);
            json::parse(sdoc, d);
            ms = timeMs([&] {
                err = patch::applyStrategicMergePatch(d, spatch, patch::PatchSchema(pod), true,
                                                      nullptr, nullptr);
            });
            failed |= err.has_value();
            report("smp primitive set", n, sdoc.size() + spatch.size(), ms);
        }
        if (wanted("json")) {
            auto [jdoc, jpatch] = jsonCase(n);
            json::parse(jdoc, d);
            ms = timeMs([&] {
                patch::Error e;
                auto p = patch::JsonPatch::decode(jpatch, true, nullptr, &e);
                err = p ? p->apply(d) : std::optional<patch::Error>(e);
            });
            failed |= err.has_value();
            report("json patch (ops <= 10k)", n, jdoc.size() + jpatch.size(), ms);
        }
        if (err) {
            std::fprintf(stderr, "error: %s\n", err->message.c_str());
        }
    }
    return failed ? 1 : 0;
}
