// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/json.h"
#include "ringmaster/v1/job.pb.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "traces/horovod_timeline_reader.h"

using ringmaster::JsonError;
using ringmaster::JsonInputStream;
namespace v1 = ringmaster::v1;

namespace {

// Every SAX call the reader makes, as (what, text).
class Recorder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Recorder> {
 public:
  std::vector<std::pair<std::string, std::string>> calls;

  bool Null() { return add("null"); }
  bool Bool(bool b) { return add(b ? "true" : "false"); }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) { return add("number", {text, length}); }
  bool String(const char* text, rapidjson::SizeType length, bool) { return add("string", {text, length}); }
  bool Key(const char* text, rapidjson::SizeType length, bool) { return add("key", {text, length}); }
  bool StartObject() { return add("{"); }
  bool EndObject(rapidjson::SizeType) { return add("}"); }
  bool StartArray() { return add("["); }
  bool EndArray(rapidjson::SizeType) { return add("]"); }

 private:
  bool add(const char* what, std::string text = "") {
    calls.emplace_back(what, std::move(text));
    return true;
  }
};

// Reads `text` from a stream in chunks of `chunk` bytes; `complete` tells whether the document was whole.
std::vector<std::pair<std::string, std::string>> readAll(const std::string& text, size_t chunk,
                                                         bool* complete = nullptr) {
  std::istringstream in(text);
  JsonInputStream stream(in, chunk);
  Recorder recorder;
  bool whole = ringmaster::readJson<rapidjson::kParseNumbersAsStringsFlag>(stream, recorder);
  if (complete) *complete = whole;
  return recorder.calls;
}

// A timeline the way Horovod's TimelineWriter writes it: tensors as processes, nested B/E phases, one tick
// per rank inside NEGOTIATE_ALLREDUCE, cycle markers, and a closing "]" after every event.
struct HorovodFile {
  std::string text;
  int events = 0;  // timeline events a reader should produce
};

HorovodFile writeHorovodTimeline(int ranks, int tensors, int iterations) {
  std::ostringstream out;
  out << "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
         "{\"start_time_since_epoch_in_micros\":1700000000000000}},\n"
      << "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"sort_index\": 0}},\n";
  HorovodFile file;
  long ts = 100;
  for (int t = 0; t < tensors; ++t) {
    out << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << t + 1
        << ", \"args\": {\"name\": \"grad.layer" << t << ".weight\"}},\n";
  }
  for (int it = 0; it < iterations; ++it) {
    out << "{\"ph\": \"i\", \"name\": \"CYCLE_START\", \"ts\": " << ts << ", \"s\": \"g\"},\n";
    ++file.events;
    for (int t = 0; t < tensors; ++t) {
      int pid = t + 1;
      out << "{\"ph\": \"B\", \"name\": \"NEGOTIATE_ALLREDUCE\", \"ts\": " << ts << ", \"pid\": " << pid
          << "},\n";
      for (int r = 0; r < ranks; ++r) {
        out << "{\"ph\": \"X\", \"name\": \"" << (r + it) % ranks << "\", \"ts\": " << ts + 5 + r * 7
            << ", \"pid\": " << pid << ", \"dur\": 0},\n";
      }
      ts += 5 + ranks * 7;
      out << "{\"ph\": \"E\", \"ts\": " << ts << ", \"pid\": " << pid << "},\n";
      out << "{\"ph\": \"B\", \"name\": \"ALLREDUCE\", \"ts\": " << ts << ", \"pid\": " << pid << "},\n";
      for (const char* phase :
           {"QUEUE", "MEMCPY_IN_FUSION_BUFFER", "GLOO_ALLREDUCE", "MEMCPY_OUT_FUSION_BUFFER"}) {
        out << "{\"ph\": \"B\", \"name\": \"" << phase << "\", \"ts\": " << ts << ", \"pid\": " << pid
            << "},\n";
        ts += 20;
        out << "{\"ph\": \"E\", \"ts\": " << ts << ", \"pid\": " << pid << "},\n";
      }
      out << "{\"ph\": \"E\", \"ts\": " << ts << ", \"pid\": " << pid
          << ", \"args\": {\"dtype\": \"float32\", \"shape\": \"[128, 64]\"}},\n";
      file.events += 1 + ranks + 1 + 4;
    }
  }
  file.text = out.str();
  file.text.erase(file.text.size() - 2);  // the last ",\n"
  file.text += "]";
  return file;
}

