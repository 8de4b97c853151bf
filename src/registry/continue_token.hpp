#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "apis/meta/status.hpp"
#include "storage/interface.hpp"

namespace kube::registry {

// A list's continue parameter; mirrors storage.encodeContinue: base64url (no
// padding) of {"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<key>"},
// where start is the next key relative to the list's prefix.
struct ContinueToken {
    storage::Revision revision = 0;
    std::string start;

    std::string encode() const;
    // The token of a page at `revision` whose last key was `lastKey`: the
    // next page starts right after it.
    static std::string after(storage::Revision revision, std::string_view lastKey,
                             std::string_view prefix);
    // nullopt with the reason in `error` for a malformed token.
    static std::optional<ContinueToken> decode(std::string_view token, std::string* error);
    // The same, failing with the list handler's 400 BadRequest.
    static std::optional<ContinueToken> decode(std::string_view token, meta::Status* error);
};

}  // namespace kube::registry
