#ifndef BBO_SERVER_STORE_STUDY_STORE_H_
#define BBO_SERVER_STORE_STUDY_STORE_H_

// StudyStore: studies (one optimizer run on one problem), their batches of evaluations and
// their errors. Part of the Store contract (server/store/store.h): every method is one
// transaction (it fully happens, or returns an error and changes nothing); implementations are
// thread-safe. Study ids are assigned 1, 2, ... in creation order.
//
// A study is created running and ends once (EndStudy) in a final state. Ending in a scored
// state (completed, cut off, failed) gives it the next number of the scoring sequence
// (ScoringStore::ScoringChangesSince).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/records.h"

namespace bbo {

class StudyStore {
 public:
  virtual ~StudyStore() = default;

  // Creates a running study (`s.id` and `s.state` are ignored). AlreadyExists when `s.job_id`
  // names no job (a reference constraint failed), or a job that already has its final study (a
  // job is run to a scored end at most once).
  virtual absl::StatusOr<int64_t> CreateStudy(const StudyRecord& s) = 0;
  // NotFound for an unknown id.
  virtual absl::StatusOr<StudyRecord> GetStudy(int64_t study_id) = 0;
  // Appends a batch (its evaluations, errors and timings) and updates the study's totals. NaN
  // values are stored as +inf. AlreadyExists when the batch is recorded already or the study is
  // unknown.
  virtual absl::Status RecordBatch(const BatchRecord& b) = 0;
  // AlreadyExists when the study is unknown.
  virtual absl::Status RecordStudyError(const StudyErrorRecord& e) = 0;
  // Moves a running study to a final state. A study already final is left unchanged (returns
  // its state); ending is idempotent. NotFound for an unknown study.
  virtual absl::StatusOr<StudyState> EndStudy(int64_t study_id, StudyState state,
                                              const std::string& reason, double ended_at,
                                              double optimizer_time_s) = 0;
  // The errors of a study in the order they were recorded (empty for an unknown study).
  virtual absl::StatusOr<std::vector<StudyErrorRecord>> ListStudyErrors(int64_t study_id) = 0;
  // The first `limit` errors (a negative limit: all) of a submission's studies, oldest first,
  // with problem names.
  virtual absl::StatusOr<std::vector<std::pair<std::string, StudyErrorRecord>>>
  ListSubmissionErrors(int64_t submission_id, int limit) = 0;
  // Every study of a submission, by id.
  virtual absl::StatusOr<std::vector<StudySummary>> ListSubmissionStudies(
      int64_t submission_id) = 0;
  // How many of a submission's scored studies (completed, cut off or failed: the ones that count;
  // not an attempt the platform abandoned) have at least one error.
  virtual absl::StatusOr<int> CountStudiesWithErrors(int64_t submission_id) = 0;
  // The values of one study, batch by batch, in index order (empty for an unknown study).
  virtual absl::StatusOr<std::vector<std::vector<double>>> StudyValues(int64_t study_id) = 0;
  // Distinct (problem, signature) pairs of the studies that recorded a signature, sorted.
  virtual absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
  ProblemSignatures() = 0;
  // Ids of every study, ascending.
  virtual absl::StatusOr<std::vector<int64_t>> ListStudyIds() = 0;
  // Every evaluation of a study with its batch, in batch and index order (params_json, value,
  // replaced, eval_time_s and generalization; suggested_json is not read back).
  virtual absl::StatusOr<std::vector<std::pair<int, EvaluationRecord>>> StudyEvaluations(
      int64_t study_id) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_STUDY_STORE_H_
