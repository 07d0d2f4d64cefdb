#include "server/store/export.h"

#include <limits>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/memory_store.h"
#include "server/testing/fault_injection_store.h"

namespace bbo {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ExportTest, MapsEmptyStudiesAndMissingHeldOutLoss) {
  ScoredEvaluationRecord with{"p", "opt", 1, true, 2, 3, 0.5, 7.0};
  ScoredEvaluationRecord without_gen{"p", "opt", 1, true, 2, 4, 0.25, std::nullopt};
  ScoredEvaluationRecord empty{"p", "rs", 0, false, 9, 9, 9, 9.0};
  scoring::ResultsTable t = ResultsTableOf({with, without_gen, empty});
  ASSERT_TRUE(t.has_generalization);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].batch, 2);
  EXPECT_EQ(t.rows[0].suggestion, 3);
  EXPECT_EQ(t.rows[0].generalization, 7.0);
  EXPECT_EQ(t.rows[1].generalization, 0.25);  // the value stands in
  EXPECT_EQ(t.rows[2].method, "rs");
  EXPECT_EQ(t.rows[2].batch, 0);
  EXPECT_EQ(t.rows[2].suggestion, 0);
  EXPECT_EQ(t.rows[2].value, kInf);
  EXPECT_EQ(t.rows[2].generalization, kInf);
}

TEST(ExportTest, StoreErrorsAreReturnedAndNothingIsWritten) {
  InMemoryStore base;
  testing::FaultInjectionStore store(&base);
  store.FailNext("ScoredEvaluations", absl::UnavailableError("disk gone"));
  std::stringstream out;
  EXPECT_EQ(ExportResultsCsv(store, out, kMainBoard).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(out.str(), "");
  // Healed after one call: an empty store exports the header alone.
  ASSERT_TRUE(ExportResultsCsv(store, out, kMainBoard).ok());
  EXPECT_EQ(out.str(), "problem,method,trial,batch,suggestion,value,generalization\n");
  EXPECT_EQ(store.InjectedFailures("ScoredEvaluations"), 1);
  EXPECT_EQ(store.Calls("ScoredEvaluations"), 1);
}

}  // namespace
}  // namespace bbo
