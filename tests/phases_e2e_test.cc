// One competition of three phases (practice, feedback, final) in one real bbo-server and one
// SQLite file, run end to end with a real sandboxed bbo-worker and the bbo CLI under team and
// organizer tokens. The calendar is a seam (bbo-server --testing_calendar_file: the test writes
// the date it wants; study budgets keep the real clock), so no test sleeps through real dates.
// Checked: windows refuse early and late submissions naming the window; `bbo status` shows the
// current phase and the time left; the team's choice goes on to the final phase, exactly once
// (also across a coordinator restart); the final board stays hidden from every participant
// identity until `bbo admin publish`, which is audited; organizers see it live. Bounded: every
// wait has a deadline.

#include <sqlite3.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/spawned_process.h"

namespace {

namespace fs = std::filesystem;
using Proc = bbo::testing::SpawnedProcess;
using bbo::testing::FreePort;
using bbo::testing::Q;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kCompetition[] = R"json(
// The test's competition: the same shape as examples/competition.json, with tiny budgets.
{
  "name": "e2e-2026",
  "seed": 11,
  "phases": [
    {"name": "practice", "title": "Practice", "rules": "Try things out.",
     "start": "2026-01-01T00:00:00Z", "end": "2026-02-01T00:00:00Z",
     "problem_set": "test", "batch_size": 4, "n_batches": 3, "default_trials": 1,
     "baseline_trials": 1},
    {"name": "feedback", "title": "Feedback", "start": "2026-02-01T00:00:00Z",
     "end": "2026-03-01T00:00:00Z", "problem_set": "test", "batch_size": 4, "n_batches": 3,
     "default_trials": 1, "baseline_trials": 1, "hidden": true,
     "max_submissions_per_team_per_day": 5},
    {"name": "final", "title": "Final", "migrate_from": "feedback",
     "start": "2026-03-01T00:00:00Z", "end": "2026-03-15T00:00:00Z",
     "board": "hidden_until_published", "problem_set": "test", "batch_size": 4,
     "n_batches": 3, "default_trials": 2, "baseline_trials": 1, "hidden": true,
     "anonymize": true}
  ]
})json";

// A raced phase, always open: the entries race on 1 problem x 12 trials, 2 to 4 instances a round.
constexpr char kRacingCompetition[] = R"json(
{
  "name": "race-2026",
  "seed": 5,
  "phases": [
    {"name": "final", "title": "Final", "problem_set": "test", "batch_size": 2, "n_batches": 3,
     "default_trials": 12, "max_trials": 12, "baseline_trials": 1,
     "racing": {"initial_batch": 2, "b_min": 2, "b_max": 4, "alpha": 0.9}}
  ]
})json";

// An optimizer that always suggests the point `where` of the way along every range (the test
// problem's minimum is at 0.3 of its range).
std::string FixedPointOptimizer(double where) {
  return "from bayesmark.abstract_optimizer import AbstractOptimizer\n"
         "from bayesmark.experiment import experiment_main\n"
         "class Fixed(AbstractOptimizer):\n"
         "    def suggest(self, n_suggestions=1):\n"
         "        return [{k: c['range'][0] + " + std::to_string(where) +
         " * (c['range'][1] - c['range'][0]) for k, c in self.api_config.items()}"
         " for _ in range(n_suggestions)]\n"
         "    def observe(self, X, y):\n"
         "        pass\n"
         "if __name__ == '__main__':\n"
         "    experiment_main(Fixed)\n";
}

struct Outcome {
  int code = -1;
  std::string out;  // stdout and stderr
};

