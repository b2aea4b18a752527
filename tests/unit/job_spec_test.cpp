// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/job_spec.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"
#include "common/host_backends.h"
#include "common/printable.h"
#include "common/shell_words.h"
#include "jobflags/job_flags.h"

namespace v1 = ringmaster::v1;

namespace {

bool hasField(const std::vector<ringmaster::FieldError>& errors, const std::string& field) {
  return std::any_of(errors.begin(), errors.end(), [&](const auto& e) { return e.field == field; });
}

v1::JobSpec parseFlags(std::vector<std::string> args) {
  v1::JobSpec spec = ringmaster::defaultJobSpec();
  CLI::App app;
  ringmaster::addJobFlags(app, spec);
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector form back to front
  app.parse(args);
  return spec;
}

}  // namespace

TEST(JobSpec, DefaultsAreValid) {
  auto spec = ringmaster::defaultJobSpec();
  EXPECT_TRUE(ringmaster::validateJobSpec(spec).empty())
      << ringmaster::describe(ringmaster::validateJobSpec(spec));
  EXPECT_EQ(spec.engine(), v1::ENGINE_DDP);
  EXPECT_EQ(spec.model(), v1::MODEL_CNN);
  EXPECT_EQ(spec.hyper().batch_size(), 64u);
  EXPECT_DOUBLE_EQ(spec.hyper().bucket_cap_mb(), 25);
  EXPECT_DOUBLE_EQ(spec.hyper().fusion_threshold_mb(), 128);
}

// --data synthetic:CxHxW gives synthetic inputs of the shape a user's model takes (a 3-channel TorchScript
// model); another dataset forgets it; bad shapes are refused or named by validation.
TEST(JobSpec, SyntheticDataTakesTheInputShape) {
  auto spec = ringmaster::defaultJobSpec();
  ASSERT_TRUE(ringmaster::setDataFromText(spec, "synthetic:3x32x32"));
  EXPECT_EQ(spec.dataset(), v1::DATASET_SYNTHETIC);
  EXPECT_EQ(std::vector<uint32_t>(spec.synthetic_shape().begin(), spec.synthetic_shape().end()),
            (std::vector<uint32_t>{3, 32, 32}));
  EXPECT_EQ(ringmaster::dataText(spec), "synthetic:3x32x32");
  EXPECT_TRUE(ringmaster::validateJobSpec(spec).empty());
  for (const std::string bad :
       {"synthetic:", "synthetic:3x32", "synthetic:3x32x32x1", "synthetic:3xx32", "synthetic:3x32x",
        "synthetic:-3x32x32", "synthetic:ax32x32", "synthetic:3X32X32"}) {
    EXPECT_FALSE(ringmaster::setDataFromText(spec, bad)) << bad;
  }
  EXPECT_EQ(ringmaster::dataText(spec), "synthetic:3x32x32") << "a refused text changes nothing";
  for (const std::string tooBig :
       {"synthetic:65x8x8", "synthetic:3x2000x2", "synthetic:3x512x512", "synthetic:0x28x28"}) {
    ASSERT_TRUE(ringmaster::setDataFromText(spec, tooBig)) << tooBig;
    EXPECT_TRUE(hasField(ringmaster::validateJobSpec(spec), "synthetic_shape")) << tooBig;
  }
  ASSERT_TRUE(ringmaster::setDataFromText(spec, "synthetic"));
  EXPECT_EQ(spec.synthetic_shape_size(), 0);
  ASSERT_TRUE(ringmaster::setDataFromText(spec, "synthetic:1x28x28"));
  ASSERT_TRUE(ringmaster::setDataFromText(spec, "fashion-mnist"));
  EXPECT_EQ(spec.synthetic_shape_size(), 0);
  spec.add_synthetic_shape(1);
  spec.add_synthetic_shape(28);
  spec.add_synthetic_shape(28);
  EXPECT_TRUE(hasField(ringmaster::validateJobSpec(spec), "synthetic_shape")) << "only for synthetic data";
}

