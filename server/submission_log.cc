#include "server/submission_log.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bbo {

absl::StatusOr<SubmissionLog> ReadSubmissionLog(Store& store, const SubmissionRecord& submission,
                                                const ProblemSet& problems, bool hide_problems,
                                                int limit) {
  const std::vector<std::string>& names = problems.names();
  auto shown = [&](const std::string& problem) {
    if (!hide_problems) return problem;
    auto it = std::find(names.begin(), names.end(), problem);
    return it == names.end() ? std::string("problem-?")
                             : absl::StrCat("problem-", 1 + (it - names.begin()));
  };
  SubmissionLog log;
  log.submission = submission;
  ASSIGN_OR_RETURN(log.jobs, store.CountJobs(submission.id));
  ASSIGN_OR_RETURN(log.studies, store.ListSubmissionStudies(submission.id));
  for (StudySummary& s : log.studies) {
    s.problem = shown(s.problem);
    log.studies_by_state[StudyStateName(s.state)]++;
  }
  ASSIGN_OR_RETURN(auto errors, store.ListSubmissionErrors(submission.id, -1));
  std::set<int64_t> with_errors;
  for (auto& [problem, e] : errors) {
    with_errors.insert(e.study_id);
    log.errors_by_kind[e.kind]++;
    log.total_errors++;
    if (static_cast<int>(log.errors.size()) < limit) {
      log.errors.push_back({shown(problem), e.study_id, e.batch, e.kind, e.message});
    }
  }
  log.studies_with_errors = static_cast<int>(with_errors.size());
  return log;
}

SubmissionVerdict JudgeSubmission(const SubmissionLog& log) {
  int failed = 0, batches = 0, random_batches = 0;
  for (const StudySummary& s : log.studies) {
    batches += s.batches_done;
    random_batches += s.random_batches;
    if (s.state != StudyState::kCompleted && s.state != StudyState::kRunning) ++failed;
  }
  std::vector<std::string> messages;
  for (const SubmissionLogError& e : log.errors) messages.push_back(e.message);
  const int studies = std::max(log.jobs.total, static_cast<int>(log.studies.size()));
  return JudgeStudies(studies, failed, batches, random_batches, messages);
}

}  // namespace bbo
