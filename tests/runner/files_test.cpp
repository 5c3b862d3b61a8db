// SHA-256 test vectors, CSV round trip through libcsv, atomic writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/runner/csv_table.h"
#include "bench/runner/sha256.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

namespace fs = std::filesystem;

TEST(Sha256, Fips180Vectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Csv, RoundTripThroughLibcsv) {
  const std::string dir = test::temp_dir("csv");
  Table t{{"name", "value", "note"}, {{"a,b", "1.5", "say \"hi\""}, {"line\nbreak", "", "plain"}}};
  const std::string path = dir + "/t.csv";
  write_csv(path, t);
  const Table back = read_csv(path);
  EXPECT_EQ(back.columns, t.columns);
  EXPECT_EQ(back.rows, t.rows);
  EXPECT_EQ(back.column("note"), 2u);
  EXPECT_THROW(back.column("missing"), Error);
  fs::remove_all(dir);
}

TEST(Csv, RaggedRowIsAnError) {
  const std::string dir = test::temp_dir("csv-bad");
  std::ofstream(dir + "/bad.csv") << "a,b\n1,2,3\n";
  EXPECT_THROW(read_csv(dir + "/bad.csv"), Error);
  fs::remove_all(dir);
}

TEST(AtomicWrite, ReplacesWholeFileAndLeavesNoTemporary) {
  const std::string dir = test::temp_dir("atomic");
  const std::string path = dir + "/out.csv";
  write_file_atomic(path, "old contents\n");
  write_file_atomic(path, "new\n");
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "new\n");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "out.csv");
  }
  EXPECT_EQ(files, 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pdbench::runner
