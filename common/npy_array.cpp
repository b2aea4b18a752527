// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/npy_array.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>

#include "common/error.h"

namespace ringmaster {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// numpy itself refuses headers above 10 000 bytes unless told otherwise; anything far larger is not a header.
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;
constexpr const char* kHowToWrite = "write it with numpy.save";

uint32_t littleEndian(std::string_view bytes) {
  uint32_t value = 0;
  for (size_t i = bytes.size(); i-- > 0;) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (60000, 784), }.
// This reads exactly that grammar: string keys; string, True/False and tuple-of-integers values.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  struct Fields {
    std::optional<std::string> descr;
    std::optional<bool> fortranOrder;
    std::optional<std::vector<int64_t>> shape;
  };

  Fields parse() {
    Fields fields;
    expect('{');
    while (!peekIs('}')) {
      const std::string key = readString();
      expect(':');
      if (key == "descr") {
        fields.descr = readString();
      } else if (key == "fortran_order") {
        fields.fortranOrder = readBool();
      } else if (key == "shape") {
        fields.shape = readShape();
      } else {
        fail("unexpected header key '" + key + "'");
      }
      if (!peekIs('}')) expect(',');
    }
    expect('}');
    return fields;
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(path_ + ": malformed .npy header (" + problem + "); " + kHowToWrite);
  }

 private:
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool peekIs(char c) {
    skipSpace();
    if (pos_ >= text_.size()) fail("it ends early");
    return text_[pos_] == c;
  }
  void expect(char c) {
    if (!peekIs(c)) fail(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
    ++pos_;
  }
  std::string readString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      fail("expected a quoted string at offset " + std::to_string(pos_));
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) fail("a string is not closed");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  bool readBool() {
    skipSpace();
    for (auto [word, value] :
         {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    fail("fortran_order must be True or False");
  }
  std::vector<int64_t> readShape() {
    expect('(');
    std::vector<int64_t> shape;
    while (!peekIs(')')) {
      if (!std::isdigit(static_cast<unsigned char>(text_[pos_])))
        fail("shape must hold non-negative integers");
      uint64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        const uint64_t digit = static_cast<uint64_t>(text_[pos_++] - '0');
        if (value > (uint64_t{INT64_MAX} - digit) / 10) fail("a dimension of the shape is too large");
        value = value * 10 + digit;
      }
      shape.push_back(static_cast<int64_t>(value));
      if (!peekIs(')')) expect(',');
    }
    expect(')');
    return shape;
  }

  std::string_view text_;
  const std::string& path_;
  size_t pos_ = 0;
};

std::optional<NpyType> typeOf(const std::string& descr) {
  // '|' (no byte order) and '<' are what numpy writes on little-endian machines; '=' is native.
  if (descr.size() < 2 || (descr[0] != '<' && descr[0] != '|' && descr[0] != '=')) return std::nullopt;
  const std::string_view kind = std::string_view(descr).substr(1);
  if (kind == "f4") return NpyType::Float32;
  if (kind == "u1") return NpyType::UInt8;
  if (kind == "i8") return NpyType::Int64;
  return std::nullopt;
}

}  // namespace

std::string_view npyTypeName(NpyType type) {
  switch (type) {
    case NpyType::Float32:
      return "float32";
    case NpyType::UInt8:
      return "uint8";
    case NpyType::Int64:
      return "int64";
  }
  return "unknown";
}

size_t npyTypeSize(NpyType type) {
  switch (type) {
    case NpyType::Float32:
      return 4;
    case NpyType::UInt8:
      return 1;
    case NpyType::Int64:
      return 8;
  }
  return 0;
}

