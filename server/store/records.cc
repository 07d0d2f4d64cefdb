#include "server/store/records.h"
#include "server/store/identity_store.h"

#include <cmath>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"

namespace bbo {

namespace {
constexpr char kWarmSuffix[] = "/warm-start";
}  // namespace

std::string MainBoardKey(const std::string& phase_key) { return phase_key; }

bool IsRecordablePhaseEvent(const std::string& kind) {
  static const std::set<std::string>* const kinds = new std::set<std::string>{
      "published", "unpublished", "hidden", "unhidden", "disqualified", "requalified",
      "chosen", "finalist_set", "finalist_replaced"};
  return kinds->count(kind) > 0;
}

std::string WarmStartBoardKey(const std::string& phase_key) {
  return phase_key.empty() ? std::string(kWarmStartBoard) : phase_key + kWarmSuffix;
}

bool IsWarmStartBoard(const std::string& board) {
  return board == kWarmStartBoard || PhaseKeyOfBoard(board) + kWarmSuffix == board;
}

std::string PhaseKeyOfBoard(const std::string& board) {
  if (board == kWarmStartBoard) return "";
  const size_t n = sizeof(kWarmSuffix) - 1;
  if (board.size() > n && board.compare(board.size() - n, n, kWarmSuffix) == 0) {
    return board.substr(0, board.size() - n);
  }
  return board;
}

const char* CredentialKindName(CredentialKind kind) {
  switch (kind) {
    case CredentialKind::kOrganizer:
      return "organizer";
    case CredentialKind::kTeam:
      return "team";
    case CredentialKind::kWorker:
      return "worker";
  }
  return "team";
}

std::optional<CredentialKind> CredentialKindFromName(const std::string& name) {
  if (name == "organizer") return CredentialKind::kOrganizer;
  if (name == "team") return CredentialKind::kTeam;
  if (name == "worker") return CredentialKind::kWorker;
  return std::nullopt;
}

absl::StatusOr<CredentialKind> ParseCredentialKind(const std::string& name) {
  std::optional<CredentialKind> k = CredentialKindFromName(name);
  if (!k.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("token kind must be organizer, team or worker, got \"", name, "\""));
  }
  return *k;
}

const char* StudyStateName(StudyState s) {
  switch (s) {
    case StudyState::kRunning:
      return "running";
    case StudyState::kCompleted:
      return "completed";
    case StudyState::kCutOff:
      return "cut_off";
    case StudyState::kFailed:
      return "failed";
    case StudyState::kAbandoned:
      return "abandoned";
  }
  return "running";
}

bool IsScoredState(StudyState s) {
  return s == StudyState::kCompleted || s == StudyState::kCutOff || s == StudyState::kFailed;
}

double StoredValue(double v) { return std::isnan(v) ? std::numeric_limits<double>::infinity() : v; }

}  // namespace bbo
