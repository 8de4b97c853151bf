#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

// The Warning headers of one response, as kube-apiserver's warning recorder
// writes them (mirrors endpoints/filters/warning.go and net.NewWarningHeader).
namespace kube::endpoints {

// The recorder's budget: warnings total at most this many runes of text;
// past it, every warning is cut to kWarningItemRunes and the rest dropped.
inline constexpr size_t kWarningTotalRunes = 4 * 1024;
inline constexpr size_t kWarningItemRunes = 256;

// Collects a request's warnings: each text once, in the order first added,
// `299 - "<text with \ and " escaped>"`. A text that is not valid UTF-8 or
// holds a control character gets no header (NewWarningHeader refuses it).
// Once the texts pass kWarningTotalRunes, the headers written so far are
// rewritten cut to kWarningItemRunes each, later ones are cut as they come,
// and once the cut texts pass the budget too, the rest are dropped: the
// headers of a response stay a few KiB however many warnings a client's
// object raises. Not thread-safe: one request's, on one thread.
class WarningRecorder {
  public:
    void add(std::string_view text);
    const std::vector<std::string>& headers() const { return headers_; }

  private:
    // A text as it would be written: cut to kWarningItemRunes when `cut`,
    // its length in runes, and whether NewWarningHeader accepts it.
    struct Text {
        std::string text;
        size_t runes = 0;
        bool allowed = false;
    };
    static Text prepare(std::string_view text, bool cut);

    std::unordered_set<std::string> recorded_;
    std::vector<std::string> ordered_;
    std::vector<std::string> headers_;
    size_t written_ = 0;
    bool truncating_ = false;
};

// The headers for `texts` added in order to one recorder.
std::vector<std::string> warningHeaders(const std::vector<std::string>& texts);

}  // namespace kube::endpoints
