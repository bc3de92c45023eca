// A capped queue between two pipeline threads: a full queue blocks the producer
// (back-pressure, so memory stays bounded and the slowest stage sets the pace), close() marks
// the end of the stream, and a stop request wakes both sides.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>

namespace framecast::video {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {}

  // Waits for room; false when a stop was requested first (the item is dropped).
  bool push(T item, std::stop_token stop) {
    std::unique_lock lock(mutex_);
    if (!not_full_.wait(lock, stop, [&] { return items_.size() < capacity_; })) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }

  // The next item; nullopt at the end of the stream (closed and drained) or on a stop request.
  std::optional<T> pop(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    if (!not_empty_.wait(lock, stop, [&] { return !items_.empty() || closed_; })) return std::nullopt;
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }

  // The producer's end of stream: pop returns what is left, then nullopt.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }

 private:
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable_any not_full_, not_empty_;
  std::deque<T> items_;
  bool closed_ = false;
};

}  // namespace framecast::video
