#ifndef BBO_SERVER_PROBLEM_SET_H_
#define BBO_SERVER_PROBLEM_SET_H_

// ProblemSet: the problems a competition phase evaluates, by name. Immutable after construction;
// thread-safe to share.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/utf8.h"
#include "problems/definition.h"
#include "problems/problem.h"

namespace bbo {

class ProblemSet {
 public:
  // `definitions`: how a worker builds each problem again (by name; problems without one are
  // evaluated by the coordinator only).
  explicit ProblemSet(std::vector<std::unique_ptr<Problem>> problems,
                      std::map<std::string, ProblemDefinition> definitions = {})
      : definitions_(std::move(definitions)) {
    for (auto& p : problems) {
      names_.push_back(p->name());
      by_name_[p->name()] = std::move(p);
    }
  }
  // NotFound naming the problem when it is not in the set.
  absl::StatusOr<const Problem*> Get(const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      // Quoted cut: the name comes from the caller.
      return absl::NotFoundError("unknown problem \"" + TruncateUtf8(name, 128) +
                                 (name.size() > 128 ? "...\"" : "\""));
    }
    return it->second.get();
  }
  const std::vector<std::string>& names() const { return names_; }
  // How a worker builds problem `name`; nullopt when it has no definition.
  std::optional<ProblemDefinition> Definition(const std::string& name) const {
    auto it = definitions_.find(name);
    if (it == definitions_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, ProblemDefinition> definitions_;
  std::vector<std::string> names_;
  std::map<std::string, std::unique_ptr<Problem>> by_name_;
};

}  // namespace bbo

#endif  // BBO_SERVER_PROBLEM_SET_H_
