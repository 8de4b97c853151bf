// watch_load: the watch load client of bench/run (issue 4).
//
//   watch_load latency --port P [options]   write -> event delay seen by a few watchers
//   watch_load fanout  --port P [options]   memory per idle watcher, one write to N watchers
//
// Both modes: the parent process creates the namespace and a ConfigMap, PUTs it once to
// learn a starting resourceVersion, then forks child processes that open the watchers
// (GET .../configmaps?watch=true&resourceVersion=<rv>, HTTP/1.1, one epoll loop each) at a
// bounded rate. Once every watcher has its 200 headers the parent PUTs the ConfigMap again
// and again over keep-alive connections; after each acknowledgement it tells the children the
// answer's resourceVersion and waits until each live watcher has received the event carrying
// it (or a timeout). Children time-stamp every event with the kernel's receive time of its bytes
// (so a watcher's figure does not include this client's turn at the sockets ready before it)
// and send the samples back at the end; the acknowledgement is time-stamped the same way.
// CLOCK_MONOTONIC is shared by all processes of the host, so the times compare directly.
//
// Children exist because one process can hold only RLIMIT_NOFILE sockets: N watchers are
// split over ceil(N / (hard limit - reserve)) processes. Source addresses 127.0.0.2,
// 127.0.0.3, ... (bound before connect, port chosen at connect time) lift the loopback limit
// of one ephemeral port range per (source, destination) pair.
//
// Output: human-readable lines and one "RESULT <mode> key=value ..." line.

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "load_common.hpp"

namespace kube::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Time

void sleepUntil(int64_t deadlineNs) {
    for (;;) {
        int64_t left = deadlineNs - nowNs();
        if (left <= 0) {
            return;
        }
        timespec ts{time_t(left / 1000000000), long(left % 1000000000)};
        nanosleep(&ts, nullptr);
    }
}

bool icontains(std::string_view hay, std::string_view needle) {
    for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
        if (iequals(hay.substr(i, needle.size()), needle)) {
            return true;
        }
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// JSON: just enough to read a string member at a path without building a document.

class JsonScanner {
  public:
    explicit JsonScanner(std::string_view doc) : s_(doc) {}

    // The raw contents (escapes left as they are) of the string at `path`, a chain of member
    // names from the root object; nullopt when absent, not a string, or the text is malformed.
    std::optional<std::string_view> stringAt(std::span<const std::string_view> path) {
        i_ = 0;
        for (size_t level = 0; level < path.size(); ++level) {
            ws();
            if (!eat('{')) {
                return std::nullopt;
            }
            bool found = false;
            while (!found) {
                ws();
                if (eat('}')) {
                    return std::nullopt;
                }
                std::string_view key;
                ws();
                if (!string(key)) {
                    return std::nullopt;
                }
                ws();
                if (!eat(':')) {
                    return std::nullopt;
                }
                ws();
                if (key == path[level]) {
                    found = true;
                    break;
                }
                if (!skipValue(0)) {
                    return std::nullopt;
                }
                ws();
                if (!eat(',')) {
                    return std::nullopt;  // '}' (member not found) or malformed
                }
            }
        }
        std::string_view value;
        if (!string(value)) {
            return std::nullopt;
        }
        return value;
    }

  private:
    void ws() {
        while (i_ < s_.size() &&
               (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
            ++i_;
        }
    }

    bool eat(char c) {
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }

    bool string(std::string_view& out) {
        if (!eat('"')) {
            return false;
        }
        size_t start = i_;
        while (i_ < s_.size()) {
            char c = s_[i_];
            if (c == '\\') {
                i_ += 2;
                continue;
            }
            if (c == '"') {
                out = s_.substr(start, i_ - start);
                ++i_;
                return true;
            }
            ++i_;
        }
        return false;
    }

    bool skipValue(int depth) {
        if (depth > 64 || i_ >= s_.size()) {
            return false;
        }
        char c = s_[i_];
        if (c == '"') {
            std::string_view ignored;
            return string(ignored);
        }
        if (c == '{' || c == '[') {
            char close = c == '{' ? '}' : ']';
            ++i_;
            ws();
            if (eat(close)) {
                return true;
            }
            for (;;) {
                ws();
                if (c == '{') {
                    std::string_view key;
                    if (!string(key)) {
                        return false;
                    }
                    ws();
                    if (!eat(':')) {
                        return false;
                    }
                    ws();
                }
                if (!skipValue(depth + 1)) {
                    return false;
                }
                ws();
                if (eat(close)) {
                    return true;
                }
                if (!eat(',')) {
                    return false;
                }
            }
        }
        // number, true, false, null
        size_t start = i_;
        while (i_ < s_.size() && std::strchr(",}] \t\r\n", s_[i_]) == nullptr) {
            ++i_;
        }
        return i_ > start;
    }

    std::string_view s_;
    size_t i_ = 0;
};

// metadata.resourceVersion of an object as a number (this server's revisions are numbers);
// 0 when absent.
uint64_t objectRv(std::string_view json) {
    static constexpr std::string_view path[] = {"metadata", "resourceVersion"};
    auto rv = JsonScanner(json).stringAt(path);
    return rv ? parseUint(*rv).value_or(0) : 0;
}

struct EventInfo {
    std::string_view type;
    uint64_t rv = 0;  // object.metadata.resourceVersion, 0 when absent (ERROR)
};

std::optional<EventInfo> parseEvent(std::string_view line) {
    static constexpr std::string_view typePath[] = {"type"};
    static constexpr std::string_view rvPath[] = {"object", "metadata", "resourceVersion"};
    auto type = JsonScanner(line).stringAt(typePath);
    if (!type) {
        return std::nullopt;
    }
    EventInfo e;
    e.type = *type;
    if (auto rv = JsonScanner(line).stringAt(rvPath)) {
        e.rv = parseUint(*rv).value_or(0);
    }
    return e;
}

// ---------------------------------------------------------------------------------------------
// HTTP/1.1 responses, fed in whatever pieces the socket returns.

// X-Kube-Worker as a small number: the header's value plus one when it is a number (a pid or a
// worker slot), a hash of it otherwise; 0 when the header is absent.
uint32_t workerId(std::string_view value) {
    if (auto n = parseUint(value); n && *n < 0xffffffffu) {
        return uint32_t(*n) + 1;
    }
    uint32_t h = 2166136261u;
    for (char c : value) {
        h = (h ^ uint8_t(c)) * 16777619u;
    }
    return (h | 0x80000000u);
}

std::string workerName(uint32_t id) {
    if (id == 0) {
        return "?";
    }
    if (id & 0x80000000u) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "#%08x", id);
        return buf;
    }
    return std::to_string(id - 1);
}

struct ResponseHead {
    int status = 0;
    uint32_t worker = 0;  // workerId() of X-Kube-Worker
    bool chunked = false;
    bool close = false;
    int64_t contentLength = -1;
};

class ResponseHandler {
  public:
    virtual ~ResponseHandler() = default;
    // The status line and headers are in.
    virtual void onHead(const ResponseHead& head) = 0;
    // A 200 answer of a parser in event mode: one '\n'-terminated line (without the '\n'),
    // wherever the chunk boundaries fell.
    virtual void onEvent(std::string_view line) = 0;
    // Any other answer: the whole body, once it is complete.
    virtual void onBody(std::string_view body) = 0;
};

// Small on purpose (one per watcher): a phase, a counter and one string that holds the head
// while it arrives, then only the part of an event line that crossed a read or chunk boundary.
class ResponseParser {
  public:
    enum class Result : uint8_t { More, Complete, Error };

    // `events`: a 200 answer is split into event lines as it arrives instead of collected.
    void reset(bool events) {
        phase_ = Phase::Head;
        streamEvents_ = events;
        lines_ = false;
        remaining_ = 0;
        std::string().swap(buf_);
    }

