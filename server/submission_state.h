#ifndef BBO_SERVER_SUBMISSION_STATE_H_
#define BBO_SERVER_SUBMISSION_STATE_H_

// What happened to a submission, in one word and one sentence: the one rule the CLI, the web
// page, the leaderboard and /metrics all show.
//
//   queued     no job has started
//   running    jobs are queued or running
//   finished   every job has its final study and no study had an error
//   partial    done, but some studies had errors (a crash, a batch filled at random after a
//              failed suggest, a cut-off) or some jobs were lost to the platform
//   failed     done, and no study completed without an error (e.g. a syntax error)
//   withdrawn  its team (or an organizer) took it back: its queued jobs were cancelled; it stays
//              on its board scored on what it ran
//
// Whether it is on its board is another matter (SubmissionRecord::on_board): a hidden one keeps
// its state.

#include <string>

#include "server/store/records.h"

namespace bbo {

struct SubmissionStatus;

enum class SubmissionState { kQueued, kRunning, kFinished, kPartial, kFailed, kWithdrawn };

SubmissionState StateOf(const SubmissionRecord& submission, const JobCounts& jobs,
                        int studies_with_errors);
SubmissionState StateOf(const SubmissionStatus& s);
// "queued", "running", "finished", "partial", "failed", "withdrawn".
const char* SubmissionStateName(SubmissionState s);
// The state in a sentence, e.g. "failed: 6 of 6 studies had errors (`bbo logs 12`)".
std::string DescribeState(const SubmissionStatus& s);

}  // namespace bbo

#endif  // BBO_SERVER_SUBMISSION_STATE_H_
