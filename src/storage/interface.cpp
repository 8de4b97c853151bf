#include "storage/interface.hpp"

namespace kube::storage {

std::string spliceRevision(std::string_view value, size_t offset, Revision revision) {
    if (offset == std::string::npos || offset > value.size()) {
        return std::string(value);
    }
    std::string digits = std::to_string(revision);
    std::string out;
    out.reserve(value.size() + digits.size());
    out.append(value.substr(0, offset));
    out.append(digits);
    out.append(value.substr(offset));
    return out;
}

}  // namespace kube::storage
