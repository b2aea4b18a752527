// SPDX-License-Identifier: GPL-3.0-or-later
// One simulated rank of bench/many_ranks: a small program a host's agent starts as a user's program would be
// started (RINGMASTER_TELEMETRY_SOCKET, RINGMASTER_JOB_ID, RINGMASTER_JOB_SECRET, RANK, WORLD_SIZE), which
// speaks the rank socket's protocol (common/rank_frames.h) as the ringmaster Python package does: its hello,
// then a batch of records each step, a heartbeat each second, its telemetry health every two seconds, a
// control poll twice a second, and its bye at the end.
//
// It trains nothing; its records say what a data-parallel rank's would. Every rank runs the same schedule of
// steps (--steps at --rate a second, from --start-at on the monotonic clock, which its step times are on):
// a step lasts as long as its slowest rank's own work (data, forward, backward) plus the all-reduce and the
// optimizer, and each rank's own work jitters by ±2 % around the same base. A straggler (--straggler
// RANK:PCT:FROM) does PCT % more forward and backward work from step FROM, which every rank's step then waits
// for; a leaking rank (--leak RANK:MIB:FROM) grows by MIB MiB a step from step FROM.
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "common/rank_frames.h"

namespace v1 = ringmaster::v1;

namespace {

struct Injection {
  int rank = -1;
  double amount = 0;  // straggler: percent more work; leak: MiB a step
  int64_t from = 0;   // first step affected
};

struct Options {
  int64_t steps = 600;
  double rate = 10;     // steps a second when nothing is slow
  int64_t startAt = 0;  // monotonic ns of step 0's start; 0: now
  Injection straggler;
  Injection leak;
};

int64_t monotonicNs() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

void sleepUntil(int64_t ns) {
  timespec t{ns / 1'000'000'000, ns % 1'000'000'000};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr) == EINTR) {
  }
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "many_ranks_rank: %s\n", why.c_str());
  std::exit(2);
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr)
    fail(std::string(name) + " is not set: start this program through a Ringmaster agent");
  return value;
}

int64_t number(std::string_view text, const char* what) {
  char* end = nullptr;
  const std::string s(text);
  const long long value = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0') fail(std::string(what) + " takes a whole number, not '" + s + "'");
  return value;
}

// "RANK:AMOUNT:FROM".
Injection injection(std::string_view text, const char* what) {
  const size_t a = text.find(':');
  const size_t b = a == std::string_view::npos ? a : text.find(':', a + 1);
  if (b == std::string_view::npos)
    fail(std::string(what) + " takes RANK:AMOUNT:FROM, not '" + std::string(text) + "'");
  Injection out;
  out.rank = int(number(text.substr(0, a), what));
  out.amount = std::atof(std::string(text.substr(a + 1, b - a - 1)).c_str());
  out.from = number(text.substr(b + 1), what);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) fail("flag " + std::string(flag) + " needs a value");
    const std::string_view value = argv[++i];
    if (flag == "--steps") {
      o.steps = number(value, "--steps");
    } else if (flag == "--rate") {
      o.rate = std::atof(std::string(value).c_str());
    } else if (flag == "--start-at") {
      o.startAt = number(value, "--start-at");
    } else if (flag == "--straggler") {
      o.straggler = injection(value, "--straggler");
    } else if (flag == "--leak") {
      o.leak = injection(value, "--leak");
    } else {
      fail("unknown flag " + std::string(flag));
    }
  }
  if (o.steps < 1 || !(o.rate > 0 && o.rate <= 1000))
    fail("--steps must be at least 1 and --rate from 0 to 1000");
  return o;
}

// A uniform number in [0, 1) that depends on (a, b) alone: every rank computes any rank's jitter alike.
double uniform(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E5Full);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return double(x >> 11) * 0x1.0p-53;
}

// The schedule every rank shares: what each part of a step takes, in ns.
struct Schedule {
  explicit Schedule(const Options& o) : options(o), period(1e9 / o.rate) {}

  const Options& options;
  double period;

