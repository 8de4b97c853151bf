#pragma once

#include <memory>
#include <string_view>

#include "endpoints/http.hpp"
#include "endpoints/negotiation.hpp"
#include "registry/kind.hpp"
#include "registry/store.hpp"

namespace kube::endpoints {

// What a Table row's "object" carries (the includeObject parameter).
enum class IncludeObject { None, Metadata, Object };

// How one request wants its objects written.
struct RenderOptions {
    const registry::KindInfo* kind = nullptr;
    Output output;
    bool pretty = false;
    IncludeObject includeObject = IncludeObject::Metadata;
    registry::TableContext table;
    // Keeps the kind served and its store alive while the response is made
    // (a kind removed at run time goes when its last list or watch ends).
    std::shared_ptr<const void> keepAlive;
};

// An object as stored (JSON bytes), as JSON, a one-row Table or protobuf.
HttpResponse objectResponse(int code, std::string_view stored, const RenderOptions& r);

// A Status in the form the request negotiated, as kube's ErrorNegotiated
// writes it: protobuf for protobuf output, else JSON (indented when pretty).
HttpResponse statusResponse(const meta::Status& s, const RenderOptions& r);

// The object of a Table watch event: a one-row Table of `stored`. Only a
// watch's first event carries the column definitions; later ones have
// "columnDefinitions":null, as kube-apiserver sends them.
std::string watchTable(std::string_view stored, const RenderOptions& r, bool withColumns);

// Writes a list response piece by piece, so that a large list can be sent
// while it is produced: the head (kind, list metadata and, for a Table, the
// column definitions), each item (a list item or a Table row), and the
// tail. The pieces joined are the compact form of listResponse().
//
// In protobuf the head is the envelope and the list metadata, and it ends
// with lengths that cover every item: the bytes item() appends for all the
// items must be summed and given to setItemsSize() before head().
class ListEncoder {
public:
    ListEncoder(const RenderOptions& render, const registry::ListPage& page);

    void setItemsSize(size_t bytes) { itemsSize_ = bytes; }
    void head(std::string& out) const;
    // Appends one stored object, after a comma unless it is the first. In
    // protobuf, false with `error` set when the object cannot be encoded.
    bool item(std::string& out, std::string_view stored, std::string* error = nullptr);
    // The same for an object of the watch cache, whose protobuf encoding is
    // memoized on it.
    bool item(std::string& out, const storage::cacher::CachedObject& cached,
              std::string* error = nullptr);
    // The same, borrowing the bytes it would copy from the cached object
    // (the JSON it stores, the protobuf it memoizes, which stays with it):
    // `out` gets what goes before them, and `borrowed` the bytes themselves,
    // valid while the object lives; empty when nothing is borrowed (a Table
    // row).
    bool item(std::string& out, const storage::cacher::CachedObject& cached,
              std::string_view& borrowed, std::string* error = nullptr);
    void tail(std::string& out) const;

private:
    const std::string* protobufOf(const storage::cacher::CachedObject& cached,
                                  std::string* error) const;
    std::string_view jsonItemHead(std::string& out, std::string_view stored);
    void appendConverted(std::string& out, std::string_view stored);

    const RenderOptions& render_;
    std::string meta_;    // the list metadata, serialized (ListMeta field in protobuf)
    std::string prefix_;  // `{"kind":...,"apiVersion":...,` of stored objects
    bool first_ = true;
    size_t itemsSize_ = 0;
};

// A list page as <Kind>List JSON, a Table, or a <Kind>List in protobuf.
HttpResponse listResponse(const registry::ListPage& page, const RenderOptions& r);

}  // namespace kube::endpoints
