#include "problems/registry.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "problems/external/problem.h"
#include "problems/generated/task_generator.h"
#include "problems/internal/bbob.h"
#include "problems/internal/synthetic_suite.h"
#include "problems/practice_suite.h"
#if BBO_WITH_ML_PROBLEMS
#include "problems/ml/metrics.h"
#include "problems/ml/ml_suite.h"
#endif

namespace bbo {
namespace {

using Problems = std::vector<std::unique_ptr<Problem>>;

absl::StatusOr<Problems> Bbob(const std::vector<int>& dims, uint64_t seed) {
  Problems out;
  for (int dim : dims) {
    for (int f = 1; f <= 24; ++f) {
      ASSIGN_OR_RETURN(auto p, problems_internal::MakeBbobProblem(
                                   f, dim, static_cast<int>(seed % 1000000) + 1));
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<nlohmann::json>> DescribeSklearnPack(const SuiteOptions& o) {
  const std::string python_dir = o.python_dir.empty() ? std::string(BBO_PYTHON_DIR) : o.python_dir;
  const std::string pack = python_dir + "/problems/sklearn_pack.py";
  FILE* f = popen(("/usr/bin/python3 " + pack + " --describe-all 2>/dev/null").c_str(), "r");
  if (f == nullptr) return absl::UnavailableError("cannot run " + pack);
  std::string text;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  const int status = pclose(f);
  nlohmann::json all = nlohmann::json::parse(text, nullptr, false);
  if (status != 0 || !all.is_array()) {
    return absl::UnavailableError(absl::StrCat("cannot describe the scikit-learn pack (", pack,
                                               "): is python3-sklearn installed?"));
  }
  std::vector<nlohmann::json> out;
  for (auto& d : all) {
    if (o.sklearn_problems.empty() ||
        std::find(o.sklearn_problems.begin(), o.sklearn_problems.end(),
                  d.value("name", std::string())) != o.sklearn_problems.end()) {
      out.push_back(std::move(d));
    }
  }
  return out;
}

namespace {

absl::StatusOr<Problems> Sklearn(const SuiteOptions& o) {
  const std::string python_dir = o.python_dir.empty() ? std::string(BBO_PYTHON_DIR) : o.python_dir;
  const std::string pack = python_dir + "/problems/sklearn_pack.py";
  if (o.max_processes_per_problem < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_processes_per_problem is ", o.max_processes_per_problem, "; it must be >= 1"));
  }
  std::vector<std::string> names = o.sklearn_problems;
  if (names.empty()) {
    // Every problem of the pack: its --list output.
    FILE* f = popen(("/usr/bin/python3 " + pack + " --list 2>/dev/null").c_str(), "r");
    if (f == nullptr) return absl::UnavailableError("cannot run " + pack);
    char line[512];
    while (std::fgets(line, sizeof(line), f) != nullptr) {
      std::string name(line);
      while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
      if (!name.empty()) names.push_back(name);
    }
    if (pclose(f) != 0 || names.empty()) {
      return absl::UnavailableError(absl::StrCat("cannot list the scikit-learn pack (", pack,
                                                 "): is python3-sklearn installed?"));
    }
  }
  // Each problem is one Python process (importing scikit-learn takes about a second): start
  // them a few at a time.
  std::vector<absl::StatusOr<std::unique_ptr<ExternalProblem>>> started;
  started.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) started.emplace_back(absl::InternalError("not started"));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < names.size(); i = next++) {
      ExternalProblemOptions eo;
      eo.argv = {"/usr/bin/python3", pack, "--problem", names[i], "--shuffle-seed",
                 std::to_string(o.seed)};
      eo.evaluate_time_limit = absl::Seconds(120);
      eo.max_processes = o.max_processes_per_problem;
      started[i] = ExternalProblem::Start(eo);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  Problems out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!started[i].ok()) {
      return absl::Status(started[i].status().code(),
                          absl::StrCat("sklearn problem ", names[i], ": ",
                                       started[i].status().message()));
    }
    out.push_back(*std::move(started[i]));
  }
  return out;
}

#if BBO_WITH_ML_PROBLEMS
// The (model, metric) pairs of the ml suite, in suite model order. The names come from the
// suite itself on one generated dataset per task, so they follow its naming.
const std::vector<std::pair<std::string, std::string>>& MlFamilies() {
  static const auto* const families = [] {
    ml::MlSuiteOptions mo;
    mo.include_classic = false;
    mo.generated_seeds = {1};
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const std::string& name : ml::MlSuiteProblemNames(mo)) {
      // "ml_<model>_<dataset>_<metric>": no component contains '_'.
      const std::vector<std::string> parts = absl::StrSplit(name, '_');
      if (parts.size() == 4) pairs.emplace_back(parts[1], parts[3]);
    }
    auto* out = new std::vector<std::pair<std::string, std::string>>();
    for (const std::string& model : ml::MlModelIds()) {
      for (const auto metric :
           {ml::MlMetric::kNll, ml::MlMetric::kErrorRate, ml::MlMetric::kMae, ml::MlMetric::kMse}) {
        const std::pair<std::string, std::string> pair(model, ml::MetricId(metric));
        if (std::find(pairs.begin(), pairs.end(), pair) != pairs.end()) out->push_back(pair);
      }
    }
    return out;
  }();
  return *families;
}

absl::StatusOr<Problems> MlFamilyTasks(const std::string& model, const std::string& metric,
                                       uint64_t seed) {
  ml::MlSuiteOptions mo;
  mo.seed = seed;
  mo.model_ids = {model};
  // digits (1,797 rows x 64 features) costs far more per evaluation than the others.
  for (const std::string& name : ml::ClassicDatasetNames()) {
    if (name != "digits") mo.dataset_names.push_back(name);
  }
  for (uint64_t s : mo.generated_seeds) {
    mo.dataset_names.push_back(absl::StrCat("gen-clf-s", s));
    mo.dataset_names.push_back(absl::StrCat("gen-reg-s", s));
  }
  std::vector<std::string> skipped;
  Problems out;
  for (auto& p : ml::MakeMlSuite(mo, &skipped)) {
    if (absl::EndsWith(p->name(), absl::StrCat("_", metric))) out.push_back(std::move(p));
  }
  if (out.size() < 2) {
    return absl::FailedPreconditionError(absl::StrCat("family ml-", model, "-", metric, ": only ",
                                                      out.size(), " task(s) could be built; ",
                                                      absl::StrJoin(skipped, "; ")));
  }
  return out;
}
#endif

// The design of the generated suite's family: from the design file, or run now.
absl::StatusOr<TaskFamilyDesign> FamilyDesign(const SuiteOptions& o) {
  if (!o.design_file.empty()) {
    auto design = LoadDesign(o.design_file, o.generated_family);
    if (design.status().code() == absl::StatusCode::kNotFound) {
      // Say which families the file does hold.
      std::vector<std::string> stored;
      if (auto listed = ListDesigns(o.design_file); listed.ok()) {
        for (const DesignSummary& s : *listed) stored.push_back(s.family);
      }
      return absl::NotFoundError(absl::StrCat(
          "generated: ", design.status().message(),
          stored.empty()
              ? ""
              : absl::StrCat(" (families in the file: ", absl::StrJoin(stored, ", "), ")")));
    }
    return design;
  }
  ASSIGN_OR_RETURN(Problems real, MakeFamilyTasks(o.generated_family, 0));
  std::vector<const Problem*> tasks;
  for (const auto& p : real) tasks.push_back(p.get());
  return RunDesign(o.generated_family, tasks, kDefaultDesignPoints);
}

absl::StatusOr<Problems> Generated(const SuiteOptions& o) {
  ASSIGN_OR_RETURN(TaskFamilyDesign design, FamilyDesign(o));
  ASSIGN_OR_RETURN(auto generator, TaskGenerator::Fit(design));
  Problems out;
  for (int i = 0; i < o.generated_tasks; ++i) {
    out.push_back(generator->Generate(o.seed * 1000003ull + static_cast<uint64_t>(i)));
  }
  return out;
}

}  // namespace

std::vector<std::string> SuiteNames() {
  return {"practice", "synthetic", "bbob", "ml", "sklearn", "generated"};
}

std::vector<std::string> GeneratedFamilies() {
  std::vector<std::string> out = {"bbob-d5"};
#if BBO_WITH_ML_PROBLEMS
  for (const auto& [model, metric] : MlFamilies()) {
    out.push_back(absl::StrCat("ml-", model, "-", metric));
  }
#endif
  return out;
}

absl::StatusOr<Problems> MakeFamilyTasks(const std::string& family, uint64_t seed) {
  if (family == "bbob-d5") return Bbob({5}, seed);
#if BBO_WITH_ML_PROBLEMS
  for (const auto& [model, metric] : MlFamilies()) {
    if (family == absl::StrCat("ml-", model, "-", metric)) {
      return MlFamilyTasks(model, metric, seed);
    }
  }
#endif
  return absl::NotFoundError(absl::StrCat(
      "unknown task family \"", family, "\" (known: ", absl::StrJoin(GeneratedFamilies(), ", "),
      "; a design file made by `bbo tasks design` may hold others)"));
}

absl::StatusOr<Problems> MakeSuite(const std::string& name, const SuiteOptions& o) {
  if (name == "practice") return MakePracticeSuite();
  if (name == "synthetic") return problems_internal::MakeSyntheticSuite(o.seed);
  if (name == "bbob") return Bbob({2, 5, 10, 20}, o.seed);
  if (name == "bbob-d5") return Bbob({5}, o.seed);
  if (name == "ml") {
#if BBO_WITH_ML_PROBLEMS
    ml::MlSuiteOptions mo;
    mo.seed = o.seed;
    return ml::MakeMlSuite(mo);
#else
    return absl::UnimplementedError("this build has no ML problems (BBO_WITH_ML_PROBLEMS=OFF)");
#endif
  }
  if (name == "sklearn") return Sklearn(o);
  if (name == "generated") return Generated(o);
  return absl::NotFoundError(absl::StrCat("unknown suite \"", name, "\" (known: ",
                                          absl::StrJoin(SuiteNames(), ", "), ")"));
}

absl::StatusOr<Problems> MakeSuiteFromFile(const std::string& path, const SuiteOptions& o) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read suite file ", path));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("problems") ||
      !j["problems"].is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected {\"name\": ..., \"problems\": [...]}"));
  }
  // Suites are built once per (suite, seed) and the named problems moved out.
  std::map<std::pair<std::string, uint64_t>, Problems> built;
  Problems out;
  int index = 0;
  for (const auto& e : j["problems"]) {
    const std::string where = absl::StrCat(path, ": problems[", index++, "]");
    if (!e.is_object() || !e.contains("suite") || !e["suite"].is_string() ||
        !e.contains("problem") || !e["problem"].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": needs \"suite\" and \"problem\""));
    }
    SuiteOptions so = o;
    if (e.contains("seed")) {
      if (!e["seed"].is_number_unsigned()) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": seed must be an integer >= 0"));
      }
      so.seed = e["seed"].get<uint64_t>();
    }
    const std::string suite = e["suite"], problem = e["problem"];
    if (suite == "sklearn") so.sklearn_problems = {problem};
    auto key = std::make_pair(suite, so.seed);
    if (!built.count(key) || suite == "sklearn") {
      auto made = MakeSuite(suite, so);
      if (!made.ok()) {
        return absl::Status(made.status().code(), absl::StrCat(where, ": ", made.status().message()));
      }
      built[key] = *std::move(made);
    }
    bool found = false;
    for (auto& p : built[key]) {
      if (p != nullptr && p->name() == problem) {
        out.push_back(std::move(p));
        found = true;
        break;
      }
    }
    if (!found) {
      return absl::NotFoundError(absl::StrCat(where, ": no problem \"", problem, "\" in suite ",
                                              suite, " (or it is listed twice)"));
    }
  }
  if (out.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no problems"));
  return out;
}

}  // namespace bbo
