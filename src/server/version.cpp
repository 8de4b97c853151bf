#include "server/version.hpp"

#include "util/json.hpp"

namespace kube::server {

namespace json = util::json;

std::string versionDocument() {
    json::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("major", rapidjson::StringRef(kKubeMajor), a);
    d.AddMember("minor", rapidjson::StringRef(kKubeMinor), a);
    d.AddMember("gitVersion", rapidjson::StringRef(kGitVersion), a);
    d.AddMember("gitCommit", "", a);
    d.AddMember("gitTreeState", "", a);
    d.AddMember("buildDate", json::stringValue(__DATE__ " " __TIME__, a), a);
    d.AddMember("goVersion", "", a);
    d.AddMember("compiler", json::stringValue("g++ " __VERSION__, a), a);
#if defined(__x86_64__)
    d.AddMember("platform", "linux/amd64", a);
#elif defined(__aarch64__)
    d.AddMember("platform", "linux/arm64", a);
#else
    d.AddMember("platform", "linux", a);
#endif
    return json::serializePretty(d);
}

}  // namespace kube::server
