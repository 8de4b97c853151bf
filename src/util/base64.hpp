#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kube::util {

// Mirrors base64.StdEncoding.DecodeString: the standard alphabet, '='
// padding required and only at the end, CR and LF skipped wherever they are.
// Nullopt for anything else.
std::optional<std::string> decodeBase64(std::string_view in);

// Mirrors base64.StdEncoding.EncodeToString: the standard alphabet, padded.
std::string encodeBase64(std::string_view bytes);

}  // namespace kube::util
