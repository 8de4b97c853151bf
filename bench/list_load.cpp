// list_load: the large-LIST client of bench/run (issue 5).
//
//   list_load seed  --port P --namespace NS --objects N --size-kib K   create N ConfigMaps
//   list_load warm  --port P --namespace NS --objects N --nginx-pid M  one LIST per worker
//   list_load lists --port P --namespace NS --objects N --nginx-pid M --lists L [--gzip]
//
// seed: creates namespace NS and ConfigMaps NS-0000 .. over --concurrency keep-alive
// connections, each object about K KiB of JSON (one data value of config-like text lines, so
// that gzip has something realistic to do).
//
// warm: a worker fills its watch cache on its first list, so a LIST is sent over new connections
// until every worker of nginx (found from --nginx-pid through /proc) has served one; without
// --nginx-pid, one LIST. Each must return all N items.
//
// lists: small GETs (--get-path) run back to back (or paced, --get-interval-us) over
// --get-conns keep-alive connections, one per worker when the workers are known, for
// --baseline-ms alone; then L LISTs of NS start at once, each on its own connection (spread
// evenly over the workers), each reading and checking the whole body (decompressing it when it
// comes gzip-encoded). Reported: per LIST the time to the first byte of the response
// and of its body and the total time; the RSS and PSS of all nginx processes just before, the
// peak of their sum while the LISTs run (sampled every --sample-ms) and --after-s seconds after
// they end, and the sum of the processes' own peaks (VmHWM, reset just before); the GET latency
// alone and while the LISTs run, pooled and per connection, raw and corrected for the GETs a
// stall held back (see withOmitted).
//
// Times are CLOCK_MONOTONIC; an answer's arrival is the kernel's receive timestamp of its last
// bytes read (SO_TIMESTAMPNS), so the figures do not include this client's own scheduling
// delays on a busy host. Output: human-readable lines and one "RESULT <mode> key=value ..."
// line; the exit status is 0 when every request got its expected answer.

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "load_common.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <latch>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace kube::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Time and text

void sleepMs(long ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// With its sign always: a growth.
std::string fmtSigned(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.*f", decimals, v == 0 ? 0.0 : v);
    return buf;
}

double ms(int64_t ns) {
    return double(ns) / 1e6;
}

double mib(long kib) {
    return double(kib) / 1024.0;
}

// Nearest-rank percentiles of a set of durations.
struct Summary {
    size_t n = 0;
    int64_t p50 = 0, p99 = 0, max = 0;
};

Summary summarize(std::vector<int64_t> v) {
    Summary s;
    s.n = v.size();
    if (v.empty()) {
        return s;
    }
    std::sort(v.begin(), v.end());
    auto rank = [&](double q) {
        size_t i = size_t(q * double(v.size()) + 0.999999);
        return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
    };
    s.p50 = rank(0.50);
    s.p99 = rank(0.99);
    s.max = v.back();
    return s;
}

// The latencies a client due to send a GET every intervalNs would have seen: a GET that took
// L also held back the ones due meanwhile, by L - interval, L - 2 interval, ... (HdrHistogram's
// correction for coordinated omission). Without it, a GET stuck behind a whole LIST is one
// sample among the hundreds answered at once before or after.
std::vector<int64_t> withOmitted(const std::vector<int64_t>& latencies, int64_t intervalNs) {
    std::vector<int64_t> out = latencies;
    for (int64_t l : latencies) {
        for (int64_t held = l - intervalNs; held >= intervalNs; held -= intervalNs) {
            out.push_back(held);
        }
    }
    return out;
}

std::string describe(const Summary& s) {
    if (s.n == 0) {
        return "none";
    }
    return "n=" + std::to_string(s.n) + " p50 " + fmt(ms(s.p50), 2) + " ms, p99 " +
           fmt(ms(s.p99), 2) + " ms, max " + fmt(ms(s.max), 2) + " ms";
}

// ---------------------------------------------------------------------------------------------
// Options

enum class Mode { Seed, Warm, Lists };

struct Options {
    Mode mode = Mode::Lists;
    int port = 0;
    std::string ns = "big";
    long objects = 1000;
    long sizeKib = 100;
    long concurrency = 16;
    long nginxPid = 0;
    long lists = 1;
    bool gzip = false;
    std::string getPath = "/api/v1/namespaces/bench/configmaps/one";
    std::string listPath;  // empty: the namespace's ConfigMaps
    int getPort = 0;       // 0: the LISTs' port
    long getConns = 2;
    long getIntervalUs = 0;
    long listNice = 0;
    long baselineMs = 1000;
    long sampleMs = 20;
    long afterS = 5;
    long timeoutS = 60;
};

void usage(FILE* out) {
    std::fputs(
        "usage: list_load seed  --port PORT [--namespace NS] [--objects N] [--size-kib K]\n"
        "                       [--concurrency C]\n"
        "       list_load warm  --port PORT [--namespace NS] [--objects N] [--nginx-pid PID]\n"
        "       list_load lists --port PORT [--namespace NS] [--objects N] [--nginx-pid PID]\n"
        "                       [--lists L] [--gzip] [--list-path PATH] [--get-path PATH]\n"
        "                       [--get-port PORT] [--get-conns K]\n"
        "                       [--baseline-ms MS] [--sample-ms MS] [--after-s S]\n"
        "\n"
        "  --port PORT         plain HTTP/1.1 port of the server on 127.0.0.1 (required)\n"
        "  --namespace NS      the namespace of the large list (big)\n"
        "  --objects N         ConfigMaps created (seed) and expected in every LIST (1000)\n"
        "  --size-kib K        seed: JSON size of each ConfigMap (100)\n"
        "  --concurrency C     seed: connections creating at once (16)\n"
        "  --nginx-pid PID     nginx's master: memory of it and its workers, and which worker\n"
        "                      holds each connection (from /proc)\n"
        "  --lists L           concurrent LISTs (1)\n"
        "  --gzip              LISTs send Accept-Encoding: gzip\n"
        "  --get-path PATH     the small GET (/api/v1/namespaces/bench/configmaps/one)\n"
        "  --list-path PATH    lists: what each LIST asks for instead of the namespace's\n"
        "                      ConfigMaps (the same bytes as a static file: the floor)\n"
        "  --get-port PORT     lists: the small GETs go to this port (another server on the\n"
        "                      same host: the floor), not to the LISTs' (the same)\n"
        "  --get-conns K       keep-alive connections running GETs (2)\n"
        "  --get-interval-us U a GET starts U microseconds after the previous one started (or\n"
        "                      at once when that one took longer); 0: back to back (0)\n"
        "  --list-nice N       the threads reading the LISTs run at nice N, so that on a small\n"
        "                      host nginx and the GETs come first (0)\n"
        "  --baseline-ms MS    GETs alone before the LISTs (1000)\n"
        "  --sample-ms MS      memory sampling period while the LISTs run (20)\n"
        "  --after-s S         memory measured S seconds after the LISTs end (5)\n"
        "  --timeout-s S       a read that waits longer than S seconds fails the request (60)\n",
        out);
}

std::optional<Options> parseOptions(int argc, char** argv) {
    if (argc < 2) {
        return std::nullopt;
    }
    Options o;
    std::string_view mode = argv[1];
    if (mode == "seed") {
        o.mode = Mode::Seed;
    } else if (mode == "warm") {
        o.mode = Mode::Warm;
    } else if (mode == "lists") {
        o.mode = Mode::Lists;
    } else {
        return std::nullopt;
    }
    long port = 0;
    long getPort = 0;
    struct Numeric {
        std::string_view flag;
        long* value;
        long min;
        long max;
    };
    const Numeric numeric[] = {
        {"--port", &port, 1, 65535},
        {"--get-port", &getPort, 1, 65535},
        {"--objects", &o.objects, 1, 1000000},
        {"--size-kib", &o.sizeKib, 1, 1024},
        {"--concurrency", &o.concurrency, 1, 256},
        {"--nginx-pid", &o.nginxPid, 1, 1L << 30},
        {"--lists", &o.lists, 1, 1000},
        {"--get-conns", &o.getConns, 0, 64},
        {"--get-interval-us", &o.getIntervalUs, 0, 10000000},
        {"--list-nice", &o.listNice, 0, 19},
        {"--baseline-ms", &o.baselineMs, 0, 600000},
        {"--sample-ms", &o.sampleMs, 1, 10000},
        {"--after-s", &o.afterS, 0, 3600},
        {"--timeout-s", &o.timeoutS, 1, 3600},
    };
    for (int i = 2; i < argc; ++i) {
        std::string_view flag = argv[i];
        if (flag == "-h" || flag == "--help") {
            return std::nullopt;
        }
        if (flag == "--gzip") {
            o.gzip = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "list_load: %s needs a value\n", argv[i]);
            return std::nullopt;
        }
        std::string_view value = argv[++i];
        if (flag == "--namespace") {
            o.ns = value;
            continue;
        }
        if (flag == "--get-path") {
            o.getPath = value;
            continue;
        }
        if (flag == "--list-path") {
            o.listPath = value;
            continue;
        }
        const Numeric* n = nullptr;
        for (const auto& candidate : numeric) {
            if (candidate.flag == flag) {
                n = &candidate;
            }
        }
        if (n == nullptr) {
            std::fprintf(stderr, "list_load: unknown option %s\n", argv[i - 1]);
            return std::nullopt;
        }
        auto v = parseUint(value);
        if (!v || long(*v) < n->min || long(*v) > n->max) {
            std::fprintf(stderr, "list_load: %s wants a number from %ld to %ld, not \"%s\"\n",
                         argv[i - 1], n->min, n->max, argv[i]);
            return std::nullopt;
        }
        *n->value = long(*v);
    }
    if (port == 0) {
        std::fprintf(stderr, "list_load: --port is required\n");
        return std::nullopt;
    }
    o.port = int(port);
    o.getPort = int(getPort ? getPort : port);
    return o;
}

