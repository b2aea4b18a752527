// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/rank_socket.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "agent/agent.h"
#include "agent/rank_intake.h"
#include "common/rank_frames.h"
#include "common/record_checks.h"

namespace ringmaster::agent {

// What other threads hand the loop: connections just accepted, and ranks whose last records are on disk.
struct RankSocket::Mailbox {
  Mailbox() : wakeFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~Mailbox() {
    for (int fd : accepted) ::close(fd);
    if (wakeFd >= 0) ::close(wakeFd);
  }
  void wake() const {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wakeFd, &one, sizeof one);
  }

  const int wakeFd;
  std::mutex mutex;
  std::vector<int> accepted;
  std::vector<uint64_t> journaled;  // connections whose bye may be answered
  bool stopping = false;
};

struct RankSocket::Connection {
  Connection(uint64_t id, int fd) : id(id), fd(fd) {}
  ~Connection() { ::close(fd); }

  const uint64_t id;
  const int fd;
  RankFrameReader reader{kRankSocketMagic};
  std::optional<RankIntake> intake;  // set by an accepted hello
  std::string out;                   // answers not yet written
  bool reading = true;               // false after a bye or a refusal: nothing more is read
  bool endAfterWriting = false;
};

namespace {

constexpr size_t kReadChunk = 64 * 1024;
// An answer a rank does not read is not waited for: past this the rank is hung up on.
constexpr size_t kMaxUnwritten = 1 << 20;

std::string answer(const v1::RankFrame& frame) {
  return encodeRankFrame(frame);
}

std::string refusal(const std::string& reason) {
  v1::RankFrame frame;
  frame.mutable_refused()->set_reason(reason);
  return answer(frame);
}

}  // namespace

RankSocket::RankSocket(Agent& agent, std::string path)
    : agent_(agent), mailbox_(std::make_shared<Mailbox>()), socket_(std::move(path)) {
  socket_.serve([mailbox = mailbox_](int fd) {
    {
      std::lock_guard lock(mailbox->mutex);
      mailbox->accepted.push_back(fd);
    }
    mailbox->wake();
  });
  thread_ = std::thread([this] { loop(); });
}

RankSocket::~RankSocket() {
  socket_.close();
  {
    std::lock_guard lock(mailbox_->mutex);
    mailbox_->stopping = true;
  }
  mailbox_->wake();
  thread_.join();
  connections_.clear();
}

void RankSocket::loop() {
  std::vector<pollfd> fds;
  std::vector<Connection*> polled;
  for (;;) {
    fds.assign(1, pollfd{mailbox_->wakeFd, POLLIN, 0});
    polled.clear();
    for (auto& [id, connection] : connections_) {
      short events = connection->reading ? POLLIN : 0;
      if (!connection->out.empty()) events |= POLLOUT;
      fds.push_back(pollfd{connection->fd, events, 0});
      polled.push_back(connection.get());
    }
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;

    if (fds[0].revents != 0) {
      uint64_t count = 0;
      [[maybe_unused]] ssize_t n = ::read(mailbox_->wakeFd, &count, sizeof count);
      std::vector<int> accepted;
      std::vector<uint64_t> journaled;
      {
        std::lock_guard lock(mailbox_->mutex);
        if (mailbox_->stopping) return;
        accepted.swap(mailbox_->accepted);
        journaled.swap(mailbox_->journaled);
      }
      for (int fd : accepted) {
        const uint64_t id = nextId_++;
        connections_.emplace(id, std::make_unique<Connection>(id, fd));
      }
      for (uint64_t id : journaled) {
        auto it = connections_.find(id);
        if (it == connections_.end()) continue;  // the rank hung up first
        Connection& connection = *it->second;
        v1::RankFrame frame;
        frame.mutable_accepted()->set_accepted(connection.intake ? connection.intake->accepted() : 0);
        send(connection, answer(frame));
        connection.endAfterWriting = true;
      }
    }

    for (size_t i = 0; i < polled.size(); ++i) {
      Connection& connection = *polled[i];
      const short revents = fds[i + 1].revents;
      if (revents & POLLOUT) flush(connection);
      if (revents & (POLLIN | POLLHUP | POLLERR)) readFrom(connection);
    }
    for (auto it = connections_.begin(); it != connections_.end();) {
      Connection& connection = *it->second;
      const bool done = connection.endAfterWriting && connection.out.empty();
      it = done ? connections_.erase(it) : std::next(it);
    }
  }
}

