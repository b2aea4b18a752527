// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/agent_options.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "agent/agent_program.h"
#include "agent/host_info.h"
#include "agent/launch_environment.h"
#include "agent/program_path.h"
#include "common/error.h"
#include "common/job_spec.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster::agent;
using ringmaster::test::binPath;
using ringmaster::test::runProcess;

namespace {

// Parses `args` (flags only) with addAgentFlags on an app of its own.
AgentOptions parseAgentFlags(std::vector<std::string> args) {
  AgentOptions options;
  CLI::App app;
  addAgentFlags(app, options);
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector form back to front
  app.parse(args);
  return options;
}

// The option lines of a --help text ("  --port INT [50551]   TCP port to listen on"), less --help and
// --version.
std::vector<std::string> optionLines(const std::string& help) {
  std::vector<std::string> lines;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[start] != '-') continue;
    if (line.find("--help") != std::string::npos || line.find("--version") != std::string::npos) continue;
    lines.push_back(line);
  }
  return lines;
}

// What a program said on stderr after "program: ".
std::string messageOf(const std::string& err, const std::string& program) {
  const std::string prefix = program + ": ";
  return err.rfind(prefix, 0) == 0 ? err.substr(prefix.size()) : "(no '" + prefix + "' prefix) " + err;
}