class ImportTest : public ::testing::Test {
 protected:
  // Writes `text` to `name` in the test's folder; returns its path.
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_.file(name);
    ringmaster::test::writeFile(path, text);
    return path;
  }
  ringmaster::test::TempDir dir_{"import"};
};

std::vector<v1::TimelineEvent> storedEvents(ringmaster::RunStore& store, int64_t run) {
  std::vector<v1::TimelineEvent> events;
  store.forEachTimelineEvent(run, [&](const v1::TimelineEvent& e) { events.push_back(e); });
  return events;
}

}  // namespace

TEST(JsonReader, ValuesSurviveEveryChunkBoundary) {
  std::string text = R"({"a": [1, -2.5e3, true, false, null], "s\"q": "x\u00e9\ud83d\ude00\n", "o": {}})";
  auto whole = readAll(text, 1 << 20);
  ASSERT_EQ(whole.size(), 15u);
  EXPECT_EQ(whole[1].second, "a");
  EXPECT_EQ(whole[4].second, "-2.5e3");
  EXPECT_EQ(whole[9].second, "s\"q");
  EXPECT_EQ(whole[10].second, "x\xc3\xa9\xf0\x9f\x98\x80\n");
  for (size_t chunk = 1; chunk < 12; ++chunk) EXPECT_EQ(readAll(text, chunk), whole) << "chunk " << chunk;
}

TEST(JsonReader, MalformedInputIsReportedWithItsBytePosition) {
  struct Case {
    std::string text;
    uint64_t position;
  };
  // The position is the first byte that cannot continue the document ("tru}": the '}' where 'e' should be).
  for (const Case& c : std::vector<Case>{{"[1, 2 3]", 6},
                                         {"{\"a\" 1}", 5},
                                         {"[1,]", 3},
                                         {"{\"a\": tru}", 9},
                                         {"\x7f\x45\x4c\x46", 0},
                                         {"[\"bad \\q escape\"]", 6},
                                         {"[1] x", 4},
                                         {std::string("[1, \0, 2]", 9), 4},
                                         {std::string("[1]\0 ", 5), 3},
                                         {"", 0}}) {
    try {
      readAll(c.text, 2);
      FAIL() << "accepted " << c.text;
    } catch (const JsonError& e) {
      EXPECT_EQ(e.position(), c.position) << c.text << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("byte " + std::to_string(c.position)), std::string::npos);
    }
  }
}

TEST(JsonReader, InputCutShortEndsWithoutError) {
  bool complete = true;
  auto calls = readAll(R"([{"a": 1}, {"b": "unfinish)", 4, &complete);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), std::pair<std::string, std::string>("}", "")), 1);
  EXPECT_FALSE(complete);
  for (const char* cut : {"[1, tr", "[1, 2.", "{\"a\"", "{\"a\": [", "[\"x\\u00"}) {
    readAll(cut, 3, &complete);
    EXPECT_FALSE(complete) << cut;
  }
  readAll("[1, 2]\n", 3, &complete);
  EXPECT_TRUE(complete);
}

TEST(JsonReader, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    readAll(deep, 4096);
    FAIL() << "accepted 100 000 levels";
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("nested more than 1000 levels"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ringmaster::parseJson(deep), JsonError);
  std::string fine = std::string(1000, '[') + std::string(1000, ']');
  EXPECT_EQ(readAll(fine, 4096).size(), 2000u);
}

