#include "apis/meta/status.hpp"

#include <algorithm>

#include "util/json.hpp"
#include "util/utf8.hpp"

namespace kube::meta {

namespace json = util::json;

namespace {

Status failure(int code, std::string reason, std::string message,
               std::optional<StatusDetails> details) {
    Status s;
    s.code = code;
    s.reason = std::move(reason);
    s.message = std::move(message);
    s.details = std::move(details);
    return s;
}

StatusDetails namedDetails(const GroupResource& gr, std::string_view name) {
    StatusDetails d;
    d.name = std::string(name);
    d.group = gr.group;
    d.kind = gr.resource;
    return d;
}

std::string quoted(std::string_view s) {
    return "\"" + std::string(s) + "\"";
}

}  // namespace

Status Status::successful(StatusDetails details) {
    Status s;
    s.code = 200;
    s.success = true;
    s.details = std::move(details);
    return s;
}

Status Status::notFound(const GroupResource& gr, std::string_view name) {
    return failure(404, "NotFound", gr.toString() + " " + quoted(name) + " not found",
                   namedDetails(gr, name));
}

Status Status::alreadyExists(const GroupResource& gr, std::string_view name) {
    return failure(409, "AlreadyExists", gr.toString() + " " + quoted(name) + " already exists",
                   namedDetails(gr, name));
}

Status Status::conflict(const GroupResource& gr, std::string_view name, std::string_view err) {
    return failure(409, "Conflict",
                   "Operation cannot be fulfilled on " + gr.toString() + " " + quoted(name) + ": " +
                       std::string(err),
                   namedDetails(gr, name));
}

Status Status::optimisticLockConflict(const GroupResource& gr, std::string_view name) {
    return conflict(gr, name,
                    "the object has been modified; please apply your changes to the latest "
                    "version and try again");
}

Status Status::invalid(const GroupKind& gk, std::string_view name,
                       std::vector<StatusCause> causes) {
    // Mirrors errors.NewInvalid: one cause is quoted inline, several are
    // listed in brackets; a repeated error is listed once (ToAggregate),
    // though every cause is kept.
    std::vector<std::string> errs;
    for (const StatusCause& c : causes) {
        std::string e = (c.field.empty() ? "" : c.field + ": ") + c.message;
        if (std::find(errs.begin(), errs.end(), e) == errs.end()) {
            errs.push_back(std::move(e));
        }
    }
    std::string msg = gk.toString() + " " + quoted(name) + " is invalid";
    if (errs.size() == 1) {
        msg += ": " + errs[0];
    } else if (!errs.empty()) {
        msg += ": [";
        for (size_t i = 0; i < errs.size(); i++) {
            msg += (i ? ", " : "") + errs[i];
        }
        msg += "]";
    }
    StatusDetails d;
    d.name = std::string(name);
    d.group = gk.group;
    d.kind = gk.kind;
    d.causes = std::move(causes);
    return failure(422, "Invalid", std::move(msg), std::move(d));
}

Status Status::badRequest(std::string message) {
    return failure(400, "BadRequest", std::move(message), std::nullopt);
}

Status Status::forbidden(const GroupResource& gr, std::string_view name, std::string_view err) {
    // Mirrors errors.NewForbidden's three forms.
    std::string msg;
    if (gr.resource.empty()) {
        msg = "forbidden: " + std::string(err);
    } else if (name.empty()) {
        msg = gr.toString() + " is forbidden: " + std::string(err);
    } else {
        msg = gr.toString() + " " + quoted(name) + " is forbidden: " + std::string(err);
    }
    return failure(403, "Forbidden", std::move(msg), namedDetails(gr, name));
}

Status Status::unauthorized(std::string message) {
    if (message.empty()) {
        message = "not authorized";
    }
    return failure(401, "Unauthorized", std::move(message), std::nullopt);
}

Status Status::methodNotSupported() {
    return failure(405, "MethodNotAllowed",
                   "the server does not allow this method on the requested resource",
                   StatusDetails{});
}

Status Status::notAcceptable(std::string message) {
    return failure(406, "NotAcceptable", std::move(message), StatusDetails{});
}

Status Status::unsupportedMediaType(std::string message) {
    return failure(415, "UnsupportedMediaType", std::move(message), std::nullopt);
}

Status Status::requestEntityTooLarge(std::string message) {
    return failure(413, "RequestEntityTooLarge", std::move(message), std::nullopt);
}

Status Status::internalError(std::string_view err) {
    StatusDetails d;
    d.causes.push_back({"", std::string(err), ""});
    return failure(500, "InternalError", "Internal error occurred: " + std::string(err),
                   std::move(d));
}

Status Status::expired(std::string message) {
    return failure(410, "Expired", std::move(message), std::nullopt);
}

Status Status::tooManyRequests(std::string message, int retryAfterSeconds) {
    StatusDetails d;
    d.retryAfterSeconds = retryAfterSeconds;
    return failure(429, "TooManyRequests", std::move(message), std::move(d));
}

Status Status::serviceUnavailable(std::string message) {
    return failure(503, "ServiceUnavailable", std::move(message), std::nullopt);
}

Status Status::timeout(std::string message) {
    return failure(504, "Timeout", std::move(message), std::nullopt);
}

Status Status::notFoundGeneric() {
    return failure(404, "NotFound", "the server could not find the requested resource",
                   StatusDetails{});
}

std::string Status::toJson(bool pretty) const {
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    // Messages and names may echo client input (paths, query values, names),
    // which may not be valid UTF-8: each invalid byte is written as U+FFFD.
    auto text = [&a](const std::string& s) {
        return util::utf8::valid(s) ? json::stringValue(s, a)
                                    : json::stringValue(util::utf8::toValid(s), a);
    };
    doc.AddMember("kind", "Status", a);
    doc.AddMember("apiVersion", "v1", a);
    doc.AddMember("metadata", json::Value(rapidjson::kObjectType), a);
    doc.AddMember("status", success ? "Success" : "Failure", a);
    if (!message.empty()) {
        doc.AddMember("message", text(message), a);
    }
    if (!reason.empty()) {
        doc.AddMember("reason", text(reason), a);
    }
    if (details) {
        json::Value d(rapidjson::kObjectType);
        if (!details->name.empty()) {
            d.AddMember("name", text(details->name), a);
        }
        if (!details->group.empty()) {
            d.AddMember("group", text(details->group), a);
        }
        if (!details->kind.empty()) {
            d.AddMember("kind", text(details->kind), a);
        }
        if (!details->uid.empty()) {
            d.AddMember("uid", text(details->uid), a);
        }
        if (!details->causes.empty()) {
            json::Value causes(rapidjson::kArrayType);
            for (const StatusCause& c : details->causes) {
                json::Value cv(rapidjson::kObjectType);
                if (!c.reason.empty()) {
                    cv.AddMember("reason", text(c.reason), a);
                }
                if (!c.message.empty()) {
                    cv.AddMember("message", text(c.message), a);
                }
                if (!c.field.empty()) {
                    cv.AddMember("field", text(c.field), a);
                }
                causes.PushBack(cv, a);
            }
            d.AddMember("causes", causes, a);
        }
        if (details->retryAfterSeconds > 0) {
            d.AddMember("retryAfterSeconds", details->retryAfterSeconds, a);
        }
        doc.AddMember("details", d, a);
    }
    // A delete's Success carries no code; a binding's carries the 201 its
    // create answers with.
    if (!success || code != 200) {
        doc.AddMember("code", code, a);
    }
    return pretty ? json::serializePretty(doc) : json::serialize(doc);
}

}  // namespace kube::meta
