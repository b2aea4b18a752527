// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/job_spec.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "common/printable.h"

// lupdate collects the messages marked with Qt's QT_TRANSLATE_NOOP from this file; common/ has no Qt, so here
// the marker is the text itself.
#define QT_TRANSLATE_NOOP(context, text) text

namespace ringmaster {
namespace {

template <typename Enum, size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

constexpr NameTable<v1::Engine, 2> kEngines{{{v1::ENGINE_DDP, "ddp"}, {v1::ENGINE_HOROVOD, "horovod"}}};
constexpr NameTable<v1::Backend, 2> kBackends{{{v1::BACKEND_GLOO, "gloo"}, {v1::BACKEND_NCCL, "nccl"}}};
constexpr NameTable<v1::Model, 4> kModels{{{v1::MODEL_MLP, "mlp"},
                                           {v1::MODEL_CNN, "cnn"},
                                           {v1::MODEL_RESNET18, "resnet18"},
                                           {v1::MODEL_RESNET50, "resnet50"}}};
constexpr NameTable<v1::Dataset, 4> kDatasets{{{v1::DATASET_SYNTHETIC, "synthetic"},
                                               {v1::DATASET_FASHION_MNIST, "fashion-mnist"},
                                               {v1::DATASET_CIFAR10, "cifar10"},
                                               {v1::DATASET_NPY, "npy"}}};
constexpr NameTable<v1::Optimizer, 2> kOptimizers{{{v1::OPTIMIZER_SGD, "sgd"}, {v1::OPTIMIZER_ADAM, "adam"}}};
constexpr NameTable<v1::Compression, 3> kCompressions{
    {{v1::COMPRESSION_NONE, "none"}, {v1::COMPRESSION_FP16, "fp16"}, {v1::COMPRESSION_BF16, "bf16"}}};
constexpr NameTable<v1::ReduceOp, 2> kReduceOps{
    {{v1::REDUCE_OP_AVERAGE, "average"}, {v1::REDUCE_OP_SUM, "sum"}}};
constexpr NameTable<v1::Loss, 2> kLosses{{{v1::LOSS_CROSS_ENTROPY, "cross-entropy"}, {v1::LOSS_MSE, "mse"}}};
constexpr std::string_view kNpyPrefix = "npy:";

template <typename Enum, size_t N>
std::string_view nameOf(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "unspecified";
}

template <typename Enum, size_t N>
std::optional<Enum> parseName(const NameTable<Enum, N>& table, std::string_view text) {
  for (const auto& [e, name] : table) {
    if (name == text) return e;
  }
  return std::nullopt;
}

// Protobuf carries only UTF-8 in string fields: a path or argument in another encoding would be logged and
// refused by whoever parses the spec next, so it is named here instead. Fields read as in the other
// messages: "model_path", "program.argv[2]".
void checkUtf8(const google::protobuf::Message& message, const std::string& prefix,
               std::vector<FieldError>& errors) {
  using google::protobuf::FieldDescriptor;
  const auto* descriptor = message.GetDescriptor();
  const auto* reflection = message.GetReflection();
  auto refuse = [&](std::string field) {
    Sentence phrase = sentence(
        kValidationContext, QT_TRANSLATE_NOOP("ringmaster::Validation",
                                              "is not UTF-8 text; give paths, names and arguments in UTF-8 "
                                              "(rename a file or folder whose name is in another encoding)"));
    errors.push_back({std::move(field), toText(phrase), std::move(phrase)});
  };
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const std::string name = prefix + field->name();
    if (field->type() == FieldDescriptor::TYPE_STRING) {
      if (!field->is_repeated()) {
        if (!isUtf8(reflection->GetString(message, field))) refuse(name);
        continue;
      }
      for (int k = 0; k < reflection->FieldSize(message, field); ++k) {
        if (!isUtf8(reflection->GetRepeatedString(message, field, k)))
          refuse(name + "[" + std::to_string(k) + "]");
      }
    } else if (field->type() == FieldDescriptor::TYPE_MESSAGE) {
      if (!field->is_repeated()) {
        if (reflection->HasField(message, field))
          checkUtf8(reflection->GetMessage(message, field), name + ".", errors);
        continue;
      }
      for (int k = 0; k < reflection->FieldSize(message, field); ++k) {
        checkUtf8(reflection->GetRepeatedMessage(message, field, k), name + "[" + std::to_string(k) + "].",
                  errors);
      }
    }
  }
}

}  // namespace