class PhasesE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("bbo_phases_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "sub");
    fs::copy_file(fs::path(BBO_TEST_OPTIMIZERS) / "steady" / "optimizer.py",
                  root_ / "sub" / "optimizer.py");
    std::ofstream(root_ / "competition.json") << competition_;
    db_ = (root_ / "arena.sqlite").string();
    for (const char* team : {"red", "blue"}) {
      std::ofstream(root_ / (std::string(team) + ".token"))
          << bbo::testing::BboAdmin(BBO_CLI_BIN, db_, std::string("team add ") + team) << "\n";
    }
    std::ofstream(root_ / "organizer.token")
        << bbo::testing::BboAdmin(BBO_CLI_BIN, db_, "organizer add ops") << "\n";
    std::ofstream(root_ / "worker.token")
        << bbo::testing::BboAdmin(BBO_CLI_BIN, db_, "worker add host") << "\n";
    std::ofstream(root_ / "stranger.token") << "bbo_t_0000000000000000000000000000000000\n";
    port_ = FreePort();
    SetDate("2025-12-20T00:00:00Z");
    StartServer();
    worker_ = std::make_unique<Proc>(
        std::vector<std::string>{BBO_WORKER_BIN, "--coordinator=127.0.0.1:" + std::to_string(port_),
                                 "--work_dir=" + (root_ / "work").string(),
                                 "--token_file=" + (root_ / "worker.token").string(),
                                 "--python_dir=" BBO_PYTHON_DIR, "--cgroups=auto"},
        (root_ / "worker.log").string());
  }
  void TearDown() override {
    worker_.reset();
    server_.reset();
    if (!HasFailure()) fs::remove_all(root_);
  }
  void StartServer() {
    server_ = std::make_unique<Proc>(
        std::vector<std::string>{BBO_SERVER_BIN, "--listen=127.0.0.1:" + std::to_string(port_),
                                 "--db=" + db_,
                                 "--competition_file=" + (root_ / "competition.json").string(),
                                 "--testing_calendar_file=" + (root_ / "date").string()},
        (root_ / "server.log").string());
    for (int i = 0; i < 100 && Bbo("phases", "organizer").code != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  void SetDate(const std::string& rfc3339) {
    const fs::path tmp = root_ / "date.tmp";
    std::ofstream(tmp) << rfc3339 << "\n";
    fs::rename(tmp, root_ / "date");
  }
  // `bbo ARGS` as `who` (a token file's name, or "" for no token).
  Outcome Bbo(const std::string& args, const std::string& who) {
    const fs::path out = root_ / "cli.out";
    std::string cmd = std::string(BBO_CLI_BIN);
    if (!who.empty()) cmd += " --token_file " + (root_ / (who + ".token")).string();
    cmd += " " + args + " --server 127.0.0.1:" + std::to_string(port_) + " >" + out.string() +
           " 2>&1";
    Outcome o;
    const int status = std::system(cmd.c_str());
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.out = bbo::testing::ReadWholeFile(out.string());
    return o;
  }
  std::string Sub() { return (root_ / "sub").string(); }
  // Waits until no job is queued or leased (at most `seconds`).
  bool WaitIdle(int seconds) {
    for (int i = 0; i < seconds * 10; ++i) {
      if (Q(db_, "SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'leased')") == "0") {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  std::string Logs() {
    std::string s = bbo::testing::ReadWholeFile((root_ / "server.log").string());
    std::string w = bbo::testing::ReadWholeFile((root_ / "worker.log").string());
    auto tail = [](const std::string& t) { return t.size() > 3000 ? t.substr(t.size() - 3000) : t; };
    return "--- server.log\n" + tail(s) + "--- worker.log\n" + tail(w);
  }

  const char* competition_ = kCompetition;
  fs::path root_;
  std::string db_;
  int port_ = 0;
  std::unique_ptr<Proc> server_;
  std::unique_ptr<Proc> worker_;
};

TEST_F(PhasesE2eTest, ThreePhasesRunEndToEndWithWindowsMigrationAndAHiddenFinalBoard) {
  // Before the competition: nothing takes submissions, and the refusal gives the windows.
  Outcome early = Bbo("submit " + Sub() + " --name early", "red");
  EXPECT_EQ(early.code, 1) << early.out;
  EXPECT_THAT(early.out, HasSubstr("no phase takes submissions now"));
  EXPECT_THAT(early.out, HasSubstr("practice from 2026-01-01 00:00 UTC until 2026-02-01"));
  Outcome named = Bbo("submit " + Sub() + " --name early --phase feedback", "red");
  EXPECT_THAT(named.out, HasSubstr("phase \"feedback\" opens at 2026-02-01T00:00:00Z"));

  // Practice.
  SetDate("2026-01-10T00:00:00Z");
  Outcome status = Bbo("status", "red");
  ASSERT_EQ(status.code, 0) << status.out << Logs();
  EXPECT_THAT(status.out, HasSubstr("* practice     ends 2026-02-01T00:00:00Z (22 d 0 h left)"));
  EXPECT_THAT(status.out, HasSubstr("final        opens 2026-03-01T00:00:00Z"));
  Outcome practice = Bbo("submit " + Sub() + " --name warmup", "red");
  ASSERT_EQ(practice.code, 0) << practice.out << Logs();

  // Feedback: practice is closed, two teams submit, red twice.
  SetDate("2026-02-10T00:00:00Z");
  Outcome late = Bbo("submit " + Sub() + " --name late --phase practice", "red");
  EXPECT_EQ(late.code, 1);
  EXPECT_THAT(late.out, HasSubstr("phase \"practice\" closed at 2026-02-01T00:00:00Z"));
  ASSERT_EQ(Bbo("submit " + Sub() + " --name r1", "red").code, 0);
  ASSERT_EQ(Bbo("submit " + Sub() + " --name r2", "red").code, 0);
  ASSERT_EQ(Bbo("submit " + Sub() + " --name b1", "blue").code, 0);
  ASSERT_TRUE(WaitIdle(120)) << Logs();
  const std::string r1 = Q(db_, "SELECT id FROM submissions WHERE name = 'r1'");
  const std::string b1 = Q(db_, "SELECT id FROM submissions WHERE name = 'b1'");
  // Red goes on with its first; blue cannot choose red's.
  Outcome stolen = Bbo("choose " + r1, "blue");
  EXPECT_NE(stolen.code, 0);
  EXPECT_THAT(stolen.out, HasSubstr("no submission " + r1 + " of yours"));
  Outcome chose = Bbo("choose " + r1, "red");
  ASSERT_EQ(chose.code, 0) << chose.out;
  EXPECT_THAT(chose.out, HasSubstr("goes on to phase final"));
  EXPECT_THAT(Bbo("status --phase feedback", "red").out, HasSubstr("(chosen for the next phase)"));
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM submissions WHERE phase = 'final' AND is_baseline = 0"),
            "0");

  // The feedback phase ends: the choices move to the final phase, once.
  SetDate("2026-03-01T00:00:01Z");
  for (int i = 0; i < 100 && Q(db_, "SELECT COUNT(*) FROM phase_events WHERE kind = 'migrated'")
                                 != "1"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(Q(db_, "SELECT COUNT(*) FROM phase_events WHERE kind = 'migrated'"), "1") << Logs();
  EXPECT_EQ(Q(db_, "SELECT group_concat(migrated_from) FROM (SELECT migrated_from FROM submissions"
                   " WHERE phase = 'final' AND is_baseline = 0 ORDER BY migrated_from)"),
            std::min(r1, b1) + "," + std::max(r1, b1));
  EXPECT_EQ(Bbo("choose " + r1, "red").code, 1);  // too late to change
  ASSERT_TRUE(WaitIdle(120)) << Logs();

  // The final board is hidden from every participant identity, organizers see it live.
  for (const std::string who : {"red", "blue", "stranger", ""}) {
    Outcome board = Bbo("leaderboard --phase final", who);
    EXPECT_NE(board.code, 0) << who << ": " << board.out;
    EXPECT_THAT(board.out, Not(HasSubstr("random-search-baseline"))) << who;
    Outcome json = Bbo("leaderboard --phase final --json", who);
    EXPECT_THAT(json.out, Not(HasSubstr("\"score\""))) << who;
    Outcome report = Bbo("report --phase final --format json --out " +
                             (root_ / ("report-" + who)).string(), who);
    EXPECT_NE(report.code, 0) << who;
  }
  EXPECT_THAT(Bbo("leaderboard --phase final", "red").out, HasSubstr("hidden until the organizers publish"));
  Outcome mine = Bbo("status --phase final --json", "red");
  ASSERT_EQ(mine.code, 0) << mine.out;
  nlohmann::json rows = nlohmann::json::parse(mine.out);
  ASSERT_EQ(rows.size(), 1u) << mine.out;  // its own submission only
  EXPECT_EQ(rows[0]["team"], "red");
  EXPECT_EQ(rows[0]["state"], "finished");
  EXPECT_THAT(mine.out, Not(HasSubstr("score")));
  Outcome live = Bbo("leaderboard --phase final", "organizer");
  ASSERT_EQ(live.code, 0) << live.out;
  EXPECT_THAT(live.out, HasSubstr("r1"));
  EXPECT_THAT(live.out, HasSubstr("b1"));

  // A restart does not migrate again.
  server_.reset();
  StartServer();
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM submissions WHERE phase = 'final' AND is_baseline = 0"),
            "2");
  EXPECT_NE(Bbo("leaderboard --phase final", "blue").code, 0);

  // Publishing: recorded in the audit log; then every participant sees the board.
  const std::string publish = bbo::testing::CommandOutput(
      std::string(BBO_CLI_BIN) + " admin --db " + db_ + " publish final 2>&1");
  EXPECT_THAT(publish, HasSubstr("published the board of phase final"));
  const std::string again = bbo::testing::CommandOutput(
      std::string(BBO_CLI_BIN) + " admin --db " + db_ + " publish final 2>&1");
  EXPECT_THAT(again, HasSubstr("already published"));
  Outcome published = Bbo("leaderboard --phase final", "blue");
  ASSERT_EQ(published.code, 0) << published.out;
  EXPECT_THAT(published.out, HasSubstr("r1"));
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM audit WHERE action LIKE 'publish (bbo admin by %' AND allowed = 1"), "1");
  EXPECT_THAT(Bbo("phases", "blue").out, HasSubstr("board published"));
  // Hiding it again needs a reason and is on the record too.
  const std::string undo = bbo::testing::CommandOutput(
      std::string(BBO_CLI_BIN) + " admin --db " + db_ + " unpublish final 2>&1");
  EXPECT_THAT(undo, HasSubstr("needs --reason"));
  EXPECT_EQ(Bbo("leaderboard --phase final", "blue").code, 0);

  // Offline, on the coordinator's host: each phase's results apart.
  const std::string cli = std::string(BBO_CLI_BIN);
  const std::string final_csv =
      bbo::testing::CommandOutput(cli + " export --db " + db_ + " --phase final 2>&1");
  EXPECT_THAT(final_csv, HasSubstr(",r1,"));
  EXPECT_THAT(final_csv, HasSubstr(",b1,"));
  EXPECT_THAT(final_csv, Not(HasSubstr(",r2,")));  // not chosen: stays in the feedback phase
  const std::string feedback_csv =
      bbo::testing::CommandOutput(cli + " export --db " + db_ + " --phase feedback 2>&1");
  EXPECT_THAT(feedback_csv, HasSubstr(",r2,"));
  EXPECT_THAT(bbo::testing::CommandOutput(cli + " export --db " + db_ + " --phase nosuch 2>&1"),
              HasSubstr("no phase \"nosuch\""));
}

// Every organizer action over the network with an organizer token (bbo admin --server), none
// with any other: a team's, a stranger's, a revoked organizer's or no token. What the teams are
// told: the state of each submission, which one goes on, what is off the board and why.
TEST_F(PhasesE2eTest, OrganizerActionsWorkOverTheNetworkAndAreRefusedToEveryoneElse) {
  // A submission with a syntax error: it dies at start with a traceback on its stderr.
  fs::create_directories(root_ / "dies");
  std::ofstream(root_ / "dies" / "optimizer.py") << "def suggest(self:\n    return []\n";
  SetDate("2026-02-10T00:00:00Z");
  auto id_of = [](const Outcome& o) {
    const size_t at = o.out.find("id ");
    return at == std::string::npos ? std::string("?") : o.out.substr(at + 3, o.out.find(',', at) - at - 3);
  };
  const Outcome good = Bbo("submit " + Sub() + " --name red-good", "red");
  ASSERT_EQ(good.code, 0) << good.out << Logs();
  const Outcome dies = Bbo("submit " + (root_ / "dies").string() + " --name red-dies", "red");
  ASSERT_EQ(dies.code, 0) << dies.out << Logs();
  ASSERT_EQ(Bbo("submit " + Sub() + " --name blue-1", "blue").code, 0);
  ASSERT_TRUE(WaitIdle(240)) << Logs();
  const std::string good_id = id_of(good), dies_id = id_of(dies);

  // The team is told what happened and what goes on, before the deadline.
  Outcome status = Bbo("status --phase feedback", "red");
  ASSERT_EQ(status.code, 0) << status.out;
  EXPECT_THAT(status.out, HasSubstr("red-dies (" + dies_id + "): failed: "));
  EXPECT_THAT(status.out, HasSubstr("goes on to phase final: red-good (" + good_id +
                                    "), by default: best complete submission without errors"));
  Outcome logs = Bbo("logs " + dies_id, "red");
  EXPECT_THAT(logs.out, HasSubstr("its stderr ended with:\n  | ")) << logs.out;
  EXPECT_THAT(logs.out, HasSubstr("\n  | SyntaxError")) << logs.out;
  EXPECT_THAT(logs.out, Not(HasSubstr("\\n"))) << logs.out;  // no escaped newlines

  // Refused to everyone but an organizer, and audited.
  for (const char* who : {"red", "stranger", ""}) {
    for (const std::string& what : std::vector<std::string>{
             "hide " + good_id + " --reason x", "disqualify feedback blue --reason x",
             "finalist " + dies_id + " --reason x", "team add mallory", "audit", "jobs"}) {
      Outcome o = Bbo("admin " + what, who);
      EXPECT_EQ(o.code, 1) << who << ": " << what << "\n" << o.out;
      EXPECT_THAT(o.out, ::testing::AnyOf(HasSubstr("organizers only"),
                                          HasSubstr("token"), HasSubstr("sign")))
          << who << ": " << what;
    }
  }
  const Outcome mallory = Bbo("status", "organizer");
  EXPECT_THAT(mallory.out, Not(HasSubstr("mallory")));

  // Hiding, with the reason the team concerned (red) sees; other readers see that the organizers
  // removed it, not who or why (issue 34, item 9).
  ASSERT_EQ(Bbo("admin hide " + good_id + " --reason 'copied code'", "organizer").code, 0);
  Outcome board = Bbo("leaderboard --phase feedback", "blue");
  EXPECT_THAT(board.out, HasSubstr("Off the board:"));
  EXPECT_THAT(board.out, HasSubstr("removed by the organizers"));
  EXPECT_THAT(board.out, Not(HasSubstr("copied code")));
  EXPECT_THAT(Bbo("leaderboard --phase feedback", "red").out,
              HasSubstr("hidden by organizer ops: copied code"));
  EXPECT_EQ(Bbo("admin hide " + good_id + " --reason again", "organizer").code, 1);
  EXPECT_EQ(Bbo("admin hide " + good_id, "organizer").code, 1);  // no reason
  ASSERT_EQ(Bbo("admin unhide " + good_id + " --reason 'review done'", "organizer").code, 0);
  // Disqualifying: the team may not submit, and is told why.
  ASSERT_EQ(Bbo("admin disqualify feedback blue --reason 'two accounts'", "organizer").code, 0);
  Outcome refused = Bbo("submit " + Sub() + " --name blue-2", "blue");
  EXPECT_EQ(refused.code, 1);
  EXPECT_THAT(refused.out, HasSubstr("two accounts"));
  ASSERT_EQ(Bbo("admin requalify feedback blue --reason appeal", "organizer").code, 0);
  // The finalist, set by an organizer with a reason the team sees.
  ASSERT_EQ(Bbo("admin finalist " + good_id + " --reason 'asked by mail'", "organizer").code, 0);
  EXPECT_THAT(Bbo("status --phase feedback", "red").out,
              HasSubstr("set by organizer ops: asked by mail"));
  Outcome events = Bbo("admin events feedback", "organizer");
  for (const char* kind : {"hidden", "unhidden", "disqualified", "requalified", "finalist_set"}) {
    EXPECT_THAT(events.out, HasSubstr(kind)) << events.out;
  }
  // Tokens over the network: issued, used, revoked; a revoked organizer is refused.
  Outcome issued = Bbo("admin organizer add ops2", "organizer");
  ASSERT_EQ(issued.code, 0) << issued.out;
  const size_t at = issued.out.find("bbo_org_");
  ASSERT_NE(at, std::string::npos) << issued.out;
  std::ofstream(root_ / "ops2.token") << issued.out.substr(at, issued.out.find('\n', at) - at)
                                      << "\n";
  ASSERT_EQ(Bbo("admin jobs", "ops2").code, 0);
  ASSERT_EQ(Bbo("admin organizer revoke ops2", "organizer").code, 0);
  EXPECT_EQ(Bbo("admin jobs", "ops2").code, 1);
  Outcome audit = Bbo("admin audit --json --limit 500", "organizer");
  ASSERT_EQ(audit.code, 0) << audit.out;
  EXPECT_THAT(audit.out, HasSubstr("admin:hide"));
  EXPECT_THAT(audit.out, HasSubstr("organizer:ops"));
  EXPECT_THAT(audit.out, HasSubstr("team:red"));  // its refusals
  EXPECT_THAT(Bbo("admin tokens", "organizer").out, HasSubstr("ops2"));
}

class RacingE2eTest : public PhasesE2eTest {
 protected:
  RacingE2eTest() { competition_ = kRacingCompetition; }
};

TEST_F(RacingE2eTest, ARacedPhaseStopsTheDominatedEntryAndTheReportSaysWhatItSaved) {
  for (const auto& [name, where] : {std::pair<std::string, double>{"good", 0.3}, {"bad", 0.85}}) {
    fs::create_directories(root_ / name);
    std::ofstream(root_ / name / "optimizer.py") << FixedPointOptimizer(where);
  }
  EXPECT_THAT(Bbo("phases", "red").out, HasSubstr("raced"));
  Outcome good = Bbo("submit " + (root_ / "good").string() + " --name good", "red");
  ASSERT_EQ(good.code, 0) << good.out << Logs();
  Outcome bad = Bbo("submit " + (root_ / "bad").string() + " --name bad", "blue");
  ASSERT_EQ(bad.code, 0) << bad.out << Logs();
  // The coordinator races them round by round until the posterior decides.
  bool stopped = false;
  for (int i = 0; i < 1800 && !stopped; ++i) {
    stopped = Q(db_, "SELECT COUNT(*) FROM race_rounds WHERE phase = 'final' AND stop = 1") != "0";
    if (!stopped) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(stopped) << Q(db_, "SELECT group_concat(note, ' | ') FROM race_rounds") << Logs();
  ASSERT_TRUE(WaitIdle(120)) << Logs();
  const std::string notes = Q(db_, "SELECT group_concat(note, ' | ') FROM race_rounds");
  EXPECT_THAT(notes, HasSubstr("bad eliminated (dominated by good)")) << notes;
  const int rounds = std::stoi(Q(db_, "SELECT COUNT(*) FROM race_rounds"));
  EXPECT_GE(rounds, 2) << notes;
  // Fewer jobs than running both on all 12 instances, every one run once.
  const int jobs = std::stoi(Q(db_, "SELECT COUNT(*) FROM jobs j JOIN submissions s ON"
                                    " s.id = j.submission_id WHERE s.is_baseline = 0"));
  EXPECT_LT(jobs, 24);
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM jobs WHERE state != 'done' AND submission_id IN"
                   " (SELECT id FROM submissions WHERE is_baseline = 0)"),
            "0");
  // The organizer's report says what the race saved.
  const fs::path out = root_ / "report";
  Outcome report = Bbo("report --phase final --format html --out " + out.string(), "organizer");
  ASSERT_EQ(report.code, 0) << report.out;
  const std::string html = bbo::testing::ReadWholeFile((out / "report.html").string());
  EXPECT_THAT(html, HasSubstr("<section id=\"racing\">"));
  EXPECT_THAT(html, HasSubstr("eliminated by good"));
  EXPECT_THAT(html, HasSubstr(" planned, of 144 for running everything; saved "));
  // A restart plans nothing again: the race's rounds and jobs stay as they are.
  server_.reset();
  StartServer();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(std::stoi(Q(db_, "SELECT COUNT(*) FROM race_rounds")), rounds);
  EXPECT_EQ(std::stoi(Q(db_, "SELECT COUNT(*) FROM jobs j JOIN submissions s ON"
                             " s.id = j.submission_id WHERE s.is_baseline = 0")),
            jobs);
}

}  // namespace
