/*
 * Streamed responses (watch, large lists). The headers go out without a
 * length, then each batch of parts the source produces is written without a
 * copy and flushed. A
 * client that leaves more than kube_stream_max_buffered unread, or reads
 * nothing for send_timeout, is cut; a client that goes away releases the
 * stream at once; a worker that is exiting (reload, quit) ends its streams
 * cleanly, so that clients reconnect to the new workers.
 *
 * The sink never ends the request from inside send() or finish(): the end
 * runs from a posted event, which stops the source first.
 */

#include <vector>

#include "kube_module.hpp"

#include "util/fifo.hpp"

namespace kube::module {

class NginxStream;

namespace {

/* how often, while streams are open, the worker looks whether it is
 * exiting; the timer is not cancelable, so an exiting worker waits for it */
constexpr ngx_msec_t kExitCheckInterval = 250;

/* A stream's place in the worker's list of open streams. */
struct ngx_http_kube_stream_link_t {
    ngx_queue_t   queue;
    NginxStream  *stream;
};

ngx_queue_t  ngx_http_kube_streams = {
    &ngx_http_kube_streams, &ngx_http_kube_streams
};
ngx_event_t  ngx_http_kube_exit_check;

void ngx_http_kube_streams_exit_check(ngx_event_t *ev);

}  // namespace


// One streamed response: the sink its source writes into. Allocated by
// ngx_http_kube_stream_start(), freed by the request pool's cleanup.
class NginxStream : public endpoints::StreamSink {
public:
    NginxStream(ngx_http_request_t* r,
                std::shared_ptr<endpoints::StreamSource> source);
    ~NginxStream() override;

    bool send(std::span<endpoints::StreamPart> parts) override;
    size_t buffered() const override;
    void finish() override;

    ngx_int_t start();
    void close();
    void release();

    static void writeHandler(ngx_http_request_t* r);

private:
    enum class End { None, Finish, Cut, TimedOut, Error };

    // One part sent: a buffer pointing into the bytes its owner keeps alive.
    struct Buffer {
        ngx_chain_t cl;
        ngx_buf_t b;
        std::shared_ptr<const void> owner;
        Buffer* nextFree = nullptr;
    };

    static void endHandler(ngx_event_t* ev);
    static void cleanup(void* data);

    Buffer* freeBuffer();
    void flush(ngx_chain_t* in);
    void reclaim();
    void end(End why);
    void cut(End why, const char* reason);
    void stopSource();

    ngx_http_request_t* r_;
    std::shared_ptr<endpoints::StreamSource> source_;
    size_t maxBuffered_;
    ngx_msec_t sendTimeout_;
    size_t sendLowat_;
    ngx_http_kube_stream_link_t link_;
    ngx_event_t endEvent_{};  // posted by end()
    End end_ = End::None;
    bool started_ = false;
    bool stopped_ = false;
    bool draining_ = false;   // bytes were left unwritten; drained() is due
    util::Fifo<Buffer*> busy_;  // handed to nginx, oldest first
    size_t pending_ = 0;      // the sizes of the busy buffers
    /* a watch rarely has more than one event in flight: its buffer is part
     * of the stream; more are made when needed (a list sends several parts
     * at a time) and kept for reuse, the free ones linked from free_ */
    Buffer first_;
    std::vector<std::unique_ptr<Buffer>> more_;
    Buffer* free_ = &first_;
};


NginxStream::NginxStream(ngx_http_request_t* r,
                         std::shared_ptr<endpoints::StreamSource> source)
    : r_(r), source_(std::move(source))
{
    ngx_http_core_loc_conf_t* clcf = static_cast<ngx_http_core_loc_conf_t*>(
        ngx_http_get_module_loc_conf(r, ngx_http_core_module));
    ngx_http_kube_loc_conf_t* klcf = static_cast<ngx_http_kube_loc_conf_t*>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

    maxBuffered_ = klcf->stream_max_buffered;
    sendTimeout_ = clcf->send_timeout;
    sendLowat_ = clcf->send_lowat;

    endEvent_.handler = endHandler;
    endEvent_.data = this;
    endEvent_.log = r->connection->log;

    link_.stream = this;
    ngx_queue_init(&link_.queue);
}


NginxStream::~NginxStream()
{
    if (endEvent_.posted) {
        ngx_delete_posted_event(&endEvent_);
    }
}


/* Takes over the request: called once the headers are out. */
ngx_int_t
NginxStream::start()
{
    ngx_pool_cleanup_t* cln = ngx_pool_cleanup_add(r_->pool, 0);
    if (cln == NULL) {
        return NGX_ERROR;
    }

    cln->handler = cleanup;
    cln->data = this;

    ngx_queue_insert_tail(&ngx_http_kube_streams, &link_.queue);

    if (!ngx_http_kube_exit_check.timer_set) {
        /* data is never NULL: nginx's debug log reads a connection from it */
        ngx_http_kube_exit_check.handler = ngx_http_kube_streams_exit_check;
        ngx_http_kube_exit_check.data = (void *) ngx_cycle;
        ngx_http_kube_exit_check.log = ngx_cycle->log;
        ngx_add_timer(&ngx_http_kube_exit_check, kExitCheckInterval);
    }

    /* the stream's reference on the request, released by the end */
    r_->main->count++;

    r_->write_event_handler = writeHandler;
    if (!r_->discard_body) {
        r_->read_event_handler = ngx_http_test_reading;
    }

    /* the headers go out now, not with the first event: clients wait for
     * them before they read anything */
    if (ngx_http_send_special(r_, NGX_HTTP_FLUSH) == NGX_ERROR) {
        end(End::Error);
        return NGX_DONE;
    }

#if (NGX_HTTP_V2)
    /* on h2 the HEADERS frame waits in the connection's TLS buffer until
     * a DATA frame flushes it; a watch may have nothing to send for long */
    if (r_->stream
        && ngx_http_v2_send_output_queue(r_->stream->connection) == NGX_ERROR)
    {
        end(End::Error);
        return NGX_DONE;
    }
#endif

    started_ = true;

    try {
        source_->start(*this);

    } catch (const std::exception& e) {
        ngx_log_error(NGX_LOG_ALERT, r_->connection->log, 0,
                      "kube-apiserver: stream start failed: %s", e.what());
        end(End::Error);
    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, r_->connection->log, 0,
                      "kube-apiserver: stream start failed");
        end(End::Error);
    }

