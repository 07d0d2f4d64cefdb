// StudyManager: its phases and the problems it serves (study_manager.h).

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "server/study_manager.h"

namespace bbo {

absl::StatusOr<const StudyPhase*> StudyManager::Phase(const std::string& key) const {
  std::string known;
  for (const StudyPhase& p : phases_) {
    if (p.key == key) return &p;
    absl::StrAppend(&known, known.empty() ? "" : ", ", "\"", p.key, "\"");
  }
  return absl::NotFoundError(
      absl::StrCat("no phase \"", TruncateUtf8(key, 128), "\" on this coordinator (its phases: ",
                   known, ")"));
}

absl::StatusOr<std::vector<ProblemInfo>> StudyManager::ListProblems(
    const Identity& who, const std::optional<std::string>& phase_key) const {
  ASSIGN_OR_RETURN(const StudyPhase* phase, Phase(phase_key.value_or(phases_.front().key)));
  RETURN_IF_ERROR(
      AccessPolicy(phase->options.hidden_phase).RequireOrganizerIfHidden(who, "the problems"));
  std::vector<ProblemInfo> out;
  for (const std::string& name : phase->problems->names()) {
    const Problem* p = *phase->problems->Get(name);
    out.push_back({name, p->description(), p->space().api_config().dump()});
  }
  return out;
}

}  // namespace bbo
