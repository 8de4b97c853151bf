// duration() and timestamp() and their accessors (cel-spec's "Timestamp and
// Duration" functions). Durations are Go's time.Duration (int64 nanoseconds,
// parsed as time.ParseDuration); timestamps RFC 3339 within years 1-9999.
#include <cstdio>
#include <string>

#include "cel/functions.hpp"
#include "util/go_duration.hpp"

namespace kube::cel {

namespace {

using Args = std::span<const Value>;

// Days since 1970-01-01 of a civil date, and back (Howard Hinnant's
// algorithms for the proleptic Gregorian calendar).
int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = static_cast<unsigned>(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct Civil {
    int64_t year;
    unsigned month;  // 1-12
    unsigned day;    // 1-31
};

Civil civilFromDays(int64_t z) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = static_cast<unsigned>(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = static_cast<int64_t>(yoe) + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned d = doy - (153 * mp + 2) / 5 + 1;
    unsigned m = mp + (mp < 10 ? 3 : -9);
    return {y + (m <= 2), m, d};
}

int64_t floorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

bool digits(std::string_view s, size_t at, size_t n, int* out) {
    if (at + n > s.size()) {
        return false;
    }
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[at + i];
        if (c < '0' || c > '9') {
            return false;
        }
        v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
}

// RFC 3339: YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM).
Value parseTimestamp(const std::string& s) {
    Value bad = Value::error("type conversion error from 'string' to 'google.protobuf.Timestamp'");
    int year, month, day, hour, minute, second;
    if (!digits(s, 0, 4, &year) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, &month) ||
        s[7] != '-' || !digits(s, 8, 2, &day) || (s[10] != 'T' && s[10] != 't') ||
        !digits(s, 11, 2, &hour) || s[13] != ':' || !digits(s, 14, 2, &minute) || s[16] != ':' ||
        !digits(s, 17, 2, &second)) {
        return bad;
    }
    size_t at = 19;
    int64_t nanos = 0;
    if (at < s.size() && s[at] == '.') {
        at++;
        size_t start = at;
        while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
            if (at - start < 9) {
                nanos = nanos * 10 + (s[at] - '0');
            }
            at++;
        }
        if (at == start) {
            return bad;
        }
        for (size_t n = at - start; n < 9; n++) {
            nanos *= 10;
        }
    }
    int64_t offset = 0;
    if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
        at++;
    } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
        int oh, om;
        if (!digits(s, at + 1, 2, &oh) || at + 3 >= s.size() || s[at + 3] != ':' ||
            !digits(s, at + 4, 2, &om) || oh > 23 || om > 59) {
            return bad;
        }
        offset = (s[at] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
        at += 6;
    } else {
        return bad;
    }
    if (at != s.size() || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
        minute > 59 || second > 59) {
        return bad;
    }
    Civil check = civilFromDays(daysFromCivil(year, month, day));
    if (check.day != static_cast<unsigned>(day)) {
        return bad;
    }
    int64_t seconds =
        daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
    if (seconds < -62135596800 || seconds > 253402300799) {
        return Value::error("timestamp out of range");
    }
    return Value::timestamp(seconds, static_cast<int32_t>(nanos));
}

