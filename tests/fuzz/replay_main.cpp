// SPDX-License-Identifier: GPL-3.0-or-later
// Where the compiler has no libFuzzer, a fuzz target is built with this main(): it runs the target once on
// each file named, or on each file in each folder named (the seed corpus), and fails when it cannot read one.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool runOn(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", file.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path = argv[i];
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (!entry.is_regular_file()) continue;
        if (!runOn(entry.path())) return 1;
        ++inputs;
      }
    } else {
      if (!runOn(path)) return 1;
      ++inputs;
    }
  }
  if (inputs == 0) {
    std::fprintf(stderr, "usage: %s FILE_OR_FOLDER...: no inputs were given\n", argv[0]);
    return 1;
  }
  std::printf("%zu inputs ran\n", inputs);
  return 0;
}
