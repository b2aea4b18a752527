// SPDX-License-Identifier: GPL-3.0-or-later
// What a user types or points Ringmaster at never crashes it, never hangs it and never takes over the
// terminal: every bad flag and file ends in exit code 2 with a message naming it, text from outside is shown,
// not obeyed, and a store this user may only read can still be listed and shown.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "tests/support/files.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using ringmaster::test::binPath;
using ringmaster::test::runProcess;
using ringmaster::test::TempDir;

namespace {

struct Case {
  std::vector<std::string> args;  // after the binary
  std::string mention;            // what the message must name
};

// Runs each case and expects a prompt exit 2 (not an abort, not a timeout) whose stderr names the input.
void expectRejected(const std::string& binary, const std::vector<Case>& cases,
                    const std::vector<std::string>& common = {}) {
  for (const auto& c : cases) {
    std::vector<std::string> argv = {binPath(binary)};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    argv.insert(argv.end(), common.begin(), common.end());
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    auto r = runProcess(argv, {}, std::chrono::seconds(30));
    EXPECT_FALSE(r.timedOut) << shown << "did not end";
    EXPECT_EQ(r.signal, 0) << shown << "was killed by signal " << r.signal << ": " << r.err;
    EXPECT_EQ(r.exitCode, 2) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(c.mention), std::string::npos)
        << shown << "- stderr does not name " << c.mention << ": " << r.err;
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << shown << ": " << r.err;
  }
}

}  // namespace

TEST(BadInput, FaultAndNumberFlagsOfARunAreUsageErrors) {
  TempDir dir("bad-flags");
  const std::vector<std::string> job = {"--model", "mlp",        "--data",      "synthetic",      "--steps",
                                        "5",       "--no-store", "--state-dir", dir.file("state")};
  expectRejected(
      "ringmaster",
      {
          {{"run", "-np", "2", "--inject-straggler", "x:y"}, "--inject-straggler"},
          {{"run", "-np", "2", "--inject-straggler", "1"}, "--inject-straggler"},
          {{"run", "-np", "2", "--inject-straggler", "1:50@x"}, "--inject-straggler"},
          {{"run", "-np", "2", "--inject-straggler", "1:1e400"}, "--inject-straggler"},
          {{"run", "-np", "2", "--inject-straggler", "1:inf"}, "--inject-straggler"},
          {{"run", "-np", "2", "--inject-leak", "1:-5"}, "--inject-leak"},
          {{"run", "-np", "2", "--inject-leak", "1:nan"}, "--inject-leak"},
          {{"run", "-np", "2", "--inject-crash", "1"}, "--inject-crash"},
          {{"run", "-np", "2", "--inject-hang", "a:3"}, "--inject-hang"},
          {{"run", "-np", "2", "--rendezvous-timeout-s", "1e300"}, "--rendezvous-timeout-s"},
          {{"run", "-np", "2", "--stall-check-s", "inf"}, "--stall-check-s"},
          {{"run", "-np", "2", "--lr", "nan"}, "--lr"},
          {{"run", "-np", "2", "--momentum", "nan"}, "--momentum"},
          {{"run", "-np", "2", "--job-id", "../x"}, "--job-id"},
          {{"run", "-np", "2", "--job-id", std::string(5000, 'j')}, "--job-id"},
          {{"run", "-np", "2", "-H", ""}, "-H"},
          // Outputs written at the end are checked before the run starts.
          {{"run", "-np", "2", "--summary-json", "/nonexistent/folder/summary.json"}, "--summary-json"},
          {{"run", "-np", "2", "--timeline", dir.path()}, "--timeline"},
      },
      job);
  // The worker reads the same flags with the same rules.
  expectRejected("ringmaster-worker", {
                                          {{"--inject-straggler", "1:1e400"}, "--inject-straggler"},
                                          {{"--rendezvous-timeout-s", "1e300"}, "--rendezvous-timeout-s"},
                                          {{"--lr", "inf"}, "--lr"},
                                      });
}

TEST(BadInput, FilesThatAreNotSmallRegularFilesAreRefusedAtOnce) {
  TempDir dir("bad-files");
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = dir.file("big");
  ringmaster::test::writeFile(big, std::string(2 << 20, 'x'));
  const std::string token = dir.file("token");
  ringmaster::test::writeFile(token, "bad-files-token\n");
  const std::vector<std::string> job = {"--model", "mlp",        "--data",      "synthetic",      "--steps",
                                        "5",       "--no-store", "--state-dir", dir.file("state")};
  // /dev/zero never ends and a FIFO with no writer never answers: both must be refused, not read.
  expectRejected("ringmaster",
                 {
                     {{"run", "-np", "2", "--hostfile", "/dev/zero"}, "/dev/zero"},
                     {{"run", "-np", "2", "--hostfile", fifo}, fifo},
                     {{"run", "-np", "2", "--hostfile", big}, big},
                     {{"run", "-np", "2", "-H", "node1:2", "--token-file", "/dev/zero"}, "--token-file"},
                     {{"run", "-np", "2", "-H", "node1:2", "--token-file", fifo}, "--token-file"},
                     {{"run", "-np", "2", "-H", "node1:2", "--tls-ca", "/dev/zero"}, "--tls-ca"},
                     {{"run", "-np", "2", "-H", "node1:2", "--tls-ca", dir.path()}, "--tls-ca"},
                 },
                 job);
  expectRejected("ringmaster-agent",
                 {
                     {{"--token-file", "/dev/zero"}, "--token-file"},
                     {{"--token-file", fifo}, "--token-file"},
                     {{"--token-file", big}, "--token-file"},
                     {{"--tls-cert", "/dev/zero", "--tls-key", "/dev/zero", "--token-file", token}, "/dev/zero"},
                     {{"--tls-cert", "/dev/zero", "--tls-key", "/dev/zero"}, "--token-file"},
                 },
                 {"--state-dir", dir.file("agent-state")});
}

