#include "storage/etcd/client.hpp"

#include <arpa/inet.h>

#include <deque>

namespace kube::storage::etcd {

// A unary call in flight; the Client keeps it until its Finish comes back.
struct Client::Unary : Tag {
    Client* client = nullptr;
    grpc::ClientContext ctx;
};

template <typename Request, typename Response>
struct Client::UnaryCall : Unary {
    Response response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> reader;
    Done<Response> done;

    void run(bool ok) override {
        std::unique_ptr<UnaryCall> self(this);
        client->unary_.erase(this);
        if (!ok && status.ok()) {
            status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "the call did not complete");
        }
        Done<Response> cb = std::move(done);
        cb(status, response);
    }
};

class Client::WatchStream {
  public:
    WatchStream(Client& client, WatchHandlers handlers)
        : client_(client),
          handlers_(std::move(handlers)),
          start_(this, &WatchStream::started),
          read_(this, &WatchStream::read),
          write_(this, &WatchStream::written),
          finish_(this, &WatchStream::finished) {}

    void open(const etcdserverpb::WatchCreateRequest& create) {
        etcdserverpb::WatchRequest req;
        *req.mutable_create_request() = create;
        outbox_.push_back(std::move(req));
        stream_ = client_.watch_->PrepareAsyncWatch(&ctx_, &client_.cq_);
        pending_++;
        stream_->StartCall(static_cast<Tag*>(&start_));
    }

    void send(etcdserverpb::WatchRequest req) {
        if (detached_ || finishing_) {
            return;
        }
        outbox_.push_back(std::move(req));
        flush();
    }

    // No more callbacks; the operations in flight come back failed.
    void detach() {
        detached_ = true;
        ctx_.TryCancel();
    }

    void cancel() { ctx_.TryCancel(); }

    bool idle() const { return pending_ == 0; }

  private:
    struct Op : Tag {
        using Step = void (WatchStream::*)(bool);
        Op(WatchStream* s, Step step) : stream(s), step(step) {}
        void run(bool ok) override { (stream->*step)(ok); }
        WatchStream* stream;
        Step step;
    };

    void started(bool ok) {
        pending_--;
        if (!ok || detached_) {
            finish();
            return;
        }
        running_ = true;
        nextRead();
        flush();
    }

    void nextRead() {
        pending_++;
        stream_->Read(&response_, static_cast<Tag*>(&read_));
    }

    void read(bool ok) {
        pending_--;
        if (!ok) {
            finish();
            return;
        }
        if (!detached_) {
            handlers_.onResponse(response_);
        }
        // The handler may have detached this stream.
        if (detached_) {
            finish();
            return;
        }
        nextRead();
    }

    void flush() {
        if (!running_ || writing_ || outbox_.empty() || finishing_) {
            return;
        }
        writing_ = true;
        pending_++;
        current_ = std::move(outbox_.front());
        outbox_.pop_front();
        stream_->Write(current_, static_cast<Tag*>(&write_));
    }

    void written(bool ok) {
        pending_--;
        writing_ = false;
        if (ok) {
            flush();
        }
    }

    void finish() {
        if (finishing_) {
            return;
        }
        finishing_ = true;
        pending_++;
        stream_->Finish(&status_, static_cast<Tag*>(&finish_));
    }

    void finished(bool) {
        pending_--;
        if (!detached_) {
            detached_ = true;
            handlers_.onClosed(status_);
        }
    }

    Client& client_;
    WatchHandlers handlers_;
    grpc::ClientContext ctx_;
    std::unique_ptr<
        grpc::ClientAsyncReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>>
        stream_;
    etcdserverpb::WatchResponse response_;
    etcdserverpb::WatchRequest current_;
    std::deque<etcdserverpb::WatchRequest> outbox_;
    grpc::Status status_;
    Op start_;
    Op read_;
    Op write_;
    Op finish_;
    int pending_ = 0;
    bool running_ = false;
    bool writing_ = false;
    bool finishing_ = false;
    bool detached_ = false;
};