std::vector<std::string> joined(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace

TEST(AgentOptions, LoopbackNeedsNoToken) {
  AgentOptions o;
  EXPECT_EQ(checkAgentOptions(o), "");
  o.listen = "::1";
  EXPECT_EQ(checkAgentOptions(o), "");
}

TEST(AgentOptions, OtherAddressesNeedAToken) {
  AgentOptions o;
  o.listen = "0.0.0.0";
  EXPECT_NE(checkAgentOptions(o).find("--token-file"), std::string::npos);
  o.tokenFile = "/etc/ringmaster/token";
  EXPECT_EQ(checkAgentOptions(o), "");
  o.tlsCert = "cert.pem";
  EXPECT_NE(checkAgentOptions(o).find("--tls-key"), std::string::npos);
}

TEST(AgentOptions, PortAndJournalDaysMustBeInRange) {
  for (int port : {0, -1, 65536}) {
    AgentOptions o;
    o.port = port;
    EXPECT_NE(checkAgentOptions(o).find("--port must be from 1 to 65535"), std::string::npos) << port;
  }
  AgentOptions o;
  o.port = 0;
  o.endpointFile = "/run/user/1000/agent-endpoint";
  EXPECT_EQ(checkAgentOptions(o), "");  // the system picks the port; the endpoint file says which
  o.port = -1;
  EXPECT_NE(checkAgentOptions(o).find("--port must be from 1 to 65535"), std::string::npos);
  o.endpointFile.clear();
  o.port = 65535;
  o.keepJournalsDays = 0;
  EXPECT_EQ(checkAgentOptions(o), "");
  o.keepJournalsDays = -0.5;
  EXPECT_NE(checkAgentOptions(o).find("--keep-journals-days"), std::string::npos);
  o.keepJournalsDays = 36500;
  EXPECT_EQ(checkAgentOptions(o), "") << "a hundred years";
}

// A retention past a hundred years, or not a number, is refused: the clock cannot hold it.
TEST(AgentOptions, JournalDaysBeyondAHundredYearsOrNotANumberAreRefused) {
  for (double days : {36500.5, 1e6, 1e300, std::numeric_limits<double>::infinity(),
                      -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    AgentOptions o;
    o.keepJournalsDays = days;
    const std::string problem = checkAgentOptions(o);
    EXPECT_NE(problem.find("--keep-journals-days must be 0 (keep every journal) up to 36500 days"),
              std::string::npos)
        << days << ": " << problem;
  }
}

TEST(AgentFlags, EveryFlagSetsItsOption) {
  const AgentOptions o = parseAgentFlags({"--listen",
                                          "0.0.0.0",
                                          "--port",
                                          "6000",
                                          "--token-file",
                                          "/etc/rm/token",
                                          "--tls-cert",
                                          "cert.pem",
                                          "--tls-key",
                                          "key.pem",
                                          "--state-dir",
                                          "/var/lib/rm",
                                          "--keep-journals-days",
                                          "2.5",
                                          "--worker",
                                          "/opt/rm/ringmaster-worker",
                                          "--allow-program",
                                          "/usr/bin/python3",
                                          "--allow-program",
                                          "/opt/bin/trainer",
                                          "--allow-env",
                                          "LD_PRELOAD",
                                          "--allow-env",
                                          "PYTHONPATH",
                                          "--endpoint-file",
                                          "/home/u/.ringmaster/slurm/job/agents/n1"});
  EXPECT_EQ(o.listen, "0.0.0.0");
  EXPECT_EQ(o.port, 6000);
  EXPECT_EQ(o.tokenFile, "/etc/rm/token");
  EXPECT_EQ(o.tlsCert, "cert.pem");
  EXPECT_EQ(o.tlsKey, "key.pem");
  EXPECT_EQ(o.stateDir, "/var/lib/rm");
  EXPECT_DOUBLE_EQ(o.keepJournalsDays, 2.5);
  EXPECT_EQ(o.workerPath, "/opt/rm/ringmaster-worker");
  EXPECT_EQ(o.allowedPrograms, (std::vector<std::string>{"/usr/bin/python3", "/opt/bin/trainer"}));
  EXPECT_EQ(o.allowedEnvironment, (std::vector<std::string>{"LD_PRELOAD", "PYTHONPATH"}));
  EXPECT_EQ(o.endpointFile, "/home/u/.ringmaster/slurm/job/agents/n1");

  const AgentOptions untouched = parseAgentFlags({});
  const AgentOptions defaults;
  EXPECT_EQ(untouched.listen, defaults.listen);
  EXPECT_EQ(untouched.port, kDefaultAgentPort);
  EXPECT_DOUBLE_EQ(untouched.keepJournalsDays, defaults.keepJournalsDays);
  EXPECT_TRUE(untouched.tokenFile.empty());
  EXPECT_TRUE(untouched.endpointFile.empty());
  EXPECT_TRUE(untouched.allowedPrograms.empty()) << "an agent runs no program of a user's unless told";
  EXPECT_TRUE(untouched.allowedEnvironment.empty()) << "a launch sets no loader variable unless told";
}

TEST(AgentFlags, LaunchesSetTheLoadersAndInterpretersVariablesOnlyWhereAllowedByName) {
  for (const char* name : {"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "GLIBC_TUNABLES", "PYTHONPATH",
                           "PYTHONHOME", "PYTHONSTARTUP", "PERL5LIB", "RUBYLIB", "NODE_OPTIONS", "GCONV_PATH",
                           "BASH_ENV", "ENV", "BASH_FUNC_f%%"}) {
    EXPECT_TRUE(isGuardedVariable(name)) << name;
    const std::string refusal = environmentRefusal(std::string(name) + "=x", {});
    EXPECT_NE(refusal.find(std::string("--allow-env ") + name), std::string::npos) << refusal;
    EXPECT_EQ(environmentRefusal(std::string(name) + "=x", {name}), "") << name;
  }
  for (const char* name : {"EPOCHS", "PYTHONUNBUFFERED", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "HOME",
                           "LDFLAGS", "ENVIRONMENT"}) {
    EXPECT_FALSE(isGuardedVariable(name)) << name;
    EXPECT_EQ(environmentRefusal(std::string(name) + "=x", {}), "") << name;
  }
  EXPECT_NE(environmentRefusal("LD_AUDIT=x", {"LD_PRELOAD"}), "") << "allowing one allows no other";
}

TEST(ProgramPath, BareNamesAreFoundOnThePathAndResolved) {
  const ProgramPath python = findProgram("python3", "", "/nonexistent:relative/bin:/usr/bin");
  EXPECT_EQ(python.path, "/usr/bin/python3");
  EXPECT_EQ(python.resolved, std::filesystem::canonical("/usr/bin/python3").string());
  EXPECT_NE(python.resolved, python.path) << "Debian's python3 is a link to python3.X";
  EXPECT_EQ(findProgram("../bin/sh", "/usr/lib", "").path, "/usr/bin/sh") << "relative to the working folder";
  for (const auto& [name, path] : std::vector<std::pair<std::string, std::string>>{
           {"no-such-program-here", "/usr/bin"}, {"sh", "bin"}, {"/etc/passwd", ""}, {"", "/usr/bin"}}) {
    try {
      findProgram(name, "/", path);
      ADD_FAILURE() << "found '" << name << "'";
    } catch (const ringmaster::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("program"), std::string::npos) << e.what();
    }
  }
}

TEST(ProgramPath, AHostWhoseAgentCannotStartProgramsSaysSo) {
  ringmaster::v1::JobSpec spec = ringmaster::defaultJobSpec();
  spec.mutable_program()->add_argv("/usr/bin/python3");
  ringmaster::v1::HostInfo older;  // an agent from before users' programs: no runs_programs
  older.set_ringmaster_version("0.1.0");
  older.add_problems("the worker is missing");
  EXPECT_NE(checkHostCanRun(older, spec).find("cannot start programs"), std::string::npos);
  ringmaster::v1::HostInfo current = older;
  current.set_runs_programs(true);
  EXPECT_EQ(checkHostCanRun(current, spec), "") << "the worker's problems do not concern a program";
  EXPECT_EQ(checkHostCanRun(current, ringmaster::defaultJobSpec()), "the worker is missing");
}

// The preflight tells the truth: a state directory the agent will make is no problem, and nccl is offered
// only where there is a GPU as well as the backend.
TEST(HostPreflight, AStateDirectoryNotMadeYetIsFineWhereItCanBeMade) {
  ringmaster::test::TempDir dir("preflight-state");
  EXPECT_EQ(stateDirProblem(dir.path()), "");
  EXPECT_EQ(stateDirProblem(dir.file("state/jobs")), "") << "made at the first job";
  EXPECT_NE(stateDirProblem("").find("no state directory"), std::string::npos)
      << "a message, not an exception";
  std::ofstream(dir.file("a-file")) << "x";
  const std::string underAFile = stateDirProblem(dir.file("a-file/state"));
  EXPECT_NE(underAFile.find("is not a folder"), std::string::npos) << underAFile;
  EXPECT_NE(underAFile.find("--state-dir"), std::string::npos) << underAFile;
}

TEST(HostPreflight, GpusAreReadFromTheNvidiaDriversList) {
  ringmaster::test::TempDir dir("preflight-gpus");
  EXPECT_TRUE(nvidiaGpus(dir.file("no-driver")).empty());
  EXPECT_TRUE(nvidiaGpus(dir.path()).empty());
  std::filesystem::create_directories(dir.file("0000:0a:00.0"));
  std::filesystem::create_directories(dir.file("0000:01:00.0"));
  std::ofstream(dir.file("0000:01:00.0/information")) << "Model: \t\t NVIDIA H200\nIRQ:   147\n";
  const auto gpus = nvidiaGpus(dir.path());
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].name(), "NVIDIA H200") << "in bus order";
  EXPECT_EQ(gpus[1].name(), "NVIDIA GPU 0000:0a:00.0") << "no information file: named by its bus id";
}