    Result feed(std::string_view data, ResponseHandler& h) {
        size_t i = 0;
        while (i < data.size()) {
            char c = data[i];
            switch (phase_) {
                case Phase::Head: {
                    size_t old = buf_.size();
                    buf_.append(data.substr(i));
                    size_t end = buf_.find("\r\n\r\n", old >= 3 ? old - 3 : 0);
                    if (end == std::string::npos) {
                        return buf_.size() > 65536 ? fail() : Result::More;
                    }
                    i += end + 4 - old;
                    ResponseHead head;
                    if (!parseHead(std::string_view(buf_).substr(0, end), head)) {
                        return fail();
                    }
                    std::string().swap(buf_);
                    if (head.status >= 100 && head.status < 200) {
                        continue;  // 100 Continue and friends: the real head follows
                    }
                    lines_ = streamEvents_ && head.status == 200;
                    h.onHead(head);
                    if (head.status == 204 || head.status == 304 ||
                        (!head.chunked && head.contentLength == 0)) {
                        return done(h);
                    }
                    if (head.chunked) {
                        phase_ = Phase::Size;
                        remaining_ = 0;
                    } else if (head.contentLength > 0) {
                        phase_ = Phase::Identity;
                        remaining_ = uint64_t(head.contentLength);
                    } else {
                        phase_ = Phase::UntilClose;
                    }
                    continue;
                }
                case Phase::Size: {
                    ++i;
                    int digit = hexDigit(c);
                    if (digit >= 0) {
                        if (remaining_ > (uint64_t(1) << 40)) {
                            return fail();
                        }
                        remaining_ = remaining_ * 16 + uint64_t(digit);
                    } else if (c == ';' || c == ' ' || c == '\t') {
                        phase_ = Phase::SizeExt;
                    } else if (c == '\n') {
                        sizeDone();
                    } else if (c != '\r') {
                        return fail();
                    }
                    continue;
                }
                case Phase::SizeExt:
                    ++i;
                    if (c == '\n') {
                        sizeDone();
                    }
                    continue;
                case Phase::Data:
                case Phase::Identity: {
                    size_t n = size_t(std::min<uint64_t>(remaining_, data.size() - i));
                    if (!consume(data.substr(i, n), h)) {
                        return fail();
                    }
                    i += n;
                    remaining_ -= n;
                    if (remaining_ == 0) {
                        if (phase_ == Phase::Identity) {
                            return done(h);
                        }
                        phase_ = Phase::DataCr;
                    }
                    continue;
                }
                case Phase::DataCr:
                case Phase::DataLf:
                    ++i;
                    if (c == '\r' && phase_ == Phase::DataCr) {
                        phase_ = Phase::DataLf;
                    } else if (c == '\n') {
                        phase_ = Phase::Size;
                        remaining_ = 0;
                    } else {
                        return fail();
                    }
                    continue;
                case Phase::TrailerStart:
                    ++i;
                    if (c == '\n') {
                        return done(h);
                    }
                    if (c != '\r') {
                        phase_ = Phase::TrailerLine;
                    }
                    continue;
                case Phase::TrailerLine:
                    ++i;
                    if (c == '\n') {
                        phase_ = Phase::TrailerStart;
                    }
                    continue;
                case Phase::UntilClose:
                    if (!consume(data.substr(i), h)) {
                        return fail();
                    }
                    return Result::More;
                case Phase::Done:
                    return Result::Complete;  // bytes after the answer: not pipelined here
                case Phase::Failed:
                    return Result::Error;
            }
        }
        if (phase_ == Phase::Done) {
            return Result::Complete;
        }
        return phase_ == Phase::Failed ? Result::Error : Result::More;
    }

    // The connection closed: completes an answer delimited by the close.
    Result eof(ResponseHandler& h) {
        if (phase_ == Phase::UntilClose) {
            return done(h);
        }
        return phase_ == Phase::Done ? Result::Complete : Result::Error;
    }

    bool headDone() const { return phase_ != Phase::Head; }

  private:
    enum class Phase : uint8_t {
        Head,
        Size,
        SizeExt,
        Data,
        DataCr,
        DataLf,
        TrailerStart,
        TrailerLine,
        Identity,
        UntilClose,
        Done,
        Failed,
    };

    static bool parseHead(std::string_view head, ResponseHead& out) {
        size_t eol = head.find("\r\n");
        std::string_view status = head.substr(0, eol);
        if (status.size() < 12 || status.substr(0, 5) != "HTTP/") {
            return false;
        }
        size_t sp = status.find(' ');
        if (sp == std::string_view::npos || sp + 4 > status.size()) {
            return false;
        }
        auto code = parseUint(status.substr(sp + 1, 3));
        if (!code) {
            return false;
        }
        out.status = int(*code);
        if (status.substr(0, sp) == "HTTP/1.0") {
            out.close = true;
        }
        return forEachHeader(head, [&](std::string_view name, std::string_view value) {
            if (iequals(name, "content-length")) {
                auto n = parseUint(value);
                if (!n) {
                    return false;
                }
                out.contentLength = int64_t(*n);
            } else if (iequals(name, "transfer-encoding")) {
                out.chunked = icontains(value, "chunked");
            } else if (iequals(name, "connection")) {
                out.close = icontains(value, "close");
            } else if (iequals(name, "x-kube-worker")) {
                out.worker = workerId(value);
            }
            return true;
        });
    }

    void sizeDone() { phase_ = remaining_ == 0 ? Phase::TrailerStart : Phase::Data; }

    bool consume(std::string_view d, ResponseHandler& h) {
        if (!lines_) {
            buf_.append(d);
            return buf_.size() <= (size_t(64) << 20);
        }
        while (!d.empty()) {
            size_t nl = d.find('\n');
            if (nl == std::string_view::npos) {
                buf_.append(d);
                return buf_.size() <= (size_t(16) << 20);
            }
            if (buf_.empty()) {
                h.onEvent(d.substr(0, nl));
            } else {
                buf_.append(d.substr(0, nl));
                h.onEvent(buf_);
                buf_.clear();
                if (buf_.capacity() > 4096) {
                    std::string().swap(buf_);
                }
            }
            d.remove_prefix(nl + 1);
        }
        return true;
    }

    Result done(ResponseHandler& h) {
        phase_ = Phase::Done;
        if (!lines_) {
            h.onBody(buf_);
        }
        std::string().swap(buf_);
        return Result::Complete;
    }

    Result fail() {
        phase_ = Phase::Failed;
        std::string().swap(buf_);
        return Result::Error;
    }

    std::string buf_;
    uint64_t remaining_ = 0;  // bytes left of the chunk or of the Content-Length body
    Phase phase_ = Phase::Head;
    bool streamEvents_ = false;
    bool lines_ = false;  // this answer is split into event lines
};

// ---------------------------------------------------------------------------------------------
// Options

enum class Mode { Latency, Fanout };

struct Options {
    Mode mode = Mode::Latency;
    std::string host = "127.0.0.1";
    int port = 0;
    // Where the writes go when not to `port`: another host on the same
    // storage (etcd), whose writes reach the watchers through it.
    long writePort = 0;
    std::string ns;
    std::string name;
    long watchers = 0;
    long writes = 0;
    long intervalMs = 0;
    long writers = 2;
    long inFlight = 1000;
    long sources = 0;  // 0: automatic
    long procs = 0;    // 0: automatic
    long openTimeoutS = 120;
    long eventTimeoutMs = 5000;
    long settleMs = 1000;
    long payloadBytes = 200;
    long nginxPid = 0;
    long perWatcherLines = 64;
    long warmup = 0;
};

void usage(FILE* out) {
    std::fputs(
        "usage: watch_load latency --port PORT [--nginx-pid PID] [options]\n"
        "       watch_load fanout  --port PORT [--nginx-pid PID] [options]\n"
        "\n"
        "latency: a few watchers, many writes; prints p50/p99/max of write-ack -> event and of\n"
        "         write-sent -> event in microseconds, per watcher connection and, when the\n"
        "         workers are known, same-worker vs cross-worker.\n"
        "fanout:  N idle watchers; nginx PSS/RSS before and after they open (per watcher), then\n"
        "         W writes and, per (watcher, write), the ack -> event delay in milliseconds.\n"
        "\n"
        "options (defaults: latency / fanout):\n"
        "  --host ADDR            server address (127.0.0.1)\n"
        "  --port PORT            server port (required)\n"
        "  --write-port PORT      where the writes go (another host on the same etcd; --port)\n"
        "  --namespace NS         namespace to watch and write (watch-latency / watch-fanout)\n"
        "  --name NAME            ConfigMap that is written (w)\n"
        "  --watchers N           watcher connections (8 / 10000)\n"
        "  --iterations W         latency: writes (200)\n"
        "  --writes W             fanout: writes (20)\n"
        "  --interval-ms MS       time from one write to the next at least (10 / 200)\n"
        "  --writers N            latency: writer connections, one per nginx worker when the\n"
        "                         workers are known (2; fanout: 1)\n"
        "  --in-flight N          connections opening at once, over all processes (1000)\n"
        "  --sources K            source addresses 127.0.0.2 .. 127.0.0.(K+1); 0 = automatic:\n"
        "                         a quarter of ip_local_port_range per address, 127.0.0.1 when\n"
        "                         one suffices\n"
        "  --procs P              watcher processes; 0 = automatic from RLIMIT_NOFILE\n"
        "  --open-timeout-s S     give up on watchers without headers after S seconds (120)\n"
        "  --event-timeout-ms MS  wait at most this for every watcher to see a write (5000)\n"
        "  --settle-ms MS         fanout: pause before measuring memory (1000)\n"
        "  --payload-bytes B      size of the ConfigMap's payload value (200)\n"
        "  --nginx-pid PID        nginx's master: fanout measures its and its children's memory;\n"
        "                         a connection's worker is the X-Kube-Worker header the server\n"
        "                         may send, else the worker holding the socket (from /proc)\n"
        "  --per-watcher-lines N  print per-watcher lines when watchers <= N (64)\n"
        "  --warmup N             fanout: watchers the parent opens before the memory baseline\n"
        "                         and holds to the end, so that state nginx keeps per resource\n"
        "                         (a watch cache in each worker) is not counted per watcher (16)\n",
        out);
}

