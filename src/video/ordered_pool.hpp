// Jobs dealt out in order to a pool of workers, each owning one resource (an engine on its
// own device), and their results handed back in the order the jobs were submitted: the
// encoder must see frames in order however fast each device is. The jobs submitted but not
// yet collected are capped (back-pressure, so memory stays bounded). The first job to throw
// stops the pool, and submit() and next() rethrow its exception from then on.
//
// A job runs in two halves: the work starts it and returns what finishes it. A worker with
// another job waiting starts that one before finishing the last (an engine uploads pair
// k + 1 while pair k computes); with none waiting it finishes the last at once, so a
// started job never waits for the next to be submitted.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

namespace framecast::video {

template <class Worker, class Job, class Result>
class OrderedPool {
 public:
  using Finish = std::function<Result()>;
  using Work = std::function<Finish(Worker&, Job&)>;

  // One thread per worker; `max_in_flight` (at least 1) caps the jobs submitted and not yet
  // collected by next().
  OrderedPool(std::vector<Worker> workers, Work work, std::size_t max_in_flight)
      : workers_(std::move(workers)), work_(std::move(work)), max_in_flight_(max_in_flight) {
    threads_.reserve(workers_.size());
    for (Worker& worker : workers_)
      threads_.emplace_back([this, &worker](std::stop_token stop) { serve(worker, stop); });
  }

  // Stops the workers and waits for the jobs they are running.
  ~OrderedPool() {
    for (auto& thread : threads_) thread.request_stop();
    for (auto& thread : threads_) thread.join();
  }
  OrderedPool(const OrderedPool&) = delete;
  OrderedPool& operator=(const OrderedPool&) = delete;

  // Waits for room; false when a stop was requested first (the job is dropped).
  bool submit(Job job, std::stop_token stop) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait(lock, stop, [&] { return failure_ || submitted_ - collected_ < max_in_flight_; }))
      return false;
    throw_if_failed();
    waiting_.emplace_back(submitted_++, std::move(job));
    changed_.notify_all();
    return true;
  }

  // No more jobs: next() ends once every result is collected.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

  // The oldest job's result, waiting for it; nullopt after close() once every result was
  // collected, or on a stop request.
  std::optional<Result> next(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    const auto ready = [&] {
      return failure_ || finished_.count(collected_) || (closed_ && collected_ == submitted_);
    };
    if (!changed_.wait(lock, stop, ready)) return std::nullopt;
    throw_if_failed();
    const auto found = finished_.find(collected_);
    if (found == finished_.end()) return std::nullopt;
    Result result = std::move(found->second);
    finished_.erase(found);
    ++collected_;
    changed_.notify_all();
    return result;
  }

 private:
  void serve(Worker& worker, std::stop_token stop) {
    std::optional<std::pair<std::uint64_t, Finish>> started;  // the job started last
    const auto finish_started = [&] {
      auto [index, finish] = std::move(*started);
      started.reset();
      Result result = finish();
      std::lock_guard lock(mutex_);
      finished_.emplace(index, std::move(result));
      changed_.notify_all();
    };
    // On the way out its result is not wanted, but its engine must not be left with a job
    // half done; any error is secondary to what ended the pool.
    const auto drop_started = [&]() noexcept {
      if (!started) return;
      const Finish finish = std::move(started->second);
      started.reset();
      try {
        finish();
      } catch (...) {
      }
    };
    for (;;) {
      try {
        std::unique_lock lock(mutex_);
        if (started && waiting_.empty() && !failure_) {
          lock.unlock();
          finish_started();
          continue;
        }
        // A wait whose condition holds returns true even when stopped: jobs left are dropped.
        changed_.wait(lock, stop, [&] { return failure_ || !waiting_.empty(); });
        if (stop.stop_requested() || failure_) {
          lock.unlock();
          drop_started();
          return;
        }
        auto [index, job] = std::move(waiting_.front());
        waiting_.pop_front();
        lock.unlock();
        Finish finish = work_(worker, job);
        if (started) finish_started();
        started.emplace(index, std::move(finish));
      } catch (...) {
        {
          std::lock_guard lock(mutex_);
          if (!failure_) failure_ = std::current_exception();
          changed_.notify_all();
        }
        drop_started();
        return;
      }
    }
  }

  void throw_if_failed() const {
    if (failure_) std::rethrow_exception(failure_);
  }

  std::vector<Worker> workers_;
  Work work_;
  std::size_t max_in_flight_;
  std::mutex mutex_;
  std::condition_variable_any changed_;  // any change of the state below
  std::deque<std::pair<std::uint64_t, Job>> waiting_;  // submitted, not yet taken by a worker
  std::map<std::uint64_t, Result> finished_;           // done, not yet collected
  std::uint64_t submitted_ = 0, collected_ = 0;
  bool closed_ = false;
  std::exception_ptr failure_;  // the first job's exception
  std::vector<std::jthread> threads_;  // last: stopped before the state they use goes
};

}  // namespace framecast::video