  static constexpr double kJitter = 0.02;
  // Shares of a step's period: the slowest own work (base × (1 + kJitter)), the all-reduce, the optimizer.
  double ownBase() const { return 0.8 * period / (1 + kJitter); }
  double transfer() const { return 0.12 * period; }
  double optimizer() const { return 0.08 * period; }

  bool straggling(int64_t step) const {
    return options.straggler.rank >= 0 && step >= options.straggler.from;
  }
  // The extra forward and backward work of the straggler at `step` (ns).
  double stragglerExtra(int64_t step) const {
    return straggling(step) ? 0.9 * ownBase() * options.straggler.amount / 100 : 0;
  }
  // data, forward, backward of `rank` at `step`.
  void own(int rank, int64_t step, double& data, double& forward, double& backward) const {
    const double scale = 1 + kJitter * (2 * uniform(uint64_t(rank), uint64_t(step)) - 1);
    data = 0.1 * ownBase() * scale;
    forward = 0.35 * ownBase() * scale;
    backward = 0.55 * ownBase() * scale;
    if (rank == options.straggler.rank && straggling(step)) {
      const double extra = stragglerExtra(step);
      forward += extra * 0.35 / 0.9;
      backward += extra * 0.55 / 0.9;
    }
  }
  // The slowest rank's own work at `step`: every rank's all-reduce ends after it.
  double slowestOwn(int64_t step) const {
    return std::max(ownBase() * (1 + kJitter), ownBase() * (1 + kJitter * 0.5) + stragglerExtra(step));
  }
  double total(int64_t step) const { return slowestOwn(step) + transfer() + optimizer(); }
};

class Channel {
 public:
  explicit Channel(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (fd_ < 0 || path.size() >= sizeof address.sun_path) fail("cannot open a socket to " + path);
    std::memcpy(address.sun_path, path.data(), path.size());
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      fail("cannot reach the agent at " + path + ": " + std::strerror(errno));
    write(ringmaster::kRankSocketMagic);
  }
  ~Channel() { ::close(fd_); }

  void send(const v1::RankFrame& frame) { write(ringmaster::encodeRankFrame(frame)); }

  // The agent's next frame.
  v1::RankFrame receive() {
    for (;;) {
      if (auto frame = reader_.next()) return *frame;
      if (!reader_.error().empty()) fail("the agent's answer: " + reader_.error());
      char buffer[4096];
      const ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("the agent hung up");
      reader_.feed(std::string_view(buffer, size_t(n)));
    }
  }

