#include "problems/external/problem.h"

#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "problems/external/process.h"
#include "spdlog/spdlog.h"

namespace bbo {
namespace {

using json = nlohmann::json;

constexpr double kInf = std::numeric_limits<double>::infinity();
// How long a graceful exit may take before the process group is killed.
constexpr absl::Duration kExitGrace = absl::Seconds(2);

ProcessLauncher* RealLauncher() {
  static ProcessLauncher* const launcher = new PosixProcessLauncher();
  return launcher;
}

}  // namespace

using external::DescribeCommand;
using external::DescribeInfo;
using external::ParseDescribe;
using external::ParseEvaluateReply;
using external::ParseReplyObject;
using external::ProblemProcess;
using external::Quote;
using external::ShortDump;
using external::StderrLog;

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
      external::ResolveProgram(options.argv[0], options.env, options.working_dir);
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
  problem->describe_ = external::DescribeIdentity(reply);
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
  ProcessSpec spec;
  spec.argv = options_.argv;
  spec.argv[0] = program_;
  spec.env = options_.env;
  spec.cwd = options_.working_dir;
  spec.limits = ResourceLimits::Unchanged();
  spec.limits.address_space_bytes = options_.address_space_bytes;
  absl::StatusOr<ProcessPtr> process = ProblemProcess::Spawn(
      std::move(spec), log_,
      options_.launcher != nullptr ? options_.launcher : RealLauncher());
  if (!process.ok()) return process.status();
  ProblemProcess& p = **process;
  const absl::Time deadline = absl::Now() + options_.startup_time_limit;
  absl::Status written = p.WriteLine(external::DescribeRequest(), deadline);
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
  json identity = external::DescribeIdentity(*reply);
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
  absl::StatusOr<std::string> request = external::EvaluateRequest(id, canonical_points);
  if (!request.ok()) {
    RecordError(absl::StrCat(label, ": ", request.status().message()));
    return failed;
  }

  ProcessPtr process = Acquire();
  if (process == nullptr) return failed;
  const absl::Duration limit = options_.evaluate_time_limit * static_cast<double>(n);
  const absl::Time deadline = absl::Now() + limit;
  absl::Status written = process->WriteLine(*request, deadline);
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
