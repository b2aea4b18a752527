// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/run_flags.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <system_error>

#include "agent/agent_server.h"
#include "agent/tls_files.h"
#include "common/error.h"
#include "common/host_list.h"
#include "console/session/run_session.h"
#include "jobflags/job_flags.h"

namespace ringmaster::console {
namespace {

// `path` made absolute and normal; `named` ("--model m.pt") says which input when the working folder is gone.
std::string absolutePath(const std::string& path, const std::string& named) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) throw InputError(named + ": " + ec.message() + "; give an absolute path");
  return absolute.lexically_normal().string();
}

// Why `path` is no regular file this user can read: "no such file", or what stands in the way (a loop of
// symbolic links, a folder this user may not enter, a folder where the file should be); empty when it is one.
std::string regularFileProblem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return "no such file";
  if (ec) return "cannot be reached (" + ec.message() + ")";
  if (status.type() != fs::file_type::regular) return "not a regular file";
  if (::access(path.c_str(), R_OK) != 0)
    return "cannot be read (" + std::error_code(errno, std::generic_category()).message() + ")";
  return {};
}

// The user's model file and npy folder, made absolute (the ranks start in another folder, maybe on another
// host) and, for a run on this machine, looked for now, so that a typo or a file out of reach fails before
// anything starts.
void resolveUserFiles(RunFlags& flags) {
  v1::JobSpec& spec = flags.spec;
  const bool local = flags.hostList.empty() && flags.hostfile.empty();
  if (spec.model() == v1::MODEL_TORCHSCRIPT) {
    spec.set_model_path(absolutePath(spec.model_path(), "--model " + spec.model_path()));
    if (const std::string problem = local ? regularFileProblem(spec.model_path()) : ""; !problem.empty()) {
      throw InputError("--model " + spec.model_path() + ": " + problem +
                       (problem == "no such file"
                            ? "; save your model with torch.jit.script(model).save(FILE) and give FILE"
                            : "; give a TorchScript file this user can read"));
    }
  }
  if (spec.dataset() == v1::DATASET_NPY) {
    spec.set_data_dir(absolutePath(spec.data_dir(), "--data npy:" + spec.data_dir()));
    for (const char* name : {"train_x.npy", "train_y.npy"}) {
      const std::string file = (std::filesystem::path(spec.data_dir()) / name).string();
      const std::string problem = local ? regularFileProblem(file) : "";
      if (problem == "no such file") {
        throw InputError("--data npy:" + spec.data_dir() + ": no " + name +
                         " in that folder; write train_x.npy and train_y.npy there with numpy.save");
      }
      if (!problem.empty()) {
        throw InputError("--data npy:" + spec.data_dir() + ": " + file + " " + problem +
                         "; give a folder this user can read");
      }
    }
  }
}

