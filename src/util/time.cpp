#include "util/time.hpp"

#include <cstdio>
#include <ctime>

namespace kube::util::time {

namespace {

using std::chrono::duration_cast;
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

std::string formatRFC3339(TimePoint t) {
    time_t secs = std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<seconds>(t));
    if (std::chrono::system_clock::from_time_t(secs) > t) {
        secs--;  // to_time_t may round; metav1.Time truncates
    }
    struct tm tm {};
    gmtime_r(&secs, &tm);
    char buf[32];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
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
    std::chrono::nanoseconds frac{0};
    if (pos < s.size() && s[pos] == '.') {
        pos++;
        int64_t scale = 100000000;
        size_t start = pos;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
            frac += std::chrono::nanoseconds((s[pos] - '0') * scale);
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
    return TimePoint(duration_cast<TimePoint::duration>(seconds(epoch) + frac));
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

std::string humanSince(std::string_view timestamp, TimePoint now) {
    std::optional<TimePoint> t = parseRFC3339(timestamp);
    if (!t) {
        return "<unknown>";
    }
    return humanDuration(duration_cast<seconds>(now - *t));
}

}  // namespace kube::util::time
