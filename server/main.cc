// bbo-server: the bbo-arena coordinator. Serves the study, worker and competition services over
// gRPC, owns the job queue and the SQLite file, evaluates the hidden objectives and runs the
// random-search baseline.

#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/binary_main.h"
#include "common/heap_trimmer.h"
#include "problems/library.h"
#include "problems/practice_suite.h"
#include "problems/registry.h"
#include "problems/test_problems.h"
#include "server/coordinator.h"
#include "server/ops/ops_http.h"
#include "server/rpc/grpc_server.h"
#include "server/web/web_server.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "Address to serve gRPC on (host:port). An address other hosts can reach (not 127.x, "
          "::1 or localhost) needs --tls_cert_file and --tls_key_file, or --insecure.");
ABSL_FLAG(std::string, tls_cert_file, "",
          "PEM certificate (chain) of this server; with --tls_key_file the port speaks TLS only.");
ABSL_FLAG(std::string, tls_key_file, "", "PEM private key of --tls_cert_file.");
ABSL_FLAG(std::string, tls_client_ca_file, "",
          "PEM CA certificate(s): every client (workers, bbo) must present a certificate signed "
          "by one of them (mutual TLS). Needs --tls_cert_file and --tls_key_file.");
ABSL_FLAG(bool, insecure, false,
          "Serve plaintext gRPC on a --listen address other hosts can reach (default: refused). "
          "Anyone on the network can then read and forge every call, including the organizer "
          "token.");
ABSL_FLAG(std::string, db, "bbo-arena.sqlite", "SQLite file holding all results (created).");
ABSL_FLAG(int, batch_size, 8, "Points per batch, 1 to 1024.");
ABSL_FLAG(int, n_batches, 16, "Batches per study, 1 to 1000.");
ABSL_FLAG(double, suggest_budget_s, 40, "Optimizer seconds allowed per suggest (turn).");
ABSL_FLAG(double, startup_budget_s, 60,
          "Seconds a hosted optimizer may take to start (not charged to its budgets).");
ABSL_FLAG(double, study_budget_s, 640, "Optimizer seconds allowed per study.");
ABSL_FLAG(uint64_t, optimizer_memory_mb, 4096,
          "Memory a hosted optimizer may use on its worker, MiB: all of its processes, its /tmp "
          "and swap (0 = no limit). Enforced by the worker's control group.");
ABSL_FLAG(uint64_t, optimizer_max_tasks, 256,
          "Processes and threads a hosted optimizer may have alive at once (0 = no limit).");
ABSL_FLAG(double, optimizer_cpus, 1.0,
          "CPU quota of a hosted optimizer, in cores (0 = no quota).");
ABSL_FLAG(uint64_t, optimizer_tmp_mb, 512,
          "Size of a hosted optimizer's /tmp (also its /dev/shm), MiB; counts in its memory.");
ABSL_FLAG(int, default_trials, 3, "Trials per problem when a submission does not say.");
ABSL_FLAG(int, baseline_trials, 10, "Random-search baseline trials per problem.");
ABSL_FLAG(double, lease_ttl_s, 30, "Seconds a job lease lives without a worker heartbeat.");
ABSL_FLAG(int, max_job_attempts, 3,
          "Leases a job may lose (its worker died, its lease expired, the worker reported a host "
          "error) before it is marked failed for organizers to look at; a coordinator restart "
          "does not count. 1 to 100.");
ABSL_FLAG(int, eval_threads, 2,
          "Objective evaluations run at once on the coordinator (remote practice studies, the "
          "random-search baseline, and phases that evaluate here); a scikit-learn problem keeps "
          "up to this many processes.");
ABSL_FLAG(int64_t, slow_problem_ms, 1000,
          "--problem_set=slow (tests and benchmarks): milliseconds each evaluation of its one "
          "problem, test_slow, sleeps.");
ABSL_FLAG(bool, evaluate_on_coordinator, false,
          "Evaluate every objective here instead of on the workers hosting the studies (which "
          "then never receive problem definitions). docs/security.md, \"Where objectives "
          "run\", gives the trade-off.");
ABSL_FLAG(int64_t, seed, 20201, "Competition seed (job seeds derive from it).");
ABSL_FLAG(std::string, problem_set, "practice",
          "Problems to run: \"practice\" (the built-in practice suite) or \"test\" (one 1-d "
          "quadratic that crashes for x0 > 0.9; for the project's own end-to-end tests).");