    return NGX_DONE;
}


bool
NginxStream::send(std::span<endpoints::StreamPart> parts)
{
    ngx_chain_t*   in = NULL;
    ngx_chain_t**  last = &in;
    Buffer*        tail = NULL;

    if (end_ != End::None) {
        return false;
    }

    for (endpoints::StreamPart& part : parts) {
        if (part.bytes.empty()) {
            continue;
        }

        Buffer* buf = freeBuffer();

        /* nginx only reads a memory buffer */
        u_char* p = reinterpret_cast<u_char*>(
            const_cast<char*>(part.bytes.data()));

        ngx_memzero(&buf->b, sizeof(ngx_buf_t));
        buf->b.start = p;
        buf->b.pos = p;
        buf->b.last = p + part.bytes.size();
        buf->b.end = buf->b.last;
        buf->b.memory = 1;
        buf->b.tag = (ngx_buf_tag_t) &ngx_http_kube_apiserver_module;
        buf->cl.buf = &buf->b;
        buf->cl.next = NULL;

        pending_ += part.bytes.size();
        buf->owner = std::move(part.owner);
        busy_.push(buf);

        *last = &buf->cl;
        last = &buf->cl.next;
        tail = buf;
    }

    if (tail == NULL) {
        return true;
    }

    /* the batch goes out now, in one write where the socket takes it */
    tail->b.flush = 1;

    flush(in);

    if (end_ != End::None) {
        return false;
    }

    if (buffered() > maxBuffered_) {
        cut(End::Cut, "too much unread");
        return false;
    }

    return true;
}


size_t
NginxStream::buffered() const
{
    if (busy_.empty()) {
        return 0;
    }

    const ngx_buf_t& front = busy_.front()->b;

    return pending_ - (front.pos - front.start);
}


void
NginxStream::finish()
{
    end(End::Finish);
}


/* The worker is exiting: the client gets a clean end and reconnects. */
void
NginxStream::close()
{
    end(End::Finish);
}


/* Writes what nginx can take now. send_timeout runs while something is
 * left and starts again whenever the client takes some of it. */
