// SPDX-License-Identifier: GPL-3.0-or-later
// What an agent's owner allows holds where it is used, not only where a launch is checked: the program that
// runs is the one allowed even when a link flips, files a job names stay inside the allowed folders even
// when a folder is swapped for a link, and a launch sets no variable that changes what a program loads.
// Another user of the machine (uid 65534 when the tests run as root) does the flipping and swapping.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "agent/agent_server.h"
#include "agent/job.h"
#include "console/session/agent_client.h"
#include "tests/support/agent_test_support.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr uid_t kOtherUser = 65534;

// `argv` as the other user when the tests run as root (else as this one).
std::vector<std::string> asOtherUser(std::vector<std::string> argv) {
  if (::geteuid() != 0) return argv;
  std::vector<std::string> prefixed = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                       "--clear-groups"};
  prefixed.insert(prefixed.end(), argv.begin(), argv.end());
  return prefixed;
}

// A folder the other user owns and may change, inside `dir` (which everyone may enter).
std::string otherUsersFolder(const TempDir& dir, const std::string& name) {
  ::chmod(dir.path().c_str(), 0755);
  const std::string folder = dir.file(name);
  fs::create_directories(folder);
  if (::geteuid() == 0 && ::chown(folder.c_str(), kOtherUser, kOtherUser) != 0) ADD_FAILURE() << folder;
  return folder;
}

agent::AgentOptions optionsIn(const TempDir& dir) {
  agent::AgentOptions options;
  options.port = 0;
  options.stateDir = dir.file("state");
  options.workerPath = binPath("ringmaster-worker");
  return options;
}

console::AgentClient clientFor(const agent::AgentServer& server) {
  return console::AgentClient({"127.0.0.1", server.port(), "", "", ""});
}

// One rank of a user's program, uninstrumented.
v1::LaunchRequest programLaunch(const std::string& jobId, const std::vector<std::string>& argv,
                                const std::vector<std::string>& environment = {}) {
  v1::JobSpec spec = defaultJobSpec();
  auto* program = spec.mutable_program();
  for (const auto& a : argv) program->add_argv(a);
  for (const auto& e : environment) program->add_environment(e);
  program->set_uninstrumented(true);
  return firstRankOf(jobId, std::move(spec), 1);
}

// Every record of a job, once it has finished.
std::vector<v1::Record> recordsOf(console::AgentClient& client, const std::string& jobId) {
  std::vector<v1::Record> records;
  bool finished = false;
  console::JournalFollower follower(
      client, jobId, 1,
      [&](const std::vector<v1::Record>& r) { records.insert(records.end(), r.begin(), r.end()); },
      [&](const grpc::Status& s) { finished = s.ok(); });
  EXPECT_TRUE(eventually([&] { return finished; }, 120s)) << "job " << jobId << " did not finish";
  follower.stop();
  return records;
}

std::string outputOf(const std::vector<v1::Record>& records) {
  std::string text;
  for (const auto& r : records) {
    if (r.has_log()) text += r.log().text() + "\n";
  }
  return text;
}

bool folderIsEmpty(const std::string& folder) {
  std::error_code ec;
  return fs::is_empty(folder, ec) && !ec;
}