TEST(JsonReader, DocumentsOfSmallTexts) {
  auto document = ringmaster::parseJson(R"({"ts": 1.5e3, "pid": "7", "args": {"n": [1, 2]}})");
  ASSERT_TRUE(document.IsObject());
  EXPECT_DOUBLE_EQ(document["ts"].GetDouble(), 1500);
  EXPECT_STREQ(document["pid"].GetString(), "7");
  EXPECT_EQ(document["args"]["n"].Size(), 2u);
  EXPECT_STREQ(ringmaster::parseJson("[12.50]", true)[0].GetString(), "12.50");
  EXPECT_THROW(document["missing"].GetInt(), std::logic_error);  // a misuse throws, in every build
  EXPECT_THROW(ringmaster::parseJson(R"({"a": 1)"), JsonError);
  EXPECT_THROW(ringmaster::parseJson("[1] [2]"), JsonError);
}

// A job spec as the console's settings held it before (protobuf's own JSON printer), and as they hold it now.
TEST(JsonMessages, JobSpecsRoundTripAndOldSettingsStillLoad) {
  v1::JobSpec spec;
  spec.set_name("resnet \"sweep\"");
  spec.set_engine(v1::ENGINE_HOROVOD);
  spec.set_backend(v1::BACKEND_GLOO);
  spec.set_model(v1::MODEL_RESNET18);
  spec.set_dataset(v1::DATASET_SYNTHETIC);
  auto* h = spec.mutable_hyper();
  h->set_batch_size(32);
  h->set_optimizer(v1::OPTIMIZER_SGD);
  h->set_lr(0.05);
  h->set_momentum(0.9);
  h->set_steps(1200);
  h->set_seed(18446744073709551615ull);
  h->set_fusion_threshold_mb(64);
  h->set_cycle_time_ms(3.5);
  h->set_reduce_op(v1::REDUCE_OP_SUM);
  h->set_scale_lr(true);
  auto* a = spec.add_hosts();
  a->set_host("node-a");
  a->set_slots(4);
  auto* b = spec.add_hosts();
  b->set_host("node-b");
  b->set_slots(4);
  b->set_agent_port(50071);
  spec.set_world_size(8);
  auto* straggler = spec.mutable_faults()->add_stragglers();
  straggler->set_rank(-1);
  straggler->set_extra_ms(12.5);
  straggler->set_from_step(100);
  spec.set_checkpoint_every(500);
  spec.set_timeline(true);
  spec.set_rendezvous_timeout_s(90);

  const std::string saved =
      R"({"name":"resnet \"sweep\"","engine":"ENGINE_HOROVOD","backend":"BACKEND_GLOO","model":"MODEL_RESNET18",)"
      R"("dataset":"DATASET_SYNTHETIC","hyper":{"batchSize":32,"optimizer":"OPTIMIZER_SGD","lr":0.05,)"
      R"("momentum":0.9,"scaleLr":true,"steps":"1200","seed":"18446744073709551615","fusionThresholdMb":64,)"
      R"("cycleTimeMs":3.5,"reduceOp":"REDUCE_OP_SUM"},"hosts":[{"host":"node-a","slots":4},{"host":"node-b",)"
      R"("slots":4,"agentPort":50071}],"worldSize":8,"faults":{"stragglers":[{"rank":-1,"extraMs":12.5,)"
      R"("fromStep":"100"}]},"checkpointEvery":"500","timeline":true,"rendezvousTimeoutS":90})";
  v1::JobSpec loaded;
  ASSERT_TRUE(ringmaster::messageFromJson(saved, loaded));
  EXPECT_EQ(loaded.SerializeAsString(), spec.SerializeAsString()) << loaded.DebugString();

  std::string json = ringmaster::messageToJson(spec);
  v1::JobSpec back;
  ASSERT_TRUE(ringmaster::messageFromJson(json, back)) << json;
  EXPECT_EQ(back.SerializeAsString(), spec.SerializeAsString()) << json;
  EXPECT_NE(json.find(R"("seed":"18446744073709551615")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("engine":"ENGINE_HOROVOD")"), std::string::npos) << json;
  EXPECT_EQ(ringmaster::messageToJson(v1::JobSpec()), "{}");

  // Proto field names and enum numbers are read too; anything that does not fit leaves the message empty.
  ASSERT_TRUE(
      ringmaster::messageFromJson(R"({"world_size": 2, "engine": 1, "hyper": {"batch_size": 16}})", back));
  EXPECT_EQ(back.world_size(), 2u);
  EXPECT_EQ(back.engine(), v1::ENGINE_DDP);
  EXPECT_EQ(back.hyper().batch_size(), 16u);
  for (const char* bad : {R"({"worldSize": -1})", R"({"worldSize": 4294967296})",
                          R"({"engine": "ENGINE_NONE"})", R"({"colour": "red"})",
                          R"({"hosts": {"host": "a"}})", R"({"name": 3})", "{\"name\": \"x", "[]", ""}) {
    EXPECT_FALSE(ringmaster::messageFromJson(bad, back)) << bad;
    EXPECT_EQ(back.ByteSizeLong(), 0u) << bad;
  }
}