std::string Client::target(const std::vector<std::string>& endpoints, bool* tls,
                           std::string* error) {
    std::vector<std::string> hostPorts;
    bool literals = true;
    for (size_t i = 0; i < endpoints.size(); i++) {
        const std::string& e = endpoints[i];
        std::string_view rest = e;
        bool secure = rest.starts_with("https://");
        if (!secure && !rest.starts_with("http://")) {
            *error = "endpoint \"" + e + "\" is not \"http[s]://<host>:<port>\"";
            return {};
        }
        if (i > 0 && secure != *tls) {
            *error = "endpoint \"" + e + "\" mixes http:// and https://";
            return {};
        }
        *tls = secure;
        rest.remove_prefix(secure ? 8 : 7);
        if (rest.ends_with('/')) {
            rest.remove_suffix(1);
        }
        size_t colon = rest.rfind(':');
        if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size() ||
            rest.substr(colon + 1).find_first_not_of("0123456789") != std::string_view::npos) {
            *error = "endpoint \"" + e + "\" has no port";
            return {};
        }
        std::string host(rest.substr(0, colon));
        in_addr addr{};
        if (inet_pton(AF_INET, host.c_str(), &addr) != 1) {
            literals = false;
        }
        hostPorts.emplace_back(rest);
    }
    if (hostPorts.empty()) {
        *error = "no etcd endpoint";
        return {};
    }
    if (!literals) {
        return "dns:///" + hostPorts.front();
    }
    std::string out = "ipv4:";
    for (size_t i = 0; i < hostPorts.size(); i++) {
        out += (i ? "," : "") + hostPorts[i];
    }
    return out;
}

Client::Client(const std::string& target, const Options& options, std::function<void()> notify)
    : options_(options), notify_(std::move(notify)) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    // etcd restarting is met within a second, not after gRPC's default
    // backoff of up to two minutes.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
    std::shared_ptr<grpc::ChannelCredentials> credentials;
    if (options.tls) {
        grpc::SslCredentialsOptions ssl;
        ssl.pem_root_certs = options.rootCerts;
        ssl.pem_cert_chain = options.certChain;
        ssl.pem_private_key = options.privateKey;
        credentials = grpc::SslCredentials(ssl);
    } else {
        credentials = grpc::InsecureChannelCredentials();
    }
    channel_ = grpc::CreateCustomChannel(target, credentials, args);
    kv_ = etcdserverpb::newKvRpc(channel_);
    watch_ = etcdserverpb::newWatchRpc(channel_);
    lease_ = etcdserverpb::newLeaseRpc(channel_);
    thread_ = std::thread([this] { poll(); });
}

Client::~Client() {
    for (Unary* u : unary_) {
        u->ctx.TryCancel();
    }
    if (stream_) {
        stream_->detach();
    }
    for (auto& s : closing_) {
        s->cancel();
    }
    cq_.Shutdown();
    thread_.join();
    // Every operation has come back by now; unary calls own themselves.
    for (auto& [tag, ok] : finished_) {
        if (auto* u = dynamic_cast<Unary*>(tag)) {
            delete u;
        }
    }
}

void Client::poll() {
    void* tag = nullptr;
    bool ok = false;
    while (cq_.Next(&tag, &ok)) {
        bool wake = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            finished_.emplace_back(static_cast<Tag*>(tag), ok);
            if (!notified_) {
                notified_ = true;
                wake = true;
            }
        }
        if (wake) {
            notify_();
        }
    }
}

void Client::drain() {
    std::vector<std::pair<Tag*, bool>> batch;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        batch.swap(finished_);
        notified_ = false;
    }
    for (auto& [tag, ok] : batch) {
        tag->run(ok);
    }
    reap();
}

void Client::reap() {
    std::erase_if(closing_, [](const std::unique_ptr<WatchStream>& s) { return s->idle(); });
}

