#include "cel/escaping.hpp"

#include <algorithm>
#include <array>

namespace kube::cel {

namespace {

// The words CEL's lexer reserves: no identifier may be one of them.
constexpr std::array<std::string_view, 21> kReserved = {
    "true",     "false",   "null",      "in",       "as",  "break",  "const",
    "continue", "else",    "for",       "function", "if",  "import", "let",
    "loop",     "package", "namespace", "return",   "var", "void",   "while"};

bool isIdentChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::optional<std::string> escapePropertyName(std::string_view name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) {
        return std::nullopt;
    }
    if (std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end()) {
        return "__" + std::string(name) + "__";
    }
    std::string out;
    out.reserve(name.size());
    for (size_t i = 0; i < name.size(); i++) {
        char c = name[i];
        if (c == '_' && i + 1 < name.size() && name[i + 1] == '_') {
            out += "__underscores__";
            i++;
        } else if (c == '.') {
            out += "__dot__";
        } else if (c == '-') {
            out += "__dash__";
        } else if (c == '/') {
            out += "__slash__";
        } else if (isIdentChar(c)) {
            out += c;
        } else {
            return std::nullopt;
        }
    }
    return out;
}

}  // namespace kube::cel