// ---------------------------------------------------------------------------------------------
// Sockets

// A blocking connection to 127.0.0.1:port; reads give up after timeoutS. Closed with a reset,
// so runs leave no TIME_WAIT behind. -1 with errno set.
int connectTo(int port, long timeoutS) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    tuneSocket(fd);
    timeSends(fd);
    timeval tv{time_t(timeoutS), 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        int err = errno;
        ::close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

// ---------------------------------------------------------------------------------------------
// HTTP/1.1 responses, fed in whatever pieces the socket returns; the body (de-chunked) goes to
// a sink.

struct Head {
    int status = 0;
    bool chunked = false;
    int64_t contentLength = -1;
    std::string contentEncoding;
};

class ResponseParser {
  public:
    enum class Result : uint8_t { More, Complete, Error };
    using Sink = std::function<void(std::string_view)>;

    const Head& head() const { return head_; }
    const std::string& error() const { return error_; }

    Result feed(std::string_view data, const Sink& sink) {
        size_t i = 0;
        while (i < data.size()) {
            char c = data[i];
            switch (phase_) {
                case Phase::Head: {
                    size_t old = headBuf_.size();
                    headBuf_.append(data.substr(i));
                    size_t end = headBuf_.find("\r\n\r\n", old >= 3 ? old - 3 : 0);
                    if (end == std::string::npos) {
                        return headBuf_.size() > 65536 ? fail("head over 64 KiB") : Result::More;
                    }
                    i += end + 4 - old;
                    if (!parseHead(std::string_view(headBuf_).substr(0, end))) {
                        return fail("malformed head");
                    }
                    std::string().swap(headBuf_);
                    if (head_.status >= 100 && head_.status < 200) {
                        head_ = Head();
                        continue;  // an interim answer: the real head follows
                    }
                    if (head_.status == 204 || head_.status == 304 ||
                        (!head_.chunked && head_.contentLength == 0)) {
                        phase_ = Phase::Done;
                        return Result::Complete;
                    }
                    if (head_.chunked) {
                        phase_ = Phase::Size;
                        remaining_ = 0;
                    } else if (head_.contentLength > 0) {
                        phase_ = Phase::Identity;
                        remaining_ = uint64_t(head_.contentLength);
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
                            return fail("chunk size overflow");
                        }
                        remaining_ = remaining_ * 16 + uint64_t(digit);
                    } else if (c == ';' || c == ' ' || c == '\t') {
                        phase_ = Phase::SizeExt;
                    } else if (c == '\n') {
                        sizeDone();
                    } else if (c != '\r') {
                        return fail("bad chunk size");
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
                    sink(data.substr(i, n));
                    i += n;
                    remaining_ -= n;
                    if (remaining_ == 0) {
                        if (phase_ == Phase::Identity) {
                            phase_ = Phase::Done;
                            return Result::Complete;
                        }
                        phase_ = Phase::DataEnd;
                    }
                    continue;
                }
                case Phase::DataEnd:
                    ++i;
                    if (c == '\n') {
                        phase_ = Phase::Size;
                        remaining_ = 0;
                    } else if (c != '\r') {
                        return fail("no CRLF after a chunk");
                    }
                    continue;
                case Phase::Trailer:
                    ++i;
                    if (c == '\n') {
                        if (trailerLineEmpty_) {
                            phase_ = Phase::Done;
                            return Result::Complete;
                        }
                        trailerLineEmpty_ = true;
                    } else if (c != '\r') {
                        trailerLineEmpty_ = false;
                    }
                    continue;
                case Phase::UntilClose:
                    sink(data.substr(i));
                    return Result::More;
                case Phase::Done:
                    return fail("bytes after the end of the answer");
                case Phase::Failed:
                    return Result::Error;
            }
        }
        return Result::More;
    }

    // The peer closed the connection.
    Result eof() {
        if (phase_ == Phase::UntilClose) {
            phase_ = Phase::Done;
            return Result::Complete;
        }
        return fail(phase_ == Phase::Head ? "closed before the head" : "closed mid-body");
    }

  private:
    enum class Phase : uint8_t {
        Head,
        Size,
        SizeExt,
        Data,
        DataEnd,
        Trailer,
        Identity,
        UntilClose,
        Done,
        Failed
    };

    void sizeDone() {
        if (remaining_ == 0) {
            phase_ = Phase::Trailer;
            trailerLineEmpty_ = true;
        } else {
            phase_ = Phase::Data;
        }
    }

    bool parseHead(std::string_view text) {
        size_t eol = text.find("\r\n");
        std::string_view status = text.substr(0, eol);
        if (status.size() < 12 || status.substr(0, 5) != "HTTP/") {
            return false;
        }
        auto code = parseUint(status.substr(9, 3));
        if (!code) {
            return false;
        }
        head_.status = int(*code);
        return forEachHeader(text, [&](std::string_view name, std::string_view value) {
            if (iequals(name, "content-length")) {
                auto n = parseUint(value);
                if (!n) {
                    return false;
                }
                head_.contentLength = int64_t(*n);
            } else if (iequals(name, "transfer-encoding")) {
                head_.chunked = iequals(value, "chunked");
            } else if (iequals(name, "content-encoding")) {
                head_.contentEncoding = value;
            }
            return true;
        });
    }

    Result fail(const char* why) {
        phase_ = Phase::Failed;
        error_ = why;
        return Result::Error;
    }

    Head head_;
    std::string headBuf_;
    std::string error_;
    uint64_t remaining_ = 0;
    Phase phase_ = Phase::Head;
    bool trailerLineEmpty_ = true;
};

// Occurrences of a needle in a stream of pieces, wherever the piece boundaries fall.
class Counter {
  public:
    explicit Counter(std::string needle) : needle_(std::move(needle)) {}

    void feed(std::string_view piece) {
        if (!tail_.empty()) {
            std::string joint = tail_;
            joint.append(piece.substr(0, std::min(piece.size(), needle_.size() - 1)));
            for (size_t at = joint.find(needle_); at != std::string::npos && at < tail_.size();
                 at = joint.find(needle_, at + 1)) {
                ++count_;
            }
        }
        for (size_t at = piece.find(needle_); at != std::string_view::npos;
             at = piece.find(needle_, at + needle_.size())) {
            ++count_;
        }
        size_t keep = needle_.size() - 1;
        if (piece.size() >= keep) {
            tail_.assign(piece.substr(piece.size() - keep));
        } else {
            tail_.append(piece);
            if (tail_.size() > keep) {
                tail_.erase(0, tail_.size() - keep);
            }
        }
    }

    uint64_t count() const { return count_; }

  private:
    std::string needle_;
    std::string tail_;
    uint64_t count_ = 0;
};

// The body of an answer as the client sees it: decoded when it is gzip-encoded, counted, its
// items (metadata.name of the seeded objects) counted and its end kept for a sanity check.
class BodyReader {
  public:
    explicit BodyReader(const std::string& ns) : items_("\"name\":\"" + ns + "-") {}

    ~BodyReader() {
        if (inflating_) {
            inflateEnd(&z_);
        }
    }

    BodyReader(const BodyReader&) = delete;
    BodyReader& operator=(const BodyReader&) = delete;

    bool start(const Head& head) {
        if (head.contentEncoding.empty() || iequals(head.contentEncoding, "identity")) {
            return true;
        }
        if (!iequals(head.contentEncoding, "gzip")) {
            error_ = "unknown Content-Encoding " + head.contentEncoding;
            return false;
        }
        z_ = z_stream{};
        if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
            error_ = "inflateInit2 failed";
            return false;
        }
        inflating_ = true;
        out_.resize(256 * 1024);
        return true;
    }

    void feed(std::string_view wire) {
        wireBytes_ += wire.size();
        if (!inflating_) {
            decoded(wire);
            return;
        }
        if (!error_.empty()) {
            return;
        }
        z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(wire.data()));
        z_.avail_in = uInt(wire.size());
        while (z_.avail_in > 0 && !streamEnd_) {
            z_.next_out = reinterpret_cast<Bytef*>(out_.data());
            z_.avail_out = uInt(out_.size());
            int rc = inflate(&z_, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END) {
                error_ = std::string("inflate: ") + (z_.msg ? z_.msg : std::to_string(rc));
                return;
            }
            decoded(std::string_view(out_.data(), out_.size() - z_.avail_out));
            streamEnd_ = rc == Z_STREAM_END;
        }
    }

    // Empty when the body was whole: the gzip stream ended, the JSON closed the items.
    std::string finish() {
        if (!error_.empty()) {
            return error_;
        }
        if (inflating_ && !streamEnd_) {
            return "gzip stream cut short";
        }
        std::string_view end = trim(std::string_view(last_));
        while (!end.empty() && (end.back() == '\n' || end.back() == ' ')) {
            end.remove_suffix(1);
        }
        if (end.empty() || end.back() != '}') {
            return "the body does not end with '}'";
        }
        return "";
    }

    uint64_t wireBytes() const { return wireBytes_; }
    uint64_t bodyBytes() const { return bodyBytes_; }
    uint64_t items() const { return items_.count(); }
    bool encoded() const { return inflating_; }

  private:
    void decoded(std::string_view piece) {
        bodyBytes_ += piece.size();
        items_.feed(piece);
        last_.append(piece.substr(piece.size() > 64 ? piece.size() - 64 : 0));
        if (last_.size() > 64) {
            last_.erase(0, last_.size() - 64);
        }
    }

    Counter items_;
    z_stream z_{};
    bool inflating_ = false;
    bool streamEnd_ = false;
    std::vector<char> out_;
    std::string last_;
    std::string error_;
    uint64_t wireBytes_ = 0;
    uint64_t bodyBytes_ = 0;
};