std::string formatShape(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

NpyHeader parseNpyHeader(std::string_view bytes, const std::string& path) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    throw InputError(path + ": not a .npy file (no \\x93NUMPY magic at its start); " + kHowToWrite);
  }
  if (bytes.size() < kMagic.size() + 2) throw InputError(path + ": truncated .npy file (no version)");
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) {
    throw InputError(path + ": .npy format version " + std::to_string(major) +
                     " is not supported (1 to 3 are); " + kHowToWrite);
  }
  const size_t lengthBytes = major == 1 ? 2 : 4;
  const size_t headerStart = kMagic.size() + 2 + lengthBytes;
  if (bytes.size() < headerStart) throw InputError(path + ": truncated .npy file (no header length)");
  const size_t headerBytes = littleEndian(bytes.substr(kMagic.size() + 2, lengthBytes));
  if (headerBytes > kMaxHeaderBytes) {
    throw InputError(path + ": .npy header length " + std::to_string(headerBytes) + " is not plausible; " +
                     kHowToWrite);
  }
  if (bytes.size() < headerStart + headerBytes) {
    throw InputError(path + ": truncated .npy file (the header says " + std::to_string(headerBytes) +
                     " bytes, the file ends after " + std::to_string(bytes.size() - headerStart) + ")");
  }

  HeaderParser parser(bytes.substr(headerStart, headerBytes), path);
  const HeaderParser::Fields fields = parser.parse();
  if (!fields.descr || !fields.fortranOrder || !fields.shape)
    parser.fail("descr, fortran_order and shape are all needed");

  NpyHeader header;
  const auto type = typeOf(*fields.descr);
  if (!type) {
    throw InputError(path + ": dtype '" + *fields.descr +
                     "' is not supported; save float32 or uint8 inputs, int64 labels or float32 targets "
                     "(little-endian), e.g. numpy.save(path, x.astype(numpy.float32))");
  }
  header.type = *type;
  if (*fields.fortranOrder) {
    throw InputError(path + ": the array is in Fortran order; save numpy.ascontiguousarray(x) instead");
  }
  header.shape = *fields.shape;
  if (header.shape.empty()) {
    throw InputError(path + ": holds a single value; it needs one row per sample (shape (N, ...))");
  }
  uint64_t count = 1;
  for (int64_t dim : header.shape) {
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(dim), &count) || count > (uint64_t{1} << 50)) {
      throw InputError(path + ": shape " + formatShape(header.shape) + " is too large to be real; " +
                       kHowToWrite);
    }
  }
  header.dataOffset = headerStart + headerBytes;
  header.dataBytes = static_cast<size_t>(count) * npyTypeSize(header.type);
  if (header.dataOffset % npyTypeSize(header.type) != 0) {
    throw InputError(path + ": the values start at an unaligned offset " + std::to_string(header.dataOffset) +
                     "; " + kHowToWrite);
  }
  const size_t present = bytes.size() - header.dataOffset;
  if (present != header.dataBytes) {
    throw InputError(path + ": shape " + formatShape(header.shape) + " of " +
                     std::string(npyTypeName(header.type)) + " needs " + std::to_string(header.dataBytes) +
                     " bytes of values, the file holds " + std::to_string(present) +
                     (present < header.dataBytes ? " (truncated)" : ""));
  }
  return header;
}

NpyArray::NpyArray(const std::string& path, const AllowedFolders& folders) : path_(path) {
  const int fd = folders.open(path, O_RDONLY).release();
  if (fd < 0) {
    throw InputError(path + ": " +
                     (errno == ENOENT ? std::string("no such data file") : std::strerror(errno)));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw InputError(path + ": not a regular file");
  }
  mappedBytes_ = static_cast<size_t>(info.st_size);
  if (mappedBytes_ == 0) {
    ::close(fd);
    throw InputError(path + ": empty file, not a .npy file; " + kHowToWrite);
  }
  // Private and writable: a tensor over these bytes may be written to without touching the file.
  mapping_ = ::mmap(nullptr, mappedBytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  const int mapError = errno;
  ::close(fd);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw InputError(path + ": cannot map the file (" + std::strerror(mapError) + ")");
  }
  try {
    header_ = parseNpyHeader(std::string_view(static_cast<const char*>(mapping_), mappedBytes_), path);
  } catch (...) {
    ::munmap(mapping_, mappedBytes_);
    throw;
  }
}

NpyArray::~NpyArray() {
  if (mapping_) ::munmap(mapping_, mappedBytes_);
}

std::string NpyArray::describe() const {
  return std::string(npyTypeName(header_.type)) + " " + formatShape(header_.shape);
}

}  // namespace ringmaster
