#include "cel/lexer.hpp"

#include <array>

namespace kube::cel {

namespace {

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

bool isHex(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool isIdentStart(char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool isIdentChar(char c) {
    return isIdentStart(c) || isDigit(c);
}

int hexValue(char c) {
    if (isDigit(c)) {
        return c - '0';
    }
    return (c | 0x20) - 'a' + 10;
}

void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

const std::array<std::string_view, 17> kReserved = {
    "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
    "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};

// Operators, longest first so "==" wins over "=".
const std::array<std::string_view, 25> kPuncts = {"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!",
                                                  "+",  "-",  "*",  "/",  "%",  "?",  ":", ".", ",",
                                                  "[",  "]",  "{",  "}",  "(",  ")",  "="};

}  // namespace

bool isReservedWord(std::string_view word) {
    for (std::string_view r : kReserved) {
        if (r == word) {
            return true;
        }
    }
    return false;
}

Lexeme Lexer::fail(size_t start, size_t end) {
    // ANTLR's "token recognition error at: '<text>'" names the text it had
    // read when it gave up.
    Lexeme l;
    l.token = Token::Error;
    l.offset = static_cast<int32_t>(start);
    l.source = in_.substr(start, end - start);
    l.text = "token recognition error at: '" + std::string(l.source) + "'";
    pos_ = end;
    return l;
}

Lexeme Lexer::next() {
    // Whitespace and // comments.
    while (pos_ < in_.size()) {
        char c = in_[pos_];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            pos_++;
        } else if (c == '/' && pos_ + 1 < in_.size() && in_[pos_ + 1] == '/') {
            while (pos_ < in_.size() && in_[pos_] != '\n') {
                pos_++;
            }
        } else {
            break;
        }
    }
    size_t start = pos_;
    Lexeme l;
    l.offset = static_cast<int32_t>(start);
    if (pos_ >= in_.size()) {
        l.token = Token::End;
        return l;
    }
    char c = in_[pos_];
    if (isDigit(c) || (c == '.' && pos_ + 1 < in_.size() && isDigit(in_[pos_ + 1]))) {
        return number(start);
    }
    if (c == '"' || c == '\'') {
        return quoted(start, false, false);
    }
    if (isIdentStart(c)) {
        // String prefixes: r, b, rb, br in any case.
        size_t p = pos_;
        bool raw = false;
        bool bytes = false;
        while (p < in_.size() && p - pos_ < 2) {
            char q = static_cast<char>(in_[p] | 0x20);
            if (q == 'r' && !raw) {
                raw = true;
            } else if (q == 'b' && !bytes) {
                bytes = true;
            } else {
                break;
            }
            p++;
        }
        if (p > pos_ && p < in_.size() && (in_[p] == '"' || in_[p] == '\'')) {
            pos_ = p;
            return quoted(start, raw, bytes);
        }
        while (pos_ < in_.size() && isIdentChar(in_[pos_])) {
            pos_++;
        }
        l.source = in_.substr(start, pos_ - start);
        l.text = std::string(l.source);
        l.token = l.text == "true"    ? Token::True
                  : l.text == "false" ? Token::False
                  : l.text == "null"  ? Token::Null
                  : l.text == "in"    ? Token::In
                                      : Token::Ident;
        return l;
    }
    for (std::string_view p : kPuncts) {
        if (in_.substr(pos_, p.size()) == p) {
            if (p == "=") {
                // A lone '=' is no CEL token; ANTLR reports it with what follows.
                return fail(start, std::min(in_.size(), pos_ + 2));
            }
            pos_ += p.size();
            l.token = Token::Punct;
            l.source = in_.substr(start, p.size());
            l.text = std::string(p);
            return l;
        }
    }
    // One UTF-8 sequence.
    size_t end = pos_ + 1;
    while (end < in_.size() && (static_cast<unsigned char>(in_[end]) & 0xC0) == 0x80) {
        end++;
    }
    return fail(start, end);
}

Lexeme Lexer::number(size_t start) {
    Lexeme l;
    l.offset = static_cast<int32_t>(start);
    if (in_[pos_] == '0' && pos_ + 1 < in_.size() && (in_[pos_ + 1] | 0x20) == 'x' &&
        pos_ + 2 < in_.size() && isHex(in_[pos_ + 2])) {
        pos_ += 2;
        while (pos_ < in_.size() && isHex(in_[pos_])) {
            pos_++;
        }
        l.token = Token::Int;
    } else {
        bool isDouble = false;
        while (pos_ < in_.size() && isDigit(in_[pos_])) {
            pos_++;
        }
        if (pos_ + 1 < in_.size() && in_[pos_] == '.' && isDigit(in_[pos_ + 1])) {
            isDouble = true;
            pos_++;
            while (pos_ < in_.size() && isDigit(in_[pos_])) {
                pos_++;
            }
        }
        if (pos_ < in_.size() && (in_[pos_] | 0x20) == 'e') {
            size_t p = pos_ + 1;
            if (p < in_.size() && (in_[p] == '+' || in_[p] == '-')) {
                p++;
            }
            if (p < in_.size() && isDigit(in_[p])) {
                isDouble = true;
                pos_ = p;
                while (pos_ < in_.size() && isDigit(in_[pos_])) {
                    pos_++;
                }
            }
        }
        l.token = isDouble ? Token::Double : Token::Int;
    }
    l.text = std::string(in_.substr(start, pos_ - start));
    if (l.token == Token::Int && pos_ < in_.size() && (in_[pos_] | 0x20) == 'u') {
        pos_++;
        l.token = Token::Uint;
    }
    l.source = in_.substr(start, pos_ - start);
    return l;
}

Lexeme Lexer::quoted(size_t start, bool raw, bool bytes) {
    char q = in_[pos_];
    bool triple = in_.substr(pos_, 3) == std::string(3, q);
    size_t open = triple ? 3 : 1;
    pos_ += open;
    std::string out;
    for (;;) {
        if (pos_ >= in_.size()) {
            return fail(start, in_.size());
        }
        char c = in_[pos_];
        if (triple ? in_.substr(pos_, 3) == std::string(3, q) : c == q) {
            pos_ += open;
            break;
        }
        if (!triple && (c == '\n' || c == '\r')) {
            return fail(start, pos_);
        }
        if (c != '\\' || raw) {
            out += c;
            pos_++;
            continue;
        }
        // An escape.
        size_t esc = pos_;
        if (pos_ + 1 >= in_.size()) {
            return fail(start, in_.size());
        }
        char e = in_[pos_ + 1];
        pos_ += 2;
        switch (e) {
            case 'a':
                out += '\a';
                continue;
            case 'b':
                out += '\b';
                continue;
            case 'f':
                out += '\f';
                continue;
            case 'n':
                out += '\n';
                continue;
            case 'r':
                out += '\r';
                continue;
            case 't':
                out += '\t';
                continue;
            case 'v':
                out += '\v';
                continue;
            case '\\':
            case '\'':
            case '"':
            case '`':
            case '?':
                out += e;
                continue;
            default:
                break;
        }
        if (e == 'x' || e == 'X' || e == 'u' || e == 'U') {
            size_t n = (e == 'x' || e == 'X') ? 2 : e == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (size_t i = 0; i < n; i++) {
                if (pos_ >= in_.size() || !isHex(in_[pos_])) {
                    return fail(start, pos_ + (pos_ < in_.size() ? 1 : 0));
                }
                cp = cp * 16 + static_cast<uint32_t>(hexValue(in_[pos_++]));
            }
            if (n == 2 && bytes) {
                out += static_cast<char>(cp);
            } else if (n != 2 && bytes) {
                appendUtf8(out, cp);
            } else if (cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) {
                return fail(start, pos_);
            } else {
                appendUtf8(out, cp);
            }
            continue;
        }
        if (e >= '0' && e <= '3') {
            uint32_t v = static_cast<uint32_t>(e - '0');
            for (int i = 0; i < 2; i++) {
                if (pos_ >= in_.size() || in_[pos_] < '0' || in_[pos_] > '7') {
                    return fail(start, pos_ + (pos_ < in_.size() ? 1 : 0));
                }
                v = v * 8 + static_cast<uint32_t>(in_[pos_++] - '0');
            }
            if (bytes) {
                out += static_cast<char>(v);
            } else {
                appendUtf8(out, v);
            }
            continue;
        }
        (void)esc;
        return fail(start, pos_);
    }
    Lexeme l;
    l.token = bytes ? Token::Bytes : Token::String;
    l.offset = static_cast<int32_t>(start);
    l.source = in_.substr(start, pos_ - start);
    l.text = std::move(out);
    return l;
}

}  // namespace kube::cel
