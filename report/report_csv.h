#ifndef BBO_REPORT_REPORT_CSV_H_
#define BBO_REPORT_REPORT_CSV_H_

// The CSV rendering of a report JSON (layout documented in report/report.h). report/report.h
// includes this header, so its callers see ReportCsv too.
//
// Pure and thread-safe; never throws.

#include <map>
#include <string>

#include "nlohmann/json.hpp"

namespace bbo::scoring {

// CSV renderings of a report JSON: file name -> contents (leaderboard.csv, curves.csv,
// method_problems.csv, problems.csv, bootstrap_ranks.csv, top_rankings.csv, borda.csv,
// ballots.csv, anytime.csv, attainment.csv, and from "plackett_luce" plackett_luce.csv (one row
// per method: final posterior mean and band, Pareto membership, eliminated_by, selection, model;
// or one row with the error), plackett_luce_anytime.csv (per method and batch) and
// plackett_luce_pairs.csv (per pair and batch); the same three from "plackett_luce_seconds" as
// plackett_luce_seconds*.csv, with a "timepoint" column and "time" in optimizer seconds; and
// from "racing" racing.csv (one row per submission of the race: candidate or eliminated, by
// whom, in which round, with the race's totals and the evaluations saved)). Every number of the
// JSON appears in one of them; "batch" columns count from 0 as everywhere, "time" is the
// Plackett-Luce grid's (batches done).
// Numbers are written at full precision (null as an empty field), strings quoted when they hold
// a comma, quote or line break. Tolerant of missing sections and keys, nulls and values of the
// wrong JSON type: leaderboard.csv, curves.csv, method_problems.csv and problems.csv are always
// written (possibly header only); the other files only when their section is an object; a
// list of the wrong type counts as empty.
std::map<std::string, std::string> ReportCsv(const nlohmann::json& report);

}  // namespace bbo::scoring

#endif  // BBO_REPORT_REPORT_CSV_H_
