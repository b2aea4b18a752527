// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/rendezvous.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <sstream>
#include <thread>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "common/error.h"
#include "worker/nccl_process_group.h"

namespace ringmaster::worker {
namespace {

std::vector<uint8_t> bytesOf(const std::string& text) {
  return {text.begin(), text.end()};
}
std::string textOf(const std::vector<uint8_t>& bytes) {
  return {bytes.begin(), bytes.end()};
}

std::string arrivalKey(int rank) {
  return "rendezvous/arrived/" + std::to_string(rank);
}

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

// The address this host would use to reach `host`: a connected UDP socket sends nothing but gets a route.
std::string localAddressTowards(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found) return {};
  std::string address;
  for (addrinfo* ai = found; ai && address.empty(); ai = ai->ai_next) {
    int fd = socket(ai->ai_family, SOCK_DGRAM, 0);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
      char text[INET6_ADDRSTRLEN] = {};
      const void* raw = local.ss_family == AF_INET
                            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr)
                            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr);
      if (inet_ntop(local.ss_family, raw, text, sizeof text)) address = text;
    }
    close(fd);
  }
  freeaddrinfo(found);
  return address;
}

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

}  // namespace

std::string formatSeconds(std::chrono::milliseconds duration) {
  std::ostringstream text;
  text << static_cast<double>(duration.count()) / 1000.0;
  return text.str();
}

std::string joinRanks(const std::vector<int>& ranks) {
  std::string text;
  for (int r : ranks) text += (text.empty() ? "" : ", ") + std::to_string(r);
  return text;
}

Rendezvous::Rendezvous(const TorchrunEnv& env, std::chrono::milliseconds timeout, Probe& probe) : env_(env) {
  c10d::TCPStoreOptions options;
  options.port = env.masterPort;
  options.isServer = env.rank == 0;
  options.waitWorkers = false;  // our roll-call below waits, and says who is missing
  options.timeout = timeout;
  const std::string where = env.masterAddr + ":" + std::to_string(env.masterPort);
  try {
    store_ = c10::make_intrusive<c10d::TCPStore>(env.masterAddr, options);
  } catch (const std::exception& e) {
    if (env.rank == 0) {
      throw RendezvousError("rank 0 cannot serve the rendezvous store on port " +
                            std::to_string(env.masterPort) + " (MASTER_PORT): " + e.what());
    }
    throw RendezvousError("rank 0 never arrived: no rendezvous store answered at " + where +
                          " (MASTER_ADDR:MASTER_PORT) within " + formatSeconds(timeout) + " s");
  }
  rollCall(timeout);
  synchroniseClocks();
  probe.clock().calibrate(clock_.offsetNs, clock_.epochNs);
}

// Every rank sets its arrival key and polls for the others'. When the deadline passes, rank 0 (which serves
// the store) writes the verdict naming the ranks that never arrived and keeps serving a moment so that every
// rank that did arrive reads the same verdict before all of them exit.
void Rendezvous::rollCall(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const std::string verdictKey = "rendezvous/verdict";
  const std::string verdictReadKey = "rendezvous/verdict-read";
  store_->set(arrivalKey(env_.rank), bytesOf(hostName()));
  std::vector<std::string> keys;
  for (int r = 0; r < env_.worldSize; ++r) keys.push_back(arrivalKey(r));

  std::vector<int> missing;
  auto findMissing = [&] {
    missing.clear();
    for (int r = 0; r < env_.worldSize; ++r) {
      if (!store_->check({keys[r]})) missing.push_back(r);
    }
  };
  try {
    while (!store_->check(keys)) {
      if (store_->check({verdictKey})) {
        std::string verdict = textOf(store_->get(verdictKey));
        store_->add(verdictReadKey, 1);
        throw RendezvousError(verdict);
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        findMissing();
        if (missing.empty()) break;  // the last one arrived just now
        const std::string verdict = "rendezvous timed out after " + formatSeconds(timeout) + " s: rank" +
                                    (missing.size() > 1 ? "s " : " ") + joinRanks(missing) +
                                    " of WORLD_SIZE=" + std::to_string(env_.worldSize) + " never arrived";
        if (env_.rank == 0) {
          store_->set(verdictKey, bytesOf(verdict));
          const int64_t readers = env_.worldSize - static_cast<int64_t>(missing.size()) - 1;
          const auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          while (store_->add(verdictReadKey, 0) < readers && std::chrono::steady_clock::now() < grace) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
        } else {
          store_->add(verdictReadKey, 1);  // rank 0 need not wait for this rank any longer
        }
        throw RendezvousError(verdict);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      findMissing();
    }
  } catch (const RendezvousError&) {
    throw;
  } catch (const std::exception& e) {
    std::string known = missing.empty() ? "" : " (still missing: ranks " + joinRanks(missing) + ")";
    throw RendezvousError("lost the rendezvous store at " + env_.masterAddr + ":" +
                          std::to_string(env_.masterPort) + " while waiting for the other ranks" + known +
                          ": " + e.what());
  }
}

void Rendezvous::synchroniseClocks() {
  ClockSyncStore store;
  store.set = [this](const std::string& key, const std::string& value) { store_->set(key, bytesOf(value)); };
  store.get = [this](const std::string& key) { return textOf(store_->get(key)); };
  clock_ = worker::synchroniseClocks(env_.rank, env_.worldSize, store);
}

c10::intrusive_ptr<c10d::ProcessGroup> Rendezvous::createProcessGroup(v1::Backend backend) {
  if (backend == v1::BACKEND_NCCL) {
    if (!ncclBackendBuilt()) {
      throw InputError(
          "--backend nccl: this ringmaster-worker was built without NCCL (backends: gloo); use "
          "--backend gloo or a build with CUDA and NCCL");
    }
    try {
      return makeNcclProcessGroup(c10::make_intrusive<c10d::PrefixStore>("nccl", store_), env_.rank,
                                  env_.worldSize, env_.localRank);
    } catch (const std::exception& e) {
      throw RendezvousError(std::string("cannot start the NCCL process group: ") + e.what());
    }
  }
  auto options = c10d::ProcessGroupGloo::Options::create();
  if (const char* names = std::getenv("GLOO_SOCKET_IFNAME"); names && *names) {
    for (const auto& name : splitCommas(names)) {
      try {
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
      } catch (const std::exception& e) {
        throw InputError("GLOO_SOCKET_IFNAME: cannot use network interface '" + name + "': " + e.what());
      }
    }
  } else {
    std::string local = localAddressTowards(env_.masterAddr, env_.masterPort);
    options->devices.push_back(local.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                                             : c10d::ProcessGroupGloo::createDeviceForHostname(local));
  }
  try {
    return c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::PrefixStore>("gloo", store_),
                                                       env_.rank, env_.worldSize, options);
  } catch (const std::exception& e) {
    throw RendezvousError(std::string("cannot connect the Gloo process group: ") + e.what());
  }
}

void Rendezvous::finish() {
  if (finished_) return;
  finished_ = true;
  try {
    store_->add("rendezvous/finished", 1);
    if (env_.rank != 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (store_->add("rendezvous/finished", 0) < env_.worldSize &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  } catch (const std::exception&) {
    // The others are gone already; nothing is left to serve.
  }
}

Rendezvous::~Rendezvous() = default;

}  // namespace ringmaster::worker