std::optional<Options> parseOptions(int argc, char** argv) {
    if (argc < 2) {
        return std::nullopt;
    }
    Options o;
    std::string_view mode = argv[1];
    if (mode == "latency") {
        o.mode = Mode::Latency;
        o.ns = "watch-latency";
        o.watchers = 8;
        o.writes = 200;
        o.intervalMs = 10;
    } else if (mode == "fanout") {
        o.mode = Mode::Fanout;
        o.ns = "watch-fanout";
        o.watchers = 10000;
        o.writes = 20;
        o.intervalMs = 200;
        o.writers = 1;
        o.warmup = 16;
    } else {
        return std::nullopt;
    }
    o.name = "w";
    struct Numeric {
        std::string_view flag;
        long* value;
        long min;
    };
    const Numeric numeric[] = {
        {"--watchers", &o.watchers, 1},
        {"--iterations", &o.writes, 1},
        {"--writes", &o.writes, 1},
        {"--interval-ms", &o.intervalMs, 0},
        {"--writers", &o.writers, 1},
        {"--in-flight", &o.inFlight, 1},
        {"--sources", &o.sources, 0},
        {"--procs", &o.procs, 0},
        {"--open-timeout-s", &o.openTimeoutS, 1},
        {"--event-timeout-ms", &o.eventTimeoutMs, 1},
        {"--settle-ms", &o.settleMs, 0},
        {"--payload-bytes", &o.payloadBytes, 0},
        {"--nginx-pid", &o.nginxPid, 1},
        {"--per-watcher-lines", &o.perWatcherLines, 0},
        {"--warmup", &o.warmup, 0},
        {"--write-port", &o.writePort, 1},
    };
    for (int i = 2; i < argc; ++i) {
        std::string_view flag = argv[i];
        if (flag == "-h" || flag == "--help") {
            return std::nullopt;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "watch_load: %s needs a value\n", argv[i]);
            return std::nullopt;
        }
        std::string_view value = argv[++i];
        if (flag == "--host") {
            o.host = value;
            continue;
        }
        if (flag == "--namespace") {
            o.ns = value;
            continue;
        }
        if (flag == "--name") {
            o.name = value;
            continue;
        }
        long port = 0;
        long* target = flag == "--port" ? &port : nullptr;
        long min = 1;
        for (const auto& n : numeric) {
            if (n.flag == flag) {
                target = n.value;
                min = n.min;
            }
        }
        if (target == nullptr) {
            std::fprintf(stderr, "watch_load: unknown option %s\n", argv[i - 1]);
            return std::nullopt;
        }
        auto v = parseUint(value);
        if (!v || long(*v) < min || *v > 100000000) {
            std::fprintf(stderr, "watch_load: %s wants a number >= %ld, not \"%s\"\n", argv[i - 1],
                         min, argv[i]);
            return std::nullopt;
        }
        *target = long(*v);
        if (flag == "--port") {
            if (port > 65535) {
                std::fprintf(stderr, "watch_load: --port %ld is not a port\n", port);
                return std::nullopt;
            }
            o.port = int(port);
        }
    }
    if (o.port == 0) {
        std::fprintf(stderr, "watch_load: --port is required\n");
        return std::nullopt;
    }
    return o;
}

// ---------------------------------------------------------------------------------------------
// Sockets

sockaddr_in makeAddr(const std::string& host, int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    inet_pton(AF_INET, host.c_str(), &a.sin_addr);
    return a;
}

// A TCP socket to the server, from `source` when it is set (port left to connect(), so one
// source address serves many destinations), closed with a reset so a finished run leaves no
// TIME_WAIT behind. Returns -1 with errno set.
int openSocket(bool nonBlocking, const in_addr* source) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonBlocking ? SOCK_NONBLOCK : 0), 0);
    if (fd < 0) {
        return -1;
    }
    tuneSocket(fd);
    if (source != nullptr) {
        int one = 1;
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr = *source;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
            int err = errno;
            ::close(fd);
            errno = err;
            return -1;
        }
    }
    return fd;
}

// ---------------------------------------------------------------------------------------------
// A blocking keep-alive client for the writes (the parent does nothing else meanwhile).

struct Reply {
    int status = 0;
    uint32_t worker = 0;
    std::string body;
    int64_t arrivalNs = 0;  // when the answer's last bytes arrived (see timedRead)
};

class HttpClient : private ResponseHandler {
  public:
    explicit HttpClient(const Options& o) : opts_(o) {}
    ~HttpClient() { disconnect(); }
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    void disconnect() {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }

    // One request and its answer; reconnects when the last answer closed the connection.
    bool roundTrip(std::string_view method, const std::string& path, std::string_view body,
                   Reply& out, std::string& err) {
        if (fd_ < 0 && !connect(err)) {
            return false;
        }
        std::string req;
        req.reserve(256 + body.size());
        req.append(method).append(" ").append(path).append(" HTTP/1.1\r\nHost: ");
        req.append(opts_.host).append(":").append(std::to_string(writePort()));
        req.append("\r\nAccept: application/json\r\nUser-Agent: watch_load\r\n");
        if (!body.empty()) {
            req.append("Content-Type: application/json\r\nContent-Length: ");
            req.append(std::to_string(body.size())).append("\r\n");
        }
        req.append("\r\n").append(body);
        if (!writeAll(fd_, req)) {
            err = "write: " + errnoName(errno);
            disconnect();
            return false;
        }
        parser_.reset(false);
        reply_ = Reply{};
        reply_.arrivalNs = nowNs();
        char buf[65536];
        for (;;) {
            TimedRead t = timedRead(fd_, buf, sizeof buf);
            ssize_t n = t.n;
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n > 0) {
                reply_.arrivalNs = t.arrivalNs;
            }
            if (n <= 0) {
                bool complete = n == 0 && parser_.eof(*this) == ResponseParser::Result::Complete;
                err = n == 0 ? "connection closed" : "read: " + errnoName(errno);
                disconnect();
                if (!complete) {
                    return false;
                }
                break;
            }
            auto r = parser_.feed(std::string_view(buf, size_t(n)), *this);
            if (r == ResponseParser::Result::Error) {
                err = "malformed HTTP answer";
                disconnect();
                return false;
            }
            if (r == ResponseParser::Result::Complete) {
                break;
            }
        }
        if (closeAfter_) {
            disconnect();
        }
        out = std::move(reply_);
        return true;
    }

    // The worker the connection landed on, from the last answer's X-Kube-Worker (0: unknown).
    uint32_t worker() const { return lastWorker_; }
    int fd() const { return fd_; }

  private:
    bool connect(std::string& err) {
        fd_ = openSocket(false, nullptr);
        if (fd_ < 0) {
            err = "socket: " + errnoName(errno);
            return false;
        }
        timeval tv{10, 0};
        setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        sockaddr_in a = makeAddr(opts_.host, writePort());
        if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
            err = "connect: " + errnoName(errno);
            disconnect();
            return false;
        }
        return true;
    }

    void onHead(const ResponseHead& head) override {
        reply_.status = head.status;
        reply_.worker = head.worker;
        lastWorker_ = head.worker;
        closeAfter_ = head.close;
    }
    void onEvent(std::string_view) override {}
    void onBody(std::string_view body) override { reply_.body.assign(body); }
    int writePort() const { return opts_.writePort ? int(opts_.writePort) : opts_.port; }

    const Options& opts_;
    int fd_ = -1;
    ResponseParser parser_;
    Reply reply_;
    uint32_t lastWorker_ = 0;
    bool closeAfter_ = false;
};

// ---------------------------------------------------------------------------------------------
// The control channel between the parent and a watcher process (a socketpair): text lines,
// then the samples as raw structs.

struct Sample {
    uint64_t rv;
    int64_t arrivalNs;  // when the event's bytes arrived (kernel receive timestamp)
    int64_t readNs;     // when this client read them
    uint32_t watcher;   // global watcher index
    uint32_t worker;    // workerId() of the watcher's connection
};

class LineReader {
  public:
    explicit LineReader(int fd) : fd_(fd) {}

    // Blocks for the next line (without '\n'); false on EOF or error.
    bool line(std::string& out) {
        for (;;) {
            size_t nl = buf_.find('\n');
            if (nl != std::string::npos) {
                out = buf_.substr(0, nl);
                buf_.erase(0, nl + 1);
                return true;
            }
            if (!fill()) {
                return false;
            }
        }
    }

    bool exact(void* dst, size_t n) {
        while (buf_.size() < n) {
            if (!fill()) {
                return false;
            }
        }
        std::memcpy(dst, buf_.data(), n);
        buf_.erase(0, n);
        return true;
    }

  private:
    bool fill() {
        char tmp[65536];
        for (;;) {
            ssize_t n = ::read(fd_, tmp, sizeof tmp);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                return false;
            }
            buf_.append(tmp, size_t(n));
            return true;
        }
    }

    int fd_;
    std::string buf_;
};

