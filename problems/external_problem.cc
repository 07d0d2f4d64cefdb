#include "problems/external_problem.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/subprocess.h"
#include "spdlog/spdlog.h"

namespace bbo {
namespace {

using json = nlohmann::json;

constexpr char kProtocol[] = "bbo-problem/1";
constexpr double kInf = std::numeric_limits<double>::infinity();
// A reply line longer than this is garbage (a batch reply is a few bytes per point).
constexpr size_t kMaxReplyBytes = 16u << 20;
constexpr size_t kStderrTailBytes = 4096;
// How long a graceful exit may take before the process group is killed.
constexpr absl::Duration kExitGrace = absl::Seconds(2);

// `text` as a JSON string literal, at most `max` bytes of it: safe to put in an error message.
std::string Quote(absl::string_view text, size_t max = 200) {
  std::string s(text.substr(0, max));
  std::string q = json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() > max ? absl::StrCat(q, "...") : q;
}

// `v` as compact JSON, cut after 80 bytes.
std::string ShortDump(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 80 ? s.substr(0, 80) + "..." : s;
}

std::string DescribeCommand(const std::vector<std::string>& argv) {
  return absl::StrCat(
      "[",
      absl::StrJoin(argv, ", ",
                    [](std::string* out, const std::string& a) { out->append(Quote(a, 1000)); }),
      "]");
}

std::string WaitStatusText(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exited with status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* abbrev = sigabbrev_np(WTERMSIG(status));
    return absl::StrCat("was killed by signal ", WTERMSIG(status), " (SIG",
                        abbrev != nullptr ? abbrev : "?", ")");
  }
  return "stopped";
}

// The executable execve should run: argv0 itself when it contains '/', else the first
// executable match on the PATH of `env` (the child's environment, not the coordinator's).
absl::StatusOr<std::string> ResolveProgram(const std::string& argv0,
                                           const std::vector<std::string>& env,
                                           const std::string& working_dir) {
  if (argv0.empty()) return absl::InvalidArgumentError("argv[0] is empty");
  if (absl::StrContains(argv0, '/')) {
    std::string path = argv0;
    if (argv0[0] != '/' && !working_dir.empty()) path = absl::StrCat(working_dir, "/", argv0);
    if (access(path.c_str(), X_OK) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("argv[0] ", Quote(path), " is not executable: ", strerror(errno)));
    }
    return argv0;  // exec runs after chdir(working_dir), where the relative path is right
  }
  std::string path_var;
  for (const std::string& e : env) {
    if (absl::StartsWith(e, "PATH=")) path_var = e.substr(5);
  }
  for (absl::string_view dir : absl::StrSplit(path_var, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", argv0);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "argv[0] ", Quote(argv0), " was not found on the child's PATH ", Quote(path_var)));
}

// Decodes one entry of "values"/"generalization": a JSON number, "inf" or "nan".
bool DecodeValue(const json& v, double* out) {
  if (v.is_number()) {
    *out = v.get<double>();
    return true;
  }
  if (!v.is_string()) return false;
  std::string s = absl::AsciiStrToLower(v.get<std::string>());
  if (s == "inf" || s == "+inf" || s == "infinity") {
    *out = kInf;
    return true;
  }
  if (s == "nan") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  return false;
}

// Parses a reply line into a JSON object; InvalidArgument describing the garbage otherwise.
absl::StatusOr<json> ParseReplyObject(const std::string& line) {
  json reply = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded()) {
    std::string hint;
    if (absl::StrContains(line, "NaN") || absl::StrContains(line, "Infinity")) {
      hint = " (bare NaN/Infinity are not JSON: send the strings \"nan\"/\"inf\")";
    }
    return absl::InvalidArgumentError(absl::StrCat("reply is not JSON", hint, ": ", Quote(line)));
  }
  if (!reply.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("reply is not a JSON object: ", Quote(line)));
  }
  return reply;
}

// The checked content of a describe reply.
struct DescribeInfo {
  std::string name;
  SearchSpace space;
  std::optional<double> known_optimum;
  std::string description;
  std::vector<std::string> attributes;
  std::string family = "external";
};

bool ValidProblemName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