std::string formatNumber(double v) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
}

std::string_view engineName(v1::Engine e) {
  return nameOf(kEngines, e);
}
std::string_view backendName(v1::Backend b) {
  return nameOf(kBackends, b);
}
std::string_view modelName(v1::Model m) {
  return m == v1::MODEL_TORCHSCRIPT ? "torchscript" : nameOf(kModels, m);
}
std::string_view datasetName(v1::Dataset d) {
  return nameOf(kDatasets, d);
}
std::string_view optimizerName(v1::Optimizer o) {
  return nameOf(kOptimizers, o);
}
std::string_view compressionName(v1::Compression c) {
  return nameOf(kCompressions, c);
}
std::string_view reduceOpName(v1::ReduceOp r) {
  return nameOf(kReduceOps, r);
}
std::string_view lossName(v1::Loss l) {
  return nameOf(kLosses, l);
}
std::optional<v1::Engine> parseEngine(std::string_view t) {
  return parseName(kEngines, t);
}
std::optional<v1::Backend> parseBackend(std::string_view t) {
  return parseName(kBackends, t);
}
std::optional<v1::Model> parseModel(std::string_view t) {
  return parseName(kModels, t);
}
std::optional<v1::Dataset> parseDataset(std::string_view t) {
  return parseName(kDatasets, t);
}
std::optional<v1::Optimizer> parseOptimizer(std::string_view t) {
  return parseName(kOptimizers, t);
}
std::optional<v1::Compression> parseCompression(std::string_view t) {
  return parseName(kCompressions, t);
}
std::optional<v1::ReduceOp> parseReduceOp(std::string_view t) {
  return parseName(kReduceOps, t);
}
std::optional<v1::Loss> parseLoss(std::string_view t) {
  return parseName(kLosses, t);
}

bool isModelPath(std::string_view text) {
  const std::string_view suffix = ".pt";
  return text.find('/') != std::string_view::npos ||
         (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix);
}

bool setModelFromText(v1::JobSpec& spec, std::string_view text) {
  if (isModelPath(text)) {
    spec.set_model(v1::MODEL_TORCHSCRIPT);
    spec.set_model_path(std::string(text));
    return true;
  }
  const auto model = parseModel(text);
  if (!model) return false;
  spec.set_model(*model);
  spec.clear_model_path();
  return true;
}

namespace {

constexpr std::string_view kSyntheticPrefix = "synthetic:";

// "3x32x32": channels, height, width; nothing else.
std::optional<std::vector<uint32_t>> parseShape(std::string_view text) {
  std::vector<uint32_t> dims;
  while (!text.empty()) {
    const size_t x = text.find('x');
    const std::string_view part = text.substr(0, x);
    uint32_t value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (error != std::errc() || end != part.data() + part.size() || part.empty()) return std::nullopt;
    dims.push_back(value);
    if (x == std::string_view::npos) break;
    text.remove_prefix(x + 1);
    if (text.empty()) return std::nullopt;
  }
  if (dims.size() != 3) return std::nullopt;
  return dims;
}

}  // namespace

bool setDataFromText(v1::JobSpec& spec, std::string_view text) {
  if (text.substr(0, kNpyPrefix.size()) == kNpyPrefix && text.size() > kNpyPrefix.size()) {
    spec.set_dataset(v1::DATASET_NPY);
    spec.set_data_dir(std::string(text.substr(kNpyPrefix.size())));
    spec.clear_synthetic_shape();
    return true;
  }
  if (text.substr(0, kSyntheticPrefix.size()) == kSyntheticPrefix) {
    const auto shape = parseShape(text.substr(kSyntheticPrefix.size()));
    if (!shape) return false;
    spec.set_dataset(v1::DATASET_SYNTHETIC);
    spec.mutable_synthetic_shape()->Assign(shape->begin(), shape->end());
    return true;
  }
  const auto dataset = parseDataset(text);
  if (!dataset || *dataset == v1::DATASET_NPY) return false;
  spec.set_dataset(*dataset);
  spec.clear_synthetic_shape();
  return true;
}

