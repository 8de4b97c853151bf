// The request load client of bench/rbac_overhead.pl, apf_fairness.pl and apply_writes.pl:
// wrk's loop (keep-alive connections, each with one request in flight, for a fixed time), but over
// TLS with a client certificate when asked, which wrk cannot present, so that every identity is
// measured by the same client.
//
//   get_load --url http[s]://127.0.0.1:PORT/PATH [--seconds S] [--connections C]
//            [--rate R] [--ca FILE] [--cert FILE --key FILE] [--header 'Name: value']...
//            [--method M] [--body FILE]...
//
// --rate R paces the requests to R a second in all (each connection sends on a fixed schedule,
// a late answer delays only its own connection's next request); without it each connection sends
// its next request as soon as the answer is in.
//
// --method (default GET) with one or more --body files: each connection sends the bodies in turn
// (two bodies that differ in one field make every request a change). "{c}" in the path and the
// bodies is replaced by the connection's number, so that connections may write objects of their
// own.
//
// One thread per connection, blocking sockets; libc, libstdc++ and OpenSSL, nothing of src/.
// Output: one "RESULT get key=value ..." line: requests, req/s, p50, p99 and the slowest in
// microseconds, the answers that were not 2xx (of them, 429s) and the connections that failed.
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "load_common.hpp"

namespace kube::bench {
namespace {

struct Options {
    bool tls = false;
    std::string host;
    int port = 0;
    std::string path;
    int seconds = 5;
    int connections = 32;
    int rate = 0;  // requests a second over all connections; 0: back to back
    std::string ca;
    std::string cert;
    std::string key;
    std::vector<std::string> headers;
    std::string method = "GET";
    std::vector<std::string> bodies;  // the files' contents
};

void usage(FILE* to) {
    std::fprintf(
        to,
        "usage: get_load --url http[s]://HOST:PORT/PATH [--seconds S] [--connections C]\n"
        "                [--rate R] [--ca FILE] [--cert FILE --key FILE]\n"
        "                [--header 'Name: value']... [--method M] [--body FILE]...\n");
}

// http[s]://HOST:PORT/PATH
bool parseUrl(std::string_view url, Options& o) {
    if (url.starts_with("https://")) {
        o.tls = true;
        url.remove_prefix(8);
    } else if (url.starts_with("http://")) {
        url.remove_prefix(7);
    } else {
        return false;
    }
    size_t slash = url.find('/');
    std::string_view hostPort = url.substr(0, slash);
    o.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
    size_t colon = hostPort.rfind(':');
    if (colon == std::string_view::npos) {
        return false;
    }
    o.host = std::string(hostPort.substr(0, colon));
    auto port = parseUint(hostPort.substr(colon + 1));
    if (!port || *port == 0 || *port > 65535) {
        return false;
    }
    o.port = int(*port);
    return true;
}

std::optional<Options> parseOptions(int argc, char** argv) {
    Options o;
    bool haveUrl = false;
    for (int i = 1; i < argc; i++) {
        std::string_view a = argv[i];
        if (i + 1 >= argc) {
            return std::nullopt;
        }
        std::string_view v = argv[++i];
        if (a == "--url") {
            haveUrl = parseUrl(v, o);
        } else if (a == "--seconds" || a == "--connections") {
            auto n = parseUint(v);
            if (!n || *n == 0 || *n > 100000) {
                return std::nullopt;
            }
            (a == "--seconds" ? o.seconds : o.connections) = int(*n);
        } else if (a == "--rate") {
            auto n = parseUint(v);
            if (!n || *n == 0 || *n > 10000000) {
                return std::nullopt;
            }
            o.rate = int(*n);
        } else if (a == "--ca") {
            o.ca = v;
        } else if (a == "--cert") {
            o.cert = v;
        } else if (a == "--key") {
            o.key = v;
        } else if (a == "--header") {
            o.headers.emplace_back(v);
        } else if (a == "--method") {
            o.method = v;
        } else if (a == "--body") {
            std::ifstream in{std::string(v), std::ios::binary};
            std::ostringstream text;
            text << in.rdbuf();
            if (!in) {
                std::fprintf(stderr, "get_load: cannot read %.*s\n", int(v.size()), v.data());
                return std::nullopt;
            }
            o.bodies.push_back(text.str());
        } else {
            return std::nullopt;
        }
    }
    if (!haveUrl || o.cert.empty() != o.key.empty()) {
        return std::nullopt;
    }
    return o;
}

// One connection, plain or TLS.
class Conn {
  public:
    Conn(const Options& o, SSL_CTX* ctx) : o_(o), ctx_(ctx) {}
    ~Conn() { close(); }
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;

