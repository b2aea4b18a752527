// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobflags/job_flags.h"

#include <charconv>
#include <cmath>
#include <cstdint>
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

// Adds an option that takes one of `names` and stores the parsed enum through `set`.
template <typename Parse, typename Set>
CLI::Option* addChoice(CLI::App& app, const std::string& flag, const std::string& help,
                       std::vector<std::string> names, std::string current, Parse parse, Set set) {
  auto* option = app.add_option_function<std::string>(
      flag, [parse, set](const std::string& value) { set(*parse(value)); }, help);
  option->check(CLI::IsMember(names))->default_str(current)->type_name("NAME");
  return option;
}

// Adds an option whose words `set` reads into the spec (a name or a path); words it refuses are a usage error
// saying "'WORDS' is neither <expected>".
CLI::Option* addWords(CLI::App& app, const std::string& flag, const std::string& help,
                      const std::string& typeName, const std::string& expected, const std::string& current,
                      bool (*set)(v1::JobSpec&, std::string_view), v1::JobSpec& spec) {
  auto* option = app.add_option_function<std::string>(
      flag, [set, &spec](const std::string& v) { set(spec, v); }, help);
  option
      ->check(CLI::Validator(
          [set, expected](std::string& v) {
            v1::JobSpec scratch;
            return set(scratch, v) ? std::string() : "'" + v + "' is neither " + expected;
          },
          typeName))
      ->default_str(current);
  return option;
}

// Adds a fault option that may be given many times; `add` parses and keeps each value.
template <typename Add>
void addFaultList(CLI::App& app, const std::string& flag, const std::string& help, const std::string& group,
                  Add add) {
  app.add_option_function<std::vector<std::string>>(
         flag,
         [add](const std::vector<std::string>& values) {
           // A bad value is a usage error like any other flag's: CLI11 prints it and the program exits 2.
           try {
             for (const auto& value : values) add(value);
           } catch (const InputError& e) {
             throw CLI::ValidationError(e.what());
           }
         },
         help)
      ->group(group)
      ->take_all()
      ->allow_extra_args(false);
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

v1::FaultInjection::AtStep parseStepFault(const std::string& text, const std::string& flag) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) throw InputError(flag + ": write RANK:STEP, got '" + text + "'");
  v1::FaultInjection::AtStep f;
  f.set_rank(parseNumber<int>(std::string_view(text).substr(0, colon), flag, "rank"));
  f.set_step(parseNumber<uint64_t>(std::string_view(text).substr(colon + 1), flag, "step"));
  return f;
}