// "key=value key=value" into a map.
std::map<std::string, std::string> fields(std::string_view line) {
    std::map<std::string, std::string> out;
    while (!line.empty()) {
        size_t sp = line.find(' ');
        std::string_view word = line.substr(0, sp);
        size_t eq = word.find('=');
        if (eq != std::string_view::npos) {
            out.emplace(word.substr(0, eq), word.substr(eq + 1));
        }
        if (sp == std::string_view::npos) {
            break;
        }
        line.remove_prefix(sp + 1);
    }
    return out;
}

long field(const std::map<std::string, std::string>& f, const std::string& key) {
    auto it = f.find(key);
    return it == f.end() ? 0 : std::atol(it->second.c_str());
}

// "a:1,b:2" into counts, merged into `into`.
void mergeCounts(std::map<std::string, long>& into, const std::string& list) {
    std::string_view s = list;
    while (!s.empty()) {
        size_t comma = s.find(',');
        std::string_view item = s.substr(0, comma);
        size_t colon = item.rfind(':');
        if (colon != std::string_view::npos) {
            into[std::string(item.substr(0, colon))] +=
                std::atol(std::string(item.substr(colon + 1)).c_str());
        }
        if (comma == std::string_view::npos) {
            break;
        }
        s.remove_prefix(comma + 1);
    }
}

