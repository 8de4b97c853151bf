#include "cel/issues.hpp"

namespace kube::cel {

namespace {

bool isContinuation(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

std::string formatIssues(std::string_view source, const std::vector<Issue>& issues) {
    std::string out;
    for (const Issue& issue : issues) {
        if (!out.empty()) {
            out += '\n';
        }
        if (issue.offset < 0) {
            out += "ERROR: <input>:-1:0: " + issue.message;
            continue;
        }
        size_t at = std::min(static_cast<size_t>(issue.offset), source.size());
        size_t lineStart = source.rfind('\n', at == 0 ? std::string_view::npos : at - 1);
        lineStart = (lineStart == std::string_view::npos || at == 0) ? 0 : lineStart + 1;
        if (at > 0 && source[at - 1] == '\n') {
            lineStart = at;
        }
        int line = 1;
        for (size_t i = 0; i < lineStart; i++) {
            line += source[i] == '\n';
        }
        int column = 0;
        for (size_t i = lineStart; i < at; i++) {
            column += !isContinuation(source[i]);
        }
        size_t lineEnd = source.find('\n', lineStart);
        std::string_view text =
            source.substr(lineStart, lineEnd == std::string_view::npos ? std::string_view::npos
                                                                       : lineEnd - lineStart);
        out += "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " +
               issue.message + "\n | " + std::string(text) + "\n | " +
               std::string(static_cast<size_t>(column), '.') + "^";
    }
    return out;
}

}  // namespace kube::cel
