#include "util/json_member_text.hpp"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cstddef>

namespace kube::util::json {

namespace {

// Follows the reader's events: remembers where the top-level key `name`
// ends, and stops the reader (returns false) where its value ends.
class MemberFinder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, MemberFinder> {
  public:
    MemberFinder(const rapidjson::MemoryStream& stream, std::string_view name)
        : stream_(stream), name_(name) {}

    bool Default() { return ended(stream_.Tell()); }
    bool RawNumber(const char*, rapidjson::SizeType, bool) { return ended(stream_.Tell()); }
    bool String(const char*, rapidjson::SizeType, bool) { return ended(stream_.Tell()); }
    bool StartObject() {
        ++depth_;
        return true;
    }
    bool Key(const char* s, rapidjson::SizeType n, bool) {
        if (depth_ == 1 && !start_ && std::string_view(s, n) == name_) {
            start_ = stream_.Tell();
        }
        return true;
    }
    bool EndObject(rapidjson::SizeType) { return close(); }
    bool StartArray() {
        // A top-level array is not an object: stop.
        return depth_++ != 0;
    }
    bool EndArray(rapidjson::SizeType) { return close(); }

    std::optional<size_t> start() const { return start_; }
    std::optional<size_t> end() const { return end_; }

  private:
    // A value ends before `at`: the member's own, when it ends at the
    // object's level.
    bool ended(size_t at) {
        if (depth_ == 1 && start_ && !end_) {
            end_ = at;
            return false;
        }
        return depth_ != 0;  // a top-level scalar is not an object
    }
    // The reader reports a closing bracket before it takes it.
    bool close() {
        --depth_;
        return ended(stream_.Tell() + 1);
    }

    const rapidjson::MemoryStream& stream_;
    std::string_view name_;
    int depth_ = 0;
    std::optional<size_t> start_;
    std::optional<size_t> end_;
};

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

std::optional<std::string_view> topLevelMemberText(std::string_view text, std::string_view name) {
    rapidjson::MemoryStream stream(text.data(), text.size());
    MemberFinder finder(stream, name);
    rapidjson::Reader reader;
    reader.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag>(stream,
                                                                                         finder);
    if (!finder.start() || !finder.end()) {
        return std::nullopt;
    }
    // From after the key's closing quote: the colon and spaces go.
    size_t from = *finder.start();
    while (from < *finder.end() && (isSpace(text[from]) || text[from] == ':')) {
        ++from;
    }
    return text.substr(from, *finder.end() - from);
}

}  // namespace kube::util::json
