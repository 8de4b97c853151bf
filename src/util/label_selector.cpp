#include "util/label_selector.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "registry/validation.hpp"

namespace kube::util {

namespace {

namespace validation = registry::validation;

enum class Token {
    Error,
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
};

struct Item {
    Token tok;
    std::string literal;
};

std::optional<Token> keyword(std::string_view s) {
    static const std::pair<std::string_view, Token> table[] = {
        {")", Token::ClosedPar},    {",", Token::Comma},       {"!", Token::DoesNotExist},
        {"==", Token::DoubleEquals}, {"=", Token::Equals},      {">", Token::GreaterThan},
        {"in", Token::In},          {"<", Token::LessThan},    {"!=", Token::NotEquals},
        {"notin", Token::NotIn},    {"(", Token::OpenPar},
    };
    for (const auto& [text, tok] : table) {
        if (text == s) {
            return tok;
        }
    }
    return std::nullopt;
}

bool isWhitespace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool isSpecialSymbol(char c) {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

// Mirrors labels.Lexer: identifiers and keywords end at whitespace or an
// operator character; operators are read greedily while they still spell one.
std::vector<Item> scan(std::string_view s) {
    std::vector<Item> items;
    size_t pos = 0;
    for (;;) {
        while (pos < s.size() && isWhitespace(s[pos])) {
            pos++;
        }
        if (pos >= s.size()) {
            items.push_back({Token::EndOfString, ""});
            return items;
        }
        if (isSpecialSymbol(s[pos])) {
            std::string buffer;
            std::optional<Item> last;
            while (pos < s.size() && isSpecialSymbol(s[pos])) {
                buffer += s[pos];
                if (auto tok = keyword(buffer)) {
                    last = Item{*tok, buffer};
                    pos++;
                } else if (last) {
                    break;
                } else {
                    pos++;
                }
            }
            if (!last) {
                items.push_back({Token::Error, "error expected: keyword found '" + buffer + "'"});
            } else {
                items.push_back(*last);
            }
            continue;
        }
        size_t start = pos;
        while (pos < s.size() && !isSpecialSymbol(s[pos]) && !isWhitespace(s[pos])) {
            pos++;
        }
        std::string lit(s.substr(start, pos - start));
        auto tok = keyword(lit);
        items.push_back({tok ? *tok : Token::Identifier, std::move(lit)});
    }
}

// field.Invalid(path, value, detail).Error(), path "<nil>" when there is none.
std::string invalidValue(std::string_view path, std::string_view value,
                         const std::vector<std::string>& details) {
    std::string detail;
    for (const std::string& d : details) {
        detail += (detail.empty() ? "" : "; ") + d;
    }
    return std::string(path) + ": Invalid value: " + validation::goQuote(value) + ": " + detail;
}

bool parseInt64(std::string_view s) {
    int64_t n = 0;
    std::string_view digits = s;
    if (digits.starts_with('+')) {
        digits.remove_prefix(1);
    }
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    return !digits.empty() && ec == std::errc() && end == digits.data() + digits.size();
}

// Mirrors labels.Parser; errors carry the Go parser's wording.
class Parser {
public:
    explicit Parser(std::string_view text) : items_(scan(text)) {}

    bool parse(std::vector<LabelRequirement>& out, std::string* error) {
        for (;;) {
            auto [tok, lit] = lookahead(true);
            switch (tok) {
                case Token::Identifier:
                case Token::DoesNotExist: {
                    LabelRequirement r;
                    if (!parseRequirement(r, error)) {
                        *error = "unable to parse requirement: " + *error;
                        return false;
                    }
                    out.push_back(std::move(r));
                    auto [t, l] = consume(true);
                    if (t == Token::EndOfString) {
                        return true;
                    }
                    if (t != Token::Comma) {
                        *error = "found '" + l + "', expected: ',' or 'end of string'";
                        return false;
                    }
                    auto [t2, l2] = lookahead(true);
                    if (t2 != Token::Identifier && t2 != Token::DoesNotExist) {
                        *error = "found '" + l2 + "', expected: identifier after ','";
                        return false;
                    }
                    break;
                }
                case Token::EndOfString:
                    return true;
                default:
                    *error = "found '" + lit + "', expected: !, identifier, or 'end of string'";
                    return false;
            }
        }
    }

private:
    // In value position the keywords "in" and "notin" are plain identifiers.
    std::pair<Token, std::string> lookahead(bool values) const {
        const Item& it = items_[std::min(pos_, items_.size() - 1)];
        Token tok = it.tok;
        if (values && (tok == Token::In || tok == Token::NotIn)) {
            tok = Token::Identifier;
        }
        return {tok, it.literal};
    }

    std::pair<Token, std::string> consume(bool values) {
        auto r = lookahead(values);
        if (pos_ < items_.size() - 1) {
            pos_++;
        }
        return r;
    }

    bool parseRequirement(LabelRequirement& r, std::string* error) {
        std::optional<LabelOperator> op;
        auto [tok, lit] = consume(true);
        if (tok == Token::DoesNotExist) {
            op = LabelOperator::DoesNotExist;
            std::tie(tok, lit) = consume(true);
        }
        if (tok != Token::Identifier) {
            *error = "found '" + lit + "', expected: identifier";
            return false;
        }
        if (auto errs = validation::isQualifiedName(lit); !errs.empty()) {
            *error = invalidValue("<nil>", lit, errs);
            return false;
        }
        r.key = lit;
        if (auto [t, l] = lookahead(true); t == Token::EndOfString || t == Token::Comma) {
            if (!op) {
                op = LabelOperator::Exists;
            }
        }
        if (op) {
            r.op = *op;
            return true;
        }
        auto [opTok, opLit] = consume(false);
        switch (opTok) {
            case Token::In: r.op = LabelOperator::In; break;
            case Token::Equals: r.op = LabelOperator::Equals; break;
            case Token::DoubleEquals: r.op = LabelOperator::DoubleEquals; break;
            case Token::GreaterThan: r.op = LabelOperator::GreaterThan; break;
            case Token::LessThan: r.op = LabelOperator::LessThan; break;
            case Token::NotIn: r.op = LabelOperator::NotIn; break;
            case Token::NotEquals: r.op = LabelOperator::NotEquals; break;
            default:
                *error = "found '" + opLit + "', expected: in, notin, =, ==, !=, gt, lt";
                return false;
        }
        bool ok = r.op == LabelOperator::In || r.op == LabelOperator::NotIn
                      ? parseValues(r.values, error)
                      : parseExactValue(r.values, error);
        if (!ok) {
            return false;
        }
        std::sort(r.values.begin(), r.values.end());
        r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
        return validateRequirement(r, error);
    }

    bool parseValues(std::vector<std::string>& values, std::string* error) {
        auto [tok, lit] = consume(true);
        if (tok != Token::OpenPar) {
            *error = "found '" + lit + "' expected: '('";
            return false;
        }
        std::tie(tok, lit) = lookahead(true);
        if (tok == Token::ClosedPar) {
            consume(true);
            values.push_back("");
            return true;
        }
        if (tok != Token::Identifier && tok != Token::Comma) {
            *error = "found '" + lit + "', expected: ',', ')' or identifier";
            return false;
        }
        for (;;) {
            auto [t, l] = consume(true);
            if (t == Token::Identifier) {
                values.push_back(l);
                auto [t2, l2] = lookahead(true);
                if (t2 == Token::Comma) {
                    continue;
                }
                if (t2 == Token::ClosedPar) {
                    break;
                }
                *error = "found '" + l2 + "', expected: ',' or ')'";
                return false;
            }
            if (t != Token::Comma) {
                *error = "found '" + l + "', expected: ',', or identifier";
                return false;
            }
            // "(,", ",," and ",)" each stand for an empty value.
            if (values.empty()) {
                values.push_back("");
            }
            auto [t2, l2] = lookahead(true);
            if (t2 == Token::ClosedPar) {
                values.push_back("");
                break;
            }
            if (t2 == Token::Comma) {
                values.push_back("");
            }
        }
        consume(true);  // the ')'
        return true;
    }

    bool parseExactValue(std::vector<std::string>& values, std::string* error) {
        auto [tok, lit] = lookahead(true);
        if (tok == Token::EndOfString || tok == Token::Comma) {
            values.push_back("");
            return true;
        }
        std::tie(tok, lit) = consume(true);
        if (tok != Token::Identifier) {
            *error = "found '" + lit + "', expected: identifier";
            return false;
        }
        values.push_back(lit);
        return true;
    }

    // Mirrors the value checks of labels.NewRequirement (the key is already
    // valid); several errors print as an aggregate, "[a, b]".
    static bool validateRequirement(const LabelRequirement& r, std::string* error) {
        std::vector<std::string> errs;
        auto add = [&errs](std::string e) {
            if (std::find(errs.begin(), errs.end(), e) == errs.end()) {
                errs.push_back(std::move(e));
            }
        };
        if (r.op == LabelOperator::GreaterThan || r.op == LabelOperator::LessThan) {
            for (size_t i = 0; i < r.values.size(); i++) {
                if (!parseInt64(r.values[i])) {
                    add(invalidValue(validation::field::index("values", i), r.values[i],
                                     {"for 'Gt', 'Lt' operators, the value must be an integer"}));
                }
            }
        }
        for (size_t i = 0; i < r.values.size(); i++) {
            if (auto e = validation::isValidLabelValue(r.values[i]); !e.empty()) {
                std::string path =
                    validation::field::key(validation::field::index("values", i), r.key);
                add(invalidValue(path, r.values[i], e));
            }
        }
        if (errs.empty()) {
            return true;
        }
        if (errs.size() == 1) {
            *error = errs[0];
            return false;
        }
        std::string all;
        for (const std::string& e : errs) {
            all += (all.empty() ? "" : ", ") + e;
        }
        *error = "[" + all + "]";
        return false;
    }

    std::vector<Item> items_;
    size_t pos_ = 0;
};

bool hasValue(const LabelRequirement& r, std::string_view v) {
    return std::binary_search(r.values.begin(), r.values.end(), v);
}

// Mirrors Requirement.Matches.
bool requirementMatches(const LabelRequirement& r, const LabelSelector::Lookup& lookup) {
    std::optional<std::string_view> v = lookup(r.key);
    switch (r.op) {
        case LabelOperator::In:
        case LabelOperator::Equals:
        case LabelOperator::DoubleEquals:
            return v && hasValue(r, *v);
        case LabelOperator::NotIn:
        case LabelOperator::NotEquals:
            return !v || !hasValue(r, *v);
        case LabelOperator::Exists:
            return v.has_value();
        case LabelOperator::DoesNotExist:
            return !v;
        case LabelOperator::GreaterThan:
        case LabelOperator::LessThan: {
            if (!v || r.values.size() != 1) {
                return false;
            }
            int64_t have = 0, want = 0;
            std::string_view h = *v, w = r.values[0];
            if (h.starts_with('+')) {
                h.remove_prefix(1);
            }
            if (w.starts_with('+')) {
                w.remove_prefix(1);
            }
            auto r1 = std::from_chars(h.data(), h.data() + h.size(), have);
            auto r2 = std::from_chars(w.data(), w.data() + w.size(), want);
            if (r1.ec != std::errc() || r1.ptr != h.data() + h.size() || r2.ec != std::errc() ||
                r2.ptr != w.data() + w.size()) {
                return false;
            }
            return r.op == LabelOperator::GreaterThan ? have > want : have < want;
        }
    }
    return false;
}

}  // namespace

std::optional<LabelSelector> LabelSelector::parse(std::string_view text, std::string* error) {
    LabelSelector sel;
    Parser p(text);
    if (!p.parse(sel.requirements_, error)) {
        return std::nullopt;
    }
    std::stable_sort(sel.requirements_.begin(), sel.requirements_.end(),
                     [](const LabelRequirement& a, const LabelRequirement& b) {
                         return a.key < b.key;
                     });
    return sel;
}

bool LabelSelector::matches(const Lookup& lookup) const {
    for (const LabelRequirement& r : requirements_) {
        if (!requirementMatches(r, lookup)) {
            return false;
        }
    }
    return true;
}

bool LabelSelector::matches(const json::Value* labels) const {
    if (requirements_.empty()) {
        return true;
    }
    return matches([labels](std::string_view key) -> std::optional<std::string_view> {
        if (!labels || !labels->IsObject()) {
            return std::nullopt;
        }
        const json::Value* v = json::member(*labels, key);
        if (!v || !v->IsString()) {
            return std::nullopt;
        }
        return json::view(*v);
    });
}

}  // namespace kube::util
