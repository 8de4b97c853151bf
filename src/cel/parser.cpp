#include "cel/parser.hpp"

#include <cerrno>
#include <cstdlib>

#include "cel/lexer.hpp"

namespace kube::cel {

namespace {

// Unwinds the parse at the first error (the parser's own, never seen outside).
struct ParseFailure {};

const char* const kExpectingExpr =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}";

// Each nested expression (parenthesized, an argument, an element) costs the
// recursion depth this much, as cel-go's visitor descends through its rules.
constexpr int kNestedDepth = 6;

class Parser {
  public:
    Parser(std::string_view text, std::vector<Issue>* issues) : lexer_(text), issues_(issues) {
        advance();
    }

    ExprPtr parseAll() {
        ExprPtr e = expr();
        if (tok_.token != Token::End) {
            unexpected("<EOF>", peek().token == Token::End);
        }
        return e;
    }

  private:
    void advance() {
        tok_ = lexer_.next();
        if (tok_.token == Token::Error) {
            fail(tok_.offset, "Syntax error: " + tok_.text);
        }
    }

    [[noreturn]] void fail(int32_t offset, std::string message) {
        issues_->push_back({offset, std::move(message)});
        throw ParseFailure{};
    }

    std::string tokenText() const {
        return tok_.token == Token::End ? "<EOF>" : std::string(tok_.source);
    }

    [[noreturn]] void mismatched(const std::string& expecting) {
        fail(tok_.offset,
             "Syntax error: mismatched input '" + tokenText() + "' expecting " + expecting);
    }

    bool isPunct(std::string_view p) const { return tok_.token == Token::Punct && tok_.text == p; }

    void expect(std::string_view p) {
        if (!isPunct(p)) {
            missing("'" + std::string(p) + "'", p == ":" ? startsExpr(tok_) : endsExpr(tok_));
        }
        advance();
    }

    // ANTLR's single-token insertion: when the current token could follow
    // the one expected, the error names the missing token ("missing ')' at
    // '<EOF>'"); otherwise the current one ("mismatched input ...").
    [[noreturn]] void missing(const std::string& expected, bool couldFollow) {
        if (couldFollow) {
            fail(tok_.offset, "Syntax error: missing " + expected + " at '" + tokenText() + "'");
        }
        mismatched(expected);
    }

    // ANTLR's single-token deletion: when the token after the current one
    // is what was expected, the current one is "extraneous".
    [[noreturn]] void unexpected(const std::string& expecting, bool nextFits) {
        if (nextFits) {
            fail(tok_.offset,
                 "Syntax error: extraneous input '" + tokenText() + "' expecting " + expecting);
        }
        mismatched(expecting);
    }

    Lexeme peek() const {
        Lexer copy = lexer_;
        return copy.next();
    }

    static bool startsExpr(const Lexeme& l) {
        switch (l.token) {
            case Token::Ident:
            case Token::Int:
            case Token::Uint:
            case Token::Double:
            case Token::String:
            case Token::Bytes:
            case Token::True:
            case Token::False:
            case Token::Null:
                return true;
            case Token::Punct:
                return l.text == "[" || l.text == "{" || l.text == "(" || l.text == "." ||
                       l.text == "-" || l.text == "!";
            default:
                return false;
        }
    }

    // What may come right after a complete operand: the end, an operator
    // or a closing bracket.
    static bool endsExpr(const Lexeme& l) {
        if (l.token == Token::End || l.token == Token::In) {
            return true;
        }
        return l.token == Token::Punct && l.text != "{" && l.text != "!";
    }

    void deeper(int by) {
        depth_ += by;
        if (depth_ > kMaxRecursionDepth) {
            fail(-1, "max recursion depth exceeded");
        }
    }

    ExprPtr node(ExprKind kind, int32_t offset) {
        auto e = std::make_unique<Expr>();
        e->kind = kind;
        e->offset = offset;
        return e;
    }

    ExprPtr call(std::string name, int32_t offset, ExprPtr a, ExprPtr b = nullptr) {
        ExprPtr e = node(ExprKind::Call, offset);
        e->name = std::move(name);
        e->args.push_back(std::move(a));
        if (b) {
            e->args.push_back(std::move(b));
        }
        return e;
    }