 private:
  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("the agent hung up");
      bytes.remove_prefix(size_t(n));
    }
  }

  int fd_ = -1;
  // The agent's frames carry no magic of their own: the reader is primed with the one it expects.
  ringmaster::RankFrameReader reader_{""};
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const Schedule schedule(options);
  const int rank = int(number(environment("RANK"), "RANK"));
  const int worldSize = int(number(environment("WORLD_SIZE"), "WORLD_SIZE"));
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);

  Channel channel(environment("RINGMASTER_TELEMETRY_SOCKET"));
  v1::RankFrame frame;
  auto* hello = frame.mutable_hello();
  hello->set_job_id(environment("RINGMASTER_JOB_ID"));
  hello->set_rank(rank);
  hello->set_launched_rank(rank);
  hello->set_secret(environment("RINGMASTER_JOB_SECRET"));
  hello->set_world_size(worldSize);
  hello->set_pid(int(::getpid()));
  hello->set_host(host);
  channel.send(frame);
  if (v1::RankFrame answer = channel.receive(); !answer.has_welcome())
    fail("the agent refused this rank: " + answer.refused().reason());

  const uint64_t hostMemory = uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGE_SIZE));
  v1::RankFrame batch;
  auto* records = batch.mutable_batch()->mutable_records();
  auto* runtime = records->Add()->mutable_runtime();
  runtime->set_rank(rank);
  runtime->set_host(host);
  runtime->set_python("none: bench/many_ranks");
  runtime->set_backend("gloo");
  runtime->set_pid(int(::getpid()));

  const v1::RankFrame poll = [] {
    v1::RankFrame f;
    f.mutable_poll();
    return f;
  }();
  int64_t start = options.startAt > 0 ? options.startAt : monotonicNs();
  uint64_t sent = 0;
  int64_t nextHeartbeat = 0, nextHealth = 0, nextPoll = 0;
  for (int64_t step = 0; step < options.steps; ++step) {
    double data, forward, backward;
    schedule.own(rank, step, data, forward, backward);
    const double own = data + forward + backward;
    const double total = schedule.total(step);
    const int64_t end = start + int64_t(total);
    sleepUntil(end);

    auto* s = records->Add()->mutable_step();
    s->set_rank(rank);
    s->set_step(uint64_t(step));
    s->set_start_ns(start);
    s->set_data_ns(int64_t(data));
    s->set_forward_ns(int64_t(forward));
    s->set_backward_ns(int64_t(backward));
    s->set_comm_wait_ns(int64_t(schedule.slowestOwn(step) + schedule.transfer() - own));
    s->set_optimizer_ns(int64_t(schedule.optimizer()));
    s->set_total_ns(int64_t(total));
    s->set_samples(32);
    s->set_loss(0.3 + 2.0 * std::exp(-double(step) / 300) +
                0.05 * uniform(uint64_t(rank) + 7919, uint64_t(step)));
    s->set_lr(0.1);
    // Two buckets: the last layers' gradients go out halfway through backward, the first layers' at its end;
    // both are done once the slowest rank's are.
    const double reduced = schedule.slowestOwn(step) + schedule.transfer();
    const double issued[2] = {data + forward + 0.5 * backward, own};
    const uint64_t bytes[2] = {24u << 20, 20u << 20};
    for (int bucket = 0; bucket < 2; ++bucket) {
      auto* op = records->Add()->mutable_allreduce();
      const double latency = reduced - (bucket == 0 ? 0.5 * schedule.transfer() : 0) - issued[bucket];
      op->set_rank(rank);
      op->set_step(uint64_t(step));
      op->set_bucket(uint32_t(bucket));
      op->set_bytes(bytes[bucket]);
      op->set_start_ns(start + int64_t(issued[bucket]));
      op->set_end_ns(start + int64_t(issued[bucket] + latency));
      op->set_latency_us(latency / 1e3);
      op->set_algbw_gbps(double(bytes[bucket]) / latency);
      op->set_busbw_gbps(op->algbw_gbps() * 2 * (worldSize - 1) / worldSize);
      op->set_tensors(bucket == 0 ? 30 : 32);
    }
    auto* m = records->Add()->mutable_memory();
    const bool leaking = rank == options.leak.rank && step >= options.leak.from;
    const uint64_t leaked =
        leaking ? uint64_t(double(step - options.leak.from + 1) * options.leak.amount * 1048576) : 0;
    m->set_rank(rank);
    m->set_step(uint64_t(step));
    m->set_time_ns(end);
    m->set_rss_bytes((1200ull << 20) + (uint64_t(uniform(uint64_t(rank), 99) * 64) << 20) + leaked);
    m->set_heap_bytes((700ull << 20) + leaked);
    m->set_host_total_bytes(hostMemory);

    const int64_t now = monotonicNs();
    if (now >= nextHeartbeat) {
      auto* h = records->Add()->mutable_heartbeat();
      h->set_rank(rank);
      h->set_last_step(step);
      h->set_phase("data");
      h->set_phase_since_ns(end);
      h->set_time_ns(now);
      nextHeartbeat = now + 1'000'000'000;
    }
    if (now >= nextHealth) {
      auto* health = records->Add()->mutable_health();
      health->set_rank(rank);
      health->set_records_sent(sent + uint64_t(records->size()));
      nextHealth = now + 2'000'000'000;
    }
    sent += uint64_t(records->size());
    channel.send(batch);
    records->Clear();
    if (now >= nextPoll) {
      channel.send(poll);
      const v1::RankFrame control = channel.receive();
      if (control.control().stop()) return 0;
      nextPoll = now + 500'000'000;
    }
    start = end;
  }
  v1::RankFrame bye;
  bye.mutable_bye();
  channel.send(bye);
  channel.receive();  // accepted: every record is in the journal
  return 0;
}
