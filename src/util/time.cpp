#include "util/time.hpp"

#include <cstdio>

namespace kube::util::time {

namespace {

using std::chrono::seconds;

bool digits(std::string_view s, size_t pos, size_t n, int& out) {
    if (pos + n > s.size()) {
        return false;
    }
    out = 0;
    for (size_t i = pos; i < pos + n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// days_from_civil), so parsing does not depend on the process time zone.
int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
// Hinnant's civil_from_days), for any int64 day count a time can reach.
void civilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

std::string printf1(const char* fmt, long long a) {
    char buf[32];
    snprintf(buf, sizeof buf, fmt, a);
    return buf;
}

std::string printf2(const char* fmt, long long a, long long b) {
    char buf[48];
    snprintf(buf, sizeof buf, fmt, a, b);
    return buf;
}

}  // namespace

std::string formatUnixSeconds(int64_t seconds) {
    int64_t days = seconds / 86400;
    int64_t rest = seconds % 86400;
    if (rest < 0) {
        rest += 86400;
        days--;
    }
    int64_t year;
    unsigned month, day;
    civilFromDays(days, year, month, day);
    // Go's four-digit year: zero-padded, a minus sign before negative ones.
    char buf[64];
    snprintf(buf, sizeof buf, "%s%04lld-%02u-%02uT%02d:%02d:%02dZ", year < 0 ? "-" : "",
             static_cast<long long>(year < 0 ? -year : year), month, day,
             static_cast<int>(rest / 3600), static_cast<int>(rest / 60 % 60),
             static_cast<int>(rest % 60));
    return buf;
}

std::string formatRFC3339(TimePoint t) {
    return formatUnixSeconds(std::chrono::floor<seconds>(t).time_since_epoch().count());
}

std::chrono::seconds secondsBetween(TimePoint from, TimePoint to) {
    return std::chrono::floor<seconds>(to) - std::chrono::floor<seconds>(from);
}

std::optional<TimePoint> parseRFC3339(std::string_view s) {
    int year, month, day, hour, minute, second;
    if (!digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, month) ||
        s[7] != '-' || !digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't') ||
        !digits(s, 11, 2, hour) || s[13] != ':' || !digits(s, 14, 2, minute) || s[16] != ':' ||
        !digits(s, 17, 2, second)) {
        return std::nullopt;
    }
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
        return std::nullopt;
    }
    size_t pos = 19;
    Duration frac{0};
    if (pos < s.size() && s[pos] == '.') {
        pos++;
        int64_t scale = 100000;
        size_t start = pos;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
            frac += Duration((s[pos] - '0') * scale);
            scale /= 10;
            pos++;
        }
        if (pos == start) {
            return std::nullopt;
        }
    }
    int offset = 0;
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z') && pos + 1 == s.size()) {
        pos++;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh, om;
        if (pos + 6 != s.size() || !digits(s, pos + 1, 2, oh) || s[pos + 3] != ':' ||
            !digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
            return std::nullopt;
        }
        offset = (oh * 60 + om) * 60 * (s[pos] == '-' ? -1 : 1);
        pos += 6;
    } else {
        return std::nullopt;
    }
    int64_t days = daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    int64_t epoch = days * 86400 + hour * 3600 + minute * 60 + second - offset;
    return TimePoint(Duration(seconds(epoch)) + frac);
}

std::string humanDuration(seconds d) {
    const long long secs = d.count();
    if (secs < -1) {
        return "<invalid>";
    }
    if (secs < 0) {
        return "0s";
    }
    if (secs < 60 * 2) {
        return printf1("%llds", secs);
    }
    const long long minutes = secs / 60;
    if (minutes < 10) {
        const long long s = secs % 60;
        return s == 0 ? printf1("%lldm", minutes) : printf2("%lldm%llds", minutes, s);
    }
    if (minutes < 60 * 3) {
        return printf1("%lldm", minutes);
    }
    const long long hours = secs / 3600;
    if (hours < 8) {
        const long long m = minutes % 60;
        return m == 0 ? printf1("%lldh", hours) : printf2("%lldh%lldm", hours, m);
    }
    if (hours < 48) {
        return printf1("%lldh", hours);
    }
    if (hours < 24 * 8) {
        const long long h = hours % 24;
        return h == 0 ? printf1("%lldd", hours / 24) : printf2("%lldd%lldh", hours / 24, h);
    }
    if (hours < 24 * 365 * 2) {
        return printf1("%lldd", hours / 24);
    }
    if (hours < 24 * 365 * 8) {
        const long long dy = (hours / 24) % 365;
        return dy == 0 ? printf1("%lldy", hours / 24 / 365)
                       : printf2("%lldy%lldd", hours / 24 / 365, dy);
    }
    return printf1("%lldy", hours / 24 / 365);
}

std::string humanSince(std::string_view timestamp, std::chrono::system_clock::time_point now) {
    std::optional<TimePoint> t = parseRFC3339(timestamp);
    if (!t) {
        return "<unknown>";
    }
    return humanDuration(secondsBetween(*t, std::chrono::floor<Duration>(now)));
}

}  // namespace kube::util::time
