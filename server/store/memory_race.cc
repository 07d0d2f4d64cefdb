// InMemoryStore: the RaceStore methods.

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "server/store/memory_store.h"

namespace bbo {

absl::StatusOr<std::vector<RaceRoundRecord>> InMemoryStore::ListRaceRounds(
    const std::string& phase) {
  absl::MutexLock l(&mu_);
  std::vector<RaceRoundRecord> out;
  for (const auto& [key, rec] : race_rounds_) {
    if (key.first == phase) out.push_back(rec);
  }
  return out;  // the map orders rounds
}

absl::Status InMemoryStore::AddRaceRound(const RaceRoundRecord& round,
                                         const std::vector<RaceJob>& jobs,
                                         const std::vector<std::string>& boards) {
  if (boards.empty() && !jobs.empty()) {
    return absl::InvalidArgumentError("a race round's jobs need at least one board");
  }
  absl::MutexLock l(&mu_);
  if (race_rounds_.count({round.phase, round.round})) {
    return absl::AlreadyExistsError(absl::StrCat("round ", round.round, " of the race of phase \"",
                                                 round.phase, "\" was already queued"));
  }
  // Check everything first: all or nothing.
  std::set<std::tuple<int64_t, std::string, int, std::string>> taken;
  for (const auto& [id, job] : jobs_) {
    taken.insert({job.record.submission_id, job.record.problem, job.record.trial,
                  job.record.board});
  }
  for (const RaceJob& j : jobs) {
    auto it = submissions_.find(j.submission_id);
    if (it == submissions_.end() || it->second.record.phase != round.phase ||
        it->second.record.is_baseline) {
      return absl::InvalidArgumentError(absl::StrCat(
          "submission ", j.submission_id, " is not a submission of phase \"", round.phase, "\""));
    }
    for (const std::string& board : boards) {
      if (!taken.insert({j.submission_id, j.problem, j.trial, board}).second) {
        return absl::AlreadyExistsError(absl::StrCat("submission ", j.submission_id,
                                                     " already has a job on ", j.problem,
                                                     " trial ", j.trial));
      }
    }
  }
  int queued = 0;
  for (const RaceJob& j : jobs) {
    for (const std::string& board : boards) {
      const int64_t job_id = jobs_.empty() ? 1 : jobs_.rbegin()->first + 1;
      Job& job = jobs_[job_id];
      job.record.id = job_id;
      job.record.submission_id = j.submission_id;
      job.record.problem = j.problem;
      job.record.trial = j.trial;
      job.record.seed = j.seed & 0x7fffffff;
      job.record.board = board;
      job.record.max_batches = j.max_batches;
      ++queued;
    }
  }
  RaceRoundRecord rec = round;
  rec.jobs = queued;
  race_rounds_[{round.phase, round.round}] = rec;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RaceResultRecord>> InMemoryStore::RaceResults(
    const std::string& phase, const std::string& board) {
  absl::MutexLock l(&mu_);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<RaceResultRecord> out;
  for (const auto& [job_id, job] : jobs_) {
    auto sub = submissions_.find(job.record.submission_id);
    if (sub == submissions_.end() || sub->second.record.phase != phase ||
        sub->second.record.is_baseline || job.record.board != board) {
      continue;
    }
    RaceResultRecord rec;
    rec.job_id = job_id;
    rec.submission_id = job.record.submission_id;
    rec.problem = job.record.problem;
    rec.trial = job.record.trial;
    rec.max_batches = job.record.max_batches;
    rec.state = job.record.state;
    rec.last_error = job.last_error;
    // The job's latest scored study, and every evaluation of its studies.
    const Study* final_study = nullptr;
    for (const auto& [id, study] : studies_) {
      if (study.record.job_id != job_id) continue;
      for (const auto& [b, batch] : study.batches) {
        rec.evaluations += static_cast<int64_t>(batch.evaluations.size());
      }
      if (IsScoredState(study.record.state)) final_study = &study;
    }
    if (final_study != nullptr) {
      rec.has_final_study = true;
      for (const auto& [b, batch] : final_study->batches) {
        if (batch.evaluations.empty()) continue;
        double m = kInf;
        for (const EvaluationRecord& e : batch.evaluations) m = std::min(m, e.value);
        if (rec.batch_min.size() <= static_cast<size_t>(b)) rec.batch_min.resize(b + 1, kInf);
        rec.batch_min[b] = m;
      }
    }
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace bbo
