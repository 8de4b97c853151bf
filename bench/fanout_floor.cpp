// fanout_floor: the floor under bench/run's fan-out figure (case (g)), on this host.
//
//   fanout_floor --port P [--workers N]
//
// A bare HTTP/1.1 server that does only what a watch fan-out cannot avoid: N processes (default
// 2, as nginx's workers) accept on one reuseport listener, answer GET ...?watch=true with the
// chunked head of a watch, and on each PUT answer 200 and write one event line to every watch
// they hold, one writev per watch, telling the other processes through a pipe to do the same.
// No storage, no JSON parsing, no nginx: watch_load's fanout mode run against it measures what
// the kernel's loopback TCP and the client's own reads cost for that many sockets on these cores.
//
// What watch_load sends is all it understands: POST (201) and PUT (200) answer an object whose
// metadata.resourceVersion counts the writes across processes; the event is that PUT's body with
// the resourceVersion, as kube-apiserver's MODIFIED event carries the object written. It runs
// until killed; its worker processes end with it (PR_SET_PDEATHSIG).

#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <array>
#include <atomic>
#include <csignal>
#include <memory>
#include <unordered_map>

#include "load_common.hpp"

namespace kube::bench {
namespace {

// One client connection: its unparsed input and whether it is a watch.
struct Conn {
    int fd = -1;
    std::string in;
    bool watch = false;
};

class Worker {
  public:
    Worker(int port, std::atomic<uint64_t>* revision, std::vector<int> peers, int inbox)
        : port_(port), revision_(revision), peers_(std::move(peers)), inbox_(inbox) {}

    [[noreturn]] void run() {
        int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        int one = 1;
        setsockopt(ls, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
        setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(uint16_t(port_));
        if (bind(ls, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(ls, 4096) != 0) {
            std::fprintf(stderr, "fanout_floor: port %d: %s\n", port_, std::strerror(errno));
            _exit(1);
        }
        ep_ = epoll_create1(0);
        add(ls);
        add(inbox_);
        epoll_event evs[256];
        for (;;) {
            int n = epoll_wait(ep_, evs, 256, -1);
            for (int i = 0; i < n; i++) {
                int fd = evs[i].data.fd;
                if (fd == ls) {
                    accept(ls);
                } else if (fd == inbox_) {
                    fromPeer();
                } else {
                    readFrom(fd);
                }
            }
        }
    }

  private:
    void add(int fd) {
        epoll_event e{};
        e.events = EPOLLIN;
        e.data.fd = fd;
        epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &e);
    }

    void accept(int ls) {
        for (;;) {
            int fd = accept4(ls, nullptr, nullptr, SOCK_NONBLOCK);
            if (fd < 0) {
                return;
            }
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            conns_[fd].fd = fd;
            add(fd);
        }
    }

    void close(int fd) {
        epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
        ::close(fd);
        conns_.erase(fd);
        watches_.erase(std::remove(watches_.begin(), watches_.end(), fd), watches_.end());
    }

    void readFrom(int fd) {
        Conn& c = conns_[fd];
        char buf[16384];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) {
            close(fd);
            return;
        }
        if (c.watch) {
            return;  // a watch sends nothing more
        }
        c.in.append(buf, size_t(n));
        while (serveOne(c)) {
        }
    }

    // Answers the first complete request in c.in; false when none is complete.
    bool serveOne(Conn& c) {
        size_t end = c.in.find("\r\n\r\n");
        if (end == std::string::npos) {
            return false;
        }
        std::string_view head(c.in.data(), end);
        size_t length = 0;
        forEachHeader(head, [&](std::string_view name, std::string_view value) {
            if (iequals(name, "Content-Length")) {
                length = parseUint(value).value_or(0);
            }
            return true;
        });
        if (c.in.size() < end + 4 + length) {
            return false;
        }
        std::string method(head.substr(0, head.find(' ')));
        std::string line(head.substr(0, head.find("\r\n")));
        std::string body = c.in.substr(end + 4, length);
        c.in.erase(0, end + 4 + length);

        if (method == "GET" && line.find("watch=true") != std::string::npos) {
            c.watch = true;
            static constexpr std::string_view watchHead =
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n";
            writeAll(c.fd, watchHead);
            watches_.push_back(c.fd);
            c.in.clear();
            return false;
        }
        uint64_t rv = revision_->fetch_add(1) + 1;
        std::string object = withRevision(body, rv);
        std::string answer = std::string("HTTP/1.1 ") +
                             (method == "POST" ? "201 Created" : "200 OK") +
                             "\r\nContent-Type: application/json\r\nContent-Length: " +
                             std::to_string(object.size()) + "\r\n\r\n" + object;
        writeAll(c.fd, answer);
        if (method == "PUT") {
            // the other processes first, so that all of them write at once
            std::string event = R"({"type":"MODIFIED","object":)" + object + "}\n";
            for (int peer : peers_) {
                uint32_t len = uint32_t(event.size());
                std::string msg(reinterpret_cast<const char*>(&len), sizeof len);
                msg += event;  // well under PIPE_BUF: one atomic write
                writeAll(peer, msg);
            }
            fanOut(event);
        }
        return true;
    }