// Where the ranks run and how the agents are reached; the run's name, stall timeout and restarts.
void addLaunchFlags(CLI::App& app, RunFlags& flags) {
  const std::string launch = "Launch";
  app.add_option("-n,--np,--ranks", flags.ranks, "Ranks in all")->capture_default_str()->group(launch);
  app.add_option("-H,--hosts", flags.hostList,
                 "Hosts and their slots: host1:4,host2:4 (default: this machine)")
      ->group(launch);
  app.add_option("--hostfile", flags.hostfile, "File with one 'host slots=N' per line")
      ->check(CLI::ExistingFile)
      ->group(launch);
  app.add_option("--agent-port", flags.agentPort, "TCP port of the hosts' agents")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535))
      ->group(launch);
  app.add_option("--token-file", flags.tokenFile, "File with the agents' bearer token")
      ->check(CLI::ExistingFile)
      ->group(launch);
  app.add_option("--tls-ca", flags.tlsCa, "CA certificate (PEM) of the agents' TLS certificates")
      ->check(CLI::ExistingFile)
      ->group(launch);
  app.add_option("--job-id", flags.jobId, "Job id (default: date, time and a random suffix)")->group(launch);
  app.add_option_function<std::string>(
         "--name", [&flags](const std::string& name) { flags.spec.set_name(name); },
         "Name of the run in the history (default: the job id, else '<model> <engine> xN')")
      ->type_name("TEXT")
      ->group(launch);
  app.add_option_function<double>(
         "--stall-timeout-s", [&flags](double s) { flags.spec.set_stall_timeout_s(s); },
         "Stop the job, as failed, once it has made no progress for this many seconds while a stall finding "
         "names why (default: 0, wait for ever)")
      ->type_name("SECONDS")
      ->check(finiteWithin(0, kLongestWaitS))
      ->group(launch);
  app.add_option_function<uint32_t>(
         "--check-replicas-every",
         [&flags](uint32_t n) { flags.spec.set_check_replicas_every(n == 0 ? -1 : static_cast<int32_t>(n)); },
         "Every N steps each rank hashes its parameters (and the buffers kept equal across ranks), and "
         "replicas "
         "that hold different values are a finding (default: 100; 0: never)")
      ->type_name("N")
      ->check(CLI::Range(0, static_cast<int>(kMostCheckReplicasEvery)))
      ->group(launch);
  app.add_option_function<uint32_t>(
         "--max-restarts", [&flags](uint32_t n) { flags.spec.set_max_restarts(n); },
         "When a rank fails (an error, a signal, a stall stopped by --stall-timeout-s), stop the others and "
         "start every rank again from the last checkpoint, at most N times (default: 0, the job fails). "
         "Checkpoints are then on: every 100 steps unless --checkpoint-every says, into the agent's job "
         "folder unless --checkpoint-dir says")
      ->type_name("N")
      ->check(CLI::Range(0, 1000))
      ->group(launch);
  app.add_option_function<uint32_t>(
         "--min-ranks", [&flags](uint32_t n) { flags.spec.set_min_ranks(n); },
         "With --max-restarts and -H: when a host's agent is gone at a restart, go on with the ranks of the "
         "hosts that remain if they are at least M (the world size shrinks; default: every rank is needed)")
      ->type_name("M")
      ->check(CLI::Range(1, 4096))
      ->group(launch);
  app.add_option("--worker", flags.worker, "ringmaster-worker for local runs (default: beside this program)")
      ->group(launch);
  app.add_option("--state-dir", flags.stateDir, "Journal folder for local runs (default: XDG state dir)")
      ->group(launch);
}

// --slurm and what goes to sbatch.
void addSlurmFlags(CLI::App& app, RunFlags& flags) {
  const std::string slurm = "Slurm";
  app.add_flag(
         "--slurm", flags.slurm.submit,
         "Submit the job to Slurm with sbatch: one agent per allocated node, the ranks placed by the "
         "allocation (inside salloc or sbatch, `ringmaster run` uses that allocation without this flag)")
      ->group(slurm);
  app.add_option("-N,--nodes", flags.slurm.nodes,
                 "Nodes to ask Slurm for (sbatch -N; default: as Slurm places -np)")
      ->check(CLI::PositiveNumber)
      ->group(slurm);
  const std::pair<const char*, std::string*> passed[] = {
      {"--partition", &flags.slurm.partition},   {"--time", &flags.slurm.time},
      {"--account", &flags.slurm.account},       {"--qos", &flags.slurm.qos},
      {"--constraint", &flags.slurm.constraint}, {"--gres", &flags.slurm.gres}};
  for (const auto& [name, value] : passed) {
    app.add_option(name, *value, std::string("sbatch ") + name + " for the job (with --slurm)")->group(slurm);
  }
  app.add_option("--slurm-arg", flags.slurm.extra,
                 "One more word for sbatch, as it is, e.g. --slurm-arg=--mem=8G (repeatable)")
      ->type_name("ARG")
      ->allow_extra_args(false)
      ->group(slurm);
  app.add_option("--slurm-dir", flags.slurm.folder,
                 "Folder for the jobs' token, agents and script, shared with the nodes (default: "
                 "~/.ringmaster/slurm)")
      ->type_name("DIR")
      ->group(slurm);
}

