// SPDX-License-Identifier: GPL-3.0-or-later
// Reading the small files users name on the command line (tokens, certificates, host files): only regular
// files, only up to a size that such a file never reaches, so that `--token-file /dev/zero` or a FIFO is a
// clear error instead of a read that never ends.
#pragma once

#include <cstddef>
#include <string>

namespace ringmaster {

constexpr size_t kSmallFileLimit = size_t{1}
                                   << 20;  // 1 MiB: far above any token, certificate chain or host file

// The whole file. Throws InputError naming `what` and `path` when the file is missing, unreadable, not a
// regular file (a FIFO, a device, a folder) or larger than `limit` bytes.
std::string readSmallFile(const std::string& path, const std::string& what, size_t limit = kSmallFileLimit);

}  // namespace ringmaster