absl::StatusOr<DescribeInfo> ParseDescribe(const json& reply) {
  auto field_error = [](absl::string_view field, absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("describe reply: field \"", field, "\" ", why));
  };
  if (reply.contains("error")) {
    return absl::InvalidArgumentError(
        absl::StrCat("the problem answered describe with an error: ",
                     reply["error"].is_string() ? Quote(reply["error"].get<std::string>(), 2000)
                                                : ShortDump(reply["error"])));
  }
  if (!reply.contains("protocol")) return field_error("protocol", "is missing");
  if (reply["protocol"] != kProtocol) {
    return absl::InvalidArgumentError(
        absl::StrCat("describe reply: unsupported protocol ", ShortDump(reply["protocol"]),
                     " (this coordinator speaks \"", kProtocol, "\")"));
  }
  DescribeInfo info;
  if (!reply.contains("name") || !reply["name"].is_string()) {
    return field_error("name", "is missing or not a string");
  }
  info.name = reply["name"].get<std::string>();
  if (!ValidProblemName(info.name)) {
    return field_error(
        "name", absl::StrCat(Quote(info.name), " must be 1-64 characters of A-Z a-z 0-9 . _ -"));
  }
  if (!reply.contains("api_config") || !reply["api_config"].is_object()) {
    return field_error("api_config", "is missing or not an object");
  }
  absl::StatusOr<SearchSpace> space = SearchSpace::FromJson(reply["api_config"]);
  if (!space.ok())
    return field_error("api_config", absl::StrCat("is invalid: ", space.status().message()));
  info.space = *std::move(space);
  if (reply.contains("description")) {
    if (!reply["description"].is_string()) return field_error("description", "is not a string");
    info.description = reply["description"].get<std::string>();
  }
  if (reply.contains("known_optimum") && !reply["known_optimum"].is_null()) {
    if (!reply["known_optimum"].is_number()) {
      return field_error("known_optimum", "is neither null nor a number");
    }
    info.known_optimum = reply["known_optimum"].get<double>();
  }
  if (reply.contains("attributes")) {
    const json& a = reply["attributes"];
    if (!a.is_array()) return field_error("attributes", "is not an array of strings");
    for (const json& tag : a) {
      if (!tag.is_string()) return field_error("attributes", "is not an array of strings");
      info.attributes.push_back(tag.get<std::string>());
    }
  }
  if (reply.contains("family")) {
    if (!reply["family"].is_string() || reply["family"].get<std::string>().empty()) {
      return field_error("family", "is not a non-empty string");
    }
    info.family = reply["family"].get<std::string>();
  }
  return info;
}

// The "values" (and "generalization") of an evaluate reply for `n` points. InvalidArgument for
// garbage; FailedPrecondition carrying the problem's own {"error": ...} message.
absl::StatusOr<std::vector<ExternalEvaluation>> ParseEvaluateReply(const std::string& line,
                                                                   int64_t id, size_t n) {
  absl::StatusOr<json> parsed = ParseReplyObject(line);
  if (!parsed.ok()) return parsed.status();
  const json& reply = *parsed;
  if (reply.contains("id") && reply["id"] != id) {
    return absl::InvalidArgumentError(
        absl::StrCat("reply \"id\" is ", ShortDump(reply["id"]), ", expected ", id));
  }
  if (reply.contains("error")) {
    return absl::FailedPreconditionError(
        reply["error"].is_string() ? reply["error"].get<std::string>() : ShortDump(reply["error"]));
  }
  std::vector<ExternalEvaluation> out(n);
  for (const char* field : {"values", "generalization"}) {
    const bool primary = field[0] == 'v';
    if (!reply.contains(field)) {
      if (primary) return absl::InvalidArgumentError("reply has no \"values\"");
      continue;
    }
    const json& arr = reply[field];
    if (!arr.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat("reply \"", field, "\" is not an array"));
    }
    if (arr.size() != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("reply \"", field, "\" has ", arr.size(), " entries for ", n, " points"));
    }
    for (size_t i = 0; i < n; ++i) {
      double v;
      if (!DecodeValue(arr[i], &v)) {
        return absl::InvalidArgumentError(absl::StrCat("reply \"", field, "\"[", i, "] is ",
                                                       ShortDump(arr[i]),
                                                       "; expected a number, \"inf\" or \"nan\""));
      }
      if (primary) {
        out[i].value = v;
      } else {
        out[i].generalization = v;
      }
    }
  }
  return out;
}

}  // namespace