// One request on a blocking connection, read to the end of its answer.
struct Exchange {
    int status = 0;
    std::string error;     // empty when the answer arrived whole
    std::string body;      // kept only when asked
    std::string encoding;  // Content-Encoding
    bool chunked = false;
    int64_t sentNs = 0;       // when the request left (the kernel's send timestamp)
    int64_t firstByteNs = 0;  // arrival of the first bytes of the answer
    int64_t firstBodyNs = 0;  // arrival of the first body bytes (0: none)
    int64_t endNs = 0;        // arrival of the last bytes
    uint64_t wireBytes = 0;   // body bytes as sent (after de-chunking)
    uint64_t bodyBytes = 0;   // body bytes after decoding
    uint64_t items = 0;
    bool encoded = false;
};

Exchange exchange(int fd, std::string_view request, const std::string& ns, bool keepBody,
                  std::vector<char>& buf) {
    Exchange x;
    ResponseParser parser;
    BodyReader body(ns);
    bool started = false;
    ResponseParser::Sink sink = [&](std::string_view piece) {
        if (!started) {
            started = true;
            if (!body.start(parser.head())) {
                return;
            }
        }
        if (keepBody) {
            x.body.append(piece);
        }
        body.feed(piece);
    };
    x.sentNs = nowNs();
    if (!writeAll(fd, request)) {
        x.error = "write: " + errnoName(errno);
        return x;
    }
    x.sentNs = sentAt(fd, x.sentNs);
    ResponseParser::Result rc = ResponseParser::Result::More;
    while (rc == ResponseParser::Result::More) {
        // the first read takes one byte, so that its timestamp is the first byte's
        TimedRead r = timedRead(fd, buf.data(), x.firstByteNs == 0 ? 1 : buf.size());
        if (r.n < 0) {
            x.error = (errno == EAGAIN || errno == EWOULDBLOCK) ? "no byte for the read timeout"
                                                                : "read: " + errnoName(errno);
            break;
        }
        if (x.firstByteNs == 0 && r.n > 0) {
            x.firstByteNs = r.arrivalNs;
        }
        if (r.n == 0) {
            rc = parser.eof();
        } else {
            uint64_t before = body.wireBytes();
            rc = parser.feed(std::string_view(buf.data(), size_t(r.n)), sink);
            if (x.firstBodyNs == 0 && body.wireBytes() > before) {
                x.firstBodyNs = r.arrivalNs;
            }
        }
        x.endNs = r.arrivalNs;
        if (rc == ResponseParser::Result::Error) {
            x.error = parser.error();
        }
    }
    x.status = parser.head().status;
    x.encoding = parser.head().contentEncoding;
    x.chunked = parser.head().chunked;
    x.wireBytes = body.wireBytes();
    x.bodyBytes = body.bodyBytes();
    x.items = body.items();
    x.encoded = body.encoded();
    if (x.error.empty() && x.bodyBytes > 0 && !keepBody) {
        x.error = body.finish();
    }
    return x;
}