// A program named by a link is started by the file the agent checked: a link that another user flips
// between an allowed and a forbidden script while jobs launch never makes the agent run the forbidden one.
TEST(AgentConfinement, AProgramNamedByAFlippingLinkIsStartedByTheFileThatWasAllowed) {
  TempDir dir("confine-flip");
  ::chmod(dir.path().c_str(), 0755);
  const std::string programs = dir.file("programs");
  fs::create_directories(programs);
  ::chmod(programs.c_str(), 0755);
  const std::string allowed = programs + "/allowed.sh", forbidden = programs + "/forbidden.sh";
  const std::string ranForbidden = dir.file("forbidden-ran");
  writeFile(allowed, "#!/bin/sh\nexit 0\n");
  writeFile(forbidden, "#!/bin/sh\necho ran >> " + ranForbidden + "\n");
  ::chmod(allowed.c_str(), 0755);
  ::chmod(forbidden.c_str(), 0755);
  const std::string link = otherUsersFolder(dir, "mine") + "/train";

  agent::AgentOptions options = optionsIn(dir);
  options.allowedPrograms = {allowed};
  agent::AgentServer server(options);
  auto client = clientFor(server);

  const std::string flip =
      "import os, sys\n"
      "link, targets = sys.argv[1], sys.argv[2:]\n"
      "while True:\n"
      "    for target in targets:\n"
      "        try:\n"
      "            os.remove(link + '.next')\n"
      "        except FileNotFoundError:\n"
      "            pass\n"
      "        os.symlink(target, link + '.next')\n"
      "        os.replace(link + '.next', link)\n";
  BackgroundProcess flipper(asOtherUser({"/usr/bin/python3", "-c", flip, link, allowed, forbidden}));
  ASSERT_TRUE(eventually([&] { return fs::is_symlink(link); }, 30s)) << "the link never appeared";

  int started = 0, refused = 0;
  std::vector<int> pids;
  for (int i = 0; i < 150; ++i) {
    v1::LaunchReply reply;
    grpc::Status status = client.launch(programLaunch("flip-" + std::to_string(i), {link}), reply);
    if (status.ok()) {
      ++started;
      pids.insert(pids.end(), reply.pids().begin(), reply.pids().end());
    } else {
      EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << status.error_message();
      EXPECT_NE(status.error_message().find("--allow-program"), std::string::npos) << status.error_message();
      ++refused;
    }
  }
  EXPECT_TRUE(eventually(
      [&] { return std::none_of(pids.begin(), pids.end(), [](int pid) { return processAlive(pid); }); },
      60s));
  EXPECT_FALSE(fs::exists(ranForbidden)) << "the forbidden script ran " << readFile(ranForbidden).size() / 4
                                         << " times in " << started << " started jobs";
  // Both sides of the link were seen, so the flips did race the checks.
  EXPECT_GT(started, 0);
  EXPECT_GT(refused, 0);
}

