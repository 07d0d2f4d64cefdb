#ifndef BBO_SERVER_STORE_SUBMISSION_STORE_H_
#define BBO_SERVER_STORE_SUBMISSION_STORE_H_

// SubmissionStore: the registered submissions (name, kind, archive, team) and, on registration,
// their jobs. Part of the Store contract (server/store/store.h): every method is one
// transaction (it fully happens, or returns an error and changes nothing); implementations are
// thread-safe. Ids are assigned 1, 2, ... in insertion order.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/records.h"

namespace bbo {

class SubmissionStore {
 public:
  virtual ~SubmissionStore() = default;

  // Inserts a submission (in its phase, SubmissionRecord::phase) with its archive and queues one job per board x problem x trial
  // (seeds derived from `seed_base`; the same seed on every board, so boards are paired). The
  // jobs of the first board come first in the queue, then trial-major. InvalidArgument when
  // `boards` is empty; AlreadyExists when the name is taken (or a (problem, trial, board)
  // repeats).
  virtual absl::StatusOr<int64_t> AddSubmission(const SubmissionRecord& s,
                                                const std::string& archive,
                                                const std::vector<std::string>& problems,
                                                int64_t seed_base,
                                                const std::vector<std::string>& boards) = 0;
  // The same on the main board only.
  absl::StatusOr<int64_t> AddSubmission(const SubmissionRecord& s, const std::string& archive,
                                        const std::vector<std::string>& problems,
                                        int64_t seed_base) {
    return AddSubmission(s, archive, problems, seed_base, {kMainBoard});
  }
  // NotFound for an unknown id.
  virtual absl::StatusOr<SubmissionRecord> GetSubmission(int64_t id) = 0;
  // The submission of that name in `phase` (SubmissionRecord::phase); nullopt when none.
  virtual absl::StatusOr<std::optional<SubmissionRecord>> FindSubmission(
      const std::string& name, const std::string& phase) = 0;
  absl::StatusOr<std::optional<SubmissionRecord>> FindSubmission(const std::string& name) {
    return FindSubmission(name, "");
  }
  // The archive bytes. NotFound for an unknown id.
  virtual absl::StatusOr<std::string> GetSubmissionArchive(int64_t id) = 0;
  // Every submission, by id.
  virtual absl::StatusOr<std::vector<SubmissionRecord>> ListSubmissions() = 0;
  // The non-baseline submissions whose archive has this digest, by id.
  virtual absl::StatusOr<std::vector<SubmissionRecord>> FindSubmissionsByDigest(
      const std::string& digest) = 0;
  // How many of `team`'s submissions registered at or after `created_since` (seconds since the
  // epoch) count against its quotas: all but those the platform returned nothing for, that is
  // whose every job has failed (withdrawn while queued, or lost to workers and restarts until
  // its attempts ran out) while none of their studies reached a scored end.
  // Only submissions of `phase` count (each phase has its own quotas).
  virtual absl::StatusOr<int> CountChargedSubmissions(const std::string& team,
                                                      double created_since,
                                                      const std::string& phase) = 0;
  absl::StatusOr<int> CountChargedSubmissions(const std::string& team, double created_since) {
    return CountChargedSubmissions(team, created_since, "");
  }
  // Takes a submission off its board with `reason` (SubmissionRecord::hidden), or with "" puts
  // it back. Its studies leave (or rejoin) the scoring data, and the problems it ran on count as
  // changed (ScoringChangesSince). Returns whether anything changed. NotFound for an unknown id
  // or the baseline.
  virtual absl::StatusOr<bool> SetHidden(int64_t submission_id, const std::string& reason) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_SUBMISSION_STORE_H_
