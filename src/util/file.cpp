#include "util/file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kube::util {

std::optional<std::string> readFile(const std::string& path, std::string* error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *error = "open " + path + ": " + std::strerror(errno);
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace kube::util