// The summary, the timeline and the run history.
void addOutputFlags(CLI::App& app, RunFlags& flags) {
  const std::string outputs = "Outputs";
  app.add_option("--summary-json", flags.summaryJson, "Write the run summary as JSON to FILE")
      ->type_name("FILE")
      ->group(outputs);
  app.add_option("--timeline", flags.timeline, "Write every rank's timeline as Chrome trace JSON to FILE")
      ->type_name("FILE")
      ->group(outputs);
  app.add_flag_callback(
         "--record-timeline", [&flags] { flags.spec.set_timeline(true); },
         "Record every rank's timeline from the start (into the history; --timeline FILE also writes it out)")
      ->group(outputs);
  app.add_option("--store", flags.store, "Run history file (default: the user's, in the XDG data dir)")
      ->type_name("FILE")
      ->group(outputs);
  app.add_flag("--no-store", flags.noStore, "Do not keep this run in the history")->group(outputs);
}

// A user's program after "--", in place of Ringmaster's own training.
void addProgramFlags(CLI::App& app, RunFlags& flags) {
  const std::string program = "Your program (instead of Ringmaster's training)";
  v1::JobSpec* spec = &flags.spec;  // its program is made when a program flag is given, not before
  app.add_option_function<std::vector<std::string>>(
         "program",
         [spec](const std::vector<std::string>& words) {
           for (const auto& w : words) spec->mutable_program()->add_argv(w);
         },
         "After --: a program and its arguments, started once per rank with torchrun's environment, e.g. "
         "-- /usr/bin/python3 train.py --epochs 3")
      ->type_name("PROGRAM ARGS...")
      ->group(program);
  app.add_option_function<std::string>(
         "--workdir", [spec](const std::string& dir) { spec->mutable_program()->set_working_dir(dir); },
         "Folder the program's ranks start in (default: the agent's; for a local run, this one)")
      ->type_name("DIR")
      ->group(program);
  app.add_option_function<std::vector<std::string>>(
         "--env",
         [spec](const std::vector<std::string>& entries) {
           for (const auto& e : entries) spec->mutable_program()->add_environment(e);
         },
         "NAME=VALUE for every rank of the program (repeatable)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false)
      ->group(program);
  app.add_flag_callback(
         "--no-instrument", [spec] { spec->mutable_program()->set_uninstrumented(true); },
         "Run the program without the ringmaster Python package: output, exits and memory only")
      ->group(program);
  app.add_flag_callback(
         "--horovod", [spec] { spec->mutable_program()->set_horovod(true); },
         "Run a Horovod script (import horovod.torch as hvd) on Ringmaster's Horovod-compatible layer over "
         "torch.distributed, without Horovod or MPI; an installed Horovod is used instead where there is one")
      ->group(program);
}

}  // namespace

void addRunFlags(CLI::App& app, RunFlags& flags) {
  addLaunchFlags(app, flags);
  addSlurmFlags(app, flags);
  addOutputFlags(app, flags);
  addProgramFlags(app, flags);
  addJobFlags(app, flags.spec);
}

namespace {

// The job flags given on `app`: they describe Ringmaster's own training and do not go with a program.
std::vector<std::string> trainingFlagsGiven(const CLI::App& app) {
  v1::JobSpec scratch;
  CLI::App jobFlags;
  addJobFlags(jobFlags, scratch);
  std::vector<std::string> given;
  for (const CLI::Option* option : jobFlags.get_options()) {
    const std::string name = option->get_name();
    if (!name.empty() && app.count(name) > 0) given.push_back(name);
  }
  return given;
}

}  // namespace

