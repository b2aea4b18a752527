// SPDX-License-Identifier: GPL-3.0-or-later
// The job flags ringmaster-worker and `ringmaster run` share (jobflags/job_flags.h): the input is a command
// line, one argument per line. A valid spec must come back unchanged through the worker arguments that carry
// it to a rank (workerArguments).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/job_spec.h"
#include "jobflags/job_flags.h"

namespace v1 = ringmaster::v1;

namespace {

std::vector<std::string> argumentsOf(std::string_view text) {
  std::vector<std::string> args;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    args.emplace_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return args;
}

// Parses `args` as the worker does; false when CLI11 or a flag refuses them.
bool parse(std::vector<std::string> args, v1::JobSpec& spec) {
  spec = ringmaster::defaultJobSpec();
  CLI::App app;
  ringmaster::addJobFlags(app, spec);
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector form back to front
  try {
    app.parse(args);
  } catch (const CLI::ParseError&) {
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> args =
      argumentsOf(std::string_view(reinterpret_cast<const char*>(data), size));

  for (const auto& arg : args) {
    try {
      ringmaster::parseStragglerFault(arg);
    } catch (const ringmaster::InputError&) {
    }
    try {
      ringmaster::parseLeakFault(arg);
    } catch (const ringmaster::InputError&) {
    }
    try {
      ringmaster::parseStepFault(arg, "--inject-crash");
    } catch (const ringmaster::InputError&) {
    }
  }

  v1::JobSpec spec;
  if (!parse(args, spec) || !ringmaster::validateJobSpec(spec).empty()) return 0;
  v1::JobSpec back;
  if (!parse(ringmaster::workerArguments(spec), back)) std::abort();  // what we write, the worker reads
  back.set_world_size(spec.world_size());  // carried by the environment, not by flags
  back.set_name(spec.name());
  if (back.SerializeAsString() != spec.SerializeAsString()) std::abort();
  return 0;
}