void
NginxStream::flush(ngx_chain_t* in)
{
    ngx_connection_t* c = r_->connection;
    ngx_event_t* wev = c->write;
    off_t sent = c->sent;
    size_t before = buffered();

    if (ngx_http_output_filter(r_, in) == NGX_ERROR) {
        end(End::Error);
        return;
    }

    reclaim();

    if (!busy_.empty()) {
        draining_ = true;
    }

    /* limit_rate's delay owns the timer meanwhile */
    if (wev->delayed) {
        return;
    }

    if (busy_.empty() && !c->buffered) {
        if (wev->timer_set) {
            ngx_del_timer(wev);
        }
        return;
    }

    if (!wev->timer_set || c->sent != sent || buffered() < before) {
        ngx_add_timer(wev, sendTimeout_);
    }

    /* with epoll the write event is registered only once it is needed */
    if (ngx_handle_write_event(wev, sendLowat_) != NGX_OK) {
        end(End::Error);
    }
}


NginxStream::Buffer*
NginxStream::freeBuffer()
{
    Buffer* buf = free_;

    if (buf != NULL) {
        free_ = buf->nextFree;
        return buf;
    }

    more_.push_back(std::make_unique<Buffer>());

    return more_.back().get();
}


/* Buffers nginx wrote (or copied) are free again. */
void
NginxStream::reclaim()
{
    while (!busy_.empty()) {
        Buffer* buf = busy_.front();

        if (buf->b.pos != buf->b.last) {
            break;
        }

        pending_ -= buf->b.last - buf->b.start;
        buf->owner.reset();
        busy_.pop();

        buf->nextFree = free_;
        free_ = buf;
    }
}


void
NginxStream::cut(End why, const char* reason)
{
    ngx_log_error(NGX_LOG_INFO, r_->connection->log, 0,
                  "kube-apiserver: watch stream cut (%s): %uz bytes unread",
                  reason, buffered());

    end(why);
}


/* The stream produces nothing more; the request ends from a posted event. */
void
NginxStream::end(End why)
{
    if (end_ != End::None) {
        return;
    }

    end_ = why;
    ngx_post_event(&endEvent_, &ngx_posted_events);
}


void
NginxStream::stopSource()
{
    if (!started_ || stopped_) {
        return;
    }

    stopped_ = true;

    /* stop() may drop the last other reference to the source */
    std::shared_ptr<endpoints::StreamSource> source = std::move(source_);

    try {
        source->stop();

    } catch (const std::exception& e) {
        ngx_log_error(NGX_LOG_ALERT, ngx_cycle->log, 0,
                      "kube-apiserver: stream stop failed: %s", e.what());
    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, ngx_cycle->log, 0,
                      "kube-apiserver: stream stop failed");
    }
}


/* The worker is going away without running its requests to the end. */
void
NginxStream::release()
{
    if (end_ == End::None) {
        end_ = End::Error;
    }

    if (endEvent_.posted) {
        ngx_delete_posted_event(&endEvent_);
    }

    stopSource();
}


void
NginxStream::writeHandler(ngx_http_request_t* r)
{
    ngx_connection_t* c = r->connection;
    ngx_event_t* wev = c->write;
    ngx_http_kube_ctx_t* ctx = static_cast<ngx_http_kube_ctx_t*>(
        ngx_http_get_module_ctx(r, ngx_http_kube_apiserver_module));

    if (ctx == NULL || ctx->stream == NULL) {
        return;
    }

    NginxStream* st = ctx->stream;

    try {
        if (wev->timedout) {
            wev->timedout = 0;
            if (st->end_ == End::None) {
                c->timedout = 1;
                st->cut(End::TimedOut, "client timed out");
            }
            return;
        }

        /* a cut stream is not written any more; a finished one is, until
         * its end event takes over */
        if (wev->delayed
            || (st->end_ != End::None && st->end_ != End::Finish))
        {
            return;
        }

        st->flush(NULL);

        if (st->end_ == End::Error) {
            return;
        }

        if (!st->busy_.empty() || c->buffered) {
            /* a write event is the client taking bytes (on h2, a frame it
             * had room for): send_timeout starts again */
            if (!wev->delayed) {
                ngx_add_timer(wev, st->sendTimeout_);
            }
            return;
        }

        if (st->draining_ && st->end_ == End::None) {
            st->draining_ = false;
            st->source_->drained();
        }

    } catch (const std::exception& e) {
        ngx_log_error(NGX_LOG_ALERT, c->log, 0,
                      "kube-apiserver: stream write failed: %s", e.what());
        st->end(End::Error);
    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, c->log, 0,
                      "kube-apiserver: stream write failed");
        st->end(End::Error);
    }
}


