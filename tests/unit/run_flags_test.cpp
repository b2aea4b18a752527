// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster run`'s words both ways: runArguments() writes what parseRunFlags() reads back, flag for flag.
#include "console/session/run_flags.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "common/error.h"
#include "common/job_spec.h"
#include "console/session/run_progress.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace ringmaster::console {
namespace {

struct RoundTripCase {
  std::string name;
  std::function<void(RunFlags&)> set;
};

std::ostream& operator<<(std::ostream& out, const RoundTripCase& c) {
  return out << c.name;
}

std::string joined(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
  return line;
}

bool contains(const std::vector<std::string>& words, const std::vector<std::string>& run) {
  return std::search(words.begin(), words.end(), run.begin(), run.end()) != words.end();
}

// A real file in this test's own folder: --hostfile, --token-file and --tls-ca must name existing files.
// The message parseRunFlags refuses the flags with, or "accepted".
std::string errorOf(const std::vector<std::string>& args) {
  try {
    parseRunFlags(args);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

std::string existingFile(const std::string& name) {
  static const test::TempDir folder("run-flags");
  const std::string file = folder.file(name);
  test::writeFile(file, "node-a slots=4\n");
  return file;
}

// A folder with train_x.npy and train_y.npy (their contents are the worker's business, not the console's).
std::string existingNpyFolder() {
  static const test::TempDir folder("run-flags-npy");
  for (const char* name : {"train_x.npy", "train_y.npy"}) test::writeFile(folder.file(name), "");
  return folder.path();
}

void addStraggler(v1::JobSpec& spec, int rank, double ms, uint64_t fromStep) {
  auto* s = spec.mutable_faults()->add_stragglers();
  s->set_rank(rank);
  s->set_extra_ms(ms);
  s->set_from_step(fromStep);
}

void setAtStep(v1::FaultInjection::AtStep* fault, int rank, uint64_t step) {
  fault->set_rank(rank);
  fault->set_step(step);
}

std::vector<RoundTripCase> roundTripCases() {
  std::vector<RoundTripCase> cases = {
      {"Defaults", [](RunFlags&) {}},
      {"Hosts",
       [](RunFlags& f) {
         f.ranks = 8;
         f.hostList = "node-a:4,node-b:4";
       }},
      {"Hostfile",
       [](RunFlags& f) {
         f.ranks = 4;
         f.hostfile = existingFile("hosts");
       }},
      {"AgentsWithTokenAndCa",
       [](RunFlags& f) {
         f.hostList = "gpu1:2";
         f.ranks = 2;
         f.agentPort = 6000;
         f.tokenFile = existingFile("agents token");
         f.tlsCa = existingFile("ca.pem");
       }},
      {"JobIdAndName",
       [](RunFlags& f) {
         f.jobId = "nightly-42";
         f.spec.set_name("resnet18 ddp baseline");
       }},
      {"NameThatLooksLikeAFlag", [](RunFlags& f) { f.spec.set_name("-x --steps 3"); }},
      {"Horovod",
       [](RunFlags& f) {
         f.spec.set_engine(v1::ENGINE_HOROVOD);
         auto* h = f.spec.mutable_hyper();
         h->set_fusion_threshold_mb(0);
         h->set_cycle_time_ms(3.5);
         h->set_no_response_cache(true);
         h->set_backward_passes_per_step(4);
         h->set_reduce_op(v1::REDUCE_OP_SUM);
         h->set_stall_check_s(30.25);
       }},
      {"NcclAndCompression",
       [](RunFlags& f) {
         f.spec.set_backend(v1::BACKEND_NCCL);
         f.spec.mutable_hyper()->set_compression(v1::COMPRESSION_BF16);
       }},
      {"NumbersWithFractions",
       [](RunFlags& f) {
         auto* h = f.spec.mutable_hyper();
         h->set_lr(0.1);
         h->set_momentum(0.9);
         h->set_bucket_cap_mb(12.5);
         h->set_fusion_threshold_mb(1.0 / 3.0);
         f.spec.set_rendezvous_timeout_s(45.5);
       }},
      {"TinyLearningRate", [](RunFlags& f) { f.spec.mutable_hyper()->set_lr(1e-5); }},
      {"StepsInsteadOfEpochs",
       [](RunFlags& f) {
         auto* h = f.spec.mutable_hyper();
         h->set_epochs(0);
         h->set_steps(20);
       }},
      {"Hyper",
       [](RunFlags& f) {
         auto* h = f.spec.mutable_hyper();
         h->set_batch_size(256);
         h->set_optimizer(v1::OPTIMIZER_ADAM);
         h->set_scale_lr(true);
         h->set_warmup_steps(100);
         h->set_epochs(3);
         h->set_seed(12345678901234ULL);
         h->set_accumulation_steps(4);
         h->set_compression(v1::COMPRESSION_FP16);
       }},
      {"Checkpoints",
       [](RunFlags& f) {
         f.spec.set_checkpoint_dir("/data/checkpoints/run one");
         f.spec.set_checkpoint_every(500);
         f.spec.set_resume(true);
       }},
      {"Injections",
       [](RunFlags& f) {
         f.ranks = 4;
         addStraggler(f.spec, 2, 50, 0);
         addStraggler(f.spec, 3, 12.5, 10);
         auto* leak = f.spec.mutable_faults()->add_leaks();
         leak->set_rank(1);
         leak->set_mb_per_step(1.5);
         setAtStep(f.spec.mutable_faults()->add_crashes(), 0, 7);
         setAtStep(f.spec.mutable_faults()->add_hangs(), 3, 9);
         setAtStep(f.spec.mutable_faults()->add_hangs(), 1, 11);
       }},
      {"TimelineFromTheStart", [](RunFlags& f) { f.spec.set_timeline(true); }},
      {"TimelineFile", [](RunFlags& f) { f.timeline = "/tmp/run.trace.json"; }},
      {"Outputs",
       [](RunFlags& f) {
         f.summaryJson = "summary.json";
         f.store = "/tmp/history.sqlite";
         f.worker = "/opt/ringmaster/bin/ringmaster-worker";
         f.stateDir = "/var/tmp/journals";
       }},
      {"NoStore", [](RunFlags& f) { f.noStore = true; }},
      {"StallTimeout", [](RunFlags& f) { f.spec.set_stall_timeout_s(90.5); }},
      {"MaxRestarts", [](RunFlags& f) { f.spec.set_max_restarts(3); }},
      {"MinRanks",
       [](RunFlags& f) {
         f.spec.set_max_restarts(1);
         f.spec.set_min_ranks(2);
       }},
  };
  for (auto model : {v1::MODEL_MLP, v1::MODEL_CNN, v1::MODEL_RESNET18, v1::MODEL_RESNET50}) {
    cases.push_back({"Model_" + v1::Model_Name(model), [model](RunFlags& f) { f.spec.set_model(model); }});
  }
  for (auto dataset : {v1::DATASET_SYNTHETIC, v1::DATASET_FASHION_MNIST, v1::DATASET_CIFAR10}) {
    cases.push_back({"Dataset_" + v1::Dataset_Name(dataset), [dataset](RunFlags& f) {
                       f.spec.set_dataset(dataset);
                       f.spec.set_data_dir("/srv/data");
                     }});
  }
  for (auto engine : {v1::ENGINE_DDP, v1::ENGINE_HOROVOD}) {
    cases.push_back(
        {"Engine_" + v1::Engine_Name(engine), [engine](RunFlags& f) { f.spec.set_engine(engine); }});
  }
  // The user's TorchScript model and npy folder, on other hosts (where this console cannot look for them).
  cases.push_back({"TorchScriptModelNpyDataAndMse", [](RunFlags& f) {
                     f.ranks = 2;
                     f.hostList = "gpu1:2";
                     f.spec.set_model(v1::MODEL_TORCHSCRIPT);
                     f.spec.set_model_path("/models/my net.pt");
                     f.spec.set_dataset(v1::DATASET_NPY);
                     f.spec.set_data_dir("/srv/npy data");
                     f.spec.set_loss(v1::LOSS_MSE);
                   }});
  // On this machine the files must be there.
  cases.push_back({"TorchScriptModelHere", [](RunFlags& f) {
                     f.spec.set_model(v1::MODEL_TORCHSCRIPT);
                     f.spec.set_model_path(existingFile("model.pt"));
                     f.spec.set_dataset(v1::DATASET_NPY);
                     f.spec.set_data_dir(existingNpyFolder());
                   }});
  // Everything at once, so that no flag's words swallow the next flag's.
  cases.push_back({"Everything", [cases](RunFlags& f) {
                     for (const auto& c : cases) {
                       if (c.name != "Hostfile" && c.name != "NoStore" && c.name != "TimelineFile") c.set(f);
                     }
                   }});
  // A program of the user's goes with the launch and output flags, not with the training flags.
  cases.push_back({"Program", [](RunFlags& f) {
                     for (const char* word : {"/usr/bin/python3", "train.py"})
                       f.spec.mutable_program()->add_argv(word);
                   }});
  // A Horovod script on Ringmaster's layer.
  cases.push_back({"HorovodScript", [](RunFlags& f) {
                     f.ranks = 2;
                     for (const char* word : {"/usr/bin/python3", "train_hvd.py", "--epochs", "2"})
                       f.spec.mutable_program()->add_argv(word);
                     f.spec.mutable_program()->set_horovod(true);
                   }});
  cases.push_back({"ProgramWithItsOwnFlags", [](RunFlags& f) {
                     f.ranks = 4;
                     f.hostList = "node1:2,node2:2";
                     f.jobId = "own-7";
                     f.spec.set_timeline(true);
                     auto* program = f.spec.mutable_program();
                     for (const char* word : {"python3", "-u", "train.py", "-np", "3", "--model", "mine",
                                              "--", "-x", "two words", "--timeline"}) {
                       program->add_argv(word);
                     }
                     program->set_working_dir("/srv/work dir");
                     program->add_environment("DATA=/srv/data");
                     program->add_environment("EMPTY=");
                     program->set_uninstrumented(true);
                     f.spec.set_stall_timeout_s(30);
                   }});
  return cases;
}

class RunArgumentsRoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(RunArgumentsRoundTrip, ParseRunFlagsReadsBackTheSameFlags) {
  RunFlags flags;
  GetParam().set(flags);
  finishRunFlags(flags);  // as parseRunFlags leaves them: world size from -np, timeline on with --timeline

  const std::vector<std::string> args = runArguments(flags);
  SCOPED_TRACE(joined(args));
  RunFlags back;
  try {
    back = parseRunFlags(args);
  } catch (const InputError& e) {
    FAIL() << e.what();
  } catch (const std::exception& e) {
    FAIL() << "parseRunFlags let through " << e.what();
  }
  EXPECT_EQ(back.ranks, flags.ranks);
  EXPECT_EQ(back.agentPort, flags.agentPort);
  EXPECT_EQ(back.noStore, flags.noStore);
  const std::pair<const char*, std::string RunFlags::*> texts[] = {{"hostList", &RunFlags::hostList},
                                                                   {"hostfile", &RunFlags::hostfile},
                                                                   {"tokenFile", &RunFlags::tokenFile},
                                                                   {"tlsCa", &RunFlags::tlsCa},
                                                                   {"summaryJson", &RunFlags::summaryJson},
                                                                   {"timeline", &RunFlags::timeline},
                                                                   {"jobId", &RunFlags::jobId},
                                                                   {"worker", &RunFlags::worker},
                                                                   {"stateDir", &RunFlags::stateDir},
                                                                   {"store", &RunFlags::store}};
  for (const auto& [name, field] : texts) EXPECT_EQ(back.*field, flags.*field) << name;
  std::string differences;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&differences);
  EXPECT_TRUE(differ.Compare(back.spec, flags.spec)) << differences;
}

INSTANTIATE_TEST_SUITE_P(RunFlags, RunArgumentsRoundTrip, ::testing::ValuesIn(roundTripCases()),
                         [](const ::testing::TestParamInfo<RoundTripCase>& info) { return info.param.name; });

TEST(RunArguments, DefaultsAreJustTheRankCount) {
  EXPECT_EQ(runArguments(RunFlags{}), (std::vector<std::string>{"-np", "1"}));
}

TEST(RunArguments, OnlyWhatDiffersFromTheDefaultsIsWritten) {
  RunFlags flags;
  flags.ranks = 4;
  flags.hostList = "a:2,b:2";
  flags.spec.set_model(v1::MODEL_MLP);
  flags.spec.mutable_hyper()->set_lr(0.1);
  flags.spec.set_name("mlp four");
  flags.spec.set_timeline(true);
  finishRunFlags(flags);
  const std::vector<std::string> args = runArguments(flags);
  SCOPED_TRACE(joined(args));
  EXPECT_TRUE(contains(args, {"-np", "4", "-H", "a:2,b:2"}));
  EXPECT_TRUE(contains(args, {"--model", "mlp"}));
  EXPECT_TRUE(contains(args, {"--lr", "0.1"})) << "numbers are written as short as they read back exactly";
  EXPECT_TRUE(contains(args, {"--name", "mlp four"}));
  EXPECT_TRUE(contains(args, {"--record-timeline"}));
  for (const char* unchanged :
       {"--engine", "--batch-size", "--epochs", "--agent-port", "--momentum", "--seed"}) {
    EXPECT_FALSE(contains(args, {unchanged})) << unchanged << " has its default";
  }
  EXPECT_EQ(args.size(), 11u);
}

TEST(RunArguments, ATimelineFileNeedsNoSecondFlag) {
  RunFlags flags;
  flags.timeline = "t.json";
  finishRunFlags(flags);
  EXPECT_EQ(runArguments(flags), (std::vector<std::string>{"-np", "1", "--timeline", "t.json"}));
}

TEST(RunFlagsStallTimeout, IsSecondsFromZeroToAWeekAndNothingElse) {
  EXPECT_EQ(parseRunFlags({"-np", "2", "--stall-timeout-s", "45"}).spec.stall_timeout_s(), 45);
  EXPECT_EQ(parseRunFlags({"-np", "2"}).spec.stall_timeout_s(), 0) << "by default a stalled job waits";
  for (const char* bad : {"-1", "nan", "inf", "1e400", "ten", "604801"}) {
    try {
      parseRunFlags({"-np", "2", "--stall-timeout-s", bad});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--stall-timeout-s"), std::string::npos) << e.what();
    }
  }
  v1::JobSpec spec = defaultJobSpec();
  spec.set_world_size(1);
  spec.set_stall_timeout_s(-5);
  const auto errors = validateJobSpec(spec);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "stall_timeout_s");
}

TEST(RunFlagsMaxRestarts, IsACountFromZeroToAThousand) {
  EXPECT_EQ(parseRunFlags({"-np", "2", "--max-restarts", "3"}).spec.max_restarts(), 3u);
  EXPECT_EQ(parseRunFlags({"-np", "2"}).spec.max_restarts(), 0u) << "by default a failed rank fails the job";
  for (const char* bad : {"-1", "1001", "two", "1.5"}) {
    try {
      parseRunFlags({"-np", "2", "--max-restarts", bad});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--max-restarts"), std::string::npos) << e.what();
    }
  }
}

TEST(RunName, NameThenJobIdThenModelEngineAndRanks) {
  RunFlags flags = parseRunFlags({"-np", "2", "--model", "mlp"});
  EXPECT_EQ(runName(flags), "mlp ddp x2");
  flags = parseRunFlags({"-np", "2", "--job-id", "nightly-7"});
  EXPECT_EQ(runName(flags), "nightly-7");
  flags = parseRunFlags({"-np", "2", "--job-id", "nightly-7", "--name", "baseline"});
  EXPECT_EQ(flags.spec.name(), "baseline");
  EXPECT_EQ(runName(flags), "baseline");
  EXPECT_EQ(launchPlan(flags).spec.name(), "baseline");
}

TEST(RunFlagsProgram, TheProgramsOwnArgumentsAreLeftAsTheyAre) {
  RunFlags flags = parseRunFlags(
      {"-np", "2", "--", "/usr/bin/python3", "train.py", "-np", "3", "--model", "x", "--", "-H"});
  EXPECT_EQ(flags.ranks, 2);
  EXPECT_TRUE(flags.hostList.empty());
  EXPECT_EQ(flags.spec.model(), defaultJobSpec().model());
  const std::vector<std::string> argv(flags.spec.program().argv().begin(), flags.spec.program().argv().end());
  EXPECT_EQ(argv, (std::vector<std::string>{"/usr/bin/python3", "train.py", "-np", "3", "--model", "x", "--",
                                            "-H"}));
  EXPECT_EQ(runName(flags), "train.py x2");
}

TEST(RunFlagsProgram, TrainingFlagsWithAProgramAreAnErrorThatSaysWhy) {
  try {
    parseRunFlags({"-np", "2", "--model", "mlp", "--lr", "0.1", "--", "/usr/bin/python3", "train.py"});
    FAIL() << "took --model and --lr together with a program";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("--model"), std::string::npos) << message;
    EXPECT_NE(message.find("--lr"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot go with a program"), std::string::npos) << message;
  }
}

TEST(RunFlagsProgram, HorovodRunsTheScriptOnRingmastersLayerAndIsWrittenBack) {
  const RunFlags flags = parseRunFlags({"--horovod", "-np", "2", "--", "/usr/bin/python3", "train_hvd.py"});
  ASSERT_TRUE(isUserProgram(flags.spec));
  EXPECT_TRUE(flags.spec.program().horovod());
  EXPECT_FALSE(flags.spec.program().uninstrumented());
  EXPECT_EQ(flags.spec.world_size(), 2u);
  const std::vector<std::string> args = runArguments(flags);
  SCOPED_TRACE(joined(args));
  EXPECT_TRUE(contains(args, {"--horovod", "--", "/usr/bin/python3", "train_hvd.py"}));
  EXPECT_FALSE(parseRunFlags({"-np", "2", "--", "/usr/bin/python3", "train.py"}).spec.program().horovod());
  EXPECT_FALSE(contains(runArguments(parseRunFlags({"--", "/usr/bin/python3", "train.py"})), {"--horovod"}));
  // The script's own --horovod, after --, is its own.
  const RunFlags own = parseRunFlags({"--", "/usr/bin/python3", "train.py", "--horovod"});
  EXPECT_FALSE(own.spec.program().horovod());
  EXPECT_EQ(own.spec.program().argv_size(), 3);
}

TEST(RunFlagsProgram, HorovodWithoutAScriptOrInstrumentationSaysWhatToDo) {
  for (const auto& args : {std::vector<std::string>{"--horovod"},
                           std::vector<std::string>{"--horovod", "-np", "2", "--engine", "horovod"}}) {
    const std::string message = errorOf(args);
    EXPECT_NE(message.find("give it after -- (ringmaster run --horovod -np 2 -- /usr/bin/python3 "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("use --engine horovod without --horovod"), std::string::npos) << message;
  }
  const std::string message = errorOf({"--horovod", "--no-instrument", "--", "/usr/bin/python3", "t.py"});
  EXPECT_NE(message.find("--horovod cannot go with --no-instrument"), std::string::npos) << message;
  EXPECT_NE(message.find("ringmaster Python package"), std::string::npos) << message;
}

TEST(RunFlagsProgram, BadProgramInputIsRejectedNamingIt) {
  const std::pair<std::vector<std::string>, std::string> bad[] = {
      {{"--env", "DATA=/srv"}, "--env"},  // program flags without a program
      {{"--no-instrument"}, "--no-instrument"},
      {{"--env", "RANK=3", "--", "python3", "t.py"}, "RANK is set by Ringmaster"},
      {{"--env", "RINGMASTER_JOB_SECRET=x", "--", "python3", "t.py"}, "RINGMASTER_JOB_SECRET"},
      {{"--env", "RINGMASTER_HOROVOD=1", "--", "python3", "t.py"}, "RINGMASTER_HOROVOD is set by Ringmaster"},
      {{"--env", "no-equals", "--", "python3", "t.py"}, "'no-equals'"},
      {{"--env", "1X=2", "--", "python3", "t.py"}, "'1X=2'"},
      {{"--workdir", "relative/dir", "--", "python3", "t.py"}, "'relative/dir'"},
      {{"--", ""}, "must name the program"},
  };
  for (const auto& [args, named] : bad) {
    std::string line;
    for (const auto& a : args) line += " " + a;
    try {
      parseRunFlags(args);
      ADD_FAILURE() << "accepted:" << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << line << ": " << e.what();
    }
  }
}

TEST(RunFlagsUserModel, PathsBecomeAbsoluteAndMustExistHere) {
  namespace fs = std::filesystem;
  const test::TempDir folder("run-flags-model");
  fs::create_directories(folder.file("nets"));
  fs::create_directories(folder.file("data"));
  test::writeFile(folder.file("nets/model.pt"), "");
  for (const char* name : {"data/train_x.npy", "data/train_y.npy"}) test::writeFile(folder.file(name), "");
  const std::string relativeModel = fs::relative(folder.file("nets/../nets/model.pt")).string();
  const std::string relativeData = fs::relative(folder.file("data")).string();

  RunFlags flags =
      parseRunFlags({"--model", relativeModel, "--data", "npy:" + relativeData, "--loss", "mse"});
  EXPECT_EQ(flags.spec.model(), v1::MODEL_TORCHSCRIPT);
  EXPECT_EQ(flags.spec.model_path(), folder.file("nets/model.pt"));
  EXPECT_EQ(flags.spec.dataset(), v1::DATASET_NPY);
  EXPECT_EQ(flags.spec.data_dir(), folder.path() + "/data");
  EXPECT_EQ(flags.spec.loss(), v1::LOSS_MSE);
  EXPECT_TRUE(contains(runArguments(flags), {"--model", folder.file("nets/model.pt")}));
  EXPECT_TRUE(contains(runArguments(flags), {"--data", "npy:" + folder.path() + "/data"}));
  EXPECT_EQ(runName(flags), "model.pt ddp x1");

  EXPECT_NE(errorOf({"--model", folder.file("absent.pt")})
                .find("--model " + folder.file("absent.pt") + ": no such file"),
            std::string::npos);
  EXPECT_NE(
      errorOf({"--data", "npy:" + folder.path()}).find("--data npy:" + folder.path() + ": no train_x.npy"),
      std::string::npos);
  EXPECT_NE(errorOf({"--model", "vgg16"}).find("--model: 'vgg16' is neither"), std::string::npos);
  EXPECT_NE(errorOf({"--data", "npy:"}).find("npy:DIR"), std::string::npos);
  // On other hosts the files are theirs to find: the paths are only made absolute.
  RunFlags remote = parseRunFlags({"-np", "2", "-H", "gpu1:2", "--model", "/models/absent.pt"});
  EXPECT_EQ(remote.spec.model_path(), "/models/absent.pt");
}

// A program told its steps on its command line counts towards them; one that was not decides for itself.
TEST(ExpectedSteps, AProgramToldItsStepsCountsTowardsThem) {
  auto programOf = [](std::vector<std::string> argv) {
    v1::JobSpec spec = defaultJobSpec();
    for (auto& word : argv) spec.mutable_program()->add_argv(std::move(word));
    return spec;
  };
  EXPECT_EQ(expectedSteps(programOf({"python3", "train.py", "--steps", "300"})), 300u);
  EXPECT_EQ(expectedSteps(programOf({"python3", "train.py", "--lr", "0.1", "--max-steps=40"})), 40u);
  EXPECT_EQ(expectedSteps(programOf({"python3", "train.py", "--max_steps", "7"})), 7u);
  EXPECT_EQ(expectedSteps(programOf({"python3", "train.py"})), 0u);
  EXPECT_EQ(expectedSteps(programOf({"python3", "train.py", "--steps", "many"})), 0u);
  EXPECT_EQ(expectedSteps(programOf({"python3", "train.py", "--steps"})), 0u);
}

}  // namespace
}  // namespace ringmaster::console
