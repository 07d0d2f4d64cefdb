#ifndef BBO_SERVER_REQUEUE_H_
#define BBO_SERVER_REQUEUE_H_

// Requeueing failed jobs (`bbo admin requeue`), and what marks a job withdrawn: the one rule,
// for every transport (the CLI's database facade today). A job its team withdrew
// (Phase::Withdraw) stays withdrawn: requeueing it would run work the team took back. Any other
// failed job (its attempts used up by lost leases, a failing host) may run again, its attempts
// reset.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "server/access.h"
#include "server/store/job_store.h"

namespace bbo {

// The last error recorded on the jobs of a submission `who` withdrew.
std::string WithdrawnReason(const Identity& who);
// Whether a job's last error says it was withdrawn.
bool WasWithdrawn(const std::string& last_error);

// Puts failed job `job_id` back in the queue, or with 0 every failed job not withdrawn.
// Returns how many. NotFound for an unknown job; FailedPrecondition for one that has not
// failed or that its team withdrew. Store errors as they come (a job requeued before the error
// stays requeued).
absl::StatusOr<int> RequeueFailedJobs(JobStore& jobs, int64_t job_id);

}  // namespace bbo

#endif  // BBO_SERVER_REQUEUE_H_