void
NginxStream::endHandler(ngx_event_t* ev)
{
    NginxStream* st = static_cast<NginxStream*>(ev->data);
    ngx_http_request_t* r = st->r_;
    ngx_connection_t* c = r->connection;
    ngx_int_t rc;

    st->stopSource();

    /* finalizing may free the request, and with it the stream */

    switch (st->end_) {

    case End::Finish:
        rc = ngx_http_send_special(r, NGX_HTTP_LAST);
        ngx_http_finalize_request(r, rc);
        break;

    case End::TimedOut:
        ngx_http_finalize_request(r, NGX_HTTP_REQUEST_TIME_OUT);
        break;

    default:
        ngx_http_finalize_request(r, NGX_ERROR);
        break;
    }

    ngx_http_run_posted_requests(c);
}


/* The request pool goes: whatever ended the request, the source stops. */
void
NginxStream::cleanup(void* data)
{
    NginxStream* st = static_cast<NginxStream*>(data);

    ngx_queue_remove(&st->link_.queue);

    switch (st->end_) {
    case End::Finish:
        ngx_http_kube_metrics_stream_end(NGX_HTTP_KUBE_STREAM_FINISHED);
        break;
    case End::Cut:
        ngx_http_kube_metrics_stream_end(NGX_HTTP_KUBE_STREAM_CUT);
        ngx_http_kube_metrics_watcher_terminated(st->r_);
        break;
    case End::TimedOut:
        ngx_http_kube_metrics_stream_end(NGX_HTTP_KUBE_STREAM_TIMED_OUT);
        break;
    default:
        ngx_http_kube_metrics_stream_end(NGX_HTTP_KUBE_STREAM_GONE);
        break;
    }

    st->stopSource();

    delete st;
}


namespace {

/* While streams are open: ends them cleanly once the worker is exiting. */
void
ngx_http_kube_streams_exit_check(ngx_event_t *ev)
{
    ngx_queue_t                  *q;
    ngx_http_kube_stream_link_t  *link;

    if (ngx_exiting) {
        for (q = ngx_queue_head(&ngx_http_kube_streams);
             q != ngx_queue_sentinel(&ngx_http_kube_streams);
             q = ngx_queue_next(q))
        {
            link = ngx_queue_data(q, ngx_http_kube_stream_link_t, queue);
            link->stream->close();
        }
    }

    if (!ngx_queue_empty(&ngx_http_kube_streams)) {
        ngx_add_timer(ev, kExitCheckInterval);
    }
}

}  // namespace

}  // namespace kube::module


using kube::module::NginxStream;
using kube::module::ngx_http_kube_stream_link_t;
using kube::module::ngx_http_kube_streams;
using kube::module::ngx_http_kube_exit_check;


ngx_int_t
ngx_http_kube_stream_start(ngx_http_request_t *r,
    std::shared_ptr<kube::endpoints::StreamSource> source)
{
    ngx_int_t             rc;
    NginxStream          *st;
    ngx_http_kube_ctx_t  *ctx;

    ctx = ngx_http_kube_get_ctx(r);
    if (ctx == NULL || ctx->stream != NULL) {
        return NGX_ERROR;
    }

    /* the watch (or, under max-in-flight, the streamed list) is
     * initialized: from here on it is long-running, and its seat goes back
     * before the first byte is sent, so a client that has the headers never
     * finds the seat still taken */
    ngx_http_kube_flowcontrol_release(r);

    st = new NginxStream(r, std::move(source));
    ctx->stream = st;

    rc = st->start();
    if (rc == NGX_ERROR) {
        ctx->stream = NULL;
        delete st;
        return rc;
    }

    /* the checks are behind and the answer is given: a stream that may
     * stay open for long keeps nothing of the request's identity (swapped
     * out, so the heap goes), nor the token of a pending answer */
    {
        kube::endpoints::RequestInfo  info;
        kube::authn::UserInfo         user;

        ngx_http_kube_metrics_keep_labels(r, ctx);
        std::swap(ctx->info, info);
        std::swap(ctx->user, user);
    }

    ctx->alive.reset();

    return rc;
}


void
ngx_http_kube_streams_release(ngx_cycle_t *cycle)
{
    ngx_queue_t                  *q;
    ngx_http_kube_stream_link_t  *link;

    if (ngx_http_kube_exit_check.timer_set) {
        ngx_del_timer(&ngx_http_kube_exit_check);
    }

    for (q = ngx_queue_head(&ngx_http_kube_streams);
         q != ngx_queue_sentinel(&ngx_http_kube_streams);
         q = ngx_queue_next(q))
    {
        link = ngx_queue_data(q, ngx_http_kube_stream_link_t, queue);
        link->stream->release();
    }
}