    bool open() {
        close();
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(uint16_t(o_.port));
        if (inet_pton(AF_INET, o_.host.c_str(), &addr.sin_addr) != 1) {
            return false;
        }
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        if (fd_ < 0) {
            return false;
        }
        tuneSocket(fd_);
        if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
            return false;
        }
        if (ctx_ == nullptr) {
            return true;
        }
        ssl_ = SSL_new(ctx_);
        return ssl_ != nullptr && SSL_set_fd(ssl_, fd_) == 1 && SSL_connect(ssl_) == 1;
    }

    void close() {
        if (ssl_ != nullptr) {
            SSL_free(ssl_);
            ssl_ = nullptr;
        }
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }

    bool write(std::string_view data) {
        if (ssl_ == nullptr) {
            return writeAll(fd_, data);
        }
        return SSL_write(ssl_, data.data(), int(data.size())) == int(data.size());
    }

    // Appends what arrives to `buf`; false on EOF or an error.
    bool read(std::string& buf) {
        char chunk[16384];
        ssize_t n = ssl_ != nullptr ? SSL_read(ssl_, chunk, sizeof chunk)
                                    : ::recv(fd_, chunk, sizeof chunk, 0);
        if (n <= 0) {
            return false;
        }
        buf.append(chunk, size_t(n));
        return true;
    }

  private:
    const Options& o_;
    SSL_CTX* ctx_;
    int fd_ = -1;
    SSL* ssl_ = nullptr;
};

// Reads one response; its status, or 0 when the connection failed or closed.
int readResponse(Conn& c, std::string& buf) {
    size_t end;
    while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
        if (!c.read(buf)) {
            return 0;
        }
    }
    std::string_view head(buf.data(), end);
    int status = 0;
    if (head.size() > 12 && head.starts_with("HTTP/1.")) {
        status = int(parseUint(head.substr(9, 3)).value_or(0));
    }
    std::optional<uint64_t> length;
    bool chunked = false;
    bool closes = false;
    forEachHeader(head, [&](std::string_view name, std::string_view value) {
        if (iequals(name, "content-length")) {
            length = parseUint(value);
        } else if (iequals(name, "transfer-encoding")) {
            chunked = iequals(value, "chunked");
        } else if (iequals(name, "connection")) {
            closes = iequals(value, "close");
        }
        return true;
    });
    size_t pos = end + 4;
    if (chunked) {
        // size line, data, CRLF; until the zero-size chunk and the blank line after it
        for (;;) {
            size_t eol;
            while ((eol = buf.find("\r\n", pos)) == std::string::npos) {
                if (!c.read(buf)) {
                    return 0;
                }
            }
            uint64_t size = 0;
            for (size_t i = pos; i < eol && hexDigit(buf[i]) >= 0; i++) {
                size = size * 16 + uint64_t(hexDigit(buf[i]));
            }
            size_t need = eol + 2 + size + 2;
            while (buf.size() < need) {
                if (!c.read(buf)) {
                    return 0;
                }
            }
            pos = need;
            if (size == 0) {
                break;
            }
        }
    } else if (length) {
        while (buf.size() < pos + *length) {
            if (!c.read(buf)) {
                return 0;
            }
        }
        pos += *length;
    } else {
        return 0;  // a body up to EOF: not what a GET of the API answers
    }
    buf.erase(0, pos);
    return closes ? -status : status;
}

struct Counts {
    std::vector<uint32_t> latencyUs;
    long non2xx = 0;
    long tooMany = 0;
    long failures = 0;
};

