// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobflags/job_flags.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>

#include "common/error.h"

namespace ringmaster {
namespace {

template <typename Number>
Number parseNumber(std::string_view text, const std::string& flag, const std::string& what) {
  Number value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  bool finite = true;
  if constexpr (std::is_floating_point_v<Number>) finite = std::isfinite(value) && value >= 0;
  if (text.empty() || ec != std::errc() || ptr != end || !finite) {
    throw InputError(flag + ": '" + std::string(text) + "' is not a valid " + what);
  }
  return value;
}

}  // namespace

CLI::Validator finiteWithin(double min, double max) {
  const std::string range =
      "a number from " + CLI::detail::to_string(min) + " to " + CLI::detail::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& input) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(input, value) || !std::isfinite(value) || value < min || value > max) {
          return "'" + input + "' is not " + range;
        }
        return {};
      },
      "FLOAT in [" + CLI::detail::to_string(min) + " - " + CLI::detail::to_string(max) + "]");
}

v1::FaultInjection::Straggler parseStragglerFault(const std::string& text) {
  const std::string flag = "--inject-straggler";
  size_t colon = text.find(':');
  if (colon == std::string::npos) throw InputError(flag + ": write RANK:MS[@STEP], got '" + text + "'");
  std::string_view rest = std::string_view(text).substr(colon + 1);
  v1::FaultInjection::Straggler s;
  s.set_rank(parseNumber<int>(std::string_view(text).substr(0, colon), flag, "rank"));
  size_t at = rest.find('@');
  s.set_extra_ms(parseNumber<double>(rest.substr(0, at), flag, "number of milliseconds"));
  if (at != std::string_view::npos) s.set_from_step(parseNumber<uint64_t>(rest.substr(at + 1), flag, "step"));
  return s;
}

v1::FaultInjection::Leak parseLeakFault(const std::string& text) {
  const std::string flag = "--inject-leak";
  size_t colon = text.find(':');
  if (colon == std::string::npos) throw InputError(flag + ": write RANK:MB, got '" + text + "'");
  v1::FaultInjection::Leak l;
  l.set_rank(parseNumber<int>(std::string_view(text).substr(0, colon), flag, "rank"));
  l.set_mb_per_step(parseNumber<double>(std::string_view(text).substr(colon + 1), flag, "number of MiB"));
  return l;
}

std::string stepFaultText(const v1::FaultInjection::AtStep& fault) {
  return std::to_string(fault.rank()) + ":" + std::to_string(fault.step());
}

v1::FaultInjection::AtStep parseStepFault(const std::string& text, const std::string& flag) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) throw InputError(flag + ": write RANK:STEP, got '" + text + "'");
  v1::FaultInjection::AtStep f;
  f.set_rank(parseNumber<int>(std::string_view(text).substr(0, colon), flag, "rank"));
  f.set_step(parseNumber<uint64_t>(std::string_view(text).substr(colon + 1), flag, "step"));
  return f;
}

