#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace kube::util {

// A first-in first-out queue that holds no memory while empty (unlike
// std::deque, which allocates a block as soon as it is made): a watch keeps
// a few of these, and an idle watch should cost as little as possible.
template <typename T>
class Fifo {
public:
    bool empty() const { return head_ == items_.size(); }
    size_t size() const { return items_.size() - head_; }

    void push(T item) { items_.push_back(std::move(item)); }

    T& front() { return items_[head_]; }
    const T& front() const { return items_[head_]; }

    // Removes and returns the oldest item.
    T pop() {
        T item = std::move(items_[head_++]);
        if (head_ == items_.size()) {
            clear();
        }
        return item;
    }

    void clear() {
        std::vector<T>().swap(items_);
        head_ = 0;
    }

    // Visits the items oldest first.
    template <typename Fn>
    void forEach(Fn&& fn) const {
        for (size_t i = head_; i < items_.size(); i++) {
            fn(items_[i]);
        }
    }

private:
    std::vector<T> items_;
    size_t head_ = 0;
};

}  // namespace kube::util
