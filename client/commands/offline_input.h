#ifndef BBO_CLIENT_COMMANDS_OFFLINE_INPUT_H_
#define BBO_CLIENT_COMMANDS_OFFLINE_INPUT_H_

// Helpers of the commands that score offline (bbo score, bbo report --results / --db).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"
#include "report/results_csv.h"

namespace bbo::client {

// Reads a results CSV into a scoring input (report/results_csv.h). Errors are printed as
// "<what>: ..." and give nullopt; warnings are printed as "<what>: warning: ...".
std::optional<scoring::BuiltInput> ReadResults(const std::string& what, const std::string& path,
                                               const std::string& random_search,
                                               bool generalization);

// Prints "<what>: warning: <w>" for each warning, on stderr.
void PrintWarnings(const std::string& what, const std::vector<std::string>& warnings);

// Dimension and attributes of the problems of `input` that the registry can make (others stay
// unknown).
std::map<std::string, scoring::ProblemInfo> KnownProblemInfo(const scoring::ScoringInput& input);

}  // namespace bbo::client

#endif  // BBO_CLIENT_COMMANDS_OFFLINE_INPUT_H_