    // expr: or ('?' or ':' expr)?
    ExprPtr expr() {
        deeper(kNestedDepth);
        ExprPtr cond = logical("||", "_||_");
        if (isPunct("?")) {
            int32_t at = tok_.offset;
            advance();
            ExprPtr then = logical("||", "_||_");
            expect(":");
            ExprPtr otherwise = expr();
            ExprPtr e = call("_?_:_", at, std::move(cond), std::move(then));
            e->args.push_back(std::move(otherwise));
            cond = std::move(e);
        }
        depth_ -= kNestedDepth;
        return cond;
    }

    // A chain of && or || becomes a balanced tree, as cel-go builds it, so
    // a long chain stays shallow.
    ExprPtr logical(std::string_view op, const char* function) {
        std::vector<ExprPtr> terms;
        std::vector<int32_t> ops;
        terms.push_back(op == "||" ? logical("&&", "_&&_") : relation());
        while (isPunct(op)) {
            ops.push_back(tok_.offset);
            advance();
            terms.push_back(op == "||" ? logical("&&", "_&&_") : relation());
        }
        return balance(terms, ops, 0, terms.size(), function);
    }

    ExprPtr balance(std::vector<ExprPtr>& terms, const std::vector<int32_t>& ops, size_t lo,
                    size_t hi, const char* function) {
        if (hi - lo == 1) {
            return std::move(terms[lo]);
        }
        size_t mid = (lo + hi) / 2;
        ExprPtr left = balance(terms, ops, lo, mid, function);
        ExprPtr right = balance(terms, ops, mid, hi, function);
        return call(function, ops[mid - 1], std::move(left), std::move(right));
    }

    const char* relationOp() const {
        if (tok_.token == Token::In) {
            return "@in";
        }
        if (tok_.token != Token::Punct) {
            return nullptr;
        }
        const std::string& t = tok_.text;
        return t == "=="   ? "_==_"
               : t == "!=" ? "_!=_"
               : t == "<"  ? "_<_"
               : t == "<=" ? "_<=_"
               : t == ">"  ? "_>_"
               : t == ">=" ? "_>=_"
                           : nullptr;
    }

    // Left-associative chains: relations, then + -, then * / %.
    ExprPtr relation() {
        int saved = depth_;
        ExprPtr left = sum();
        while (const char* fn = relationOp()) {
            int32_t at = tok_.offset;
            advance();
            deeper(1);
            left = call(fn, at, std::move(left), sum());
        }
        depth_ = saved;
        return left;
    }

    ExprPtr sum() {
        int saved = depth_;
        ExprPtr left = product();
        while (isPunct("+") || isPunct("-")) {
            const char* fn = tok_.text == "+" ? "_+_" : "_-_";
            int32_t at = tok_.offset;
            advance();
            deeper(1);
            left = call(fn, at, std::move(left), product());
        }
        depth_ = saved;
        return left;
    }

    ExprPtr product() {
        int saved = depth_;
        ExprPtr left = unary();
        while (isPunct("*") || isPunct("/") || isPunct("%")) {
            const char* fn = tok_.text == "*" ? "_*_" : tok_.text == "/" ? "_/_" : "_%_";
            int32_t at = tok_.offset;
            advance();
            deeper(1);
            left = call(fn, at, std::move(left), unary());
        }
        depth_ = saved;
        return left;
    }

    // Runs of ! or -: an even number cancels out, as in cel-go; a single -
    // before a number literal is part of the literal (so the smallest int
    // can be written).
    ExprPtr unary() {
        if (!isPunct("!") && !isPunct("-")) {
            return member();
        }
        std::string op = tok_.text;
        int32_t at = tok_.offset;
        size_t count = 0;
        while (isPunct(op)) {
            count++;
            advance();
        }
        if (op == "-" && count % 2 == 1 &&
            (tok_.token == Token::Int || tok_.token == Token::Double)) {
            negative_ = true;
            ExprPtr e = member();
            return e;
        }
        ExprPtr operand = member();
        if (count % 2 == 0) {
            return operand;
        }
        return call(op == "!" ? "!_" : "-_", at, std::move(operand));
    }

