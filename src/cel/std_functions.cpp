// CEL's standard functions and operators (cel-spec langdef.md "Standard
// Definitions"), with cel-go's runtime errors: "integer overflow",
// "division by zero", "modulus by zero", "no such key: k", "index 'i' out of
// range in list size 'n'", "no such overload".
#include <cmath>
#include <cstdlib>
#include <limits>

#include "cel/functions.hpp"
#include "cel/unstructured_list.hpp"
#include "util/utf8.hpp"

namespace kube::cel {

namespace {

using Args = std::span<const Value>;

Value overflow() {
    return Value::error("integer overflow");
}

Value negate(Args a) {
    if (a[0].kind() == Kind::Int) {
        if (a[0].asInt() == std::numeric_limits<int64_t>::min()) {
            return overflow();
        }
        return Value::integer(-a[0].asInt());
    }
    if (a[0].kind() == Kind::Double) {
        return Value::dbl(-a[0].asDouble());
    }
    if (a[0].kind() == Kind::Duration) {
        return Value::duration(-a[0].asInt());
    }
    return Value::noSuchOverload();
}

Value logicalNot(Args a) {
    if (a[0].kind() != Kind::Bool) {
        return Value::noSuchOverload();
    }
    return Value::boolean(!a[0].asBool());
}

// Timestamps are kept within CEL's range, years 0001 to 9999.
constexpr int64_t kMinTimestampSeconds = -62135596800;
constexpr int64_t kMaxTimestampSeconds = 253402300799;

Value timestampChecked(__int128 nanos) {
    __int128 s = nanos / 1000000000;
    __int128 n = nanos % 1000000000;
    if (n < 0) {
        n += 1000000000;
        s -= 1;
    }
    if (s < kMinTimestampSeconds || s > kMaxTimestampSeconds) {
        return Value::error("timestamp out of range");
    }
    return Value::timestamp(static_cast<int64_t>(s), static_cast<int32_t>(n));
}

__int128 timestampNanos(const Value& t) {
    return static_cast<__int128>(t.asInt()) * 1000000000 + t.nanos();
}

Value add(Args a) {
    const Value& x = a[0];
    const Value& y = a[1];
    if (x.kind() == Kind::Int && y.kind() == Kind::Int) {
        int64_t r;
        if (__builtin_add_overflow(x.asInt(), y.asInt(), &r)) {
            return overflow();
        }
        return Value::integer(r);
    }
    if (x.kind() == Kind::Uint && y.kind() == Kind::Uint) {
        uint64_t r;
        if (__builtin_add_overflow(x.asUint(), y.asUint(), &r)) {
            return overflow();
        }
        return Value::uinteger(r);
    }
    if (x.kind() == Kind::Double && y.kind() == Kind::Double) {
        return Value::dbl(x.asDouble() + y.asDouble());
    }
    if (x.kind() == Kind::String && y.kind() == Kind::String) {
        return Value::string(x.str() + y.str());
    }
    if (x.kind() == Kind::Bytes && y.kind() == Kind::Bytes) {
        return Value::bytes(x.str() + y.str());
    }
    if (x.kind() == Kind::List && y.kind() == Kind::List) {
        if (isUnorderedList(x)) {
            return addUnorderedList(x, y);
        }
        List items = x.list();
        items.insert(items.end(), y.list().begin(), y.list().end());
        return Value::list(std::move(items));
    }
    if (x.kind() == Kind::Duration && y.kind() == Kind::Duration) {
        int64_t r;
        if (__builtin_add_overflow(x.asInt(), y.asInt(), &r)) {
            return overflow();
        }
        return Value::duration(r);
    }
    if (x.kind() == Kind::Timestamp && y.kind() == Kind::Duration) {
        return timestampChecked(timestampNanos(x) + y.asInt());
    }
    if (x.kind() == Kind::Duration && y.kind() == Kind::Timestamp) {
        return timestampChecked(timestampNanos(y) + x.asInt());
    }
    return Value::noSuchOverload();
}

Value subtract(Args a) {
    const Value& x = a[0];
    const Value& y = a[1];
    if (x.kind() == Kind::Int && y.kind() == Kind::Int) {
        int64_t r;
        if (__builtin_sub_overflow(x.asInt(), y.asInt(), &r)) {
            return overflow();
        }
        return Value::integer(r);
    }
    if (x.kind() == Kind::Uint && y.kind() == Kind::Uint) {
        uint64_t r;
        if (__builtin_sub_overflow(x.asUint(), y.asUint(), &r)) {
            return overflow();
        }
        return Value::uinteger(r);
    }
    if (x.kind() == Kind::Double && y.kind() == Kind::Double) {
        return Value::dbl(x.asDouble() - y.asDouble());
    }
    if (x.kind() == Kind::Duration && y.kind() == Kind::Duration) {
        int64_t r;
        if (__builtin_sub_overflow(x.asInt(), y.asInt(), &r)) {
            return overflow();
        }
        return Value::duration(r);
    }
    if (x.kind() == Kind::Timestamp && y.kind() == Kind::Duration) {
        return timestampChecked(timestampNanos(x) - y.asInt());
    }
    if (x.kind() == Kind::Timestamp && y.kind() == Kind::Timestamp) {
        __int128 d = timestampNanos(x) - timestampNanos(y);
        if (d > std::numeric_limits<int64_t>::max() || d < std::numeric_limits<int64_t>::min()) {
            return overflow();
        }
        return Value::duration(static_cast<int64_t>(d));
    }
    return Value::noSuchOverload();
}

Value multiply(Args a) {
    const Value& x = a[0];
    const Value& y = a[1];
    if (x.kind() == Kind::Int && y.kind() == Kind::Int) {
        int64_t r;
        if (__builtin_mul_overflow(x.asInt(), y.asInt(), &r)) {
            return overflow();
        }
        return Value::integer(r);
    }
    if (x.kind() == Kind::Uint && y.kind() == Kind::Uint) {
        uint64_t r;
        if (__builtin_mul_overflow(x.asUint(), y.asUint(), &r)) {
            return overflow();
        }
        return Value::uinteger(r);
    }
    if (x.kind() == Kind::Double && y.kind() == Kind::Double) {
        return Value::dbl(x.asDouble() * y.asDouble());
    }
    return Value::noSuchOverload();
}

Value divide(Args a) {
    const Value& x = a[0];
    const Value& y = a[1];
    if (x.kind() == Kind::Int && y.kind() == Kind::Int) {
        if (y.asInt() == 0) {
            return Value::error("division by zero");
        }
        if (x.asInt() == std::numeric_limits<int64_t>::min() && y.asInt() == -1) {
            return overflow();
        }
        return Value::integer(x.asInt() / y.asInt());
    }
    if (x.kind() == Kind::Uint && y.kind() == Kind::Uint) {
        if (y.asUint() == 0) {
            return Value::error("division by zero");
        }
        return Value::uinteger(x.asUint() / y.asUint());
    }
    if (x.kind() == Kind::Double && y.kind() == Kind::Double) {
        return Value::dbl(x.asDouble() / y.asDouble());
    }
    return Value::noSuchOverload();
}

Value modulo(Args a) {
    const Value& x = a[0];
    const Value& y = a[1];
    if (x.kind() == Kind::Int && y.kind() == Kind::Int) {
        if (y.asInt() == 0) {
            return Value::error("modulus by zero");
        }
        if (x.asInt() == std::numeric_limits<int64_t>::min() && y.asInt() == -1) {
            return overflow();
        }
        return Value::integer(x.asInt() % y.asInt());
    }
    if (x.kind() == Kind::Uint && y.kind() == Kind::Uint) {
        if (y.asUint() == 0) {
            return Value::error("modulus by zero");
        }
        return Value::uinteger(x.asUint() % y.asUint());
    }
    return Value::noSuchOverload();
}

Value equal(Args a) {
    return equals(a[0], a[1]);
}

Value notEqual(Args a) {
    Value eq = equals(a[0], a[1]);
    return eq.isError() ? eq : Value::boolean(!eq.asBool());
}

template <bool (*Test)(int)>
Value relation(Args a) {
    int c = compareValues(a[0], a[1]);
    if (c == 2) {
        bool nan = (a[0].kind() == Kind::Double && std::isnan(a[0].asDouble())) ||
                   (a[1].kind() == Kind::Double && std::isnan(a[1].asDouble()));
        return nan ? Value::boolean(false) : Value::noSuchOverload();
    }
    return Value::boolean(Test(c));
}

bool lessTest(int c) {
    return c < 0;
}
bool lessEqualTest(int c) {
    return c <= 0;
}
bool greaterTest(int c) {
    return c > 0;
}
bool greaterEqualTest(int c) {
    return c >= 0;
}

Value index(Args a) {
    const Value& c = a[0];
    const Value& i = a[1];
    if (c.kind() == Kind::List) {
        int64_t at;
        if (i.kind() == Kind::Int) {
            at = i.asInt();
        } else if (i.kind() == Kind::Uint && i.asUint() <= INT64_MAX) {
            at = static_cast<int64_t>(i.asUint());
        } else if (i.kind() == Kind::Double && i.asDouble() == std::trunc(i.asDouble()) &&
                   std::fabs(i.asDouble()) < 9.2e18) {
            at = static_cast<int64_t>(i.asDouble());
        } else {
            return Value::noSuchOverload();
        }
        if (at < 0 || static_cast<uint64_t>(at) >= c.list().size()) {
            if (c.fromObject()) {
                return Value::error("index out of bounds: " + std::to_string(at));
            }
            return Value::error("index '" + std::to_string(at) + "' out of range in list size '" +
                                std::to_string(c.list().size()) + "'");
        }
        return c.list()[static_cast<size_t>(at)];
    }
    if (c.kind() == Kind::Map) {
        const Value* v = c.map().find(i);
        if (v == nullptr) {
            std::string key = i.kind() == Kind::String ? i.str()
                              : i.kind() == Kind::Int  ? std::to_string(i.asInt())
                              : i.kind() == Kind::Uint ? std::to_string(i.asUint())
                              : i.kind() == Kind::Bool ? (i.asBool() ? "true" : "false")
                                                       : i.typeName();
            return Value::error("no such key: " + key);
        }
        return *v;
    }
    return Value::noSuchOverload();
}

Value in(Args a) {
    const Value& x = a[0];
    const Value& c = a[1];
    if (c.kind() == Kind::List) {
        for (const Value& e : c.list()) {
            Value eq = equals(x, e);
            if (eq.kind() == Kind::Bool && eq.asBool()) {
                return eq;
            }
        }
        return Value::boolean(false);
    }
    if (c.kind() == Kind::Map) {
        return Value::boolean(c.map().find(x) != nullptr);
    }
    return Value::noSuchOverload();
}

Value size(Args a) {
    const Value& x = a[0];
    switch (x.kind()) {
        case Kind::String: {
            int64_t n = 0;
            for (char ch : x.str()) {
                n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
            }
            return Value::integer(n);
        }
        case Kind::Bytes:
            return Value::integer(static_cast<int64_t>(x.str().size()));
        case Kind::List:
            return Value::integer(static_cast<int64_t>(x.list().size()));
        case Kind::Map:
            return Value::integer(static_cast<int64_t>(x.map().size()));
        default:
            return Value::noSuchOverload();
    }
}

template <int Which>
Value stringTest(Args a) {
    if (a[0].kind() != Kind::String || a[1].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    const std::string& s = a[0].str();
    const std::string& t = a[1].str();
    switch (Which) {
        case 0:
            return Value::boolean(s.find(t) != std::string::npos);
        case 1:
            return Value::boolean(s.compare(0, t.size(), t) == 0 && s.size() >= t.size());
        default:
            return Value::boolean(s.size() >= t.size() &&
                                  s.compare(s.size() - t.size(), t.size(), t) == 0);
    }
}

Value conversionError(const char* to) {
    return Value::error(std::string("type conversion error from 'string' to '") + to + "'");
}

Value parseIntText(const std::string& s) {
    // Go's strconv.ParseInt(s, 10, 64) as cel-go's int(string).
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    bool syntax = s.empty() || end != s.c_str() + s.size() || std::isspace(s[0]) ||
                  (s[0] == '+' && s.size() > 1 && !std::isdigit(s[1]));
    if (syntax || errno == ERANGE) {
        return conversionError("int");
    }
    return Value::integer(v);
}

Value toInt(Args a) {
    const Value& x = a[0];
    switch (x.kind()) {
        case Kind::Int:
            return x;
        case Kind::Uint:
            if (x.asUint() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                return Value::error("range error converting " + std::to_string(x.asUint()) +
                                    " to int");
            }
            return Value::integer(static_cast<int64_t>(x.asUint()));
        case Kind::Double: {
            double d = x.asDouble();
            if (std::isnan(d) || d <= -9223372036854775808.0 || d >= 9223372036854775807.0) {
                return Value::error("range error converting " + formatDouble(d) + " to int");
            }
            return Value::integer(static_cast<int64_t>(d));
        }
        case Kind::String:
            return parseIntText(x.str());
        case Kind::Duration:
            return Value::integer(x.asInt());
        case Kind::Timestamp:
            return Value::integer(x.asInt());
        default:
            return Value::noSuchOverload();
    }
}

Value toUint(Args a) {
    const Value& x = a[0];
    switch (x.kind()) {
        case Kind::Uint:
            return x;
        case Kind::Int:
            if (x.asInt() < 0) {
                return Value::error("range error converting " + std::to_string(x.asInt()) +
                                    " to uint");
            }
            return Value::uinteger(static_cast<uint64_t>(x.asInt()));
        case Kind::Double: {
            double d = x.asDouble();
            if (std::isnan(d) || d < 0 || d >= 18446744073709551616.0) {
                return Value::error("range error converting " + formatDouble(d) + " to uint");
            }
            return Value::uinteger(static_cast<uint64_t>(d));
        }
        case Kind::String: {
            const std::string& s = x.str();
            errno = 0;
            char* end = nullptr;
            unsigned long long v = std::strtoull(s.c_str(), &end, 10);
            if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])) ||
                end != s.c_str() + s.size()) {
                return conversionError("uint");
            }
            if (errno == ERANGE) {
                return conversionError("uint");
            }
            return Value::uinteger(v);
        }
        default:
            return Value::noSuchOverload();
    }
}

