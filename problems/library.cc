#include "problems/library.h"

#include <algorithm>
#include <fstream>

#include <iterator>

#include "absl/strings/str_cat.h"
#include "common/digest.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "problems/practice_suite.h"
#include "problems/signature.h"
#include "problems/test_problems.h"

namespace bbo {

std::string ProblemDefinition::Key() const {
  std::string key = absl::StrCat(suite, "/", name, "@", seed);
  if (suite == "generated") absl::StrAppend(&key, "/", generated_family, "x", generated_tasks);
  if (!files_digest.empty()) absl::StrAppend(&key, "/", files_digest);
  return key;
}

std::string ProblemFilesDigest(std::string_view bytes) {
  return absl::StrCat(bytes.size(), "-", Fnv1a64Hex(bytes));
}

namespace {

using Problems = std::vector<std::unique_ptr<Problem>>;

absl::StatusOr<Problems> TestProblem(const ProblemDefinition& d) {
  Problems out;
  if (d.name == "test_slow") {
    out.push_back(MakeSlowProblem(absl::Milliseconds(static_cast<int64_t>(d.seed))));
  } else if (d.name == "test_crashing") {
    out.push_back(MakeCrashingProblem(0.1));
  } else if (d.name == "test_nan") {
    out.push_back(MakeNanProblem());
  } else if (d.name == "test_sphere") {
    out.push_back(MakeTrivialProblem(2));
  } else {
    return absl::NotFoundError(
        absl::StrCat("no problem \"", d.name.substr(0, 200), "\" in suite test"));
  }
  return out;
}

}  // namespace

absl::StatusOr<Problems> ProblemLibrary::Build(const ProblemDefinition& d) const {
  if (d.suite == "test") return TestProblem(d);
  if (d.suite == "practice") {
    ASSIGN_OR_RETURN(std::unique_ptr<Problem> p, MakeProblem(d.name));
    Problems out;
    out.push_back(std::move(p));
    return out;
  }
  SuiteOptions so = host_;
  so.seed = d.seed;
  so.generated_family = d.generated_family;
  so.generated_tasks = d.generated_tasks;
  // A design file is used where this host has it (fetched by a worker, the coordinator's own).
  so.design_file = d.files_digest.empty() ? "" : d.files_path;
  if (!d.files_digest.empty() && d.files_path.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(d.Key(), ": the design file ", d.files_digest, " is not on this host"));
  }
  // The scikit-learn pack starts one process per problem: only the one asked for.
  if (d.suite == "sklearn") so.sklearn_problems = {d.name};
  return MakeSuite(d.suite, so);
}

void ProblemLibrary::Add(const ProblemDefinition& definition, const Problem* problem) {
  absl::MutexLock l(&mu_);
  // Not owned: a shared_ptr that deletes nothing.
  by_key_[definition.Key()] =
      Entry{std::shared_ptr<const Problem>(problem, [](const Problem*) {}), true, ++clock_};
}

size_t ProblemLibrary::size() {
  absl::MutexLock l(&mu_);
  return by_key_.size();
}

void ProblemLibrary::Evict() {
  size_t built = 0;
  for (const auto& [key, e] : by_key_) built += e.added ? 0 : 1;
  while (built > max_problems_) {
    auto oldest = by_key_.end();
    for (auto it = by_key_.begin(); it != by_key_.end(); ++it) {
      if (!it->second.added &&
          (oldest == by_key_.end() || it->second.last_used < oldest->second.last_used)) {
        oldest = it;
      }
    }
    by_key_.erase(oldest);
    --built;
  }
}

absl::StatusOr<ProblemLibrary::Built> ProblemLibrary::Get(const ProblemDefinition& d) {
  const std::string key = d.Key();
  Built found;
  {
    absl::MutexLock l(&mu_);
    auto it = by_key_.find(key);
    if (it != by_key_.end()) {
      it->second.last_used = ++clock_;
      found.problem = it->second.problem;
    }
    auto sig = signatures_.find(key);
    if (sig != signatures_.end()) found.signature = sig->second;
  }
  if (found.problem == nullptr) {
    ASSIGN_OR_RETURN(Problems built, Build(d));
    absl::MutexLock l(&mu_);
    for (auto& p : built) {
      ProblemDefinition member = d;
      member.name = p->name();
      std::shared_ptr<const Problem> shared(std::move(p));
      if (member.name == d.name) found.problem = shared;
      // The first build of a key wins; a concurrent second one is dropped.
      by_key_.emplace(member.Key(), Entry{std::move(shared), false, 0});
    }
    auto it = by_key_.find(key);
    if (it == by_key_.end() || found.problem == nullptr) {
      return absl::NotFoundError(absl::StrCat("no problem \"", d.name.substr(0, 200),
                                              "\" in suite ", d.suite.substr(0, 64)));
    }
    it->second.last_used = ++clock_;
    found.problem = it->second.problem;
    Evict();
  }
  if (found.signature.empty()) {
    // Evaluated outside the lock (a few seconds for a scikit-learn model).
    found.signature = ProblemSignature(*found.problem);
    absl::MutexLock l(&mu_);
    signatures_[key] = found.signature;
  }
  return found;
}

absl::StatusOr<std::map<std::string, ProblemDefinition>> SuiteDefinitions(
    const std::string& suite, const std::string& suite_file, const SuiteOptions& o,
    const std::vector<std::string>& names) {
  std::map<std::string, ProblemDefinition> out;
  // A design file travels by its content address.
  std::string design_digest;
  if (!o.design_file.empty()) {
    std::ifstream in(o.design_file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.is_open()) {
      return absl::NotFoundError(absl::StrCat("cannot read design file ", o.design_file));
    }
    design_digest = ProblemFilesDigest(bytes);
  }
  auto define = [&](const std::string& s, const std::string& name, uint64_t seed) {
    ProblemDefinition d{s, name, s == "practice" ? 0 : seed, "", 0, "", ""};
    if (s == "generated") {
      d.generated_family = o.generated_family;
      d.generated_tasks = o.generated_tasks;
      if (!o.design_file.empty()) {
        d.files_digest = design_digest;
        d.files_path = o.design_file;
      }
    }
    out[name] = d;
  };
  if (suite_file.empty()) {
    for (const std::string& name : names) define(suite, name, o.seed);
    return out;
  }
  std::ifstream in(suite_file);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read suite file ", suite_file));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("problems") ||
      !j["problems"].is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(suite_file, ": expected {\"name\": ..., \"problems\": [...]}"));
  }
  for (const auto& e : j["problems"]) {
    if (!e.is_object() || !e.contains("suite") || !e["suite"].is_string() ||
        !e.contains("problem") || !e["problem"].is_string()) {
      continue;  // MakeSuiteFromFile refuses such a file before this matters
    }
    const std::string name = e["problem"];
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    uint64_t seed = o.seed;
    if (e.contains("seed") && e["seed"].is_number_unsigned()) seed = e["seed"].get<uint64_t>();
    define(e["suite"].get<std::string>(), name, seed);
  }
  return out;
}

}  // namespace bbo
