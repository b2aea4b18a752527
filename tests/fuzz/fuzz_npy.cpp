// SPDX-License-Identifier: GPL-3.0-or-later
// NumPy .npy files (common/npy_array.h): any bytes as a header, and as a data file mapped into memory, whose
// values must lie inside the mapping where the header says.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/npy_array.h"
#include "memory_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ringmaster::fuzz::MemoryFile file;
  try {
    const ringmaster::NpyHeader header =
        ringmaster::parseNpyHeader(std::string_view(reinterpret_cast<const char*>(data), size), "data.npy");
    if (header.dataOffset + header.dataBytes != size) std::abort();  // the values fill the rest of the file
  } catch (const ringmaster::InputError&) {
  }
  try {
    const ringmaster::NpyArray array(file.hold(data, size));
    const auto* values = static_cast<const volatile uint8_t*>(array.data());
    const size_t bytes = array.header().dataBytes;
    if (bytes > 0) {  // a value outside the mapping would fault here
      (void)values[0];
      (void)values[bytes - 1];
    }
  } catch (const ringmaster::InputError&) {
  }
  return 0;
}