namespace {

using Args = std::vector<std::string>;
using When = bool (*)(const v1::JobSpec&);

bool always(const v1::JobSpec&) {
  return true;
}

// One job flag, named once: how CLI11 reads it into a spec, and how a spec is written back as it.
struct JobFlag {
  std::function<void(CLI::App&, v1::JobSpec&)> add;
  std::function<void(const v1::JobSpec&, Args&)> write;
};

// One of `names`, read by `set` (which may assume a listed name) and written as `get` says.
JobFlag choice(const std::string& group, const std::string& flag, const std::string& help, Args names,
               std::string (*get)(const v1::JobSpec&), void (*set)(v1::JobSpec&, const std::string&)) {
  return {[=](CLI::App& app, v1::JobSpec& spec) {
            app.add_option_function<std::string>(
                   flag, [set, &spec](const std::string& v) { set(spec, v); }, help)
                ->check(CLI::IsMember(names))
                ->default_str(get(spec))
                ->type_name("NAME")
                ->group(group);
          },
          [=](const v1::JobSpec& spec, Args& args) {
            args.insert(args.end(), {flag, get(spec)});
          }};
}

// A name or a path that `set` reads into the spec; words it refuses are a usage error saying "'WORDS' is
// neither <expected>".
JobFlag words(const std::string& group, const std::string& flag, const std::string& help,
              const std::string& typeName, const std::string& expected,
              std::string (*get)(const v1::JobSpec&), bool (*set)(v1::JobSpec&, std::string_view)) {
  return {[=](CLI::App& app, v1::JobSpec& spec) {
            app.add_option_function<std::string>(
                   flag, [set, &spec](const std::string& v) { set(spec, v); }, help)
                ->check(CLI::Validator(
                    [set, expected](std::string& v) {
                      v1::JobSpec scratch;
                      return set(scratch, v) ? std::string() : "'" + v + "' is neither " + expected;
                    },
                    typeName))
                ->default_str(get(spec))
                ->group(group);
          },
          [=](const v1::JobSpec& spec, Args& args) {
            args.insert(args.end(), {flag, get(spec)});
          }};
}

// A folder, written when `when` holds.
JobFlag folder(const std::string& group, const std::string& flag, const std::string& help,
               std::string (*get)(const v1::JobSpec&), void (*set)(v1::JobSpec&, const std::string&),
               When when) {
  return {[=](CLI::App& app, v1::JobSpec& spec) {
            app.add_option_function<std::string>(
                   flag, [set, &spec](const std::string& v) { set(spec, v); }, help)
                ->type_name("DIR")
                ->group(group);
          },
          [=](const v1::JobSpec& spec, Args& args) {
            if (when(spec)) args.insert(args.end(), {flag, get(spec)});
          }};
}

// A number within `check`, if given. A flag written in every spec shows its default in --help; one written
// only when `when` holds has no default worth showing (--steps: none means "as many as --epochs take").
template <typename Number>
JobFlag number(const std::string& group, const std::string& flag, const std::string& help,
               Number (*get)(const v1::JobSpec&), void (*set)(v1::JobSpec&, Number),
               std::optional<CLI::Validator> check = {}, When when = always) {
  const auto text = [](Number v) {
    if constexpr (std::is_floating_point_v<Number>) {
      return formatNumber(v);
    } else {
      return std::to_string(v);
    }
  };
  return {[=](CLI::App& app, v1::JobSpec& spec) {
            auto* option = app.add_option_function<Number>(
                flag, [set, &spec](Number v) { set(spec, v); }, help);
            if (check) option->check(*check);
            if (when == always) option->default_str(text(get(spec)));
            option->group(group);
          },
          [=](const v1::JobSpec& spec, Args& args) {
            if (when(spec)) args.insert(args.end(), {flag, text(get(spec))});
          }};
}

// A switch: on when given, written when on. add_flag_callback makes "--resume=maybe" a usage error
// (add_flag_function lets CLI11's std::stoll throw past the parser).
JobFlag toggle(const std::string& group, const std::string& flag, const std::string& help,
               bool (*get)(const v1::JobSpec&), void (*set)(v1::JobSpec&)) {
  return {[=](CLI::App& app, v1::JobSpec& spec) {
            app.add_flag_callback(
                   flag, [set, &spec] { set(spec); }, help)
                ->group(group);
          },
          [=](const v1::JobSpec& spec, Args& args) {
            if (get(spec)) args.push_back(flag);
          }};
}

// A fault that may be given many times: `add` parses and keeps each value, `values` writes them back.
JobFlag fault(const std::string& group, const std::string& flag, const std::string& help,
              void (*add)(v1::JobSpec&, const std::string&), Args (*values)(const v1::JobSpec&)) {
  return {[=](CLI::App& app, v1::JobSpec& spec) {
            app.add_option_function<std::vector<std::string>>(
                   flag,
                   [add, &spec](const Args& given) {
                     // A bad value is a usage error like any other flag's: CLI11 prints it and the program
                     // exits 2.
                     try {
                       for (const auto& value : given) add(spec, value);
                     } catch (const InputError& e) {
                       throw CLI::ValidationError(e.what());
                     }
                   },
                   help)
                ->group(group)
                ->take_all()
                ->allow_extra_args(false);
          },
          [=](const v1::JobSpec& spec, Args& args) {
            for (auto& value : values(spec)) args.insert(args.end(), {flag, std::move(value)});
          }};
}

template <typename Each, typename Text>
Args each(const Each& items, Text text) {
  Args out;
  for (const auto& item : items) out.push_back(text(item));
  return out;
}

// What is trained on what, and how the ranks meet.
std::vector<JobFlag> trainingFlags() {
  using S = v1::JobSpec;
  const std::string training = "Training";
  return {
      choice(
          training, "--engine",
          "Gradient synchronisation of Ringmaster's own training: ddp (buckets + overlap) or horovod "
          "(Ringmaster's Horovod-style engine: negotiation + fusion); a Horovod script of yours runs with "
          "ringmaster run --horovod -- python3 script.py",
          {"ddp", "horovod"}, [](const S& s) { return std::string(engineName(s.engine())); },
          [](S& s, const std::string& v) { s.set_engine(*parseEngine(v)); }),
      choice(
          training, "--backend", "Collective library: gloo (CPU) or nccl (CUDA builds)", {"gloo", "nccl"},
          [](const S& s) { return std::string(backendName(s.backend())); },
          [](S& s, const std::string& v) { s.set_backend(*parseBackend(v)); }),
      // --model and --data take a name or a path; common/job_spec says which words mean what.
      words(training, "--model",
            "Model to train: mlp, cnn, resnet18, resnet50, or a TorchScript file of yours (FILE.pt, or any "
            "path with a '/'), made with torch.jit.script(model).save(FILE)",
            "NAME|FILE.pt", "mlp, cnn, resnet18, resnet50 nor a TorchScript file (FILE.pt)", modelText,
            setModelFromText),
      words(
          training, "--data",
          "Training data: synthetic (synthetic:CxHxW for inputs of that shape, e.g. synthetic:3x32x32 for a "
          "3-channel model), fashion-mnist, cifar10, or npy:DIR with train_x.npy (float32 or uint8, N x ...) "
          "and train_y.npy (int64 labels or float32 targets), optionally test_x.npy and test_y.npy",
          "NAME|npy:DIR", "synthetic, synthetic:CxHxW, fashion-mnist, cifar10 nor npy:DIR", dataText,
          setDataFromText),
      choice(
          training, "--loss", "What training minimises: cross-entropy (class labels) or mse (float targets)",
          {"cross-entropy", "mse"}, [](const S& s) { return std::string(lossName(s.loss())); },
          [](S& s, const std::string& v) { s.set_loss(*parseLoss(v)); }),
      // npy:DIR carries its folder in --data.
      folder(
          training, "--data-dir", "Directory holding the dataset files (default: the packaged dataset)",
          [](const S& s) { return s.data_dir(); }, [](S& s, const std::string& v) { s.set_data_dir(v); },
          [](const S& s) { return !s.data_dir().empty() && s.dataset() != v1::DATASET_NPY; }),
      number<double>(
          training, "--rendezvous-timeout-s", "Seconds to wait for every rank to arrive",
          [](const S& s) { return s.rendezvous_timeout_s(); },
          [](S& s, double v) { s.set_rendezvous_timeout_s(v); }, finiteWithin(0.1, kLongestWaitS))};
}

// How the model is optimized and for how long.
std::vector<JobFlag> optimizerFlags() {
  using S = v1::JobSpec;
  const std::string hyper = "Hyper-parameters";
  return {number<uint32_t>(
              hyper, "--batch-size", "Samples per rank per micro-batch",
              [](const S& s) { return s.hyper().batch_size(); },
              [](S& s, uint32_t v) { s.mutable_hyper()->set_batch_size(v); }, CLI::Range(1, 65536)),
          choice(
              hyper, "--optimizer", "Optimizer", {"sgd", "adam"},
              [](const S& s) { return std::string(optimizerName(s.hyper().optimizer())); },
              [](S& s, const std::string& v) { s.mutable_hyper()->set_optimizer(*parseOptimizer(v)); }),
          number<double>(
              hyper, "--lr", "Learning rate", [](const S& s) { return s.hyper().lr(); },
              [](S& s, double v) { s.mutable_hyper()->set_lr(v); }, finiteWithin(1e-12, 1e9)),
          number<double>(
              hyper, "--momentum", "SGD momentum in [0, 1)", [](const S& s) { return s.hyper().momentum(); },
              [](S& s, double v) { s.mutable_hyper()->set_momentum(v); }, finiteWithin(0.0, 0.999999)),
          toggle(
              hyper, "--scale-lr", "Multiply the learning rate by the world size (as Horovod advises)",
              [](const S& s) { return s.hyper().scale_lr(); },
              [](S& s) { s.mutable_hyper()->set_scale_lr(true); }),
          number<uint32_t>(
              hyper, "--warmup-steps", "Linear learning-rate warm-up (steps)",
              [](const S& s) { return s.hyper().warmup_steps(); },
              [](S& s, uint32_t v) { s.mutable_hyper()->set_warmup_steps(v); }),
          number<uint32_t>(
              hyper, "--epochs", "Passes over the training set (0: as many as --steps take)",
              [](const S& s) { return s.hyper().epochs(); },
              [](S& s, uint32_t v) { s.mutable_hyper()->set_epochs(v); }, CLI::Range(0u, 100000u)),
          number<uint64_t>(
              hyper, "--steps", "Optimizer steps to run (overrides --epochs when given)",
              [](const S& s) { return s.hyper().steps(); },
              [](S& s, uint64_t v) { s.mutable_hyper()->set_steps(v); },
              CLI::Range(uint64_t{1}, uint64_t{1} << 40), [](const S& s) { return s.hyper().steps() > 0; }),
          number<uint64_t>(
              hyper, "--seed", "Random seed", [](const S& s) { return s.hyper().seed(); },
              [](S& s, uint64_t v) { s.mutable_hyper()->set_seed(v); }),
          number<uint32_t>(
              hyper, "--accumulation-steps", "Micro-batches per optimizer step (DDP no_sync)",
              [](const S& s) { return s.hyper().accumulation_steps(); },
              [](S& s, uint32_t v) { s.mutable_hyper()->set_accumulation_steps(v); }, CLI::Range(1, 1024))};
}

// How gradients travel: compression, DDP buckets, Horovod fusion and negotiation.
std::vector<JobFlag> communicationFlags() {
  using S = v1::JobSpec;
  const std::string hyper = "Hyper-parameters";
  return {
      choice(
          hyper, "--compression", "Gradient compression on the wire", {"none", "fp16", "bf16"},
          [](const S& s) { return std::string(compressionName(s.hyper().compression())); },
          [](S& s, const std::string& v) { s.mutable_hyper()->set_compression(*parseCompression(v)); }),
      number<double>(
          hyper, "--bucket-cap-mb", "DDP bucket size (MiB)",
          [](const S& s) { return s.hyper().bucket_cap_mb(); },
          [](S& s, double v) { s.mutable_hyper()->set_bucket_cap_mb(v); }, finiteWithin(0.001, 4096.0)),
      number<double>(
          hyper, "--fusion-threshold-mb", "Horovod fusion buffer (MiB); 0 disables fusion",
          [](const S& s) { return s.hyper().fusion_threshold_mb(); },
          [](S& s, double v) { s.mutable_hyper()->set_fusion_threshold_mb(v); }, finiteWithin(0.0, 4096.0)),
      number<double>(
          hyper, "--cycle-time-ms", "Horovod background cycle (ms)",
          [](const S& s) { return s.hyper().cycle_time_ms(); },
          [](S& s, double v) { s.mutable_hyper()->set_cycle_time_ms(v); }, finiteWithin(0.01, 10000.0)),
      number<uint32_t>(
          hyper, "--backward-passes-per-step", "Horovod local gradient accumulation",
          [](const S& s) { return s.hyper().backward_passes_per_step(); },
          [](S& s, uint32_t v) { s.mutable_hyper()->set_backward_passes_per_step(v); }, CLI::Range(1, 1024)),
      toggle(
          hyper, "--no-response-cache",
          "Horovod: negotiate every cycle through rank 0 instead of reusing agreed responses (to compare)",
          [](const S& s) { return s.hyper().no_response_cache(); },
          [](S& s) { s.mutable_hyper()->set_no_response_cache(true); }),
      choice(
          hyper, "--reduce-op", "Horovod gradient reduction: average or sum", {"average", "sum"},
          [](const S& s) { return std::string(reduceOpName(s.hyper().reduce_op())); },
          [](S& s, const std::string& v) { s.mutable_hyper()->set_reduce_op(*parseReduceOp(v)); }),
      number<double>(
          hyper, "--stall-check-s",
          "Horovod engine: seconds some ranks wait for a tensor others have not submitted before rank 0 "
          "names them (default 5; Horovod waits 60)",
          [](const S& s) { return s.hyper().stall_check_s(); },
          [](S& s, double v) { s.mutable_hyper()->set_stall_check_s(v); }, finiteWithin(0.1, kLongestWaitS))};
}

// Where checkpoints go and whether the job resumes from them.
std::vector<JobFlag> checkpointFlags() {
  using S = v1::JobSpec;
  const std::string checkpoints = "Checkpoints";
  return {folder(
              checkpoints, "--checkpoint-dir", "Directory for checkpoints (rank 0 writes)",
              [](const S& s) { return s.checkpoint_dir(); },
              [](S& s, const std::string& v) { s.set_checkpoint_dir(v); },
              [](const S& s) { return !s.checkpoint_dir().empty(); }),
          number<uint64_t>(
              checkpoints, "--checkpoint-every", "Steps between checkpoints (0: only at the end)",
              [](const S& s) { return s.checkpoint_every(); },
              [](S& s, uint64_t v) { s.set_checkpoint_every(v); }, std::nullopt,
              [](const S& s) { return !s.checkpoint_dir().empty(); }),
          toggle(
              checkpoints, "--resume", "Resume model, optimizer, step and epoch from --checkpoint-dir",
              [](const S& s) { return s.resume(); }, [](S& s) { s.set_resume(true); })};
}

// Faults injected on purpose, for demos and tests.
std::vector<JobFlag> faultFlags() {
  using S = v1::JobSpec;
  const std::string faults = "Fault injection (demos and tests; off by default)";
  return {
      // Each fault is read from the words it is written as, so that a spec without faults parses back
      // without one.
      fault(
          faults, "--inject-straggler", "RANK:MS[@STEP]: extra compute per step on that rank",
          [](S& s, const std::string& v) { *s.mutable_faults()->add_stragglers() = parseStragglerFault(v); },
          [](const S& s) {
            return each(s.faults().stragglers(), [](const v1::FaultInjection::Straggler& f) {
              return std::to_string(f.rank()) + ":" + formatNumber(f.extra_ms()) + "@" +
                     std::to_string(f.from_step());
            });
          }),
      fault(
          faults, "--inject-leak", "RANK:MB: memory kept per step on that rank",
          [](S& s, const std::string& v) { *s.mutable_faults()->add_leaks() = parseLeakFault(v); },
          [](const S& s) {
            return each(s.faults().leaks(), [](const v1::FaultInjection::Leak& f) {
              return std::to_string(f.rank()) + ":" + formatNumber(f.mb_per_step());
            });
          }),
      fault(
          faults, "--inject-crash", "RANK:STEP: that rank aborts at that step",
          [](S& s, const std::string& v) {
            *s.mutable_faults()->add_crashes() = parseStepFault(v, "--inject-crash");
          },
          [](const S& s) { return each(s.faults().crashes(), stepFaultText); }),
      fault(
          faults, "--inject-hang", "RANK:STEP: that rank stops submitting one tensor from that step",
          [](S& s, const std::string& v) {
            *s.mutable_faults()->add_hangs() = parseStepFault(v, "--inject-hang");
          },
          [](const S& s) { return each(s.faults().hangs(), stepFaultText); }),
      fault(
          faults, "--inject-drift",
          "RANK:STEP: that rank changes its first parameter outside the optimizer at that step, so that its "
          "replica drifts",
          [](S& s, const std::string& v) {
            *s.mutable_faults()->add_drifts() = parseStepFault(v, "--inject-drift");
          },
          [](const S& s) { return each(s.faults().drifts(), stepFaultText); })};
}

// Every job flag, in the order --help lists them and workerArguments() writes them.
const std::vector<JobFlag>& jobFlags() {
  static const std::vector<JobFlag> flags = [] {
    std::vector<JobFlag> all;
    for (auto part : {trainingFlags, optimizerFlags, communicationFlags, checkpointFlags, faultFlags}) {
      for (auto& flag : part()) all.push_back(std::move(flag));
    }
    return all;
  }();
  return flags;
}

}  // namespace

void addJobFlags(CLI::App& app, v1::JobSpec& spec) {
  for (const auto& flag : jobFlags()) flag.add(app, spec);
}

std::vector<std::string> workerArguments(const v1::JobSpec& spec) {
  Args args;
  for (const auto& flag : jobFlags()) flag.write(spec, args);
  return args;
}

}  // namespace ringmaster
