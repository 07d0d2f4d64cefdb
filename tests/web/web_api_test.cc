// The web leaderboard's JSON API (docs/web.md) on a real bbo-server and SQLite file, with a real
// sandboxed bbo-worker, the bbo CLI and tokens from `bbo admin`: a three-phase competition
// (practice, a hidden feedback phase, a final whose board is hidden until published) whose
// calendar the test moves (--testing_calendar_file). Checked: who sees which submissions, scores
// and per-problem results; the hidden final board refused to teams until `bbo admin publish
// final`, live for organizers; the queue and workers for organizers only; 401 and no data for
// bad tokens, every refusal in the audit log; submission logs for their team and organizers only; a name holding HTML comes back as text that
// cannot be read as markup; the security headers; the request-size limit; plain HTTP refused on
// a non-loopback address; HTTPS with the gRPC port's certificate. Every wait has a deadline.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "tests/spawned_process.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Proc = bbo::testing::SpawnedProcess;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kCompetition[] = R"json(
// tests/web: the shape of deploy/competition.json with tiny budgets.
{
  "name": "web-2026",
  "seed": 11,
  "phases": [
    {"name": "practice", "title": "Practice", "rules": "Try things out. <b>Not bold.</b>",
     "start": "2026-01-01T00:00:00Z", "end": "2026-02-01T00:00:00Z",
     "problem_set": "test", "batch_size": 4, "n_batches": 3, "default_trials": 1,
     "baseline_trials": 1},
    {"name": "feedback", "title": "Feedback", "start": "2026-02-01T00:00:00Z",
     "end": "2026-03-01T00:00:00Z", "problem_set": "test", "batch_size": 4, "n_batches": 3,
     "default_trials": 1, "baseline_trials": 1, "hidden": true},
    {"name": "final", "title": "Final", "migrate_from": "feedback",
     "start": "2026-03-01T00:00:00Z", "end": "2026-03-15T00:00:00Z",
     "board": "hidden_until_published", "problem_set": "test", "batch_size": 4,
     "n_batches": 3, "default_trials": 2, "baseline_trials": 1, "hidden": true}
  ]
})json";

// A name no validation lets through, written into the database behind the server's back: what
// the page must show as text if one ever got there.
constexpr char kHtmlName[] = "<img src=x onerror=alert(1)>";

