#include "report/results_csv.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace bbo::scoring {
namespace {

absl::Status LineError(int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("line ", line, ": ", what));
}

absl::StatusOr<double> ParseValue(absl::string_view field, int line, absl::string_view column) {
  std::string f = absl::AsciiStrToLower(absl::StripAsciiWhitespace(field));
  if (f == "inf" || f == "+inf" || f == "infinity") return HUGE_VAL;
  if (f == "-inf" || f == "-infinity") return -HUGE_VAL;
  double v;
  if (!absl::SimpleAtod(f, &v) || std::isnan(v)) {
    return LineError(line, absl::StrCat(column, " \"", field,
                                        "\" is not a number (use inf for a crashed evaluation)"));
  }
  return v;
}

absl::StatusOr<int> ParseIndex(absl::string_view field, int line, absl::string_view column) {
  int v;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(field), &v) || v < 0) {
    return LineError(line, absl::StrCat(column, " \"", field, "\" is not an integer >= 0"));
  }
  return v;
}

void WriteNumber(std::ostream& out, double v) {
  if (std::isinf(v)) {
    out << (v > 0 ? "inf" : "-inf");
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  out << buf;
}

// A figure's field: empty (unknown) or a finite number >= 0.
absl::StatusOr<std::optional<double>> ParseFigure(absl::string_view field, int line,
                                                  absl::string_view column) {
  const absl::string_view f = absl::StripAsciiWhitespace(field);
  if (f.empty()) return std::nullopt;
  double v;
  if (!absl::SimpleAtod(f, &v) || !std::isfinite(v) || v < 0) {
    return LineError(line, absl::StrCat(column, " \"", field,
                                        "\" is not a number >= 0 (leave it empty if unknown)"));
  }
  return v;
}

// One data row's fields, by the header's columns.
absl::StatusOr<ResultsRow> ParseRow(const std::vector<std::string>& f,
                                    std::map<std::string, int>& col, int lineno,
                                    bool has_generalization) {
  ResultsRow r;
  r.problem = std::string(absl::StripAsciiWhitespace(f[col["problem"]]));
  r.method = std::string(absl::StripAsciiWhitespace(f[col["method"]]));
  if (r.problem.empty() || r.method.empty()) return LineError(lineno, "empty problem or method");
  auto trial = ParseIndex(f[col["trial"]], lineno, "trial");
  if (!trial.ok()) return trial.status();
  auto batch = ParseIndex(f[col["batch"]], lineno, "batch");
  if (!batch.ok()) return batch.status();
  auto sugg = ParseIndex(f[col["suggestion"]], lineno, "suggestion");
  if (!sugg.ok()) return sugg.status();
  auto value = ParseValue(f[col["value"]], lineno, "value");
  if (!value.ok()) return value.status();
  r.trial = *trial;
  r.batch = *batch;
  r.suggestion = *sugg;
  r.value = *value;
  if (has_generalization) {
    auto g = ParseValue(f[col["generalization"]], lineno, "generalization");
    if (!g.ok()) return g.status();
    r.generalization = *g;
  }
  if (auto c = col.find("planned_batches");
      c != col.end() && !absl::StripAsciiWhitespace(f[c->second]).empty()) {
    auto planned = ParseIndex(f[c->second], lineno, "planned_batches");
    if (!planned.ok()) return planned.status();
    if (*planned < 1) return LineError(lineno, "planned_batches must be at least 1");
    r.planned_batches = *planned;
  }
  for (const BatchFigure& figure : kBatchFigures) {
    auto c = col.find(figure.name);
    if (c == col.end()) continue;
    auto v = ParseFigure(f[c->second], lineno, figure.name);
    if (!v.ok()) return v.status();
    r.figures.*figure.value = *v;
  }
  return r;
}

}  // namespace

