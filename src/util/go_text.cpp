#include "util/go_text.hpp"

#include "util/json.hpp"

namespace kube::util {

std::string aggregateErrors(const std::vector<std::string>& errors) {
    if (errors.size() == 1) {
        return errors.front();
    }
    std::string out = "[";
    for (size_t i = 0; i < errors.size(); ++i) {
        out += (i ? ", " : "") + errors[i];
    }
    return out + "]";
}

std::string quotedList(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        out += i ? " " : "";
        json::appendQuoted(out, items[i]);
    }
    return out + "]";
}

}  // namespace kube::util