TEST(BadInput, ControlCharactersFromARankReachTheTerminalAsText) {
  TempDir dir("escapes");
  // The program clears the screen, rings the bell and retitles the window, in its output and in its name.
  auto r = runProcess({binPath("ringmaster"), "run", "-np", "1", "--no-store", "--state-dir",
                       dir.file("state"), "--no-instrument", "--", "/bin/sh", "-c",
                       "printf '\\033[2Jcleared\\007\\033]0;title\\007\\n'; exit 3"},
                      {}, std::chrono::seconds(60));
  ASSERT_FALSE(r.timedOut);
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("cleared"), std::string::npos) << all;
  EXPECT_EQ(all.find("\x1b[2J"), std::string::npos) << "a rank's escape sequence reached the terminal";
  EXPECT_EQ(all.find('\a'), std::string::npos) << "a rank's bell reached the terminal";
  EXPECT_NE(all.find("^[[2Jcleared^G"), std::string::npos) << "the escape is not shown as text: " << all;
}

TEST(BadInput, AStoreThisUserMayOnlyReadIsListedAndShown) {
  TempDir dir("read-only-store");
  const std::string folder = dir.file("store");
  std::filesystem::create_directories(folder);
  const std::string store = folder + "/runs.sqlite";
  const std::string trace = dir.file("t.json");
  ringmaster::test::writeFile(trace, R"([{"name":"step","ph":"X","ts":10,"dur":5,"pid":0,"tid":0}])");
  auto imported = runProcess({binPath("ringmaster"), "import", "--store", store, "--name", "kept", trace});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;

  // Read-only for whoever reads it: as root (who may write anything) the reader is "nobody".
  std::vector<std::string> prefix;
  if (::geteuid() == 0) {
    ::chmod(dir.path().c_str(), 0755);
    ::chmod(folder.c_str(), 0755);
    ::chmod(store.c_str(), 0644);
    prefix = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  } else {
    ::chmod(store.c_str(), 0444);
    ::chmod(folder.c_str(), 0555);
  }
  auto as = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = prefix;
    argv.push_back(binPath("ringmaster"));
    argv.insert(argv.end(), args.begin(), args.end());
    return runProcess(argv);
  };
  auto runs = as({"runs", "--store", store});
  EXPECT_EQ(runs.exitCode, 0) << runs.err;
  EXPECT_NE(runs.out.find("kept"), std::string::npos) << runs.out;
  auto show = as({"show", "1", "--store", store});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("kept"), std::string::npos) << show.out;
  ::chmod(folder.c_str(), 0755);  // so that the temporary folder can be removed
}

TEST(BadInput, AReportThatCannotBeWrittenNamesItsOutputInEveryFormat) {
  TempDir dir("full-disk-report");
  const std::string store = dir.file("runs.sqlite");
  const std::string trace = dir.file("t.json");
  ringmaster::test::writeFile(trace, R"([{"name":"step","ph":"X","ts":10,"dur":5,"pid":0,"tid":0}])");
  auto imported = runProcess({binPath("ringmaster"), "import", "--store", store, "--name", "kept", trace});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  // /dev/full takes every open and refuses every write with ENOSPC, as a full disk does.
  for (const std::string format : {"trace", "csv", "html", "pdf"}) {
    auto r = runProcess(
        {binPath("ringmaster"), "report", "kept", "--store", store, "--format", format, "-o", "/dev/full"},
        {}, std::chrono::seconds(60));
    ASSERT_FALSE(r.timedOut) << format;
    EXPECT_EQ(r.signal, 0) << format << ": " << r.err;
    EXPECT_NE(r.exitCode, 0) << format << ": " << r.err;
    EXPECT_NE(r.err.find("/dev/full"), std::string::npos) << format << ": " << r.err;
    EXPECT_EQ(r.err.find("--timeline"), std::string::npos)
        << format << " names a flag it was not given: " << r.err;
  }
}

