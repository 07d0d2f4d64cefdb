// InMemoryStore: the PhaseStore methods.

#include "absl/strings/str_cat.h"
#include "server/store/memory_store.h"

namespace bbo {

absl::StatusOr<std::optional<PhaseRecord>> InMemoryStore::GetPhase(const std::string& name) {
  absl::MutexLock l(&mu_);
  auto it = phases_.find(name);
  if (it == phases_.end()) return std::optional<PhaseRecord>();
  return std::optional<PhaseRecord>(it->second);
}

absl::Status InMemoryStore::PutPhase(const PhaseRecord& phase) {
  absl::MutexLock l(&mu_);
  phases_[phase.name] = phase;
  return absl::OkStatus();
}

absl::Status InMemoryStore::SetChoice(const std::string& phase, const std::string& team,
                                      int64_t submission_id, double at) {
  absl::MutexLock l(&mu_);
  auto it = submissions_.find(submission_id);
  if (it == submissions_.end()) {
    return absl::NotFoundError(absl::StrCat("no submission with id ", submission_id));
  }
  const SubmissionRecord& s = it->second.record;
  if (s.phase != phase || s.team != team || s.is_baseline) {
    return absl::InvalidArgumentError(absl::StrCat("submission ", submission_id,
                                                   " is not one of team \"", team,
                                                   "\" in phase \"", phase, "\""));
  }
  choices_[{phase, team}] = {submission_id, at};
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, int64_t>> InMemoryStore::Choices(const std::string& phase) {
  absl::MutexLock l(&mu_);
  std::map<std::string, int64_t> out;
  for (const auto& [key, choice] : choices_) {
    if (key.first == phase) out[key.second] = choice.first;
  }
  return out;
}

absl::StatusOr<int64_t> InMemoryStore::RecordPhaseEvent(const PhaseEvent& event) {
  if (!IsRecordablePhaseEvent(event.kind)) {
    return absl::InvalidArgumentError(absl::StrCat("phase event kind \"", event.kind,
                                                   "\" cannot be recorded"));
  }
  absl::MutexLock l(&mu_);
  PhaseEvent e = event;
  e.id = static_cast<int64_t>(phase_events_.size()) + 1;
  phase_events_.push_back(e);
  return e.id;
}

absl::StatusOr<std::vector<PhaseEvent>> InMemoryStore::PhaseEvents(const std::string& phase) {
  absl::MutexLock l(&mu_);
  std::vector<PhaseEvent> out;
  for (const PhaseEvent& e : phase_events_) {
    if (e.phase == phase) out.push_back(e);
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> InMemoryStore::MigrateInto(
    const std::string& phase, const std::vector<Migration>& sources,
    const std::vector<std::string>& problems, int64_t seed_base,
    const std::vector<std::string>& boards, double at, const std::string& detail) {
  if (boards.empty()) return absl::InvalidArgumentError("a migration needs at least one board");
  absl::MutexLock l(&mu_);
  for (const PhaseEvent& e : phase_events_) {
    if (e.phase == phase && e.kind == "migrated") {
      return absl::AlreadyExistsError(
          absl::StrCat("submissions were already migrated into phase \"", phase, "\""));
    }
  }
  // Check everything first: all or nothing.
  for (const Migration& m : sources) {
    auto it = submissions_.find(m.source_submission_id);
    if (it == submissions_.end() || it->second.record.is_baseline) {
      return absl::NotFoundError(
          absl::StrCat("no submission with id ", m.source_submission_id, " to migrate"));
    }
    for (const auto& [id, sub] : submissions_) {
      if (sub.record.phase == phase && sub.record.name == it->second.record.name) {
        return absl::AlreadyExistsError(absl::StrCat("a submission named \"", sub.record.name,
                                                     "\" already exists in phase \"", phase,
                                                     "\""));
      }
    }
  }
  std::vector<int64_t> out;
  for (const Migration& m : sources) {
    const Submission& src = submissions_.at(m.source_submission_id);
    SubmissionRecord rec = src.record;
    rec.trials = m.trials;
    rec.created_at = at;
    rec.phase = phase;
    rec.migrated_from = src.record.id;
    const std::string archive = src.archive;
    out.push_back(InsertSubmissionLocked(rec, archive, problems, seed_base, boards));
  }
  PhaseEvent e;
  e.id = static_cast<int64_t>(phase_events_.size()) + 1;
  e.phase = phase;
  e.kind = "migrated";
  e.at = at;
  e.who = "coordinator";
  e.detail = detail;
  phase_events_.push_back(e);
  return out;
}

absl::StatusOr<int64_t> InMemoryStore::MigrateOne(const std::string& phase,
                                                  const Migration& source,
                                                  const std::vector<std::string>& problems,
                                                  int64_t seed_base,
                                                  const std::vector<std::string>& boards,
                                                  const PhaseEvent& event) {
  if (boards.empty()) return absl::InvalidArgumentError("a migration needs at least one board");
  if (!IsRecordablePhaseEvent(event.kind)) {
    return absl::InvalidArgumentError(absl::StrCat("phase event kind \"", event.kind,
                                                   "\" cannot be recorded"));
  }
  absl::MutexLock l(&mu_);
  auto it = submissions_.find(source.source_submission_id);
  if (it == submissions_.end() || it->second.record.is_baseline) {
    return absl::NotFoundError(
        absl::StrCat("no submission with id ", source.source_submission_id, " to migrate"));
  }
  for (const auto& [id, sub] : submissions_) {
    if (sub.record.phase == phase && sub.record.name == it->second.record.name) {
      return absl::AlreadyExistsError(absl::StrCat("phase \"", phase,
                                                   "\" already has a submission of the name of "
                                                   "submission ", source.source_submission_id));
    }
  }
  SubmissionRecord rec = it->second.record;
  rec.trials = source.trials;
  rec.created_at = event.at;
  rec.phase = phase;
  rec.migrated_from = it->second.record.id;
  rec.withdrawn.clear();
  rec.hidden.clear();
  const std::string archive = it->second.archive;
  const int64_t id = InsertSubmissionLocked(rec, archive, problems, seed_base, boards);
  PhaseEvent e = event;
  e.id = static_cast<int64_t>(phase_events_.size()) + 1;
  e.submission_id = id;
  phase_events_.push_back(e);
  return id;
}

}  // namespace bbo