    ExprPtr member() {
        int saved = depth_;
        ExprPtr e = primary();
        for (;;) {
            if (isPunct(".")) {
                int32_t dotAt = tok_.offset;
                advance();
                deeper(1);
                if (tok_.token != Token::Ident) {
                    missing("IDENTIFIER", endsExpr(tok_));
                }
                std::string name = tok_.text;
                advance();
                if (isPunct("(")) {
                    int32_t open = tok_.offset;
                    std::vector<ExprPtr> args = arguments(")");
                    e = memberCall(std::move(e), std::move(name), open, std::move(args));
                } else {
                    ExprPtr sel = node(ExprKind::Select, dotAt);
                    sel->name = std::move(name);
                    sel->target = std::move(e);
                    e = std::move(sel);
                }
            } else if (isPunct("[")) {
                int32_t at = tok_.offset;
                advance();
                deeper(1);
                ExprPtr index = expr();
                expect("]");
                e = call("_[_]", at, std::move(e), std::move(index));
            } else {
                break;
            }
        }
        depth_ = saved;
        return e;
    }

    // '(' args ')' or '[' elems ']' with an optional trailing comma (lists).
    std::vector<ExprPtr> arguments(std::string_view close) {
        advance();
        std::vector<ExprPtr> args;
        std::string closing = "'" + std::string(close) + "'";
        while (!isPunct(close)) {
            args.push_back(expr());
            if (isPunct(",")) {
                Lexeme after = peek();
                if (close == ")" && !startsExpr(after)) {
                    // A call takes no trailing comma.
                    bool closes = after.token == Token::Punct && after.text == ")";
                    unexpected(closing, closes);
                }
                advance();
                continue;
            }
            if (!isPunct(close)) {
                if (close == ")") {
                    missing(closing, endsExpr(tok_));
                }
                mismatched("{" + closing + ", ','}");
            }
        }
        advance();
        return args;
    }

    bool simpleName(const Expr& e) const { return e.kind == ExprKind::Ident; }

    ExprPtr memberCall(ExprPtr target, std::string name, int32_t at, std::vector<ExprPtr> args) {
        struct MacroShape {
            const char* name;
            size_t args;
            MacroKind kind;
        };
        static const MacroShape kMacros[] = {{"all", 2, MacroKind::All},
                                             {"exists", 2, MacroKind::Exists},
                                             {"exists_one", 2, MacroKind::ExistsOne},
                                             {"map", 2, MacroKind::Map},
                                             {"map", 3, MacroKind::MapFilter},
                                             {"filter", 2, MacroKind::Filter}};
        for (const MacroShape& m : kMacros) {
            if (name == m.name && args.size() == m.args) {
                if (!simpleName(*args[0])) {
                    fail(args[0]->offset, "argument must be a simple name");
                }
                ExprPtr e = node(ExprKind::Macro, at);
                e->macro = m.kind;
                e->name = std::move(name);
                e->iterVar = args[0]->name;
                e->target = std::move(target);
                for (size_t i = 1; i < args.size(); i++) {
                    e->args.push_back(std::move(args[i]));
                }
                return e;
            }
        }
        ExprPtr e = node(ExprKind::Call, at);
        e->name = std::move(name);
        e->target = std::move(target);
        e->args = std::move(args);
        return e;
    }

