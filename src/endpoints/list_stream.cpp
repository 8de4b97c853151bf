#include "endpoints/list_stream.hpp"

#include <algorithm>

namespace kube::endpoints {

ListStream::ListStream(util::Turns& turns, RenderOptions render, const registry::ListPage& page,
                       std::vector<storage::cacher::ObjectRef> items)
    : turns_(turns), render_(std::move(render)), encoder_(render_, page), items_(std::move(items)) {
    measuring_ = render_.output.form == OutputForm::Protobuf;
}

void ListStream::start(StreamSink& sink) {
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
    pending_.clear();
    pending_.shrink_to_fit();
    out_.clear();
    out_.shrink_to_fit();
}

// One item of the first pass; false when the stream ended.
bool ListStream::measureNext() {
    if (measured_ == items_.size()) {
        measuring_ = false;
        encoder_.setItemsSize(itemsSize_);
        return true;
    }
    std::string head;
    std::string_view borrowed;
    if (!encoder_.item(head, *items_[measured_], borrowed)) {
        abort();
        return false;
    }
    itemsSize_ += head.size() + borrowed.size();
    measured_++;
    return true;
}

// The next batch of parts: the head first, then items until the next would
// overflow kChunk (an item larger than that goes alone), and the tail after
// the last; false when the stream ended.
bool ListStream::produce() {
    pending_.clear();
    pendingAt_ = 0;
    // Separators and small items, copied; a borrowed item ends the copy.
    auto copy = std::make_shared<std::string>();
    size_t size = 0;
    auto endCopy = [&](bool more) {
        if (!copy->empty()) {
            std::string_view bytes = *copy;
            pending_.push_back({std::move(copy), bytes});
            if (more) {
                copy = std::make_shared<std::string>();
            }
        }
    };
    if (!headSent_) {
        headSent_ = true;
        encoder_.head(*copy);
    }
    while (next_ < items_.size()) {
        // Going by the stored JSON's size (an item's protobuf or Table row
        // is rarely larger).
        if (size + copy->size() > 0 &&
            size + copy->size() + items_[next_]->bytes.size() + kTailRoom > kChunk) {
            break;
        }
        std::string_view borrowed;
        if (!encoder_.item(*copy, *items_[next_], borrowed)) {
            abort();
            return false;
        }
        if (borrowed.size() >= kBorrowFrom) {
            size += copy->size() + borrowed.size();
            endCopy(true);
            // The part holds the object until its bytes are written.
            pending_.push_back({std::move(items_[next_]), borrowed});
        } else {
            if (copy->capacity() < kChunk - size) {
                copy->reserve(kChunk - size);  // the room left in this batch
            }
            copy->append(borrowed);
            // Released at once: memory falls as the list goes out.
            items_[next_].reset();
        }
        next_++;
    }
    if (next_ == items_.size()) {
        encoder_.tail(*copy);
        items_.clear();
    }
    endCopy(false);
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

// One item measured, or up to kChunk bytes sent; false when the stream ended.
bool ListStream::step() {
    if (measuring_) {
        return measureNext();
    }
    if (pendingAt_ == pending_.size() && !produce()) {
        return false;
    }
    out_.clear();
    size_t n = 0;
    while (pendingAt_ < pending_.size() && n < kChunk) {
        StreamPart& part = pending_[pendingAt_];
        size_t take = std::min(kChunk - n, part.bytes.size());
        if (take == part.bytes.size()) {
            out_.push_back(std::move(part));
            pendingAt_++;
        } else {
            out_.push_back({part.owner, part.bytes.substr(0, take)});
            part.bytes.remove_prefix(take);
        }
        n += take;
    }
    bool last = items_.empty() && pendingAt_ == pending_.size();
    if (!sink_->send(out_)) {
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