TEST_F(ImportTest, HorovodTimelineBecomesARunWithEveryRankAndPhase) {
  auto file = writeHorovodTimeline(4, 3, 5);
  std::string path = write("timeline.json", file.text);
  ringmaster::RunStore store(dir_.file("runs.sqlite"));
  auto result = ringmaster::importTimeline(store, path);
  EXPECT_EQ(result.summary.format, ringmaster::TraceFormat::HorovodTimeline);
  EXPECT_TRUE(result.summary.complete);
  EXPECT_EQ(result.summary.unfinished, 0u);
  EXPECT_EQ(result.summary.ranks, 4);
  EXPECT_EQ(result.summary.timelineEvents, uint64_t(file.events));

  auto run = store.run(result.runId);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->name, "timeline.json");
  EXPECT_EQ(run->status, "imported");
  EXPECT_EQ(run->worldSize, 4);
  EXPECT_EQ(store.counts(result.runId).timelineEvents, file.events);

  auto events = storedEvents(store, result.runId);
  std::map<std::string, int> phases;
  std::set<int> tickRanks;
  for (const auto& e : events) {
    ++phases[e.name()];
    if (e.start_ns() == e.end_ns() && e.name().size() == 1) {
      tickRanks.insert(e.rank());
      EXPECT_EQ(e.name(), std::to_string(e.rank()));
    }
  }
  EXPECT_EQ(phases["NEGOTIATE_ALLREDUCE"], 15);
  EXPECT_EQ(phases["GLOO_ALLREDUCE"], 15);
  EXPECT_EQ(phases["CYCLE_START"], 5);
  EXPECT_EQ(tickRanks, (std::set<int>{0, 1, 2, 3}));
  // A NEGOTIATE span holds its ticks; the ALLREDUCE span carries the E event's args.
  const auto& negotiate = *std::find_if(events.begin(), events.end(),
                                        [](const auto& e) { return e.name() == "NEGOTIATE_ALLREDUCE"; });
  EXPECT_EQ(negotiate.lane(), "grad.layer0.weight");
  EXPECT_EQ(negotiate.end_ns() - negotiate.start_ns(), (5 + 4 * 7) * 1000);
  const auto& allreduce =
      *std::find_if(events.begin(), events.end(), [](const auto& e) { return e.name() == "ALLREDUCE"; });
  EXPECT_EQ(allreduce.args().at("dtype"), "float32");
}

TEST_F(ImportTest, TruncatedTimelineKeepsWhatIsWholeAndSaysSo) {
  auto file = writeHorovodTimeline(4, 3, 5);
  std::string cut = file.text.substr(0, file.text.size() * 6 / 10);
  // Make sure the cut lands inside an event.
  while (cut.back() == '\n' || cut.back() == ',' || cut.back() == '}') cut.pop_back();
  ringmaster::RunStore store(dir_.file("runs.sqlite"));
  auto result = ringmaster::importTimeline(store, write("cut.json", cut));
  EXPECT_FALSE(result.summary.complete);
  EXPECT_GT(result.summary.timelineEvents, 0u);
  EXPECT_LT(result.summary.timelineEvents, uint64_t(file.events));
  EXPECT_GT(result.summary.unfinished, 0u);  // the ALLREDUCE open at the cut
  EXPECT_EQ(store.counts(result.runId).timelineEvents, int64_t(result.summary.timelineEvents));
  for (const auto& e : storedEvents(store, result.runId)) EXPECT_GE(e.end_ns(), e.start_ns());

  // Horovod's older writer left the array open ("},\n" at the end): same treatment.
  std::string open = file.text.substr(0, file.text.size() - 1) + ",\n";
  auto legacy = ringmaster::importTimeline(store, write("open.json", open));
  EXPECT_FALSE(legacy.summary.complete);
  EXPECT_EQ(legacy.summary.timelineEvents, uint64_t(file.events));
}