TEST(JobSpec, ValidationNamesEachBadField) {
  auto spec = ringmaster::defaultJobSpec();
  spec.mutable_hyper()->set_batch_size(0);
  spec.mutable_hyper()->set_lr(-1);
  spec.set_world_size(2);
  spec.mutable_faults()->add_stragglers()->set_rank(5);
  auto errors = ringmaster::validateJobSpec(spec);
  EXPECT_TRUE(hasField(errors, "hyper.batch_size"));
  EXPECT_TRUE(hasField(errors, "hyper.lr"));
  EXPECT_TRUE(hasField(errors, "faults.stragglers[0].rank"));
  EXPECT_TRUE(hasField(errors, "faults.stragglers[0].extra_ms"));
  EXPECT_FALSE(hasField(errors, "hyper.momentum"));
}

// Protobuf strings are UTF-8: a file name in another encoding is named, not passed on to be logged and
// refused by the agent's parser.
TEST(JobSpec, TextThatIsNotUtf8IsNamedByField) {
  auto spec = ringmaster::defaultJobSpec();
  spec.set_name("训练 ✓");  // UTF-8 beyond ASCII is fine
  spec.set_model(v1::MODEL_TORCHSCRIPT);
  spec.set_model_path("/data/mod\xe8le.pt");  // Latin-1 "è"
  spec.set_data_dir("/data/\xc0\xaf");        // an overlong '/'
  auto* program = spec.mutable_program();
  program->add_argv("/usr/bin/python3");
  program->add_argv("train.py");
  program->add_argv("--tag=\xed\xa0\x80");  // a UTF-16 surrogate written as UTF-8
  spec.mutable_hosts()->Add()->set_host("h\xff");
  const auto errors = ringmaster::validateJobSpec(spec);
  EXPECT_TRUE(hasField(errors, "model_path"));
  EXPECT_TRUE(hasField(errors, "data_dir"));
  EXPECT_TRUE(hasField(errors, "program.argv[2]"));
  EXPECT_TRUE(hasField(errors, "hosts[0].host"));
  EXPECT_FALSE(hasField(errors, "name"));
  EXPECT_FALSE(hasField(errors, "program.argv[1]"));
  for (const auto& e : errors) {
    if (e.field == "model_path") {
      EXPECT_NE(e.message.find("UTF-8"), std::string::npos) << e.message;
    }
  }
}