TEST(BadInput, ACheckpointFolderThatCannotBeWrittenIsNamedWithoutABacktrace) {
  TempDir dir("proc-checkpoint");
  auto r = runProcess(
      {binPath("ringmaster"), "run", "-np", "2", "--model", "mlp", "--data", "synthetic", "--steps", "5",
       "--no-store", "--state-dir", dir.file("state"), "--checkpoint-dir", "/proc"},
      {}, std::chrono::minutes(2));
  ASSERT_FALSE(r.timedOut);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_NE(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("/proc/checkpoint.pt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot write the checkpoint"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("frame #"), std::string::npos)
      << "LibTorch's stack frames reached the user: " << r.err;
  EXPECT_EQ(r.err.find("c10::"), std::string::npos) << r.err;
}

// TLS files are read and checked before gRPC sees them: a file that is not a certificate, not a key, or a key
// of another certificate is named with what is wrong (exit 2), and none of gRPC's own log lines ("E1201
// 21:13:33.37 ssl_transport_security.cc:846] Invalid cert chain file.") reaches the user.
TEST(BadInput, TlsFilesThatAreNotACertificateOrItsKeyAreNamed) {
  TempDir dir("bad-tls");
  auto makePair = [&](const std::string& name) {
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
        "-addext subjectAltName=IP:127.0.0.1 -keyout " +
        dir.file(name + ".key") + " -out " + dir.file(name + ".pem") + " >/dev/null 2>&1";
    return std::system(command.c_str()) == 0;
  };
  if (!makePair("agent") || !makePair("other")) {
    GTEST_SKIP() << "openssl could not make a test certificate (scripts/install-deps installs openssl)";
  }
  const std::string cert = dir.file("agent.pem"), key = dir.file("agent.key"),
                    otherKey = dir.file("other.key");
  const std::string garbage = dir.file("garbage.pem");
  ringmaster::test::writeFile(garbage, "this is not a certificate\n");
  const std::string broken = dir.file("broken.pem");
  ringmaster::test::writeFile(broken,
                              "-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n");

  const std::string brokenKey = dir.file("broken.key");
  ringmaster::test::writeFile(brokenKey,
                              "-----BEGIN PRIVATE KEY-----\nnot base64 at all!\n-----END PRIVATE KEY-----\n");
  const std::string lockedKey = dir.file("locked.key");
  ASSERT_EQ(
      std::system(("openssl pkey -in " + key + " -aes256 -passout pass:secret -out " + lockedKey).c_str()),
      0);

  struct TlsCase {
    std::vector<std::string> args;
    std::string says;
  };
  auto expectNamed = [](const std::vector<std::string>& argv, const std::string& says) {
    auto r = runProcess(argv, {}, std::chrono::seconds(30));
    std::string shown;
    for (const auto& a : argv) shown += a + " ";
    EXPECT_FALSE(r.timedOut) << shown << "did not end";
    EXPECT_EQ(r.exitCode, 2) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos)
        << shown << "- stderr does not say " << says << ": " << r.err;
    EXPECT_EQ(r.err.find(".cc:"), std::string::npos) << shown << "- gRPC's log reached the user: " << r.err;
    EXPECT_EQ(r.err.find("port is in use"), std::string::npos) << shown << ": " << r.err;
  };
  const std::string port = std::to_string(ringmaster::test::freePort());
  // TLS serves consoles over TCP, which only an agent with a token does.
  const std::string token = dir.file("token");
  ringmaster::test::writeFile(token, "tls-test-token\n");
  for (const TlsCase& c : {
           TlsCase{
               {"--tls-cert", garbage, "--tls-key", key},
               "--tls-cert " + garbage + ": not a PEM certificate (no -----BEGIN CERTIFICATE----- block)"},
           TlsCase{{"--tls-cert", broken, "--tls-key", key},
                   "--tls-cert " + broken + ": a certificate in it cannot be read"},
           TlsCase{{"--tls-cert", key, "--tls-key", key},
                   "not a PEM certificate (no -----BEGIN CERTIFICATE----- "
                   "block); it holds a private key"},
           TlsCase{{"--tls-cert", cert, "--tls-key", garbage},
                   "--tls-key " + garbage + ": not a PEM private key (no -----BEGIN PRIVATE KEY----- block)"},
           TlsCase{{"--tls-cert", cert, "--tls-key", cert}, "--tls-key " + cert + ": not a PEM private key"},
           TlsCase{{"--tls-cert", cert, "--tls-key", brokenKey},
                   "--tls-key " + brokenKey + ": the private key in it cannot be read"},
           TlsCase{{"--tls-cert", cert, "--tls-key", lockedKey},
                   "--tls-key " + lockedKey + ": the key is protected by a passphrase"},
           TlsCase{{"--tls-cert", cert, "--tls-key", otherKey},
                   "--tls-key " + otherKey + ": not the key of the certificate in --tls-cert " + cert},
       }) {
    std::vector<std::string> argv = {binPath("ringmaster-agent"), "--port", port, "--state-dir",
                                     dir.file("agent-state"), "--token-file", token};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    expectNamed(argv, c.says);
  }
  for (const TlsCase& c : {
           TlsCase{{"--tls-ca", garbage},
                   "--tls-ca " + garbage + ": not a PEM certificate (no -----BEGIN CERTIFICATE----- block)"},
           TlsCase{{"--tls-ca", broken}, "--tls-ca " + broken + ": a certificate in it cannot be read"},
           TlsCase{{"--tls-ca", key}, "--tls-ca " + key + ": not a PEM certificate"},
       }) {
    std::vector<std::string> argv = {binPath("ringmaster"),
                                     "run",
                                     "-np",
                                     "1",
                                     "-H",
                                     "127.0.0.1:1",
                                     "--agent-port",
                                     port,
                                     "--no-store",
                                     "--state-dir",
                                     dir.file("console-state")};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    argv.insert(argv.end(), {"--", "/bin/true"});
    expectNamed(argv, c.says);
  }

  // The pair openssl made is taken: the agent listens with it, and a console trusting it gets in.
  const std::string agentLog = dir.file("agent.log");
  auto served = runProcess(
      {"/bin/sh", "-c",
       "\"$0\" --port \"$1\" --state-dir \"$2\" --tls-cert \"$3\" --tls-key \"$4\" --allow-program /bin/echo "
       "--token-file \"$7\" 2>\"$5\" & agent=$!; "
       "until grep -q 'serving consoles on' \"$5\" || ! kill -0 $agent 2>/dev/null; do sleep 0.1; done; "
       "\"$6\" run -np 1 -H 127.0.0.1:1 --agent-port \"$1\" --tls-ca \"$3\" --token-file \"$7\" --no-store "
       "--no-instrument -- /bin/echo trusted; status=$?; kill $agent; wait $agent; cat \"$5\" >&2; exit $status",
       binPath("ringmaster-agent"), port, dir.file("agent-state"), cert, key, agentLog,
       binPath("ringmaster"), token},
      {}, std::chrono::seconds(120));
  ASSERT_FALSE(served.timedOut) << served.err;
  EXPECT_NE(served.err.find("serving consoles on 127.0.0.1:" + port + " (token required, TLS)"), std::string::npos)
      << served.err;
  EXPECT_EQ(served.exitCode, 0) << served.out << served.err;
  EXPECT_NE(served.out.find("trusted"), std::string::npos) << served.out << served.err;
}

