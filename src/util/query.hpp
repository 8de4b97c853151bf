#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kube::util {

// A URL query string split into decoded key/value pairs; mirrors Go's
// url.ParseQuery as net/http's Request.URL.Query() uses it: pairs are split on
// '&', key and value on the first '=', both percent-decoded with '+' as a
// space. Pairs that Go drops are dropped here too: empty ones, ones holding a
// ';', and ones with a malformed %-escape.
class Query {
  public:
    static Query parse(std::string_view raw);

    // The first value given for `key` ("" for a bare `key` or `key=`).
    std::optional<std::string> get(std::string_view key) const;
    bool has(std::string_view key) const;
    // Every value given for `key`, in request order.
    std::vector<std::string> values(std::string_view key) const;
    bool empty() const { return pairs_.empty(); }
    const std::vector<std::pair<std::string, std::string>>& pairs() const { return pairs_; }

    // Go's url.QueryUnescape: %XX escapes and '+' as space; nullopt when a '%'
    // is not followed by two hex digits.
    static std::optional<std::string> unescape(std::string_view s);

    // Go's strconv.ParseInt(s, 10, 64), as the parameter codec converts an
    // integer option: nullopt with Go's reason in `why` ("invalid syntax",
    // "value out of range"); kube reports `strconv.ParseInt: parsing "<s>":
    // <why>`.
    static std::optional<int64_t> parseInt(std::string_view s, std::string* why);

  private:
    std::vector<std::pair<std::string, std::string>> pairs_;
};

}  // namespace kube::util