Value durationOf(Args a) {
    if (a[0].kind() == Kind::Duration) {
        return a[0];
    }
    if (a[0].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    std::string error;
    auto d = util::parseGoDuration(a[0].str(), &error);
    if (!d) {
        return Value::error("type conversion error from 'string' to 'google.protobuf.Duration'");
    }
    return Value::duration(d->count());
}

Value timestampOf(Args a) {
    if (a[0].kind() == Kind::Timestamp) {
        return a[0];
    }
    if (a[0].kind() == Kind::Int) {
        if (a[0].asInt() < -62135596800 || a[0].asInt() > 253402300799) {
            return Value::error("timestamp out of range");
        }
        return Value::timestamp(a[0].asInt(), 0);
    }
    if (a[0].kind() != Kind::String) {
        return Value::noSuchOverload();
    }
    return parseTimestamp(a[0].str());
}

// The seconds offset of a time zone argument: "UTC", "Z", or "±HH:MM".
// Named zones other than UTC are not known here (no tz database).
bool zoneOffset(const Value& zone, int64_t* offset) {
    if (zone.kind() != Kind::String) {
        return false;
    }
    const std::string& z = zone.str();
    if (z == "UTC" || z == "Z" || z == "Etc/UTC") {
        *offset = 0;
        return true;
    }
    int h, m;
    if (z.size() == 6 && (z[0] == '+' || z[0] == '-') && digits(z, 1, 2, &h) && z[3] == ':' &&
        digits(z, 4, 2, &m)) {
        *offset = (z[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
        return true;
    }
    return false;
}

enum class Part {
    FullYear,
    Month,
    Date,
    DayOfMonth,
    DayOfWeek,
    DayOfYear,
    Hours,
    Minutes,
    Seconds,
    Milliseconds
};

template <Part P>
Value timePart(Args a) {
    const Value& t = a[0];
    if (t.kind() == Kind::Duration) {
        if (a.size() != 1) {
            return Value::noSuchOverload();
        }
        int64_t n = t.asInt();
        switch (P) {
            case Part::Hours:
                return Value::integer(n / 3600000000000);
            case Part::Minutes:
                return Value::integer(n / 60000000000);
            case Part::Seconds:
                return Value::integer(n / 1000000000);
            case Part::Milliseconds:
                return Value::integer((n % 1000000000) / 1000000);
            default:
                return Value::noSuchOverload();
        }
    }
    if (t.kind() != Kind::Timestamp) {
        return Value::noSuchOverload();
    }
    int64_t offset = 0;
    if (a.size() == 2 && !zoneOffset(a[1], &offset)) {
        return Value::error("unknown time zone " + (a[1].kind() == Kind::String ? a[1].str() : ""));
    }
    int64_t local = t.asInt() + offset;
    int64_t days = floorDiv(local, 86400);
    int64_t secondOfDay = local - days * 86400;
    Civil c = civilFromDays(days);
    switch (P) {
        case Part::FullYear:
            return Value::integer(c.year);
        case Part::Month:
            return Value::integer(c.month - 1);
        case Part::Date:
            return Value::integer(c.day);
        case Part::DayOfMonth:
            return Value::integer(c.day - 1);
        case Part::DayOfWeek:
            // 1970-01-01 was a Thursday (4); Sunday is 0.
            return Value::integer(((days % 7) + 11) % 7);
        case Part::DayOfYear:
            return Value::integer(days - daysFromCivil(c.year, 1, 1));
        case Part::Hours:
            return Value::integer(secondOfDay / 3600);
        case Part::Minutes:
            return Value::integer(secondOfDay / 60 % 60);
        case Part::Seconds:
            return Value::integer(secondOfDay % 60);
        case Part::Milliseconds:
            return Value::integer(t.nanos() / 1000000);
    }
    return Value::noSuchOverload();
}

}  // namespace

std::string formatTimestamp(const Value& t) {
    int64_t days = floorDiv(t.asInt(), 86400);
    int64_t secondOfDay = t.asInt() - days * 86400;
    Civil c = civilFromDays(days);
    char buf[64];
    std::snprintf(
        buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", static_cast<long long>(c.year),
        c.month, c.day, static_cast<long long>(secondOfDay / 3600),
        static_cast<long long>(secondOfDay / 60 % 60), static_cast<long long>(secondOfDay % 60));
    std::string out = buf;
    if (t.nanos() != 0) {
        std::snprintf(buf, sizeof buf, ".%09d", t.nanos());
        std::string frac = buf;
        while (frac.back() == '0') {
            frac.pop_back();
        }
        out += frac;
    }
    return out + "Z";
}

std::string formatDuration(int64_t nanos) {
    // protobuf's JSON form, as cel-go's string(duration): seconds with the
    // fraction's significant digits, "1.5s", "-0.000000001s", "0s".
    bool negative = nanos < 0;
    unsigned __int128 n = negative ? static_cast<unsigned __int128>(-static_cast<__int128>(nanos))
                                   : static_cast<unsigned __int128>(nanos);
    uint64_t seconds = static_cast<uint64_t>(n / 1000000000);
    uint64_t frac = static_cast<uint64_t>(n % 1000000000);
    std::string out = (negative ? "-" : "") + std::to_string(seconds);
    if (frac != 0) {
        std::string digitsText = std::to_string(frac);
        digitsText = std::string(9 - digitsText.size(), '0') + digitsText;
        while (digitsText.back() == '0') {
            digitsText.pop_back();
        }
        out += "." + digitsText;
    }
    return out + "s";
}

void addTimeFunctions(FunctionRegistry& r) {
    TypePtr s = Type::string();
    TypePtr i = Type::integer();
    TypePtr du = Type::duration();
    TypePtr ts = Type::timestamp();
    r.add({"duration", false, {s}, du});
    r.add({"duration", false, {du}, du});
    r.add("duration", false, 1, durationOf);
    r.add({"timestamp", false, {s}, ts});
    r.add({"timestamp", false, {ts}, ts});
    r.add({"timestamp", false, {i}, ts});
    r.add("timestamp", false, 1, timestampOf);
    struct Accessor {
        const char* name;
        Impl impl;
        bool onDuration;
    };
    const Accessor accessors[] = {
        {"getFullYear", timePart<Part::FullYear>, false},
        {"getMonth", timePart<Part::Month>, false},
        {"getDate", timePart<Part::Date>, false},
        {"getDayOfMonth", timePart<Part::DayOfMonth>, false},
        {"getDayOfWeek", timePart<Part::DayOfWeek>, false},
        {"getDayOfYear", timePart<Part::DayOfYear>, false},
        {"getHours", timePart<Part::Hours>, true},
        {"getMinutes", timePart<Part::Minutes>, true},
        {"getSeconds", timePart<Part::Seconds>, true},
        {"getMilliseconds", timePart<Part::Milliseconds>, true},
    };
    for (const Accessor& a : accessors) {
        r.add({a.name, true, {ts}, i});
        r.add({a.name, true, {ts, s}, i});
        r.add(a.name, true, 1, a.impl);
        r.add(a.name, true, 2, a.impl);
        if (a.onDuration) {
            r.add({a.name, true, {du}, i});
        }
    }
}

}  // namespace kube::cel
