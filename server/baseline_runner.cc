#include "server/baseline_runner.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bbo {
namespace {
constexpr char kOwner[] = "coordinator-baseline";
// A baseline job's lease: one batch's evaluation must fit in it (it is renewed every batch).
constexpr double kLeaseSeconds = 3600;
}  // namespace

absl::StatusOr<int> BaselineRunner::RunPending(const std::atomic<bool>* stop) {
  int ran = 0;
  while (stop == nullptr || !stop->load()) {
    ASSIGN_OR_RETURN(std::optional<JobRecord> job,
                     jobs_->LeaseBuiltinJob(kOwner, clock_->NowSeconds() + kLeaseSeconds));
    if (!job) break;
    ASSIGN_OR_RETURN(OpenedStudy study,
                     studies_->OpenForJob(Identity::Coordinator(), job->id, kOwner));
    // Random search samples the space the study presents, like any optimizer: in an anonymized
    // phase that is the opaque one.
    absl::StatusOr<SearchSpace> space = SearchSpace::FromJson(study.api_config);
    if (!space.ok()) return space.status();
    std::mt19937_64 rng(static_cast<uint64_t>(job->seed));
    std::string error;
    for (int b = 0; b < study.budget.n_batches; ++b) {
      // The lease lives as long as the study runs, however long its evaluations take (a batch
      // of a scikit-learn model can take minutes): renewed before every batch.
      RETURN_IF_ERROR(jobs_->RenewLeases(kOwner, clock_->NowSeconds() + kLeaseSeconds));
      std::vector<IncomingPoint> points;
      for (Point& p : space->SampleRandom(study.budget.batch_size, rng)) {
        points.push_back({std::move(p), ""});
      }
      absl::StatusOr<BatchOutcome> out =
          studies_->SubmitBatch(Identity::Coordinator(), study.study_id, b, points);
      if (!out.ok()) {
        error = absl::StrCat("baseline study failed: ", out.status().ToString());
        break;
      }
    }
    RETURN_IF_ERROR(jobs_->FinishJob(job->id, kOwner, error, 3));
    ++ran;
  }
  return ran;
}

}  // namespace bbo