// Bytes are bytes: a rank that prints what is not UTF-8 (0xff), or a line longer than the agent's 16 KiB
// pieces of characters of three bytes each, is shown and stored as text, U+FFFD in place of the bytes, and
// the run ends with the program's exit and is stored as such, instead of a console that waits for ever (and a
// run left "interrupted" with nothing stored when it is killed).
TEST(BadInput, BytesARankPrintsThatAreNotUtf8EndTheRunAsText) {
  TempDir dir("not-utf8");
  const std::string replacement = "\xef\xbf\xbd";  // U+FFFD
  std::string chinese;
  for (int i = 0; i < 7000; ++i) chinese += "训";  // 21000 bytes, one line
  ringmaster::test::writeFile(dir.file("long.txt"), chinese + "\n");
  const std::string store = dir.file("runs.sqlite");
  auto r = runProcess({binPath("ringmaster"), "run", "-np", "1", "--store", store, "--state-dir",
                       dir.file("state"), "--no-instrument", "--", "/bin/sh", "-c",
                       "printf '\\377bad\\n'; cat \"$0\"; printf 'cut \\350\\256\\n'; echo after; exit 3",
                       dir.file("long.txt")},
                      {}, std::chrono::seconds(60));
  ASSERT_FALSE(r.timedOut) << "the console did not end: " << r.err;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("exited with code 3"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("[rank 0] " + replacement + "bad\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[rank 0] cut " + replacement + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[rank 0] after\n"), std::string::npos) << r.out;
  // The long line comes in pieces cut between characters: together they are the line, with nothing replaced.
  std::string pieces;
  size_t lines = 0;
  for (size_t at = 0; (at = r.out.find("[rank 0] 训", at)) != std::string::npos; ++lines) {
    at += std::string("[rank 0] ").size();
    const size_t end = r.out.find('\n', at);
    pieces += r.out.substr(at, end - at);
    at = end;
  }
  EXPECT_EQ(lines, 2u);
  EXPECT_TRUE(pieces == chinese) << pieces.size() << " bytes of the line's " << chinese.size() << " arrived";

  auto runs = runProcess({binPath("ringmaster"), "runs", "--store", store});
  EXPECT_EQ(runs.exitCode, 0) << runs.err;
  EXPECT_NE(runs.out.find("failed"), std::string::npos) << runs.out;
}

// A journal retention past a hundred years (or not a number) is refused before the agent looks at its
// journals: none is removed.
TEST(BadInput, AJournalRetentionPastAHundredYearsIsRefusedAndRemovesNothing) {
  TempDir dir("keep-journals");
  const std::filesystem::path journal = dir.file("state/jobs/last-month/journal");
  std::filesystem::create_directories(journal.parent_path());
  ringmaster::test::writeFile(journal.string(), "RMJRNL1\n");
  std::filesystem::last_write_time(
      journal, std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * 30));
  const std::string range = "--keep-journals-days must be 0 (keep every journal) up to 36500 days, got ";
  const std::vector<Case> cases = {
      {{"--keep-journals-days", "1e6"}, range + "1e+06"},
      {{"--keep-journals-days", "36501"}, range + "36501"},
      {{"--keep-journals-days", "inf"}, range + "inf"},
      {{"--keep-journals-days", "nan"}, range + "nan"},
  };
  const std::vector<std::string> common = {"--state-dir", dir.file("state"), "--port",
                                           std::to_string(ringmaster::test::freePort())};
  expectRejected("ringmaster-agent", cases, common);
  std::vector<Case> subcommand = cases;
  for (auto& c : subcommand) c.args.insert(c.args.begin(), "agent");
  expectRejected("ringmaster", subcommand, common);
  EXPECT_TRUE(std::filesystem::exists(journal)) << "a refused retention removed a journal";
}

// A model or data folder behind a loop of symbolic links, a file used as a folder or a folder this user may
// not enter is named with what stands in the way, before anything starts: exit 2, not an abort.
TEST(BadInput, AModelOrDataOutOfReachIsNamedWithWhatIsWrong) {
  TempDir dir("out-of-reach");
  ASSERT_EQ(::symlink("loop", dir.file("loop").c_str()), 0);
  ringmaster::test::writeFile(dir.file("a-file"), "x");
  const std::vector<std::string> job = {"--steps", "5", "--no-store", "--state-dir", dir.file("state")};
  const std::string loop = "Too many levels of symbolic links";
  expectRejected("ringmaster",
                 {
                     {{"run", "--model", dir.file("loop/model.pt")}, dir.file("loop/model.pt") + ": "},
                     {{"run", "--model", dir.file("loop/model.pt")}, loop},
                     {{"run", "--data", "npy:" + dir.file("loop/npy")}, dir.file("loop/npy/train_x.npy")},
                     {{"run", "--data", "npy:" + dir.file("loop/npy")}, loop},
                     {{"run", "--model", dir.file("a-file/model.pt")}, dir.file("a-file/model.pt")},
                     {{"run", "--data", "npy:" + dir.file("a-file")}, "npy:" + dir.file("a-file")},
                     {{"tune", "--model", dir.file("loop/model.pt")}, loop},
                 },
                 job);

  // A folder closed to its reader: as root (who may enter any folder) the reader is "nobody".
  if (::geteuid() != 0) GTEST_SKIP() << "the closed folder needs a second user; run as root";
  ::chmod(dir.path().c_str(), 0755);
  std::filesystem::create_directories(dir.file("closed/npy"));
  ringmaster::test::writeFile(dir.file("closed/model.pt"), "x");
  ringmaster::test::writeFile(dir.file("closed/npy/train_x.npy"), "x");
  ringmaster::test::writeFile(dir.file("closed/npy/train_y.npy"), "x");
  ::chmod(dir.file("closed").c_str(), 0000);
  const std::vector<std::string> nobody = {"--reuid=65534", "--regid=65534", "--clear-groups",
                                           binPath("ringmaster")};
  const std::string denied = "Permission denied";
  const std::vector<std::string> state = {"--steps", "5", "--no-store", "--state-dir",
                                          dir.file("nobody-state")};
  for (const Case& c : std::vector<Case>{
           {{"run", "--model", dir.file("closed/model.pt")}, dir.file("closed/model.pt") + ": "},
           {{"run", "--data", "npy:" + dir.file("closed/npy")}, dir.file("closed/npy/train_x.npy")},
       }) {
    std::vector<std::string> argv = {"/usr/bin/setpriv"};
    argv.insert(argv.end(), nobody.begin(), nobody.end());
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    argv.insert(argv.end(), state.begin(), state.end());
    auto r = runProcess(argv, {}, std::chrono::seconds(30));
    EXPECT_EQ(r.signal, 0) << c.args.back() << ": " << r.err;
    EXPECT_EQ(r.exitCode, 2) << c.args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(c.mention), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(denied), std::string::npos) << r.err;
  }
  ::chmod(dir.file("closed").c_str(), 0755);  // so that the temporary folder can be removed
}