std::string joinCounts(const std::map<std::string, long>& counts) {
    std::string out;
    for (const auto& [k, v] : counts) {
        out += (out.empty() ? "" : ",") + k + ":" + std::to_string(v);
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// nginx's processes, from /proc: the master and its children (the workers).

// The nginx worker that holds the server side of each connection to `port`, by the client's
// end (see clientKey): what X-Kube-Worker would say, found through the socket inodes in the
// workers' fd tables and /proc/net/tcp. Values are workerId() of the pid.
using SocketOwners = std::unordered_map<uint64_t, uint32_t>;

SocketOwners socketOwners(long master, int port) {
    SocketOwners owners;
    for (const auto& [key, pid] : socketOwnerPids(master, port)) {
        owners[key] = workerId(std::to_string(pid));
    }
    return owners;
}

struct Memory {
    long pssKib = 0;
    long rssKib = 0;
    int processes = 0;
};

std::optional<Memory> nginxMemory(long master) {
    std::vector<long> pids = nginxPids(master);
    Memory m;
    for (long pid : pids) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
        if (!in) {
            if (pid == master) {
                return std::nullopt;
            }
            continue;
        }
        ++m.processes;
        std::string key;
        long kib = 0;
        std::string unit;
        std::string line;
        while (std::getline(in, line)) {
            char name[64];
            if (std::sscanf(line.c_str(), "%63[^:]: %ld", name, &kib) != 2) {
                continue;
            }
            if (std::strcmp(name, "Pss") == 0) {
                m.pssKib += kib;
            } else if (std::strcmp(name, "Rss") == 0) {
                m.rssKib += kib;
            }
        }
    }
    return m;
}

// ---------------------------------------------------------------------------------------------
// A watcher process: `count` watchers (global indices first .. first+count-1) on one epoll loop.

class WatcherPool : private ResponseHandler {
  public:
    struct Config {
        const Options* opts;
        uint32_t first;
        uint32_t count;
        long inFlight;
        std::vector<in_addr> sources;  // empty: the kernel's choice (127.0.0.1)
        std::string request;           // the watch GET, the same bytes for every watcher
        int control;
    };

    explicit WatcherPool(Config cfg) : cfg_(std::move(cfg)), watchers_(cfg_.count) {}

    int run() {
        epfd_ = epoll_create1(EPOLL_CLOEXEC);
        if (epfd_ < 0) {
            std::perror("watch_load: epoll_create1");
            return 1;
        }
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = kControl;
        epoll_ctl(epfd_, EPOLL_CTL_ADD, cfg_.control, &ev);
        openDeadline_ = nowNs() + int64_t(cfg_.opts->openTimeoutS) * 1000000000;
        std::vector<epoll_event> events(1024);
        while (!quit_) {
            if (opening_) {
                while (inFlight_ < cfg_.inFlight && next_ < cfg_.count) {
                    startConnect(next_++);
                }
                if (inFlight_ == 0 && next_ == cfg_.count) {
                    reportReady();
                } else if (nowNs() >= openDeadline_) {
                    abandonOpening();
                    reportReady();
                }
            }
            checkTarget();
            int n = epoll_wait(epfd_, events.data(), int(events.size()), waitMs());
            if (n < 0 && errno != EINTR) {
                std::perror("watch_load: epoll_wait");
                return 1;
            }
            for (int i = 0; i < n; ++i) {
                if (events[size_t(i)].data.u64 == kControl) {
                    if (!readControl()) {
                        return 1;  // the parent is gone
                    }
                } else {
                    handle(uint32_t(events[size_t(i)].data.u64), events[size_t(i)].events);
                }
            }
        }
        return sendResults() ? 0 : 1;
    }

  private:
    enum class State : uint8_t { Idle, Connecting, Waiting, Streaming, Rejected, Done };

    struct Watcher {
        ResponseParser parser;
        uint64_t lastRv = 0;
        int fd = -1;
        uint32_t worker = 0;
        State state = State::Idle;
    };

    static constexpr uint64_t kControl = ~uint64_t(0);

    int waitMs() const {
        int64_t deadline = INT64_MAX;
        if (opening_) {
            deadline = std::min(deadline, openDeadline_);
        }
        if (target_ != 0) {
            deadline = std::min(deadline, targetDeadline_);
        }
        if (opening_ && inFlight_ < cfg_.inFlight && next_ < cfg_.count) {
            return 0;
        }
        if (deadline == INT64_MAX) {
            return -1;
        }
        int64_t left = (deadline - nowNs()) / 1000000 + 1;
        return int(std::clamp<int64_t>(left, 0, 60000));
    }

    void startConnect(uint32_t i) {
        Watcher& w = watchers_[i];
        const in_addr* src =
            cfg_.sources.empty() ? nullptr : &cfg_.sources[(cfg_.first + i) % cfg_.sources.size()];
        w.fd = openSocket(true, src);
        if (w.fd < 0) {
            fail(w, "socket/bind", errno);
            return;
        }
        sockaddr_in a = makeAddr(cfg_.opts->host, cfg_.opts->port);
        int rc = ::connect(w.fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        if (rc != 0 && errno != EINPROGRESS) {
            fail(w, "connect", errno);
            return;
        }
        epoll_event ev{};
        ev.events = EPOLLOUT;
        ev.data.u64 = i;
        if (epoll_ctl(epfd_, EPOLL_CTL_ADD, w.fd, &ev) != 0) {
            fail(w, "epoll_ctl", errno);
            return;
        }
        w.state = State::Connecting;
        ++inFlight_;
    }

    // A watcher that never got its headers.
    void fail(Watcher& w, const char* what, int err) {
        ++errors_[std::string(what) + "/" + errnoName(err)];
        ++failed_;
        closeWatcher(w, State::Done);
    }

    void closeWatcher(Watcher& w, State to) {
        if (w.state == State::Connecting || w.state == State::Waiting) {
            --inFlight_;
        }
        if (w.state == State::Streaming) {
            --live_;
            if (target_ != 0 && w.lastRv >= target_) {
                --reached_;
            }
        }
        if (w.fd >= 0) {
            ::close(w.fd);  // also leaves the epoll set
            w.fd = -1;
        }
        w.state = to;
        w.parser.reset(false);  // releases its buffer
    }

    void handle(uint32_t i, uint32_t events) {
        Watcher& w = watchers_[i];
        if (w.state == State::Connecting) {
            int err = 0;
            socklen_t len = sizeof err;
            getsockopt(w.fd, SOL_SOCKET, SO_ERROR, &err, &len);
            if (err != 0 || (events & (EPOLLERR | EPOLLHUP))) {
                fail(w, "connect", err != 0 ? err : ECONNRESET);
                return;
            }
            if (!writeAll(w.fd, cfg_.request)) {  // ~200 bytes: fits an empty socket buffer
                fail(w, "write", errno);
                return;
            }
            epoll_event ev{};
            ev.events = EPOLLIN | EPOLLRDHUP;
            ev.data.u64 = i;
            epoll_ctl(epfd_, EPOLL_CTL_MOD, w.fd, &ev);
            w.state = State::Waiting;
            w.parser.reset(true);
            return;
        }
        if (w.fd < 0) {
            return;  // closed earlier in this batch of events
        }
        TimedRead t = timedRead(w.fd, buf_, sizeof buf_);
        ssize_t n = t.n;
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            return;
        }
        arrivalNs_ = t.arrivalNs;
        readNs_ = t.readNs;
        current_ = i;
        if (n <= 0) {
            lostConnection(w, n < 0 ? errno : 0);
            return;
        }
        auto r = w.parser.feed(std::string_view(buf_, size_t(n)), *this);
        if (w.state == State::Done) {
            return;  // the handler closed it
        }
        if (r == ResponseParser::Result::Error) {
            ++errors_["malformed-http"];
            lostConnection(w, EPROTO);
        } else if (r == ResponseParser::Result::Complete) {
            if (w.state == State::Streaming) {
                ++ended_;  // the server ended the watch with the last chunk
                closeWatcher(w, State::Done);
            } else {
                closeWatcher(w, State::Done);  // a rejected watch, body read
            }
        }
    }

    void lostConnection(Watcher& w, int err) {
        if (w.state == State::Waiting) {
            fail(w, w.parser.headDone() ? "read" : "no-headers", err != 0 ? err : ECONNRESET);
            return;
        }
        if (w.state == State::Streaming) {
            ++closed_;
            if (err != 0) {
                ++errors_["stream/" + errnoName(err)];
            }
        }
        closeWatcher(w, State::Done);
    }

    void abandonOpening() {
        for (auto& w : watchers_) {
            if (w.state == State::Connecting || w.state == State::Waiting) {
                ++timedOut_;
                closeWatcher(w, State::Done);
            }
        }
        next_ = cfg_.count;
        for (auto& w : watchers_) {
            if (w.state == State::Idle) {
                ++timedOut_;
                w.state = State::Done;
            }
        }
    }

    // ResponseHandler, for watchers_[current_]
    void onHead(const ResponseHead& head) override {
        Watcher& w = watchers_[current_];
        --inFlight_;
        w.worker = head.worker;
        if (head.status == 200) {
            w.state = State::Streaming;
            ++live_;
            ++ok_;
            return;
        }
        w.state = State::Rejected;
        ++rejected_;
        ++statuses_[std::to_string(head.status)];
    }

    void onEvent(std::string_view line) override {
        Watcher& w = watchers_[current_];
        auto e = parseEvent(line);
        if (!e) {
            ++badEvents_;
            note("unparsable event: " + std::string(line.substr(0, 300)));
            return;
        }
        ++types_[std::string(e->type)];
        if (e->type == "ERROR") {
            note("ERROR event: " + std::string(line.substr(0, 300)));
            return;
        }
        if (e->type == "BOOKMARK" || e->rv == 0) {
            return;
        }
        samples_.push_back(Sample{e->rv, arrivalNs_, readNs_, cfg_.first + current_, w.worker});
        if (target_ != 0 && w.lastRv < target_ && e->rv >= target_) {
            ++reached_;
        }
        w.lastRv = std::max(w.lastRv, e->rv);
    }

    void onBody(std::string_view body) override {
        note("non-200 watch answer: " + std::string(body.substr(0, 300)));
    }

    // The first few distinct diagnostics go back to the parent.
    void note(std::string text) {
        for (char& c : text) {
            if (c == '\n' || c == '\r') {
                c = ' ';
            }
        }
        if (notes_.size() < 5) {
            notes_.push_back(std::move(text));
        }
    }

    void sendNotes() {
        std::string out;
        for (const auto& n : notes_) {
            out += "note " + n + "\n";
        }
        notes_.clear();
        writeAll(cfg_.control, out);
    }

    // Watchers without X-Kube-Worker: the worker found in /proc.
    void findWorkers() {
        if (cfg_.opts->nginxPid == 0) {
            return;
        }
        SocketOwners owners;
        for (auto& w : watchers_) {
            if (w.state != State::Streaming || w.worker != 0) {
                continue;
            }
            if (owners.empty()) {
                owners = socketOwners(cfg_.opts->nginxPid, cfg_.opts->port);
            }
            if (auto key = localKey(w.fd)) {
                auto it = owners.find(*key);
                w.worker = it == owners.end() ? 0 : it->second;
            }
        }
    }

    void reportReady() {
        opening_ = false;
        findWorkers();
        std::map<std::string, long> workers;
        for (const auto& w : watchers_) {
            if (w.state == State::Streaming) {
                ++workers[workerName(w.worker)];
            }
        }
        sendNotes();
        std::string line =
            "ready ok=" + std::to_string(ok_) + " failed=" + std::to_string(failed_) +
            " rejected=" + std::to_string(rejected_) + " timedout=" + std::to_string(timedOut_) +
            " closed=" + std::to_string(closed_) + " errors=" + joinCounts(errors_) +
            " statuses=" + joinCounts(statuses_) + " workers=" + joinCounts(workers) + "\n";
        writeAll(cfg_.control, line);
    }

    // Replies to "wait <rv>" once every live watcher has seen it, or at the deadline.
    void checkTarget() {
        if (target_ == 0) {
            return;
        }
        if (reached_ < live_ && nowNs() < targetDeadline_) {
            return;
        }
        sendNotes();
        writeAll(cfg_.control, "got " + std::to_string(target_) +
                                   " missing=" + std::to_string(live_ - reached_) + "\n");
        target_ = 0;
        reached_ = 0;
    }

    bool readControl() {
        char tmp[4096];
        ssize_t n = ::read(cfg_.control, tmp, sizeof tmp);
        if (n <= 0) {
            return n < 0 && errno == EINTR;
        }
        control_.append(tmp, size_t(n));
        size_t nl;
        while ((nl = control_.find('\n')) != std::string::npos) {
            std::string line = control_.substr(0, nl);
            control_.erase(0, nl + 1);
            if (line.rfind("wait ", 0) == 0) {
                target_ = parseUint(std::string_view(line).substr(5)).value_or(1);
                targetDeadline_ = nowNs() + int64_t(cfg_.opts->eventTimeoutMs) * 1000000;
                reached_ = 0;
                for (const auto& w : watchers_) {
                    if (w.state == State::Streaming && w.lastRv >= target_) {
                        ++reached_;
                    }
                }
            } else if (line == "done") {
                quit_ = true;
            }
        }
        return true;
    }

    bool sendResults() {
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        sendNotes();
        std::string line = "result samples=" + std::to_string(samples_.size()) +
                           " live=" + std::to_string(live_) + " closed=" + std::to_string(closed_) +
                           " ended=" + std::to_string(ended_) +
                           " bad_events=" + std::to_string(badEvents_) +
                           " maxrss_kib=" + std::to_string(ru.ru_maxrss) +
                           " errors=" + joinCounts(errors_) + " types=" + joinCounts(types_) + "\n";
        if (!writeAll(cfg_.control, line)) {
            return false;
        }
        auto bytes = reinterpret_cast<const char*>(samples_.data());
        return writeAll(cfg_.control, std::string_view(bytes, samples_.size() * sizeof(Sample)));
    }

    Config cfg_;
    std::vector<Watcher> watchers_;
    std::vector<Sample> samples_;
    std::map<std::string, long> errors_, statuses_, types_;
    std::vector<std::string> notes_;
    std::string control_;
    int epfd_ = -1;
    uint32_t next_ = 0;
    uint32_t current_ = 0;
    long inFlight_ = 0;
    long ok_ = 0, failed_ = 0, rejected_ = 0, timedOut_ = 0, closed_ = 0, ended_ = 0;
    long live_ = 0, reached_ = 0, badEvents_ = 0;
    uint64_t target_ = 0;
    int64_t targetDeadline_ = 0;
    int64_t openDeadline_ = 0;
    int64_t arrivalNs_ = 0;
    int64_t readNs_ = 0;
    bool opening_ = true;
    bool quit_ = false;
    char buf_[65536];
};

// ---------------------------------------------------------------------------------------------
// Statistics

struct Summary {
    size_t n = 0;
    double p50 = 0, p99 = 0, max = 0;
};

// Nearest-rank percentiles of `ns`, scaled by `unit` nanoseconds.
Summary summarize(std::vector<int64_t> ns, double unit) {
    Summary s;
    s.n = ns.size();
    if (ns.empty()) {
        return s;
    }
    std::sort(ns.begin(), ns.end());
    auto at = [&](double p) {
        size_t rank = size_t(std::ceil(p / 100.0 * double(ns.size())));
        return double(ns[std::max<size_t>(rank, 1) - 1]) / unit;
    };
    s.p50 = at(50);
    s.p99 = at(99);
    s.max = double(ns.back()) / unit;
    return s;
}

std::string describe(const Summary& s, const char* unitName, int decimals) {
    if (s.n == 0) {
        return "no samples";
    }
    return "p50 " + fmt(s.p50, decimals) + " " + unitName + ", p99 " + fmt(s.p99, decimals) + " " +
           unitName + ", max " + fmt(s.max, decimals) + " " + unitName + " (" +
           std::to_string(s.n) + " samples)";
}

// ---------------------------------------------------------------------------------------------
// The run

struct WriteRecord {
    uint64_t rv = 0;
    int64_t sentNs = 0;
    int64_t ackNs = 0;
    uint32_t writer = 0;  // workerId() of the writer's connection
};

struct Child {
    pid_t pid = -1;
    int control = -1;
    uint32_t first = 0;
    uint32_t count = 0;
    std::unique_ptr<LineReader> reader;
};

std::string configMap(const Options& o, long seq) {
    std::string pad(size_t(o.payloadBytes), 'x');
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + o.name +
           R"(","namespace":")" + o.ns + R"(","labels":{"app":"watch-load"}},)" +
           R"("data":{"seq":")" + std::to_string(seq) + R"(","payload":")" + pad + R"("}})";
}