TEST_F(ImportTest, GarbageIsRefusedWithAPositionAndNothingIsKept) {
  std::mt19937 random(1);
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(char(random() % 256));
  garbage[0] = '\x01';
  ringmaster::RunStore store(dir_.file("runs.sqlite"));
  std::string path = write("garbage.bin", garbage);
  try {
    ringmaster::importTimeline(store, path);
    FAIL() << "imported garbage";
  } catch (const ringmaster::InputError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("byte 0"), std::string::npos) << message;
  }

  auto file = writeHorovodTimeline(2, 2, 3);
  size_t at = file.text.find("\"ph\": \"E\"", 800);
  std::string broken = file.text;
  broken[at + 5] = ';';  // "ph"; "E"
  try {
    ringmaster::importTimeline(store, write("broken.json", broken));
    FAIL() << "imported malformed JSON";
  } catch (const ringmaster::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("byte " + std::to_string(at + 5)), std::string::npos) << e.what();
  }
  EXPECT_TRUE(store.runs().empty());

  EXPECT_THROW(ringmaster::importTimeline(store, write("plain.json", R"({"loss": [1, 2]})")),
               ringmaster::InputError);
  EXPECT_THROW(ringmaster::importTimeline(store, dir_.file("missing.json")), ringmaster::InputError);
  EXPECT_TRUE(store.runs().empty());
}

// A Chrome trace other than a PyTorch profiler's (which is one rank per file: see pytorch_import_test.cpp).
TEST_F(ImportTest, ChromeTraceProcessesBecomeRanksAndLanes) {
  std::string trace = R"({"schemaVersion": 1, "deviceProperties": [{"name": "cpu"}],
    "traceEvents": [
      {"ph": "M", "name": "process_name", "pid": 4242, "args": {"name": "rank 3"}},
      {"ph": "M", "name": "thread_name", "pid": 4242, "tid": 7, "args": {"name": "compute"}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 4242, "tid": 7, "ts": 1000.5, "dur": 250,
       "args": {"step": 12, "Input Dims": [[1, 2]]}},
      {"ph": "B", "name": "DATA", "pid": 4242, "tid": 7, "ts": 2000},
      {"ph": "E", "pid": 4242, "tid": 7, "ts": 2100},
      {"ph": "C", "name": "memory", "pid": 4242, "ts": 2100, "args": {"bytes": 5}},
      {"ph": "X", "name": "ncclAllReduce", "pid": 99, "tid": "stream 7", "ts": 3000, "dur": 10}
    ]})";
  ringmaster::RunStore store(dir_.file("runs.sqlite"));
  auto result = ringmaster::importTimeline(store, write("profile.json", trace), "resnet-profile");
  EXPECT_EQ(result.summary.format, ringmaster::TraceFormat::ChromeTrace);
  EXPECT_EQ(result.summary.timelineEvents, 3u);
  EXPECT_EQ(result.summary.skipped, 1u);
  EXPECT_EQ(result.summary.ranks, 2);
  auto events = storedEvents(store, result.runId);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].rank(), 3);
  EXPECT_EQ(events[0].lane(), "compute");
  EXPECT_EQ(events[0].start_ns(), 1'000'500);
  EXPECT_EQ(events[0].end_ns(), 1'250'500);
  EXPECT_EQ(events[0].step(), 12u);
  EXPECT_EQ(events[0].args().at("Input Dims"), "[...]");
  EXPECT_EQ(events[1].name(), "DATA");
  EXPECT_EQ(events[1].end_ns() - events[1].start_ns(), 100'000);
  EXPECT_EQ(events[2].lane(), "thread stream 7");
  EXPECT_EQ(store.run(result.runId)->name, "resnet-profile");
}