namespace external_internal {

// The children's stderr, appended to one file up to a byte budget. Thread-safe.
class StderrLog {
 public:
  StderrLog(std::string path, uint64_t limit) : path_(std::move(path)), left_(limit) {}
  ~StderrLog() {
    if (file_ != nullptr) fclose(file_);
  }

  void Append(const char* data, size_t n) {
    if (path_.empty()) return;
    std::lock_guard<std::mutex> l(mu_);
    if (left_ == 0) return;
    if (file_ == nullptr && !failed_) {
      file_ = fopen(path_.c_str(), "ae");
      failed_ = file_ == nullptr;
    }
    if (file_ == nullptr) return;
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, left_));
    fwrite(data, 1, k, file_);
    left_ -= k;
    if (left_ == 0) fputs("\n[stderr log limit reached; further output dropped]\n", file_);
    fflush(file_);
  }

 private:
  const std::string path_;
  std::mutex mu_;
  uint64_t left_;
  FILE* file_ = nullptr;
  bool failed_ = false;
};

// One running problem process (common/subprocess.h): its own session and process group, stdin a
// socket (so a write to a dead child fails with EPIPE instead of raising SIGPIPE in the
// coordinator), stdout read with deadlines, stderr drained into the log and a tail. Used by one
// thread at a time. Destroying it kills and reaps the process group.
class ProblemProcess {
 public:
  static absl::StatusOr<std::unique_ptr<ProblemProcess>> Spawn(
      const std::string& program, const ExternalProblemOptions& options,
      std::shared_ptr<StderrLog> log) {
    SubprocessOptions spawn;
    spawn.argv = options.argv;
    spawn.argv[0] = program;
    spawn.env = options.env;
    spawn.cwd = options.working_dir;
    if (options.address_space_bytes != 0) {
      spawn.limits.push_back({RLIMIT_AS, options.address_space_bytes});
    }
    spawn.limits.push_back({RLIMIT_CORE, 0});
    spawn.stdin_is_socket = true;
    spawn.stderr_tail_bytes = kStderrTailBytes;
    spawn.on_stderr_chunk = [log](absl::string_view chunk) {
      log->Append(chunk.data(), chunk.size());
    };
    absl::StatusOr<std::unique_ptr<Subprocess>> process = Subprocess::Spawn(std::move(spawn));
    if (!process.ok()) return process.status();
    if (const std::optional<Subprocess::ExecError>& failure = (*process)->exec_error()) {
      const char* reason = strerror(failure->error_number);
      if (failure->stage == Subprocess::ExecError::Stage::kChdir) {
        return absl::InvalidArgumentError(absl::StrCat("cannot change to working_dir ",
                                                       Quote(options.working_dir), ": ", reason));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("cannot execute ", Quote(program), ": ", reason));
    }
    return std::unique_ptr<ProblemProcess>(new ProblemProcess(*std::move(process)));
  }

  pid_t pid() const { return process_->pid(); }

  // Writes `line` + '\n'. Unavailable if the child is gone; DeadlineExceeded at `deadline`.
  absl::Status WriteLine(absl::string_view line, absl::Time deadline) {
    absl::Status written = process_->Write(absl::StrCat(line, "\n"), deadline);
    if (absl::IsDeadlineExceeded(written)) {
      return absl::DeadlineExceededError("the process did not read its request in time");
    }
    if (!written.ok()) return absl::UnavailableError(Gone("could not be written to"));
    return absl::OkStatus();
  }

  // The next stdout line without '\n'. Unavailable when stdout closes (the message says how the
  // process ended and quotes its stderr tail); DeadlineExceeded at `deadline`; InvalidArgument
  // for a line over kMaxReplyBytes.
  absl::StatusOr<std::string> ReadLine(absl::Time deadline) {
    absl::StatusOr<std::string> line = process_->ReadLine(deadline, kMaxReplyBytes);
    if (line.ok()) return line;
    switch (line.status().code()) {
      case absl::StatusCode::kResourceExhausted:
        return absl::InvalidArgumentError(
            absl::StrCat("reply line longer than ", kMaxReplyBytes >> 20, " MiB"));
      case absl::StatusCode::kUnavailable:
        return absl::UnavailableError(Gone("closed its stdout"));
      case absl::StatusCode::kDeadlineExceeded:
        return absl::DeadlineExceededError("no reply in time");
      default:
        return line.status();
    }
  }