TEST(JobSpec, Utf8CheckFollowsUnicodesTable) {
  using ringmaster::isUtf8;
  EXPECT_TRUE(isUtf8(""));
  EXPECT_TRUE(isUtf8("plain ascii"));
  EXPECT_TRUE(isUtf8("\xc2\x80 \xdf\xbf \xe0\xa0\x80 \xef\xbf\xbf \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf"));
  EXPECT_FALSE(isUtf8("\x80"));              // a continuation byte alone
  EXPECT_FALSE(isUtf8("\xc1\xbf"));          // overlong two-byte form
  EXPECT_FALSE(isUtf8("\xe0\x9f\xbf"));      // overlong three-byte form
  EXPECT_FALSE(isUtf8("\xed\xbf\xbf"));      // a surrogate
  EXPECT_FALSE(isUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(isUtf8("\xf5\x80\x80\x80"));
  EXPECT_FALSE(isUtf8("ok\xe2\x82"));  // cut short at the end
  EXPECT_FALSE(isUtf8(std::string_view("\xe2\x82\xac", 2)));
}

TEST(JobSpec, HostsMustOfferEnoughSlots) {
  auto spec = ringmaster::defaultJobSpec();
  spec.set_world_size(8);
  auto* h = spec.add_hosts();
  h->set_host("node1");
  h->set_slots(4);
  EXPECT_TRUE(hasField(ringmaster::validateJobSpec(spec), "hosts"));
  h->set_slots(8);
  EXPECT_TRUE(ringmaster::validateJobSpec(spec).empty());
}

TEST(JobSpec, NamesRoundTrip) {
  for (auto e : {v1::ENGINE_DDP, v1::ENGINE_HOROVOD}) {
    EXPECT_EQ(ringmaster::parseEngine(ringmaster::engineName(e)), e);
  }
  for (auto m : {v1::MODEL_MLP, v1::MODEL_CNN, v1::MODEL_RESNET18, v1::MODEL_RESNET50}) {
    EXPECT_EQ(ringmaster::parseModel(ringmaster::modelName(m)), m);
  }
  EXPECT_FALSE(ringmaster::parseEngine("mpi").has_value());
}

TEST(JobFlags, WorkerArgumentsParseBackToTheSameSpec) {
  auto spec = ringmaster::defaultJobSpec();
  spec.set_engine(v1::ENGINE_HOROVOD);
  spec.set_model(v1::MODEL_MLP);
  spec.set_dataset(v1::DATASET_SYNTHETIC);
  spec.mutable_hyper()->set_lr(0.125);
  spec.mutable_hyper()->set_steps(30);
  spec.mutable_hyper()->set_scale_lr(true);
  spec.mutable_hyper()->set_fusion_threshold_mb(0);
  spec.set_world_size(4);
  auto* s = spec.mutable_faults()->add_stragglers();
  s->set_rank(2);
  s->set_extra_ms(50);
  s->set_from_step(10);
  auto* leak = spec.mutable_faults()->add_leaks();
  leak->set_rank(1);
  leak->set_mb_per_step(2);

  auto back = parseFlags(ringmaster::workerArguments(spec));
  back.set_world_size(spec.world_size());  // carried by the environment, not by flags
  back.set_name(spec.name());
  EXPECT_EQ(back.SerializeAsString(), spec.SerializeAsString()) << back.DebugString() << "\nvs\n"
                                                                << spec.DebugString();
}

TEST(JobFlags, EveryFlagTheWorkerReadsIsWrittenForASpecThatUsesItAndReadBack) {
  auto spec = ringmaster::defaultJobSpec();
  auto* h = spec.mutable_hyper();
  h->set_steps(40);
  h->set_scale_lr(true);
  h->set_no_response_cache(true);
  h->set_warmup_steps(3);
  h->set_seed(7);
  spec.set_data_dir("/srv/fashion");
  spec.set_checkpoint_dir("/srv/checkpoints");
  spec.set_checkpoint_every(20);
  spec.set_resume(true);
  auto* faults = spec.mutable_faults();
  faults->add_stragglers()->set_extra_ms(5);
  faults->add_leaks()->set_mb_per_step(1);
  faults->add_crashes()->set_step(9);
  faults->add_hangs()->set_step(11);
  faults->add_drifts()->set_step(13);
  const auto args = ringmaster::workerArguments(spec);

  CLI::App app;
  v1::JobSpec scratch = ringmaster::defaultJobSpec();
  ringmaster::addJobFlags(app, scratch);
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_name() == "--help") continue;
    EXPECT_NE(std::find(args.begin(), args.end(), option->get_name()), args.end()) << option->get_name();
  }
  EXPECT_EQ(parseFlags(args).SerializeAsString(), spec.SerializeAsString());
}

TEST(JobSpec, ModelAndDataWordsTellNamesFromPaths) {
  struct Case {
    std::string text;
    bool ok;
    v1::Model model;
    std::string path;
  };
  for (const Case& c : std::vector<Case>{{"cnn", true, v1::MODEL_CNN, ""},
                                         {"resnet50", true, v1::MODEL_RESNET50, ""},
                                         {"model.pt", true, v1::MODEL_TORCHSCRIPT, "model.pt"},
                                         {"./model.pt", true, v1::MODEL_TORCHSCRIPT, "./model.pt"},
                                         {"/models/net", true, v1::MODEL_TORCHSCRIPT, "/models/net"},
                                         {"vgg16", false, v1::MODEL_CNN, ""},
                                         {".pt", false, v1::MODEL_CNN, ""},
                                         {"torchscript", false, v1::MODEL_CNN, ""}}) {
    auto spec = ringmaster::defaultJobSpec();
    EXPECT_EQ(ringmaster::setModelFromText(spec, c.text), c.ok) << c.text;
    EXPECT_EQ(spec.model(), c.model) << c.text;
    EXPECT_EQ(spec.model_path(), c.path) << c.text;
    if (c.ok) {
      EXPECT_EQ(ringmaster::modelText(spec), c.text);
    }
  }
  auto spec = ringmaster::defaultJobSpec();
  ASSERT_TRUE(ringmaster::setModelFromText(spec, "/m/net.pt"));
  EXPECT_EQ(ringmaster::modelLabel(spec), "net.pt");
  ASSERT_TRUE(ringmaster::setModelFromText(spec, "mlp"));  // a built-in after a path forgets the path
  EXPECT_TRUE(spec.model_path().empty());
  EXPECT_EQ(ringmaster::modelLabel(spec), "mlp");

  for (const std::string bad : {"npy", "npy:", "csv:/data", "imagenet"}) {
    EXPECT_FALSE(ringmaster::setDataFromText(spec, bad)) << bad;
  }
  EXPECT_EQ(spec.dataset(), v1::DATASET_FASHION_MNIST);
  ASSERT_TRUE(ringmaster::setDataFromText(spec, "npy:/data/my set"));
  EXPECT_EQ(spec.dataset(), v1::DATASET_NPY);
  EXPECT_EQ(spec.data_dir(), "/data/my set");
  EXPECT_EQ(ringmaster::dataText(spec), "npy:/data/my set");
}

