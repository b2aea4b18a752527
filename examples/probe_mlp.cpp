// SPDX-License-Identifier: GPL-3.0-or-later
// A data-parallel LibTorch training program of its own: an MLP learns a fixed linear teacher's classes on
// synthetic data, each rank on its own samples; the ranks average their gradients with their own c10d Gloo
// process group. Ringmaster::probe reports every step's phases, the all-reduce, memory and the loss.
//
//   ringmaster run -np 2 -- ./probe_mlp --steps 100
//
// Without `ringmaster run` (or torchrun) it trains alone, and the probe does nothing.
#include <ringmaster/probe.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <vector>

namespace {

constexpr int64_t kFeatures = 64;
constexpr int64_t kClasses = 10;

struct Options {
  int steps = 50;
  int batch = 64;
  double lr = 0.05;
};

int intArgument(const std::string& flag, const char* text) {
  try {
    size_t used = 0;
    int value = std::stoi(text, &used);
    if (used == std::string(text).size() && value > 0) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(flag + " takes a positive integer, not '" + text + "'");
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument("unknown flag or missing value: " + flag);
    if (flag == "--steps") {
      options.steps = intArgument(flag, argv[++i]);
    } else if (flag == "--batch") {
      options.batch = intArgument(flag, argv[++i]);
    } else {
      throw std::invalid_argument("unknown flag " + flag + " (flags: --steps N, --batch N)");
    }
  }
  return options;
}

int envInt(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    throw std::invalid_argument(std::string("environment variable ") + name + "='" + text +
                                "' is not an integer (torchrun and `ringmaster run` set it)");
  }
}

// The ranks' process group, from the environment torchrun and `ringmaster run` set; none when alone.
struct Group {
  int rank = envInt("RANK", 0);
  int worldSize = envInt("WORLD_SIZE", 1);
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;

  Group() {
    if (worldSize == 1) return;
    const char* addr = std::getenv("MASTER_ADDR");
    const std::string host = addr && *addr ? addr : "127.0.0.1";
    c10d::TCPStoreOptions storeOptions;
    storeOptions.port = static_cast<uint16_t>(envInt("MASTER_PORT", 29500));
    storeOptions.isServer = rank == 0;
    storeOptions.numWorkers = worldSize;
    storeOptions.timeout = std::chrono::seconds(60);
    store = c10::make_intrusive<c10d::TCPStore>(host, storeOptions);
    auto options = c10d::ProcessGroupGloo::Options::create();
    const bool loopback = host == "127.0.0.1" || host == "localhost";
    options->devices.push_back(loopback ? c10d::ProcessGroupGloo::createDeviceForHostname(host)
                                        : c10d::ProcessGroupGloo::createDefaultDevice());
    gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, worldSize, options);
  }

  ringmaster::ClockStore clockStore() const {
    ringmaster::ClockStore clock;
    clock.set = [this](const std::string& key, const std::string& value) {
      store->set(key, std::vector<uint8_t>(value.begin(), value.end()));
    };
    clock.get = [this](const std::string& key) {
      auto bytes = store->get(key);
      return std::string(bytes.begin(), bytes.end());
    };
    return clock;
  }
};

void train(const Options& options) {
  ringmaster::Probe probe;
  Group group;
  if (group.gloo) probe.alignClock(group.clockStore());

  torch::manual_seed(0);  // every rank starts from the same weights
  torch::nn::Sequential model(torch::nn::Linear(kFeatures, 256), torch::nn::ReLU(),
                              torch::nn::Linear(256, 256), torch::nn::ReLU(),
                              torch::nn::Linear(256, kClasses));
  const torch::Tensor teacher = torch::randn({kFeatures, kClasses});
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(options.lr).momentum(0.9));
  auto generator = at::detail::createCPUGenerator(1000 + group.rank);  // each rank its own samples

  double loss = 0.0;
  int step = 0;
  for (; step < options.steps && !probe.stopRequested(); ++step) {
    ringmaster::Step measured(probe, static_cast<uint32_t>(options.batch));
    torch::Tensor inputs = torch::randn({options.batch, kFeatures}, generator);
    torch::Tensor labels = inputs.matmul(teacher).argmax(1);

    measured.phase(ringmaster::Phase::Forward);
    optimizer.zero_grad();
    torch::Tensor output = torch::nn::functional::cross_entropy(model->forward(inputs), labels);

    measured.phase(ringmaster::Phase::Backward);
    output.backward();

    if (group.gloo) {
      measured.phase(ringmaster::Phase::CommWait);
      std::vector<torch::Tensor> grads;
      for (const auto& p : model->parameters()) grads.push_back(p.grad().flatten());
      std::vector<torch::Tensor> flat{torch::cat(grads)};
      const int64_t start = probe.now();
      group.gloo->allreduce(flat)->wait();
      probe.allreduce(flat[0].numel() * flat[0].element_size(), start, probe.now(), 0,
                      static_cast<uint32_t>(grads.size()));
      flat[0].div_(group.worldSize);
      int64_t offset = 0;
      for (auto& p : model->parameters()) {
        p.mutable_grad().copy_(flat[0].narrow(0, offset, p.numel()).view_as(p));
        offset += p.numel();
      }
    }

    measured.phase(ringmaster::Phase::Optimizer);
    optimizer.step();
    loss = output.item<double>();
    probe.log("loss", loss);
  }
  if (group.gloo) group.gloo->barrier()->wait();  // no rank leaves while another still needs rank 0's store
  std::cout << "rank " << group.rank << ": trained " << step << " steps, final loss " << loss << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "probe_mlp: " << e.what() << "\n";
    return 2;
  }
  try {
    train(options);
  } catch (const std::exception& e) {  // a rank or the store that never came, a malformed RANK, ...
    std::cerr << "probe_mlp: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
