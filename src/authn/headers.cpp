#include "authn/headers.hpp"

#include <algorithm>
#include <cctype>

namespace kube::authn {

namespace {

char lower(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

int hexValue(char c) {
    c = lower(c);
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

}  // namespace

bool headerNameEquals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](char x, char y) { return lower(x) == lower(y); });
}

bool headerNameHasPrefix(std::string_view name, std::string_view prefix) {
    return name.size() >= prefix.size() && headerNameEquals(name.substr(0, prefix.size()), prefix);
}

std::string extraKeyOf(std::string_view suffix) {
    std::string key(suffix);
    std::transform(key.begin(), key.end(), key.begin(), lower);
    std::string out;
    out.reserve(key.size());
    for (size_t i = 0; i < key.size(); i++) {
        if (key[i] != '%') {
            out += key[i];
        } else if (i + 2 < key.size() && hexValue(key[i + 1]) >= 0 && hexValue(key[i + 2]) >= 0) {
            out += static_cast<char>(hexValue(key[i + 1]) * 16 + hexValue(key[i + 2]));
            i += 2;
        } else {
            return key;
        }
    }
    return out;
}

}  // namespace kube::authn
