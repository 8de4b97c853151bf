#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kube::cel {

enum class Token {
    End,
    Ident,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    True,
    False,
    Null,
    In,
    Punct,  // an operator or bracket: text holds it ("==", "(", "?")
    Error,  // a token that could not be read: text holds cel-go's message
};

// One token: its kind, where it starts (byte offset), the source text it
// spans, and for literals the decoded value (string and bytes unescaped,
// numbers as written without the suffix).
struct Lexeme {
    Token token = Token::End;
    int32_t offset = 0;
    std::string_view source;
    std::string text;
};

// Splits a CEL expression into tokens, one at a time (the CEL lexical
// grammar of cel-spec's langdef.md: identifiers, reserved words, decimal and
// hex integers with an optional u suffix, doubles, quoted, triple-quoted,
// raw and bytes strings with every escape).
class Lexer {
  public:
    explicit Lexer(std::string_view input) : in_(input) {}

    Lexeme next();

  private:
    Lexeme number(size_t start);
    Lexeme quoted(size_t start, bool raw, bool bytes);
    Lexeme fail(size_t start, size_t end);

    std::string_view in_;
    size_t pos_ = 0;
};

// The words CEL reserves, which cannot name a variable or a field.
bool isReservedWord(std::string_view word);

}  // namespace kube::cel