std::string Q(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  std::string out;
  if (sqlite3_open(db.c_str(), &h) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 5000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

// Reads a port file once it holds a number (at most 10 s).
int WaitPort(const fs::path& file) {
  for (int i = 0; i < 100; ++i) {
    const std::string text = bbo::testing::ReadWholeFile(file.string());
    if (!text.empty() && text.back() == '\n') return std::atoi(text.c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 0;
}

// A TCP connection to 127.0.0.1:`port` (its descriptor), or -1.
int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) return fd;
  if (fd >= 0) close(fd);
  return -1;
}

struct Answer {
  int status = 0;
  std::string body;
  httplib::Headers headers;
  json Json() const { return json::parse(body, nullptr, false); }
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

class WebApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("bbo_web_api_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "sub");
    db_ = (root_ / "arena.sqlite").string();
  }
  void TearDown() override {
    worker_.reset();
    server_.reset();
    if (!HasFailure()) fs::remove_all(root_);
  }
  // The competition of kCompetition, with `top` (e.g. "\"registration\": \"open\",") added
  // to its top-level keys.
  void MakeCompetition(const std::string& top = "") {
    fs::copy_file(fs::path(BBO_TEST_OPTIMIZERS) / "steady" / "optimizer.py",
                  root_ / "sub" / "optimizer.py");
    std::string text = kCompetition;
    text.replace(text.find("\"seed\": 11,"), 11, "\"seed\": 11, " + top);
    std::ofstream(root_ / "competition.json") << text;
    for (const char* team : {"red", "blue"}) {
      tokens_[team] = bbo::testing::BboAdmin(BBO_CLI_BIN, db_, std::string("team add ") + team);
      std::ofstream(root_ / (std::string(team) + ".token")) << tokens_[team] << "\n";
    }
    tokens_["organizer"] = bbo::testing::BboAdmin(BBO_CLI_BIN, db_, "organizer add ops");
    tokens_["worker"] = bbo::testing::BboAdmin(BBO_CLI_BIN, db_, "worker add host");
    std::ofstream(root_ / "worker.token") << tokens_["worker"] << "\n";
  }
  // bbo-server with the competition and the web leaderboard; `extra` flags appended.
  void StartServer(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {BBO_SERVER_BIN,
                                     "--listen=127.0.0.1:0",
                                     "--port_file=" + (root_ / "port").string(),
                                     "--db=" + db_,
                                     "--competition_file=" + (root_ / "competition.json").string(),
                                     "--testing_calendar_file=" + (root_ / "date").string(),
                                     "--web_listen=127.0.0.1:0",
                                     "--web_port_file=" + (root_ / "web_port").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    server_ = std::make_unique<Proc>(argv, (root_ / "server.log").string());
    grpc_port_ = WaitPort(root_ / "port");
    web_port_ = WaitPort(root_ / "web_port");
  }
  void StartWorker() {
    worker_ = std::make_unique<Proc>(
        std::vector<std::string>{BBO_WORKER_BIN,
                                 "--coordinator=127.0.0.1:" + std::to_string(grpc_port_),
                                 "--work_dir=" + (root_ / "work").string(),
                                 "--token_file=" + (root_ / "worker.token").string(),
                                 "--python_dir=" BBO_PYTHON_DIR, "--cgroups=auto"},
        (root_ / "worker.log").string());
  }
  void SetDate(const std::string& rfc3339) {
    std::ofstream(root_ / "date.tmp") << rfc3339 << "\n";
    fs::rename(root_ / "date.tmp", root_ / "date");
  }
  // `bbo ARGS` with the token of `who`; its exit code.
  int Bbo(const std::string& args, const std::string& who) {
    const std::string cmd = std::string(BBO_CLI_BIN) + " --token_file " +
                            (root_ / (who + ".token")).string() + " " + args +
                            " --server 127.0.0.1:" + std::to_string(grpc_port_) + " >>" +
                            (root_ / "cli.log").string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string Submit(const std::string& name, const std::string& who) {
    EXPECT_EQ(Bbo("submit " + (root_ / "sub").string() + " --name " + name, who), 0) << Logs();
    return Q(db_, "SELECT id FROM submissions WHERE name = '" + name + "'");
  }
  bool WaitIdle(int seconds) {
    for (int i = 0; i < seconds * 10; ++i) {
      if (Q(db_, "SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'leased')") == "0") {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  // GET `path` with the token of `who` ("" = none; anything not a known name is sent as is).
  Answer Get(const std::string& path, const std::string& who) {
    httplib::Client client("127.0.0.1", web_port_);
    client.set_connection_timeout(5);
    client.set_read_timeout(30);
    httplib::Headers headers;
    if (!who.empty()) {
      headers.emplace("Authorization",
                      tokens_.count(who) ? "Bearer " + tokens_[who] : who);
    }
    auto res = client.Get(path, headers);
    if (!res) return {};
    return {res->status, res->body, res->headers};
  }
  // POST `body` to `path` as `who` (as Get), with `type` as its Content-Type.
  Answer Post(const std::string& path, const std::string& who, const std::string& body,
              const std::string& type = "application/json") {
    httplib::Client client("127.0.0.1", web_port_);
    client.set_connection_timeout(5);
    client.set_read_timeout(30);
    httplib::Headers headers;
    if (!who.empty()) {
      headers.emplace("Authorization", tokens_.count(who) ? "Bearer " + tokens_[who] : who);
    }
    auto res = client.Post(path, headers, body, type);
    if (!res) return {};
    return {res->status, res->body, res->headers};
  }
  // POST the bytes of `file` as an upload named `name` (as the page does).
  Answer Upload(const std::string& name, const std::string& who, const std::string& bytes,
                const std::string& type = "application/octet-stream") {
    return Post("/api/submit?name=" + name, who, bytes, type);
  }
  // Sends `head` (request line and headers, no body) on a fresh connection and returns what
  // comes back within 5 s.
  std::string Raw(const std::string& head) {
    const int fd = ConnectLoopback(web_port_);
    std::string out;
    if (fd >= 0 &&
        send(fd, head.data(), head.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head.size())) {
      timeval tv{5, 0};
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      char buf[4096];
      for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, n);
    }
    if (fd >= 0) close(fd);
    return out;
  }
  // `bbo ARGS --server ...` as `who`: its stdout and stderr, and its exit code.
  std::pair<std::string, int> BboOutput(const std::string& args, const std::string& who) {
    const std::string cmd = std::string(BBO_CLI_BIN) + " --token_file " +
                            (root_ / (who + ".token")).string() + " " + args +
                            " --server 127.0.0.1:" + std::to_string(grpc_port_) + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    for (size_t n; p && (n = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
    const int status = p ? pclose(p) : -1;
    return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
  }
  int AuditRefusals() {
    return std::atoi(
        Q(db_, "SELECT COUNT(*) FROM audit WHERE allowed = 0 AND action LIKE 'web:%'").c_str());
  }
  std::string Logs() {
    auto tail = [](const std::string& t) { return t.size() > 3000 ? t.substr(t.size() - 3000) : t; };
    return "--- server.log\n" + tail(bbo::testing::ReadWholeFile((root_ / "server.log").string())) +
           "--- worker.log\n" + tail(bbo::testing::ReadWholeFile((root_ / "worker.log").string())) +
           "--- cli.log\n" + tail(bbo::testing::ReadWholeFile((root_ / "cli.log").string()));
  }

  fs::path root_;
  std::string db_;
  std::map<std::string, std::string> tokens_;
  int grpc_port_ = 0;
  int web_port_ = 0;
  std::unique_ptr<Proc> server_;
  std::unique_ptr<Proc> worker_;
};

// The names of the submissions in an /api/submissions answer, and their teams.
std::vector<std::string> Names(const json& answer, const char* key = "name") {
  std::vector<std::string> out;
  for (const json& s : answer["submissions"]) out.push_back(s[key].get<std::string>());
  return out;
}

TEST_F(WebApiTest, EachIdentitySeesWhatTheDomainAllowsThroughEveryPhase) {
  MakeCompetition();
  SetDate("2026-01-10T00:00:00Z");
  StartServer();
  ASSERT_GT(web_port_, 0) << Logs();
  StartWorker();

  // Practice: each team submits; one name is then made into markup in the database.
  const std::string red_id = Submit("red-practice", "red");
  const std::string blue_id = Submit("blue-practice", "blue");
  ASSERT_FALSE(red_id.empty());
  Q(db_, std::string("UPDATE submissions SET name = '") + kHtmlName + "' WHERE id = " + red_id +
             " RETURNING id");
  ASSERT_TRUE(WaitIdle(40)) << Logs();
  // An error message holding markup, as an optimizer's stderr could.
  Q(db_, "INSERT INTO study_errors (study_id, batch, kind, message) SELECT id, 0, 'suggest', "
         "'<script>alert(2)</script>' FROM studies WHERE submission_id = " + red_id +
         " LIMIT 1 RETURNING id");

  // Bad tokens: 401 with a message and nothing else, each refusal audited.
  const int refusals = AuditRefusals();
  for (const std::string bad : {"Bearer bbo_team_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                                "Bearer not-a-token", "Basic cmVkOnJlZA==", "Bearer "}) {
    for (const std::string path : {"/api/me", "/api/submissions", "/api/leaderboard"}) {
      Answer a = Get(path, bad);
      EXPECT_EQ(a.status, 401) << bad << " " << path << ": " << a.body;
      json body = a.Json();
      ASSERT_TRUE(body.is_object()) << a.body;
      EXPECT_THAT(body["error"].get<std::string>(), HasSubstr("sign-in refused")) << a.body;
      EXPECT_EQ(body.size(), 2u) << a.body;  // error and code: no data
    }
  }
  EXPECT_EQ(AuditRefusals(), refusals + 12);
  // Revoked: the same.
  tokens_["revoked"] = bbo::testing::BboAdmin(BBO_CLI_BIN, db_, "team add gone");
  bbo::testing::BboAdmin(BBO_CLI_BIN, db_, "team revoke gone");
  EXPECT_EQ(Get("/api/me", "revoked").status, 401);

  // Who is who.
  EXPECT_EQ(Get("/api/me", "red").Json()["role"], "team");
  EXPECT_EQ(Get("/api/me", "red").Json()["name"], "red");
  EXPECT_EQ(Get("/api/me", "organizer").Json()["role"], "organizer");
  EXPECT_EQ(Get("/api/me", "").Json()["role"], "anonymous");
  EXPECT_EQ(Get("/api/me", "worker").Json()["role"], "worker");
  EXPECT_EQ(Get("/api/submissions", "worker").status, 403);  // a machine's token, no one's

  // A team sees its own submissions only; an organizer every team's; no token, none.
  Answer red = Get("/api/submissions", "red");
  ASSERT_EQ(red.status, 200) << red.body;
  EXPECT_THAT(Names(red.Json()), ::testing::ElementsAre(kHtmlName));
  EXPECT_THAT(Names(red.Json(), "team"), ::testing::Each("red"));
  EXPECT_THAT(Names(Get("/api/submissions", "blue").Json()),
              ::testing::ElementsAre("blue-practice"));
  Answer all = Get("/api/submissions", "organizer");
  EXPECT_THAT(Names(all.Json()), ::testing::UnorderedElementsAre(kHtmlName, "blue-practice"));
  EXPECT_EQ(Get("/api/submissions", "").status, 401);
  json mine = red.Json()["submissions"][0];
  // Its one study has an error (the one inserted above): it failed, and says so.
  EXPECT_EQ(mine["state"], "failed");
  EXPECT_THAT(mine["state_detail"].get<std::string>(), HasSubstr("1 of 1 studies had errors"));
  EXPECT_EQ(mine["jobs_done"], mine["jobs_total"]);
  EXPECT_EQ(mine["studies_with_errors"], 1);
  EXPECT_TRUE(mine["score"].is_number()) << red.body;  // practice: a public board

  // The markup comes back as JSON text that no browser would take for markup.
  EXPECT_EQ(red.body.find('<'), std::string::npos) << red.body;
  EXPECT_THAT(red.body, HasSubstr("\\u003cimg src=x onerror=alert(1)\\u003e"));
  EXPECT_EQ(red.Header("Content-Type"), "application/json; charset=utf-8");
  EXPECT_EQ(red.Header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(red.Header("Cache-Control"), "no-store");
  EXPECT_THAT(red.Header("Content-Security-Policy"), HasSubstr("script-src 'self'"));
  EXPECT_THAT(red.Header("Content-Security-Policy"), HasSubstr("frame-ancestors 'none'"));
  Answer board = Get("/api/leaderboard?phase=practice", "blue");
  ASSERT_EQ(board.status, 200) << board.body;
  EXPECT_EQ(board.body.find('<'), std::string::npos);
  EXPECT_THAT(board.Json().dump(), HasSubstr(kHtmlName));
  EXPECT_TRUE(board.Json()["per_problem"].get<bool>());
  // The board's Bayesian Plackett-Luce ranking: a posterior mean and band per submission.
  const json pl = board.Json()["plackett_luce"];
  ASSERT_TRUE(pl.is_object()) << board.body;
  ASSERT_FALSE(pl.contains("error")) << board.body;
  ASSERT_EQ(pl["methods"].size(), 2u) << board.body;
  double theta_sum = 0;
  for (const json& m : pl["methods"]) {
    ASSERT_TRUE(m["posterior_mean"].is_number()) << board.body;
    EXPECT_LE(m["lower"].get<double>(), m["posterior_mean"].get<double>());
    EXPECT_GE(m["upper"].get<double>(), m["posterior_mean"].get<double>());
    EXPECT_TRUE(m["pareto"].is_boolean());
    theta_sum += m["posterior_mean"].get<double>();
  }
  EXPECT_NEAR(theta_sum, 1.0, 1e-6);
  EXPECT_GE(pl["pareto_set"].size(), 1u);
  EXPECT_EQ(pl["band"], 0.95);
  Answer phases = Get("/api/phases", "red");
  EXPECT_EQ(phases.body.find('<'), std::string::npos);
  EXPECT_EQ(phases.Json()["phases"][0]["rules"], "Try things out. <b>Not bold.</b>");

  // A submission's log (as `bbo logs`): its team's and organizers', nobody else's.
  Answer log = Get("/api/submissions/" + red_id + "/log", "red");
  ASSERT_EQ(log.status, 200) << log.body;
  EXPECT_EQ(log.Json()["errors"][0]["message"], "<script>alert(2)</script>");
  EXPECT_EQ(log.Json()["errors"][0]["problem"], "test_crashing");  // practice: public problems
  EXPECT_EQ(log.Json()["errors_by_kind"]["suggest"], 1);
  EXPECT_EQ(log.Json()["studies"].size(), 1u);
  EXPECT_EQ(log.body.find('<'), std::string::npos);
  EXPECT_EQ(Get("/api/submissions/" + red_id + "/log", "blue").status, 404);
  EXPECT_EQ(Get("/api/submissions/" + red_id + "/log", "").status, 401);
  EXPECT_EQ(Get("/api/submissions/" + blue_id + "/log", "organizer").status, 200);

  // The queue (jobs by state, the workers): organizers only; others are refused (403).
  Answer queue = Get("/api/queue", "organizer");
  ASSERT_EQ(queue.status, 200) << queue.body;
  EXPECT_GE(queue.Json()["workers"].get<int>(), 1) << queue.body;
  EXPECT_GE(queue.Json()["workers_connected"].get<int>(), 1) << queue.body;
  EXPECT_EQ(queue.Json()["jobs_queued"], 0);
  EXPECT_GE(queue.Json()["jobs_done"].get<int>(), 2);
  for (const char* who : {"red", ""}) {
    Answer refused = Get("/api/queue", who);
    EXPECT_EQ(refused.status, *who ? 403 : 401) << who << ": " << refused.body;
    EXPECT_THAT(refused.body, Not(HasSubstr("jobs_queued"))) << who;
  }

  // Feedback (hidden problems): overall scores for teams, per-problem results for organizers.
  SetDate("2026-02-10T00:00:00Z");
  const std::string red_fb = Submit("red-feedback", "red");
  Submit("blue-feedback", "blue");
  ASSERT_TRUE(WaitIdle(40)) << Logs();
  ASSERT_EQ(Bbo("choose " + red_fb, "red"), 0) << Logs();
  Answer hidden = Get("/api/leaderboard", "red");
  ASSERT_EQ(hidden.status, 200) << hidden.body;
  EXPECT_EQ(hidden.Json()["phase"], "feedback");
  EXPECT_FALSE(hidden.Json()["per_problem"].get<bool>());
  EXPECT_THAT(hidden.body, HasSubstr("red-feedback"));
  for (const json& row : hidden.Json()["rows"]) EXPECT_TRUE(row["problems"].empty());
  EXPECT_THAT(hidden.body, Not(HasSubstr("test_crashing")));  // the problem's name
  // The ranking is an overall figure like the score: teams see it in a hidden phase too.
  EXPECT_EQ(hidden.Json()["plackett_luce"]["methods"].size(), 2u) << hidden.body;
  Answer live = Get("/api/leaderboard?phase=feedback", "organizer");
  EXPECT_TRUE(live.Json()["per_problem"].get<bool>());
  EXPECT_THAT(live.body, HasSubstr("test_crashing"));
  Answer fb_log = Get("/api/submissions/" + red_fb + "/log", "red");
  ASSERT_EQ(fb_log.status, 200) << fb_log.body;
  EXPECT_EQ(fb_log.Json()["studies"][0]["problem"], "problem-1") << fb_log.body;
  EXPECT_THAT(fb_log.body, Not(HasSubstr("test_crashing")));
  EXPECT_THAT(Get("/api/submissions/" + red_fb + "/log", "organizer").body,
              HasSubstr("test_crashing"));
  EXPECT_EQ(Get("/api/report?phase=feedback", "red").status, 403);
  Answer report = Get("/api/report?phase=feedback", "organizer");
  ASSERT_EQ(report.status, 200) << report.body;
  EXPECT_THAT(report.Json()["html"].get<std::string>(), HasSubstr("<html"));

  // The final: entries migrate when the feedback phase ends; the board is hidden from teams.
  SetDate("2026-03-02T00:00:00Z");
  for (int i = 0; i < 100 && Q(db_, "SELECT COUNT(*) FROM submissions WHERE phase = 'final' AND "
                                    "is_baseline = 0") != "2"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(WaitIdle(40)) << Logs();
  for (const std::string who : {"red", "blue", ""}) {
    Answer refused = Get("/api/leaderboard", who);
    EXPECT_EQ(refused.status, 403) << who << ": " << refused.body;
    EXPECT_THAT(refused.body, HasSubstr("hidden until the organizers publish"));
    EXPECT_THAT(refused.body, Not(HasSubstr("score")));
    EXPECT_THAT(refused.body, Not(HasSubstr("plackett")));
    EXPECT_THAT(refused.body, Not(HasSubstr("posterior")));
    EXPECT_EQ(Get("/api/report?phase=final", who).status, 403);
  }
  json final_phase = Get("/api/phases", "red").Json()["phases"][2];
  EXPECT_TRUE(final_phase["current"].get<bool>());
  EXPECT_FALSE(final_phase["shows_scores"].get<bool>());
  EXPECT_TRUE(Get("/api/phases", "organizer").Json()["phases"][2]["shows_scores"].get<bool>());
  Answer states = Get("/api/submissions?phase=final", "red");
  ASSERT_EQ(states.status, 200) << states.body;
  ASSERT_EQ(states.Json()["submissions"].size(), 1u) << states.body;
  EXPECT_EQ(states.Json()["submissions"][0]["state"], "finished");
  EXPECT_TRUE(states.Json()["submissions"][0]["score"].is_null()) << states.body;
  Answer organizer_final = Get("/api/leaderboard?phase=final", "organizer");
  ASSERT_EQ(organizer_final.status, 200) << organizer_final.body;
  EXPECT_THAT(organizer_final.body, HasSubstr("red-feedback"));
  EXPECT_THAT(organizer_final.body, HasSubstr("blue-feedback"));
  EXPECT_EQ(organizer_final.Json()["plackett_luce"]["methods"].size(), 2u) << organizer_final.body;

  // Published: every team sees it from the next call on.
  EXPECT_THAT(bbo::testing::CommandOutput(std::string(BBO_CLI_BIN) + " admin --db " + db_ +
                                          " publish final 2>&1"),
              HasSubstr("published the board of phase final"));
  Answer published = Get("/api/leaderboard?phase=final", "blue");
  ASSERT_EQ(published.status, 200) << published.body;
  EXPECT_THAT(published.body, HasSubstr("red-feedback"));
  EXPECT_FALSE(published.Json()["per_problem"].get<bool>());
  EXPECT_EQ(published.Json()["plackett_luce"], organizer_final.Json()["plackett_luce"]);
  EXPECT_TRUE(Get("/api/submissions?phase=final", "red").Json()["submissions"][0]["score"]
                  .is_number());

  // Names the domain does not know, and malformed parameters.
  EXPECT_EQ(Get("/api/leaderboard?phase=nosuch", "red").status, 404);
  EXPECT_EQ(Get("/api/leaderboard?phase=%3Cscript%3E", "red").status, 400);
  EXPECT_EQ(Get("/api/leaderboard?phase=final&board=warm-start", "organizer").status, 404);
  EXPECT_EQ(Get("/api/nosuch", "red").status, 404);
  Answer unknown_sub = Get("/api/submissions/999999/log", "organizer");
  EXPECT_EQ(unknown_sub.status, 404);
}

TEST_F(WebApiTest, ServesThePageWithItsHeadersAndRefusesLargeRequests) {
  MakeCompetition();
  SetDate("2026-01-10T00:00:00Z");
  StartServer();
  ASSERT_GT(web_port_, 0) << Logs();
  Answer page = Get("/", "");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.Header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_THAT(page.Header("Content-Security-Policy"), HasSubstr("default-src 'none'"));
  EXPECT_EQ(page.Header("X-Frame-Options"), "DENY");
  EXPECT_THAT(page.body, HasSubstr("<script src=\"/app.js\""));
  EXPECT_THAT(page.body, Not(HasSubstr("http")));  // nothing from another site
  EXPECT_EQ(Get("/app.js", "").Header("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(Get("/app.css", "").status, 200);

  httplib::Client client("127.0.0.1", web_port_);
  const std::string big(64 << 10, 'x');
  auto post = client.Post("/api/me", big, "application/octet-stream");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 413);
  EXPECT_EQ(post->body.find('x'), std::string::npos);  // nothing of the request echoed
  // The OpenAPI description is served, and every operation it describes answers (the server
  // refuses to start when a route it serves is not described: CheckRoutesDescribed).
  Answer openapi = Get("/openapi.json", "");
  ASSERT_EQ(openapi.status, 200);
  EXPECT_EQ(openapi.Header("Content-Type"), "application/json; charset=utf-8");
  const json doc = openapi.Json();
  ASSERT_TRUE(doc.is_object() && doc.contains("paths")) << openapi.body.substr(0, 200);
  EXPECT_EQ(doc["openapi"], "3.0.3");
  int operations = 0;
  for (const auto& [path, ops] : doc["paths"].items()) {
    std::string url = path;
    if (const size_t at = url.find("{id}"); at != std::string::npos) url.replace(at, 4, "1");
    for (const auto& [method, op] : ops.items()) {
      ASSERT_TRUE(op.contains("summary") && op.contains("responses")) << path;
      Answer a = method == "get" ? Get(url, "organizer") : Post(url, "organizer", "{}");
      EXPECT_TRUE(a.status == 200 || a.status == 400 || a.status == 404 || a.status == 409)
          << method << " " << path << ": " << a.status << " " << a.body;
      // A 404 here is the domain's (no submission 1), never the router's "no such page".
      EXPECT_THAT(a.body, Not(HasSubstr("no such page"))) << method << " " << path;
      EXPECT_TRUE(a.Json().is_object()) << method << " " << path;
      ++operations;
    }
  }
  EXPECT_EQ(operations, 29);
  // Views are not actions: the path is known, the method is not (405).
  auto small = client.Post("/api/me", "{}", "application/json");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, 405);
  // Still serving.
  EXPECT_EQ(Get("/api/me", "red").status, 200);
}

// Streams a request: `head` (with a Content-Length of 300 MB), then as much of a 300 MB body
// as the server takes, as fast as it takes it, until it answers and closes. The status line
// of its answer ("" when none came).
std::string SendHugeBody(int port, const std::string& head) {
  const int fd = ConnectLoopback(port);
  std::string answer;
  if (fd >= 0) {
    timeval tv{20, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    const std::string chunk(1 << 20, 'x');
    bool sending = send(fd, head.data(), head.size(), MSG_NOSIGNAL) > 0;
    for (size_t sent = 0; sending && sent < 300000000u; sent += chunk.size()) {
      sending = send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) > 0;
    }
    char buf[4096];
    for (ssize_t n; answer.size() < 65536 && (n = recv(fd, buf, sizeof(buf), 0)) > 0;) {
      answer.append(buf, n);
    }
  }
  if (fd >= 0) close(fd);
  return answer.substr(0, answer.find("\r\n"));
}

// Sends `head`, then as much of `body` as the server reads, and returns its answer (what comes
// back within 10 s, or until it closes).
std::string SendThenRead(int port, const std::string& head, const std::string& body) {
  const int fd = ConnectLoopback(port);
  std::string answer;
  if (fd < 0) return answer;
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  bool sending = send(fd, head.data(), head.size(), MSG_NOSIGNAL) > 0;
  for (size_t at = 0; sending && at < body.size(); at += 65536) {
    sending = send(fd, body.data() + at, std::min<size_t>(65536, body.size() - at),
                   MSG_NOSIGNAL) > 0;
  }
  char buf[4096];
  for (ssize_t n; answer.size() < 65536 && (n = recv(fd, buf, sizeof(buf), 0)) > 0;) {
    answer.append(buf, n);
  }
  close(fd);
  return answer;
}

// Issue 34, items 1-4 and the Host check, against a real bbo-server: each request that used to
// cost the coordinator memory or its handler threads, sent anonymously with nothing but a
// socket. Before the bounded server: a 1 MB gzip body grew it by 1 GB before its 413, a body
// without a length was read to its end (2 GB: 2,140 MB), 2,700 ranges made a 111 MB answer,
// and eight slow connections held every handler (GET /api/phases timed out at 10 s).
TEST_F(WebApiTest, AnonymousAttacksOnTheWebPortCostNeitherMemoryNorHandlers) {
  MakeCompetition("\"registration\": \"open\",");
  SetDate("2026-01-10T00:00:00Z");
  StartServer();
  ASSERT_GT(web_port_, 0) << Logs();
  ASSERT_EQ(Get("/api/phases", "").status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long idle = bbo::testing::RssKb(server_->pid());
  bbo::testing::RssPeak rss(server_->pid());
  // 1. A gzip body inflating to 256 MiB (250 KB on the wire): refused from its headers.
  std::string bomb;
  {
    const std::string cmd = "head -c 268435456 /dev/zero | gzip -9 > " +
                            (root_ / "bomb.gz").string();
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    bomb = bbo::testing::ReadWholeFile((root_ / "bomb.gz").string());
  }
  const std::string gz_head = "POST /api/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                              "application/json\r\nContent-Encoding: gzip\r\nContent-Length: " +
                              std::to_string(bomb.size()) + "\r\n\r\n";
  std::vector<std::string> gz(4);
  {
    std::vector<std::thread> t;
    for (size_t i = 0; i < gz.size(); ++i) {
      t.emplace_back([&, i] { gz[i] = SendThenRead(web_port_, gz_head, bomb); });
    }
    for (std::thread& x : t) x.join();
  }
  for (const std::string& a : gz) EXPECT_THAT(a, ::testing::StartsWith("HTTP/1.1 415")) << a;
  // 2. A body with neither Content-Length nor Transfer-Encoding, 300 MB streamed: 411 at once.
  EXPECT_THAT(SendHugeBody(web_port_, "POST /api/register HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                      "Content-Type: application/json\r\n\r\n"),
              HasSubstr("411"));
  // 3. 2,600 overlapping ranges of the API's description: answered once, whole.
  const Answer described = Get("/openapi.json", "");
  ASSERT_EQ(described.status, 200);
  std::string ranges = "Range: bytes=0-";
  for (int i = 0; i < 2600; ++i) ranges += ",0-";
  const std::string ranged = Raw("GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: "
                                 "close\r\n" + ranges + "\r\n\r\n");
  EXPECT_THAT(ranged, ::testing::StartsWith("HTTP/1.1 200"));
  EXPECT_LT(ranged.size(), described.body.size() + 4096);
  const long peak = rss.Stop();
  EXPECT_LT(peak - idle, 64 << 10) << "idle " << idle << " kB, peak " << peak << " kB";
  std::printf("gzip, unlengthed and ranged requests: idle %ld kB, peak %ld kB (+%ld kB)\n", idle,
              peak, peak - idle);
  // 4. 300 connections trickling a header line every 500 ms (more than the 8 handler threads
  // and the old server's 8-connection stall): a prompt client is answered at once throughout.
  std::vector<int> slow;
  for (int i = 0; i < 300; ++i) {
    const int fd = ConnectLoopback(web_port_);
    ASSERT_GE(fd, 0);
    const std::string line = "GET /api/phases HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    send(fd, line.data(), line.size(), MSG_NOSIGNAL);
    slow.push_back(fd);
  }
  double worst = 0;
  for (int round = 0; round < 6; ++round) {
    for (size_t i = 0; i < slow.size(); ++i) {
      const std::string more = "X-Slow-" + std::to_string(round) + ": y\r\n";
      send(slow[i], more.data(), more.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(Get("/api/phases", "").status, 200);
    worst = std::max(worst, std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                          start).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  EXPECT_LT(worst, 1.0) << "GET /api/phases took " << worst << " s beside 300 slow connections";
  // Idle connections cost descriptors, not threads.
  const long threads = bbo::testing::ThreadCount(server_->pid());
  for (int fd : slow) close(fd);
  EXPECT_LT(threads, 80);
  // 5. DNS rebinding: a loopback coordinator answers only to its own names.
  EXPECT_THAT(Raw("GET /api/phases HTTP/1.1\r\nHost: rebind.attacker.example\r\n\r\n"),
              ::testing::StartsWith("HTTP/1.1 421"));
  EXPECT_THAT(Raw("GET /api/phases HTTP/1.1\r\nHost: localhost:1\r\nConnection: close\r\n\r\n"),
              ::testing::StartsWith("HTTP/1.1 200"));
  EXPECT_EQ(Get("/api/me", "red").status, 200);  // still serving
}

// Oversized bodies from anyone cannot push the coordinator towards its memory limit through
// the web port either: four concurrent 300 MB requests (an anonymous upload, a team's upload
// over the 16 MiB bound, an anonymous registration and an organizer action) are refused from
// their headers (413, the size is checked first) and grow the coordinator by less than 64 MiB; it serves on afterwards.
TEST_F(WebApiTest, FourConcurrentHugeBodiesDoNotGrowTheCoordinatorsMemory) {
  MakeCompetition("\"registration\": \"open\",");
  SetDate("2026-01-10T00:00:00Z");
  StartServer();
  ASSERT_GT(web_port_, 0) << Logs();
  ASSERT_EQ(Get("/api/me", "red").status, 200);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const long idle = bbo::testing::RssKb(server_->pid());
  ASSERT_GT(idle, 0);
  bbo::testing::RssPeak rss(server_->pid());
  auto head = [](const std::string& target, const std::string& auth, const std::string& type) {
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
           (auth.empty() ? "" : "Authorization: Bearer " + auth + "\r\n") +
           "Content-Type: " + type + "\r\nContent-Length: 300000000\r\n\r\n";
  };
  const std::vector<std::pair<std::string, std::string>> requests = {
      {head("/api/submit?name=big", "", "application/octet-stream"), "413"},
      {head("/api/submit?name=big", tokens_["red"], "application/octet-stream"), "413"},
      {head("/api/register", "", "application/json"), "413"},
      {head("/api/admin/hide", tokens_["organizer"], "application/json"), "413"}};
  std::vector<std::string> answers(requests.size());
  std::vector<std::thread> calls;
  for (size_t i = 0; i < requests.size(); ++i) {
    calls.emplace_back([&, i] { answers[i] = SendHugeBody(web_port_, requests[i].first); });
  }
  for (std::thread& t : calls) t.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long peak = rss.Stop();
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_THAT(answers[i], HasSubstr(requests[i].second))
        << requests[i].first.substr(0, requests[i].first.find("\r\n"));
  }
  EXPECT_LT(peak - idle, 64 << 10) << "idle " << idle << " kB, peak " << peak << " kB";
  std::printf("4 x 300 MB on the web port: idle %ld kB, peak %ld kB (+%ld kB)\n", idle, peak,
              peak - idle);
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM submissions WHERE name = 'big'"), "0");
  EXPECT_EQ(Get("/api/me", "red").status, 200);  // still serving
}

// Every action (POST) and organizer read: refused without a token, with a bad, revoked, worker's
// or (for organizer routes) a team's token, each refusal audited; a team acts on its own
// submissions only (another team's is the same 404 as none); bodies are JSON objects of known
// fields (no form posts: a cross-site form cannot send application/json, and the token is never
// a cookie), nested at most 8 deep, within the size limit; markup in a reason comes back as text.
TEST_F(WebApiTest, ActionsAreRefusedToAllButTheirCallersAndCheckTheirBodies) {
  MakeCompetition();
  SetDate("2026-01-10T00:00:00Z");
  StartServer();
  ASSERT_GT(web_port_, 0) << Logs();
  StartWorker();
  const std::string red = Submit("red-practice", "red");
  const std::string blue = Submit("blue-practice", "blue");
  ASSERT_TRUE(WaitIdle(60)) << Logs();
  tokens_["revoked"] = bbo::testing::BboAdmin(BBO_CLI_BIN, db_, "team add gone");
  bbo::testing::BboAdmin(BBO_CLI_BIN, db_, "team revoke gone");
  const std::vector<std::pair<std::string, std::string>> admin = {
      {"/api/admin/hide", "{\"submission_id\": " + red + ", \"reason\": \"x\"}"},
      {"/api/admin/disqualify", R"({"phase": "practice", "team": "red", "reason": "x"})"},
      {"/api/admin/finalist", "{\"submission_id\": " + red + ", \"reason\": \"x\"}"},
      {"/api/admin/publish", R"({"phase": "final"})"},
      {"/api/admin/stop-race", R"({"phase": "final", "reason": "x"})"},
      {"/api/admin/requeue", R"({"job_id": 0})"},
      {"/api/admin/token", R"({"kind": "team", "owner": "mallory", "action": "add"})"},
      {"/api/admin/registration", R"({"team": "red", "approve": false, "reason": "x"})"},
      {"/api/admin/invite", R"({"uses": 5})"},
      {"/api/admin/invite/revoke", R"({"id": 1})"}};
  const int refusals = AuditRefusals();
  int expected = 0;
  for (const auto& [path, body] : admin) {
    for (const std::string who : {"", "red", "worker", "revoked", "Bearer bbo_team_AAAA"}) {
      Answer a = Post(path, who, body);
      EXPECT_EQ(a.status, who.empty() || who == "revoked" || who.rfind("Bearer", 0) == 0 ? 401
                                                                                            : 403)
          << path << " as " << who << ": " << a.body;
      EXPECT_EQ(a.Json().size(), 2u) << a.body;  // error and code only
      ++expected;
    }
  }
  for (const char* path : {"/api/admin/tokens", "/api/admin/jobs", "/api/admin/audit",
                           "/api/admin/events?phase=practice", "/api/admin/registrations",
                           "/api/admin/invites"}) {
    EXPECT_EQ(Get(path, "red").status, 403) << path;
    EXPECT_EQ(Get(path, "").status, 401) << path;
    expected += 2;
  }
  // Uploads: a team's token only (a worker's is refused by the domain, the others before the
  // body is read).
  for (const std::string who : {"", "worker", "revoked", "Bearer bbo_team_AAAA"}) {
    Answer a = Post("/api/submit?name=mallory", who, "bytes", "application/octet-stream");
    EXPECT_EQ(a.status, who == "worker" ? 403 : 401) << who << ": " << a.body;
    ++expected;
  }
  EXPECT_EQ(AuditRefusals(), refusals + expected);
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM invites"), "0");
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM submissions WHERE name = 'mallory'"), "0");
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM credentials WHERE owner = 'mallory'"), "0");
  EXPECT_EQ(Q(db_, "SELECT hidden FROM submissions WHERE id = " + red), "");

  // A team: its own submissions only; another team's is the 404 of none.
  EXPECT_EQ(Post("/api/withdraw", "red", "{\"submission_id\": " + blue + "}").status, 404);
  EXPECT_EQ(Post("/api/withdraw", "red", "{\"submission_id\": 999999}").status, 404);
  EXPECT_EQ(Post("/api/choose", "red", "{\"submission_id\": " + blue + "}").status, 404);
  EXPECT_EQ(Q(db_, "SELECT withdrawn FROM submissions WHERE id = " + blue), "");
  // Practice feeds no phase: choosing there says where choices are made.
  Answer choose = Post("/api/choose", "red", "{\"submission_id\": " + red + "}");
  EXPECT_EQ(choose.status, 409) << choose.body;
  EXPECT_THAT(choose.body, HasSubstr("chosen in phase"));

  // Bodies.
  EXPECT_EQ(Post("/api/withdraw", "red", "submission_id=" + red,
                 "application/x-www-form-urlencoded").status, 400);
  EXPECT_EQ(Post("/api/withdraw", "red", "{\"submission_id\": " + red + "}", "text/plain").status,
            400);
  EXPECT_EQ(Post("/api/withdraw", "red", "{\"submission_id\": ").status, 400);
  EXPECT_EQ(Post("/api/withdraw", "red", "[1]").status, 400);
  EXPECT_EQ(Post("/api/withdraw", "red", "{\"submission_id\": \"1\"}").status, 400);
  Answer unknown = Post("/api/withdraw", "red", "{\"submission_id\": 1, \"team\": \"blue\"}");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_THAT(unknown.body, HasSubstr("unknown field"));
  EXPECT_EQ(Post("/api/withdraw", "red", std::string(20, '[') + std::string(20, ']')).status, 400);
  EXPECT_EQ(Post("/api/withdraw", "red", "{\"x\": \"" + std::string(20 << 10, 'y') + "\"}").status,
            413);
  // The organizer's own actions work, and markup in a reason stays text.
  Answer hidden = Post("/api/admin/hide", "organizer",
                       "{\"submission_id\": " + blue + ", \"reason\": \"<b>copied</b>\"}");
  EXPECT_EQ(hidden.status, 200) << hidden.body;
  // The reason is the team concerned's (and the organizers'); other readers see only that the
  // organizers removed it (issue 34, item 9).
  Answer board = Get("/api/leaderboard?phase=practice", "blue");
  EXPECT_THAT(board.body, HasSubstr("\\u003cb\\u003ecopied\\u003c/b\\u003e"));
  EXPECT_THAT(board.body, Not(HasSubstr("<b>")));
  Answer others = Get("/api/leaderboard?phase=practice", "red");
  EXPECT_THAT(others.body, HasSubstr("removed by the organizers"));
  EXPECT_THAT(others.body, Not(HasSubstr("copied")));
  Answer events = Get("/api/admin/events?phase=practice", "organizer");
  EXPECT_THAT(events.body, HasSubstr("\"kind\":\"hidden\""));
  Answer issued = Post("/api/admin/token", "organizer",
                       R"({"kind": "team", "owner": "green", "action": "add"})");
  ASSERT_EQ(issued.status, 200) << issued.body;
  tokens_["green"] = issued.Json()["token"].get<std::string>();
  EXPECT_EQ(Get("/api/me", "green").Json()["name"], "green");
  EXPECT_EQ(Post("/api/admin/token", "organizer",
                 R"({"kind": "team", "owner": "green", "action": "revoke"})").status, 200);
  EXPECT_EQ(Get("/api/me", "green").status, 401);
  // A team withdraws its own.
  Answer withdrawn = Post("/api/withdraw", "red", "{\"submission_id\": " + red + "}");
  EXPECT_EQ(withdrawn.status, 200) << withdrawn.body;
  EXPECT_EQ(Get("/api/submissions", "red").Json()["submissions"][0]["state"], "withdrawn");
}

// Self-service in the browser's API: a team registers with an invite code (made by an organizer
// from `bbo admin --server`), uploads archives (checked as `bbo submit` checks them, with the
// same messages), and reads its submission's page: the check's verdict in `bbo check`'s words,
// best-so-far curves against random search, the optimizer's time per batch, the Plackett-Luce
// rating. Refused: registration without a valid code or the terms, uploads without a team's
// token (before the body is read), over the size bound (unread), chunked, or of another media
// type, another team's page.
TEST_F(WebApiTest, TeamsRegisterWithAnInviteCodeUploadAndReadTheirSubmissionsPage) {
  MakeCompetition(R"("registration": "invite_code", "terms": "Play fair.", )");
  std::ofstream(root_ / "ops.token") << tokens_["organizer"] << "\n";
  SetDate("2026-01-10T00:00:00Z");
  StartServer();
  ASSERT_GT(web_port_, 0) << Logs();
  EXPECT_EQ(Get("/api/phases", "").Json()["registration"], "invite_code");

  // Invite codes from the CLI against the running coordinator, organizers only.
  auto [refused, refused_code] = BboOutput("admin invite add --uses 1", "red");
  EXPECT_NE(refused_code, 0);
  EXPECT_THAT(refused, HasSubstr("organizer"));
  auto [code_out, code_rc] = BboOutput("admin invite add --uses 1 --note lab", "ops");
  ASSERT_EQ(code_rc, 0) << code_out;
  const std::string code = code_out.substr(code_out.find("bbo_invite_"), 43);
  ASSERT_EQ(code.rfind("bbo_invite_", 0), 0u) << code_out;

  EXPECT_EQ(Post("/api/register", "", R"({"team": "green", "accept_terms": true})").status, 400);
  EXPECT_EQ(Post("/api/register", "", R"({"team": "green", "accept_terms": true,
      "invite_code": "bbo_invite_forged"})").status, 403);
  Answer no_terms = Post("/api/register", "", R"({"team": "green", "invite_code": ")" + code + "\"}");
  EXPECT_EQ(no_terms.status, 400);
  EXPECT_THAT(no_terms.body, HasSubstr("terms"));
  EXPECT_EQ(Post("/api/register", "", R"({"team": "<b>x</b>", "accept_terms": true,
      "invite_code": ")" + code + "\"}").status, 400);
  // A team token holder is told to sign out.
  EXPECT_EQ(Post("/api/register", "red", R"({"team": "green2", "accept_terms": true,
      "invite_code": ")" + code + "\"}").status, 409);
  Answer reg = Post("/api/register", "", R"({"team": "green", "accept_terms": true,
      "email": "green@example.org", "invite_code": ")" + code + "\"}");
  ASSERT_EQ(reg.status, 200) << reg.body;
  EXPECT_EQ(reg.Json()["state"], "registered");
  tokens_["green"] = reg.Json()["token"].get<std::string>();
  EXPECT_EQ(Get("/api/me", "green").Json()["name"], "green");
  // Used up.
  EXPECT_EQ(Post("/api/register", "", R"({"team": "olive", "accept_terms": true,
      "invite_code": ")" + code + "\"}").status, 403);
  auto [regs, regs_rc] = BboOutput("admin registrations", "ops");
  EXPECT_EQ(regs_rc, 0);
  EXPECT_THAT(regs, HasSubstr("green"));
  EXPECT_THAT(regs, HasSubstr("invite code"));
  EXPECT_EQ(Get("/api/admin/registrations", "green").status, 403);
  EXPECT_EQ(Get("/api/admin/invites", "").status, 401);
  EXPECT_EQ(Post("/api/admin/invite", "green", "{}").status, 403);

  // Uploads.
  const fs::path good = root_ / "good.tar";
  ASSERT_EQ(std::system(("tar -C " + (root_ / "sub").string() + " -cf " + good.string() + " .").c_str()), 0);
  const std::string good_bytes = bbo::testing::ReadWholeFile(good.string());
  fs::create_directories(root_ / "empty");
  std::ofstream(root_ / "empty" / "README") << "no optimizer here\n";
  const fs::path empty = root_ / "empty.tar";
  ASSERT_EQ(std::system(("tar -C " + (root_ / "empty").string() + " -cf " + empty.string() + " .").c_str()), 0);
  EXPECT_EQ(Upload("g1", "", good_bytes).status, 401);
  EXPECT_EQ(Upload("g1", "Bearer bbo_team_AAAA", good_bytes).status, 401);
  EXPECT_EQ(Upload("g1", "green", good_bytes, "application/json").status, 400);
  EXPECT_EQ(Upload("g1", "green", "not an archive at all").status, 400);
  // The archive limits of bbo submit: a link in the archive is refused, naming the entry.
  fs::create_directories(root_ / "linked");
  fs::create_symlink("/etc/passwd", root_ / "linked" / "optimizer.py");
  const fs::path linked = root_ / "linked.tar";
  ASSERT_EQ(std::system(("tar -C " + (root_ / "linked").string() + " -cf " + linked.string() + " .").c_str()), 0);
  Answer link = Upload("g1", "green", bbo::testing::ReadWholeFile(linked.string()));
  EXPECT_EQ(link.status, 400) << link.body;
  EXPECT_THAT(link.body, HasSubstr("archive: "));
  Answer broken = Upload("g0", "green", bbo::testing::ReadWholeFile(empty.string()));
  EXPECT_EQ(broken.status, 400) << broken.body;
  // The same message as `bbo submit` gives for the same archive.
  auto [cli_broken, cli_rc] = BboOutput("submit " + empty.string() + " --name g0", "red");
  EXPECT_NE(cli_rc, 0);
  const std::string web_message = broken.Json()["error"].get<std::string>();
  ASSERT_FALSE(web_message.empty());
  EXPECT_THAT(cli_broken, HasSubstr(web_message));
  // Over the bound: refused from the headers alone, nothing read or buffered.
  const std::string head = "POST /api/submit?name=big HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                           "Bearer " + tokens_["green"] + "\r\nContent-Type: "
                           "application/octet-stream\r\nContent-Length: 300000000\r\n\r\n";
  EXPECT_THAT(Raw(head), HasSubstr("413"));
  std::string anonymous = head;
  anonymous.replace(anonymous.find("Authorization"), anonymous.find("\r\nContent-Type") -
                    anonymous.find("Authorization") + 2, "");
  std::string small = anonymous;
  small.replace(small.find("300000000"), 9, "1000");
  EXPECT_THAT(Raw(small), HasSubstr("401"));
  std::string chunked = head;
  chunked.replace(chunked.find("Content-Length: 300000000"), 25, "Transfer-Encoding: chunked");
  EXPECT_THAT(Raw(chunked), HasSubstr("411"));
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM submissions WHERE team = 'green'"), "0");

  StartWorker();
  Answer up = Upload("g1", "green", good_bytes);
  ASSERT_EQ(up.status, 200) << up.body;
  const std::string id = std::to_string(up.Json()["submission_id"].get<int64_t>());
  EXPECT_EQ(up.Json()["phase"], "practice");
  const std::string red = Submit("red-practice", "red");
  ASSERT_TRUE(WaitIdle(90)) << Logs();

  EXPECT_EQ(Get("/api/submissions/" + id, "red").status, 404);
  EXPECT_EQ(Get("/api/submissions/" + id, "").status, 401);
  Answer page = Get("/api/submissions/" + id, "green");
  ASSERT_EQ(page.status, 200) << page.body;
  const json p = page.Json();
  EXPECT_EQ(p["state"], "finished") << page.body;
  EXPECT_TRUE(p["verdict"]["ok"].get<bool>()) << page.body;
  ASSERT_TRUE(p["curves"]["available"].get<bool>()) << page.body;
  ASSERT_FALSE(p["curves"]["problems"].empty());
  for (const json& c : p["curves"]["problems"]) {
    EXPECT_EQ(c["submission"].size(), 3u) << c.dump();  // n_batches
    EXPECT_EQ(c["random_search"].size(), 3u) << c.dump();
    // Best so far: it never gets worse.
    for (size_t b = 1; b < c["submission"].size(); ++b) {
      EXPECT_LE(c["submission"][b].get<double>(), c["submission"][b - 1].get<double>() + 1e-12);
    }
  }
  EXPECT_EQ(p["timing"]["batches"].size(), 3u) << page.body;
  EXPECT_GT(p["timing"]["studies"].get<int>(), 0);
  EXPECT_LE(p["timing"]["batches"][0]["median_s"].get<double>(),
            p["timing"]["batches"][0]["max_s"].get<double>());
  EXPECT_EQ(p["timing"]["suggest_budget_s"], 40);
  EXPECT_TRUE(p["rating"].contains("posterior_mean")) << p["rating"].dump();

  // A submission that crashes: its page gives `bbo check`'s verdict, with the traceback line in
  // the participant's file.
  fs::create_directories(root_ / "bad");
  std::ofstream(root_ / "bad" / "optimizer.py") << "def broken(:\n";
  const fs::path bad = root_ / "bad.tar";
  ASSERT_EQ(std::system(("tar -C " + (root_ / "bad").string() + " -cf " + bad.string() + " .").c_str()), 0);
  Answer bad_up = Upload("g2", "green", bbo::testing::ReadWholeFile(bad.string()));
  ASSERT_EQ(bad_up.status, 200) << bad_up.body;
  ASSERT_TRUE(WaitIdle(90)) << Logs();
  const json bp = Get("/api/submissions/" +
                      std::to_string(bad_up.Json()["submission_id"].get<int64_t>()), "green").Json();
  EXPECT_EQ(bp["state"], "failed") << bp.dump();
  EXPECT_FALSE(bp["verdict"]["ok"].get<bool>());
  EXPECT_THAT(bp["verdict"]["text"].get<std::string>(), HasSubstr("studies did not complete"));
  EXPECT_THAT(bp["verdict"]["text"].get<std::string>(), HasSubstr("SyntaxError"));
}

// Registration by approval: the team holds a claim code; an organizer approves from `bbo admin
// --server` (or rejects with a reason the team is shown as text); the token is handed over once.
TEST_F(WebApiTest, ApprovedRegistrationsTakeTheirTokenOnceWithTheClaimCode) {
  MakeCompetition(R"("registration": "approval", )");
  std::ofstream(root_ / "ops.token") << tokens_["organizer"] << "\n";
  SetDate("2026-01-10T00:00:00Z");
  StartServer();
  ASSERT_GT(web_port_, 0) << Logs();
  Answer pending = Post("/api/register", "", R"({"team": "green", "email": "g@example.org"})");
  ASSERT_EQ(pending.status, 200) << pending.body;
  EXPECT_EQ(pending.Json()["state"], "pending");
  EXPECT_FALSE(pending.Json().contains("token"));
  const std::string claim = R"({"claim": ")" + pending.Json()["claim"].get<std::string>() + "\"}";
  EXPECT_EQ(Post("/api/register/claim", "", claim).Json()["state"], "pending");
  EXPECT_EQ(Post("/api/register/claim", "", R"({"claim": "bbo_claim_guess"})").status, 404);
  EXPECT_EQ(BboOutput("admin approve green", "red").second, 1);
  auto [approved, rc] = BboOutput("admin approve green", "ops");
  ASSERT_EQ(rc, 0) << approved;
  Answer token = Post("/api/register/claim", "", claim);
  ASSERT_EQ(token.status, 200) << token.body;
  tokens_["green"] = token.Json()["token"].get<std::string>();
  EXPECT_EQ(Get("/api/me", "green").Json()["name"], "green");
  Answer again = Post("/api/register/claim", "", claim);
  EXPECT_EQ(again.status, 409);
  EXPECT_THAT(again.body, HasSubstr("rotate"));

  Answer other = Post("/api/register", "", R"({"team": "olive"})");
  ASSERT_EQ(other.status, 200);
  EXPECT_EQ(Post("/api/admin/registration", "organizer", R"({"team": "olive"})").status, 400);
  ASSERT_EQ(Post("/api/admin/registration", "organizer",
                 R"({"team": "olive", "reason": "<b>not a team</b>"})").status, 200);
  Answer rejected = Post("/api/register/claim", "",
                         R"({"claim": ")" + other.Json()["claim"].get<std::string>() + "\"}");
  EXPECT_EQ(rejected.Json()["state"], "rejected");
  EXPECT_THAT(rejected.body, HasSubstr("\\u003cb\\u003enot a team"));
  EXPECT_FALSE(rejected.Json().contains("token"));
  auto [list, list_rc] = BboOutput("admin registrations", "ops");
  EXPECT_EQ(list_rc, 0);
  EXPECT_THAT(list, HasSubstr("rejected"));
  EXPECT_THAT(list, HasSubstr("approved"));
  // The approval, the rejection without a reason (failed) and the one with it.
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM audit WHERE action IN ('admin:approve', 'admin:reject')"),
            "3");
}

TEST_F(WebApiTest, RefusesPlainHttpOnAnAddressOtherHostsReach) {
  MakeCompetition();
  Proc server({BBO_SERVER_BIN, "--listen=127.0.0.1:0", "--db=" + (root_ / "other.sqlite").string(),
               "--competition_file=" + (root_ / "competition.json").string(),
               "--web_listen=0.0.0.0:0"},
              (root_ / "refused.log").string());
  EXPECT_EQ(server.WaitExit(std::chrono::seconds(10)), 2);
  EXPECT_THAT(bbo::testing::ReadWholeFile((root_ / "refused.log").string()),
              HasSubstr("--web_listen=0.0.0.0:0 is not loopback"));
  EXPECT_FALSE(fs::exists(root_ / "other.sqlite"));  // refused before the database is made
}

// The operations endpoint has no authentication: plain HTTP on loopback only (issue 34, 9).
TEST_F(WebApiTest, RefusesPlainMetricsOnAnAddressOtherHostsReach) {
  MakeCompetition();
  Proc server({BBO_SERVER_BIN, "--listen=127.0.0.1:0", "--db=" + (root_ / "other.sqlite").string(),
               "--competition_file=" + (root_ / "competition.json").string(),
               "--metrics_listen=0.0.0.0:0"},
              (root_ / "refused.log").string());
  EXPECT_EQ(server.WaitExit(std::chrono::seconds(10)), 2);
  EXPECT_THAT(bbo::testing::ReadWholeFile((root_ / "refused.log").string()),
              HasSubstr("--metrics_listen=0.0.0.0:0 is not loopback"));
  EXPECT_FALSE(fs::exists(root_ / "other.sqlite"));
}

TEST_F(WebApiTest, ServesHttpsWithTheCoordinatorsCertificate) {
  MakeCompetition();
  const fs::path certs = root_ / "certs";
  fs::create_directories(certs);
  // deploy/README.md, "TLS": a CA and a server certificate for the address clients dial.
  const std::string script = "set -e; cd " + certs.string() + R"(
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj "/CN=bbo-arena web test ca" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
key server.key
openssl req -new -key server.key -out server.csr -subj "/CN=bbo-arena web test server"
printf "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n" >server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile server.ext -out server.pem
)";
  std::ofstream(certs / "make.sh") << script;
  ASSERT_EQ(std::system(("bash " + (certs / "make.sh").string() + " >" +
                         (certs / "make.log").string() + " 2>&1").c_str()),
            0)
      << bbo::testing::ReadWholeFile((certs / "make.log").string());
  SetDate("2026-01-10T00:00:00Z");
  StartServer({"--tls_cert_file=" + (certs / "server.pem").string(),
               "--tls_key_file=" + (certs / "server.key").string(),
               "--metrics_listen=0.0.0.0:0",
               "--metrics_port_file=" + (root_ / "metrics_port").string()});
  ASSERT_GT(web_port_, 0) << Logs();
  EXPECT_THAT(bbo::testing::ReadWholeFile((root_ / "server.log").string()),
              HasSubstr("event=web_serving address=127.0.0.1:0 port=" +
                        std::to_string(web_port_) + " tls=on"));

  httplib::SSLClient tls("127.0.0.1", web_port_);
  tls.set_ca_cert_path((certs / "ca.pem").string());
  tls.enable_server_certificate_verification(true);
  auto me = tls.Get("/api/me", {{"Authorization", "Bearer " + tokens_["red"]}});
  ASSERT_TRUE(me) << httplib::to_string(me.error());
  EXPECT_EQ(me->status, 200);
  EXPECT_THAT(me->body, HasSubstr("\"team\""));
  // Plain HTTP gets no answer from the TLS port.
  httplib::Client plain("127.0.0.1", web_port_);
  plain.set_read_timeout(5);
  auto refused = plain.Get("/api/me");
  EXPECT_TRUE(!refused || refused->status != 200);
  // The operations endpoint on a non-loopback address: HTTPS with the same certificate.
  const int metrics_port = WaitPort(root_ / "metrics_port");
  ASSERT_GT(metrics_port, 0) << Logs();
  httplib::SSLClient ops("127.0.0.1", metrics_port);
  ops.set_ca_cert_path((certs / "ca.pem").string());
  ops.enable_server_certificate_verification(true);
  auto health = ops.Get("/healthz");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
  httplib::Client ops_plain("127.0.0.1", metrics_port);
  ops_plain.set_read_timeout(5);
  auto plain_health = ops_plain.Get("/healthz");
  EXPECT_TRUE(!plain_health || plain_health->status != 200);
}

}  // namespace
