#include "server/submission_state.h"

#include "absl/strings/str_cat.h"
#include "server/phase.h"

namespace bbo {

SubmissionState StateOf(const SubmissionRecord& submission, const JobCounts& jobs,
                        int studies_with_errors) {
  if (!submission.withdrawn.empty()) return SubmissionState::kWithdrawn;
  if (jobs.queued > 0 || jobs.leased > 0) {
    return jobs.done + jobs.failed + jobs.leased == 0 ? SubmissionState::kQueued
                                                      : SubmissionState::kRunning;
  }
  if (jobs.done == 0 || studies_with_errors >= jobs.done) return SubmissionState::kFailed;
  if (studies_with_errors > 0 || jobs.failed > 0) return SubmissionState::kPartial;
  return SubmissionState::kFinished;
}

SubmissionState StateOf(const SubmissionStatus& s) {
  return StateOf(s.submission, s.jobs, s.studies_with_errors);
}

const char* SubmissionStateName(SubmissionState s) {
  switch (s) {
    case SubmissionState::kQueued:
      return "queued";
    case SubmissionState::kRunning:
      return "running";
    case SubmissionState::kFinished:
      return "finished";
    case SubmissionState::kPartial:
      return "partial";
    case SubmissionState::kFailed:
      return "failed";
    case SubmissionState::kWithdrawn:
      return "withdrawn";
  }
  return "unknown";
}

std::string DescribeState(const SubmissionStatus& s) {
  const JobCounts& j = s.jobs;
  const SubmissionState state = StateOf(s);
  const std::string logs = absl::StrCat(" (`bbo logs ", s.submission.id, "`)");
  switch (state) {
    case SubmissionState::kQueued:
      return absl::StrCat("queued: ", j.queued, " jobs wait for a worker");
    case SubmissionState::kRunning:
      return absl::StrCat("running: ", j.done, " of ", j.total, " jobs done");
    case SubmissionState::kFinished:
      return absl::StrCat("finished: ", j.done, " jobs done, no errors");
    case SubmissionState::kWithdrawn:
      return absl::StrCat(s.submission.withdrawn, " (", j.withdrawn,
                          " queued jobs cancelled, ", j.done, " done)");
    case SubmissionState::kFailed:
      if (j.done == 0) {
        return absl::StrCat("failed: every job was lost to the platform (", j.lost(),
                            "); the organizers can requeue them");
      }
      return absl::StrCat("failed: ", s.studies_with_errors, " of ", j.done,
                          " studies had errors", logs);
    case SubmissionState::kPartial:
      break;
  }
  std::string out = absl::StrCat("partial: ", s.studies_with_errors, " of ", j.done,
                                 " studies had errors");
  if (j.lost() > 0) absl::StrAppend(&out, ", ", j.lost(), " jobs lost to the platform");
  return absl::StrCat(out, logs);
}

}  // namespace bbo
