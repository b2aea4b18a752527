// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/tune_command.h"

#include <iostream>
#include <memory>

#include "cli/interrupts.h"
#include "cli/run_command.h"
#include "common/error.h"
#include "common/printable.h"
#include "console/models/comparison_model.h"
#include "console/session/launcher.h"
#include "console/tune/tune_session.h"
#include "diagnosis/finding.h"

namespace ringmaster::cli {
namespace {

using diagnosis::format;

struct TuneFlags {
  console::RunFlags run;
  size_t trials = 6;
  std::string target;  // empty: by engine
};

std::string roundsText(const console::TuneSession& tuning) {
  const auto& rounds = tuning.rounds();
  if (rounds.size() == 1) {
    return format("one round of %zu settings of %llu steps", rounds[0],
                  (unsigned long long)tuning.stepsOfRound(0));
  }
  std::string sizes, steps;
  for (size_t r = 0; r < rounds.size(); ++r) {
    sizes += (r ? ", " : "") + std::to_string(rounds[r]);
    steps += (r ? ", " : "") + std::to_string(tuning.stepsOfRound(r));
  }
  return "successive halving, rounds of " + sizes + " settings of " + steps + " steps";
}

void printTrial(size_t number, const console::TrialResult& t) {
  const std::string setting = t.setting.flags();
  std::string throughput = "-", change = t.isDefault ? "(the default)" : "-";
  if (t.measured()) throughput = format("%.1f", t.metrics.throughput);
  if (t.againstDefault) change = console::ComparisonModel::formatDelta(*t.againstDefault).toStdString();
  std::cout << format("%5zu  %5zu  %-45s %6llu  %10s  %-24s %6lld  %s", number, t.round + 1, setting.c_str(),
                      (unsigned long long)t.steps, throughput.c_str(), change.c_str(), (long long)t.runId,
                      t.status.c_str());
  if (!isEmpty(t.failure)) std::cout << ": " << printable(toText(t.failure));
  std::cout << std::endl;
}

int tune(TuneFlags o, const CLI::App& app) {
  console::finishRunFlags(o.run, &app);
  console::TuneOptions options;
  options.target = o.target.empty() ? console::defaultTuneTarget(o.run.spec)
                                    : *console::tuneTargetFromName(o.target);  // CLI11 checked the name
  options.trials = o.trials;
  options.flags = std::move(o.run);
  console::TuneSession tuning(std::move(options));

  catchInterrupts();

  size_t planned = 0;
  for (size_t n : tuning.rounds()) planned += n;
  std::cerr << "ringmaster tune: session " << printable(tuning.name()) << " searches "
            << console::tuneTargetFlags(tuning.target()) << ": " << roundsText(tuning) << " (" << planned
            << " of " << o.trials << " trials); each trial is a run in " << tuning.storePath() << " tagged "
            << printable(tuning.tag()) << "; throughput leaves out its warm-up steps" << std::endl;
  std::cout << format("%5s  %5s  %-45s %6s  %10s  %-24s %6s  %s\n", "TRIAL", "ROUND", "SETTING", "STEPS",
                      "SAMPLES/S", "VS DEFAULT [95% CI]", "RUN", "STATUS")
            << std::flush;
  size_t number = 0;
  tuning.run([&number](const console::TrialResult& t) { printTrial(++number, t); },
             [] { return interruptCount() > 0; });
  if (tuning.stopped()) {
    std::cerr << "ringmaster tune: stopped after " << tuning.trials().size() << " trials" << std::endl;
    if (tuning.trials().empty()) return 130;
  }
  if (!tuning.failure().empty()) {
    std::cerr << "ringmaster tune: " << printable(tuning.failure()) << std::endl;
    return 1;
  }
  std::cout << tuning.recommendation() << std::endl;
  return tuning.stopped() ? 130 : 0;
}

}  // namespace

void addTuneCommand(CLI::App& app, CommandResult& result) {
  auto* command = app.add_subcommand(
      "tune",
      "Search the engine's bucket cap (ddp) or fusion threshold x cycle time (horovod) with short real runs "
      "and recommend the flags with the best throughput");
  auto flags = std::make_shared<TuneFlags>();
  console::addRunFlags(*command, flags->run);
  command
      ->add_option("--trials", flags->trials,
                   "Runs to make at most, the default configuration's included; from 6 on, successive "
                   "halving: the better half of each round runs again twice as long")
      ->check(CLI::Range(size_t{2}, size_t{100}))
      ->capture_default_str();
  command
      ->add_option("--tune", flags->target,
                   "What to search: bucket-cap (--bucket-cap-mb, the ddp engine) or fusion "
                   "(--fusion-threshold-mb x --cycle-time-ms, the horovod engine); default: by --engine")
      ->check(CLI::IsMember({"bucket-cap", "fusion"}));
  command->footer(
      "Each trial runs --steps steps (60 when not given; later rounds twice as many as the one before). The "
      "job as given is the default, measured in every round; the others are compared with it by throughput "
      "with a bootstrap 95% confidence interval. Trials are stored in the history, tagged tune:<session>.");
  command->callback([command, flags, &result] {
    result.exitCode = launchingCommand("tune", [&] { return tune(*flags, *command); });
  });
}

}  // namespace ringmaster::cli
