#pragma once

// A real etcd for unit tests: Debian's /usr/bin/etcd, one member on loopback
// ports picked free, its data and log in a fresh temporary directory. stop()
// (or the destructor) ends it by its pid and removes the directory; should
// the test process die first, the kernel kills etcd (PR_SET_PDEATHSIG).

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kube::testing {

class EtcdServer {
  public:
    static constexpr const char* kBinary = "/usr/bin/etcd";

    static bool available() { return access(kBinary, X_OK) == 0; }

    EtcdServer() = default;
    EtcdServer(const EtcdServer&) = delete;
    EtcdServer& operator=(const EtcdServer&) = delete;
    ~EtcdServer() { stop(); }

    // Starts etcd and waits until it answers /health as a member with a
    // leader (within `wait`); false with `*error` set, its log included,
    // when it does not.
    bool start(std::string* error, std::chrono::seconds wait = std::chrono::seconds(20)) {
        char tmpl[] = "/tmp/kube-etcd-XXXXXX";
        if (mkdtemp(tmpl) == nullptr) {
            *error = "mkdtemp failed";
            return false;
        }
        dir_ = tmpl;
        const std::vector<int> ports = freePorts(2);
        if (ports.size() != 2) {
            *error = "no free loopback port";
            stop();
            return false;
        }
        port_ = ports[0];
        url_ = "http://127.0.0.1:" + std::to_string(ports[0]);
        const std::string peerUrl = "http://127.0.0.1:" + std::to_string(ports[1]);
        const std::vector<std::string> args = {
            kBinary,
            "--name",
            "unit",
            "--data-dir",
            dir_ + "/data",
            "--listen-client-urls",
            url_,
            "--advertise-client-urls",
            url_,
            "--listen-peer-urls",
            peerUrl,
            "--initial-advertise-peer-urls",
            peerUrl,
            "--initial-cluster",
            "unit=" + peerUrl,
        };
        // Built before fork(): the child only makes async-signal-safe calls.
        std::vector<char*> argv;
        for (const std::string& a : args) {
            argv.push_back(const_cast<char*>(a.c_str()));
        }
        argv.push_back(nullptr);
        const std::string log = logPath();
        const pid_t parent = getpid();
        pid_ = fork();
        if (pid_ < 0) {
            *error = "fork failed";
            stop();
            return false;
        }
        if (pid_ == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) {
                _exit(127);
            }
            const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
            execv(kBinary, argv.data());
            _exit(127);
        }
        const auto deadline = std::chrono::steady_clock::now() + wait;
        while (!healthy()) {
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                *error = "etcd exited at start: " + readLog();
                stop();
                return false;
            }
            if (std::chrono::steady_clock::now() > deadline) {
                *error = "etcd did not answer /health in " + std::to_string(wait.count()) +
                         " s: " + readLog();
                stop();
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return true;
    }

    // Ends etcd (SIGTERM, SIGKILL after 10 s), reaps it and removes its
    // directory; each step only when there is something to end or remove.
    void stop() {
        if (pid_ > 0) {
            kill(pid_, SIGTERM);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (waitpid(pid_, nullptr, WNOHANG) == 0) {
                if (std::chrono::steady_clock::now() > deadline) {
                    kill(pid_, SIGKILL);
                    waitpid(pid_, nullptr, 0);
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            pid_ = -1;
        }
        if (!dir_.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(dir_, ec);
            dir_.clear();
        }
    }

    bool running() const { return pid_ > 0; }
    pid_t pid() const { return pid_; }
    // "http://127.0.0.1:<port>": the client URL.
    const std::string& url() const { return url_; }
    const std::string& dir() const { return dir_; }

  private:
    // `n` distinct ports nothing listens on now: those the kernel gives
    // sockets bound to port 0, held open together (etcd takes them a moment
    // later); fewer when sockets fail.
    static std::vector<int> freePorts(size_t n) {
        std::vector<int> fds;
        std::vector<int> ports;
        for (size_t i = 0; i < n; i++) {
            const int fd = socket(AF_INET, SOCK_STREAM, 0);
            if (fd < 0) {
                break;
            }
            fds.push_back(fd);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            socklen_t len = sizeof a;
            if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
                getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
                break;
            }
            ports.push_back(ntohs(a.sin_port));
        }
        for (int fd : fds) {
            close(fd);
        }
        return ports;
    }

    // Whether GET /health answers {"health":"true"}: etcd serves and the
    // member has a leader.
    bool healthy() const {
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) {
            return false;
        }
        timeval tv{1, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(static_cast<uint16_t>(port_));
        std::string answer;
        if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
            const std::string req = "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
            if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
                char buf[1024];
                ssize_t n;
                while ((n = read(fd, buf, sizeof buf)) > 0) {
                    answer.append(buf, static_cast<size_t>(n));
                }
            }
        }
        close(fd);
        return answer.find("\"health\":\"true\"") != std::string::npos;
    }

    std::string logPath() const { return dir_ + "/etcd.log"; }

    std::string readLog() const {
        std::ifstream in(logPath());
        std::ostringstream out;
        out << in.rdbuf();
        return out.str();
    }

    pid_t pid_ = -1;
    int port_ = 0;
    std::string dir_;
    std::string url_;
};

}  // namespace kube::testing
