#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace kube::storage::etcd {

// How the etcd backend turns what the registry writes into what etcd holds,
// and back. The registry's form is its JSON with an empty resourceVersion
// slot (registry/encoding); kube-apiserver's is its storage encoding (the
// protobuf envelope for built-in kinds, JSON for the others), which the
// server knows and the storage layer does not: the server sets the codec
// (server/etcd_value_codec). Unset functions store the registry's JSON as is.
struct ValueCodec {
    // What etcd stores for `value` at `key`; false with `*error` set.
    using Encode = std::function<bool(std::string_view key, std::string_view value,
                                      std::string* out, std::string* error)>;
    // The registry's form of what etcd holds at `key` (written by this
    // server or by kube-apiserver); false with `*error` set.
    using Decode = std::function<bool(std::string_view key, std::string_view stored,
                                      std::string* out, std::string* error)>;

    Encode encode;
    Decode decode;
};

}  // namespace kube::storage::etcd
