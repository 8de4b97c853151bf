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


/* Adds `handler` to the handlers of `phase` (postconfiguration only). */
inline ngx_int_t
ngx_http_kube_add_handler(ngx_conf_t *cf, ngx_http_phases phase,
    ngx_http_handler_pt handler)
{
    ngx_http_handler_pt        *h;
    ngx_http_core_main_conf_t  *cmcf;

    cmcf = static_cast<ngx_http_core_main_conf_t *>(
        ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module));

    h = static_cast<ngx_http_handler_pt *>(
        ngx_array_push(&cmcf->phases[phase].handlers));
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = handler;

    return NGX_OK;
}


/* The init of a shared zone whose data outlives a reload: a reload passes
 * the old zone's `data`, a zone that exists already (a binary upgrade)
 * keeps it in its slab pool; else `make` makes it in the pool (NULL: out
 * of memory). zone->data then points to it. */
template <void *(*make)(ngx_slab_pool_t *shpool)>
ngx_int_t
ngx_http_kube_shm_zone_init(ngx_shm_zone_t *zone, void *data)
{
    ngx_slab_pool_t  *shpool;

    if (data) {
        zone->data = data;
        return NGX_OK;
    }

    shpool = reinterpret_cast<ngx_slab_pool_t *>(zone->shm.addr);

    if (zone->shm.exists) {
        zone->data = shpool->data;
        return NGX_OK;
    }

    data = make(shpool);
    if (data == NULL) {
        return NGX_ERROR;
    }

    shpool->data = data;
    zone->data = data;

    return NGX_OK;
}


/* A shared zone of `module` whose data `make` makes once and a reload
 * keeps (ngx_http_kube_shm_zone_init); NULL on failure. */
template <void *(*make)(ngx_slab_pool_t *shpool)>
ngx_shm_zone_t *
ngx_http_kube_shm_zone_add(ngx_conf_t *cf, ngx_str_t *name, size_t size,
    ngx_module_t *module)
{
    ngx_shm_zone_t  *zone;

    zone = ngx_shared_memory_add(cf, name, size, module);
    if (zone != NULL) {
        zone->init = ngx_http_kube_shm_zone_init<make>;
    }

    return zone;
}
