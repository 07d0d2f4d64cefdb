#include "common/sqlite.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <filesystem>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace bbo::sqlite {
namespace {

class WalCheckpointerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("sqlite_test_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    Remove();
    auto db = Database::Open(path_);
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    ASSERT_TRUE(db_->Exec("CREATE TABLE t (x BLOB)").ok());
  }
  void TearDown() override {
    db_.reset();
    Remove();
  }
  void Remove() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  // One transaction that adds about `pages` pages to the WAL.
  void Write(int pages) {
    auto st = db_->Prepare("INSERT INTO t VALUES (randomblob(3000))");
    ASSERT_TRUE(st.ok());
    Transaction tx(db_.get());
    ASSERT_TRUE(tx.Begin().ok());
    for (int i = 0; i < pages; ++i) ASSERT_TRUE((*st)->Run().ok());
    ASSERT_TRUE(tx.Commit().ok());
  }
  // Frames in the WAL, and how many of them are in the database file (a PASSIVE checkpoint that
  // copies nothing new reports both).
  std::pair<int, int> WalFrames() {
    int log = -1, copied = -1;
    sqlite3_wal_checkpoint_v2(db_->raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    return {log, copied};
  }
  static bool WaitFor(const std::function<bool()>& done) {
    for (int i = 0; i < 500 && !done(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
  }

  std::string path_;
  std::unique_ptr<Database> db_;
};

TEST_F(WalCheckpointerTest, CommitsLeaveCheckpointsToItsThread) {
  auto c = WalCheckpointer::Start(db_.get(), path_, {.pages = 20, .min_interval_ms = 1});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_NE(*c, nullptr);
  Write(10);
  EXPECT_EQ((*c)->checkpoints(), 0);  // under the trigger
  Write(30);
  ASSERT_TRUE(WaitFor([&] { return (*c)->checkpoints() >= 1; }));
  // Copied by the checkpointer; the WAL starts over at the next write.
  auto [log, copied] = WalFrames();
  EXPECT_EQ(log, copied);
  Write(1);
  EXPECT_LT(WalFrames().first, 10);
}

TEST_F(WalCheckpointerTest, WithoutItTheCommitCheckpointsAgain) {
  {
    auto c = WalCheckpointer::Start(db_.get(), path_, {.pages = 1000, .min_interval_ms = 1});
    ASSERT_TRUE(c.ok()) << c.status();
  }
  // SQLite's own checkpoint (wal_autocheckpoint = 1000 pages) runs inside this commit.
  Write(1100);
  auto [log, copied] = WalFrames();
  EXPECT_GT(log, 1000);
  EXPECT_EQ(copied, log);
}

TEST_F(WalCheckpointerTest, KeepsTheWalBoundedUnderContinuousWrites) {
  auto c = WalCheckpointer::Start(db_.get(), path_,
                                  {.pages = 50, .min_interval_ms = 1, .backstop_pages = 200});
  ASSERT_TRUE(c.ok()) << c.status();
  for (int i = 0; i < 400; ++i) Write(5);  // 2,000 pages without a pause
  EXPECT_GE((*c)->checkpoints(), 1);
  // The WAL file keeps the size of the longest WAL it held: started over again and again, it
  // never held much more than the backstop's pages (a frame is a page and a 24-byte header).
  const auto longest = std::filesystem::file_size(path_ + "-wal");
  EXPECT_LE(longest, 32 + (200 + 10) * (4096 + 24)) << longest;
}

TEST_F(WalCheckpointerTest, NothingToDoForAnInMemoryDatabase) {
  auto mem = Database::Open(":memory:");
  ASSERT_TRUE(mem.ok());
  auto c = WalCheckpointer::Start(mem->get(), ":memory:");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, nullptr);
}

}  // namespace
}  // namespace bbo::sqlite