TEST(JobSpec, UserModelDataAndLossAreValidated) {
  auto spec = ringmaster::defaultJobSpec();
  EXPECT_EQ(spec.loss(), v1::LOSS_CROSS_ENTROPY);
  spec.set_model(v1::MODEL_TORCHSCRIPT);
  spec.set_dataset(v1::DATASET_NPY);
  spec.set_loss(v1::LOSS_MSE);
  auto errors = ringmaster::validateJobSpec(spec);
  EXPECT_TRUE(hasField(errors, "model_path"));
  EXPECT_TRUE(hasField(errors, "data_dir"));
  EXPECT_FALSE(hasField(errors, "loss"));
  spec.set_model_path("/models/net.pt");
  spec.set_data_dir("/data");
  EXPECT_TRUE(ringmaster::validateJobSpec(spec).empty())
      << ringmaster::describe(ringmaster::validateJobSpec(spec));

  spec.set_model(v1::MODEL_CNN);  // a path with a built-in model, and mse for a classifier
  errors = ringmaster::validateJobSpec(spec);
  EXPECT_TRUE(hasField(errors, "model_path"));
  EXPECT_TRUE(hasField(errors, "loss"));
  spec.set_loss(v1::LOSS_UNSPECIFIED);
  EXPECT_TRUE(hasField(ringmaster::validateJobSpec(spec), "loss"));
}

TEST(JobFlags, UserModelAndNpyDataParseBackToTheSameSpec) {
  auto spec = ringmaster::defaultJobSpec();
  spec.set_model(v1::MODEL_TORCHSCRIPT);
  spec.set_model_path("/models/res net.pt");
  spec.set_dataset(v1::DATASET_NPY);
  spec.set_data_dir("/srv/npy");
  spec.set_loss(v1::LOSS_MSE);
  const auto args = ringmaster::workerArguments(spec);
  EXPECT_EQ(std::count(args.begin(), args.end(), "--data-dir"), 0);  // the folder goes with npy:
  auto back = parseFlags(args);
  EXPECT_EQ(back.SerializeAsString(), spec.SerializeAsString()) << back.DebugString() << "\nvs\n"
                                                                << spec.DebugString();
  EXPECT_THROW(parseFlags({"--model", "vgg16"}), CLI::ValidationError);
  EXPECT_THROW(parseFlags({"--data", "npy"}), CLI::ValidationError);
  EXPECT_THROW(parseFlags({"--loss", "hinge"}), CLI::ValidationError);
}

TEST(JobFlags, NumbersAreShortAndReadBackExactly) {
  auto spec = ringmaster::defaultJobSpec();
  spec.mutable_hyper()->set_lr(0.1);
  spec.mutable_hyper()->set_momentum(1.0 / 3.0);
  spec.mutable_hyper()->set_epochs(0);  // --steps alone sets the length
  spec.mutable_hyper()->set_steps(25);
  const std::vector<std::string> args = ringmaster::workerArguments(spec);
  const auto lr = std::find(args.begin(), args.end(), "--lr");
  ASSERT_NE(lr, args.end());
  ASSERT_NE(lr + 1, args.end());
  EXPECT_EQ(*(lr + 1), "0.1");

  auto back = parseFlags(args);
  EXPECT_EQ(back.hyper().lr(), 0.1);
  EXPECT_EQ(back.hyper().momentum(), 1.0 / 3.0);
  EXPECT_EQ(back.hyper().epochs(), 0u);
  EXPECT_EQ(back.hyper().steps(), 25u);
  EXPECT_EQ(back.SerializeAsString(), spec.SerializeAsString()) << back.DebugString() << "\nvs\n"
                                                                << spec.DebugString();
}