RunFlags parseRunFlags(std::vector<std::string> args) {
  RunFlags flags;
  CLI::App app{"The job to run: the flags of `ringmaster run`.", "ringmaster run"};
  addRunFlags(app, flags);
  // mpirun and horovodrun users type "-np 4"; CLI11 allows only one-letter short flags. A program's own
  // arguments, after "--", are left as they are.
  for (auto& arg : args) {
    if (arg == "--") break;
    if (arg == "-np") arg = "--np";
  }
  // CLI11 takes the arguments last first.
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    throw InputError(app.help());
  } catch (const CLI::ParseError& e) {
    throw InputError(e.what());
  }
  finishRunFlags(flags, &app);
  return flags;
}

namespace {

// An output file the run writes at its end must be writable before it starts, not found unwritable after
// hours.
void checkOutputFile(const std::string& path, const std::string& flag) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file(path);
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (const fs::file_status status = fs::status(folder, ec); status.type() != fs::file_type::directory) {
    throw InputError(flag + " " + path + ": the folder " + folder.string() +
                     (ec && status.type() != fs::file_type::not_found
                          ? " cannot be reached (" + ec.message() + "); choose another place"
                          : " does not exist; create it first"));
  }
  if (fs::exists(file, ec) && !fs::is_regular_file(file, ec)) {
    throw InputError(flag + " " + path + ": not a regular file; name a file to write");
  }
  const bool writable =
      fs::exists(file, ec) ? ::access(path.c_str(), W_OK) == 0 : ::access(folder.c_str(), W_OK | X_OK) == 0;
  if (!writable) throw InputError(flag + " " + path + ": cannot be written here; choose another place");
}

}  // namespace

std::string slurmFlagsProblem(const RunFlags& flags) {
  if (flags.slurm.submit && (!flags.hostList.empty() || !flags.hostfile.empty()))
    return "--slurm places the ranks on the nodes Slurm allocates: leave out -H and --hostfile";
  if (flags.slurm.nodes > flags.ranks) {
    return "-N " + std::to_string(flags.slurm.nodes) + " asks for more nodes than -np " +
           std::to_string(flags.ranks) + " has ranks; give -np at least -N";
  }
  return {};
}

void finishRunFlags(RunFlags& flags, const CLI::App* parsed) {
  if (isUserProgram(flags.spec)) {
    if (auto given = parsed ? trainingFlagsGiven(*parsed) : std::vector<std::string>{}; !given.empty()) {
      std::string names;
      for (const auto& g : given) names += (names.empty() ? "" : ", ") + g;
      throw InputError(
          names + (given.size() == 1 ? " sets" : " set") +
          " Ringmaster's own training and cannot go with a program, which trains as it is written: "
          "leave " +
          (given.size() == 1 ? "it" : "them") +
          " out, or put the program's own flags after -- (ringmaster run -np 2 -- PROGRAM ARGS...)");
    }
    if (flags.spec.program().horovod() && flags.spec.program().uninstrumented()) {
      throw InputError(
          "--horovod cannot go with --no-instrument: Ringmaster's Horovod layer is part of the ringmaster "
          "Python package, which --no-instrument leaves out; leave out --no-instrument");
    }
    if (auto errors = programErrors(flags.spec.program()); !errors.empty()) {
      throw InputError(describe(errors));
    }
  } else if (flags.spec.program().horovod()) {
    throw InputError(
        "--horovod runs a Horovod script of your own: give it after -- (ringmaster run --horovod -np 2 -- "
        "/usr/bin/python3 train_hvd.py); for Ringmaster's own Horovod-style training use --engine horovod "
        "without --horovod");
  } else if (flags.spec.program().working_dir().size() + flags.spec.program().environment_size() > 0 ||
             flags.spec.program().uninstrumented()) {
    throw InputError(
        "--workdir, --env and --no-instrument are for a program of your own: give it after -- "
        "(ringmaster run -np 2 -- /usr/bin/python3 train.py)");
  }
  if (flags.ranks < 1) throw InputError("-np must be at least 1, got " + std::to_string(flags.ranks));
  if (!isUserProgram(flags.spec)) resolveUserFiles(flags);
  if (!flags.jobId.empty()) {
    if (auto problem = jobIdProblem(flags.jobId); !problem.empty()) {
      throw InputError("--job-id " + problem + "; leave it out for a generated one");
    }
  }
  if (parsed && parsed->count("--hosts") > 0 && flags.hostList.empty()) {
    throw InputError(
        "-H is empty: name the hosts (-H node1:4,node2:4), or leave -H out to run on this machine");
  }
  if (!flags.hostList.empty() && !flags.hostfile.empty()) throw InputError("give -H or --hostfile, not both");
  if (!flags.slurm.submit && parsed) {
    for (const char* name : {"--nodes", "--partition", "--time", "--account", "--qos", "--constraint",
                             "--gres", "--slurm-arg"}) {
      if (parsed->count(name) > 0) {
        throw InputError(std::string(name) + " is for sbatch: add --slurm to submit the job to Slurm");
      }
    }
  }
  if (const std::string problem = slurmFlagsProblem(flags); !problem.empty()) throw InputError(problem);
  checkOutputFile(flags.summaryJson, "--summary-json");
  checkOutputFile(flags.timeline, "--timeline");
  flags.spec.set_world_size(static_cast<uint32_t>(flags.ranks));
  if (!flags.timeline.empty()) flags.spec.set_timeline(true);
}