std::string listRequest(const Options& o) {
    std::string path =
        o.listPath.empty() ? "/api/v1/namespaces/" + o.ns + "/configmaps" : o.listPath;
    std::string r =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n";
    if (o.gzip) {
        r += "Accept-Encoding: gzip\r\n";
    }
    r += "User-Agent: list_load\r\n\r\n";
    return r;
}

// ---------------------------------------------------------------------------------------------
// nginx's processes and their memory, from /proc

// The worker of each connection (0: unknown); waits a little for the workers to accept.
std::vector<long> ownersOf(const std::vector<int>& fds, long master, int port) {
    std::vector<long> out(fds.size(), 0);
    if (master == 0) {
        return out;
    }
    for (int attempt = 0; attempt < 50; ++attempt) {
        auto owners = socketOwnerPids(master, port);
        bool all = true;
        for (size_t i = 0; i < fds.size(); ++i) {
            auto key = localKey(fds[i]);
            auto it = key ? owners.find(*key) : owners.end();
            if (it != owners.end()) {
                out[i] = it->second;
            } else {
                all = false;
            }
        }
        if (all) {
            break;
        }
        sleepMs(10);
    }
    return out;
}

struct Memory {
    long rssKib = 0;
    long pssKib = 0;
};

// The first 4 KiB of a /proc file; empty when the process is gone.
std::string readProc(long pid, const char* file) {
    std::string path = "/proc/" + std::to_string(pid) + "/" + file;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return "";
    }
    char buf[4096];
    ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    return n > 0 ? std::string(buf, size_t(n)) : "";
}

// RSS from statm (cheap: a counter) and, when asked, PSS from smaps_rollup (which walks every
// page table of the process: a few milliseconds for a few hundred MiB); nullopt when the
// process is gone.
std::optional<Memory> processMemory(long pid, bool withPss) {
    static const long pageKib = sysconf(_SC_PAGESIZE) / 1024;
    std::string statm = readProc(pid, "statm");
    long size = 0, resident = 0;
    if (std::sscanf(statm.c_str(), "%ld %ld", &size, &resident) != 2) {
        return std::nullopt;
    }
    Memory m;
    m.rssKib = resident * pageKib;
    if (!withPss) {
        return m;
    }
    std::string rollup = readProc(pid, "smaps_rollup");
    for (size_t at = 0; at < rollup.size();) {
        size_t eol = rollup.find('\n', at);
        std::string line = rollup.substr(at, eol == std::string::npos ? eol : eol - at);
        long kib = 0;
        if (std::sscanf(line.c_str(), "Pss: %ld", &kib) == 1) {
            m.pssKib = kib;
        }
        at = eol == std::string::npos ? rollup.size() : eol + 1;
    }
    return m;
}

Memory totalMemory(const std::vector<long>& pids, bool withPss,
                   std::map<long, Memory>* each = nullptr) {
    Memory sum;
    for (long pid : pids) {
        if (auto m = processMemory(pid, withPss)) {
            sum.rssKib += m->rssKib;
            sum.pssKib += m->pssKib;
            if (each != nullptr) {
                (*each)[pid] = *m;
            }
        }
    }
    return sum;
}

