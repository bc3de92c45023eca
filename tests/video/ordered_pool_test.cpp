// OrderedPool: jobs dealt out to workers of different speeds come back in submission order,
// no more than the cap are in flight, the first failure reaches the caller, and a stop or
// the pool's end never hangs on a worker.
#include "video/ordered_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

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
  return [](Sleeper& worker, int& job) {
    std::this_thread::sleep_for(worker.delay);
    return Done{job, worker.id};
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
  Pool pool({{0ms, 0}, {0ms, 1}}, [&](Sleeper&, int& job) {
    ++started;
    return Done{job, 0};
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
  Pool pool({{0ms, 0}, {5ms, 1}}, [](Sleeper& worker, int& job) {
    std::this_thread::sleep_for(worker.delay);
    if (job == 4) throw std::runtime_error("device 1 was lost");
    return Done{job, worker.id};
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
  Pool pool({{0ms, 0}}, [&](Sleeper&, int& job) {
    while (!release) std::this_thread::sleep_for(1ms);
    return Done{job, 0};
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
    Pool pool({{20ms, 0}}, [&](Sleeper& worker, int& job) {
      std::this_thread::sleep_for(worker.delay);
      ++ran;
      return Done{job, 0};
    }, 10);
    std::stop_source stop;
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(pool.submit(i, stop.get_token()));
  }
  EXPECT_LT(ran, 10) << "the waiting jobs should have been dropped";
}

TEST(OrderedPool, AClosedEmptyPoolEndsAtOnce) {
  Pool pool({{0ms, 0}, {0ms, 1}}, sleep_then_echo(), 2);
  pool.close();
  EXPECT_FALSE(pool.next(std::stop_token()));
}

}  // namespace
}  // namespace framecast::video
