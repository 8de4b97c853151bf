#include "endpoints/list_stream.hpp"

#include <algorithm>

namespace kube::endpoints {

ListStream::ListStream(util::Turns& turns, RenderOptions render, const registry::ListPage& page,
                       std::vector<storage::cacher::ObjectRef> items)
    : turns_(turns), render_(std::move(render)), encoder_(render_, page), items_(std::move(items)) {
    measuring_ = render_.output.form == OutputForm::Protobuf;
}

void ListStream::start(server::StreamSink& sink) {
    sink_ = &sink;
    // A quarter slice now, outside the turns: the head and the first pieces
    // (a list of a few hundred KiB goes out whole); the rest in turns.
    if (runUntil(std::chrono::steady_clock::now() + turns_.slice() / 4)) {
        turns_.ready(shared_from_this());
    }
}

void ListStream::drained() {
    if (!done_ && sink_) {
        turns_.ready(shared_from_this());
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

bool ListStream::runUntil(std::chrono::steady_clock::time_point deadline) {
    while (!done_ && sink_) {
        if (sink_->buffered() >= kLowWater) {
            return false;  // drained() asks for the next turn
        }
        if (!step()) {
            return false;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return !done_ && sink_;
        }
    }
    return false;
}

// One item measured, or one piece sent; false when the stream ended.
bool ListStream::step() {
    if (measuring_) {
        return measureNext();
    }
    if (encodedSent_ == encoded_.size()) {
        encoded_.clear();
        encoded_.reserve(kChunk);
        encodedSent_ = 0;
        if (!headSent_) {
            headSent_ = true;
            encoder_.head(encoded_);
        }
        while (next_ < items_.size()) {
            // A batch that fits one piece goes out without a copy: it stops
            // before an item that would overflow the piece, going by the
            // stored JSON's size (an item's JSON, protobuf or Table row is
            // rarely larger); an item larger than a piece goes alone.
            if (!encoded_.empty() &&
                encoded_.size() + items_[next_]->bytes.size() + kTailRoom > kChunk) {
                break;
            }
            if (!appendItem(next_)) {
                return false;
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
    std::shared_ptr<const std::string> piece;
    if (encodedSent_ == 0 && n == encoded_.size()) {
        // All of it in one piece: handed over, not copied.
        piece = std::make_shared<const std::string>(std::move(encoded_));
        encoded_.clear();
    } else {
        piece = std::make_shared<const std::string>(encoded_, encodedSent_, n);
        encodedSent_ += n;
    }
    if (!sink_->send(std::move(piece))) {
        done_ = true;
        return false;
    }
    if (last) {
        done_ = true;
        sink_->finish();
        return false;
    }
    return true;
}

}  // namespace kube::endpoints