// Input refused before the launch leaves nothing in the history: the store is not even made. A launch
// refused by its host (no agent answers) is a run that failed, and is stored as one.
TEST(BadInput, ARunRefusedBeforeItsLaunchStoresNothing) {
  TempDir dir("refused-runs");
  const std::string store = dir.file("runs.sqlite");
  ringmaster::test::writeFile(dir.file("a-file"), "x");
  const std::vector<std::string> job = {"--model", "mlp",     "--data", "synthetic",   "--steps",
                                        "5",       "--store", store,    "--state-dir", dir.file("state")};
  expectRejected("ringmaster",
                 {
                     {{"run", "-np", "99999"}, "must be from 1 to 4096"},
                     {{"run", "-np", "5", "-H", "node1:2"}, "slots"},
                     {{"run", "-np", "3", "-H", "127.0.0.1:2,node2:1"}, "rank 0's host is 127.0.0.1"},
                     {{"run", "-np", "2", "-H", "node1:x"}, "host list entry 'node1:x'"},
                     {{"run", "-np", "2", "--engine", "nope"}, "--engine"},
                     {{"run", "-np", "2", "--model", dir.file("a-file/model.pt")}, "--model"},
                     {{"run", "-np", "2", "--batch-size", "0"}, "--batch-size"},
                 },
                 job);
  std::vector<std::string> tuneJob = job;
  tuneJob[5] = "60";  // tune's shortest trial
  expectRejected("ringmaster", {{{"tune", "-np", "99999"}, "must be from 1 to 4096"}}, tuneJob);
  EXPECT_FALSE(std::filesystem::exists(store)) << "a refused run made the store";
  auto runs = runProcess({binPath("ringmaster"), "runs", "--store", store});
  EXPECT_EQ(runs.exitCode, 0) << runs.err;
  EXPECT_NE(runs.out.find("No runs yet"), std::string::npos) << runs.out;

  // No agent on the port: the launch began (the host was asked) and failed.
  auto unreachable =
      runProcess({binPath("ringmaster"), "run", "-np", "2", "-H", "127.0.0.1:2", "--agent-port",
                  std::to_string(ringmaster::test::freePort()), "--model", "mlp", "--data", "synthetic",
                  "--steps", "5", "--store", store, "--name", "no-agent"},
                 {}, std::chrono::seconds(60));
  EXPECT_EQ(unreachable.exitCode, 1) << unreachable.err;
  auto show = runProcess({binPath("ringmaster"), "show", "no-agent", "--store", store});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("status failed, 2 ranks"), std::string::npos) << show.out;
}