TEST(JobFlags, BadValuesAreUsageErrorsNamingTheFlag) {
  EXPECT_THROW(parseFlags({"--engine", "mpi"}), CLI::ValidationError);
  EXPECT_THROW(parseFlags({"--batch-size", "0"}), CLI::ValidationError);
  EXPECT_THROW(parseFlags({"--no-such-flag"}), CLI::ExtrasError);
  EXPECT_THROW(parseFlags({"--resume=maybe"}), CLI::ConversionError);
  EXPECT_THROW(parseFlags({"--scale-lr=often"}), CLI::ConversionError);
  EXPECT_FALSE(parseFlags({"--scale-lr=false"}).hyper().scale_lr());
  EXPECT_TRUE(parseFlags({"--scale-lr"}).hyper().scale_lr());
  try {
    parseFlags({"--inject-straggler", "two:50"});
    FAIL() << "accepted a bad straggler";
  } catch (const CLI::ValidationError& e) {  // a usage error CLI11 reports, not an exception past the parser
    EXPECT_NE(std::string(e.what()).find("--inject-straggler"), std::string::npos) << e.what();
  }
  for (const char* lr : {"nan", "inf", "1e400", "-1"}) {
    EXPECT_THROW(parseFlags({"--lr", lr}), CLI::ValidationError) << lr;
  }
  EXPECT_THROW(parseFlags({"--rendezvous-timeout-s", "1e300"}), CLI::ValidationError);
  EXPECT_THROW(parseFlags({"--inject-leak", "1:nan"}), CLI::ValidationError);
}

TEST(UserProgramSpec, ProgramsAreNamedAsAPersonWould) {
  using namespace ringmaster;
  auto program = [](std::vector<std::string> argv) {
    v1::UserProgram p;
    for (auto& a : argv) p.add_argv(a);
    return p;
  };
  EXPECT_EQ(programName(program({"/usr/bin/python3", "-u", "/srv/exp/train.py", "--epochs", "3"})),
            "train.py");
  EXPECT_EQ(programName(program({"python3", "-m", "mypkg.train"})), "mypkg.train");
  EXPECT_EQ(programName(program({"/opt/bin/my_trainer", "--epochs", "3"})), "my_trainer");
  v1::JobSpec spec = defaultJobSpec();
  EXPECT_FALSE(isUserProgram(spec));
  *spec.mutable_program() = program({"/usr/bin/python3", "train.py"});
  EXPECT_TRUE(isUserProgram(spec));
  EXPECT_TRUE(validateJobSpec(spec).empty()) << describe(validateJobSpec(spec));
  spec.mutable_faults()->add_stragglers()->set_rank(0);
  EXPECT_NE(describe(validateJobSpec(spec)).find("faults: fault injection is for Ringmaster's own training"),
            std::string::npos)
      << describe(validateJobSpec(spec));
}

// Ringmaster's Horovod layer is part of the instrumentation, for a spec from anywhere (a job file, the Launch
// page, an agent's launch).
TEST(UserProgramSpec, TheHorovodLayerNeedsTheInstrumentation) {
  v1::JobSpec spec = ringmaster::defaultJobSpec();
  spec.mutable_program()->add_argv("/usr/bin/python3");
  spec.mutable_program()->add_argv("train_hvd.py");
  spec.mutable_program()->set_horovod(true);
  EXPECT_TRUE(ringmaster::validateJobSpec(spec).empty())
      << ringmaster::describe(ringmaster::validateJobSpec(spec));
  spec.mutable_program()->set_uninstrumented(true);
  const auto errors = ringmaster::validateJobSpec(spec);
  ASSERT_EQ(errors.size(), 1u) << ringmaster::describe(errors);
  EXPECT_EQ(errors[0].field, "program.horovod");
  EXPECT_NE(errors[0].message.find("needs the instrumentation"), std::string::npos) << errors[0].message;
  spec.mutable_program()->set_horovod(false);
  EXPECT_TRUE(ringmaster::validateJobSpec(spec).empty()) << "an uninstrumented program is fine on its own";
}

