// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/chrome_trace.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/json.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster;

namespace {

// The trace as a document; an empty array when it does not parse (after failing the test).
rapidjson::Document parseTrace(const std::string& path) {
  std::string text = ringmaster::test::readFile(path);
  rapidjson::Document doc;
  try {
    doc = parseJson(text);
  } catch (const JsonError& e) {
    ADD_FAILURE() << e.what() << " in:\n" << text;
  }
  EXPECT_TRUE(doc.IsArray());
  if (!doc.IsArray()) doc.SetArray();
  return doc;
}

// `object[key]` as a string, "" when it is not one.
std::string text(const rapidjson::Value& object, const char* key) {
  auto it = object.FindMember(key);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

v1::TimelineEvent event(int rank, const std::string& lane, const std::string& name, int64_t start,
                        int64_t end) {
  v1::TimelineEvent e;
  e.set_rank(rank);
  e.set_lane(lane);
  e.set_name(name);
  e.set_start_ns(start);
  e.set_end_ns(end);
  e.set_step(7);
  return e;
}

class ChromeTraceTest : public ::testing::Test {
 protected:
  ringmaster::test::TempDir dir_{"trace"};
  std::string path_ = dir_.file("trace.json");
};

TEST_F(ChromeTraceTest, AnEmptyTraceIsAnEmptyArray) {
  ChromeTraceWriter writer(path_);
  EXPECT_EQ(parseTrace(path_).Size(), 0u);
}

TEST_F(ChromeTraceTest, IsValidJsonAfterEveryFlush) {
  ChromeTraceWriter writer(path_);
  int64_t t = 1'000'000;
  const char* phases[] = {"DATA", "FORWARD", "BACKWARD", "OPTIMIZER"};
  for (int step = 0; step < 20; ++step) {
    for (const char* phase : phases) {
      writer.add(event(0, "compute", phase, t, t + 1500));
      t += 2000;
    }
    writer.flush();
    // What a reader sees if the rank is killed right now.
    rapidjson::Document events = parseTrace(path_);
    ASSERT_FALSE(events.Empty());
    EXPECT_EQ(text(events[events.Size() - 1], "name"), "OPTIMIZER");
  }
  EXPECT_EQ(writer.eventsWritten(), 20u * 4 + 4);  // + process name, sort index, lane name, lane sort index
}

TEST_F(ChromeTraceTest, NamesOneRowPerRankAndALanePerThread) {
  {
    ChromeTraceWriter writer(path_);
    writer.nameRank(1, "rank 1 (host-b)");
    writer.add(event(0, "compute", "FORWARD", 1000, 3000));
    writer.add(event(1, "compute", "FORWARD", 1100, 3100));
    writer.add(event(1, "comm", "ALLREDUCE", 3100, 4100));
    writer.add(event(1, "layer1.weight", "NEGOTIATE_ALLREDUCE", 3200, 3200));
  }
  rapidjson::Document events = parseTrace(path_);
  std::map<int, std::string> processNames;
  std::map<std::pair<int, int>, std::string> threadNames;
  for (const auto& e : events.GetArray()) {
    if (text(e, "ph") == "M" && text(e, "name") == "process_name") {
      processNames[e["pid"].GetInt()] = text(e["args"], "name");
    }
    if (text(e, "ph") == "M" && text(e, "name") == "thread_name") {
      threadNames[{e["pid"].GetInt(), e["tid"].GetInt()}] = text(e["args"], "name");
    }
  }
  EXPECT_EQ(processNames[0], "rank 0");
  EXPECT_EQ(processNames[1], "rank 1 (host-b)");
  EXPECT_EQ((threadNames[{1, 1}]), "compute");
  EXPECT_EQ((threadNames[{1, 2}]), "comm");
  EXPECT_EQ((threadNames[{1, 3}]), "layer1.weight");

  bool sawComplete = false;
  bool sawInstant = false;
  for (const auto& e : events.GetArray()) {
    if (text(e, "name") == "ALLREDUCE") {
      sawComplete = true;
      EXPECT_EQ(text(e, "ph"), "X");
      EXPECT_DOUBLE_EQ(e["ts"].GetDouble(), 3.1);  // microseconds
      EXPECT_DOUBLE_EQ(e["dur"].GetDouble(), 1.0);
      EXPECT_EQ(e["pid"].GetInt(), 1);
      EXPECT_EQ(e["tid"].GetInt(), 2);
      EXPECT_EQ(e["args"]["step"].GetInt(), 7);
    }
    if (text(e, "name") == "NEGOTIATE_ALLREDUCE") {
      sawInstant = true;
      EXPECT_EQ(text(e, "ph"), "i");
    }
  }
  EXPECT_TRUE(sawComplete);
  EXPECT_TRUE(sawInstant);
}

TEST_F(ChromeTraceTest, EscapesNamesAndArguments) {
  {
    ChromeTraceWriter writer(path_);
    auto e = event(0, "la\"ne", "we\\ird\nname", 0, 10);
    (*e.mutable_args())["ready \"ticks\""] = "0:1\t1:2";
    writer.add(e);
  }
  rapidjson::Document events = parseTrace(path_);
  bool found = false;
  for (const auto& e : events.GetArray()) {
    if (text(e, "name") == "we\\ird\nname") {
      found = true;
      EXPECT_EQ(text(e["args"], "ready \"ticks\""), "0:1\t1:2");
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(ChromeTraceTest, AnUnwritablePathIsAnInputError) {
  try {
    ChromeTraceWriter writer("/nonexistent-dir/trace.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/trace.json"), std::string::npos);
  }
}

}  // namespace
