// SPDX-License-Identifier: GPL-3.0-or-later
// The job spec: defaults, the names users type, validation, and the flags that carry it to a rank.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/sentence.h"
#include "ringmaster/v1/job.pb.h"

namespace ringmaster {

// A spec with every default filled in (engine ddp, backend gloo, model cnn, fashion-mnist, batch 64, ...).
v1::JobSpec defaultJobSpec();

// Fills fields left at zero/unspecified with their defaults, leaving the rest alone.
void applyDefaults(v1::JobSpec& spec);

inline constexpr char kValidationContext[] = "ringmaster::Validation";

// One problem with one field of a spec, e.g. {"hyper.batch_size", "must be at least 1"}. The message is
// English; `phrase` is the sentence it was made from (context kValidationContext), which the GUI shows in its
// own language.
struct FieldError {
  std::string field;
  std::string message;
  Sentence phrase;
};

// The shortest text that reads back as exactly `v`: "0.1", not "0.10000000000000001".
std::string formatNumber(double v);

// No timeout or threshold a job needs is longer than a week; longer values are mistakes (and overflow
// clocks).
constexpr double kLongestWaitS = 7 * 24 * 3600.0;
// How long the Horovod engine's rank 0 lets some ranks wait for a tensor others have not submitted before it
// names them (--stall-check-s). Horovod's own inspector waits 60 s; a stall is worth knowing well before
// that.
constexpr double kDefaultStallCheckS = 5;
// Steps between the ranks' replica checks when the job does not say, and the most it may say.
constexpr int32_t kDefaultCheckReplicasEvery = 100;
constexpr int32_t kMostCheckReplicasEvery = 1'000'000;
// Steps between the replica checks the job asks for; 0 when it asks for none.
inline int32_t checkReplicasEvery(const v1::JobSpec& spec) {
  const int32_t every = spec.check_replicas_every();
  return every < 0 ? 0 : every == 0 ? kDefaultCheckReplicasEvery : every;
}

// Every problem in the spec; empty means valid. `builtBackends` lists what this build can run.
std::vector<FieldError> validateJobSpec(const v1::JobSpec& spec);

// The spec runs a program of the user's (JobSpec.program) instead of Ringmaster's own training.
bool isUserProgram(const v1::JobSpec& spec);
// What is wrong with a user program: an empty or NUL-holding argv, a relative working folder, Horovod's layer
// without the instrumentation it is part of, environment entries that are not NAME=value or that name a
// variable Ringmaster sets (torchrun's, RINGMASTER_*). Fields are "program.argv", "program.horovod",
// "program.environment[2]" ...
std::vector<FieldError> programErrors(const v1::UserProgram& program);
// The variables torchrun gives every rank, which the agent sets for a program's ranks.
const std::vector<std::string>& torchrunVariables();
// What a person calls the program: "train.py" for "/usr/bin/python3 -u train.py", "my_trainer" for
// "/opt/bin/my_trainer --epochs 3".
std::string programName(const v1::UserProgram& program);
// A program's environment entry whose name reads like a secret (holding TOKEN, KEY, SECRET, PASSWORD, PASSWD,
// CREDENTIAL or AUTH, in any case) is kept as NAME=*** wherever the job is stored or saved (run history,
// presets); the ranks get the value itself.
inline constexpr std::string_view kMaskedValue = "***";
bool isSecretName(std::string_view name);
v1::JobSpec withSecretsMasked(v1::JobSpec spec);

// What is wrong with a job id (it names folders on every host), e.g. "cannot be '..'": empty when it is 1 to
// 128 letters, digits, '.', '_' or '-', and not "." or "..".
std::string jobIdProblem(const std::string& jobId);
// The job id of restart `number` (1, 2 ...) of the run whose first job is `runId`: "<run id>-restart<N>".
std::string restartJobId(const std::string& runId, unsigned number);
// What is wrong with a launch's run id (it names the folder a restarting job checkpoints into by default):
// empty when it is empty, job `jobId`'s own id, or the run `jobId` restarts (restartJobId).
std::string runIdProblem(const std::string& runId, const std::string& jobId);

// "hyper.batch_size: must be at least 1; ..." for a person.
std::string describe(const std::vector<FieldError>& errors);

// Names as users type them on command lines and in job files.
std::string_view engineName(v1::Engine);
std::string_view backendName(v1::Backend);
std::string_view modelName(v1::Model);
std::string_view datasetName(v1::Dataset);
std::string_view optimizerName(v1::Optimizer);
std::string_view compressionName(v1::Compression);
std::string_view reduceOpName(v1::ReduceOp);
std::string_view lossName(v1::Loss);
std::optional<v1::Engine> parseEngine(std::string_view);
std::optional<v1::Backend> parseBackend(std::string_view);
std::optional<v1::Model> parseModel(std::string_view);
std::optional<v1::Dataset> parseDataset(std::string_view);
std::optional<v1::Optimizer> parseOptimizer(std::string_view);
std::optional<v1::Compression> parseCompression(std::string_view);
std::optional<v1::ReduceOp> parseReduceOp(std::string_view);
std::optional<v1::Loss> parseLoss(std::string_view);

// What --model and --data say, in the words users type. --model takes a built-in name or the path of a
// TorchScript file of the user's (a path holds a '/' or ends in ".pt": "./model.pt", "/models/net"); --data
// takes a dataset name or "npy:DIR" (train_x.npy, train_y.npy, optional test_x.npy, test_y.npy in DIR).
bool isModelPath(std::string_view text);
// Sets model (and model_path) from `text`; false, leaving the spec alone, when it is neither a name nor a
// path.
bool setModelFromText(v1::JobSpec& spec, std::string_view text);
// Sets dataset (and data_dir for "npy:DIR") from `text`; false, leaving the spec alone, when it is not one.
// Synthetic inputs of --data synthetic:CxHxW: the most channels, the longest side, the most values a sample.
inline constexpr uint32_t kMostSyntheticChannels = 64;
inline constexpr uint32_t kMostSyntheticSide = 1024;
inline constexpr uint64_t kMostSyntheticElements = 262144;
bool setDataFromText(v1::JobSpec& spec, std::string_view text);
// The words setModelFromText and setDataFromText read back as the spec's model and data.
std::string modelText(const v1::JobSpec& spec);
std::string dataText(const v1::JobSpec& spec);
// What a person calls the model: the built-in name, or the TorchScript file's name ("model.pt").
std::string modelLabel(const v1::JobSpec& spec);

}  // namespace ringmaster