// The folder a job checkpoints into is a real folder inside the allowed one when the job launches; the other
// user then swaps it for a link to a folder of the agent's owner. Rank 0 waits at the rendezvous for its
// peer, which a second agent (another host's, in effect) launches only after the swap, so every checkpoint
// rank 0 writes comes after it: each must be refused, and nothing may appear outside.
TEST(AgentConfinement, ACheckpointFolderSwappedForALinkAfterLaunchIsRefusedWhenWritten) {
  TempDir dir("confine-swap");
  const std::string shared = otherUsersFolder(dir, "shared");
  const std::string outside = dir.file("outside");
  fs::create_directories(outside);
  const std::string checkpoints = shared + "/checkpoints";
  ASSERT_EQ(runProcess(asOtherUser({"/bin/mkdir", checkpoints})).exitCode, 0);

  agent::AgentOptions options = optionsIn(dir);
  options.allowedFolders = {shared};
  agent::AgentServer server(options);
  options.stateDir = dir.file("state-of-rank-1");
  options.anyFolder = true;  // it checks the folder after the swap; its rank writes no checkpoint
  agent::AgentServer secondServer(options);
  auto client = clientFor(server);
  auto secondClient = clientFor(secondServer);
  v1::JobSpec spec = smallJob(2, 20);
  spec.set_checkpoint_dir(checkpoints);
  spec.set_checkpoint_every(1);
  v1::LaunchRequest request = firstRankOf("swapped", spec, 2);
  v1::LaunchReply reply;
  grpc::Status status = client.launch(request, reply);
  ASSERT_TRUE(status.ok()) << status.error_message();

  auto swapped = runProcess(asOtherUser(
      {"/bin/sh", "-c", "mv \"$0\" \"$0.launched\" && ln -s \"$1\" \"$0\"", checkpoints, outside}));
  ASSERT_EQ(swapped.exitCode, 0) << swapped.err;

  // A job of its own for the peer: each agent's job ends what its ranks leave running.
  request.set_job_id("rank-1-of-swapped");
  request.set_first_rank(1);
  status = secondClient.launch(request, reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const auto records = recordsOf(client, "swapped");
  const std::string output = outputOf(records);

  EXPECT_TRUE(folderIsEmpty(outside)) << "a checkpoint was written through the link:\n" << output;
  bool failed = false;
  for (const auto& r : records) {
    if (r.has_rank_state() && r.rank_state().state() == v1::RankState::STATE_EXITED)
      failed = r.rank_state().exit_code() != 0;
  }
  EXPECT_TRUE(failed) << output;
  EXPECT_NE(output.find(checkpoints), std::string::npos) << output;
  EXPECT_NE(output.find("leads out of " + fs::canonical(shared).string()), std::string::npos) << output;
  EXPECT_NE(output.find("--allow-folder"), std::string::npos) << output;
}

// A TorchScript model is one more file a job names: outside the allowed folders, or reached through a link
// that leads out of them, it is refused at launch.
TEST(AgentConfinement, AModelOutsideTheAllowedFoldersIsRefusedAtLaunch) {
  TempDir dir("confine-model");
  const std::string shared = otherUsersFolder(dir, "shared");
  const std::string outside = dir.file("outside");
  fs::create_directories(outside);
  writeFile(outside + "/model.pt", "not read");
  fs::create_symlink(outside + "/model.pt", shared + "/model.pt");

  agent::AgentOptions options = optionsIn(dir);
  options.allowedFolders = {shared};
  agent::AgentServer server(options);
  auto client = clientFor(server);
  int n = 0;
  for (const std::string& model : {outside + "/model.pt", shared + "/model.pt"}) {
    v1::JobSpec spec = smallJob(2, 2);
    spec.set_model(v1::MODEL_TORCHSCRIPT);
    spec.set_model_path(model);
    const std::string jobId = "model-" + std::to_string(n++);
    v1::LaunchReply reply;
    grpc::Status status = client.launch(firstRankOf(jobId, spec, 2), reply);
    EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << model << ": " << status.error_message();
    EXPECT_NE(status.error_message().find("spec.model_path " + model), std::string::npos)
        << status.error_message();
    EXPECT_NE(status.error_message().find("--allow-folder"), std::string::npos) << status.error_message();
    if (status.ok()) client.stop(jobId, 1);
  }
}

// The worker opens the files a job names beneath the folders the agent gave it (--allowed-folder), so a link
// that leads out of them, made after the agent's check, is refused when the worker opens the file.
TEST(AgentConfinement, TheWorkerOpensDataAndModelsOnlyBeneathItsAllowedFolders) {
  TempDir dir("confine-worker");
  const std::string shared = otherUsersFolder(dir, "shared");
  const std::string outside = dir.file("outside");
  fs::create_directories(outside);
  writeFile(outside + "/model.pt", "not read");
  fs::create_symlink(outside + "/model.pt", shared + "/model.pt");
  fs::create_symlink(outside, shared + "/data");
  fs::create_directories(shared + "/real");
  fs::create_symlink("../../outside", shared + "/real/up");
  const std::string resolvedShared = fs::canonical(shared).string();
  const std::map<std::string, std::string> oneRank = {{"RANK", "0"},
                                                      {"LOCAL_RANK", "0"},
                                                      {"WORLD_SIZE", "1"},
                                                      {"LOCAL_WORLD_SIZE", "1"},
                                                      {"MASTER_ADDR", "127.0.0.1"},
                                                      {"MASTER_PORT", std::to_string(freePort())}};
  struct Case {
    std::vector<std::string> flags;
    std::string path;  // what the refusal names
  };
  for (const Case& c :
       {Case{{"--model", shared + "/model.pt", "--data", "synthetic"}, shared + "/model.pt"},
        Case{{"--data", "npy:" + shared + "/data"}, shared + "/data/train_x.npy"},
        Case{{"--data", "fashion-mnist", "--data-dir", shared + "/data"}, shared + "/data/train-images"},
        Case{{"--data", "npy:" + shared + "/real/up"}, shared + "/real/up/train_x.npy"}}) {
    std::vector<std::string> argv = {binPath("ringmaster-worker"), "--allowed-folder", resolvedShared,
                                     "--steps", "1"};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    auto result = runProcess(argv, oneRank, 60s);
    SCOPED_TRACE(c.path);
    EXPECT_EQ(result.exitCode, 2) << result.err;
    EXPECT_NE(result.err.find(c.path), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("leads out of " + resolvedShared), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("--allow-folder"), std::string::npos) << result.err;
  }
  // Outside every allowed folder altogether.
  auto result = runProcess({binPath("ringmaster-worker"), "--allowed-folder", resolvedShared, "--steps", "1",
                            "--model", outside + "/model.pt", "--data", "synthetic"},
                           oneRank, 60s);
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find(outside + "/model.pt is outside"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("--allow-folder"), std::string::npos) << result.err;
}

// A launch's run id names the folder a restarting job checkpoints into by default: it is the job's own id or
// the id of the run it restarts, never a path nor another job's.
TEST(AgentConfinement, ARunIdIsTheJobsOwnOrTheRunItRestarts) {
  TempDir dir("confine-run-id");
  agent::AgentServer server(optionsIn(dir));
  auto client = clientFor(server);
  struct Case {
    std::string jobId, runId;
  };
  for (const Case& c :
       {Case{"thief", "../../elsewhere"}, Case{"thief", "victim"}, Case{"thief-restart1", "victim"},
        Case{"victim-restartx", "victim"}, Case{"victim-restart", "victim"}}) {
    for (bool restarts : {false, true}) {
      SCOPED_TRACE("job " + c.jobId + " run " + c.runId + (restarts ? " with restarts" : ""));
      v1::JobSpec spec = smallJob(2, 2);
      if (restarts) spec.set_max_restarts(1);
      v1::LaunchRequest request = firstRankOf(c.jobId, spec, 2);
      request.set_run_id(c.runId);
      v1::LaunchReply reply;
      grpc::Status status = client.launch(request, reply);
      EXPECT_EQ(status.error_code(), grpc::INVALID_ARGUMENT) << status.error_message();
      EXPECT_NE(status.error_message().find("run_id " + c.runId), std::string::npos)
          << status.error_message();
      if (status.ok()) client.stop(c.jobId, 1);
    }
  }
  for (const Case& c : {Case{"victim", "victim"}, Case{"victim-restart1", "victim"}, Case{"alone", ""}}) {
    SCOPED_TRACE("job " + c.jobId + " run " + c.runId);
    v1::JobSpec spec = smallJob(2, 2);
    spec.set_max_restarts(1);
    v1::LaunchRequest request = firstRankOf(c.jobId, spec, 2);
    request.set_run_id(c.runId);
    v1::LaunchReply reply;
    grpc::Status status = client.launch(request, reply);
    EXPECT_TRUE(status.ok()) << status.error_message();
    if (status.ok()) {
      EXPECT_TRUE(client.stop(c.jobId, 1).ok());
    }
  }
}

std::unique_ptr<BackgroundProcess> startAgent(const TempDir& dir, int port,
                                              const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {binPath("ringmaster-agent"),
                                   "--port",
                                   std::to_string(port),
                                   "--state-dir",
                                   dir.file("state-" + std::to_string(port)),
                                   "--allow-program",
                                   "/bin/sh"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return std::make_unique<BackgroundProcess>(argv);
}

// The loader's and interpreters' variables (LD_PRELOAD, PYTHONPATH ...) would run code of the launcher's
// choosing inside an allowed program: a launch sets them only where the agent's owner allowed each one.
TEST(AgentConfinement, ALaunchSetsTheLoadersVariablesOnlyWhereTheAgentAllowsThem) {
  TempDir dir("confine-env");
  auto help = runProcess({binPath("ringmaster-agent"), "--help"});
  EXPECT_NE(help.out.find("--allow-env"), std::string::npos) << help.out;
  for (const char* name : {"LD_*", "PYTHONPATH", "NODE_OPTIONS", "BASH_ENV"})
    EXPECT_NE(help.out.find(name), std::string::npos) << name << " is not named in\n" << help.out;

  // Only a guarded name can be allowed: anything else is a mistake the owner hears of.
  auto typo = runProcess({binPath("ringmaster-agent"), "--port", std::to_string(freePort()), "--state-dir",
                          dir.file("state-typo"), "--allow-env", "EPOCHS"});
  EXPECT_EQ(typo.exitCode, 2) << typo.err;
  EXPECT_NE(typo.err.find("--allow-env EPOCHS"), std::string::npos) << typo.err;

  const std::vector<std::string> program = {"/bin/sh", "-c", "test \"$LD_PRELOAD\" = libc.so.6"};
  for (bool allowing : {false, true}) {
    SCOPED_TRACE(allowing ? "--allow-env LD_PRELOAD" : "no --allow-env");
    const int port = freePort();
    auto agentProcess = startAgent(
        dir, port,
        allowing ? std::vector<std::string>{"--allow-env", "LD_PRELOAD"} : std::vector<std::string>{});
    console::AgentClient client({"127.0.0.1", port, "", "", ""});
    v1::HostInfo info;
    ASSERT_TRUE(eventually([&] { return client.hostInfo(info, 1s).ok(); }, 30s)) << "no agent";

    v1::LaunchReply reply;
    grpc::Status status = client.launch(programLaunch("preload", program, {"LD_PRELOAD=libc.so.6"}), reply);
    if (!allowing) {
      EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << status.error_message();
      EXPECT_NE(status.error_message().find("LD_PRELOAD"), std::string::npos) << status.error_message();
      EXPECT_NE(status.error_message().find("--allow-env LD_PRELOAD"), std::string::npos)
          << status.error_message();
      status = client.launch(programLaunch("pythonpath", program, {"PYTHONPATH=/tmp"}), reply);
      EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << status.error_message();
      EXPECT_NE(status.error_message().find("--allow-env PYTHONPATH"), std::string::npos)
          << status.error_message();
      // Variables that change nothing of what is loaded are the launch's to set.
      status = client.launch(programLaunch("plain", {"/bin/sh", "-c", "true"}, {"EPOCHS=3"}), reply);
      EXPECT_TRUE(status.ok()) << status.error_message();
    } else {
      ASSERT_TRUE(status.ok()) << status.error_message();
      const auto records = recordsOf(client, "preload");
      bool exitedWell = false;
      for (const auto& r : records) {
        if (r.has_rank_state() && r.rank_state().state() == v1::RankState::STATE_EXITED)
          exitedWell = r.rank_state().exit_code() == 0;
      }
      EXPECT_TRUE(exitedWell) << "the rank did not see LD_PRELOAD:\n" << outputOf(records);
      // Allowing one variable allows no other.
      status = client.launch(programLaunch("audit", program, {"LD_AUDIT=libc.so.6"}), reply);
      EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << status.error_message();
    }
    agentProcess->signal(SIGTERM);
    EXPECT_FALSE(agentProcess->wait(30s).timedOut);
  }
}

// How starting the ranks of a job made without an agent's launch checks (`setup.request` a program's
// launch) came out, once they have exited.
agent::StartResult startedJob(const TempDir& dir, agent::JobSetup setup) {
  fs::create_directories(dir.file("job"));
  setup.workerPath = setup.request.spec().program().argv(0);
  setup.directory = dir.file("job");
  setup.hostname = "here";
  agent::Job job(std::move(setup));
  std::mutex mutex;
  std::optional<agent::StartResult> result;
  job.start([&](const agent::StartResult& r) {
    std::lock_guard lock(mutex);
    result = r;
  });
  EXPECT_TRUE(eventually([&] { return job.finished(); }, 30s)) << "the job did not finish";
  std::lock_guard lock(mutex);
  return result.value_or(agent::StartResult{});
}

// The rank's environment is checked again where it is made, so a job that did not come through the
// launch's check still does not start with a variable its agent does not allow.
TEST(AgentConfinement, AJobDoesNotStartARankWithALoaderVariableItWasNotAllowed) {
  TempDir dir("confine-job-env");
  agent::JobSetup setup;
  setup.request = programLaunch("direct", {"/bin/sh", "-c", "true"}, {"LD_PRELOAD=libc.so.6"});
  const agent::StartResult result = startedJob(dir, std::move(setup));
  EXPECT_FALSE(result.ok) << "the rank started with LD_PRELOAD";
  EXPECT_NE(result.error.find("LD_PRELOAD"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("--allow-env"), std::string::npos) << result.error;
}

// A program's working folder is opened beneath the allowed folders when its ranks start, and they start in
// the folder that was opened: one that leads out through a link is refused there, whatever the launch saw.
TEST(AgentConfinement, AProgramStartsInItsWorkingFolderOnlyBeneathTheAllowedFolders) {
  TempDir dir("confine-workdir");
  const std::string shared = fs::canonical(dir.path()).string() + "/shared";
  const std::string outside = fs::canonical(dir.path()).string() + "/outside";
  fs::create_directories(shared + "/work");
  fs::create_directories(outside);
  fs::create_symlink(outside, shared + "/elsewhere");
  const auto folders = std::make_shared<const AllowedFolders>(std::vector<std::string>{shared});
  for (const std::string& folder : {shared + "/work", shared + "/elsewhere"}) {
    SCOPED_TRACE(folder);
    agent::JobSetup setup;
    setup.request = programLaunch("workdir", {"/bin/sh", "-c", "touch started-here"});
    setup.request.mutable_spec()->mutable_program()->set_working_dir(folder);
    setup.allowedFolders = folders;
    const agent::StartResult result = startedJob(dir, std::move(setup));
    fs::remove_all(dir.file("job"));
    if (folder == shared + "/work") {
      EXPECT_TRUE(result.ok) << result.error;
      EXPECT_TRUE(fs::exists(folder + "/started-here"));
    } else {
      EXPECT_FALSE(result.ok) << "the rank started outside";
      EXPECT_NE(result.error.find(folder + " leads out of " + shared), std::string::npos) << result.error;
      EXPECT_NE(result.error.find("--allow-folder"), std::string::npos) << result.error;
    }
  }
  EXPECT_FALSE(fs::exists(outside + "/started-here"));
}

}  // namespace
