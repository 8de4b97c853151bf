#include "endpoints/warning.hpp"

#include "util/utf8.hpp"

namespace kube::endpoints {

namespace {

bool continuation(char c) {
    return (static_cast<unsigned char>(c) & 0xc0) == 0x80;
}

// Runes of valid UTF-8 text.
size_t runeCount(std::string_view s) {
    size_t n = 0;
    for (char c : s) {
        n += continuation(c) ? 0 : 1;
    }
    return n;
}

// The first `n` runes of valid UTF-8 text.
std::string_view firstRunes(std::string_view s, size_t n) {
    size_t i = 0;
    for (; i < s.size(); ++i) {
        if (!continuation(s[i]) && n-- == 0) {
            break;
        }
    }
    return s.substr(0, i);
}

// unicode.IsControl on valid UTF-8: U+0000-U+001F, U+007F-U+009F (C2 80-9F).
bool hasControl(std::string_view s) {
    for (size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) {
            return true;
        }
        if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
            return true;
        }
    }
    return false;
}

std::string header(std::string_view text) {
    std::string out = "299 - \"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    out += '"';
    return out;
}

}  // namespace

WarningRecorder::Text WarningRecorder::prepare(std::string_view text, bool cut) {
    // Go counts, and cuts, []rune(text): each invalid byte is one U+FFFD, so
    // a cut text is valid even where the whole was not.
    std::string valid = util::utf8::valid(text) ? std::string(text) : util::utf8::toValid(text);
    Text out{std::string(text), runeCount(valid)};
    if (cut && out.runes > kWarningItemRunes) {
        out.text = firstRunes(valid, kWarningItemRunes);
        out.runes = kWarningItemRunes;
    }
    out.allowed = util::utf8::valid(out.text) && !hasControl(out.text);
    return out;
}

void WarningRecorder::add(std::string_view text) {
    if (text.empty() || (truncating_ && written_ >= kWarningTotalRunes)) {
        return;
    }
    if (!recorded_.emplace(text).second) {
        return;
    }
    ordered_.emplace_back(text);
    Text t = prepare(text, truncating_);
    if (!t.allowed) {
        return;
    }
    if (truncating_ || written_ + t.runes <= kWarningTotalRunes) {
        written_ += t.runes;
        headers_.push_back(header(t.text));
        return;
    }
    // Over the budget: every warning so far again, each cut.
    truncating_ = true;
    written_ = 0;
    headers_.clear();
    for (const std::string& o : ordered_) {
        Text again = prepare(o, true);
        if (again.allowed) {
            written_ += again.runes;
            headers_.push_back(header(again.text));
        }
    }
}

std::vector<std::string> warningHeaders(const std::vector<std::string>& texts) {
    WarningRecorder r;
    for (const std::string& t : texts) {
        r.add(t);
    }
    return r.headers();
}

}  // namespace kube::endpoints
