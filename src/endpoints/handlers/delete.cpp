#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

// The optional metav1.DeleteOptions body: preconditions and dryRun.
bool parseDeleteOptions(std::string_view body, registry::DeleteOptions& opts,
                        meta::Status* error) {
    if (body.empty()) {
        return true;
    }
    json::Document doc;
    if (auto e = json::parse(body, doc); e || !doc.IsObject()) {
        *error = meta::Status::badRequest("the body of the request was not valid DeleteOptions: " +
                                          (e ? *e : std::string("not a JSON object")));
        return false;
    }
    if (const json::Value* pre = json::member(doc, "preconditions"); pre && pre->IsObject()) {
        if (const json::Value* uid = json::member(*pre, "uid"); uid && uid->IsString()) {
            opts.uid = std::string(json::view(*uid));
        }
        if (const json::Value* rv = json::member(*pre, "resourceVersion"); rv && rv->IsString()) {
            opts.resourceVersion = std::string(json::view(*rv));
        }
    }
    if (const json::Value* dry = json::member(doc, "dryRun"); dry && dry->IsArray()) {
        // The same rule as the query parameter: only "All".
        std::string query;
        for (const json::Value& v : dry->GetArray()) {
            query += "&dryRun=" + std::string(json::view(v));
        }
        bool dryRun = false;
        if (!parseDryRun(util::Query::parse(query), "DeleteOptions", error, &dryRun)) {
            return false;
        }
        opts.dryRun = dryRun;
    }
    return true;
}

}  // namespace

// Mirrors handlers.DeleteResource: the object when deletion is graceful,
// otherwise a success Status naming it.
void deleteResource(Scope s) {
    registry::DeleteOptions opts;
    meta::Status err;
    bool dryRun = false;
    if (!parseDryRun(s->query, "DeleteOptions", &err, &dryRun) ||
        !parseDeleteOptions(s->req.body, opts, &err)) {
        s->fail(err);
        return;
    }
    opts.dryRun = opts.dryRun || dryRun;
    if (s->store.kind().kind == "Namespace") {
        if (const meta::Status* denied = s->namespaces.admitNamespaceDelete(s->info.name)) {
            s->fail(*denied);
            return;
        }
    }
    s->store.remove(s->info.namespace_, s->info.name, opts,
                    [s](const meta::Status* e, const registry::DeleteResult& res) {
                        if (e) {
                            s->fail(*e);
                            return;
                        }
                        if (res.returnsObject) {
                            s->respond(objectResponse(200, res.object, s->render));
                            return;
                        }
                        s->respond(statusResponse(res.status, s->render));
                    });
}

// Mirrors handlers.DeleteCollection: answers with the deleted objects.
void deleteCollection(Scope s) {
    meta::Status err;
    bool dryRun = false;
    if (!parseDryRun(s->query, "DeleteOptions", &err, &dryRun)) {
        s->fail(err);
        return;
    }
    registry::ListOptions opts;
    if (!registry::parseSelectors(s->store.kind(), s->query.get("labelSelector").value_or(""),
                                  s->query.get("fieldSelector").value_or(""), opts, &err)) {
        s->fail(err);
        return;
    }
    auto respond = [s](const meta::Status* e, const registry::ListPage& page) {
        if (e) {
            s->fail(*e);
            return;
        }
        s->respond(listResponse(page, s->render));
    };
    if (dryRun) {
        s->store.list(s->info.namespace_, opts, respond);
        return;
    }
    s->store.deleteCollection(s->info.namespace_, opts, respond);
}

}  // namespace kube::endpoints
