// SHA-256 test vectors, CSV round trip through libcsv, atomic writes (also
// when the disk fills).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "bench/runner/csv_table.h"
#include "bench/runner/folder_lock.h"
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

TEST(Sha256, FileReadInChunksHashesAsAWhole) {
  const std::string dir = test::temp_dir("sha256");
  const std::string text(3 * (1 << 20) + 17, 'a');  // three full read buffers and a partial one
  std::ofstream(dir + "/f", std::ios::binary) << text;
  EXPECT_EQ(sha256_file(dir + "/f"), sha256_hex(text));
  EXPECT_THROW(sha256_file(dir + "/missing"), Error);
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
}

TEST(Csv, RaggedRowIsAnError) {
  const std::string dir = test::temp_dir("csv-bad");
  std::ofstream(dir + "/bad.csv") << "a,b\n1,2,3\n";
  EXPECT_THROW(read_csv(dir + "/bad.csv"), Error);
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
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// A disk that fills while writing: the write fails (here at a file-size
// limit, in a child process so the limit stays there), the error says so,
// and the destination keeps its previous complete content with no temporary
// file left beside it.
TEST(AtomicWrite, FullDiskIsAClearErrorAndKeepsThePreviousFile) {
  const std::string dir = test::temp_dir("full");
  const std::string path = dir + "/samples.csv";
  write_file_atomic(path, "old,complete\n");
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);  // write then fails with EFBIG, as pdbench's main arranges
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    std::string message = "no error";
    try {
      write_file_atomic(path, std::string(1 << 20, 'x'));
    } catch (const Error& e) {
      message = e.what();
    }
    const ssize_t written = ::write(pipe_fds[1], message.data(), message.size());
    ::_exit(written == static_cast<ssize_t>(message.size()) ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) message.append(buf, static_cast<size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(std::strerror(EFBIG)), std::string::npos) << message;
  EXPECT_EQ(read_text(path), "old,complete\n");
  for (const auto& entry : fs::directory_iterator(dir)) EXPECT_EQ(entry.path().filename(), "samples.csv");
}

TEST(FolderLock, ASecondWriterIsRefusedUntilTheFirstLetsGo) {
  const std::string dir = test::temp_dir("lock");
  {
    const FolderLock first(dir);
    try {
      const FolderLock second(dir);
      ADD_FAILURE() << "locked twice";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                dir + ": another pdbench run is writing to this results folder; wait for it or choose another -o");
    }
  }
  EXPECT_NO_THROW(FolderLock{dir});  // released with the first
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 0) << "no lock file left";
}

}  // namespace
}  // namespace pdbench::runner
