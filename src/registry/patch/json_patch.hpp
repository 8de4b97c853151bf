#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/patch/error.hpp"
#include "util/json.hpp"

namespace kube::registry::patch {

// An RFC 6902 JSON patch (application/json-patch+json) with the semantics and
// messages of github.com/evanphx/json-patch (v4), the library kube-apiserver
// applies it with: add, remove, replace, move, copy and test on JSON pointers
// (~0 and ~1 escapes, "-" appends, negative indexes count from the end), and
// its quirks (replace on a missing object key adds it; a path without a
// leading '/' drops its first segment).
class JsonPatch {
  public:
    // Decodes `body`; mirrors jsonpatch.DecodePatch. With `strict` (the
    // Strict and Warn field validation directives) the body is first decoded
    // as kube's handler does, into a list of {op, path, from, value}: unknown
    // and duplicated members are added to `strictErrors` ("json patch unknown
    // field \"[0].values\"") and a member of the wrong type fails. On failure
    // nullopt with a BadRequest in `error`, worded as kube answers.
    static std::optional<JsonPatch> decode(std::string_view body, bool strict,
                                           std::vector<std::string>* strictErrors, Error* error);

    // Whether the patch `body` may hold a copy operation, which can make
    // the patched object far larger than the patch (each copy may double
    // it), judged from its bytes without decoding them: such an operation
    // is spelled "copy" or with escapes.
    static bool mayCopy(std::string_view body);

    // The number of operations.
    size_t size() const;

    // Applies every operation in order to `doc`; on the first failure returns
    // evanphx/json-patch's message (an Unprocessable error) and `doc` is left
    // partly patched.
    std::optional<Error> apply(util::json::Document& doc) const;

  private:
    explicit JsonPatch(std::shared_ptr<util::json::Document> ops) : ops_(std::move(ops)) {}

    // The operations: an array of objects (a null entry is an operation with
    // no members, as Go decodes it).
    std::shared_ptr<util::json::Document> ops_;
};

}  // namespace kube::registry::patch