namespace {

// Appends the job flags of `spec` as ringmaster-worker gets them, less those that say what `defaults` says.
template <typename Add>
void addJobArguments(const v1::JobSpec& spec, const v1::JobSpec& defaults, Add add,
                     std::vector<std::string>& args) {
  v1::JobSpec scratch = defaults;
  CLI::App jobFlags;
  addJobFlags(jobFlags, scratch);
  auto takesValue = [&jobFlags](const std::string& flag) {
    const CLI::Option* option = jobFlags.get_option_no_throw(flag);
    return option != nullptr && option->get_expected_min() > 0;
  };
  auto pairs = [&takesValue](const std::vector<std::string>& words) {
    std::vector<std::pair<std::string, std::optional<std::string>>> result;
    for (size_t i = 0; i < words.size(); ++i) {
      if (takesValue(words[i]) && i + 1 < words.size()) {
        result.emplace_back(words[i], words[i + 1]);
        ++i;
      } else {
        result.emplace_back(words[i], std::nullopt);
      }
    }
    return result;
  };
  const auto byDefault = pairs(workerArguments(defaults));
  for (const auto& [flag, value] : pairs(workerArguments(spec))) {
    const bool asByDefault =
        std::find(byDefault.begin(), byDefault.end(), std::make_pair(flag, value)) != byDefault.end();
    if (asByDefault) continue;
    if (value) {
      add(flag, *value);
    } else {
      args.push_back(flag);
    }
  }
}

}  // namespace