std::string modelText(const v1::JobSpec& spec) {
  return spec.model() == v1::MODEL_TORCHSCRIPT ? spec.model_path() : std::string(modelName(spec.model()));
}

std::string dataText(const v1::JobSpec& spec) {
  if (spec.dataset() == v1::DATASET_NPY) return std::string(kNpyPrefix) + spec.data_dir();
  std::string text(datasetName(spec.dataset()));
  if (spec.dataset() == v1::DATASET_SYNTHETIC && spec.synthetic_shape_size() > 0) {
    text += ':';
    for (int i = 0; i < spec.synthetic_shape_size(); ++i)
      text += (i > 0 ? "x" : "") + std::to_string(spec.synthetic_shape(i));
  }
  return text;
}

std::string modelLabel(const v1::JobSpec& spec) {
  if (spec.model() != v1::MODEL_TORCHSCRIPT) return std::string(modelName(spec.model()));
  const std::string& path = spec.model_path();
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void applyDefaults(v1::JobSpec& spec) {
  if (spec.engine() == v1::ENGINE_UNSPECIFIED) spec.set_engine(v1::ENGINE_DDP);
  if (spec.backend() == v1::BACKEND_UNSPECIFIED) spec.set_backend(v1::BACKEND_GLOO);
  if (spec.model() == v1::MODEL_UNSPECIFIED) spec.set_model(v1::MODEL_CNN);
  if (spec.dataset() == v1::DATASET_UNSPECIFIED) spec.set_dataset(v1::DATASET_FASHION_MNIST);
  if (spec.world_size() == 0) spec.set_world_size(1);
  if (spec.rendezvous_timeout_s() == 0) spec.set_rendezvous_timeout_s(120);
  auto* h = spec.mutable_hyper();
  if (h->batch_size() == 0) h->set_batch_size(64);
  if (h->optimizer() == v1::OPTIMIZER_UNSPECIFIED) h->set_optimizer(v1::OPTIMIZER_SGD);
  if (h->lr() == 0) h->set_lr(0.01);
  if (h->epochs() == 0 && h->steps() == 0) h->set_epochs(1);
  if (h->accumulation_steps() == 0) h->set_accumulation_steps(1);
  if (h->bucket_cap_mb() == 0) h->set_bucket_cap_mb(25);
  if (h->cycle_time_ms() == 0) h->set_cycle_time_ms(1);
  if (h->backward_passes_per_step() == 0) h->set_backward_passes_per_step(1);
  if (h->stall_check_s() == 0) h->set_stall_check_s(kDefaultStallCheckS);
  if (h->reduce_op() == v1::REDUCE_OP_UNSPECIFIED) h->set_reduce_op(v1::REDUCE_OP_AVERAGE);
  if (spec.loss() == v1::LOSS_UNSPECIFIED) spec.set_loss(v1::LOSS_CROSS_ENTROPY);
  if (spec.check_replicas_every() == 0) spec.set_check_replicas_every(kDefaultCheckReplicasEvery);
}

v1::JobSpec defaultJobSpec() {
  v1::JobSpec spec;
  spec.mutable_hyper()->set_fusion_threshold_mb(128);
  applyDefaults(spec);
  return spec;
}

std::string jobIdProblem(const std::string& jobId) {
  if (jobId.empty() || jobId.size() > 128) {
    return "must have 1 to 128 characters, got " + std::to_string(jobId.size());
  }
  for (char c : jobId) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) return "may hold only letters, digits, '.', '_' and '-', got '" + jobId + "'";
  }
  if (jobId == "." || jobId == "..") return "cannot be '" + jobId + "'";
  return {};
}

std::string restartJobId(const std::string& runId, unsigned number) {
  return runId + "-restart" + std::to_string(number);
}

std::string runIdProblem(const std::string& runId, const std::string& jobId) {
  if (runId.empty() || runId == jobId) return {};
  if (auto problem = jobIdProblem(runId); !problem.empty()) return problem;
  const std::string prefix = runId + "-restart";  // restartJobId's
  const std::string number = jobId.rfind(prefix, 0) == 0 ? jobId.substr(prefix.size()) : "";
  const bool restart = !number.empty() && number.size() <= 9 && number[0] != '0' &&
                       std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!restart) {
    return "is neither job " + jobId + "'s own id nor the run it restarts (job " + restartJobId(runId, 1) +
           ", ...): give the run's first job id";
  }
  return {};
}

