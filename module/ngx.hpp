#pragma once

// The nginx C headers, for C++.
extern "C" {
#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>
#include <ngx_thread_pool.h>
}

#include <string_view>

/* The bytes of an nginx string, without copying. */
inline std::string_view
ngx_http_kube_view(const ngx_str_t &s)
{
    return std::string_view(reinterpret_cast<const char *>(s.data), s.len);
}