    // `body` (an object) with metadata.resourceVersion set to `rv`.
    static std::string withRevision(const std::string& body, uint64_t rv) {
        std::string field = R"("resourceVersion":")" + std::to_string(rv) + "\"";
        size_t meta = body.find(R"("metadata":{)");
        if (meta == std::string::npos) {
            return R"({"metadata":{)" + field + "}}";
        }
        size_t at = meta + std::strlen(R"("metadata":{)");
        return body.substr(0, at) + field + (body[at] == '}' ? "" : ",") + body.substr(at);
    }

    void fromPeer() {
        uint32_t len = 0;
        if (read(inbox_, &len, sizeof len) != sizeof len) {
            return;
        }
        std::string event(len, '\0');
        size_t got = 0;
        while (got < len) {
            ssize_t n = read(inbox_, event.data() + got, len - got);
            if (n <= 0) {
                return;
            }
            got += size_t(n);
        }
        fanOut(event);
    }

    // The event as one chunk to every watch: one writev each, as nginx writes it.
    void fanOut(const std::string& event) {
        char size[32];
        int sizeLen = std::snprintf(size, sizeof size, "%zx\r\n", event.size());
        iovec iov[3] = {{size, size_t(sizeLen)},
                        {const_cast<char*>(event.data()), event.size()},
                        {const_cast<char*>("\r\n"), 2}};
        for (int fd : watches_) {
            ssize_t n = writev(fd, iov, 3);
            (void)n;  // an idle watcher's socket has room; the client checks what arrives
        }
    }

    static void writeAll(int fd, std::string_view bytes) {
        while (!bytes.empty()) {
            ssize_t n = write(fd, bytes.data(), bytes.size());
            if (n <= 0) {
                if (n < 0 && errno == EAGAIN) {
                    continue;
                }
                return;
            }
            bytes.remove_prefix(size_t(n));
        }
    }

    int port_;
    std::atomic<uint64_t>* revision_;
    std::vector<int> peers_;
    int inbox_;
    int ep_ = -1;
    std::unordered_map<int, Conn> conns_;
    std::vector<int> watches_;
};

int main(int argc, char** argv) {
    int port = 0;
    int workers = 2;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string_view flag = argv[i];
        auto v = parseUint(argv[i + 1]);
        if (!v) {
            break;
        }
        if (flag == "--port") {
            port = int(*v);
        } else if (flag == "--workers") {
            workers = int(*v);
        }
    }
    if (port <= 0 || workers <= 0 || argc % 2 == 0) {
        std::fprintf(stderr, "usage: fanout_floor --port P [--workers N]\n");
        return 2;
    }
    auto* revision = static_cast<std::atomic<uint64_t>*>(
        mmap(nullptr, sizeof(std::atomic<uint64_t>), PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    new (revision) std::atomic<uint64_t>(1);
    std::vector<std::array<int, 2>> pipes(static_cast<size_t>(workers));
    for (auto& p : pipes) {
        if (pipe(p.data()) != 0) {
            std::perror("fanout_floor: pipe");
            return 1;
        }
    }
    pid_t parent = getpid();
    for (int w = 0; w < workers; w++) {
        if (fork() == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) {
                _exit(0);
            }
            std::vector<int> peers;
            for (int o = 0; o < workers; o++) {
                if (o != w) {
                    peers.push_back(pipes[size_t(o)][1]);
                }
            }
            Worker(port, revision, peers, pipes[size_t(w)][0]).run();
        }
    }
    signal(SIGTERM, [](int) { _exit(0); });
    for (;;) {
        pause();
    }
}

}  // namespace
}  // namespace kube::bench

int main(int argc, char** argv) {
    return kube::bench::main(argc, argv);
}