absl::Status WriteResultsCsv(std::ostream& out, const ResultsTable& table) {
  // The figures some row knows, in kBatchFigures order.
  std::vector<const BatchFigure*> figures;
  for (const BatchFigure& f : kBatchFigures) {
    for (const ResultsRow& r : table.rows) {
      if ((r.figures.*f.value).has_value()) {
        figures.push_back(&f);
        break;
      }
    }
  }
  // Planned batches only matter when a race planned some studies shorter than others.
  int most_planned = 0;
  for (const ResultsRow& r : table.rows) most_planned = std::max(most_planned, r.planned_batches);
  const bool planned = std::any_of(table.rows.begin(), table.rows.end(), [&](const ResultsRow& r) {
    return r.planned_batches > 0 && r.planned_batches < most_planned;
  });
  out << "problem,method,trial,batch,suggestion,value"
      << (table.has_generalization ? ",generalization" : "")
      << (planned ? ",planned_batches" : "");
  for (const BatchFigure* f : figures) out << ',' << f->name;
  out << '\n';
  for (const ResultsRow& r : table.rows) {
    out << r.problem << ',' << r.method << ',' << r.trial << ',' << r.batch << ','
        << r.suggestion << ',';
    WriteNumber(out, r.value);
    if (table.has_generalization) {
      out << ',';
      WriteNumber(out, r.generalization);
    }
    if (planned) {
      out << ',';
      if (r.planned_batches > 0) out << r.planned_batches;
    }
    for (const BatchFigure* f : figures) {
      out << ',';
      if (const std::optional<double>& v = r.figures.*f->value) WriteNumber(out, *v);
    }
    out << '\n';
  }
  if (!out) return absl::UnavailableError("cannot write the results CSV");
  return absl::OkStatus();
}

absl::StatusOr<ResultsTable> ParseResultsCsv(std::istream& in) {
  std::string line;
  int lineno = 0;
  std::map<std::string, int> col;
  while (std::getline(in, line)) {
    ++lineno;
    if (!absl::StripAsciiWhitespace(line).empty()) break;
  }
  if (lineno == 0 || absl::StripAsciiWhitespace(line).empty()) {
    return absl::InvalidArgumentError("the results table is empty");
  }
  std::vector<std::string> header = absl::StrSplit(line, ',');
  for (size_t i = 0; i < header.size(); ++i) {
    std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(header[i]));
    if (!name.empty() && name.back() == '\r') name.pop_back();
    col[name] = static_cast<int>(i);
  }
  for (const char* required : {"problem", "method", "trial", "batch", "suggestion", "value"}) {
    if (!col.count(required)) {
      return LineError(lineno, absl::StrCat("the header has no \"", required,
                                            "\" column (expected problem,method,trial,batch,"
                                            "suggestion,value[,generalization])"));
    }
  }
  ResultsTable table;
  table.has_generalization = col.count("generalization") > 0;
  std::set<std::tuple<std::string, std::string, int, int, int>> seen;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    std::vector<std::string> f = absl::StrSplit(line, ',');
    if (f.size() != header.size()) {
      return LineError(lineno, absl::StrCat("has ", f.size(), " fields, the header has ",
                                            header.size()));
    }
    ASSIGN_OR_RETURN(ResultsRow r, ParseRow(f, col, lineno, table.has_generalization));
    if (!seen.insert({r.problem, r.method, r.trial, r.batch, r.suggestion}).second) {
      return LineError(lineno, absl::StrCat("repeats problem ", r.problem, ", method ", r.method,
                                            ", trial ", r.trial, ", batch ", r.batch,
                                            ", suggestion ", r.suggestion));
    }
    table.rows.push_back(std::move(r));
  }
  if (table.rows.empty()) return absl::InvalidArgumentError("the results table has no rows");
  return table;
}

namespace {

// One batch of one (method, problem, trial): its visible min and the scored value at the
// visible argmin.
struct Cell {
  double visible = HUGE_VAL, scored = HUGE_VAL;
  int first_suggestion = INT32_MAX;
  int count = 0;
  BatchFigures figures;  // the batch's (the first row that knows each)
};

// (method, problem, trial) -> its T batches, and the batches it was planned to run (0: all).
struct Study {
  std::vector<Cell> cells;
  int planned = 0;
};
using Cells = std::map<std::tuple<std::string, std::string, int>, Study>;

// Sorts the rows into cells, and the values of each problem into in->problems (the random-search
// method's as its baseline sample). Returns whether the random-search method has rows.
bool CollectCells(const ResultsTable& table, const std::string& random_search_method,
                  bool generalization, ScoringInput* in, Cells* curves) {
  bool has_rs = false;
  for (const ResultsRow& r : table.rows) {
    const double scored = generalization ? r.generalization : r.value;
    Study& study = (*curves)[{r.method, r.problem, r.trial}];
    study.cells.resize(in->n_batches);
    if (r.planned_batches > 0) study.planned = r.planned_batches;
    Cell& c = study.cells[r.batch];
    // Bayesmark takes the first argmin of the visible loss within a batch.
    if (r.value < c.visible || (r.value == c.visible && r.suggestion < c.first_suggestion)) {
      c.visible = r.value;
      c.scored = scored;
      c.first_suggestion = r.suggestion;
    }
    c.count++;
    for (const BatchFigure& f : kBatchFigures) {
      if (!(c.figures.*f.value).has_value()) c.figures.*f.value = r.figures.*f.value;
    }
    ProblemBaselineInput& b = in->problems[r.problem];
    b.all_evals_min = std::min(b.all_evals_min, scored);
    if (r.method == random_search_method) {
      has_rs = true;
      b.random_evals.push_back(scored);
    }
  }
  return has_rs;
}

absl::Status CheckRandomSearch(const ScoringInput& in, bool has_rs,
                               const std::string& random_search_method) {
  if (!has_rs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no rows of the random-search method \"", random_search_method,
        "\" (it supplies the baselines; name it with --random-search)"));
  }
  for (const auto& [problem, b] : in.problems) {
    if (b.random_evals.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "problem \"", problem, "\" has no rows of the random-search method \"",
          random_search_method, "\""));
    }
  }
  return absl::OkStatus();
}

