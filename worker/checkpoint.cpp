// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "worker/torch_error.h"

namespace ringmaster::worker {
namespace {

namespace fs = std::filesystem;

int64_t readInt(torch::serialize::InputArchive& archive, const std::string& key) {
  c10::IValue value;
  archive.read(key, value);
  return value.toInt();
}

// Rank 0's bytes on every rank. A negative length carries "rank 0 could not read it".
std::string broadcastBytes(std::string bytes, bool ok, c10d::ProcessGroup& group) {
  if (group.getSize() == 1) return bytes;
  std::vector<torch::Tensor> length = {
      torch::tensor({ok ? static_cast<int64_t>(bytes.size()) : int64_t{-1}})};
  group.broadcast(length)->wait();
  int64_t size = length[0].item<int64_t>();
  if (size < 0) return {};
  std::vector<torch::Tensor> payload = {torch::empty({size}, torch::kUInt8)};
  if (group.getRank() == 0) std::memcpy(payload[0].data_ptr(), bytes.data(), bytes.size());
  group.broadcast(payload)->wait();
  return std::string(static_cast<const char*>(payload[0].data_ptr()), static_cast<size_t>(size));
}

}  // namespace

std::string checkpointPath(const std::string& dir) {
  return (fs::path(dir) / "checkpoint.pt").string();
}

void saveCheckpoint(const AllowedFolders& folders, const std::string& dir, const std::string& modelName,
                    const torch::nn::Module& model, const torch::optim::Optimizer& optimizer,
                    const TrainingPosition& position) {
  // Everything below goes through this descriptor: the folder as opened now, beneath an allowed one.
  FileDescriptor folder = folders.makeFolders(dir);

  torch::serialize::OutputArchive archive;
  archive.write("model_name", c10::IValue(modelName));
  archive.write("step", c10::IValue(static_cast<int64_t>(position.step)));
  archive.write("epoch", c10::IValue(static_cast<int64_t>(position.epoch)));
  archive.write("step_in_epoch", c10::IValue(static_cast<int64_t>(position.stepInEpoch)));
  torch::serialize::OutputArchive modelArchive;
  model.save(modelArchive);
  archive.write("model", modelArchive);
  torch::serialize::OutputArchive optimizerArchive;
  optimizer.save(optimizerArchive);
  archive.write("optimizer", optimizerArchive);

  const std::string path = checkpointPath(dir);
  const std::string name = fs::path(path).filename().string();
  const std::string temporaryName = name + ".tmp-" + std::to_string(::getpid());
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  ::unlinkat(folder.get(), temporaryName.c_str(), 0);  // left by a rank of this pid that died writing
  FileDescriptor file(::openat(folder.get(), temporaryName.c_str(),
                               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!file) throw InputError(temporary + ": cannot write the checkpoint: " + std::strerror(errno));
  int writeError = 0;
  try {
    archive.save_to([&](const void* data, size_t size) -> size_t {
      for (size_t done = 0; done < size;) {
        const ssize_t n = ::write(file.get(), static_cast<const char*>(data) + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          writeError = n < 0 ? errno : ENOSPC;
          return done;
        }
        done += static_cast<size_t>(n);
      }
      return size;
    });
    if (writeError == 0 && ::fsync(file.get()) != 0) writeError = errno;
  } catch (const std::exception& e) {
    ::unlinkat(folder.get(), temporaryName.c_str(), 0);
    throw InputError(temporary + ": cannot write the checkpoint: " +
                     (writeError ? std::strerror(writeError) : torchErrorReason(e)));
  }
  if (writeError != 0) {
    ::unlinkat(folder.get(), temporaryName.c_str(), 0);
    throw InputError(temporary + ": cannot write the checkpoint: " + std::strerror(writeError));
  }
  if (::renameat(folder.get(), temporaryName.c_str(), folder.get(), name.c_str()) != 0) {
    const int renameError = errno;
    ::unlinkat(folder.get(), temporaryName.c_str(), 0);
    throw InputError(path + ": cannot replace the checkpoint: " + std::strerror(renameError));
  }
  ::fsync(folder.get());
}

std::optional<TrainingPosition> restoreCheckpoint(const AllowedFolders& folders, const std::string& dir,
                                                  const std::string& modelName, torch::nn::Module& model,
                                                  torch::optim::Optimizer& optimizer,
                                                  c10d::ProcessGroup& group) {
  const std::string path = checkpointPath(dir);
  std::string bytes;
  bool ok = true;
  if (group.getRank() == 0) {
    FileDescriptor file = folders.open(path, O_RDONLY);
    ok = static_cast<bool>(file);
    char buffer[1 << 16];
    for (ssize_t n; ok && (n = ::read(file.get(), buffer, sizeof buffer)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(path + ": cannot read the checkpoint: " + std::strerror(errno));
      bytes.append(buffer, static_cast<size_t>(n));
    }
  }
  bytes = broadcastBytes(std::move(bytes), ok, group);
  if (!ok || (group.getRank() != 0 && bytes.empty())) return std::nullopt;

  TrainingPosition position;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(bytes.data(), bytes.size());
    c10::IValue name;
    archive.read("model_name", name);
    if (name.toStringRef() != modelName) {
      throw InputError(path + ": the checkpoint holds model " + name.toStringRef() + ", not " + modelName);
    }
    position.step = static_cast<uint64_t>(readInt(archive, "step"));
    position.epoch = static_cast<uint32_t>(readInt(archive, "epoch"));
    position.stepInEpoch = static_cast<uint64_t>(readInt(archive, "step_in_epoch"));
    torch::serialize::InputArchive modelArchive;
    archive.read("model", modelArchive);
    model.load(modelArchive);
    torch::serialize::InputArchive optimizerArchive;
    archive.read("optimizer", optimizerArchive);
    optimizer.load(optimizerArchive);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(path + ": not a usable checkpoint: " + torchErrorReason(e));
  }
  return position;
}

std::vector<float> flatParameters(const torch::nn::Module& model) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "parameter dumps are little-endian float32");
  std::vector<float> values;
  for (const auto& parameter : model.parameters()) {
    torch::Tensor flat = parameter.detach().to(torch::kCPU, torch::kFloat).contiguous();
    const float* data = flat.data_ptr<float>();
    values.insert(values.end(), data, data + flat.numel());
  }
  return values;
}

std::string parameterChecksum(const torch::nn::Module& model) {
  std::vector<float> values = flatParameters(model);
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  uint64_t hash = 14695981039346656037ull;
  for (size_t i = 0; i < values.size() * sizeof(float); ++i) {
    hash ^= bytes[i];
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

void dumpParameters(const torch::nn::Module& model, const std::string& path) {
  std::vector<float> values = flatParameters(model);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(float)));
  out.close();
  if (!out) throw InputError(path + ": cannot write the parameters (--dump-params)");
}

}  // namespace ringmaster::worker
