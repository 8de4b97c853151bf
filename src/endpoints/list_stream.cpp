#include "endpoints/list_stream.hpp"

#include <algorithm>

namespace kube::endpoints {

ListStream::ListStream(util::EventLoop& loop, RenderOptions render,
                       const registry::ListPage& page,
                       std::vector<storage::cacher::ObjectRef> items)
    : loop_(loop), render_(std::move(render)), encoder_(render_, page), items_(std::move(items)) {
    measuring_ = render_.output.form == OutputForm::Protobuf;
}

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

// One item of the first pass; false when the stream ended.
bool ListStream::measureNext() {
    if (measured_ == items_.size()) {
        measuring_ = false;
        encoder_.setItemsSize(itemsSize_);
        return true;
    }
    std::string bytes;
    if (!encoder_.item(bytes, *items_[measured_])) {
        abort();
        return false;
    }
    itemsSize_ += bytes.size();
    measured_++;
    return true;
}

// Appends item `i` to the pending bytes; false when the stream ended.
bool ListStream::appendItem(size_t i) {
    if (!encoder_.item(encoded_, *items_[i])) {
        abort();
        return false;
    }
    return true;
}

// An object that cannot be encoded: the body ends short of what the
// envelope announced (or of the JSON's closing brackets).
void ListStream::abort() {
    done_ = true;
    if (sink_) {
        sink_->finish();
    }
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
        if (measuring_) {
            if (!measureNext()) {
                return;
            }
            continue;
        }
        if (encodedSent_ == encoded_.size()) {
            encoded_.clear();
            encodedSent_ = 0;
            if (!headSent_) {
                headSent_ = true;
                encoder_.head(encoded_);
            }
            while (next_ < items_.size() && encoded_.size() < kChunk) {
                if (!appendItem(next_)) {
                    return;
                }
                // Encoded items are released at once: memory falls as the list goes out.
                items_[next_++].reset();
            }
            if (next_ == items_.size()) {
                encoder_.tail(encoded_);
                items_.clear();
            }
        }
        size_t n = std::min(kChunk, encoded_.size() - encodedSent_);
        bool last = items_.empty() && encodedSent_ + n == encoded_.size();
        auto piece = std::make_shared<const std::string>(encoded_, encodedSent_, n);
        encodedSent_ += n;
        if (!sink_->send(std::move(piece))) {
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
