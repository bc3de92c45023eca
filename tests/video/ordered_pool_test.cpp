// OrderedPool: jobs dealt out to workers of different speeds come back in submission order,
// no more than the cap are in flight, the first failure reaches the caller, and a stop or
// the pool's end never hangs on a worker. A worker starts a waiting job before finishing the
// one before, and never leaves a started job unfinished.
#include "video/ordered_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace framecast::video {
namespace {

using namespace std::chrono_literals;

// A worker that takes `delay` per job, standing in for an engine on a slower or faster device.
struct Sleeper {
  std::chrono::milliseconds delay;
  int id = 0;
};

struct Done {
  int job = 0;
  int worker = 0;
};

using Pool = OrderedPool<Sleeper, int, Done>;

Pool::Work sleep_then_echo() {
  return [](Sleeper& worker, int& job) -> Pool::Finish {
    std::this_thread::sleep_for(worker.delay);
    return [done = Done{job, worker.id}] { return done; };
  };
}

TEST(OrderedPool, ResultsComeInSubmissionOrderFromWorkersOfDifferentSpeeds) {
  Pool pool({{1ms, 0}, {7ms, 1}, {3ms, 2}}, sleep_then_echo(), 6);
  std::stop_source stop;
  constexpr int jobs = 60;
  std::jthread feeder([&] {
    for (int i = 0; i < jobs; ++i) ASSERT_TRUE(pool.submit(i, stop.get_token()));
    pool.close();
  });
  std::vector<int> order;
  std::set<int> workers;
  while (auto done = pool.next(stop.get_token())) {
    order.push_back(done->job);
    workers.insert(done->worker);
  }
  ASSERT_EQ(order.size(), std::size_t(jobs));
  for (int i = 0; i < jobs; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(workers.size(), 3u) << "every worker should have taken jobs";
}

TEST(OrderedPool, NoMoreThanTheCapAreInFlight) {
  std::atomic<int> started{0};
  Pool pool({{0ms, 0}, {0ms, 1}}, [&](Sleeper&, int& job) -> Pool::Finish {
    ++started;
    return [job] { return Done{job, 0}; };
  }, 3);
  std::stop_source stop;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pool.submit(i, stop.get_token()));
  // Nothing collected: a fourth submission waits until the caller stops it.
  std::atomic<bool> fourth_returned{false};
  std::jthread submitter([&] {
    EXPECT_FALSE(pool.submit(3, stop.get_token()));
    fourth_returned = true;
  });
  for (int waited = 0; started < 3 && waited < 5000; ++waited) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(fourth_returned);
  EXPECT_EQ(started, 3);
  stop.request_stop();
  submitter.join();
  EXPECT_TRUE(fourth_returned);
}

TEST(OrderedPool, CollectingMakesRoomForTheNextJob) {
  Pool pool({{0ms, 0}}, sleep_then_echo(), 1);
  std::stop_source stop;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(pool.submit(i, stop.get_token()));
    const auto done = pool.next(stop.get_token());
    ASSERT_TRUE(done);
    EXPECT_EQ(done->job, i);
  }
}

TEST(OrderedPool, TheFirstFailureReachesTheCaller) {
  Pool pool({{0ms, 0}, {5ms, 1}}, [](Sleeper& worker, int& job) -> Pool::Finish {
    std::this_thread::sleep_for(worker.delay);
    if (job == 4) throw std::runtime_error("device 1 was lost");
    return [done = Done{job, worker.id}] { return done; };
  }, 4);
  std::stop_source stop;
  std::string error;
  try {
    for (int i = 0; i < 100; ++i) {
      pool.submit(i, stop.get_token());
      while (pool.next(stop.get_token())->job < i) {
      }
    }
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "device 1 was lost");
  // Later calls report the same failure, whichever side asks.
  EXPECT_THROW(pool.submit(100, stop.get_token()), std::runtime_error);
  EXPECT_THROW(pool.next(stop.get_token()), std::runtime_error);
}

TEST(OrderedPool, AStopEndsAWaitForAResult) {
  std::atomic<bool> release{false};
  Pool pool({{0ms, 0}}, [&](Sleeper&, int& job) -> Pool::Finish {
    while (!release) std::this_thread::sleep_for(1ms);
    return [job] { return Done{job, 0}; };
  }, 2);
  std::stop_source stop;
  ASSERT_TRUE(pool.submit(0, stop.get_token()));
  std::jthread stopper([&] {
    std::this_thread::sleep_for(50ms);
    stop.request_stop();
  });
  EXPECT_FALSE(pool.next(stop.get_token()));
  release = true;  // the running job ends; the pool's end then joins its worker
}

TEST(OrderedPool, EndsWithJobsStillWaiting) {
  std::atomic<int> ran{0};
  {
    Pool pool({{20ms, 0}}, [&](Sleeper& worker, int& job) -> Pool::Finish {
      std::this_thread::sleep_for(worker.delay);
      ++ran;
      return [job] { return Done{job, 0}; };
    }, 10);
    std::stop_source stop;
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(pool.submit(i, stop.get_token()));
  }
  EXPECT_LT(ran, 10) << "the waiting jobs should have been dropped";
}

// What a worker did, in order: "s3" started job 3, "f3" finished it.
class Log {
 public:
  void add(std::string event) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  std::vector<std::string> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> events_;
};

// Job 0's start waits until `open`, so that the jobs after it are all waiting by then.
Pool::Work logged(Log& log, std::atomic<bool>& open, int failing = -1) {
  return [&log, &open, failing](Sleeper&, int& job) -> Pool::Finish {
    while (job == 0 && !open) std::this_thread::sleep_for(1ms);
    if (job == failing) throw std::runtime_error("job " + std::to_string(job) + " failed");
    log.add("s" + std::to_string(job));
    return [&log, job] {
      log.add("f" + std::to_string(job));
      return Done{job, 0};
    };
  };
}

TEST(OrderedPool, AWaitingJobStartsBeforeTheLastFinishes) {
  Log log;
  std::atomic<bool> open{false};
  Pool pool({{0ms, 0}}, logged(log, open), 8);
  std::stop_source stop;
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.submit(i, stop.get_token()));
  open = true;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(pool.next(stop.get_token())->job, i);
  const std::vector<std::string> expected = {"s0", "s1", "f0", "s2", "f1", "s3", "f2", "f3"};
  EXPECT_EQ(log.events(), expected);
}

TEST(OrderedPool, AFailedStartStillFinishesTheJobBefore) {
  Log log;
  std::atomic<bool> open{false};
  {
    Pool pool({{0ms, 0}}, logged(log, open, 1), 8);
    std::stop_source stop;
    for (int i = 0; i < 2; ++i) ASSERT_TRUE(pool.submit(i, stop.get_token()));
    open = true;
    EXPECT_THROW(
        {
          while (pool.next(stop.get_token())) {
          }
        },
        std::runtime_error);
  }  // the worker has ended
  const std::vector<std::string> expected = {"s0", "f0"};
  EXPECT_EQ(log.events(), expected) << "job 0 was started and must not be left half done";
}

TEST(OrderedPool, AClosedEmptyPoolEndsAtOnce) {
  Pool pool({{0ms, 0}, {0ms, 1}}, sleep_then_echo(), 2);
  pool.close();
  EXPECT_FALSE(pool.next(std::stop_token()));
}

}  // namespace
}  // namespace framecast::video
