#include "server/store/records.h"

#include <cmath>
#include <limits>

namespace bbo {

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
