#include "registry/scale.hpp"
#include "endpoints/handlers/scope.hpp"
#include "endpoints/warning.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

// Answers with the Scale of the parent object `stored` (as the store
// returned it), plus the Warning headers of a patch.
void respondScale(const Scope& s, std::string_view stored,
                  const std::vector<std::string>& warnings = {}) {
    json::Document parent;
    if (auto why = json::parse(stored, parent)) {
        s->fail(meta::Status::internalError(*why));
        return;
    }
    HttpResponse r =
        objectResponse(200, json::serialize(registry::scaleFromObject(s->store.kind(), parent)),
                       s->render);
    for (const std::string& h : warningHeaders(warnings)) {
        r.headers.emplace_back("Warning", h);
    }
    s->respond(std::move(r));
}

}  // namespace

// Mirrors ScaleREST.Get: the parent read as a Scale (a missing parent is
// the parent's 404).
void getScale(Scope s) {
    getStored(s, [s](std::string_view obj) { respondScale(s, obj); });
}

// Mirrors handlers.UpdateResource over ScaleREST.Update: the body is a Scale
// naming the parent; its replicas (and resourceVersion, a precondition) go
// into the parent through the parent's own update.
void updateScale(Scope s) {
    bool dryRun = false;
    auto scale = readRequestObject(s, registry::scaleKind(), "UpdateOptions", &dryRun);
    if (!scale) {
        return;
    }
    if (std::optional<meta::Status> bad = checkUpdateName(s, *scale, true)) {
        s->fail(*bad);
        return;
    }
    // rest.EnsureObjectNamespaceMatchesRequestNamespace: an unset namespace is the URL's.
    json::setMember((*scale)["metadata"], "namespace",
                    json::stringValue(s->info.namespace_, scale->GetAllocator()),
                    scale->GetAllocator());
    const registry::KindInfo& kind = s->store.kind();
    auto apply = [scale, &kind](const json::Value& current, json::Document& parent) {
        parent.CopyFrom(current, parent.GetAllocator());
        return registry::applyScale(kind, *scale, parent);
    };
    s->store.patch(s->info.namespace_, s->info.name, apply, registry::UpdateOptions{dryRun},
                   [s](const meta::Status* e, std::string_view updated) {
                       if (e) {
                           s->fail(*e);
                           return;
                       }
                       respondScale(s, updated);
                   });
}

// Mirrors handlers.PatchResource over ScaleREST.Update: the patch applies to
// the parent's current Scale (with the Scale's schema), and the patched Scale
// goes into the parent; a concurrent write makes it start over from the new
// parent.
void patchScale(Scope s) {
    std::optional<RequestPatch> patch = readRequestPatch(s, registry::scaleKind());
    if (!patch) {
        return;
    }
    const registry::KindInfo& kind = s->store.kind();
    auto apply = [patchScale = std::move(patch->apply), &kind](const json::Value& current,
                                                               json::Document& parent) {
        json::Document before = registry::scaleFromObject(kind, current);
        json::Document after;
        if (std::optional<meta::Status> bad = patchScale(before, after)) {
            return bad;
        }
        parent.CopyFrom(current, parent.GetAllocator());
        return registry::applyScale(kind, after, parent);
    };
    auto warnings = patch->warnings;
    s->store.patch(s->info.namespace_, s->info.name, std::move(apply),
                   registry::UpdateOptions{patch->dryRun, false, s->req.body.size(),
                                           patch->mayGrow},
                   [s, warnings](const meta::Status* e, std::string_view updated) {
                       if (e) {
                           s->fail(*e);
                           return;
                       }
                       respondScale(s, updated, *warnings);
                   });
}

}  // namespace kube::endpoints