Value doubleConversion(Args a) {
    const Value& x = a[0];
    switch (x.kind()) {
        case Kind::Double:
            return x;
        case Kind::Int:
            return Value::dbl(static_cast<double>(x.asInt()));
        case Kind::Uint:
            return Value::dbl(static_cast<double>(x.asUint()));
        case Kind::String: {
            const std::string& s = x.str();
            char* end = nullptr;
            double d = std::strtod(s.c_str(), &end);
            if (s.empty() || end != s.c_str() + s.size() || std::isspace(s[0])) {
                return conversionError("double");
            }
            return Value::dbl(d);
        }
        default:
            return Value::noSuchOverload();
    }
}

Value toString(Args a) {
    const Value& x = a[0];
    switch (x.kind()) {
        case Kind::String:
            return x;
        case Kind::Int:
            return Value::string(std::to_string(x.asInt()));
        case Kind::Uint:
            return Value::string(std::to_string(x.asUint()));
        case Kind::Double:
            return Value::string(formatDouble(x.asDouble()));
        case Kind::Bool:
            return Value::string(x.asBool() ? "true" : "false");
        case Kind::Bytes:
            if (!util::utf8::valid(x.str())) {
                return Value::error("invalid UTF-8 in bytes, cannot convert to string");
            }
            return Value::string(x.str());
        case Kind::Duration:
            return Value::string(formatDuration(x.asInt()));
        case Kind::Timestamp:
            return Value::string(formatTimestamp(x));
        default:
            return Value::noSuchOverload();
    }
}