ABSL_FLAG(std::string, problems, "",
          "Comma-separated subset of the suite's problems (default: all of them).");
ABSL_FLAG(std::string, suite, "",
          "Problem suite of this phase instead of --problem_set: practice, synthetic, bbob, ml, "
          "sklearn (needs --problems), generated (see `bbo problems list --suite S`).");
ABSL_FLAG(std::string, suite_file, "",
          "A suite file (JSON: {\"problems\": [{\"suite\", \"problem\", \"seed\"}]}) "
          "instead of --suite; readable by organizers only.");
ABSL_FLAG(uint64_t, suite_seed, 0, "Instance seed of --suite (shifts, rotations, splits).");
ABSL_FLAG(std::string, generated_family, "bbob-d5",
          "--suite generated: the task family (`bbo tasks list`).");
ABSL_FLAG(std::string, design_file, "",
          "--suite generated: a design file from `bbo tasks design` (default: run the design).");
ABSL_FLAG(int, generated_tasks, 50, "--suite generated: number of tasks.");
ABSL_FLAG(bool, use_known_optimum, false,
          "Normalize with the best known optimum of each problem when it is lower than the best "
          "value any method found (default: Bayesmark's estimator, the best value found).");
ABSL_FLAG(std::string, phase, "practice",
          "Name of the competition phase this coordinator runs (practice, feedback, final); "
          "reports and `bbo report --phase` use it.");
ABSL_FLAG(bool, anonymize, false,
          "Hidden phases: optimizers see opaque parameter names p0, p1, ... (shuffled per "
          "problem with --seed); results are stored under the real names.");
ABSL_FLAG(int, max_submissions_per_team_per_day, 0,
          "Submissions a team may register per UTC day (0 = no daily limit).");
ABSL_FLAG(int, max_submissions_per_team, 0,
          "Submissions one team may register in this phase (0 = no limit); with a limit, "
          "submissions need a team token (bbo admin team add NAME).");
ABSL_FLAG(bool, evaluate_once, false,
          "The final phase's rule: every submission runs once with --default_trials trials "
          "(submissions cannot choose), and an archive identical to a registered one is refused.");
ABSL_FLAG(bool, warm_start_board, false,
          "With --anonymize: also run every submission on the same problems and seeds with the "
          "real parameter names, for a second \"warm-start\" board (NeurIPS 2020 BBO challenge "
          "§4.7); `bbo leaderboard --board warm-start`.");
ABSL_FLAG(bool, allow_changed_problems, false,
          "Start even if a problem's signature (values at fixed probe points) differs from the "
          "one recorded with its earlier studies in --db.");
ABSL_FLAG(bool, hidden, false,
          "A hidden phase: problems, per-problem results and scoring reports are served only to "
          "callers with an organizer token (`bbo admin --db DB organizer add NAME`).");
ABSL_FLAG(std::string, organizer_token_file, "",
          "Removed: a plaintext token file could be neither revoked nor audited. Issue an "
          "organizer token with `bbo admin --db DB organizer add NAME`.");
ABSL_FLAG(double, rate_limit_per_s, 200,
          "Calls per second one team token or one anonymous address may make on average "
          "(0 = no limit; workers and organizers are not limited); over it a call is refused "
          "with RESOURCE_EXHAUSTED.");
ABSL_FLAG(double, rate_limit_burst, 400, "Calls one caller may make at once above the rate.");
ABSL_FLAG(bool, allow_anonymous, false,
          "No identities: anyone who reaches the port may submit, host jobs and open practice "
          "studies without a token. Loopback addresses only; for trials and demos.");
ABSL_FLAG(std::string, token_secret_file, "",
          "The secret that keys the stored token hashes (default: <db>.secret, created 0600). "
          "`bbo admin --secret_file` must name the same file.");
ABSL_FLAG(std::string, competition_file, "",
          "A competition of several phases in one coordinator and one --db: the JSON file "
          "describing the phases, their problems, budgets, visibility, quotas and windows "
          "(docs/organizers.md). The per-phase flags (--suite, --batch_size, --hidden, ...) are "
          "then taken from the file, not from the command line.");