TEST(HostPreflight, NcclNeedsAGpuAsWellAsTheBackend) {
  ringmaster::v1::JobSpec spec = ringmaster::defaultJobSpec();
  spec.set_backend(ringmaster::v1::BACKEND_NCCL);
  ringmaster::v1::HostInfo host;
  host.add_backends(ringmaster::v1::BACKEND_GLOO);
  host.add_datasets(ringmaster::v1::DATASET_SYNTHETIC);
  host.add_datasets(ringmaster::v1::DATASET_FASHION_MNIST);
  EXPECT_NE(checkHostCanRun(host, spec).find("built without the nccl backend"), std::string::npos);
  host.add_backends(ringmaster::v1::BACKEND_NCCL);
  const std::string noGpu = checkHostCanRun(host, spec);
  EXPECT_NE(noGpu.find("needs an NVIDIA GPU"), std::string::npos) << noGpu;
  EXPECT_NE(noGpu.find("--backend gloo"), std::string::npos) << noGpu;
  host.add_gpus()->set_name("NVIDIA H200");
  EXPECT_EQ(checkHostCanRun(host, spec), "");
  spec.set_backend(ringmaster::v1::BACKEND_GLOO);
  host.clear_gpus();
  EXPECT_EQ(checkHostCanRun(host, spec), "") << "gloo needs no GPU";
}

