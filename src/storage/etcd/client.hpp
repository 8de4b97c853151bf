#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

// gRPC's generated clients of the etcd services, named by the Makefile.
#include "etcdserverpb/etcd_rpc.hpp"
#include "storage/interface.hpp"

namespace kube::storage::etcd {

// One gRPC channel to an etcd cluster and the completion queue its calls end
// on. A thread of its own waits on the queue and does nothing but hand each
// finished operation over: it queues it under a mutex and calls `notify`
// (once, until the loop drains), which must be safe from any thread (the
// worker writes an eventfd the loop listens on). drain(), on the loop, runs
// the continuations. Any number of calls are in flight at once on the one
// HTTP/2 connection.
//
// Threads: everything but `notify` runs on the loop thread. Destroying the
// Client cancels what is in flight and joins its thread; continuations not
// yet run are dropped, never called.
class Client {
  public:
    struct Options {
        // "http://host:port", one per member; the channel fails over
        // between them.
        std::vector<std::string> endpoints;
        // Deadline of each unary call.
        std::chrono::milliseconds timeout{std::chrono::seconds(30)};
        // For "https://" endpoints: PEM of the authorities etcd's server
        // certificate is checked against (empty: the system's), and of the
        // client certificate and its key presented to etcd (empty: none).
        bool tls = false;
        std::string rootCerts;
        std::string certChain;
        std::string privateKey;
    };

    template <typename Response>
    using Done = std::function<void(const grpc::Status&, Response&)>;

    // One Watch RPC: a stream of requests out, of responses in.
    class WatchStream;
    struct WatchHandlers {
        // Each response, in order.
        std::function<void(etcdserverpb::WatchResponse&)> onResponse;
        // The stream ended (etcd gone, cancelled); nothing follows.
        std::function<void(const grpc::Status&)> onClosed;
    };

    // The gRPC target for `endpoints` ("ipv4:a:p,b:p" for address literals,
    // else the first endpoint's name); empty with `*error` set when one is
    // not "http://host:port" or "https://host:port", or when they mix both.
    // `*tls` tells which.
    static std::string target(const std::vector<std::string>& endpoints, bool* tls,
                              std::string* error);

    Client(const std::string& target, const Options& options, std::function<void()> notify);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // Runs the continuations of every operation finished since the last call.
    void drain();

    void range(const etcdserverpb::RangeRequest& req, Done<etcdserverpb::RangeResponse> done);
    void txn(const etcdserverpb::TxnRequest& req, Done<etcdserverpb::TxnResponse> done);
    void compact(const etcdserverpb::CompactionRequest& req,
                 Done<etcdserverpb::CompactionResponse> done);
    void leaseGrant(const etcdserverpb::LeaseGrantRequest& req,
                    Done<etcdserverpb::LeaseGrantResponse> done);

    // Opens a Watch stream and sends `create` on it. Only one stream is
    // open at a time: opening another closes the last one (its onClosed is
    // not called).
    void watch(const etcdserverpb::WatchCreateRequest& create, WatchHandlers handlers);
    // Asks the open stream for a progress response; ignored with none.
    void requestProgress();
    void closeWatch();

    std::chrono::system_clock::time_point deadline() const {
        return std::chrono::system_clock::now() + options_.timeout;
    }

    // One operation on the queue; run() is its continuation, on the loop.
    struct Tag {
        virtual ~Tag() = default;
        virtual void run(bool ok) = 0;
    };

  private:
    struct Unary;
    template <typename Request, typename Response>
    struct UnaryCall;
    friend struct Unary;
    template <typename Request, typename Response>
    friend struct UnaryCall;

    void poll();
    void reap();

    Options options_;
    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<etcdserverpb::KvRpc> kv_;
    std::unique_ptr<etcdserverpb::WatchRpc> watch_;
    std::unique_ptr<etcdserverpb::LeaseRpc> lease_;
    grpc::CompletionQueue cq_;
    std::function<void()> notify_;

    // Filled by the queue's thread, emptied by drain().
    std::mutex mutex_;
    std::vector<std::pair<Tag*, bool>> finished_;
    bool notified_ = false;

    // Loop-only: unary calls in flight (cancelled on destruction), the open
    // stream and the closed ones whose operations have not all come back.
    std::set<Unary*> unary_;
    std::unique_ptr<WatchStream> stream_;
    std::vector<std::unique_ptr<WatchStream>> closing_;

    std::thread thread_;
};

// Whether a call failed for etcd being out of reach (unreachable, the
// deadline passed, the call cancelled), which every call meets alike, rather
// than for what it asked.
bool unreachable(const grpc::Status& status);

// What a failed call means to the storage: Unavailable when etcd is out of
// reach, NoSpace past its quota, Compacted for a revision compacted away,
// else Internal; the message names `what` was asked.
Error grpcError(const grpc::Status& status, std::string_view what);

// An etcd revision as the storage's (etcd's are never negative; 0: none).
inline Revision revisionOf(int64_t r) {
    return r > 0 ? static_cast<Revision>(r) : 0;
}

// The end of the etcd range holding every key that starts with `prefix`.
std::string prefixEnd(std::string prefix);

}  // namespace kube::storage::etcd