ABSL_FLAG(std::string, rehearsal_calendar_file, "",
          "Rehearse the competition's calendar: read the competition's date and time from this "
          "file (seconds since the epoch or RFC 3339, e.g. 2026-10-01T00:00:00Z), re-read at "
          "every use, so rewriting it moves the competition's time while the coordinator runs; "
          "the real time while the file is missing or unreadable. Phase windows, deadlines, "
          "migrations, daily quotas, submission times and publication times all follow it; study "
          "budgets, leases and timeouts keep the real clock (docs/organizers.md, \"Rehearsing "
          "the calendar\").");
ABSL_FLAG(std::string, testing_calendar_file, "",
          "The former name of --rehearsal_calendar_file (kept for existing scripts).");
ABSL_FLAG(std::string, port_file, "", "If set, write the bound port here once serving.");
ABSL_FLAG(std::string, metrics_listen, "",
          "host:port for GET /metrics (Prometheus text: queue depth, leases, running studies, "
          "workers, RPC latency histograms, study ends by reason) and GET /healthz; port 0 = any "
          "free port (written to --metrics_port_file). Empty = off. No authentication: plain "
          "HTTP on loopback; on any other address HTTPS with --tls_cert_file and --tls_key_file "
          "(and, with --tls_client_ca_file, only to clients with a certificate), or plain HTTP "
          "with --insecure.");
ABSL_FLAG(std::string, metrics_port_file, "", "If set, write the metrics port here.");
ABSL_FLAG(std::string, web_listen, "",
          "host:port for the web leaderboard (docs/web.md; port 0 = any free port, written to "
          "--web_port_file). Empty = off. HTTPS with --tls_cert_file; plain HTTP on an address "
          "other hosts can reach is refused without --insecure, as for --listen.");
ABSL_FLAG(std::string, web_port_file, "", "If set, write the web leaderboard's port here.");
ABSL_FLAG(std::vector<std::string>, web_host, {},
          "Comma-separated names the web leaderboard is reached by (e.g. arena.example.org). "
          "Given, or when --web_listen is loopback, a request whose Host is neither one of them, "
          "localhost nor an IP address is refused (421), so that another site cannot reach the "
          "coordinator through DNS rebinding.");
ABSL_FLAG(std::vector<std::string>, web_trusted_proxy, {},
          "Comma-separated IP addresses of reverse proxies in front of the web leaderboard: "
          "from them, the client's address is the last of X-Forwarded-For that is not a proxy "
          "(it keys the registration limits and goes to the audit log), and they are exempt "
          "from the per-address connection bound. Empty = every client is its socket's "
          "address.");
ABSL_FLAG(std::string, smtp_url, "",
          "Tell teams by e-mail (docs/organizers.md, \"Notifications\"): the organizer's SMTP "
          "server, smtp://host:port (STARTTLS required except on loopback) or smtps://host:port. "
          "Empty = no e-mail.");
ABSL_FLAG(std::string, smtp_from, "", "With --smtp_url: the sender's bare address.");
ABSL_FLAG(std::string, smtp_user, "", "With --smtp_url: the SMTP AUTH user (\"\" = no AUTH).");
ABSL_FLAG(std::string, smtp_password_file, "",
          "With --smtp_user: a file holding the SMTP password (read once at start, never "
          "logged; trailing newlines dropped).");
ABSL_FLAG(bool, notify_webhooks, false,
          "Tell teams by webhook too: an HTTPS POST of JSON to the URL each team set with `bbo "
          "contact --webhook` (docs/organizers.md, \"Notifications\").");
ABSL_FLAG(std::string, webhook_secret_file, "",
          "With --notify_webhooks: a file holding the key of each webhook's X-BBO-Signature "
          "(HMAC-SHA256 of the body; read once, never logged). Empty = unsigned.");
ABSL_FLAG(bool, notify_allow_private_webhooks, false,
          "Webhooks may use http:// and reach loopback and private addresses (tests, closed "
          "networks). Default: https:// to public addresses only.");

namespace {

// The calendar of --testing_calendar_file: the time written in the file, read at every call
// (tests move the dates of a running coordinator by rewriting it).
class FileCalendar : public bbo::Clock {
 public:
  explicit FileCalendar(std::string path) : path_(std::move(path)) {}
  absl::Time Now() override {
    std::ifstream in(path_);
    std::string text;
    if (!(in >> text)) return absl::Now();
    absl::Time t;
    std::string err;
    if (absl::ParseTime(absl::RFC3339_full, text, &t, &err)) return t;
    char* end = nullptr;
    const double s = std::strtod(text.c_str(), &end);
    if (end != text.c_str()) return absl::UnixEpoch() + absl::Seconds(s);
    return absl::Now();
  }