// VmHWM (the process's peak RSS) in KiB; -1 when unknown.
long peakRss(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
        long kib = 0;
        if (std::sscanf(line.c_str(), "VmHWM: %ld", &kib) == 1) {
            return kib;
        }
    }
    return -1;
}

// Sets VmHWM back to the current RSS (clear_refs "5"); false when the kernel refuses.
bool resetPeakRss(long pid) {
    std::ofstream out("/proc/" + std::to_string(pid) + "/clear_refs");
    out << "5\n";
    out.flush();
    return bool(out);
}

// Samples the sum of the processes' memory until stopped and keeps the peaks: RSS every
// period, PSS (costlier) every 100 ms at most.
class Sampler {
  public:
    Sampler(std::vector<long> pids, long periodMs) : pids_(std::move(pids)), periodMs_(periodMs) {
        thread_ = std::thread([this] { run(); });
    }

    ~Sampler() { stop(); }

    void stop() {
        stop_ = true;
        if (thread_.joinable()) {
            thread_.join();
        }
    }

    Memory peak() const { return peak_; }
    long samples() const { return samples_; }
    double meanCostMs() const { return samples_ ? ms(costNs_) / double(samples_) : 0; }

  private:
    void run() {
        int64_t next = nowNs();
        long pssEvery = std::max(1L, 100 / periodMs_);
        while (!stop_) {
            int64_t t0 = nowNs();
            bool withPss = samples_ % pssEvery == 0;
            Memory m = totalMemory(pids_, withPss);
            costNs_ += nowNs() - t0;
            ++samples_;
            peak_.rssKib = std::max(peak_.rssKib, m.rssKib);
            if (withPss) {
                peak_.pssKib = std::max(peak_.pssKib, m.pssKib);
            }
            next += periodMs_ * 1000000;
            int64_t left = next - nowNs();
            if (left > 0) {
                std::this_thread::sleep_for(std::chrono::nanoseconds(left));
            } else {
                next = nowNs();
            }
        }
    }

    std::vector<long> pids_;
    long periodMs_;
    std::atomic<bool> stop_{false};
    Memory peak_;
    long samples_ = 0;
    int64_t costNs_ = 0;
    std::thread thread_;
};

// ---------------------------------------------------------------------------------------------
// seed

// A ConfigMap of about `bytes` of JSON: one data value of config-like lines with varying values
// (gzip shrinks it about as much as real configuration text).
std::string configMap(const std::string& name, size_t bytes) {
    std::string head = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" +
                       name + "\",\"labels\":{\"app\":\"list-bench\"}},\"data\":{\"config\":\"";
    std::string tail = "\"}}";
    // room for what the server adds: uid, resourceVersion, creationTimestamp, namespace
    size_t overhead = head.size() + tail.size() + 200;
    size_t target = bytes > overhead ? bytes - overhead : 0;
    std::string value;
    value.reserve(target + 64);
    uint32_t x = 2463534242u ^ uint32_t(std::hash<std::string>()(name));
    for (int line = 0; value.size() < target; ++line) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        char buf[64];
        std::snprintf(buf, sizeof buf, "service.%s.key%05d = value-%08x\\n", name.c_str(), line,
                      x % (line % 7 == 0 ? 0xffffffffu : 1000u));
        value += buf;
    }
    value.resize(target);
    while (!value.empty() && value.back() == '\\') {
        value.pop_back();  // never leave half of an escape at the cut
    }
    return head + value + tail;
}

std::string post(const std::string& path, const std::string& body) {
    return "POST " + path +
           " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Accept: application/json\r\nUser-Agent: list_load\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string objectName(const Options& o, long i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%04ld", i);
    return o.ns + buf;
}