// Looking at the history (runs, show, compare, report) never makes or changes a store: an empty file is
// refused by name and stays as it was, a missing store is said to be missing and is not made.
TEST(BadInput, LookingAtTheHistoryNeverMakesOrChangesAStore) {
  TempDir dir("read-only-commands");
  const std::string empty = dir.file("empty.sqlite");
  ringmaster::test::writeFile(empty, "");
  const auto hourAgo = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  std::filesystem::last_write_time(empty, hourAgo);
  const std::vector<std::vector<std::string>> looks = {{"runs"},
                                                       {"show", "1"},
                                                       {"show", "last"},
                                                       {"compare", "1", "2"},
                                                       {"report", "1", "-o", dir.file("r.html")}};
  for (const auto& look : looks) {
    std::vector<std::string> argv = {binPath("ringmaster")};
    argv.insert(argv.end(), look.begin(), look.end());
    argv.insert(argv.end(), {"--store", empty});
    auto r = runProcess(argv, {{"QT_QPA_PLATFORM", "offscreen"}});
    EXPECT_EQ(r.exitCode, 1) << look[0] << ": " << r.err;
    EXPECT_NE(r.err.find(empty + " is not a Ringmaster run store (it is empty)"), std::string::npos)
        << look[0] << ": " << r.err;
    EXPECT_EQ(std::filesystem::file_size(empty), 0u) << look[0] << " wrote to an empty file";
    EXPECT_EQ(std::filesystem::last_write_time(empty), hourAgo) << look[0] << " changed an empty file";
  }
  for (const char* beside : {"-wal", "-shm", "-journal", ".consoles"})
    EXPECT_FALSE(std::filesystem::exists(empty + beside)) << beside;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.html")));

  // Missing: the default store too, which lives under $XDG_DATA_HOME.
  const std::string missing = dir.file("missing.sqlite");
  const std::map<std::string, std::string> home = {{"XDG_DATA_HOME", dir.file("data")}};
  auto runs = runProcess({binPath("ringmaster"), "runs", "--store", missing});
  EXPECT_EQ(runs.exitCode, 0) << runs.err;
  EXPECT_NE(runs.out.find("No runs yet: " + missing + " does not exist"), std::string::npos) << runs.out;
  auto show = runProcess({binPath("ringmaster"), "show", "last", "--store", missing});
  EXPECT_EQ(show.exitCode, 1) << show.err;
  EXPECT_NE(show.err.find("no run store at " + missing), std::string::npos) << show.err;
  EXPECT_FALSE(std::filesystem::exists(missing));
  auto defaultRuns = runProcess({binPath("ringmaster"), "runs"}, home);
  EXPECT_EQ(defaultRuns.exitCode, 0) << defaultRuns.err;
  EXPECT_NE(defaultRuns.out.find("No runs yet"), std::string::npos) << defaultRuns.out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("data"))) << "listing no runs made the store's folder";

  // A store behind a loop of symbolic links is named with what is wrong.
  ASSERT_EQ(::symlink("loop", dir.file("loop").c_str()), 0);
  auto looped = runProcess({binPath("ringmaster"), "runs", "--store", dir.file("loop/runs.sqlite")});
  EXPECT_EQ(looped.signal, 0) << looped.err;
  EXPECT_EQ(looped.exitCode, 1) << looped.err;
  EXPECT_NE(looped.err.find(dir.file("loop/runs.sqlite") + ": cannot be reached"), std::string::npos)
      << looped.err;
}

