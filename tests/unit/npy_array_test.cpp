// SPDX-License-Identifier: GPL-3.0-or-later
// The .npy reader on real files: what numpy.save writes maps and reads back; every kind of bad file is
// rejected with a message that names the file and the problem.
#include "common/npy_array.h"

#include <gtest/gtest.h>

#include <cstring>

#include "common/error.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace ringmaster {
namespace {

// A .npy file as numpy.save writes it: magic, version, little-endian header length, the dict padded with
// spaces to a multiple of 64 bytes and ending in '\n', then the values.
std::string npyFile(const std::string& dict, const std::string& values, int major = 1) {
  const size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major);
  bytes += '\0';
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return bytes + header + values;
}

std::string writeNpy(const test::TempDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir.file(name);
  test::writeFile(path, bytes);
  return path;
}

template <typename T>
std::string rawBytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

TEST(NpyArray, MapsWhatNumpySaveWrites) {
  const test::TempDir dir("npy");
  const std::vector<float> values = {0.5f, -1.0f, 2.25f, 3.0f, 4.5f, -6.0f};
  const std::string path = writeNpy(
      dir, "x.npy", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", rawBytes(values)));
  NpyArray array(path);
  EXPECT_EQ(array.type(), NpyType::Float32);
  EXPECT_EQ(array.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(array.header().dataOffset % 64, 0u);
  EXPECT_EQ(std::memcmp(array.data(), values.data(), values.size() * sizeof(float)), 0);
  EXPECT_EQ(array.describe(), "float32 (3, 2)");
}

TEST(NpyArray, ReadsLabelsBytesAndLaterVersions) {
  const test::TempDir dir("npy");
  const std::vector<int64_t> labels = {3, 0, 9, 1};
  NpyArray y(writeNpy(
      dir, "y.npy", npyFile("{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }", rawBytes(labels))));
  EXPECT_EQ(y.type(), NpyType::Int64);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(static_cast<const int64_t*>(y.data())[2], 9);
  EXPECT_EQ(formatShape(y.shape()), "(4,)");

  const std::vector<uint8_t> pixels = {0, 128, 255, 7};
  NpyArray x(writeNpy(
      dir, "x.npy",
      npyFile("{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (1, 2, 2)}", rawBytes(pixels), 2)));
  EXPECT_EQ(x.type(), NpyType::UInt8);
  EXPECT_EQ(x.shape(), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(static_cast<const uint8_t*>(x.data())[2], 255);
}

struct BadFile {
  const char* name;
  std::string bytes;
  const char* problem;  // a part of the message
};

TEST(NpyArray, RejectsBadFilesNamingThemAndTheProblem) {
  const std::string floats6 = rawBytes(std::vector<float>(6, 1.0f));
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }";
  const std::string valid = npyFile(good, floats6);
  const std::vector<BadFile> cases = {
      {"empty", "", "empty file"},
      {"wrong_magic", "\x93NUMPX" + valid.substr(6), "not a .npy file"},
      {"text", "hello, world\n", "not a .npy file"},
      {"no_version", "\x93NUMPY", "truncated"},
      {"version_9", "\x93NUMPY\x09" + valid.substr(7), "version 9"},
      {"header_cut", valid.substr(0, 30), "truncated"},
      {"huge_header_length", std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12) + good, "not plausible"},
      {"values_cut", valid.substr(0, valid.size() - 3), "truncated"},
      {"values_extra", valid + "abcd", "the file holds 28"},
      {"unsupported_dtype",
       npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", std::string(24, '\0')),
       "dtype '<f8' is not supported"},
      {"big_endian", npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (3, 2), }", floats6),
       "dtype '>f4' is not supported"},
      {"object_dtype", npyFile("{'descr': '|O', 'fortran_order': False, 'shape': (3,), }", ""), "dtype '|O'"},
      {"fortran_order", npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", floats6),
       "Fortran order"},
      {"shape_size_mismatch", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2), }", floats6),
       "needs 32 bytes of values, the file holds 24 (truncated)"},
      {"scalar",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", rawBytes(std::vector<float>{1})),
       "single value"},
      {"shape_overflow",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", floats6),
       "too large to be real"},
      {"dimension_overflow",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 2), }", floats6),
       "too large"},
      {"negative_dimension", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-3, 2), }", floats6),
       "non-negative integers"},
      {"missing_shape", npyFile("{'descr': '<f4', 'fortran_order': False, }", floats6), "are all needed"},
      {"unknown_key", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), 'x': 1}", floats6),
       "unexpected header key 'x'"},
      {"unclosed_dict", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2)", floats6),
       "malformed"},
      {"unclosed_string", npyFile("{'descr: <f4}", floats6), "not closed"},
  };
  const test::TempDir dir("npy");
  for (const auto& c : cases) {
    const std::string path = writeNpy(dir, std::string(c.name) + ".npy", c.bytes);
    try {
      NpyArray array(path);
      ADD_FAILURE() << c.name << ": accepted as " << array.describe();
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << c.name << ": " << message;
      EXPECT_NE(message.find(c.problem), std::string::npos) << c.name << ": " << message;
    }
  }
}

TEST(NpyArray, MissingFileOrFolderIsNamed) {
  const test::TempDir dir("npy");
  for (const std::string& path : {dir.file("absent.npy"), dir.path()}) {
    try {
      NpyArray array(path);
      ADD_FAILURE() << path << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace ringmaster