int seed(const Options& o) {
    std::vector<char> buf(64 * 1024);
    int fd = connectTo(o.port, o.timeoutS);
    if (fd < 0) {
        std::fprintf(stderr, "list_load: connect: %s\n", errnoName(errno).c_str());
        return 1;
    }
    Exchange ns = exchange(fd,
                           post("/api/v1/namespaces",
                                "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":"
                                "{\"name\":\"" +
                                    o.ns + "\"}}"),
                           o.ns, true, buf);
    ::close(fd);
    if (!ns.error.empty() || (ns.status != 201 && ns.status != 409)) {
        std::fprintf(stderr, "list_load: creating namespace %s: %d %s %s\n", o.ns.c_str(),
                     ns.status, ns.error.c_str(), ns.body.c_str());
        return 1;
    }
    std::string path = "/api/v1/namespaces/" + o.ns + "/configmaps";
    std::atomic<long> next{0};
    std::atomic<long> created{0};
    std::atomic<uint64_t> bytes{0};
    std::mutex mu;
    std::map<std::string, long> failures;
    std::string firstFailure;
    int64_t t0 = nowNs();
    std::vector<std::thread> threads;
    for (long t = 0; t < std::min(o.concurrency, o.objects); ++t) {
        threads.emplace_back([&] {
            std::vector<char> rbuf(64 * 1024);
            int c = -1;
            for (long i = next++; i < o.objects; i = next++) {
                std::string body = configMap(objectName(o, i), size_t(o.sizeKib) * 1024);
                bytes += body.size();
                if (c < 0) {
                    c = connectTo(o.port, o.timeoutS);
                }
                Exchange x = c < 0 ? Exchange{} : exchange(c, post(path, body), o.ns, true, rbuf);
                if (c < 0) {
                    x.error = "connect: " + errnoName(errno);
                }
                if (x.error.empty() && x.status == 201) {
                    ++created;
                    continue;
                }
                std::lock_guard<std::mutex> lock(mu);
                std::string key = x.error.empty() ? std::to_string(x.status) : x.error;
                if (failures[key]++ == 0 && firstFailure.empty()) {
                    firstFailure = objectName(o, i) + ": " + key + " " + x.body.substr(0, 300);
                }
                if (c >= 0) {
                    ::close(c);
                    c = -1;
                }
            }
            if (c >= 0) {
                ::close(c);
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    double s = double(nowNs() - t0) / 1e9;
    std::printf(
        "seed: %ld of %ld ConfigMaps of ~%ld KiB created in namespace %s in %.2f s"
        " (%.0f/s, %.1f MiB sent, %ld connections)\n",
        created.load(), o.objects, o.sizeKib, o.ns.c_str(), s, double(created) / s,
        double(bytes) / 1048576.0, std::min(o.concurrency, o.objects));
    for (const auto& [key, n] : failures) {
        std::printf("seed: %ld failed with %s\n", n, key.c_str());
    }
    if (!firstFailure.empty()) {
        std::printf("seed: first failure: %s\n", firstFailure.c_str());
    }
    std::printf("RESULT seed objects=%ld created=%ld seconds=%.2f\n", o.objects, created.load(), s);
    return created == o.objects ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------
// warm

std::string listProblem(const Exchange& x, const Options& o) {
    if (!x.error.empty()) {
        return x.error + " after " + std::to_string(x.wireBytes) + " body bytes";
    }
    if (x.status != 200) {
        return "status " + std::to_string(x.status);
    }
    if (x.items != uint64_t(o.objects)) {
        return std::to_string(x.items) + " items, not " + std::to_string(o.objects);
    }
    return "";
}

int warm(const Options& o) {
    std::vector<long> workers = o.nginxPid ? workerPids(o.nginxPid) : std::vector<long>{};
    std::set<long> warmed;
    std::vector<char> buf(256 * 1024);
    std::string request = listRequest(o);
    int failures = 0;
    int lists = 0;
    std::vector<long> pids = o.nginxPid ? nginxPids(o.nginxPid) : std::vector<long>{};
    Memory before = totalMemory(pids, true);
    for (int attempt = 0; attempt < 64; ++attempt) {
        int fd = connectTo(o.port, o.timeoutS);
        if (fd < 0) {
            std::fprintf(stderr, "list_load: connect: %s\n", errnoName(errno).c_str());
            return 1;
        }
        long worker = ownersOf({fd}, o.nginxPid, o.port)[0];
        if (worker != 0 && warmed.count(worker) != 0) {
            ::close(fd);
            continue;
        }
        Exchange x = exchange(fd, request, o.ns, false, buf);
        ::close(fd);
        ++lists;
        std::string problem = listProblem(x, o);
        std::printf(
            "warm: LIST on worker %ld: %s, %.1f MiB, %lu items, first byte %.2f ms,"
            " total %.0f ms%s%s\n",
            worker, x.status ? std::to_string(x.status).c_str() : "no answer",
            double(x.bodyBytes) / 1048576.0, (unsigned long)x.items,
            x.firstByteNs ? ms(x.firstByteNs - x.sentNs) : -1.0, ms(x.endNs - x.sentNs),
            problem.empty() ? "" : ": FAILED: ", problem.c_str());
        if (!problem.empty()) {
            ++failures;
        }
        warmed.insert(worker);
        if (worker == 0 || warmed.size() >= workers.size()) {
            break;
        }
    }
    std::string mem = " rss_growth_mib=na pss_growth_mib=na";
    if (!pids.empty()) {
        Memory after = totalMemory(pids, true);
        std::printf(
            "warm: nginx (%zu processes) RSS %.1f -> %.1f MiB, PSS %.1f -> %.1f MiB (the"
            " watch caches filled)\n",
            pids.size(), mib(before.rssKib), mib(after.rssKib), mib(before.pssKib),
            mib(after.pssKib));
        mem = " rss_growth_mib=" + fmtSigned(mib(after.rssKib - before.rssKib), 1) +
              " pss_growth_mib=" + fmtSigned(mib(after.pssKib - before.pssKib), 1);
    }
    std::printf("RESULT warm lists=%d workers=%zu warmed=%zu failed=%d%s\n", lists, workers.size(),
                warmed.size(), failures, mem.c_str());
    return failures == 0 ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------
// lists

struct GetStats {
    std::vector<std::pair<int64_t, int64_t>> samples;  // (sent, latency) in ns
    std::map<std::string, long> errors;
    long worker = 0;
    long closes = 0;  // keep-alive connections the server closed between two requests
};

void getLoop(const Options& o, int fd, std::atomic<bool>& stop, GetStats& st) {
    std::string request = "GET " + o.getPath +
                          " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                          "User-Agent: list_load\r\n\r\n";
    std::vector<char> buf(64 * 1024);
    st.samples.reserve(1 << 20);
    long served = 0;  // answers on this connection
    while (!stop) {
        if (fd < 0) {
            fd = connectTo(o.getPort, o.timeoutS);
            if (fd < 0) {
                ++st.errors["connect: " + errnoName(errno)];
                sleepMs(10);
                continue;
            }
        }
        Exchange x = exchange(fd, request, "", false, buf);
        if (x.error.empty() && x.status == 200) {
            st.samples.emplace_back(x.sentNs, x.endNs - x.sentNs);
            ++served;
            int64_t wait = x.sentNs + o.getIntervalUs * 1000 - nowNs();
            if (wait > 0) {
                std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
            }
            continue;
        }
        ::close(fd);
        fd = -1;
        bool closed = x.error == "closed before the head" || x.error == "read: ECONNRESET" ||
                      x.error == "write: EPIPE" || x.error == "write: ECONNRESET";
        if (served > 0 && x.firstByteNs == 0 && closed) {
            // a keep-alive connection closed by the server before this request (nginx's
            // keepalive_requests): sent again on a new connection, not a failure
            ++st.closes;
            served = 0;
            continue;
        }
        ++st.errors[x.error.empty() ? "status " + std::to_string(x.status) : x.error];
        served = 0;
    }
    if (fd >= 0) {
        ::close(fd);
    }
}

// Up to `want` connections, spread evenly over the workers: the kernel picks a worker per
// connection (reuseport), connections to a worker that has its share are closed again.
std::vector<int> spreadConnections(const Options& o, int port, long want,
                                   std::vector<long>& owners) {
    std::vector<int> fds;
    std::vector<long> workers = o.nginxPid ? workerPids(o.nginxPid) : std::vector<long>{};
    size_t perWorker =
        workers.empty() ? size_t(want) : (size_t(want) + workers.size() - 1) / workers.size();
    std::map<long, size_t> held;
    long attempts = 16 + 8 * want;
    for (long attempt = 0; attempt < attempts && long(fds.size()) < want; ++attempt) {
        int fd = connectTo(port, o.timeoutS);
        if (fd < 0) {
            continue;
        }
        long worker = ownersOf({fd}, o.nginxPid, port)[0];
        if (worker != 0 && held[worker] >= perWorker && attempt < attempts - want) {
            ::close(fd);
            continue;
        }
        ++held[worker];
        fds.push_back(fd);
        owners.push_back(worker);
    }
    return fds;
}

int lists(const Options& o) {
    std::vector<long> pids = o.nginxPid ? nginxPids(o.nginxPid) : std::vector<long>{};
    std::sort(pids.begin(), pids.end());

    std::vector<long> getOwners;
    std::vector<int> getFds = spreadConnections(o, o.getPort, o.getConns, getOwners);
    std::vector<long> listOwners;
    std::vector<int> listFds = spreadConnections(o, o.port, o.lists, listOwners);
    if (long(listFds.size()) < o.lists) {
        std::fprintf(stderr, "list_load: connect: %s\n", errnoName(errno).c_str());
        return 1;
    }

    std::atomic<bool> stopGets{false};
    std::vector<GetStats> gets(getFds.size());
    std::vector<std::thread> getThreads;
    for (size_t i = 0; i < getFds.size(); ++i) {
        gets[i].worker = getOwners[i];
        getThreads.emplace_back([&, i] { getLoop(o, getFds[i], stopGets, gets[i]); });
    }
    sleepMs(o.baselineMs);

    std::map<long, Memory> beforeEach;
    Memory before = totalMemory(pids, true, &beforeEach);
    bool hwm = !pids.empty();
    for (long pid : pids) {
        hwm = resetPeakRss(pid) && hwm;
    }
    Sampler sampler(pids, o.sampleMs);

    std::string request = listRequest(o);
    std::vector<Exchange> results(size_t(o.lists));
    std::latch go(1);
    std::vector<std::thread> listThreads;
    for (long i = 0; i < o.lists; ++i) {
        listThreads.emplace_back([&, i] {
            std::vector<char> buf(256 * 1024);
            if (o.listNice > 0) {
                setpriority(PRIO_PROCESS, id_t(gettid()), int(o.listNice));
            }
            go.wait();
            results[size_t(i)] = exchange(listFds[size_t(i)], request, o.ns, false, buf);
            ::close(listFds[size_t(i)]);
        });
    }
    int64_t listStart = nowNs();
    go.count_down();
    for (auto& t : listThreads) {
        t.join();
    }
    int64_t listEnd = nowNs();
    stopGets = true;
    for (auto& t : getThreads) {
        t.join();
    }
    sampler.stop();
    long hwmKib = 0;
    for (long pid : pids) {
        long peak = peakRss(pid);
        hwm = hwm && peak >= 0;
        hwmKib += peak;
    }
    sleepMs(o.afterS * 1000);
    std::map<long, Memory> afterEach;
    Memory after = totalMemory(pids, true, &afterEach);

    // the LISTs
    std::vector<int64_t> ttfb, bodyTtfb, total;
    long ok = 0, encoded = 0;
    uint64_t bodyBytes = 0, wireBytes = 0;
    std::map<long, long> perWorker;
    for (size_t i = 0; i < results.size(); ++i) {
        const Exchange& x = results[i];
        std::string problem = listProblem(x, o);
        ok += problem.empty();
        encoded += x.encoded;
        bodyBytes = std::max(bodyBytes, x.bodyBytes);
        wireBytes = std::max(wireBytes, x.wireBytes);
        ++perWorker[listOwners[i]];
        if (x.firstByteNs) {
            ttfb.push_back(x.firstByteNs - x.sentNs);
        }
        if (x.firstBodyNs) {
            bodyTtfb.push_back(x.firstBodyNs - x.sentNs);
        }
        total.push_back(x.endNs - x.sentNs);
        std::printf(
            "LIST %2zu (worker %ld): %s, %s%.1f MiB%s, %lu items, first byte %.2f ms"
            " (body %.2f ms), total %.0f ms (first byte at %.2f%% of it)%s%s\n",
            i, listOwners[i], x.status ? std::to_string(x.status).c_str() : "no answer",
            x.chunked ? "chunked, " : "", double(x.bodyBytes) / 1048576.0,
            x.encoded ? (" (" + fmt(double(x.wireBytes) / 1048576.0, 1) + " MiB gzip)").c_str()
                      : "",
            (unsigned long)x.items, x.firstByteNs ? ms(x.firstByteNs - x.sentNs) : -1.0,
            x.firstBodyNs ? ms(x.firstBodyNs - x.sentNs) : -1.0, ms(x.endNs - x.sentNs),
            x.firstByteNs && x.endNs > x.sentNs
                ? 100.0 * double(x.firstByteNs - x.sentNs) / double(x.endNs - x.sentNs)
                : 0.0,
            problem.empty() ? "" : ": FAILED: ", problem.c_str());
    }
    Summary sTtfb = summarize(ttfb), sBody = summarize(bodyTtfb), sTotal = summarize(total);
    std::string workers;
    for (const auto& [w, n] : perWorker) {
        workers += (workers.empty() ? "" : ",") + std::to_string(w) + ":" + std::to_string(n);
    }
    std::printf(
        "%ld LIST(s)%s: %ld whole and correct; %.1f MiB each%s; first byte %s;"
        " first body byte %s; total %s; workers (pid:LISTs) %s\n",
        o.lists, o.gzip ? " with Accept-Encoding: gzip" : "", ok, double(bodyBytes) / 1048576.0,
        encoded ? (", " + fmt(double(wireBytes) / 1048576.0, 1) + " MiB gzip on the wire" + " (" +
                   std::to_string(encoded) + " encoded)")
                      .c_str()
                : (o.gzip ? ", NOT gzip-encoded" : ""),
        describe(sTtfb).c_str(), describe(sBody).c_str(), describe(sTotal).c_str(),
        workers.c_str());

    // memory
    for (long pid : pids) {
        std::printf("  nginx pid %ld%s: RSS %.1f -> %.1f MiB, PSS %.1f -> %.1f MiB\n", pid,
                    pid == o.nginxPid ? " (master)" : "", mib(beforeEach[pid].rssKib),
                    mib(afterEach[pid].rssKib), mib(beforeEach[pid].pssKib),
                    mib(afterEach[pid].pssKib));
    }
    Memory peak = sampler.peak();
    peak.rssKib = std::max(peak.rssKib, before.rssKib);
    peak.pssKib = std::max(peak.pssKib, before.pssKib);
    std::printf(
        "nginx (%zu processes) RSS: before %.1f MiB, peak %.1f MiB (%+.1f), %ld s after"
        " %.1f MiB (%+.1f); PSS: before %.1f, peak %.1f (%+.1f), after %.1f (%+.1f) MiB;"
        " %ld samples, RSS every %ld ms, PSS every %ld ms, %.2f ms each\n",
        pids.size(), mib(before.rssKib), mib(peak.rssKib), mib(peak.rssKib - before.rssKib),
        o.afterS, mib(after.rssKib), mib(after.rssKib - before.rssKib), mib(before.pssKib),
        mib(peak.pssKib), mib(peak.pssKib - before.pssKib), mib(after.pssKib),
        mib(after.pssKib - before.pssKib), sampler.samples(), o.sampleMs,
        std::max(1L, 100 / o.sampleMs) * o.sampleMs, sampler.meanCostMs());
    std::string hwmField = "na";
    if (hwm) {
        hwmField = fmtSigned(mib(hwmKib - before.rssKib), 1);
        std::printf(
            "sum of the processes' own RSS peaks (VmHWM) while the LISTs ran: %.1f MiB"
            " (%+.1f over before)\n",
            mib(hwmKib), mib(hwmKib - before.rssKib));
    }

    // the GETs
    // Back-to-back GETs on a connection whose worker is busy are few: pooled, the connections'
    // samples are weighted by their throughput and hide the stalled one. So each connection
    // (one per worker) is also summarized alone, and with the GETs a stall held back (see
    // withOmitted; one due every --get-interval-us, else every millisecond): the worst
    // connection's corrected p99 is the figure to judge by.
    int64_t dueNs = (o.getIntervalUs > 0 ? o.getIntervalUs : 1000) * 1000;
    std::vector<int64_t> base, during;
    long getErrors = 0;
    Summary worst;
    std::string perConn;
    for (const GetStats& g : gets) {
        std::vector<int64_t> mine;
        for (const auto& [sent, lat] : g.samples) {
            if (sent < listStart) {
                base.push_back(lat);
            } else if (sent <= listEnd) {
                during.push_back(lat);
                mine.push_back(lat);
            }
        }
        Summary sm = summarize(mine);
        Summary corrected = summarize(withOmitted(mine, dueNs));
        if (sm.n > 0 && (worst.n == 0 || corrected.p99 > worst.p99)) {
            worst = corrected;
        }
        perConn += (perConn.empty() ? "" : ",") + std::to_string(g.worker) + ":" +
                   std::to_string(sm.n) + "/" + fmt(ms(sm.p99), 2) + "/" +
                   fmt(ms(corrected.p99), 2) + "/" + fmt(ms(sm.max), 2);
        std::printf(
            "  GET connection on worker %ld, during the LISTs: %s; corrected p99 %.2f ms%s\n",
            g.worker, describe(sm).c_str(), ms(corrected.p99),
            g.closes ? ("; " + std::to_string(g.closes) +
                        " keep-alive closes by the server, reconnected (the worker may"
                        " differ after)")
                           .c_str()
                     : "");
        for (const auto& [what, n] : g.errors) {
            std::printf("  GET connection on worker %ld: %ld failed: %s\n", g.worker, n,
                        what.c_str());
            getErrors += n;
        }
    }
    Summary sBase = summarize(base), sDuring = summarize(during);
    std::printf("small GET %s alone (%ld ms): %s\n", o.getPath.c_str(), o.baselineMs,
                describe(sBase).c_str());
    std::printf(
        "small GET during the LISTs (%.0f ms): %s; %ld failed; the worst connection, corrected"
        " for the GETs held back (one due every %.3f ms): %s\n",
        ms(listEnd - listStart), describe(sDuring).c_str(), getErrors, ms(dueNs),
        describe(worst).c_str());

    std::printf(
        "RESULT lists lists=%ld gzip=%d ok=%ld encoded=%ld body_mib=%s wire_mib=%s"
        " ttfb_p50_ms=%s ttfb_max_ms=%s body_ttfb_max_ms=%s total_p50_ms=%s"
        " total_max_ms=%s rss_before_mib=%s rss_peak_mib=%s rss_after_mib=%s"
        " rss_growth_mib=%s rss_left_mib=%s pss_before_mib=%s pss_peak_mib=%s"
        " pss_after_mib=%s pss_growth_mib=%s pss_left_mib=%s hwm_growth_mib=%s"
        " get_n=%zu get_p50_ms=%s get_p99_ms=%s get_max_ms=%s get_errors=%ld"
        " get_worst_cp99_ms=%s get_conns=%s"
        " base_n=%zu base_p50_ms=%s base_p99_ms=%s workers=%s\n",
        o.lists, o.gzip ? 1 : 0, ok, encoded, fmt(double(bodyBytes) / 1048576.0, 1).c_str(),
        fmt(double(wireBytes) / 1048576.0, 1).c_str(), fmt(ms(sTtfb.p50), 2).c_str(),
        fmt(ms(sTtfb.max), 2).c_str(), fmt(ms(sBody.max), 2).c_str(),
        fmt(ms(sTotal.p50), 0).c_str(), fmt(ms(sTotal.max), 0).c_str(),
        fmt(mib(before.rssKib), 1).c_str(), fmt(mib(peak.rssKib), 1).c_str(),
        fmt(mib(after.rssKib), 1).c_str(), fmtSigned(mib(peak.rssKib - before.rssKib), 1).c_str(),
        fmtSigned(mib(after.rssKib - before.rssKib), 1).c_str(), fmt(mib(before.pssKib), 1).c_str(),
        fmt(mib(peak.pssKib), 1).c_str(), fmt(mib(after.pssKib), 1).c_str(),
        fmtSigned(mib(peak.pssKib - before.pssKib), 1).c_str(),
        fmtSigned(mib(after.pssKib - before.pssKib), 1).c_str(), hwmField.c_str(), sDuring.n,
        fmt(ms(sDuring.p50), 2).c_str(), fmt(ms(sDuring.p99), 2).c_str(),
        fmt(ms(sDuring.max), 2).c_str(), getErrors, worst.n ? fmt(ms(worst.p99), 2).c_str() : "na",
        perConn.empty() ? "na" : perConn.c_str(), sBase.n, fmt(ms(sBase.p50), 2).c_str(),
        fmt(ms(sBase.p99), 2).c_str(), workers.empty() ? "na" : workers.c_str());
    return ok == o.lists && getErrors == 0 ? 0 : 1;
}

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
    switch (opts->mode) {
        case kube::bench::Mode::Seed:
            return kube::bench::seed(*opts);
        case kube::bench::Mode::Warm:
            return kube::bench::warm(*opts);
        case kube::bench::Mode::Lists:
            return kube::bench::lists(*opts);
    }
    return 2;
}
