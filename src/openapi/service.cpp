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

Service::Service(std::string serverVersion) : serverVersion_(std::move(serverVersion)) {}

void Service::setRoutes(std::shared_ptr<const endpoints::RouteTable> routes) {
    routes_ = std::move(routes);
    built_ = false;
    v2_ = {};
    v2Protobuf_.reset();
    v3Index_ = {};
    v3_.clear();
}

bool Service::handles(std::string_view path) {
    return path == kV2 || path == kV3 || path.starts_with(std::string(kV3) + "/");
}

void Service::build() {
    if (built_) {
        return;
    }
    const SchemaPool& pool = SchemaPool::builtin();
    v2_.body = buildV2(*routes_, pool, serverVersion_);
    v2_.hash = sha512Hex(v2_.body);
    json::Document index(rapidjson::kObjectType);
    auto& a = index.GetAllocator();
    json::Value paths(rapidjson::kObjectType);
    for (auto& [path, body] : buildV3(*routes_, pool)) {
        Document doc{std::move(body), ""};
        doc.hash = sha512Hex(doc.body);
        json::Value entry(rapidjson::kObjectType);
        entry.AddMember("serverRelativeURL",
                        json::stringValue(std::string(kV3) + "/" + path + "?hash=" + doc.hash, a),
                        a);
        paths.AddMember(json::stringValue(path, a), entry, a);
        v3_.emplace(path, std::move(doc));
    }
    index.AddMember("paths", paths, a);
    v3Index_.body = json::serialize(index);
    v3Index_.hash = sha512Hex(v3Index_.body);
    built_ = true;
}

std::string Service::v3Hash(std::string_view path) {
    build();
    auto it = v3_.find(path);
    return it == v3_.end() ? "" : it->second.hash;
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
    headers.emplace_back("ETag", "\"" + v2_.hash + "\"");
    if (noneMatchHits(req.ifNoneMatch, v2_.hash)) {
        return notModified(std::move(headers));
    }
    if (form == Form::Json) {
        return Response{200, "application/json", v2_.body, std::move(headers)};
    }
    if (!v2Protobuf_) {
        v2Protobuf_ = v2Protobuf(v2_.body);
        if (!v2Protobuf_) {
            throw std::logic_error("openapi: the v2 document does not convert to protobuf");
        }
    }
    return Response{200, std::string(kProtobufV2), *v2Protobuf_, std::move(headers)};
}

Response Service::v3Index(const Request& req) {
    std::vector<std::pair<std::string, std::string>> headers = {
        {"ETag", "\"" + v3Index_.hash + "\""}};
    if (noneMatchHits(req.ifNoneMatch, v3Index_.hash)) {
        return notModified(std::move(headers));
    }
    return Response{200, "application/json", v3Index_.body, std::move(headers)};
}

Response Service::v3Document(const Request& req, std::string_view path) {
    auto it = v3_.find(path);
    if (it == v3_.end()) {
        Response r;
        r.status = 404;
        r.contentType = "application/json";
        r.body = meta::Status::notFoundGeneric().toJson();
        return r;
    }
    const Document& doc = it->second;
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