TEST(UserProgramSpec, ShellLinesQuoteOnlyWhatNeedsIt) {
  using ringmaster::shellLine;
  EXPECT_EQ(shellLine({"ringmaster", "run", "-np", "2", "--", "/usr/bin/python3", "train.py", "--lr=0.1"}),
            "ringmaster run -np 2 -- /usr/bin/python3 train.py --lr=0.1");
  EXPECT_EQ(shellLine({"echo", "two words", "it's", "", "$HOME"}), "echo 'two words' 'it'\\''s' '' '$HOME'");
}

// What is stored or saved of a job keeps a secret-looking variable's name and masks its value; the job the
// ranks get is left as it is.
TEST(UserProgramSpec, SecretLookingValuesAreMaskedInACopy) {
  using ringmaster::withSecretsMasked;
  v1::JobSpec spec;
  for (const char* entry :
       {"API_TOKEN=a", "aws_secret_access_key=b", "DB_PASSWD=c", "Db_Password=d", "MY_CREDENTIALS=e",
        "GITHUB_AUTH=f", "SSH_KEY=g=h", "OMP_NUM_THREADS=2", "EMPTY="})
    spec.mutable_program()->add_environment(entry);
  const v1::JobSpec masked = withSecretsMasked(spec);
  const auto& kept = masked.program().environment();
  EXPECT_EQ(std::vector<std::string>(kept.begin(), kept.end()),
            (std::vector<std::string>{"API_TOKEN=***", "aws_secret_access_key=***", "DB_PASSWD=***",
                                      "Db_Password=***", "MY_CREDENTIALS=***", "GITHUB_AUTH=***",
                                      "SSH_KEY=***", "OMP_NUM_THREADS=2", "EMPTY="}));
  EXPECT_EQ(spec.program().environment(0), "API_TOKEN=a") << "the original is unchanged";
  EXPECT_FALSE(withSecretsMasked(v1::JobSpec()).has_program()) << "a job without a program gains none";
}

TEST(JobSpec, ARunIdIsTheJobsOwnOrTheRunItRestarts) {
  EXPECT_EQ(ringmaster::restartJobId("run-1", 2), "run-1-restart2");
  for (const auto& [runId, jobId] : std::vector<std::pair<std::string, std::string>>{
           {"", "job"}, {"job", "job"}, {"job", "job-restart1"}, {"job", "job-restart12"}}) {
    EXPECT_EQ(ringmaster::runIdProblem(runId, jobId), "") << runId << " for " << jobId;
  }
  for (const auto& [runId, jobId] :
       std::vector<std::pair<std::string, std::string>>{{"../x", "job"},
                                                        {"other", "job"},
                                                        {"other", "job-restart1"},
                                                        {"job", "job-restart"},
                                                        {"job", "job-restart01"},
                                                        {"job", "job-restart1x"},
                                                        {"job", "job-restart-1"}}) {
    EXPECT_NE(ringmaster::runIdProblem(runId, jobId), "") << runId << " for " << jobId;
  }
}

TEST(HostBackends, NcclNeedsAGpuAndEveryBackendItsBuild) {
  using ringmaster::BackendProblem;
  using ringmaster::backendProblem;
  v1::HostInfo host;
  host.add_backends(v1::BACKEND_GLOO);
  EXPECT_EQ(backendProblem(host, v1::BACKEND_GLOO), BackendProblem::kNone) << "gloo needs no GPU";
  EXPECT_EQ(backendProblem(host, v1::BACKEND_NCCL), BackendProblem::kNotBuilt);
  host.add_gpus()->set_name("NVIDIA H200");
  EXPECT_EQ(backendProblem(host, v1::BACKEND_NCCL), BackendProblem::kNotBuilt) << "a GPU is not a build";
  host.add_backends(v1::BACKEND_NCCL);
  EXPECT_EQ(backendProblem(host, v1::BACKEND_NCCL), BackendProblem::kNone);
  host.clear_gpus();
  EXPECT_EQ(backendProblem(host, v1::BACKEND_NCCL), BackendProblem::kNoGpu);
  EXPECT_EQ(backendProblem(host, v1::BACKEND_GLOO), BackendProblem::kNone);
}
