#ifndef BBO_COMMON_SUBMISSION_VERDICT_H_
#define BBO_COMMON_SUBMISSION_VERDICT_H_

// The verdict on a submission's studies, in one wording for `bbo check`, `bbo local` and the web
// page's submission view (docs/participants.md, "bbo local and bbo check"): a study that did not
// complete (the optimizer died, failed to start or ran out of time), or more than half of all
// batches filled by random search, fails it, since the score would not be the optimizer's. With
// the failure, the lines of the first errors that point into the participant's own files.
// Pure functions.

#include <string>
#include <vector>

namespace bbo {

struct SubmissionVerdict {
  bool ok = true;
  // Why it failed, e.g. "1 of 3 studies did not complete".
  std::vector<std::string> failure;
  // Traceback lines in the submission's own files (OwnTracebackLines of the first errors).
  std::vector<std::string> traceback;
  // The first error's message, when there is no traceback to show.
  std::string first_error;
};

// From the counts: `studies` planned, `failed` of them ended without completing, `batches` run
// and `random_batches` of them filled by random search; `error_messages` the first errors, oldest
// first. `submission_dir`: where the participant's files are on this host ("" = only the
// sandbox's /sub paths are the participant's).
SubmissionVerdict JudgeStudies(int studies, int failed, int batches, int random_batches,
                               const std::vector<std::string>& error_messages,
                               const std::string& submission_dir = "");
// (server/submission_log.h JudgeSubmission: the same from a submission's log.)

// The verdict as `command` ("bbo check"; "" = no prefix) says it: "" when ok, else
//   "<command>: FAILED: <why>; <why>.\nIn your files:\n  <line>\n...(a study that does not ...)\n"
std::string VerdictText(const SubmissionVerdict& v, const std::string& command);

// The lines of an error message (an optimizer's stderr tail) that point into the submission's
// own files: each traceback frame in them with its source line, then the exception. Frames in
// the bayesmark package or the standard library are left out. Empty when there is none.
std::vector<std::string> OwnTracebackLines(const std::string& message,
                                           const std::string& submission_dir);

}  // namespace bbo

#endif  // BBO_COMMON_SUBMISSION_VERDICT_H_