  // Asks the process to exit: the exit request, then end of input.
  void RequestExit() {
    WriteLine(R"({"type":"exit"})", absl::Now()).IgnoreError();
    process_->CloseStdin();
  }

  // Reaps the process if it exits by `deadline`; true if it did (see Subprocess::WaitExit).
  bool WaitExit(absl::Time deadline) { return process_->WaitExit(deadline); }

  // SIGKILL to the whole process group, then reap.
  void Kill() {
    process_->KillGroup();
    // After SIGKILL only a process stuck in the kernel (state D) outlives this wait; it is then
    // left to init rather than blocking the study.
    process_->WaitExit(absl::Now() + absl::Seconds(5));
  }

 private:
  explicit ProblemProcess(std::unique_ptr<Subprocess> process) : process_(std::move(process)) {}

  // "the process <what> and exited with status 3; stderr: ...".
  std::string Gone(absl::string_view what) {
    std::string how;
    if (process_->WaitExit(absl::Now() + absl::Seconds(1))) {
      how = WaitStatusText(process_->wait_status().value_or(0));
    } else {
      Kill();
      how = "was still running (killed)";
    }
    // Let the drain thread read what the process wrote just before it ended.
    process_->WaitStderrClosed(absl::Now() + absl::Milliseconds(300));
    std::string tail = process_->StderrTail();
    if (tail.size() > 1000) tail = "..." + tail.substr(tail.size() - 1000);
    return absl::StrCat("the process ", what, " and ", how,
                        tail.empty() ? "; no stderr" : "; stderr: " + Quote(tail, 2000));
  }

  const std::unique_ptr<Subprocess> process_;
};

}  // namespace external_internal

using external_internal::ProblemProcess;
using external_internal::StderrLog;

ExternalProblem::ExternalProblem(ExternalProblemOptions options, std::string resolved_program,
                                 std::shared_ptr<StderrLog> log)
    : options_(std::move(options)), program_(std::move(resolved_program)), log_(std::move(log)) {}

absl::StatusOr<std::unique_ptr<ExternalProblem>> ExternalProblem::Start(
    ExternalProblemOptions options) {
  const std::string who = absl::StrCat("external problem ", DescribeCommand(options.argv), ": ");
  if (options.argv.empty()) return absl::InvalidArgumentError("external problem: argv is empty");
  if (options.max_processes < 1) {
    return absl::InvalidArgumentError(absl::StrCat(who, "max_processes must be >= 1"));
  }
  if (options.max_consecutive_start_failures < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, "max_consecutive_start_failures must be >= 1"));
  }
  absl::StatusOr<std::string> program =
      ResolveProgram(options.argv[0], options.env, options.working_dir);
  if (!program.ok())
    return absl::Status(program.status().code(), who + std::string(program.status().message()));
  auto log = std::make_shared<StderrLog>(options.stderr_log_path, options.stderr_log_limit_bytes);
  std::unique_ptr<ExternalProblem> problem(
      new ExternalProblem(std::move(options), *std::move(program), std::move(log)));

  json reply;
  absl::StatusOr<ProcessPtr> first = problem->Launch(nullptr, &reply);
  if (!first.ok()) {
    return absl::Status(first.status().code(), who + std::string(first.status().message()));
  }
  problem->describe_ = {{"name", reply["name"]}, {"api_config", reply["api_config"]}};
  // Launch validated the reply; parsing it again cannot fail.
  absl::StatusOr<DescribeInfo> info = ParseDescribe(reply);
  problem->name_ = info->name;
  problem->space_ = info->space;
  problem->known_optimum_ = info->known_optimum;
  problem->description_ = info->description;
  problem->attributes_ = info->attributes;
  problem->family_ = info->family;
  spdlog::info("external problem started: name={} pid={} command={}", problem->name_,
               (*first)->pid(), DescribeCommand(problem->options_.argv));
  {
    absl::MutexLock l(&problem->mu_);
    problem->idle_.push_back(*std::move(first));
    problem->live_ = 1;
  }
  return problem;
}

