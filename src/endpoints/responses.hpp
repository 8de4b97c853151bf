#pragma once

#include <string_view>

#include "endpoints/negotiation.hpp"
#include "registry/kind.hpp"
#include "registry/store.hpp"
#include "server/http.hpp"

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
};

// An object as stored (JSON bytes), as JSON or a one-row Table.
server::HttpResponse objectResponse(int code, std::string_view stored, const RenderOptions& r);

// A list page as <Kind>List JSON or a Table.
server::HttpResponse listResponse(const registry::ListPage& page, const RenderOptions& r);

}  // namespace kube::endpoints
