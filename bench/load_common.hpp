// What the benchmark clients of bench/run (list_load, watch_load) share: clock and text helpers,
// socket set-up and timed reads, HTTP head lines, and nginx's processes found through /proc.
// Header-only (libc and libstdc++), so that each client stays one translation unit.
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kube::bench {

// ---------------------------------------------------------------------------------------------
// Time and text

// Nanoseconds of CLOCK_MONOTONIC: comparable between the processes of one host.
inline int64_t nowNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline std::optional<uint64_t> parseUint(std::string_view s) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

inline bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

inline std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

inline std::string fmt(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

inline std::string errnoName(int err) {
    const char* name = strerrorname_np(err);
    return name ? name : std::to_string(err);
}

// ---------------------------------------------------------------------------------------------
// HTTP/1.1 heads

// The value of a hex digit (a chunk size), -1 when `c` is none.
inline int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

// Calls fn(name, value), both trimmed, for each header line of `head` (a response head without
// its final blank line; the status line is skipped, so are lines without a colon). Stops at the
// first line for which fn returns false and returns false then.
template <typename Fn>
bool forEachHeader(std::string_view head, Fn&& fn) {
    size_t eol = head.find("\r\n");
    while (eol != std::string_view::npos) {
        head.remove_prefix(eol + 2);
        eol = head.find("\r\n");
        std::string_view line = head.substr(0, eol);
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            continue;
        }
        if (!fn(trim(line.substr(0, colon)), trim(line.substr(colon + 1)))) {
            return false;
        }
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// Sockets

// What every client socket gets: closed with a reset (so runs leave no TIME_WAIT behind), no
// Nagle delay, and the kernel's receive timestamps that timedRead() reports.
inline void tuneSocket(int fd) {
    linger lg{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
}

// All of `data` to a socket (SIGPIPE or not: a closed peer is a false return).
inline bool writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        data.remove_prefix(size_t(n));
    }
    return true;
}

// A kernel timestamp (CLOCK_REALTIME) as CLOCK_MONOTONIC, by the age it has now; `fallback`
// when it looks like a clock step.
inline int64_t monotonicOf(const timespec& kernel, int64_t fallback) {
    timespec real{};
    clock_gettime(CLOCK_REALTIME, &real);
    int64_t now = nowNs();
    int64_t age = (int64_t(real.tv_sec) - kernel.tv_sec) * 1000000000 + real.tv_nsec - kernel.tv_nsec;
    if (age < 0 || age >= int64_t(10) * 1000000000) {
        return fallback;
    }
    return now - age;
}

// Asks the kernel to time-stamp what `fd` sends, as the data leaves for the (loopback) device:
// sentAt() then tells when a request really went out, whatever this client's scheduling
// between its clock reading and the send.
inline void timeSends(int fd) {
    int flags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
                SOF_TIMESTAMPING_OPT_TSONLY;
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags);
}

// The send time of the last data sent on a timeSends() socket (CLOCK_MONOTONIC), from its error
// queue; `fallback` when the kernel reported none.
inline int64_t sentAt(int fd, int64_t fallback) {
    int64_t sent = fallback;
    for (;;) {
        char data[64];
        iovec iov{data, sizeof data};
        alignas(cmsghdr) char control[512];
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        if (::recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
            return sent;
        }
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
                scm_timestamping ts{};
                std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
                if (ts.ts[0].tv_sec != 0) {
                    sent = monotonicOf(ts.ts[0], fallback);
                }
            }
        }
    }
}

// One read that also says when its bytes arrived: the kernel's receive timestamp of the last
// segment read (SO_TIMESTAMPNS, on CLOCK_REALTIME), turned into CLOCK_MONOTONIC by the age it
// has now. Without it, an arrival time would include this client's own scheduling delays and
// its turn at the other sockets ready before this one. -1 with errno set, like read(); an
// interrupted read is retried.
struct TimedRead {
    ssize_t n = 0;
    int64_t arrivalNs = 0;  // CLOCK_MONOTONIC; the read's own time when there is no timestamp
    int64_t readNs = 0;     // CLOCK_MONOTONIC right after the read
};

