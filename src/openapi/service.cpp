#include "openapi/service.hpp"

#include <openssl/sha.h>

#include <ctime>
#include <stdexcept>

#include "apis/meta/status.hpp"
#include "endpoints/http.hpp"
#include "endpoints/negotiation.hpp"
#include "openapi/documents.hpp"
#include "openapi/schema_pool.hpp"
#include "openapi/v2_protobuf.hpp"
#include "util/json.hpp"
#include "util/query.hpp"

namespace kube::openapi {

namespace json = util::json;

namespace {

constexpr std::string_view kV2 = "/openapi/v2";
constexpr std::string_view kV3 = "/openapi/v3";

std::string sha512Hex(std::string_view s) {
    unsigned char md[SHA512_DIGEST_LENGTH];
    SHA512(reinterpret_cast<const unsigned char*>(s.data()), s.size(), md);
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(2 * sizeof md);
    for (unsigned char c : md) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

// Mirrors net/http's checkIfNoneMatch: "*" or any listed entity tag, weak
// ones compared by their opaque part, matches.
bool noneMatchHits(std::string_view header, std::string_view hash) {
    while (!header.empty()) {
        size_t comma = header.find(',');
        std::string_view tag = endpoints::trimOws(header.substr(0, comma));
        header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
        if (tag == "*") {
            return true;
        }
        if (tag.starts_with("W/")) {
            tag.remove_prefix(2);
        }
        if (tag.size() == hash.size() + 2 && tag.front() == '"' && tag.back() == '"' &&
            tag.substr(1, hash.size()) == hash) {
            return true;
        }
    }
    return false;
}

// The two spellings of the v2 protobuf media type kube-openapi accepts; it
// answers with the second.
constexpr std::string_view kProtobufV2Deprecated =
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
constexpr std::string_view kProtobufV2 =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

enum class Form { Json, Protobuf, None };

// The first form the Accept header takes, JSON before protobuf for a
// wildcard, as kube-openapi's handlers pick; v3 documents are JSON only.
Form negotiate(std::string_view accept, bool protobuf) {
    if (endpoints::trimOws(accept).empty()) {
        return Form::Json;
    }
    for (const endpoints::MediaRange& r : endpoints::parseAccept(accept)) {
        if (r.q <= 0) {
            continue;
        }
        if (r.type == "application/json" || r.type == "application/*" || r.type == "*/*") {
            return Form::Json;
        }
        if (protobuf && (r.type == kProtobufV2 || r.type == kProtobufV2Deprecated)) {
            return Form::Protobuf;
        }
    }
    return Form::None;
}

// An HTTP-date (RFC 7231), a year after `now` as Go's AddDate(1, 0, 0) counts.
std::string aYearOn(std::chrono::system_clock::time_point now) {
    std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    tm.tm_year += 1;
    std::time_t later = timegm(&tm);
    gmtime_r(&later, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    return buf;
}

Response notModified(std::vector<std::pair<std::string, std::string>> headers) {
    Response r;
    r.status = 304;
    r.headers = std::move(headers);
    return r;
}

}  // namespace

struct Service::Built {
    struct Document {
        std::string body;
        std::string hash;  // upper-case hex SHA-512 of body
    };
    Document v2;
    std::optional<std::string> v2Protobuf;  // null when the JSON does not convert
    Document v3Index;
    std::map<std::string, Document, std::less<>> v3;
};

Service::Service(std::string serverVersion) : serverVersion_(std::move(serverVersion)) {}

void Service::setRoutes(std::shared_ptr<const endpoints::RouteTable> routes) {
    routes_ = std::move(routes);
    built_.reset();
}

bool Service::handles(std::string_view path) {
    return path == kV2 || path == kV3 || path.starts_with(std::string(kV3) + "/");
}

std::shared_ptr<const Service::Built> Service::prepare(const endpoints::RouteTable& routes,
                                                       std::string_view serverVersion) {
    auto out = std::make_shared<Built>();
    const SchemaPool& pool = SchemaPool::builtin();
    out->v2.body = buildV2(routes, pool, serverVersion);
    out->v2.hash = sha512Hex(out->v2.body);
    // client-go asks for the protobuf form: made with the JSON, so that no
    // request converts megabytes on the loop.
    out->v2Protobuf = v2Protobuf(out->v2.body);
    json::Document index(rapidjson::kObjectType);
    auto& a = index.GetAllocator();
    json::Value paths(rapidjson::kObjectType);
    for (auto& [path, body] : buildV3(routes, pool)) {
        Built::Document doc{std::move(body), ""};
        doc.hash = sha512Hex(doc.body);
        json::Value entry(rapidjson::kObjectType);
        entry.AddMember("serverRelativeURL",
                        json::stringValue(std::string(kV3) + "/" + path + "?hash=" + doc.hash, a),
                        a);
        paths.AddMember(json::stringValue(path, a), entry, a);
        out->v3.emplace(path, std::move(doc));
    }
    index.AddMember("paths", paths, a);
    out->v3Index.body = json::serialize(index);
    out->v3Index.hash = sha512Hex(out->v3Index.body);
    return out;
}

bool Service::install(const endpoints::RouteTable* routes, std::shared_ptr<const Built> built) {
    if (routes != routes_.get()) {
        return false;
    }
    built_ = std::move(built);
    return true;
}

void Service::build() {
    if (!built_) {
        built_ = prepare(*routes_, serverVersion_);
    }
}

std::string Service::v3Hash(std::string_view path) {
    build();
    auto it = built_->v3.find(path);
    return it == built_->v3.end() ? "" : it->second.hash;
}

Response Service::serve(const Request& req) {
    build();
    if (req.path == kV2) {
        return v2(req);
    }
    if (req.path == kV3) {
        return v3Index(req);
    }
    return v3Document(req, req.path.substr(kV3.size() + 1));
}

Response Service::v2(const Request& req) {
    std::vector<std::pair<std::string, std::string>> headers = {{"Vary", "Accept"}};
    Form form = negotiate(req.accept, true);
    if (form == Form::None) {
        Response r;
        r.status = 406;
        r.headers = std::move(headers);
        return r;
    }
    // Both forms share the JSON's ETag: Vary: Accept keeps caches apart.
    const Built::Document& doc = built_->v2;
    headers.emplace_back("ETag", "\"" + doc.hash + "\"");
    if (noneMatchHits(req.ifNoneMatch, doc.hash)) {
        return notModified(std::move(headers));
    }
    if (form == Form::Json) {
        return Response{200, "application/json", doc.body, std::move(headers)};
    }
    if (!built_->v2Protobuf) {
        throw std::logic_error("openapi: the v2 document does not convert to protobuf");
    }
    return Response{200, std::string(kProtobufV2), *built_->v2Protobuf, std::move(headers)};
}

Response Service::v3Index(const Request& req) {
    const Built::Document& index = built_->v3Index;
    std::vector<std::pair<std::string, std::string>> headers = {
        {"ETag", "\"" + index.hash + "\""}};
    if (noneMatchHits(req.ifNoneMatch, index.hash)) {
        return notModified(std::move(headers));
    }
    return Response{200, "application/json", index.body, std::move(headers)};
}

Response Service::v3Document(const Request& req, std::string_view path) {
    auto it = built_->v3.find(path);
    if (it == built_->v3.end()) {
        Response r;
        r.status = 404;
        r.contentType = "application/json";
        r.body = meta::Status::notFoundGeneric().toJson();
        return r;
    }
    const Built::Document& doc = it->second;
    std::vector<std::pair<std::string, std::string>> headers = {{"Vary", "Accept"}};
    if (negotiate(req.accept, false) == Form::None) {
        Response r;
        r.status = 406;
        r.headers = std::move(headers);
        return r;
    }
    headers.emplace_back("ETag", "\"" + doc.hash + "\"");
    std::optional<std::string> hash = util::Query::parse(req.query).get("hash");
    if (hash && !hash->empty()) {
        if (*hash != doc.hash) {
            // A stale URL: kube-openapi sends the client to the current one.
            Response r;
            r.status = 301;
            r.contentType = "application/json";
            r.headers = std::move(headers);
            r.headers.emplace_back(
                "Location", std::string(kV3) + "/" + std::string(path) + "?hash=" + doc.hash);
            return r;
        }
        // The URL names this very content: it may be cached for good.
        headers.emplace_back("Cache-Control", "public, immutable");
        headers.emplace_back("Expires", aYearOn(req.now));
    }
    if (noneMatchHits(req.ifNoneMatch, doc.hash)) {
        return notModified(std::move(headers));
    }
    return Response{200, "application/json", doc.body, std::move(headers)};
}

}  // namespace kube::openapi
