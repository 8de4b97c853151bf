#include "apis/core/resource_names.hpp"

#include <set>
#include <string>

namespace kube::apis::core {

namespace {

// IsQuotaHugePageResourceName: huge pages as a quota or a request names them.
bool isQuotaHugePageResourceName(std::string_view name) {
    return name.starts_with("hugepages-") || name.starts_with("requests.hugepages-");
}

// The objects quota counts (ResourcePods, ResourceServices, ...): names in
// every standard set and always whole numbers.
bool isObjectCountName(std::string_view name) {
    static const std::set<std::string_view> counts = {"pods",
                                                      "resourcequotas",
                                                      "services",
                                                      "replicationcontrollers",
                                                      "secrets",
                                                      "configmaps",
                                                      "persistentvolumeclaims",
                                                      "services.nodeports",
                                                      "services.loadbalancers"};
    return counts.contains(name);
}

bool isUnprefixed(std::string_view name) {
    return name.find('/') == std::string_view::npos;
}

}  // namespace

bool isHugePageResourceName(std::string_view name) {
    return name.starts_with("hugepages-");
}

bool isStandardResourceName(std::string_view name) {
    return name == "storage" || isStandardQuotaResourceName(name);
}

bool isStandardQuotaResourceName(std::string_view name) {
    static const std::set<std::string_view> amounts = {"cpu",
                                                       "memory",
                                                       "ephemeral-storage",
                                                       "requests.cpu",
                                                       "requests.memory",
                                                       "requests.storage",
                                                       "requests.ephemeral-storage",
                                                       "limits.cpu",
                                                       "limits.memory",
                                                       "limits.ephemeral-storage"};
    return amounts.contains(name) || isObjectCountName(name) || isQuotaHugePageResourceName(name);
}

bool isStandardContainerResourceName(std::string_view name) {
    return name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
           isHugePageResourceName(name);
}

bool isNativeResource(std::string_view name) {
    return isUnprefixed(name) || name.find("kubernetes.io/") != std::string_view::npos;
}

bool isExtendedResourceName(std::string_view name) {
    if (isNativeResource(name) || name.starts_with("requests.")) {
        return false;
    }
    // Still a qualified name once quota's "requests." is put in front.
    return registry::validation::isQualifiedName("requests." + std::string(name)).empty();
}

bool isIntegerResourceName(std::string_view name) {
    return isObjectCountName(name) || isExtendedResourceName(name);
}

bool isOvercommitAllowed(std::string_view name) {
    return isNativeResource(name) && !isHugePageResourceName(name);
}

void validateResourceName(std::string_view name, const std::string& path, field::Causes& out) {
    std::vector<std::string> msgs = registry::validation::isQualifiedName(name);
    for (const std::string& msg : msgs) {
        out.push_back(field::invalid(path, name, msg));
    }
    if (msgs.empty() && isUnprefixed(name) && !isStandardResourceName(name)) {
        out.push_back(
            field::invalid(path, name, "must be a standard resource type or fully qualified"));
    }
}

void validateContainerResourceName(std::string_view name, const std::string& path,
                                   field::Causes& out) {
    validateResourceName(name, path, out);
    if (isUnprefixed(name)) {
        if (!isStandardContainerResourceName(name)) {
            out.push_back(field::invalid(path, name, "must be a standard resource for containers"));
        }
    } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
        out.push_back(field::invalid(path, name, "doesn't follow extended resource name standard"));
    }
}

}  // namespace kube::apis::core