std::vector<std::string> runArguments(const RunFlags& flags) {
  const RunFlags defaults;
  std::vector<std::string> args;
  // A value that starts with '-' would read as a flag: it goes in the same word ("--name=-x").
  auto add = [&args](const std::string& flag, const std::string& value) {
    if (value.rfind('-', 0) == 0) {
      args.push_back((flag == "-H" ? "--hosts" : flag) + "=" + value);
    } else {
      args.insert(args.end(), {flag, value});
    }
  };
  auto addChanged = [&add](const std::string& flag, const std::string& value, const std::string& byDefault) {
    if (value != byDefault) add(flag, value);
  };
  add("-np", std::to_string(flags.ranks));
  addChanged("-H", flags.hostList, defaults.hostList);
  addChanged("--hostfile", flags.hostfile, defaults.hostfile);
  addChanged("--agent-port", std::to_string(flags.agentPort), std::to_string(defaults.agentPort));
  addChanged("--token-file", flags.tokenFile, defaults.tokenFile);
  addChanged("--tls-ca", flags.tlsCa, defaults.tlsCa);
  addChanged("--job-id", flags.jobId, defaults.jobId);
  addChanged("--name", flags.spec.name(), defaults.spec.name());
  if (flags.spec.stall_timeout_s() > 0) add("--stall-timeout-s", formatNumber(flags.spec.stall_timeout_s()));
  if (flags.spec.check_replicas_every() < 0) add("--check-replicas-every", "0");
  if (flags.spec.check_replicas_every() > 0 &&
      flags.spec.check_replicas_every() != kDefaultCheckReplicasEvery)
    add("--check-replicas-every", std::to_string(flags.spec.check_replicas_every()));
  if (flags.spec.max_restarts() > 0) add("--max-restarts", std::to_string(flags.spec.max_restarts()));
  if (flags.spec.min_ranks() > 0) add("--min-ranks", std::to_string(flags.spec.min_ranks()));
  addChanged("--worker", flags.worker, defaults.worker);
  addChanged("--state-dir", flags.stateDir, defaults.stateDir);
  if (flags.slurm.submit) args.push_back("--slurm");
  if (flags.slurm.nodes > 0) add("--nodes", std::to_string(flags.slurm.nodes));
  addChanged("--partition", flags.slurm.partition, "");
  addChanged("--time", flags.slurm.time, "");
  addChanged("--account", flags.slurm.account, "");
  addChanged("--qos", flags.slurm.qos, "");
  addChanged("--constraint", flags.slurm.constraint, "");
  addChanged("--gres", flags.slurm.gres, "");
  for (const auto& word : flags.slurm.extra) args.push_back("--slurm-arg=" + word);
  addChanged("--slurm-dir", flags.slurm.folder, "");

  if (isUserProgram(flags.spec)) {
    const auto& program = flags.spec.program();
    addChanged("--workdir", program.working_dir(), "");
    for (const auto& entry : program.environment()) add("--env", entry);
    if (program.uninstrumented()) args.push_back("--no-instrument");
    if (program.horovod()) args.push_back("--horovod");
  } else {
    addJobArguments(flags.spec, defaults.spec, add, args);
  }
  addChanged("--timeline", flags.timeline, defaults.timeline);
  if (flags.timeline.empty() && flags.spec.timeline()) args.push_back("--record-timeline");
  addChanged("--summary-json", flags.summaryJson, defaults.summaryJson);
  addChanged("--store", flags.store, defaults.store);
  if (flags.noStore) args.push_back("--no-store");
  if (isUserProgram(flags.spec)) {
    args.push_back("--");
    args.insert(args.end(), flags.spec.program().argv().begin(), flags.spec.program().argv().end());
  }
  return args;
}

LaunchPlan launchPlan(const RunFlags& flags) {
  LaunchPlan plan;
  if (!flags.hostList.empty()) plan.hosts = parseHostList(flags.hostList);
  if (!flags.hostfile.empty()) plan.hosts = readHostfile(flags.hostfile);
  plan.agentPort = flags.agentPort;
  if (!flags.tokenFile.empty()) plan.token = agent::readTokenFile(flags.tokenFile);
  if (!flags.tlsCa.empty()) plan.tlsCaPem = agent::readCertificateFile(flags.tlsCa, "--tls-ca");
  plan.jobId = flags.jobId;
  plan.workerPath = flags.worker;
  plan.stateDir = flags.stateDir;
  plan.spec = flags.spec;
  if (plan.spec.name().empty()) plan.spec.set_name(runName(flags));
  return plan;
}

std::string runName(const RunFlags& flags) {
  LaunchPlan plan;
  plan.spec = flags.spec;
  plan.spec.set_world_size(static_cast<uint32_t>(flags.ranks));
  plan.jobId = flags.jobId;
  return runName(plan);
}

}  // namespace ringmaster::console
