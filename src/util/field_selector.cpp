#include "util/field_selector.hpp"

#include <algorithm>

namespace kube::util {

namespace {

// Splits on commas not escaped by a backslash; the escapes stay in the terms.
std::vector<std::string_view> splitTerms(std::string_view s) {
    std::vector<std::string_view> terms;
    if (s.empty()) {
        return terms;
    }
    size_t start = 0;
    bool inSlash = false;
    for (size_t i = 0; i < s.size(); i++) {
        if (inSlash) {
            inSlash = false;
        } else if (s[i] == '\\') {
            inSlash = true;
        } else if (s[i] == ',') {
            terms.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    terms.push_back(s.substr(start));
    return terms;
}

// The first operator in the term splits it; "!=" and "==" win over "=" at the
// same position so that no '=' is left on the value.
bool splitTerm(std::string_view term, FieldRequirement& r, std::string_view* rhs) {
    for (size_t i = 0; i < term.size(); i++) {
        std::string_view rest = term.substr(i);
        for (std::string_view op : {"!=", "==", "="}) {
            if (rest.starts_with(op)) {
                r.field = std::string(term.substr(0, i));
                r.notEquals = op == "!=";
                *rhs = rest.substr(op.size());
                return true;
            }
        }
    }
    return false;
}

// Mirrors fields.UnescapeValue: \\, \, and \= are the escapes; a bare ',' or
// '=' is an error (Go prints the rune as its code point, e.g. 61 for '=').
bool unescapeValue(std::string_view s, std::string* out, std::string* error) {
    bool inSlash = false;
    for (char c : s) {
        if (inSlash) {
            if (c != '\\' && c != ',' && c != '=') {
                *error = std::string("invalid field selector: invalid escape sequence: \\") + c;
                return false;
            }
            *out += c;
            inSlash = false;
            continue;
        }
        if (c == '\\') {
            inSlash = true;
        } else if (c == ',' || c == '=') {
            *error = "invalid field selector: unescaped character in value: " +
                     std::to_string(static_cast<int>(c));
            return false;
        } else {
            *out += c;
        }
    }
    if (inSlash) {
        *error = "invalid field selector: invalid escape sequence: \\";
        return false;
    }
    return true;
}

}  // namespace

std::optional<FieldSelector> FieldSelector::parse(std::string_view text, std::string* error) {
    std::vector<std::string_view> terms = splitTerms(text);
    std::sort(terms.begin(), terms.end());
    FieldSelector sel;
    for (std::string_view term : terms) {
        if (term.empty()) {
            continue;
        }
        FieldRequirement r;
        std::string_view rhs;
        if (!splitTerm(term, r, &rhs)) {
            *error = "invalid selector: '" + std::string(text) + "'; can't understand '" +
                     std::string(term) + "'";
            return std::nullopt;
        }
        if (!unescapeValue(rhs, &r.value, error)) {
            return std::nullopt;
        }
        sel.requirements_.push_back(std::move(r));
    }
    return sel;
}

std::optional<std::string> FieldSelector::requiresExactMatch(std::string_view field) const {
    for (const FieldRequirement& r : requirements_) {
        if (r.field == field && !r.notEquals) {
            return r.value;
        }
    }
    return std::nullopt;
}

bool FieldSelector::matches(const Lookup& lookup) const {
    for (const FieldRequirement& r : requirements_) {
        if ((lookup(r.field) == r.value) == r.notEquals) {
            return false;
        }
    }
    return true;
}

}  // namespace kube::util