void addJobFlags(CLI::App& app, v1::JobSpec& spec) {
  auto* h = spec.mutable_hyper();
  const std::string training = "Training";
  addChoice(app, "--engine",
            "Gradient synchronisation: ddp (buckets + overlap) or horovod (negotiation + fusion)",
            {"ddp", "horovod"}, std::string(engineName(spec.engine())), parseEngine,
            [&spec](v1::Engine e) { spec.set_engine(e); })
      ->group(training);
  addChoice(app, "--backend", "Collective library: gloo (CPU) or nccl (CUDA builds)", {"gloo", "nccl"},
            std::string(backendName(spec.backend())), parseBackend,
            [&spec](v1::Backend b) { spec.set_backend(b); })
      ->group(training);
  // --model and --data take a name or a path; common/job_spec says which words mean what.
  addWords(
      app, "--model",
      "Model to train: mlp, cnn, resnet18, resnet50, or a TorchScript file of yours (FILE.pt, or any path "
      "with a '/'), made with torch.jit.script(model).save(FILE)",
      "NAME|FILE.pt", "mlp, cnn, resnet18, resnet50 nor a TorchScript file (FILE.pt)", modelText(spec),
      setModelFromText, spec)
      ->group(training);
  addWords(app, "--data",
           "Training data: synthetic, fashion-mnist, cifar10, or npy:DIR with train_x.npy (float32 or uint8, "
           "N x ...) and train_y.npy (int64 labels or float32 targets), optionally test_x.npy and test_y.npy",
           "NAME|npy:DIR", "synthetic, fashion-mnist, cifar10 nor npy:DIR", dataText(spec), setDataFromText,
           spec)
      ->group(training);
  addChoice(app, "--loss", "What training minimises: cross-entropy (class labels) or mse (float targets)",
            {"cross-entropy", "mse"}, std::string(lossName(spec.loss())), parseLoss,
            [&spec](v1::Loss l) { spec.set_loss(l); })
      ->group(training);
  app.add_option_function<std::string>(
         "--data-dir", [&spec](const std::string& v) { spec.set_data_dir(v); },
         "Directory holding the dataset files (default: the packaged dataset)")
      ->group(training)
      ->type_name("DIR");

  const std::string hyper = "Hyper-parameters";
  app.add_option_function<uint32_t>(
         "--batch-size", [h](uint32_t v) { h->set_batch_size(v); }, "Samples per rank per micro-batch")
      ->default_str(std::to_string(h->batch_size()))
      ->check(CLI::Range(1, 65536))
      ->group(hyper);
  addChoice(app, "--optimizer", "Optimizer", {"sgd", "adam"}, std::string(optimizerName(h->optimizer())),
            parseOptimizer, [h](v1::Optimizer o) { h->set_optimizer(o); })
      ->group(hyper);
  app.add_option_function<double>(
         "--lr", [h](double v) { h->set_lr(v); }, "Learning rate")
      ->default_str(std::to_string(h->lr()))
      ->check(finiteWithin(1e-12, 1e9))
      ->group(hyper);
  app.add_option_function<double>(
         "--momentum", [h](double v) { h->set_momentum(v); }, "SGD momentum in [0, 1)")
      ->default_str(std::to_string(h->momentum()))
      ->check(finiteWithin(0.0, 0.999999))
      ->group(hyper);
  // Switches take add_flag_callback: "--resume=maybe" is then a usage error (add_flag_function lets
  // CLI11's std::stoll throw past the parser).
  app.add_flag_callback(
         "--scale-lr", [h] { h->set_scale_lr(true); },
         "Multiply the learning rate by the world size (as Horovod advises)")
      ->group(hyper);
  app.add_option_function<uint32_t>(
         "--warmup-steps", [h](uint32_t v) { h->set_warmup_steps(v); },
         "Linear learning-rate warm-up (steps)")
      ->group(hyper);
  app.add_option_function<uint32_t>(
         "--epochs", [h](uint32_t v) { h->set_epochs(v); },
         "Passes over the training set (0: as many as --steps take)")
      ->default_str(std::to_string(h->epochs()))
      ->check(CLI::Range(0u, 100000u))
      ->group(hyper);
  app.add_option_function<uint64_t>(
         "--steps", [h](uint64_t v) { h->set_steps(v); },
         "Optimizer steps to run (overrides --epochs when given)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40))
      ->group(hyper);
  app.add_option_function<uint64_t>(
         "--seed", [h](uint64_t v) { h->set_seed(v); }, "Random seed")
      ->group(hyper);
  app.add_option_function<uint32_t>(
         "--accumulation-steps", [h](uint32_t v) { h->set_accumulation_steps(v); },
         "Micro-batches per optimizer step (DDP no_sync)")
      ->default_str(std::to_string(h->accumulation_steps()))
      ->check(CLI::Range(1, 1024))
      ->group(hyper);
  addChoice(app, "--compression", "Gradient compression on the wire", {"none", "fp16", "bf16"},
            std::string(compressionName(h->compression())), parseCompression,
            [h](v1::Compression c) { h->set_compression(c); })
      ->group(hyper);
  app.add_option_function<double>(
         "--bucket-cap-mb", [h](double v) { h->set_bucket_cap_mb(v); }, "DDP bucket size (MiB)")
      ->default_str(std::to_string(h->bucket_cap_mb()))
      ->check(finiteWithin(0.001, 4096.0))
      ->group(hyper);
  app.add_option_function<double>(
         "--fusion-threshold-mb", [h](double v) { h->set_fusion_threshold_mb(v); },
         "Horovod fusion buffer (MiB); 0 disables fusion")
      ->default_str(std::to_string(h->fusion_threshold_mb()))
      ->check(finiteWithin(0.0, 4096.0))
      ->group(hyper);
  app.add_option_function<double>(
         "--cycle-time-ms", [h](double v) { h->set_cycle_time_ms(v); }, "Horovod background cycle (ms)")
      ->default_str(std::to_string(h->cycle_time_ms()))
      ->check(finiteWithin(0.01, 10000.0))
      ->group(hyper);
  app.add_option_function<uint32_t>(
         "--backward-passes-per-step", [h](uint32_t v) { h->set_backward_passes_per_step(v); },
         "Horovod local gradient accumulation")
      ->default_str(std::to_string(h->backward_passes_per_step()))
      ->check(CLI::Range(1, 1024))
      ->group(hyper);
  app.add_flag_callback(
         "--no-response-cache", [h] { h->set_no_response_cache(true); },
         "Horovod: negotiate every cycle through rank 0 instead of reusing agreed responses (to compare)")
      ->group(hyper);
  addChoice(app, "--reduce-op", "Horovod gradient reduction: average or sum", {"average", "sum"},
            std::string(reduceOpName(h->reduce_op())), parseReduceOp,
            [h](v1::ReduceOp r) { h->set_reduce_op(r); })
      ->group(hyper);
  app.add_option_function<double>(
         "--stall-check-s", [h](double v) { h->set_stall_check_s(v); },
         "Horovod stall inspector warning threshold (s)")
      ->default_str(std::to_string(h->stall_check_s()))
      ->check(finiteWithin(0.1, kLongestWaitS))
      ->group(hyper);
  app.add_option_function<double>(
         "--rendezvous-timeout-s", [&spec](double v) { spec.set_rendezvous_timeout_s(v); },
         "Seconds to wait for every rank to arrive")
      ->default_str(std::to_string(spec.rendezvous_timeout_s()))
      ->check(finiteWithin(0.1, kLongestWaitS))
      ->group(training);

  const std::string checkpoints = "Checkpoints";
  app.add_option_function<std::string>(
         "--checkpoint-dir", [&spec](const std::string& v) { spec.set_checkpoint_dir(v); },
         "Directory for checkpoints (rank 0 writes)")
      ->group(checkpoints)
      ->type_name("DIR");
  app.add_option_function<uint64_t>(
         "--checkpoint-every", [&spec](uint64_t v) { spec.set_checkpoint_every(v); },
         "Steps between checkpoints (0: only at the end)")
      ->group(checkpoints);
  app.add_flag_callback(
         "--resume", [&spec] { spec.set_resume(true); },
         "Resume model, optimizer, step and epoch from --checkpoint-dir")
      ->group(checkpoints);

  const std::string faults = "Fault injection (demos and tests; off by default)";
  // The faults message is made when a fault is given, so that a spec without faults parses back without one.
  addFaultList(
      app, "--inject-straggler", "RANK:MS[@STEP]: extra compute per step on that rank", faults,
      [&spec](const std::string& s) { *spec.mutable_faults()->add_stragglers() = parseStragglerFault(s); });
  addFaultList(app, "--inject-leak", "RANK:MB: memory kept per step on that rank", faults,
               [&spec](const std::string& s) { *spec.mutable_faults()->add_leaks() = parseLeakFault(s); });
  addFaultList(app, "--inject-crash", "RANK:STEP: that rank aborts at that step", faults,
               [&spec](const std::string& s) {
                 *spec.mutable_faults()->add_crashes() = parseStepFault(s, "--inject-crash");
               });
  addFaultList(app, "--inject-hang", "RANK:STEP: that rank stops submitting one tensor from that step",
               faults, [&spec](const std::string& s) {
                 *spec.mutable_faults()->add_hangs() = parseStepFault(s, "--inject-hang");
               });
}

}  // namespace ringmaster