ExternalProblem::~ExternalProblem() {
  std::vector<ProcessPtr> idle;
  {
    absl::MutexLock l(&mu_);
    idle.swap(idle_);
  }
  for (ProcessPtr& p : idle) p->RequestExit();
  absl::Time deadline = absl::Now() + kExitGrace;
  for (ProcessPtr& p : idle) p->WaitExit(deadline);
  // Destroying each process kills whatever of its group is still alive.
}

absl::StatusOr<ExternalProblem::ProcessPtr> ExternalProblem::Launch(const json* expected,
                                                                    json* describe) const {
  absl::StatusOr<ProcessPtr> process = ProblemProcess::Spawn(program_, options_, log_);
  if (!process.ok()) return process.status();
  ProblemProcess& p = **process;
  const absl::Time deadline = absl::Now() + options_.startup_time_limit;
  json request = {{"type", "describe"}, {"protocol", kProtocol}};
  absl::Status written = p.WriteLine(request.dump(), deadline);
  absl::StatusOr<std::string> line = written.ok() ? p.ReadLine(deadline) : written;
  if (!line.ok()) {
    if (absl::IsDeadlineExceeded(line.status())) {
      return absl::DeadlineExceededError(absl::StrCat(
          "no describe reply within ", absl::FormatDuration(options_.startup_time_limit),
          " (startup_time_limit); killed the process group"));
    }
    if (absl::IsUnavailable(line.status())) {
      return absl::UnavailableError(absl::StrCat("no describe reply: ", line.status().message()));
    }
    return absl::InvalidArgumentError(absl::StrCat("describe reply: ", line.status().message()));
  }
  absl::StatusOr<json> reply = ParseReplyObject(*line);
  if (!reply.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("describe ", reply.status().message()));
  }
  absl::StatusOr<DescribeInfo> info = ParseDescribe(*reply);
  if (!info.ok()) return info.status();
  json identity = {{"name", (*reply)["name"]}, {"api_config", (*reply)["api_config"]}};
  if (describe != nullptr) *describe = *reply;
  if (expected != nullptr && identity != *expected) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the restarted process describes a different problem: name ", ShortDump(identity["name"]),
        ", api_config ", ShortDump(identity["api_config"]), " (first process: name ",
        ShortDump((*expected)["name"]), ")"));
  }
  return process;
}

ExternalProblem::ProcessPtr ExternalProblem::Acquire() const {
  {
    absl::MutexLock l(&mu_);
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return broken_ || !idle_.empty() || live_ < options_.max_processes;
    };
    mu_.Await(absl::Condition(&ready));
    if (broken_) return nullptr;
    if (!idle_.empty()) {
      ProcessPtr p = std::move(idle_.back());
      idle_.pop_back();
      return p;
    }
    ++live_;  // reserve the slot while starting without the lock
  }
  absl::StatusOr<ProcessPtr> started = Launch(&describe_, nullptr);
  std::vector<std::string> messages;
  ProcessPtr result;
  {
    absl::MutexLock l(&mu_);
    if (started.ok()) {
      ++restarts_;
      consecutive_start_failures_ = 0;
      result = *std::move(started);
    } else {
      --live_;
      ++consecutive_start_failures_;
      messages.push_back(absl::StrCat("starting a new process failed: ", started.status().message(),
                                      "; the request scores +inf"));
      if (consecutive_start_failures_ >= options_.max_consecutive_start_failures) {
        broken_ = true;
        messages.push_back(
            absl::StrCat("giving up after ", consecutive_start_failures_,
                         " failed starts in a row: every further evaluation scores +inf"));
      }
    }
  }
  for (const std::string& m : messages) RecordError(m);
  if (result != nullptr) {
    spdlog::info("external problem process started: name={} pid={}", name_, result->pid());
  }
  return result;
}