void RankSocket::readFrom(Connection& connection) {
  if (!connection.reading) {
    // Not polled for input: a hang-up or an error. The rank is gone, and so is the use of answering it.
    connection.out.clear();
    connection.endAfterWriting = true;
    return;
  }
  char buffer[kReadChunk];
  for (;;) {
    const ssize_t n = ::recv(connection.fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) {  // the rank ended (or broke) without a bye: what it sent is kept
      connection.reading = false;
      connection.out.clear();
      connection.endAfterWriting = true;
      return;
    }
    connection.reader.feed(std::string_view(buffer, static_cast<size_t>(n)));
    if (static_cast<size_t>(n) < sizeof buffer) break;
  }
  while (connection.reading) {
    std::optional<v1::RankFrame> frame = connection.reader.next();
    if (!frame) {
      if (!connection.reader.error().empty()) {
        send(connection,
             refusal("the agent cannot read this rank's telemetry: " + connection.reader.error()));
        connection.reading = false;
        connection.endAfterWriting = true;
      }
      return;
    }
    if (!handle(connection, *frame)) {
      connection.reading = false;
      connection.endAfterWriting = true;
    }
  }
}

bool RankSocket::handle(Connection& connection, v1::RankFrame& frame) {
  if (!connection.intake) {
    if (frame.body_case() != v1::RankFrame::kHello) {
      send(connection, refusal("a rank's first frame is its hello"));
      return false;
    }
    const v1::RankHello& hello = frame.hello();
    // A process the program started itself (mp.spawn) presents the secret of the rank it descends from.
    const bool own = hello.launched_rank() != hello.rank();
    Job* job = nullptr;
    grpc::Status status =
        agent_.reportTarget(hello.job_id(), own ? hello.launched_rank() : hello.rank(), hello.secret(), job);
    if (!status.ok()) {
      send(connection, refusal(status.error_message()));
      return false;
    }
    if (own) {
      const std::string why =
          job->adoptRank(hello.launched_rank(), hello.rank(), hello.world_size(), hello.pid(), hello.host());
      if (!why.empty()) {
        job->journal().append(std::vector<v1::Record>{job->agentLine(hello.launched_rank(), why)});
        send(connection, refusal(why));
        return false;
      }
    }
    connection.intake.emplace(*job, hello.rank());
    v1::RankFrame welcome;
    welcome.mutable_welcome();
    send(connection, answer(welcome));
    return true;
  }
  switch (frame.body_case()) {
    case v1::RankFrame::kBatch: {
      if (static_cast<size_t>(frame.batch().records_size()) > kMaxRecordsPerReport) {
        send(connection, refusal("a batch carries at most " + std::to_string(kMaxRecordsPerReport) +
                                 " records, this one " + std::to_string(frame.batch().records_size())));
        return false;
      }
      connection.intake->take(std::move(*frame.mutable_batch()));
      return true;
    }
    case v1::RankFrame::kPoll: {
      v1::RankFrame reply;
      *reply.mutable_control() = connection.intake->job().takeControl(connection.intake->rank());
      send(connection, answer(reply));
      return true;
    }
    case v1::RankFrame::kBye: {
      // Answered once everything the rank sent is on disk (the loop is woken for it).
      connection.reading = false;
      connection.intake->job().journal().notifyWhen(connection.intake->lastSeq(),
                                                    [mailbox = mailbox_, id = connection.id] {
                                                      {
                                                        std::lock_guard lock(mailbox->mutex);
                                                        mailbox->journaled.push_back(id);
                                                      }
                                                      mailbox->wake();
                                                    });
      return true;
    }
    default:
      send(connection, refusal("frame " + std::to_string(frame.body_case()) + " is not one a rank sends"));
      return false;
  }
}

void RankSocket::send(Connection& connection, const std::string& bytes) {
  if (connection.out.size() + bytes.size() > kMaxUnwritten) {
    connection.reading = false;
    connection.out.clear();
    connection.endAfterWriting = true;
    return;
  }
  connection.out += bytes;
  flush(connection);
}

void RankSocket::flush(Connection& connection) {
  while (!connection.out.empty()) {
    const ssize_t n =
        ::send(connection.fd, connection.out.data(), connection.out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) {  // the rank is gone
      connection.out.clear();
      connection.reading = false;
      connection.endAfterWriting = true;
      return;
    }
    connection.out.erase(0, static_cast<size_t>(n));
  }
}

}  // namespace ringmaster::agent