// (To time the first byte of an answer, read one byte: the timestamp is then that byte's.)
inline TimedRead timedRead(int fd, char* buf, size_t size) {
    TimedRead r;
    iovec iov{buf, size};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    do {
        r.n = ::recvmsg(fd, &msg, 0);
    } while (r.n < 0 && errno == EINTR);
    if (r.n < 0) {
        return r;
    }
    r.readNs = nowNs();
    r.arrivalNs = r.readNs;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            timespec rx{};
            std::memcpy(&rx, CMSG_DATA(c), sizeof rx);
            r.arrivalNs = monotonicOf(rx, r.readNs);
        }
    }
    return r;
}

// The local end of a connection, as /proc/net/tcp shows the peer of the server's socket: it
// prints an IPv4 address as the hex of its in-memory (network order) 32 bits, which is what
// sin_addr.s_addr holds.
inline uint64_t clientKey(uint32_t rawAddr, uint16_t hostPort) {
    return (uint64_t(rawAddr) << 16) | hostPort;
}

inline std::optional<uint64_t> localKey(int fd) {
    sockaddr_in a{};
    socklen_t len = sizeof a;
    if (fd < 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        return std::nullopt;
    }
    return clientKey(a.sin_addr.s_addr, ntohs(a.sin_port));
}

// ---------------------------------------------------------------------------------------------
// nginx's processes, from /proc

// The master first, then its children (the workers) in /proc's order.
inline std::vector<long> nginxPids(long master) {
    std::vector<long> pids{master};
    if (DIR* d = opendir("/proc")) {
        while (dirent* e = readdir(d)) {
            auto pid = parseUint(e->d_name);
            if (!pid) {
                continue;
            }
            std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
            std::string s((std::istreambuf_iterator<char>(stat)), {});
            size_t paren = s.rfind(')');
            long ppid = 0;
            char state = 0;
            if (paren != std::string::npos &&
                std::sscanf(s.c_str() + paren + 1, " %c %ld", &state, &ppid) == 2 &&
                ppid == master) {
                pids.push_back(long(*pid));
            }
        }
        closedir(d);
    }
    return pids;
}

// The workers, by pid.
inline std::vector<long> workerPids(long master) {
    std::vector<long> pids = nginxPids(master);
    pids.erase(pids.begin());
    std::sort(pids.begin(), pids.end());
    return pids;
}

// The worker pid that holds the server side of each connection to `port`, by the client's end
// (see clientKey): the socket inodes in the workers' fd tables matched with /proc/net/tcp.
inline std::unordered_map<uint64_t, long> socketOwnerPids(long master, int port) {
    std::unordered_map<uint64_t, long> inodeOwner;
    for (long pid : workerPids(master)) {
        std::string dir = "/proc/" + std::to_string(pid) + "/fd";
        DIR* d = opendir(dir.c_str());
        if (d == nullptr) {
            continue;
        }
        while (dirent* e = readdir(d)) {
            char target[64];
            ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
            unsigned long inode = 0;
            if (n > 0 && (target[n] = 0, std::sscanf(target, "socket:[%lu]", &inode) == 1)) {
                inodeOwner.emplace(inode, pid);
            }
        }
        closedir(d);
    }
    std::unordered_map<uint64_t, long> owners;
    std::ifstream tcp("/proc/net/tcp");
    std::string line;
    std::getline(tcp, line);  // the column titles
    while (std::getline(tcp, line)) {
        unsigned localAddr = 0, localPort = 0, remoteAddr = 0, remotePort = 0;
        unsigned long inode = 0;
        if (std::sscanf(line.c_str(), " %*u: %x:%x %x:%x %*x %*x:%*x %*x:%*x %*x %*u %*u %lu",
                        &localAddr, &localPort, &remoteAddr, &remotePort, &inode) != 5 ||
            int(localPort) != port) {
            continue;
        }
        auto it = inodeOwner.find(inode);
        if (it != inodeOwner.end()) {
            owners[clientKey(remoteAddr, uint16_t(remotePort))] = it->second;
        }
    }
    return owners;
}

}  // namespace kube::bench
