#include "endpoints/handlers/scope.hpp"
#include "endpoints/list_stream.hpp"
#include "registry/validation.hpp"

namespace kube::endpoints {

namespace {

// Lists larger than this are streamed; it is also the size above which
// kube-apiserver gzips a response (see README for nginx's gzip settings).
constexpr size_t kStreamAbove = 128 * 1024;

}  // namespace

bool parseListIntegers(const util::Query& q, int64_t* limit, meta::Status* error) {
    // In ListOptions' field order: timeoutSeconds, then limit.
    for (std::string_view name : {"timeoutSeconds", "limit"}) {
        if (auto v = q.get(name)) {
            std::string why;
            std::optional<int64_t> n = util::Query::parseInt(*v, &why);
            if (!n) {
                *error = meta::Status::badRequest("strconv.ParseInt: parsing " +
                                                  registry::validation::goQuote(*v) + ": " + why);
                return false;
            }
            if (name == "limit") {
                *limit = *n;
            }
        }
    }
    return true;
}

// Mirrors handlers.ListResource for a list (watchResource serves watches).
void listResource(Scope s) {
    registry::ListOptions opts;
    meta::Status err;
    // The query's values are converted first, the selectors parsed after.
    int64_t limit = 0;
    if (!parseListIntegers(s->query, &limit, &err)) {
        s->fail(err);
        return;
    }
    if (!registry::parseSelectors(s->store.kind(), s->query.get("labelSelector").value_or(""),
                                  s->query.get("fieldSelector").value_or(""), opts, &err)) {
        s->fail(err);
        return;
    }
    opts.limit = limit > 0 ? static_cast<size_t>(limit) : 0;
    if (auto token = s->query.get("continue")) {
        opts.continueToken = *token;
    }
    if (s->query.has("sendInitialEvents")) {
        s->fail(meta::Status::invalid(
            {"meta.k8s.io", "ListOptions"}, "",
            {{"FieldValueForbidden", "Forbidden: sendInitialEvents is forbidden for list",
              "sendInitialEvents"}}));
        return;
    }
    if (!registry::parseListVersion(s->query.get("resourceVersion").value_or(""),
                                    s->query.get("resourceVersionMatch").value_or(""),
                                    opts.limit > 0, !opts.continueToken.empty(), &opts.version,
                                    &err)) {
        s->fail(err);
        return;
    }
    s->store.list(s->info.namespace_, opts, [s](const meta::Status* e, registry::ListPage&& page) {
        if (e) {
            s->fail(*e);
            return;
        }
        size_t bytes = 0;
        for (const storage::ObjectView& item : page.items) {
            bytes += item.value.size();
        }
        if (bytes <= kStreamAbove || page.objects.size() != page.items.size()) {
            s->respond(listResponse(page, s->render));
            return;
        }
        // Large lists are written while they are produced, compact even when
        // pretty output was asked for, so that memory does not grow with them
        // (the size that decides is the JSON's, in protobuf too).
        HttpResponse resp;
        resp.contentType = std::string(
            s->render.output.form == OutputForm::Protobuf ? kProtobufMediaType : kJsonMediaType);
        resp.stream =
            std::make_shared<ListStream>(s->turns, s->render, page, std::move(page.objects));
        s->respond(std::move(resp));
    });
}

}  // namespace kube::endpoints
