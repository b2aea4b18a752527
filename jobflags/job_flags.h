// SPDX-License-Identifier: GPL-3.0-or-later
// The job flags shared by `ringmaster-worker` and `ringmaster run`, so both accept exactly the same words,
// and the words that give a rank its job (the agent's command line for a worker). Each flag is named once, in
// one table that both reads and writes it. They live apart from rm_core so that only the programs with a
// command line depend on CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include "common/job_spec.h"

namespace ringmaster {

// Registers --engine, --backend, --model, --data, hyper-parameters, checkpointing and --inject-* on `app`,
// writing into `spec` as CLI11 parses. Call applyDefaults(spec) before parsing so defaults show in --help.
void addJobFlags(CLI::App& app, v1::JobSpec& spec);

// The ringmaster-worker flags that reproduce `spec` (without the torchrun environment): what addJobFlags()
// reads back into the same spec.
std::vector<std::string> workerArguments(const v1::JobSpec& spec);

// A finite number within [min, max]. CLI::Range and CLI::PositiveNumber let NaN through (every comparison
// with NaN is false) and take "inf" and "1e400".
CLI::Validator finiteWithin(double min, double max);

// Parses "RANK:MS[@STEP]" for --inject-straggler. Throws InputError.
v1::FaultInjection::Straggler parseStragglerFault(const std::string& text);
// Parses "RANK:MB" for --inject-leak. Throws InputError.
v1::FaultInjection::Leak parseLeakFault(const std::string& text);
// Parses "RANK:STEP" for --inject-crash and --inject-hang. Throws InputError naming `flag`.
v1::FaultInjection::AtStep parseStepFault(const std::string& text, const std::string& flag);
// "RANK:STEP", as parseStepFault reads it.
std::string stepFaultText(const v1::FaultInjection::AtStep& fault);

}  // namespace ringmaster