class Run {
  public:
    explicit Run(Options o) : o_(std::move(o)) {}

    int main() {
        if (!setupLimits() || !setupSources()) {
            return 2;
        }
        std::string err;
        uint64_t rv0 = prepare(err);
        if (rv0 == 0) {
            std::fprintf(stderr, "watch_load: setup failed: %s\n", err.c_str());
            return 1;
        }
        std::printf(
            "watch_load: %s, %ld watchers on %s:%d namespace %s from resourceVersion %lu,"
            " %ld process(es), %zu source address(es)\n",
            o_.mode == Mode::Latency ? "latency" : "fanout", o_.watchers, o_.host.c_str(), o_.port,
            o_.ns.c_str(), (unsigned long)rv0, o_.procs, std::max<size_t>(sources_.size(), 1));
        std::fflush(stdout);

        if (o_.mode == Mode::Fanout && !warmUp(rv0, err)) {
            std::fprintf(stderr, "watch_load: warm-up watchers failed: %s\n", err.c_str());
            return 1;
        }
        std::optional<Memory> before;
        if (o_.mode == Mode::Fanout && o_.nginxPid != 0) {
            before = nginxMemory(o_.nginxPid);
            if (!before) {
                std::fprintf(stderr, "watch_load: no /proc/%ld/smaps_rollup\n", o_.nginxPid);
                return 2;
            }
        }
        int64_t openStart = nowNs();
        if (!forkChildren(rv0)) {
            return 1;
        }
        bool ok = collectReady();
        double openS = double(nowNs() - openStart) / 1e9;
        std::printf(
            "opened %ld of %ld watchers in %.2f s (%ld failed to connect, %ld non-200,"
            " %ld without headers in %ld s)\n",
            opened_, o_.watchers, openS, failed_, rejected_, timedOut_, o_.openTimeoutS);
        printCounts("  connection errors", readyErrors_);
        printCounts("  non-200 statuses", statuses_);
        printCounts("  watchers per worker (X-Kube-Worker, else the socket's owner in /proc)",
                    workers_);
        std::optional<Memory> after;
        if (before) {
            sleepUntil(nowNs() + int64_t(o_.settleMs) * 1000000);
            after = nginxMemory(o_.nginxPid);
        }
        if (ok && opened_ > 0) {
            ok = openWriters(err) && writeLoop(err);
            if (!ok) {
                std::fprintf(stderr, "watch_load: writes failed: %s\n", err.c_str());
            }
        }
        bool collected = collectResults();
        std::optional<Memory> afterWrites;
        if (before) {
            afterWrites = nginxMemory(o_.nginxPid);
        }
        reapChildren();
        for (int fd : warm_) {
            ::close(fd);
        }
        if (!collected) {
            std::fprintf(stderr, "watch_load: a watcher process failed\n");
            return 1;
        }
        report(before, after, afterWrites, openS);
        return opened_ > 0 && ok ? 0 : 1;
    }

