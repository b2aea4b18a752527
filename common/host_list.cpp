// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/host_list.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include "common/error.h"
#include "common/small_file.h"

namespace ringmaster {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Host names start with a letter or digit (RFC 1123): "-x" or ".x" is a typo or a stray flag, not a host.
bool validHostName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  if (!std::isalnum(static_cast<unsigned char>(host.front()))) return false;
  return std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
  });
}

int parseSlots(std::string_view text, std::string_view context) {
  int value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 1 || value > 4096) {
    throw InputError(std::string(context) + ": slots must be a whole number from 1 to 4096, got '" +
                     std::string(text) + "'");
  }
  return value;
}

void checkHost(std::string_view host, std::string_view context) {
  if (!validHostName(host)) {
    throw InputError(
        std::string(context) + ": '" + std::string(host) +
        "' is not a host name or IPv4 address (letters, digits, '-', '.', '_', starting with a letter or "
        "digit)");
  }
}

}  // namespace

std::vector<HostSlots> parseHostList(std::string_view text) {
  std::vector<HostSlots> hosts;
  text = trim(text);
  if (text.empty()) throw InputError("host list is empty; write it as host1:4,host2:4");
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view entry = trim(text.substr(pos, comma - pos));
    std::string context = "host list entry '" + std::string(entry) + "'";
    if (entry.empty()) {
      throw InputError("host list '" + std::string(text) +
                       "' has an empty entry; write it as host1:4,host2:4");
    }
    HostSlots h;
    size_t colon = entry.rfind(':');
    if (colon == std::string_view::npos) {
      h.host = std::string(entry);
    } else {
      h.host = std::string(trim(entry.substr(0, colon)));
      h.slots = parseSlots(trim(entry.substr(colon + 1)), context);
    }
    checkHost(h.host, context);
    hosts.push_back(h);
    pos = comma + 1;
  }
  return hosts;
}

std::vector<HostSlots> parseHostfile(std::string_view text, std::string_view source) {
  std::vector<HostSlots> hosts;
  std::istringstream in{std::string(text)};
  std::string raw;
  int lineNo = 0;
  while (std::getline(in, raw)) {
    ++lineNo;
    std::string_view line = raw;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    std::string context = std::string(source) + ":" + std::to_string(lineNo);
    std::istringstream words{std::string(line)};
    HostSlots h;
    words >> h.host;
    checkHost(h.host, context);
    std::string word;
    while (words >> word) {
      if (word.rfind("slots=", 0) == 0) {
        h.slots = parseSlots(word.substr(6), context);
      } else if (word.rfind("max_slots=", 0) == 0) {
        parseSlots(word.substr(10), context);  // accepted for compatibility with Open MPI hostfiles
      } else {
        throw InputError(context + ": unknown word '" + word + "'; write lines as 'host slots=N'");
      }
    }
    hosts.push_back(h);
  }
  if (hosts.empty()) throw InputError(std::string(source) + ": no hosts; write one 'host slots=N' per line");
  return hosts;
}

std::vector<HostSlots> readHostfile(const std::string& path) {
  return parseHostfile(readSmallFile(path, "hostfile"), path);
}

int totalSlots(const std::vector<HostSlots>& hosts) {
  int total = 0;
  for (const auto& h : hosts) total += h.slots;
  return total;
}

std::vector<RankRange> assignRanks(const std::vector<HostSlots>& hosts, int worldSize) {
  if (worldSize < 1) throw InputError("-np must be at least 1, got " + std::to_string(worldSize));
  int available = totalSlots(hosts);
  if (available < worldSize) {
    throw InputError("-np " + std::to_string(worldSize) + " needs " + std::to_string(worldSize) +
                     " slots but the hosts offer " + std::to_string(available) +
                     "; add hosts or slots, or lower -np");
  }
  std::vector<RankRange> ranges;
  int next = 0;
  for (const auto& h : hosts) {
    if (next == worldSize) break;
    int take = std::min(h.slots, worldSize - next);
    ranges.push_back({h.host, next, take});
    next += take;
  }
  return ranges;
}

}  // namespace ringmaster