TEST(AgentFlags, BadWordsAreUsageErrors) {
  EXPECT_THROW(parseAgentFlags({"--frobnicate"}), CLI::ExtrasError);
  EXPECT_THROW(parseAgentFlags({"--port", "many"}), CLI::ParseError);
  EXPECT_THROW(parseAgentFlags({"--keep-journals-days"}), CLI::ParseError);
}

// ringmaster-agent and `ringmaster agent` take every flag and stop at the same check with the same words.
TEST(AgentFlags, BothProgramsTakeTheSameFlags) {
  const std::vector<std::string> flags = {"--listen",
                                          "0.0.0.0",
                                          "--port",
                                          "6000",
                                          "--token-file",
                                          "/nonexistent/token",
                                          "--tls-cert",
                                          "/nonexistent/cert.pem",
                                          "--tls-key",
                                          "/nonexistent/key.pem",
                                          "--state-dir",
                                          "/nonexistent/state",
                                          "--worker",
                                          "/nonexistent/ringmaster-worker",
                                          "--keep-journals-days=-1"};
  const auto agent = runProcess(joined({binPath("ringmaster-agent")}, flags));
  const auto command = runProcess(joined({binPath("ringmaster"), "agent"}, flags));
  EXPECT_EQ(agent.exitCode, 2) << agent.err;
  EXPECT_EQ(command.exitCode, 2) << command.err;
  EXPECT_NE(messageOf(agent.err, "ringmaster-agent").find("--keep-journals-days must be 0"),
            std::string::npos)
      << agent.err;
  EXPECT_EQ(messageOf(command.err, "ringmaster agent"), messageOf(agent.err, "ringmaster-agent"));

  // An unreadable token file is named the same way by both, once the ranges are right.
  std::vector<std::string> readable = flags;
  readable.back() = "--keep-journals-days=3";
  const auto agentToken = runProcess(joined({binPath("ringmaster-agent")}, readable));
  const auto commandToken = runProcess(joined({binPath("ringmaster"), "agent"}, readable));
  EXPECT_EQ(agentToken.exitCode, 2) << agentToken.err;
  EXPECT_EQ(commandToken.exitCode, 2) << commandToken.err;
  EXPECT_NE(agentToken.err.find("--token-file /nonexistent/token"), std::string::npos) << agentToken.err;
  EXPECT_EQ(messageOf(commandToken.err, "ringmaster agent"), messageOf(agentToken.err, "ringmaster-agent"));
}

TEST(AgentFlags, BothProgramsDescribeTheSameFlags) {
  AgentOptions options;
  CLI::App app;
  addAgentFlags(app, options);
  const std::vector<std::string> expected = optionLines(app.help());
  ASSERT_EQ(expected.size(), 13u) << app.help();

  const auto agent = runProcess({binPath("ringmaster-agent"), "--help"});
  const auto command = runProcess({binPath("ringmaster"), "agent", "--help"});
  ASSERT_EQ(agent.exitCode, 0) << agent.err;
  ASSERT_EQ(command.exitCode, 0) << command.err;
  EXPECT_EQ(optionLines(agent.out), expected) << agent.out;
  EXPECT_EQ(optionLines(command.out), expected) << command.out;
}
