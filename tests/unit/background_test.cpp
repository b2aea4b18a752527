// SPDX-License-Identifier: GPL-3.0-or-later
// Handing work from a worker thread to an object that may be gone by then (console/session/background.h).
#include "console/session/background.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QThread>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

namespace {

using ringmaster::console::postIfAlive;
using ringmaster::console::runInBackground;

class Background : public ::testing::Test {
 protected:
  // Runs the event loop until `done` holds or 10 s have passed.
  template <typename Done>
  bool processUntil(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    }
    return done();
  }

  int argc_ = 1;
  char name_[16] = "background_test";
  char* argv_[2] = {name_, nullptr};
  QCoreApplication app_{argc_, argv_};
};

TEST_F(Background, PostFromAWorkerThreadRunsOnTheReceiversThread) {
  QObject receiver;
  QThread* ranOn = nullptr;
  std::thread worker([&] { postIfAlive(&receiver, [&] { ranOn = QThread::currentThread(); }); });
  worker.join();
  EXPECT_EQ(ranOn, nullptr) << "queued, never called on the poster's thread";
  ASSERT_TRUE(processUntil([&] { return ranOn != nullptr; }));
  EXPECT_EQ(ranOn, receiver.thread());
}

TEST_F(Background, PostToAReceiverGoneBeforeItRunsDoesNothing) {
  auto receiver = std::make_unique<QObject>();
  bool ran = false;
  std::thread worker([&] { postIfAlive(receiver.get(), [&] { ran = true; }); });
  worker.join();
  receiver.reset();
  QCoreApplication::processEvents();
  QCoreApplication::sendPostedEvents();
  EXPECT_FALSE(ran);

  // A QPointer to an object already gone is null: nothing is posted.
  QPointer<QObject> gone(new QObject);
  delete gone.data();
  postIfAlive(gone, [&] { ran = true; });
  QCoreApplication::processEvents();
  EXPECT_FALSE(ran);
}

TEST_F(Background, RunInBackgroundHandsBackTheResultOrWhatItThrew) {
  QObject context;
  int result = 0;
  QString error;
  runInBackground<int>(
      &context, [] { return 42; }, [&](int value) { result = value; }, [&](const QString& e) { error = e; });
  ASSERT_TRUE(processUntil([&] { return result != 0; }));
  EXPECT_EQ(result, 42);
  EXPECT_TRUE(error.isEmpty());

  runInBackground<int>(
      &context, []() -> int { throw std::runtime_error("the disk is full"); },
      [&](int value) { result = value; }, [&](const QString& e) { error = e; });
  ASSERT_TRUE(processUntil([&] { return !error.isEmpty(); }));
  EXPECT_EQ(error, QStringLiteral("the disk is full"));
  EXPECT_EQ(result, 42);
}

TEST_F(Background, RunInBackgroundForAContextGoneCallsNothing) {
  auto context = std::make_unique<QObject>();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  bool called = false;
  runInBackground<int>(
      context.get(),
      [finished] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        *finished = true;
        return 1;
      },
      [&](int) { called = true; }, [&](const QString&) { called = true; });
  context.reset();
  ASSERT_TRUE(processUntil([&] { return finished->load(); }));
  // Whatever the thread posts once it is done has had its chance to run.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  QCoreApplication::processEvents();
  QCoreApplication::sendPostedEvents();
  EXPECT_FALSE(called);
}

}  // namespace
