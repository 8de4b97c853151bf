#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

// Mirrors handlers.GetResource.
void getResource(Scope s) {
    s->store.get(s->info.namespace_, s->info.name,
                 [s](const meta::Status* err, std::string_view obj) {
                     if (err) {
                         s->fail(*err);
                         return;
                     }
                     s->respond(objectResponse(200, obj, s->render));
                 });
}

}  // namespace kube::endpoints