Value toBytes(Args a) {
    if (a[0].kind() == Kind::Bytes) {
        return a[0];
    }
    if (a[0].kind() == Kind::String) {
        return Value::bytes(a[0].str());
    }
    return Value::noSuchOverload();
}

Value toBool(Args a) {
    if (a[0].kind() == Kind::Bool) {
        return a[0];
    }
    if (a[0].kind() == Kind::String) {
        const std::string& s = a[0].str();
        if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") {
            return Value::boolean(true);
        }
        if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
            return Value::boolean(false);
        }
        return conversionError("bool");
    }
    return Value::noSuchOverload();
}

Value identity(Args a) {
    return a[0];
}

Value typeOf(Args a) {
    return Value::type(a[0].typeName());
}

}  // namespace

void addStandardFunctions(FunctionRegistry& r) {
    using sig::A;
    using sig::B;
    using sig::listOf;
    TypePtr i = Type::integer();
    TypePtr u = Type::uinteger();
    TypePtr d = Type::dbl();
    TypePtr s = Type::string();
    TypePtr b = Type::bytes();
    TypePtr bo = Type::boolean();
    TypePtr du = Type::duration();
    TypePtr ts = Type::timestamp();
    TypePtr dy = Type::dyn();
    TypePtr mapAB = Type::map(A(), B());

    r.add({"!_", false, {bo}, bo});
    r.add("!_", false, 1, logicalNot);
    for (const TypePtr& t : {i, d, du}) {
        r.add({"-_", false, {t}, t});
    }
    r.add("-_", false, 1, negate);
    for (const TypePtr& t : {i, u, d, s, b, du}) {
        r.add({"_+_", false, {t, t}, t});
    }
    r.add({"_+_", false, {listOf(A()), listOf(A())}, listOf(A())});
    r.add({"_+_", false, {ts, du}, ts});
    r.add({"_+_", false, {du, ts}, ts});
    r.add("_+_", false, 2, add);
    for (const TypePtr& t : {i, u, d, du}) {
        r.add({"_-_", false, {t, t}, t});
    }
    r.add({"_-_", false, {ts, ts}, du});
    r.add({"_-_", false, {ts, du}, ts});
    r.add("_-_", false, 2, subtract);
    for (const TypePtr& t : {i, u, d}) {
        r.add({"_*_", false, {t, t}, t});
        r.add({"_/_", false, {t, t}, t});
    }
    r.add({"_%_", false, {i, i}, i});
    r.add({"_%_", false, {u, u}, u});
    r.add("_*_", false, 2, multiply);
    r.add("_/_", false, 2, divide);
    r.add("_%_", false, 2, modulo);

    r.add({"_==_", false, {A(), A()}, bo});
    r.add({"_!=_", false, {A(), A()}, bo});
    r.add("_==_", false, 2, equal);
    r.add("_!=_", false, 2, notEqual);
    for (const char* op : {"_<_", "_<=_", "_>_", "_>=_"}) {
        for (const TypePtr& t : {bo, i, u, d, s, b, du, ts}) {
            r.add({op, false, {t, t}, bo});
        }
    }
    r.add("_<_", false, 2, relation<lessTest>);
    r.add("_<=_", false, 2, relation<lessEqualTest>);
    r.add("_>_", false, 2, relation<greaterTest>);
    r.add("_>=_", false, 2, relation<greaterEqualTest>);

    r.add({"_[_]", false, {listOf(A()), i}, A()});
    r.add({"_[_]", false, {mapAB, A()}, B()});
    r.add("_[_]", false, 2, index);
    r.add({"@in", false, {A(), listOf(A())}, bo});
    r.add({"@in", false, {A(), mapAB}, bo});
    r.add("@in", false, 2, in);

    for (const TypePtr& t : {s, b, listOf(A()), mapAB}) {
        r.add({"size", false, {t}, i});
        r.add({"size", true, {t}, i});
    }
    r.add("size", false, 1, size);
    r.add("size", true, 1, size);
    r.add({"contains", true, {s, s}, bo});
    r.add({"startsWith", true, {s, s}, bo});
    r.add({"endsWith", true, {s, s}, bo});
    r.add("contains", true, 2, stringTest<0>);
    r.add("startsWith", true, 2, stringTest<1>);
    r.add("endsWith", true, 2, stringTest<2>);

    for (const TypePtr& t : {i, u, d, s, du, ts}) {
        r.add({"int", false, {t}, i});
    }
    r.add("int", false, 1, toInt);
    for (const TypePtr& t : {i, u, d, s}) {
        r.add({"uint", false, {t}, u});
        r.add({"double", false, {t}, d});
    }
    r.add("uint", false, 1, toUint);
    r.add("double", false, 1, doubleConversion);
    for (const TypePtr& t : {i, u, d, s, b, bo, du, ts}) {
        r.add({"string", false, {t}, s});
    }
    r.add("string", false, 1, toString);
    r.add({"bytes", false, {s}, b});
    r.add({"bytes", false, {b}, b});
    r.add("bytes", false, 1, toBytes);
    r.add({"bool", false, {bo}, bo});
    r.add({"bool", false, {s}, bo});
    r.add("bool", false, 1, toBool);
    r.add({"dyn", false, {A()}, dy});
    r.add("dyn", false, 1, identity);
    r.add({"type", false, {A()}, Type::typeOf(A())});
    r.add("type", false, 1, typeOf);
}

}  // namespace kube::cel
