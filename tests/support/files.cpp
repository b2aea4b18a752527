// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/files.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ringmaster::test {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void writeFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    throw std::runtime_error("cannot write " + path + "; check that its folder exists and is writable");
  }
}

}  // namespace ringmaster::test