    ExprPtr primary() {
        int32_t at = tok_.offset;
        bool negative = negative_;
        negative_ = false;
        switch (tok_.token) {
            case Token::Int:
            case Token::Uint:
            case Token::Double:
                return numberLiteral(negative);
            case Token::String:
            case Token::Bytes: {
                ExprPtr e = node(ExprKind::Literal, at);
                e->value = tok_.token == Token::String ? Value::string(tok_.text)
                                                       : Value::bytes(tok_.text);
                advance();
                return e;
            }
            case Token::True:
            case Token::False: {
                ExprPtr e = node(ExprKind::Literal, at);
                e->value = Value::boolean(tok_.token == Token::True);
                advance();
                return e;
            }
            case Token::Null: {
                ExprPtr e = node(ExprKind::Literal, at);
                advance();
                return e;
            }
            case Token::Ident:
                return identOrCall();
            case Token::Punct:
                if (tok_.text == "(") {
                    advance();
                    ExprPtr e = expr();
                    expect(")");
                    return e;
                }
                if (tok_.text == "[") {
                    ExprPtr e = node(ExprKind::List, at);
                    e->args = arguments("]");
                    return e;
                }
                if (tok_.text == "{") {
                    return mapLiteral();
                }
                if (tok_.text == ".") {
                    // A leading dot names the root scope: .self is self.
                    advance();
                    if (tok_.token != Token::Ident) {
                        mismatched("IDENTIFIER");
                    }
                    return identOrCall();
                }
                break;
            default:
                break;
        }
        unexpected(kExpectingExpr, startsExpr(peek()));
    }

    ExprPtr numberLiteral(bool negative) {
        ExprPtr e = node(ExprKind::Literal, tok_.offset);
        std::string text = (negative ? "-" : "") + tok_.text;
        const char* s = text.c_str();
        char* end = nullptr;
        errno = 0;
        bool hex = tok_.text.size() > 2 && (tok_.text[1] | 0x20) == 'x';
        if (tok_.token == Token::Double) {
            e->value = Value::dbl(std::strtod(s, &end));
        } else if (tok_.token == Token::Uint) {
            if (negative) {
                fail(tok_.offset, "invalid uint literal");
            }
            uint64_t u = std::strtoull(s, &end, hex ? 16 : 10);
            if (errno == ERANGE) {
                fail(tok_.offset, "invalid uint literal");
            }
            e->value = Value::uinteger(u);
        } else {
            // Hex with a sign: strtoll takes "-0x10".
            long long i = std::strtoll(s, &end, hex ? 16 : 10);
            if (errno == ERANGE) {
                fail(tok_.offset, "invalid int literal");
            }
            e->value = Value::integer(i);
        }
        advance();
        return e;
    }

    ExprPtr identOrCall() {
        std::string name = tok_.text;
        int32_t at = tok_.offset;
        if (isReservedWord(name)) {
            fail(at, "reserved identifier: " + name);
        }
        advance();
        if (!isPunct("(")) {
            ExprPtr e = node(ExprKind::Ident, at);
            e->name = std::move(name);
            return e;
        }
        int32_t open = tok_.offset;
        std::vector<ExprPtr> args = arguments(")");
        if (name == "has" && args.size() == 1) {
            if (args[0]->kind != ExprKind::Select) {
                fail(open, "invalid argument to has() macro");
            }
            // cel-go's macro gives the presence test the call's position.
            args[0]->testOnly = true;
            args[0]->offset = open;
            return std::move(args[0]);
        }
        ExprPtr e = node(ExprKind::Call, open);
        e->name = std::move(name);
        e->args = std::move(args);
        return e;
    }

    ExprPtr mapLiteral() {
        ExprPtr e = node(ExprKind::Map, tok_.offset);
        advance();
        while (!isPunct("}")) {
            e->args.push_back(expr());
            expect(":");
            e->args.push_back(expr());
            if (isPunct(",")) {
                advance();
                continue;
            }
            if (!isPunct("}")) {
                mismatched("{'}', ','}");
            }
        }
        advance();
        return e;
    }

    Lexer lexer_;
    std::vector<Issue>* issues_;
    Lexeme tok_;
    int depth_ = 0;
    bool negative_ = false;
};

size_t codePoints(std::string_view s) {
    size_t n = 0;
    for (char c : s) {
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }
    return n;
}

}  // namespace

ExprPtr parse(std::string_view text, std::vector<Issue>* issues) {
    size_t size = codePoints(text);
    if (size > kMaxExpressionCodePoints) {
        issues->push_back(
            {-1, "expression code point size exceeds limit: size: " + std::to_string(size) +
                     ", limit " + std::to_string(kMaxExpressionCodePoints)});
        return nullptr;
    }
    try {
        Parser p(text, issues);
        return p.parseAll();
    } catch (const ParseFailure&) {
        return nullptr;
    }
}

}  // namespace kube::cel
