#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"

namespace kube::util {

// A JSONPath template as client-go's util/jsonpath reads it (kubectl's -o
// jsonpath, a CRD's additionalPrinterColumns): text with actions in braces,
// "{.spec.containers[0].name}". Inside an action: fields (.a, a\.b with an
// escaped dot, ['a'] as a field), the wildcard .*, indexes and slices [1],
// [-1], [1:3], [*], unions [0,2], recursive descent .., filters
// [?(@.type=="Ready")] comparing with ==, !=, <, >, <=, >= (Go template's
// rules: both sides one value of the same basic kind) or testing existence
// [?(@.name)], and quoted text. Missing fields select nothing (client-go's
// AllowMissingKeys(true)).
//
// Not evaluated (an evaluation error, as client-go reports for what it
// cannot do): range/end loops, boolean literals outside a filter; a
// wildcard or recursive descent does not walk into the bytes of a string.
// Objects are walked in their member order (Go walks its maps at random).
//
// Parsed once, evaluated any number of times; the compiled form is
// immutable and may be shared between threads.
class JsonPath {
  public:
    // Parses `text`; on a syntax error the result is not valid() and error()
    // says why (client-go's messages: "unclosed action", "invalid array
    // index x", ...). Parsing is iterative: any length of text is safe.
    static JsonPath parse(std::string_view text);

    bool valid() const { return error_.empty(); }
    const std::string& error() const { return error_; }

    // Mirrors JSONPath.FindResults: the values each top-level node of the
    // template selects from `data` (text between actions selects itself),
    // pointing into `data` or into this path's literals; nullopt when the
    // evaluation fails (an index out of range, a filter on a non-list, an
    // indexed non-list, values a filter cannot compare).
    using Results = std::vector<std::vector<const json::Value*>>;
    std::optional<Results> findResults(const json::Value& data) const;

    struct Node;
    using List = std::vector<Node>;

  private:
    JsonPath() = default;

    std::shared_ptr<const List> root_;
    // String and number literals, indexed by the nodes that name them.
    std::shared_ptr<const json::Document> literals_;
    std::string error_;
};

// The text form of one selected value as JSONPath.PrintResults writes it: a
// string as it is, numbers and booleans as Go's fmt prints them ("1.5",
// "1e+20"), objects and arrays as Go's encoding/json writes them (compact,
// keys sorted, <, > and & escaped), null as "<no value>".
std::string jsonPathText(const json::Value& v);

}  // namespace kube::util