void Client::range(const etcdserverpb::RangeRequest& req, Done<etcdserverpb::RangeResponse> done) {
    auto* call = new UnaryCall<etcdserverpb::RangeRequest, etcdserverpb::RangeResponse>();
    call->client = this;
    call->done = std::move(done);
    call->ctx.set_deadline(deadline());
    call->reader = kv_->PrepareAsyncRange(&call->ctx, req, &cq_);
    unary_.insert(call);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, static_cast<Tag*>(call));
}

void Client::txn(const etcdserverpb::TxnRequest& req, Done<etcdserverpb::TxnResponse> done) {
    auto* call = new UnaryCall<etcdserverpb::TxnRequest, etcdserverpb::TxnResponse>();
    call->client = this;
    call->done = std::move(done);
    call->ctx.set_deadline(deadline());
    call->reader = kv_->PrepareAsyncTxn(&call->ctx, req, &cq_);
    unary_.insert(call);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, static_cast<Tag*>(call));
}

void Client::compact(const etcdserverpb::CompactionRequest& req,
                     Done<etcdserverpb::CompactionResponse> done) {
    auto* call = new UnaryCall<etcdserverpb::CompactionRequest, etcdserverpb::CompactionResponse>();
    call->client = this;
    call->done = std::move(done);
    call->ctx.set_deadline(deadline());
    call->reader = kv_->PrepareAsyncCompact(&call->ctx, req, &cq_);
    unary_.insert(call);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, static_cast<Tag*>(call));
}

void Client::leaseGrant(const etcdserverpb::LeaseGrantRequest& req,
                        Done<etcdserverpb::LeaseGrantResponse> done) {
    auto* call = new UnaryCall<etcdserverpb::LeaseGrantRequest, etcdserverpb::LeaseGrantResponse>();
    call->client = this;
    call->done = std::move(done);
    call->ctx.set_deadline(deadline());
    call->reader = lease_->PrepareAsyncLeaseGrant(&call->ctx, req, &cq_);
    unary_.insert(call);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, static_cast<Tag*>(call));
}

void Client::watch(const etcdserverpb::WatchCreateRequest& create, WatchHandlers handlers) {
    closeWatch();
    stream_ = std::make_unique<WatchStream>(*this, std::move(handlers));
    stream_->open(create);
}

void Client::requestProgress() {
    if (stream_) {
        etcdserverpb::WatchRequest req;
        req.mutable_progress_request();
        stream_->send(std::move(req));
    }
}

void Client::closeWatch() {
    if (stream_) {
        stream_->detach();
        closing_.push_back(std::move(stream_));
    }
}

bool unreachable(const grpc::Status& status) {
    switch (status.error_code()) {
        case grpc::StatusCode::UNAVAILABLE:
        case grpc::StatusCode::DEADLINE_EXCEEDED:
        case grpc::StatusCode::CANCELLED:
            return true;
        default:
            return false;
    }
}

Error grpcError(const grpc::Status& s, std::string_view what) {
    std::string message = "etcd " + std::string(what) + ": " + s.error_message();
    if (unreachable(s)) {
        return {ErrorCode::Unavailable, message};
    }
    switch (s.error_code()) {
        case grpc::StatusCode::RESOURCE_EXHAUSTED:
            if (s.error_message().find("space exceeded") != std::string::npos) {
                return {ErrorCode::NoSpace, message};
            }
            return {ErrorCode::Internal, message};
        case grpc::StatusCode::OUT_OF_RANGE:
            if (s.error_message().find("compacted") != std::string::npos) {
                return {ErrorCode::Compacted, message};
            }
            return {ErrorCode::Internal, message};
        default:
            return {ErrorCode::Internal, message};
    }
}

std::string prefixEnd(std::string prefix) {
    while (!prefix.empty()) {
        unsigned char last = static_cast<unsigned char>(prefix.back());
        if (last < 0xff) {
            prefix.back() = static_cast<char>(last + 1);
            return prefix;
        }
        prefix.pop_back();
    }
    return std::string(1, '\0');
}

}  // namespace kube::storage::etcd