// A trial curve per cell row into in->methods, counting the batches without suggestions and
// those with fewer than batch_size.
void AddTrialCurves(const Cells& curves, bool generalization, ScoringInput* in,
                    int* short_batches, int* missing_batches) {
  for (const auto& [key, study] : curves) {
    const auto& [method, problem, trial] = key;
    const std::vector<Cell>& cells = study.cells;
    TrialCurve c;
    c.trial = trial;
    if (study.planned > 0 && study.planned < in->n_batches) c.horizon = study.planned;
    bool any_figure = false;
    for (size_t b = 0; b < cells.size(); ++b) {
      const Cell& cell = cells[b];
      any_figure |= AnyFigure(cell.figures);
      if (static_cast<int>(b) >= BatchesRun(c, in->n_batches)) {
        // Not run: a race planned the study shorter.
      } else if (cell.count == 0) {
        ++*missing_batches;
      } else if (cell.count < in->batch_size) {
        ++*short_batches;
      }
      c.batch_min.push_back(cell.scored);
      c.visible_min.push_back(cell.visible);
    }
    if (any_figure) {
      for (const Cell& cell : cells) c.batch_figures.push_back(cell.figures);
    }
    if (!generalization) c.visible_min.clear();
    in->methods[method][problem].trials.push_back(std::move(c));
  }
}

// Methods missing problems, ragged trial counts, missing and short batches.
void AddWarnings(const ScoringInput& in, int short_batches, int missing_batches,
                 std::vector<std::string>* warnings) {
  std::map<std::string, std::set<size_t>> trial_counts;
  for (const auto& [method, per_problem] : in.methods) {
    for (const auto& [problem, data] : per_problem) trial_counts[method].insert(data.trials.size());
    if (per_problem.size() != in.problems.size()) {
      warnings->push_back(absl::StrCat("method \"", method, "\" has results on ",
                                       per_problem.size(), " of ", in.problems.size(),
                                       " problems"));
    }
  }
  std::set<size_t> all_counts;
  for (const auto& [method, counts] : trial_counts) all_counts.insert(counts.begin(), counts.end());
  if (all_counts.size() > 1) {
    warnings->push_back(absl::StrCat(
        "ragged input: trial counts differ between methods or problems (",
        absl::StrJoin(all_counts, ", "), "); each is scored with the trials it has"));
  }
  if (missing_batches > 0) {
    warnings->push_back(absl::StrCat(missing_batches, " trial batches are missing (scored as "
                                     "cut off: the best value so far carries forward)"));
  }
  if (short_batches > 0) {
    warnings->push_back(absl::StrCat(short_batches, " batches have fewer than ", in.batch_size,
                                     " suggestions"));
  }
}

}  // namespace

absl::StatusOr<BuiltInput> BuildScoringInput(const ResultsTable& table,
                                             const std::string& random_search_method,
                                             bool generalization) {
  if (generalization && !table.has_generalization) {
    return absl::InvalidArgumentError("the table has no generalization column");
  }
  BuiltInput out;
  int max_batch = 0, max_sugg = 0;
  for (const ResultsRow& r : table.rows) {
    max_batch = std::max(max_batch, r.batch);
    max_sugg = std::max(max_sugg, r.suggestion);
  }
  ScoringInput& in = out.input;
  in.n_batches = max_batch + 1;
  in.batch_size = max_sugg + 1;
  Cells curves;
  const bool has_rs = CollectCells(table, random_search_method, generalization, &in, &curves);
  if (absl::Status st = CheckRandomSearch(in, has_rs, random_search_method); !st.ok()) return st;
  int short_batches = 0, missing_batches = 0;
  AddTrialCurves(curves, generalization, &in, &short_batches, &missing_batches);
  AddWarnings(in, short_batches, missing_batches, &out.warnings);
  return out;
}

}  // namespace bbo::scoring