// A store made by Ringmaster, and the -wal and -shm files beside it, only its user may read; the default
// store's folder too.
TEST(BadInput, ANewStoreAndItsFolderOnlyItsUserMayRead) {
  TempDir dir("private-store");
  auto modeOf = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0u;
  };
  const std::string trace = dir.file("t.json");
  ringmaster::test::writeFile(trace, R"([{"name":"step","ph":"X","ts":10,"dur":5,"pid":0,"tid":0}])");
  auto imported = runProcess({binPath("ringmaster"), "import", "--store", dir.file("runs.sqlite"), trace});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  EXPECT_EQ(modeOf(dir.file("runs.sqlite")), 0600u);

  auto byDefault =
      runProcess({binPath("ringmaster"), "import", trace}, {{"XDG_DATA_HOME", dir.file("data")}});
  ASSERT_EQ(byDefault.exitCode, 0) << byDefault.err;
  EXPECT_EQ(modeOf(dir.file("data/ringmaster/runs.sqlite")), 0600u);
  EXPECT_EQ(modeOf(dir.file("data/ringmaster")), 0700u);
  EXPECT_EQ(modeOf(dir.file("data")), 0700u);
}

// A variable whose name reads like a secret reaches the program's ranks with its value, while the history
// (the store's bytes, show, a report) and the summary file keep it as ***.
TEST(BadInput, ASecretLookingVariableReachesTheRankButNotTheHistory) {
  TempDir dir("secret-env");
  const std::string secret = "abc-7f3e-not-for-the-history";
  const std::string store = dir.file("runs.sqlite");
  // The secret is in no argument: the program writes what it got to a file.
  ringmaster::test::writeFile(
      dir.file("program.sh"),
      "printf '%s %s %s' \"$API_TOKEN\" \"$Db_Password\" \"$PLAIN\" > " + dir.file("seen") + "\n");
  auto r = runProcess({binPath("ringmaster"),
                       "run",
                       "-np",
                       "1",
                       "--store",
                       store,
                       "--state-dir",
                       dir.file("state"),
                       "--summary-json",
                       dir.file("summary.json"),
                       "--name",
                       "secretive",
                       "--env",
                       "API_TOKEN=" + secret,
                       "--env",
                       "Db_Password=" + secret,
                       "--env",
                       "PLAIN=visible",
                       "--no-instrument",
                       "--",
                       "/bin/sh",
                       dir.file("program.sh")},
                      {}, std::chrono::seconds(60));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(ringmaster::test::readFile(dir.file("seen")), secret + " " + secret + " visible");

  std::string stored;
  for (const char* part : {"", "-wal", "-shm"}) stored += ringmaster::test::readFile(store + part);
  EXPECT_EQ(stored.find(secret), std::string::npos) << "the store holds the secret";
  EXPECT_NE(stored.find("API_TOKEN=***"), std::string::npos) << "the variable is kept, masked";
  EXPECT_NE(stored.find("Db_Password=***"), std::string::npos);
  EXPECT_NE(stored.find("PLAIN=visible"), std::string::npos) << "other variables are kept as they are";

  auto show = runProcess({binPath("ringmaster"), "show", "secretive", "--store", store});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_EQ(show.out.find(secret), std::string::npos) << show.out;
  auto report = runProcess(
      {binPath("ringmaster"), "report", "secretive", "--store", store, "-o", dir.file("report.html")},
      {{"QT_QPA_PLATFORM", "offscreen"}});
  EXPECT_EQ(report.exitCode, 0) << report.err;
  EXPECT_EQ(ringmaster::test::readFile(dir.file("report.html")).find(secret), std::string::npos);
  EXPECT_EQ(ringmaster::test::readFile(dir.file("summary.json")).find(secret), std::string::npos);
  EXPECT_EQ((r.out + r.err).find(secret), std::string::npos) << r.out << r.err;
}

// `ringmaster import` of what is not a regular file: a FIFO with no writer would block the open for ever, a
// device never ends, a socket cannot be read. Each is refused by its type, without opening it for reading.
TEST(BadInput, ImportRefusesWhatIsNotARegularFileWithoutOpeningIt) {
  TempDir dir("import-odd-files");
  const std::string fifo = dir.file("trace.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string socketPath = dir.file("socket.json");
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socketPath.c_str());
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  expectRejected("ringmaster",
                 {
                     {{"import", fifo}, fifo + ": a FIFO"},
                     {{"import", "/dev/zero"}, "/dev/zero: a character device"},
                     {{"import", socketPath}, socketPath + ": a socket"},
                 },
                 {"--store", dir.file("runs.sqlite")});
  ::close(listener);
  auto runs = runProcess({binPath("ringmaster"), "runs", "--store", dir.file("runs.sqlite")});
  EXPECT_EQ(runs.out.find("trace.json"), std::string::npos) << "nothing is kept of them: " << runs.out;
}