  private:
    bool setupLimits() {
        rlimit rl{};
        getrlimit(RLIMIT_NOFILE, &rl);
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            std::perror("watch_load: setrlimit(RLIMIT_NOFILE)");
        }
        getrlimit(RLIMIT_NOFILE, &rl);
        // stdio, epoll, the control socket and some slack
        long perProcess = long(std::min<rlim_t>(rl.rlim_cur, 1 << 30)) - 64;
        if (perProcess < 1) {
            std::fprintf(stderr, "watch_load: RLIMIT_NOFILE %lu is too small\n",
                         (unsigned long)rl.rlim_cur);
            return false;
        }
        long needed = (o_.watchers + perProcess - 1) / perProcess;
        if (o_.procs == 0) {
            o_.procs = needed;
            if (needed > 1) {
                std::printf(
                    "watch_load: %ld watchers exceed RLIMIT_NOFILE (hard limit %lu) of"
                    " one process: using %ld watcher processes\n",
                    o_.watchers, (unsigned long)rl.rlim_max, needed);
            }
        } else if (o_.procs < needed) {
            std::fprintf(stderr,
                         "watch_load: %ld watchers in %ld process(es) exceed"
                         " RLIMIT_NOFILE (hard limit %lu): use --procs %ld or more\n",
                         o_.watchers, o_.procs, (unsigned long)rl.rlim_max, needed);
            return false;
        }
        o_.procs = std::min(o_.procs, o_.watchers);
        if (o_.procs > 256) {
            std::fprintf(stderr, "watch_load: %ld processes is too many\n", o_.procs);
            return false;
        }
        return true;
    }

    // One (source, destination) pair has ip_local_port_range ports. connect() searches that
    // range for a free port, and the search slows down as the range fills up (30,000 watchers
    // opened in 6.8 s over 2 addresses, 2.4 s over 8): a quarter of the range per address.
    bool setupSources() {
        long lo = 32768, hi = 60999;
        if (FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
            if (std::fscanf(f, "%ld %ld", &lo, &hi) != 2) {
                lo = 32768;
                hi = 60999;
            }
            std::fclose(f);
        }
        long perSource = std::max(1L, (hi - lo + 1) / 4);
        long sources = o_.sources;
        if (sources == 0) {
            sources = (o_.watchers + perSource - 1) / perSource;
            if (sources <= 1) {
                return true;  // 127.0.0.1, the kernel's choice
            }
        } else if (sources * perSource < o_.watchers) {
            std::printf(
                "watch_load: warning: %ld source address(es) x %ld ports (range %ld-%ld)"
                " < %ld watchers\n",
                sources, perSource, lo, hi, o_.watchers);
        }
        if (sources > 250) {
            std::fprintf(stderr, "watch_load: %ld source addresses is too many\n", sources);
            return false;
        }
        for (long k = 0; k < sources; ++k) {
            in_addr a{};
            a.s_addr = htonl(0x7f000002u + uint32_t(k));  // 127.0.0.2, 127.0.0.3, ...
            sources_.push_back(a);
        }
        return true;
    }

    std::string collectionPath() const { return "/api/v1/namespaces/" + o_.ns + "/configmaps"; }

    // Creates the namespace and the ConfigMap when missing, then one PUT: its resourceVersion is
    // where the watches start. 0 on failure.
    uint64_t prepare(std::string& err) {
        HttpClient c(o_);
        Reply r;
        std::string ns =
            R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + o_.ns + R"("}})";
        if (!c.roundTrip("POST", "/api/v1/namespaces", ns, r, err)) {
            return 0;
        }
        if (r.status != 201 && r.status != 409) {
            err = "POST namespace answered " + std::to_string(r.status) + ": " + r.body;
            return 0;
        }
        if (!c.roundTrip("POST", collectionPath(), configMap(o_, 0), r, err)) {
            return 0;
        }
        if (r.status != 201 && r.status != 409) {
            err = "POST configmap answered " + std::to_string(r.status) + ": " + r.body;
            return 0;
        }
        seq_ = 1;
        if (!put(c, r, err)) {
            return 0;
        }
        return objectRv(r.body);
    }

    bool put(HttpClient& c, Reply& r, std::string& err) {
        std::string body = configMap(o_, seq_++);
        if (!c.roundTrip("PUT", collectionPath() + "/" + o_.name, body, r, err)) {
            return false;
        }
        if (r.status != 200 || objectRv(r.body) == 0) {
            err = "PUT answered " + std::to_string(r.status) + ": " + r.body.substr(0, 400);
            return false;
        }
        return true;
    }

    std::string watchRequest(uint64_t rv0) const {
        return "GET " + collectionPath() + "?watch=true&resourceVersion=" + std::to_string(rv0) +
               " HTTP/1.1\r\nHost: " + o_.host + ":" + std::to_string(o_.port) +
               "\r\nAccept: application/json\r\nUser-Agent: watch_load\r\n\r\n";
    }

    // Watchers held (never read) by the parent from before the memory baseline to the end.
    bool warmUp(uint64_t rv0, std::string& err) {
        struct HeadOnly : ResponseHandler {
            ResponseHead head;
            void onHead(const ResponseHead& h) override { head = h; }
            void onEvent(std::string_view) override {}
            void onBody(std::string_view) override {}
        };
        std::string request = watchRequest(rv0);
        std::map<std::string, long> workers;
        sockaddr_in a = makeAddr(o_.host, o_.port);
        for (long k = 0; k < o_.warmup; ++k) {
            int fd = openSocket(false, nullptr);
            if (fd < 0) {
                err = "socket: " + errnoName(errno);
                return false;
            }
            warm_.push_back(fd);
            timeval tv{10, 0};
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
                !writeAll(fd, request)) {
                err = "connect/write: " + errnoName(errno);
                return false;
            }
            ResponseParser p;
            p.reset(true);
            HeadOnly h;
            char buf[4096];
            while (!p.headDone()) {
                ssize_t n = ::read(fd, buf, sizeof buf);
                if (n <= 0) {
                    err = n == 0 ? "closed before headers" : "read: " + errnoName(errno);
                    return false;
                }
                if (p.feed(std::string_view(buf, size_t(n)), h) == ResponseParser::Result::Error) {
                    err = "malformed answer";
                    return false;
                }
            }
            if (h.head.status != 200) {
                err = "watch answered " + std::to_string(h.head.status);
                return false;
            }
            ++workers[workerName(h.head.worker != 0 ? h.head.worker : procWorker(fd))];
        }
        if (o_.warmup > 0) {
            std::printf("warm-up: %ld watchers held through the run (per worker %s)\n", o_.warmup,
                        joinCounts(workers).c_str());
        }
        return true;
    }

    bool forkChildren(uint64_t rv0) {
        std::string request = watchRequest(rv0);
        std::fflush(stdout);
        std::fflush(stderr);
        uint32_t first = 0;
        for (long k = 0; k < o_.procs; ++k) {
            uint32_t count = uint32_t(o_.watchers / o_.procs + (k < o_.watchers % o_.procs));
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
                std::perror("watch_load: socketpair");
                return false;
            }
            pid_t pid = fork();
            if (pid < 0) {
                std::perror("watch_load: fork");
                return false;
            }
            if (pid == 0) {
                ::close(sv[0]);
                for (auto& c : children_) {
                    ::close(c.control);
                }
                for (int fd : warm_) {
                    ::close(fd);
                }
                long inFlight = std::max(1L, o_.inFlight / o_.procs);
                WatcherPool pool({&o_, first, count, inFlight, sources_, request, sv[1]});
                std::_Exit(pool.run());
            }
            ::close(sv[1]);
            Child c;
            c.pid = pid;
            c.control = sv[0];
            c.first = first;
            c.count = count;
            c.reader = std::make_unique<LineReader>(sv[0]);
            children_.push_back(std::move(c));
            first += count;
        }
        return true;
    }

    // Reads lines from a child until one starting with `tag`; prints the notes before it.
    bool expect(Child& c, const std::string& tag, std::string& line) {
        while (c.reader->line(line)) {
            if (line.rfind("note ", 0) == 0) {
                if (notesShown_++ < 10) {
                    std::printf("  watcher process %d: %s\n", int(c.pid), line.c_str() + 5);
                }
                continue;
            }
            if (line.rfind(tag + " ", 0) == 0) {
                return true;
            }
        }
        return false;
    }

    bool collectReady() {
        std::string line;
        for (auto& c : children_) {
            if (!expect(c, "ready", line)) {
                return false;
            }
            auto f = fields(line);
            opened_ += field(f, "ok");
            failed_ += field(f, "failed");
            rejected_ += field(f, "rejected");
            timedOut_ += field(f, "timedout");
            mergeCounts(readyErrors_, f["errors"]);
            mergeCounts(statuses_, f["statuses"]);
            mergeCounts(workers_, f["workers"]);
        }
        return true;
    }

    // Writer connections; when workers are known, one per distinct worker up to --writers.
    bool openWriters(std::string& err) {
        long wanted = o_.mode == Mode::Latency ? o_.writers : 1;
        std::vector<uint32_t> seen;
        for (int attempt = 0; long(writers_.size()) < wanted; ++attempt) {
            auto c = std::make_unique<HttpClient>(o_);
            Reply r;
            if (!c->roundTrip("GET", collectionPath() + "/" + o_.name, "", r, err)) {
                return false;
            }
            if (r.status != 200) {
                err = "GET answered " + std::to_string(r.status);
                return false;
            }
            uint32_t w = c->worker() != 0 ? c->worker() : procWorker(c->fd());
            bool again = w != 0 && std::find(seen.begin(), seen.end(), w) != seen.end();
            if (again && attempt < 16) {
                continue;  // the same worker as an earlier writer: try another connection
            }
            seen.push_back(w);
            writers_.push_back(std::move(c));
        }
        writerWorkers_ = seen;
        std::string names;
        for (auto w : seen) {
            names += (names.empty() ? "" : ", ") + workerName(w);
        }
        std::printf("%zu writer connection(s), on worker(s) %s\n", writers_.size(), names.c_str());
        return true;
    }

    // The worker holding the server side of our connection `fd`, from /proc; 0 when unknown.
    uint32_t procWorker(int fd) const {
        auto key = localKey(fd);
        if (o_.nginxPid == 0 || !key) {
            return 0;
        }
        SocketOwners owners = socketOwners(o_.nginxPid, o_.port);
        auto it = owners.find(*key);
        return it == owners.end() ? 0 : it->second;
    }

    bool writeLoop(std::string& err) {
        int64_t next = nowNs();
        for (long i = 0; i < o_.writes; ++i) {
            sleepUntil(next);
            next = nowNs() + int64_t(o_.intervalMs) * 1000000;
            HttpClient& c = *writers_[size_t(i) % writers_.size()];
            WriteRecord w;
            w.sentNs = nowNs();
            Reply r;
            if (!put(c, r, err)) {
                return false;
            }
            w.ackNs = r.arrivalNs;
            w.rv = objectRv(r.body);
            w.writer = r.worker != 0 ? r.worker : writerWorkers_[size_t(i) % writers_.size()];
            writes_.push_back(w);
            std::string cmd = "wait " + std::to_string(w.rv) + "\n";
            for (auto& ch : children_) {
                writeAll(ch.control, cmd);
            }
            long missing = 0;
            std::string line;
            for (auto& ch : children_) {
                if (!expect(ch, "got", line)) {
                    err = "watcher process " + std::to_string(ch.pid) + " is gone";
                    return false;
                }
                missing += field(fields(line), "missing");
            }
            if (missing > 0) {
                ++writesIncomplete_;
                if (writesIncomplete_ <= 5) {
                    std::printf(
                        "  write %ld (rv %lu): %ld watcher(s) had not seen it after"
                        " %ld ms\n",
                        i, (unsigned long)w.rv, missing, o_.eventTimeoutMs);
                }
            }
        }
        return true;
    }

    bool collectResults() {
        bool ok = true;
        std::string line;
        for (auto& c : children_) {
            writeAll(c.control, "done\n");
        }
        for (auto& c : children_) {
            if (!expect(c, "result", line)) {
                ok = false;
                continue;
            }
            auto f = fields(line);
            size_t n = size_t(field(f, "samples"));
            live_ += field(f, "live");
            closedStreams_ += field(f, "closed");
            ended_ += field(f, "ended");
            badEvents_ += field(f, "bad_events");
            clientRssKib_ += field(f, "maxrss_kib");
            mergeCounts(streamErrors_, f["errors"]);
            mergeCounts(types_, f["types"]);
            size_t old = samples_.size();
            samples_.resize(old + n);
            if (!c.reader->exact(samples_.data() + old, n * sizeof(Sample))) {
                ok = false;
            }
        }
        return ok;
    }

    void reapChildren() {
        for (auto& c : children_) {
            ::close(c.control);
            int status = 0;
            waitpid(c.pid, &status, 0);
        }
    }

    void printCounts(const char* title, const std::map<std::string, long>& counts) {
        if (!counts.empty()) {
            std::printf("%s: %s\n", title, joinCounts(counts).c_str());
        }
    }

    // Delays of every (watcher, write) pair, in nanoseconds.
    struct Delays {
        std::vector<int64_t> fromAck;      // event arrival - ack arrival
        std::vector<int64_t> fromSend;     // event arrival - write sent
        std::vector<int64_t> readFromAck;  // event read by this client - ack arrival
        std::vector<int64_t> same, cross;  // fromAck, watcher on the writer's worker or not
        bool workersKnown = true;
        std::vector<int64_t> lastPerWrite;  // the last watcher's fromAck, per write
        std::vector<long> gotPerWrite;
        std::map<uint32_t, std::vector<int64_t>> perWatcher;  // only for a few watchers
        std::map<uint32_t, uint32_t> watcherWorker;
        std::map<uint32_t, std::vector<int64_t>> perWorker;
        long unmatched = 0;
    };

    Delays delays() const {
        std::unordered_map<uint64_t, size_t> byRv;
        for (size_t i = 0; i < writes_.size(); ++i) {
            byRv.emplace(writes_[i].rv, i);
        }
        Delays d;
        d.lastPerWrite.assign(writes_.size(), INT64_MIN);
        d.gotPerWrite.assign(writes_.size(), 0);
        for (const auto& s : samples_) {
            auto it = byRv.find(s.rv);
            if (it == byRv.end()) {
                ++d.unmatched;
                continue;
            }
            const WriteRecord& w = writes_[it->second];
            int64_t fromAck = s.arrivalNs - w.ackNs;
            d.fromAck.push_back(fromAck);
            d.fromSend.push_back(s.arrivalNs - w.sentNs);
            d.readFromAck.push_back(s.readNs - w.ackNs);
            d.lastPerWrite[it->second] = std::max(d.lastPerWrite[it->second], fromAck);
            ++d.gotPerWrite[it->second];
            d.perWorker[s.worker].push_back(fromAck);
            if (s.worker == 0 || w.writer == 0) {
                d.workersKnown = false;
            } else {
                (s.worker == w.writer ? d.same : d.cross).push_back(fromAck);
            }
            if (o_.watchers <= o_.perWatcherLines) {
                d.perWatcher[s.watcher].push_back(fromAck);
                d.watcherWorker[s.watcher] = s.worker;
            }
        }
        return d;
    }

    void report(const std::optional<Memory>& before, const std::optional<Memory>& after,
                const std::optional<Memory>& afterWrites, double openS) {
        Delays d = delays();
        long expected = long(writes_.size()) * opened_;
        long missing = std::max(0L, expected - long(d.fromAck.size()));
        std::printf(
            "events: %s; %ld of %ld (watcher, write) pairs delivered, %ld missing,"
            " %ld other events\n",
            joinCounts(types_).c_str(), long(d.fromAck.size()), expected, missing, d.unmatched);
        std::printf(
            "streams: %ld still open at the end, %ld closed by the server, %ld ended"
            " with the last chunk, %ld unparsable events\n",
            live_, closedStreams_, ended_, badEvents_);
        printCounts("  stream errors", streamErrors_);
        std::printf(
            "client: %ld KiB max RSS over %zu watcher process(es); times are kernel"
            " receive timestamps of the client's sockets\n",
            clientRssKib_, children_.size());
        std::string problems = " failed=" + std::to_string(failed_ + timedOut_) +
                               " non200=" + std::to_string(rejected_) +
                               " closed=" + std::to_string(closedStreams_ + ended_) +
                               " missing=" + std::to_string(missing);
        if (o_.mode == Mode::Latency) {
            reportLatency(d, problems);
        } else {
            reportFanout(d, before, after, afterWrites, openS, problems);
        }
    }

    void reportLatency(const Delays& d, const std::string& problems) {
        for (const auto& [watcher, ds] : d.perWatcher) {
            std::printf("  watcher %2u (worker %s): ack -> event %s\n", watcher,
                        workerName(d.watcherWorker.at(watcher)).c_str(),
                        describe(summarize(ds, 1e3), "us", 0).c_str());
        }
        Summary a = summarize(d.fromAck, 1e3);
        Summary s = summarize(d.fromSend, 1e3);
        Summary r = summarize(d.readFromAck, 1e3);
        std::printf("write ack -> event:  %s\n", describe(a, "us", 0).c_str());
        std::printf("write sent -> event: %s\n", describe(s, "us", 0).c_str());
        std::printf("write ack -> event read by watch_load: %s\n", describe(r, "us", 0).c_str());
        std::string crossField = "na", sameField = "na";
        if (d.workersKnown && !d.fromAck.empty()) {
            Summary sc = summarize(d.cross, 1e3);
            Summary ss = summarize(d.same, 1e3);
            std::printf("cross-worker ack -> event: %s\n", describe(sc, "us", 0).c_str());
            std::printf("same-worker  ack -> event: %s\n", describe(ss, "us", 0).c_str());
            if (sc.n > 0) {
                crossField = fmt(sc.p99, 0);
            }
            if (ss.n > 0) {
                sameField = fmt(ss.p99, 0);
            }
        } else {
            std::printf(
                "cross-worker: workers unknown (no X-Kube-Worker header, no --nginx-pid); the"
                " per-watcher lines above mix both workers\n");
        }
        std::printf(
            "RESULT latency watchers=%ld opened=%ld iterations=%zu ack_p50_us=%s"
            " ack_p99_us=%s ack_max_us=%s sent_p50_us=%s sent_p99_us=%s sent_max_us=%s"
            " read_p99_us=%s cross_p99_us=%s same_p99_us=%s%s\n",
            o_.watchers, opened_, writes_.size(), fmt(a.p50, 0).c_str(), fmt(a.p99, 0).c_str(),
            fmt(a.max, 0).c_str(), fmt(s.p50, 0).c_str(), fmt(s.p99, 0).c_str(),
            fmt(s.max, 0).c_str(), fmt(r.p99, 0).c_str(), crossField.c_str(), sameField.c_str(),
            problems.c_str());
    }

    void reportFanout(const Delays& d, const std::optional<Memory>& before,
                      const std::optional<Memory>& after, const std::optional<Memory>& afterWrites,
                      double openS, const std::string& problems) {
        std::string mem = " pss_per_watcher_kib=na rss_per_watcher_kib=na";
        if (before && after) {
            double n = double(std::max(1L, opened_));
            double pss = double(after->pssKib - before->pssKib) / n;
            double rss = double(after->rssKib - before->rssKib) / n;
            std::printf(
                "nginx (%d processes) PSS %ld -> %ld KiB, RSS %ld -> %ld KiB with %ld idle"
                " watchers: %.2f KiB PSS, %.2f KiB RSS per watcher\n",
                after->processes, before->pssKib, after->pssKib, before->rssKib, after->rssKib,
                opened_, pss, rss);
            if (afterWrites) {
                std::printf("nginx after the writes: PSS %ld KiB, RSS %ld KiB\n",
                            afterWrites->pssKib, afterWrites->rssKib);
            }
            mem = " pss_before_kib=" + std::to_string(before->pssKib) +
                  " pss_after_kib=" + std::to_string(after->pssKib) +
                  " pss_per_watcher_kib=" + fmt(pss, 2) + " rss_per_watcher_kib=" + fmt(rss, 2);
        }
        std::vector<int64_t> lasts;
        for (size_t i = 0; i < writes_.size(); ++i) {
            if (d.lastPerWrite[i] == INT64_MIN) {
                std::printf("  write %2zu rv %lu: no watcher got it\n", i,
                            (unsigned long)writes_[i].rv);
                continue;
            }
            lasts.push_back(d.lastPerWrite[i]);
            if (i < 100) {
                std::printf("  write %2zu rv %lu: %ld watchers, the last %.2f ms after the ack\n",
                            i, (unsigned long)writes_[i].rv, d.gotPerWrite[i],
                            double(d.lastPerWrite[i]) / 1e6);
            }
        }
        if (d.perWorker.size() > 1) {
            for (const auto& [worker, ds] : d.perWorker) {
                std::printf("  watchers on worker %s: %s\n", workerName(worker).c_str(),
                            describe(summarize(ds, 1e6), "ms", 2).c_str());
            }
        }
        Summary a = summarize(d.fromAck, 1e6);
        Summary l = summarize(lasts, 1e6);
        Summary r = summarize(d.readFromAck, 1e6);
        std::printf("write ack -> event, over all (watcher, write) pairs: %s\n",
                    describe(a, "ms", 2).c_str());
        std::printf("write ack -> last watcher: %s\n", describe(l, "ms", 2).c_str());
        std::printf(
            "write ack -> event read by watch_load (adds this client's turn at each"
            " socket): %s\n",
            describe(r, "ms", 2).c_str());
        std::printf(
            "RESULT fanout watchers=%ld opened=%ld writes=%zu open_s=%.2f%s p50_ms=%s"
            " p99_ms=%s max_ms=%s last_p50_ms=%s last_max_ms=%s read_p99_ms=%s%s\n",
            o_.watchers, opened_, writes_.size(), openS, mem.c_str(), fmt(a.p50, 2).c_str(),
            fmt(a.p99, 2).c_str(), fmt(a.max, 2).c_str(), fmt(l.p50, 2).c_str(),
            fmt(l.max, 2).c_str(), fmt(r.p99, 2).c_str(), problems.c_str());
    }

    Options o_;
    std::vector<in_addr> sources_;
    std::vector<int> warm_;
    std::vector<Child> children_;
    std::vector<std::unique_ptr<HttpClient>> writers_;
    std::vector<uint32_t> writerWorkers_;
    std::vector<WriteRecord> writes_;
    std::vector<Sample> samples_;
    std::map<std::string, long> readyErrors_, statuses_, workers_, streamErrors_, types_;
    long seq_ = 0;
    long opened_ = 0, failed_ = 0, rejected_ = 0, timedOut_ = 0;
    long live_ = 0, closedStreams_ = 0, ended_ = 0, badEvents_ = 0, clientRssKib_ = 0;
    long writesIncomplete_ = 0;
    int notesShown_ = 0;
};

}  // namespace
}  // namespace kube::bench

int main(int argc, char** argv) {
    auto opts = kube::bench::parseOptions(argc, argv);
    if (!opts) {
        kube::bench::usage(stderr);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, nullptr, _IOLBF, 0);
    return kube::bench::Run(std::move(*opts)).main();
}
