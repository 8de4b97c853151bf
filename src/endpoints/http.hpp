#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apis/meta/status.hpp"
#include "authn/user.hpp"
#include "endpoints/request_info.hpp"

namespace kube::authz {
class Authorizer;
}

namespace kube::endpoints {

// One HTTP request as the module hands it to src/. Views point into nginx's
// request memory and stay valid until the response is delivered.
struct HttpRequest {
    std::string_view method;
    std::string_view path;   // decoded URI path
    std::string_view query;  // raw query string, without '?'
    std::string_view accept;
    std::string_view contentType;
    std::string_view userAgent;
    std::string_view host;  // "host:port" the client asked for
    std::string_view ifNoneMatch;  // the If-None-Match header ("" when absent)
    // A Connection header names "upgrade": the client asks to switch
    // protocols (httpstream.IsUpgradeRequest); never over HTTP/2.
    bool upgrade = false;
    std::string_view body;
    const endpoints::RequestInfo* info = nullptr;
    const authn::UserInfo* user = nullptr;
    // The authorizer that admitted the request (the location's modes):
    // access reviews ask it. Null when none is configured.
    const authz::Authorizer* authorizer = nullptr;
};

// A part of a streamed response: bytes that `owner` keeps alive (null for
// bytes of static storage). Parts are written as they are, never copied.
struct StreamPart {
    std::shared_ptr<const void> owner;
    std::string_view bytes;
};

// Where a streamed response's bytes go (a watch, a streamed list); the
// module implements it for one request. Never calls back into the source
// from send() or finish(): stop() always comes later, from the loop.
class StreamSink {
public:
    virtual ~StreamSink() = default;

    // Queues `parts`, in order, for the client and flushes them together
    // (one chunk of an HTTP/1.1 response). The parts' owners are taken, and
    // kept until their bytes are written. False once the stream is closed:
    // the client went away, it was cut for leaving more than
    // kube_stream_max_buffered unread, or finish() was called.
    virtual bool send(std::span<StreamPart> parts) = 0;

    // The same for one piece (a watch event).
    bool send(std::shared_ptr<const std::string> bytes) {
        std::string_view view = bytes ? std::string_view(*bytes) : std::string_view();
        StreamPart part{std::move(bytes), view};
        return send(std::span<StreamPart>(&part, 1));
    }

    // Bytes accepted by send() and not yet written to the connection.
    virtual size_t buffered() const = 0;

    // Ends the response cleanly (the terminating chunk / END_STREAM).
    virtual void finish() = 0;
};

// A response body produced over time.
class StreamSource {
public:
    virtual ~StreamSource() = default;

    // The status line and headers are out; produce into `sink` from now on.
    // `sink` stays valid until stop().
    virtual void start(StreamSink& sink) = 0;

    // Everything buffered was written to the connection; a producer that
    // paused on back-pressure continues here.
    virtual void drained() {}

    // The stream is over, for whatever reason (finish(), client gone, cut,
    // worker exiting): release everything and never touch the sink again.
    // Called once, after start(), from the loop.
    virtual void stop() = 0;
};

struct HttpResponse {
    int status = 200;
    std::string contentType;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    // Set for a streamed response: `body` is ignored, no Content-Length is
    // sent (chunked on HTTP/1.1, DATA frames on h2), and the stream's bytes
    // follow the headers.
    std::shared_ptr<StreamSource> stream;
    // False keeps nginx's gzip filter off this response (watch streams: a
    // compressor per open stream would cost more memory than the stream).
    bool compressible = true;

    static HttpResponse json(int status, std::string body);
    // A Status answer, indented when `pretty`.
    static HttpResponse fromStatus(const meta::Status& s, bool pretty = false);
};

// Delivers the response; may be called inline or later on the loop.
using Responder = std::function<void(HttpResponse&&)>;

// An element of a header's comma-separated list without the optional white
// space (spaces and tabs) HTTP allows around it.
std::string_view trimOws(std::string_view s);

}  // namespace kube::endpoints