// A step number no job reaches (ProfilerStep#18446744073709551615, or one too long for 64 bits) is a damaged
// trace: refused, naming the event and the file, instead of stored for every view to allocate by.
TEST(BadInput, ImportRefusesAStepNumberNoJobReaches) {
  TempDir dir("import-absurd-step");
  auto trace = [&](const std::string& name, const std::string& step) {
    const std::string path = dir.file(name);
    ringmaster::test::writeFile(
        path, R"({"traceEvents":[{"name":"ProfilerStep#1","ph":"X","ts":10,"dur":5,"pid":1,"tid":1},)"
              R"({"name":"ProfilerStep#)" +
                  step + R"(","ph":"X","ts":20,"dur":5,"pid":1,"tid":1}]})");
    return path;
  };
  const std::string highest = trace("highest.json", "18446744073709551615");
  const std::string beyond = trace("beyond.json", "99999999999999999999999");
  const std::string billion = trace("billion.json", "1000000001");
  expectRejected(
      "ringmaster",
      {
          {{"import", highest}, highest + ": event 2 (ProfilerStep#18446744073709551615) names step"},
          {{"import", beyond}, beyond + ": event 2 (ProfilerStep#99999999999999999999999) names step"},
          {{"import", billion}, "more than 1000000000"},
      },
      {"--store", dir.file("runs.sqlite")});
  // The highest step a job may reach is kept.
  const std::string last = trace("last.json", "1000000000");
  auto r = runProcess({binPath("ringmaster"), "import", last, "--store", dir.file("runs.sqlite")});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("2 steps"), std::string::npos) << r.out;
}

namespace {

// Writes a Chrome trace of `events` complete events on one line (as json.dump writes a trace), streamed, with
// `padding` bytes of text in each event's args; returns its size.
uint64_t writeOneLineTrace(const std::string& path, uint64_t events, size_t padding = 0) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) throw std::runtime_error("cannot write " + path);
  const std::string block(64 << 10, 'x');
  std::fputs(R"({"traceEvents":[)", out);
  for (uint64_t i = 0; i < events; ++i) {
    std::fprintf(out, R"(%s{"name":"op%llu","ph":"X","ts":%llu,"dur":7,"pid":%llu,"tid":%llu,"args":{"p":")",
                 i ? "," : "", (unsigned long long)(i % 50), (unsigned long long)(10 * i),
                 (unsigned long long)(i % 4), (unsigned long long)(i % 3));
    for (size_t left = padding; left > 0; left -= std::min(left, block.size()))
      std::fwrite(block.data(), 1, std::min(left, block.size()), out);
    std::fputs("\"}}", out);
  }
  std::fputs("]}", out);
  const long size = std::ftell(out);
  if (std::fclose(out) != 0) throw std::runtime_error("cannot write " + path);
  return uint64_t(size);
}

}  // namespace

// One value of 300 MB on one line (a trace whose writer dumped a whole buffer into one event's args) is no
// event a timeline shows: it is refused, naming the file and the limit, without being held in memory.
TEST(BadInput, ImportRefusesATraceEventTooLargeToHoldWithoutReadingItIntoMemory) {
  TempDir dir("import-huge-value");
  const std::string trace = dir.file("huge.json");
  const uint64_t bytes = writeOneLineTrace(trace, 1, size_t{300} << 20);
  auto r = runProcess({binPath("ringmaster"), "import", trace, "--store", dir.file("runs.sqlite")}, {},
                      std::chrono::minutes(3));
  ASSERT_FALSE(r.timedOut);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(trace + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("larger than 16 MiB"), std::string::npos) << r.err;
  EXPECT_LT(r.peakRssBytes, int64_t(bytes / 4)) << "the import held much of the " << bytes << "-byte file";
  auto runs = runProcess({binPath("ringmaster"), "runs", "--store", dir.file("runs.sqlite")});
  EXPECT_EQ(runs.out.find("huge.json"), std::string::npos) << "nothing is kept of it: " << runs.out;
}

// A 300 MB trace of ordinary events on one line imports in memory far smaller than the file, and every event
// reads back.
TEST(BadInput, AOneLineTraceOfHundredsOfMegabytesImportsInBoundedMemoryAndReadsBack) {
  TempDir dir("import-one-line");
  const std::string trace = dir.file("long.json");
  const uint64_t events = 2'500'000;
  const uint64_t bytes = writeOneLineTrace(trace, events, 40);
  ASSERT_GT(bytes, uint64_t{250} << 20);
  const std::string store = dir.file("runs.sqlite");
  auto r = runProcess({binPath("ringmaster"), "import", trace, "--store", store, "--name", "long"}, {},
                      std::chrono::minutes(8));
  ASSERT_FALSE(r.timedOut);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find(std::to_string(events) + " events on 4 ranks"), std::string::npos) << r.out;
  EXPECT_LT(r.peakRssBytes, int64_t(bytes / 2)) << "the import held much of the " << bytes << "-byte file";
  std::filesystem::remove(trace);
  auto show = runProcess({binPath("ringmaster"), "show", "long", "--store", store});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find(std::to_string(events) + " timeline events"), std::string::npos) << show.out;
  auto exported = runProcess({binPath("ringmaster"), "report", "long", "--store", store, "--format", "trace",
                              "-o", dir.file("out.json")},
                             {}, std::chrono::minutes(5));
  EXPECT_EQ(exported.exitCode, 0) << exported.err;
  EXPECT_NE(exported.out.find(std::to_string(events) + " events"), std::string::npos) << exported.out;
}