void run(const Options& o, SSL_CTX* ctx, int64_t start, int64_t deadline, int index,
         Counts& out) {
    // paced: this connection's share of the rate, its sends staggered from the others'
    int64_t intervalNs = o.rate ? int64_t(1e9 * o.connections / o.rate) : 0;
    int64_t next = start + intervalNs * index / o.connections;
    // "{c}": this connection's number
    auto own = [index](std::string text) {
        std::string n = std::to_string(index);
        for (size_t at; (at = text.find("{c}")) != std::string::npos;) {
            text.replace(at, 3, n);
        }
        return text;
    };
    std::string head = o.method + " " + own(o.path) + " HTTP/1.1\r\nHost: " + o.host + "\r\n";
    for (const std::string& h : o.headers) {
        head += h + "\r\n";
    }
    std::vector<std::string> requests;
    for (const std::string& body : o.bodies) {
        std::string b = own(body);
        requests.push_back(head + "Content-Length: " + std::to_string(b.size()) + "\r\n\r\n" + b);
    }
    if (requests.empty()) {
        requests.push_back(head + "\r\n");
    }
    size_t turn = 0;
    Conn c(o, ctx);
    bool open = false;
    std::string buf;
    while (nowNs() < deadline) {
        if (!open) {
            buf.clear();
            if (!(open = c.open())) {
                out.failures++;
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
                continue;
            }
        }
        if (intervalNs) {
            int64_t now = nowNs();
            if (next > now) {
                std::this_thread::sleep_for(std::chrono::nanoseconds(next - now));
            }
            next += intervalNs;
            if (next >= deadline) {
                next = deadline;
            }
        }
        int64_t t0 = nowNs();
        const std::string& request = requests[turn++ % requests.size()];
        int status = c.write(request) ? readResponse(c, buf) : 0;
        if (status == 0) {
            out.failures++;
            open = false;
            continue;
        }
        if (status < 0) {
            status = -status;
            open = false;
            c.close();
        }
        out.latencyUs.push_back(uint32_t((nowNs() - t0) / 1000));
        if (status < 200 || status > 299) {
            out.non2xx++;
        }
        if (status == 429) {
            out.tooMany++;
        }
    }
}

int main(const Options& o) {
    std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> owned(nullptr, SSL_CTX_free);
    SSL_CTX* ctx = nullptr;
    if (o.tls) {
        owned.reset(ctx = SSL_CTX_new(TLS_client_method()));
        if (!o.ca.empty()) {
            if (SSL_CTX_load_verify_locations(ctx, o.ca.c_str(), nullptr) != 1) {
                std::fprintf(stderr, "get_load: cannot read the CA %s\n", o.ca.c_str());
                return 1;
            }
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
        }
        if (!o.cert.empty() &&
            (SSL_CTX_use_certificate_chain_file(ctx, o.cert.c_str()) != 1 ||
             SSL_CTX_use_PrivateKey_file(ctx, o.key.c_str(), SSL_FILETYPE_PEM) != 1)) {
            std::fprintf(stderr, "get_load: cannot read the client certificate %s or key %s\n",
                         o.cert.c_str(), o.key.c_str());
            return 1;
        }
    }
    std::vector<Counts> counts(size_t(o.connections));
    std::vector<std::thread> threads;
    int64_t start = nowNs();
    int64_t deadline = start + int64_t(o.seconds) * 1000000000;
    for (size_t i = 0; i < counts.size(); i++) {
        threads.emplace_back([&o, ctx, start, deadline, i, &counts] {
            run(o, ctx, start, deadline, int(i), counts[i]);
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    double elapsed = double(nowNs() - start) / 1e9;
    std::vector<uint32_t> all;
    long non2xx = 0;
    long tooMany = 0;
    long failures = 0;
    for (Counts& c : counts) {
        all.insert(all.end(), c.latencyUs.begin(), c.latencyUs.end());
        non2xx += c.non2xx;
        tooMany += c.tooMany;
        failures += c.failures;
    }
    std::sort(all.begin(), all.end());
    auto pct = [&](double p) { return all.empty() ? 0u : all[size_t(p * double(all.size() - 1))]; };
    std::printf("RESULT get requests=%zu rps=%.0f p50_us=%u p99_us=%u non2xx=%ld status429=%ld "
                "failures=%ld max_us=%u\n",
                all.size(), double(all.size()) / elapsed, pct(0.5), pct(0.99), non2xx, tooMany,
                failures, all.empty() ? 0u : all.back());
    return all.empty() ? 1 : 0;
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
    return kube::bench::main(*opts);
}