 private:
  std::string path_;
};

int Serve(absl::StatusOr<std::unique_ptr<bbo::Coordinator>> coordinator,
          const bbo::rpc::GrpcServerOptions& listen, const bbo::CoordinatorOptions& opts,
          const sigset_t& signals);

}  // namespace

namespace {

// A usage error: its message is printed after "bbo-server: " and the exit code is 2.
absl::Status Usage(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// The port's security first: a refused --listen must not create the database.
absl::StatusOr<bbo::rpc::GrpcServerOptions> ListenFromFlags() {
  bbo::rpc::GrpcServerOptions listen;
  listen.address = absl::GetFlag(FLAGS_listen);
  listen.tls_cert_file = absl::GetFlag(FLAGS_tls_cert_file);
  listen.tls_key_file = absl::GetFlag(FLAGS_tls_key_file);
  listen.tls_client_ca_file = absl::GetFlag(FLAGS_tls_client_ca_file);
  listen.allow_insecure = absl::GetFlag(FLAGS_insecure);
  listen.rate_limit_per_s = absl::GetFlag(FLAGS_rate_limit_per_s);
  listen.rate_limit_burst = absl::GetFlag(FLAGS_rate_limit_burst);
  if (absl::Status valid = bbo::rpc::CheckServerOptions(listen); !valid.ok()) {
    return Usage(std::string(valid.message()));
  }
  const std::string web_listen = absl::GetFlag(FLAGS_web_listen);
  if (!web_listen.empty() && !listen.tls() && !listen.allow_insecure &&
      !bbo::rpc::IsLoopbackAddress(web_listen)) {
    return Usage(absl::StrCat("--web_listen=", web_listen,
                              " is not loopback: add --tls_cert_file and --tls_key_file, or "
                              "--insecure to serve plain HTTP anyway"));
  }
  const std::string metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  if (!metrics_listen.empty() && !listen.tls() && !listen.allow_insecure &&
      !bbo::rpc::IsLoopbackAddress(metrics_listen)) {
    return Usage(absl::StrCat("--metrics_listen=", metrics_listen,
                              " is not loopback: add --tls_cert_file and --tls_key_file to serve "
                              "it over HTTPS, or --insecure to serve plain HTTP anyway"));
  }
  if (!listen.tls() && !bbo::rpc::IsLoopbackAddress(listen.address)) {
    spdlog::warn("serving plaintext gRPC on {} (--insecure): anyone on the network can read and "
                 "forge the calls", listen.address);
  }
  return listen;
}

// The study budget, the optimizer's limits and the phase's rules from the flags.
absl::Status StudyAndPhaseFromFlags(bbo::CoordinatorOptions& opts) {
  opts.study.budget.batch_size = absl::GetFlag(FLAGS_batch_size);
  opts.study.budget.n_batches = absl::GetFlag(FLAGS_n_batches);
  opts.study.budget.suggest_budget_s = absl::GetFlag(FLAGS_suggest_budget_s);
  opts.study.startup_budget_s = absl::GetFlag(FLAGS_startup_budget_s);
  opts.study.budget.study_budget_s = absl::GetFlag(FLAGS_study_budget_s);
  opts.study.optimizer_limits.memory_mb = absl::GetFlag(FLAGS_optimizer_memory_mb);
  opts.study.optimizer_limits.max_tasks = absl::GetFlag(FLAGS_optimizer_max_tasks);
  opts.study.optimizer_limits.cpus = absl::GetFlag(FLAGS_optimizer_cpus);
  opts.study.optimizer_limits.tmp_mb = absl::GetFlag(FLAGS_optimizer_tmp_mb);
  opts.competition.default_trials = absl::GetFlag(FLAGS_default_trials);
  opts.competition.baseline_trials = absl::GetFlag(FLAGS_baseline_trials);
  opts.competition.seed = absl::GetFlag(FLAGS_seed);
  opts.competition.use_known_optimum = absl::GetFlag(FLAGS_use_known_optimum);
  opts.competition.phase = absl::GetFlag(FLAGS_phase);
  opts.study.anonymize = absl::GetFlag(FLAGS_anonymize);
  opts.study.anonymize_seed = static_cast<uint64_t>(absl::GetFlag(FLAGS_seed));
  opts.allow_changed_problems = absl::GetFlag(FLAGS_allow_changed_problems);
  opts.competition.max_submissions_per_team = absl::GetFlag(FLAGS_max_submissions_per_team);
  opts.competition.max_submissions_per_team_per_day =
      absl::GetFlag(FLAGS_max_submissions_per_team_per_day);
  opts.competition.evaluate_once = absl::GetFlag(FLAGS_evaluate_once);
  opts.competition.warm_start_board = absl::GetFlag(FLAGS_warm_start_board);
  if (opts.competition.warm_start_board && !opts.study.anonymize) {
    return Usage("--warm_start_board needs --anonymize (without anonymized names the warm-start "
                 "board would repeat the main board)");
  }
  if (opts.competition.max_submissions_per_team < 0 ||
      opts.competition.max_submissions_per_team_per_day < 0) {
    return Usage("--max_submissions_per_team must be >= 0");
  }
  if (absl::Status valid = opts.study.budget.Validate(); !valid.ok()) {
    return Usage(absl::StrCat("--", valid.message()));
  }
  if (absl::Status valid = opts.study.optimizer_limits.Validate(); !valid.ok()) {
    return Usage(absl::StrCat("--", valid.message()));
  }
  return absl::OkStatus();
}

// Identities, the queue and the evaluation threads from the flags.
absl::Status AccessAndQueueFromFlags(bbo::CoordinatorOptions& opts) {
  opts.hidden_phase = absl::GetFlag(FLAGS_hidden);
  opts.allow_anonymous = absl::GetFlag(FLAGS_allow_anonymous);
  opts.token_secret_file = absl::GetFlag(FLAGS_token_secret_file);
  if (opts.allow_anonymous && !bbo::rpc::IsLoopbackAddress(absl::GetFlag(FLAGS_listen))) {
    return Usage(absl::StrCat("--allow_anonymous serves callers without tokens and is refused on ",
                              absl::GetFlag(FLAGS_listen),
                              ": listen on 127.0.0.1, or issue tokens with `bbo admin`"));
  }
  if (!absl::GetFlag(FLAGS_organizer_token_file).empty()) {
    return Usage(absl::StrCat(
        "--organizer_token_file was removed (a token kept in plaintext could be neither revoked "
        "nor audited). Issue an organizer token into the phase's database instead: bbo admin --db ",
        absl::GetFlag(FLAGS_db), " organizer add NAME"));
  }
  opts.queue.lease_ttl_s = absl::GetFlag(FLAGS_lease_ttl_s);
  opts.queue.max_attempts = absl::GetFlag(FLAGS_max_job_attempts);
  if (opts.queue.max_attempts < 1 || opts.queue.max_attempts > 100) {
    return Usage(absl::StrCat("--max_job_attempts must be in [1, 100], got ",
                              opts.queue.max_attempts));
  }
  opts.queue.heartbeat_interval_s = std::max(0.2, opts.queue.lease_ttl_s / 6);
  opts.eval_threads = std::max(1, absl::GetFlag(FLAGS_eval_threads));
  opts.study.evaluate_on_coordinator = absl::GetFlag(FLAGS_evaluate_on_coordinator);
  return absl::OkStatus();
}

// The first line of `path` (a secret: never logged). InvalidArgument naming `flag` when unreadable.
absl::StatusOr<std::string> ReadSecretFile(const std::string& flag, const std::string& path) {
  std::ifstream in(path);
  std::string secret;
  if (!in || !std::getline(in, secret)) {
    return Usage(absl::StrCat("--", flag, ": cannot read ", path));
  }
  while (!secret.empty() && (secret.back() == '\r' || secret.back() == '\n')) secret.pop_back();
  return secret;
}

// The notifications (--smtp_url, --notify_webhooks and their companions), checked.
absl::Status NotificationsFromFlags(bbo::CoordinatorOptions& opts) {
  opts.notify_allow_private_webhooks = absl::GetFlag(FLAGS_notify_allow_private_webhooks);
  opts.notify_webhooks = absl::GetFlag(FLAGS_notify_webhooks);
  const std::string smtp_url = absl::GetFlag(FLAGS_smtp_url);
  if (smtp_url.empty() && !opts.notify_webhooks) return absl::OkStatus();
  bbo::notify::NotifierOptions n;
  if (!smtp_url.empty()) {
    bbo::notify::SmtpOptions smtp;
    smtp.url = smtp_url;
    smtp.from = absl::GetFlag(FLAGS_smtp_from);
    smtp.username = absl::GetFlag(FLAGS_smtp_user);
    if (!absl::GetFlag(FLAGS_smtp_password_file).empty()) {
      absl::StatusOr<std::string> password =
          ReadSecretFile("smtp_password_file", absl::GetFlag(FLAGS_smtp_password_file));
      if (!password.ok()) return password.status();
      smtp.password = *std::move(password);
    }
    n.smtp = std::move(smtp);
  }
  if (!absl::GetFlag(FLAGS_webhook_secret_file).empty()) {
    absl::StatusOr<std::string> secret =
        ReadSecretFile("webhook_secret_file", absl::GetFlag(FLAGS_webhook_secret_file));
    if (!secret.ok()) return secret.status();
    n.webhook_secret = *std::move(secret);
  }
  n.allow_private_webhooks = opts.notify_allow_private_webhooks;
  if (absl::Status valid = bbo::notify::ValidateNotifierOptions(n); !valid.ok()) {
    return Usage(absl::StrReplaceAll(valid.message(), {{"smtp.url", "--smtp_url"},
                                                        {"smtp.from", "--smtp_from"},
                                                        {"smtp.", "--smtp_"}}));
  }
  opts.notify = std::move(n);
  spdlog::info("event=notifications_on email={} webhooks={}", smtp_url.empty() ? "off" : "on",
               opts.notify_webhooks ? "on" : "off");
  return absl::OkStatus();
}

// A coordinator of every phase of --competition_file.
absl::StatusOr<std::unique_ptr<bbo::Coordinator>> CompetitionFromFile(bbo::CoordinatorOptions& opts) {
  absl::StatusOr<bbo::CompetitionSpec> spec =
      bbo::LoadCompetitionFile(absl::GetFlag(FLAGS_competition_file));
  if (!spec.ok()) return Usage(absl::StrCat("--competition_file ", spec.status().message()));
  std::vector<std::vector<std::unique_ptr<bbo::Problem>>> phase_problems;
  for (const bbo::PhaseSpec& p : spec->phases) {
    auto made = bbo::MakePhaseProblems(p.problems, opts.eval_threads);
    absl::StatusOr<std::map<std::string, bbo::ProblemDefinition>> definitions =
        made.ok() ? bbo::PhaseProblemDefinitions(p.problems, *made)
                  : absl::StatusOr<std::map<std::string, bbo::ProblemDefinition>>(made.status());
    if (!definitions.ok()) {
      return Usage(absl::StrCat("--competition_file: phase \"", p.name, "\": ",
                                definitions.status().message()));
    }
    opts.problem_definitions.push_back(*std::move(definitions));
    phase_problems.push_back(*std::move(made));
  }
  std::unique_ptr<bbo::Clock> calendar;
  std::string calendar_file = absl::GetFlag(FLAGS_rehearsal_calendar_file);
  if (calendar_file.empty()) calendar_file = absl::GetFlag(FLAGS_testing_calendar_file);
  if (!calendar_file.empty()) {
    calendar = std::make_unique<FileCalendar>(calendar_file);
    spdlog::warn("event=rehearsal_calendar file={} now=\"{}\" (the competition's time comes from "
                 "this file, not the real clock)",
                 calendar_file, absl::FormatTime(absl::RFC3339_sec, calendar->Now(),
                                                 absl::UTCTimeZone()));
  }
  return bbo::Coordinator::CreateCompetition(opts, *std::move(spec), std::move(phase_problems),
                                             nullptr, std::move(calendar));
}

// The problems of --suite / --suite_file, restricted to --problems, with their definitions.
absl::StatusOr<std::vector<std::unique_ptr<bbo::Problem>>> SuiteProblems(
    bbo::CoordinatorOptions& opts, const std::vector<std::string>& subset) {
  bbo::SuiteOptions so;
  so.seed = absl::GetFlag(FLAGS_suite_seed);
  so.generated_family = absl::GetFlag(FLAGS_generated_family);
  so.design_file = absl::GetFlag(FLAGS_design_file);
  so.generated_tasks = absl::GetFlag(FLAGS_generated_tasks);
  so.sklearn_problems = subset;
  so.max_processes_per_problem = opts.eval_threads;
  auto suite = absl::GetFlag(FLAGS_suite_file).empty()
                   ? bbo::MakeSuite(absl::GetFlag(FLAGS_suite), so)
                   : bbo::MakeSuiteFromFile(absl::GetFlag(FLAGS_suite_file), so);
  if (!suite.ok()) return Usage(std::string(suite.status().message()));
  std::vector<std::unique_ptr<bbo::Problem>> problems;
  for (auto& p : *suite) {
    if (subset.empty() || std::find(subset.begin(), subset.end(), p->name()) != subset.end()) {
      problems.push_back(std::move(p));
    }
  }
  if (problems.size() < std::max<size_t>(1, subset.size())) {
    return Usage("--problems names a problem that is not in the suite");
  }
  std::vector<std::string> names;
  for (const auto& p : problems) names.push_back(p->name());
  auto definitions = bbo::SuiteDefinitions(absl::GetFlag(FLAGS_suite),
                                           absl::GetFlag(FLAGS_suite_file), so, names);
  if (!definitions.ok()) return Usage(std::string(definitions.status().message()));
  opts.problem_definitions = {*std::move(definitions)};
  return problems;
}

// The one phase's problems of a coordinator started from flags, with their definitions.
absl::StatusOr<std::vector<std::unique_ptr<bbo::Problem>>> FlagProblems(
    bbo::CoordinatorOptions& opts) {
  const std::vector<std::string> subset =
      absl::StrSplit(absl::GetFlag(FLAGS_problems), ',', absl::SkipEmpty());
  if (!absl::GetFlag(FLAGS_suite).empty() || !absl::GetFlag(FLAGS_suite_file).empty()) {
    return SuiteProblems(opts, subset);
  }
  std::vector<std::unique_ptr<bbo::Problem>> problems;
  const std::string set = absl::GetFlag(FLAGS_problem_set);
  if (set == "test") {
    problems.push_back(bbo::MakeCrashingProblem(0.1));
    opts.problem_definitions = {{{"test_crashing", {"test", "test_crashing"}}}};
    return problems;
  }
  if (set == "slow") {
    const int64_t ms = absl::GetFlag(FLAGS_slow_problem_ms);
    problems.push_back(bbo::MakeSlowProblem(absl::Milliseconds(ms)));
    opts.problem_definitions = {
        {{"test_slow", {"test", "test_slow", static_cast<uint64_t>(std::max<int64_t>(0, ms))}}}};
    return problems;
  }
  if (set != "practice") return Usage("--problem_set must be practice, test or slow");
  for (const std::string& name : subset) {
    auto p = bbo::MakeProblem(name);
    if (!p.ok()) return Usage(absl::StrCat("--problems: ", p.status().message()));
    problems.push_back(*std::move(p));
  }
  if (problems.empty()) problems = bbo::MakePracticeSuite();
  std::map<std::string, bbo::ProblemDefinition> definitions;
  for (const auto& p : problems) definitions[p->name()] = {"practice", p->name()};
  opts.problem_definitions = {std::move(definitions)};
  return problems;
}

int UsageError(const absl::Status& status) {
  std::fprintf(stderr, "bbo-server: %s\n", std::string(status.message()).c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const sigset_t signals = bbo::InitBinary(
      argc, argv,
      "bbo-server --listen=127.0.0.1:50051 --db=bbo-arena.sqlite\n"
      "The bbo-arena coordinator: job queue, studies, scoring, SQLite store.");
  absl::StatusOr<bbo::rpc::GrpcServerOptions> listen = ListenFromFlags();
  if (!listen.ok()) return UsageError(listen.status());
  bbo::CoordinatorOptions opts;
  opts.db_path = absl::GetFlag(FLAGS_db);
  if (absl::Status s = StudyAndPhaseFromFlags(opts); !s.ok()) return UsageError(s);
  if (absl::Status s = AccessAndQueueFromFlags(opts); !s.ok()) return UsageError(s);
  if (absl::Status s = NotificationsFromFlags(opts); !s.ok()) return UsageError(s);
  if (!absl::GetFlag(FLAGS_competition_file).empty()) {
    absl::StatusOr<std::unique_ptr<bbo::Coordinator>> coordinator = CompetitionFromFile(opts);
    if (!coordinator.ok() && absl::IsInvalidArgument(coordinator.status()) &&
        absl::StartsWith(coordinator.status().message(), "--competition_file")) {
      return UsageError(coordinator.status());
    }
    return Serve(std::move(coordinator), *listen, opts, signals);
  }
  absl::StatusOr<std::vector<std::unique_ptr<bbo::Problem>>> problems = FlagProblems(opts);
  if (!problems.ok()) return UsageError(problems.status());
  return Serve(bbo::Coordinator::Create(opts, *std::move(problems)), *listen, opts, signals);
}

namespace {

int Serve(absl::StatusOr<std::unique_ptr<bbo::Coordinator>> coordinator,
          const bbo::rpc::GrpcServerOptions& listen, const bbo::CoordinatorOptions& opts,
          const sigset_t& signals) {
  if (!coordinator.ok()) {
    spdlog::error("cannot start: {}", coordinator.status().ToString());
    return 1;
  }
  auto server = bbo::rpc::GrpcServer::Start(coordinator->get(), listen);
  if (!server.ok()) {
    spdlog::error("cannot serve: {}", server.status().ToString());
    return 1;
  }
  std::unique_ptr<bbo::OpsHttpServer> ops;
  if (!absl::GetFlag(FLAGS_metrics_listen).empty()) {
    // HTTPS with the coordinator's TLS files, except on loopback (a local scraper).
    bbo::OpsHttpOptions ops_options;
    ops_options.address = absl::GetFlag(FLAGS_metrics_listen);
    if (!bbo::rpc::IsLoopbackAddress(ops_options.address)) {
      ops_options.tls_cert_file = listen.tls_cert_file;
      ops_options.tls_key_file = listen.tls_key_file;
      ops_options.tls_client_ca_file = listen.tls_client_ca_file;
    }
    auto started = bbo::OpsHttpServer::Start(coordinator->get(), ops_options);
    if (!started.ok()) {
      spdlog::error("cannot serve metrics: {}", std::string(started.status().message()));
      return 1;
    }
    ops = *std::move(started);
    spdlog::info("event=metrics_serving address={} port={} tls={}",
                 absl::GetFlag(FLAGS_metrics_listen), ops->port(),
                 ops_options.tls_cert_file.empty() ? "off" : "on");
    if (!absl::GetFlag(FLAGS_metrics_port_file).empty()) {
      std::ofstream(absl::GetFlag(FLAGS_metrics_port_file)) << ops->port() << "\n";
    }
  }
  std::unique_ptr<bbo::web::WebServer> web;
  if (!absl::GetFlag(FLAGS_web_listen).empty()) {
    auto started = bbo::web::WebServer::Start(
        coordinator->get(),
        {absl::GetFlag(FLAGS_web_listen), listen.tls_cert_file, listen.tls_key_file,
         listen.tls_client_ca_file, absl::GetFlag(FLAGS_web_host),
         absl::GetFlag(FLAGS_web_trusted_proxy)});
    if (!started.ok()) {
      spdlog::error("cannot serve the web leaderboard: {}",
                    std::string(started.status().message()));
      return 1;
    }
    web = *std::move(started);
    spdlog::info("event=web_serving address={} port={} tls={}", absl::GetFlag(FLAGS_web_listen),
                 web->port(), web->tls() ? "on" : "off");
    if (!absl::GetFlag(FLAGS_web_port_file).empty()) {
      std::ofstream(absl::GetFlag(FLAGS_web_port_file)) << web->port() << "\n";
    }
  }
  (*coordinator)->Start();
  spdlog::info("event=serving target={} tls={} db={} phases={} problems={} batch_size={} "
               "n_batches={}",
               (*server)->target(),
               !listen.tls() ? "off" : listen.tls_client_ca_file.empty() ? "on" : "mutual",
               opts.db_path, (*coordinator)->competition().size(),
               (*coordinator)->problems().names().size(),
               (*coordinator)->studies().options().budget.batch_size,
               (*coordinator)->studies().options().budget.n_batches);
  if (!absl::GetFlag(FLAGS_port_file).empty()) {
    std::string tmp = absl::GetFlag(FLAGS_port_file) + ".tmp";
    if (FILE* f = std::fopen(tmp.c_str(), "w")) {
      std::fprintf(f, "%d\n", (*server)->port());
      std::fclose(f);
      std::rename(tmp.c_str(), absl::GetFlag(FLAGS_port_file).c_str());
    }
  }

  bbo::HeapTrimmer heap(std::chrono::seconds(30));  // resident memory tracks what is held
  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("event=shutdown signal={}", sig);
  web.reset();
  ops.reset();
  (*server)->Shutdown();
  (*coordinator)->Stop();
  return 0;
}

}  // namespace
