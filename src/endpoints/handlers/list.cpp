#include <charconv>

#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

namespace {

// The field selectors every kind supports: metadata.name and metadata.namespace.
bool parseFieldSelector(std::string_view sel, std::string_view urlNamespace,
                        registry::ListOptions& opts, std::string* ns, meta::Status* error) {
    while (!sel.empty()) {
        size_t comma = sel.find(',');
        std::string_view term = sel.substr(0, comma);
        sel = comma == std::string_view::npos ? std::string_view() : sel.substr(comma + 1);
        size_t eq = term.find('=');
        bool notEqual = eq != std::string_view::npos && eq > 0 && term[eq - 1] == '!';
        if (eq == std::string_view::npos || notEqual) {
            *error = meta::Status::badRequest("unable to parse requirement: field selector \"" +
                                              std::string(term) +
                                              "\": only = and == are supported here");
            return false;
        }
        std::string_view field = term.substr(0, eq);
        std::string_view value = term.substr(eq + 1);
        if (value.starts_with("=")) {
            value.remove_prefix(1);
        }
        if (field == "metadata.name") {
            opts.name = std::string(value);
        } else if (field == "metadata.namespace") {
            if (!urlNamespace.empty() && urlNamespace != value) {
                // A namespace that contradicts the URL selects nothing.
                *ns = "\x01";
            } else {
                *ns = std::string(value);
            }
        } else {
            *error = meta::Status::badRequest("field label not supported: " + std::string(field));
            return false;
        }
    }
    return true;
}

}  // namespace

// Mirrors handlers.ListResource (watch excluded: it is not served yet).
void listResource(Scope s) {
    registry::ListOptions opts;
    std::string ns = s->info.namespace_;
    if (auto limit = s->query.get("limit"); limit && !limit->empty()) {
        long long n = 0;
        auto [end, ec] = std::from_chars(limit->data(), limit->data() + limit->size(), n);
        if (ec != std::errc() || end != limit->data() + limit->size()) {
            s->fail(meta::Status::badRequest("invalid value for limit: " + *limit));
            return;
        }
        opts.limit = n > 0 ? static_cast<size_t>(n) : 0;
    }
    if (auto token = s->query.get("continue")) {
        opts.continueToken = *token;
    }
    if (auto sel = s->query.get("labelSelector"); sel && !sel->empty()) {
        s->fail(meta::Status::badRequest("label selectors are not supported by this server yet: " +
                                         *sel));
        return;
    }
    if (auto sel = s->query.get("fieldSelector"); sel && !sel->empty()) {
        meta::Status err;
        if (!parseFieldSelector(*sel, s->info.namespace_, opts, &ns, &err)) {
            s->fail(err);
            return;
        }
    }
    s->store.list(ns, opts, [s](const meta::Status* err, const registry::ListPage& page) {
        if (err) {
            s->fail(*err);
            return;
        }
        s->respond(listResponse(page, s->render));
    });
}

}  // namespace kube::endpoints