void ExternalProblem::Release(ProcessPtr process, bool healthy) const {
  if (!healthy) process.reset();  // kills and reaps the group, without the lock
  absl::MutexLock l(&mu_);
  if (healthy) {
    idle_.push_back(std::move(process));
  } else {
    --live_;
  }
}

void ExternalProblem::RecordError(const std::string& message) const {
  std::string full = absl::StrCat("external problem \"", name_, "\": ", message);
  spdlog::error("{}", full);
  absl::MutexLock l(&mu_);
  ++error_count_;
  errors_.push_back(std::move(full));
  if (errors_.size() > options_.max_recorded_errors) {
    errors_.erase(
        errors_.begin(),
        errors_.begin() + static_cast<ptrdiff_t>(errors_.size() - options_.max_recorded_errors));
  }
}

std::vector<ExternalEvaluation> ExternalProblem::EvaluateDetailed(
    const std::vector<Point>& canonical_points) const {
  const size_t n = canonical_points.size();
  std::vector<ExternalEvaluation> failed(n, ExternalEvaluation{kInf, std::nullopt});
  if (n == 0) return {};
  int64_t id;
  {
    absl::MutexLock l(&mu_);
    id = next_request_id_++;
  }
  const std::string label =
      absl::StrCat("evaluate request ", id, " (", n, n == 1 ? " point)" : " points)");
  std::string request;
  try {
    json points = json::array();
    for (const Point& p : canonical_points) points.push_back(PointToJson(p));
    request = json{{"type", "evaluate"}, {"id", id}, {"points", std::move(points)}}.dump();
  } catch (const std::exception& e) {
    RecordError(absl::StrCat(label, ": cannot encode the points: ", e.what()));
    return failed;
  }

  ProcessPtr process = Acquire();
  if (process == nullptr) return failed;
  const absl::Duration limit = options_.evaluate_time_limit * static_cast<double>(n);
  const absl::Time deadline = absl::Now() + limit;
  absl::Status written = process->WriteLine(request, deadline);
  absl::StatusOr<std::string> line = written.ok() ? process->ReadLine(deadline) : written;
  absl::StatusOr<std::vector<ExternalEvaluation>> result =
      line.ok() ? ParseEvaluateReply(*line, id, n) : line.status();
  if (result.ok()) {
    Release(std::move(process), /*healthy=*/true);
    return *std::move(result);
  }

  const absl::Status& st = result.status();
  std::string what;
  bool keep = false;
  if (absl::IsDeadlineExceeded(st)) {
    what = absl::StrCat("no reply within ", absl::FormatDuration(limit),
                        " (evaluate_time_limit per point); killed the process group");
  } else if (absl::IsUnavailable(st)) {
    what = std::string(st.message());
  } else if (absl::IsFailedPrecondition(st)) {
    what = absl::StrCat("the problem replied with an error: ", Quote(st.message(), 2000));
    keep = true;
  } else {
    what = absl::StrCat("invalid reply: ", st.message());
  }
  Release(std::move(process), keep);
  RecordError(absl::StrCat(label, ": ", what,
                           n == 1 ? "; the point scores +inf" : "; the points score +inf",
                           keep ? "" : "; a new process starts with the next request"));
  return failed;
}

std::vector<double> ExternalProblem::EvaluateBatch(
    const std::vector<Point>& canonical_points) const {
  std::vector<double> values;
  for (const ExternalEvaluation& e : EvaluateDetailed(canonical_points)) values.push_back(e.value);
  return values;
}

double ExternalProblem::Evaluate(const Point& canonical_point) const {
  return EvaluateDetailed({canonical_point})[0].value;
}

ProblemEvaluation ExternalProblem::EvaluateWithHeldOut(const Point& canonical_point) const {
  ExternalEvaluation e = EvaluateDetailed({canonical_point})[0];
  return {e.value, e.generalization};
}

std::vector<std::string> ExternalProblem::errors() const {
  absl::MutexLock l(&mu_);
  return errors_;
}

int64_t ExternalProblem::error_count() const {
  absl::MutexLock l(&mu_);
  return error_count_;
}

int64_t ExternalProblem::restarts() const {
  absl::MutexLock l(&mu_);
  return restarts_;
}

bool ExternalProblem::broken() const {
  absl::MutexLock l(&mu_);
  return broken_;
}

}  // namespace bbo
