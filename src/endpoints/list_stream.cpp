#include "endpoints/list_stream.hpp"

namespace kube::endpoints {

ListStream::ListStream(util::EventLoop& loop, RenderOptions render,
                       const registry::ListPage& page,
                       std::vector<storage::cacher::ObjectRef> items)
    : loop_(loop), render_(std::move(render)), encoder_(render_, page), items_(std::move(items)) {}

void ListStream::start(server::StreamSink& sink) {
    sink_ = &sink;
    pump();
}

void ListStream::drained() {
    if (!done_ && sink_) {
        pump();
    }
}

void ListStream::stop() {
    done_ = true;
    sink_ = nullptr;
    items_.clear();
    items_.shrink_to_fit();
}

void ListStream::pump() {
    auto began = std::chrono::steady_clock::now();
    while (!done_ && sink_) {
        if (sink_->buffered() >= kLowWater) {
            return;  // drained() continues
        }
        if (std::chrono::steady_clock::now() - began >= kSlice) {
            if (!posted_) {
                posted_ = true;
                loop_.post([self = weak_from_this()] {
                    if (auto s = self.lock()) {
                        s->posted_ = false;
                        if (!s->done_ && s->sink_) {
                            s->pump();
                        }
                    }
                });
            }
            return;
        }
        std::string chunk;
        chunk.reserve(kChunk + 4096);
        if (next_ == 0) {
            encoder_.head(chunk);
        }
        while (next_ < items_.size() && chunk.size() < kChunk) {
            encoder_.item(chunk, items_[next_]->bytes);
            // Sent items are released at once: memory falls as the list goes out.
            items_[next_++].reset();
        }
        bool last = next_ == items_.size();
        if (last) {
            encoder_.tail(chunk);
        }
        if (!sink_->send(std::make_shared<const std::string>(std::move(chunk)))) {
            done_ = true;
            return;
        }
        if (last) {
            done_ = true;
            sink_->finish();
            return;
        }
    }
}

}  // namespace kube::endpoints
