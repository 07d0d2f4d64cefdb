#include "server/requeue.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bbo {
namespace {

constexpr char kWithdrawn[] = "withdrawn by ";

}  // namespace

std::string WithdrawnReason(const Identity& who) { return absl::StrCat(kWithdrawn, who.Describe()); }

bool WasWithdrawn(const std::string& last_error) {
  return absl::StartsWith(last_error, "withdrawn");  // databases of every version
}

absl::StatusOr<int> RequeueFailedJobs(JobStore& jobs, int64_t job_id) {
  ASSIGN_OR_RETURN(std::vector<FailedJob> failed, jobs.ListFailedJobs());
  if (job_id != 0) {
    for (const FailedJob& f : failed) {
      if (f.job.id != job_id) continue;
      if (WasWithdrawn(f.last_error)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "job ", job_id, " was ", f.last_error,
            ": a withdrawn job stays withdrawn (its team may submit again)"));
      }
      RETURN_IF_ERROR(jobs.RequeueFailedJob(job_id));
      return 1;
    }
    RETURN_IF_ERROR(jobs.GetJob(job_id).status());  // NotFound for an unknown job
    return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " has not failed"));
  }
  int n = 0;
  for (const FailedJob& f : failed) {
    if (WasWithdrawn(f.last_error)) continue;
    RETURN_IF_ERROR(jobs.RequeueFailedJob(f.job.id));
    ++n;
  }
  return n;
}

}  // namespace bbo
