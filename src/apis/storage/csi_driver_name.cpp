#include "apis/storage/csi_driver_name.hpp"

#include <cctype>

namespace kube::apis::storage {

namespace field = core::field;

void validateCSIDriverName(std::string_view name, const std::string& path, field::Causes& out) {
    if (name.empty()) {
        out.push_back(field::required(path));
    }
    if (name.size() > 63) {
        out.push_back(field::tooLong(path, 63));
    }
    std::string lower(name);
    for (char& c : lower) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    for (const std::string& msg : registry::validation::isDNS1123Subdomain(lower)) {
        out.push_back(field::invalid(path, name, msg));
    }
}

}  // namespace kube::apis::storage