namespace {

void addError(std::vector<FieldError>& errors, std::string field, const char* pattern,
              const std::vector<Figure>& args = {}) {
  Sentence phrase = sentence(kValidationContext, pattern, args);
  errors.push_back({std::move(field), toText(phrase), std::move(phrase)});
}

void checkEngineAndBackend(const v1::JobSpec& spec, std::vector<FieldError>& errors) {
  if (engineName(spec.engine()) == "unspecified")
    addError(errors, "engine", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be ddp or horovod"));
  if (backendName(spec.backend()) == "unspecified")
    addError(errors, "backend", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be gloo or nccl"));
}

void checkModelAndData(const v1::JobSpec& spec, std::vector<FieldError>& errors) {
  if (modelName(spec.model()) == "unspecified") {
    addError(errors, "model",
             QT_TRANSLATE_NOOP("ringmaster::Validation",
                               "must be mlp, cnn, resnet18, resnet50 or a TorchScript file (FILE.pt)"));
  }
  if (spec.model() == v1::MODEL_TORCHSCRIPT) {
    if (spec.model_path().empty())
      addError(
          errors, "model_path",
          QT_TRANSLATE_NOOP("ringmaster::Validation", "give the TorchScript file's path (--model FILE.pt)"));
    if (spec.model_path().find('\0') != std::string::npos)
      addError(errors, "model_path",
               QT_TRANSLATE_NOOP("ringmaster::Validation", "cannot hold a NUL character"));
  } else if (!spec.model_path().empty()) {
    addError(errors, "model_path",
             QT_TRANSLATE_NOOP("ringmaster::Validation",
                               "is only for a TorchScript model; the built-in %1 has none"),
             {std::string(modelName(spec.model()))});
  }
  if (datasetName(spec.dataset()) == "unspecified") {
    addError(
        errors, "dataset",
        QT_TRANSLATE_NOOP("ringmaster::Validation", "must be synthetic, fashion-mnist, cifar10 or npy:DIR"));
  }
  if (spec.synthetic_shape_size() > 0) {
    // Each rank holds its synthetic set in memory: a sample of at most 1 MiB of floats.
    const auto& d = spec.synthetic_shape();
    const bool fits = d.size() == 3 && d[0] >= 1 && d[0] <= kMostSyntheticChannels && d[1] >= 1 &&
                      d[1] <= kMostSyntheticSide && d[2] >= 1 && d[2] <= kMostSyntheticSide &&
                      uint64_t(d[0]) * d[1] * d[2] <= kMostSyntheticElements;
    if (spec.dataset() != v1::DATASET_SYNTHETIC)
      addError(
          errors, "synthetic_shape",
          QT_TRANSLATE_NOOP("ringmaster::Validation", "is only for synthetic data (--data synthetic:CxHxW)"));
    else if (!fits)
      addError(
          errors, "synthetic_shape",
          QT_TRANSLATE_NOOP("ringmaster::Validation",
                            "must be channels x height x width, such as 3x32x32: 1 to 64 channels, sides of "
                            "1 to 1024, at most 262144 values a sample"));
  }
  if (spec.dataset() == v1::DATASET_NPY && spec.data_dir().empty()) {
    addError(
        errors, "data_dir",
        QT_TRANSLATE_NOOP("ringmaster::Validation",
                          "npy data needs the folder holding train_x.npy and train_y.npy (--data npy:DIR)"));
  }
  if (spec.data_dir().find('\0') != std::string::npos)
    addError(errors, "data_dir", QT_TRANSLATE_NOOP("ringmaster::Validation", "cannot hold a NUL character"));
  if (lossName(spec.loss()) == "unspecified")
    addError(errors, "loss", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be cross-entropy or mse"));
  if (spec.loss() == v1::LOSS_MSE && spec.model() != v1::MODEL_TORCHSCRIPT) {
    addError(
        errors, "loss",
        QT_TRANSLATE_NOOP("ringmaster::Validation",
                          "mse is for a TorchScript model of your own (--model FILE.pt); the built-in models "
                          "are classifiers trained with cross-entropy"));
  }
}

void checkWorldAndTimeouts(const v1::JobSpec& spec, std::vector<FieldError>& errors) {
  if (spec.world_size() < 1 || spec.world_size() > 4096)
    addError(errors, "world_size", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be from 1 to 4096"));
  if (!std::isfinite(spec.rendezvous_timeout_s()) || !(spec.rendezvous_timeout_s() > 0) ||
      spec.rendezvous_timeout_s() > kLongestWaitS) {
    addError(errors, "rendezvous_timeout_s",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be above 0 and at most a week (604800 s)"));
  }
  if (spec.check_replicas_every() < -1 || spec.check_replicas_every() > kMostCheckReplicasEvery) {
    addError(errors, "check_replicas_every",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be -1 (never) or from 0 to 1000000 steps"));
  }
  if (!std::isfinite(spec.stall_timeout_s()) || spec.stall_timeout_s() < 0 ||
      spec.stall_timeout_s() > kLongestWaitS) {
    addError(errors, "stall_timeout_s",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be from 0 (never) to a week (604800 s)"));
  }
}

void checkHyperParameters(const v1::JobSpec& spec, std::vector<FieldError>& errors) {
  const auto& h = spec.hyper();
  if (h.batch_size() < 1 || h.batch_size() > 65536)
    addError(errors, "hyper.batch_size",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be from 1 to 65536"));
  if (optimizerName(h.optimizer()) == "unspecified")
    addError(errors, "hyper.optimizer", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be sgd or adam"));
  if (!std::isfinite(h.lr()) || !(h.lr() > 0))
    addError(errors, "hyper.lr", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be a positive number"));
  if (!std::isfinite(h.momentum()) || h.momentum() < 0 || h.momentum() >= 1) {
    addError(errors, "hyper.momentum", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be in [0, 1)"));
  }
  if (h.epochs() == 0 && h.steps() == 0)
    addError(errors, "hyper.epochs",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "give epochs or steps (at least one above 0)"));
  if (h.accumulation_steps() < 1 || h.accumulation_steps() > 1024) {
    addError(errors, "hyper.accumulation_steps",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be from 1 to 1024"));
  }
  if (compressionName(h.compression()) == "unspecified")
    addError(errors, "hyper.compression",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be none, fp16 or bf16"));
  if (reduceOpName(h.reduce_op()) == "unspecified")
    addError(errors, "hyper.reduce_op",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be average or sum"));
  if (!std::isfinite(h.bucket_cap_mb()) || !(h.bucket_cap_mb() > 0) || h.bucket_cap_mb() > 4096) {
    addError(errors, "hyper.bucket_cap_mb",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be above 0 and at most 4096 MiB"));
  }
  if (!std::isfinite(h.fusion_threshold_mb()) || h.fusion_threshold_mb() < 0 ||
      h.fusion_threshold_mb() > 4096) {
    addError(errors, "hyper.fusion_threshold_mb",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be from 0 (no fusion) to 4096 MiB"));
  }
  if (!std::isfinite(h.cycle_time_ms()) || !(h.cycle_time_ms() > 0) || h.cycle_time_ms() > 10000) {
    addError(errors, "hyper.cycle_time_ms",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be above 0 and at most 10000 ms"));
  }
  if (h.backward_passes_per_step() < 1 || h.backward_passes_per_step() > 1024) {
    addError(errors, "hyper.backward_passes_per_step",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be from 1 to 1024"));
  }
  if (!std::isfinite(h.stall_check_s()) || !(h.stall_check_s() > 0) || h.stall_check_s() > kLongestWaitS) {
    addError(errors, "hyper.stall_check_s",
             QT_TRANSLATE_NOOP("ringmaster::Validation", "must be above 0 and at most a week (604800 s)"));
  }
  if (h.compression() == v1::COMPRESSION_BF16 && spec.engine() == v1::ENGINE_HOROVOD) {
    addError(errors, "hyper.compression",
             QT_TRANSLATE_NOOP("ringmaster::Validation",
                               "the horovod engine supports none or fp16 (as Horovod's Compression)"));
  }
}

void checkHosts(const v1::JobSpec& spec, std::vector<FieldError>& errors) {
  int slots = 0;
  for (int i = 0; i < spec.hosts_size(); ++i) {
    const auto& host = spec.hosts(i);
    std::string field = "hosts[" + std::to_string(i) + "]";
    if (host.host().empty())
      addError(errors, field + ".host", QT_TRANSLATE_NOOP("ringmaster::Validation", "must name a host"));
    if (host.slots() < 1)
      addError(errors, field + ".slots", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be at least 1"));
    if (host.agent_port() > 65535)
      addError(errors, field + ".agent_port",
               QT_TRANSLATE_NOOP("ringmaster::Validation", "must be a TCP port (1-65535)"));
    slots += static_cast<int>(host.slots());
  }
  if (spec.hosts_size() > 0 && slots < static_cast<int>(spec.world_size())) {
    addError(errors, "hosts", QT_TRANSLATE_NOOP("ringmaster::Validation", "offer %1 slots for world_size %2"),
             {std::to_string(slots), std::to_string(spec.world_size())});
  }
}

void checkRank(const v1::JobSpec& spec, const std::string& field, int rank, std::vector<FieldError>& errors) {
  if (rank < 0 || rank >= static_cast<int>(spec.world_size())) {
    addError(errors, field, QT_TRANSLATE_NOOP("ringmaster::Validation", "rank %1 is outside 0..%2"),
             {std::to_string(rank), std::to_string(spec.world_size() - 1)});
  }
}

void checkFaults(const v1::JobSpec& spec, std::vector<FieldError>& errors) {
  const auto& f = spec.faults();
  for (int i = 0; i < f.stragglers_size(); ++i) {
    std::string field = "faults.stragglers[" + std::to_string(i) + "]";
    checkRank(spec, field + ".rank", f.stragglers(i).rank(), errors);
    if (!(f.stragglers(i).extra_ms() > 0) || f.stragglers(i).extra_ms() > 600000) {
      addError(errors, field + ".extra_ms",
               QT_TRANSLATE_NOOP("ringmaster::Validation", "must be above 0 and at most 600000 ms"));
    }
  }
  for (int i = 0; i < f.leaks_size(); ++i) {
    std::string field = "faults.leaks[" + std::to_string(i) + "]";
    checkRank(spec, field + ".rank", f.leaks(i).rank(), errors);
    if (!(f.leaks(i).mb_per_step() > 0) || f.leaks(i).mb_per_step() > 1024) {
      addError(errors, field + ".mb_per_step",
               QT_TRANSLATE_NOOP("ringmaster::Validation", "must be above 0 and at most 1024 MiB"));
    }
  }
  for (int i = 0; i < f.crashes_size(); ++i)
    checkRank(spec, "faults.crashes[" + std::to_string(i) + "].rank", f.crashes(i).rank(), errors);
  for (int i = 0; i < f.hangs_size(); ++i)
    checkRank(spec, "faults.hangs[" + std::to_string(i) + "].rank", f.hangs(i).rank(), errors);
}

void checkCheckpoints(const v1::JobSpec& spec, std::vector<FieldError>& errors) {
  if (spec.resume() && spec.checkpoint_dir().empty())
    addError(errors, "resume", QT_TRANSLATE_NOOP("ringmaster::Validation", "needs checkpoint_dir"));
}

void checkUserProgram(const v1::JobSpec& spec, std::vector<FieldError>& errors) {
  if (!isUserProgram(spec)) return;
  for (auto& e : programErrors(spec.program())) errors.push_back(std::move(e));
  const auto& f = spec.faults();
  if (f.stragglers_size() + f.leaks_size() + f.crashes_size() + f.hangs_size() > 0) {
    addError(errors, "faults",
             QT_TRANSLATE_NOOP("ringmaster::Validation",
                               "fault injection is for Ringmaster's own training, not a program"));
  }
}

}  // namespace

// The checks run in a fixed order, which is the order the errors are reported in.
std::vector<FieldError> validateJobSpec(const v1::JobSpec& spec) {
  std::vector<FieldError> errors;
  checkEngineAndBackend(spec, errors);
  checkModelAndData(spec, errors);
  checkWorldAndTimeouts(spec, errors);
  checkHyperParameters(spec, errors);
  checkHosts(spec, errors);
  checkFaults(spec, errors);
  checkCheckpoints(spec, errors);
  checkUserProgram(spec, errors);
  checkUtf8(spec, "", errors);
  return errors;
}

bool isUserProgram(const v1::JobSpec& spec) {
  return spec.program().argv_size() > 0;
}

const std::vector<std::string>& torchrunVariables() {
  static const std::vector<std::string> names = {
      "RANK",        "LOCAL_RANK",       "WORLD_SIZE",         "LOCAL_WORLD_SIZE",
      "GROUP_RANK",  "GROUP_WORLD_SIZE", "ROLE_RANK",          "ROLE_WORLD_SIZE",
      "MASTER_ADDR", "MASTER_PORT",      "TORCHELASTIC_RUN_ID"};
  return names;
}

std::vector<FieldError> programErrors(const v1::UserProgram& program) {
  std::vector<FieldError> errors;
  auto fail = [&](std::string field, const char* pattern, const std::vector<Figure>& args = {}) {
    Sentence phrase = sentence(kValidationContext, pattern, args);
    errors.push_back({"program." + std::move(field), toText(phrase), std::move(phrase)});
  };
  if (program.argv_size() == 0 || program.argv(0).empty())
    fail("argv", QT_TRANSLATE_NOOP("ringmaster::Validation", "must name the program to run"));
  for (int i = 0; i < program.argv_size(); ++i) {
    if (program.argv(i).find('\0') != std::string::npos) {
      fail("argv[" + std::to_string(i) + "]",
           QT_TRANSLATE_NOOP("ringmaster::Validation", "cannot hold a NUL character"));
    }
  }
  const std::string& dir = program.working_dir();
  if (!dir.empty() && (dir.front() != '/' || dir.find('\0') != std::string::npos)) {
    fail("working_dir", QT_TRANSLATE_NOOP("ringmaster::Validation", "must be an absolute folder, got '%1'"),
         {dir});
  }
  if (program.horovod() && program.uninstrumented()) {
    fail("horovod",
         QT_TRANSLATE_NOOP("ringmaster::Validation",
                           "needs the instrumentation: Ringmaster's Horovod layer is part of the "
                           "ringmaster Python package, which an uninstrumented program runs without"));
  }
  for (int i = 0; i < program.environment_size(); ++i) {
    const std::string& entry = program.environment(i);
    const std::string field = "environment[" + std::to_string(i) + "]";
    const size_t equals = entry.find('=');
    const std::string name = entry.substr(0, equals);
    bool validName = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) validName = validName && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (equals == std::string::npos || !validName || entry.find('\0') != std::string::npos) {
      fail(field,
           QT_TRANSLATE_NOOP("ringmaster::Validation",
                             "write NAME=value with a name of letters, digits and '_', got '%1'"),
           {entry});
      continue;
    }
    const auto& reserved = torchrunVariables();
    if (std::find(reserved.begin(), reserved.end(), name) != reserved.end() ||
        name.rfind("RINGMASTER_", 0) == 0) {
      fail(field,
           QT_TRANSLATE_NOOP("ringmaster::Validation",
                             "%1 is set by Ringmaster for every rank and cannot be given"),
           {name});
    }
  }
  return errors;
}

bool isSecretName(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* word : {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  return false;
}

v1::JobSpec withSecretsMasked(v1::JobSpec spec) {
  if (!spec.has_program()) return spec;
  for (std::string& entry : *spec.mutable_program()->mutable_environment()) {
    const size_t equals = entry.find('=');
    if (isSecretName(entry.substr(0, equals)))
      entry = entry.substr(0, equals) + "=" + std::string(kMaskedValue);
  }
  return spec;
}

std::string programName(const v1::UserProgram& program) {
  auto base = [](const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  if (program.argv_size() == 0) return {};
  const std::string executable = base(program.argv(0));
  // An interpreter's program is its first argument that is not a flag: "python3 -u train.py" runs train.py.
  if (executable.rfind("python", 0) == 0 || executable == "bash" || executable == "sh") {
    for (int i = 1; i < program.argv_size(); ++i) {
      const std::string& arg = program.argv(i);
      if (arg == "-m" && i + 1 < program.argv_size()) return program.argv(i + 1);
      if (arg == "-c") return executable + " -c";
      if (!arg.empty() && arg[0] != '-') return base(arg);
    }
  }
  return executable;
}

std::string describe(const std::vector<FieldError>& errors) {
  std::string text;
  for (const auto& e : errors) {
    if (!text.empty()) text += "; ";
    text += e.field + ": " + e.message;
  }
  return text;
}

}  // namespace ringmaster
