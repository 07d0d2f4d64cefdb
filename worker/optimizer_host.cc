#include "worker/optimizer_host.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/json_number.h"
#include "common/status_macros.h"

namespace bbo {
namespace {

constexpr char kProtocol[] = "bbo-arena/1";

std::string Brief(const nlohmann::json& j) {
  std::string s = j.dump();
  return s.size() > 200 ? s.substr(0, 200) + "..." : s;
}

// Python's json emits NaN / Infinity literals, which strict JSON parsers reject; accept them in
// suggestions by mapping them to strings the coordinator then reports as invalid values.
std::string QuoteNonStandardNumbers(const std::string& line) {
  std::string out;
  out.reserve(line.size() + 16);
  bool in_string = false;
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < line.size()) {
        out += line[i + 1];
        i += 2;
        continue;
      }
      if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      ++i;
      continue;
    }
    bool matched = false;
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      const size_t n = std::char_traits<char>::length(word);
      if (line.compare(i, n, word) == 0) {
        out += absl::StrCat("\"", word, "\"");
        i += n;
        matched = true;
        break;
      }
    }
    if (!matched) {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace

OptimizerHost::OptimizerHost(std::unique_ptr<ChildProcess> child, LineCallback on_stray_stdout,
                             Env* env)
    : child_(std::move(child)),
      on_stray_stdout_(std::move(on_stray_stdout)),
      env_(env != nullptr ? env : Env::Default()) {}

OptimizerHost::~OptimizerHost() { End("shutdown"); }

absl::Status OptimizerHost::Send(const nlohmann::json& msg) {
  // No deadline on the write: a child that stops reading fails the read that follows.
  return child_->WriteLine(msg.dump(), absl::InfiniteFuture());
}

absl::StatusOr<nlohmann::json> OptimizerHost::ReadMessage(absl::Time deadline) {
  while (true) {
    ASSIGN_OR_RETURN(std::string line, child_->ReadLine(deadline));
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() && line.find_first_of("NI") != std::string::npos) {
      j = nlohmann::json::parse(QuoteNonStandardNumbers(line), nullptr, false);
    }
    if (!j.is_discarded() && j.is_object()) return j;
    if (on_stray_stdout_) on_stray_stdout_(line);
  }
}

absl::Status OptimizerHost::Start(const StartInfo& info) {
  nlohmann::json msg = {{"type", "start"},
                        {"protocol", kProtocol},
                        {"api_config", info.api_config},
                        {"batch_size", info.budget.batch_size},
                        {"n_batches", info.budget.n_batches},
                        {"suggest_budget_s", info.budget.suggest_budget_s},
                        {"study_budget_s", info.budget.study_budget_s},
                        {"remaining_s", info.remaining_s}};
  RETURN_IF_ERROR(Send(msg));
  absl::StatusOr<nlohmann::json> reply = ReadMessage(env_->Now() + info.startup_timeout);
  if (!reply.ok()) {
    if (absl::IsDeadlineExceeded(reply.status())) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the optimizer did not answer `start` within ", absl::FormatDuration(info.startup_timeout),
          "; stderr: ", child_->StderrTail()));
    }
    return reply.status();
  }
  if (reply->value("type", "") == "error") {
    return absl::AbortedError(absl::StrCat("optimizer failed to start: ",
                                           reply->value("message", "")));
  }
  if (reply->value("type", "") != "ready") {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a `ready` message, got ", Brief(*reply)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<nlohmann::json>> OptimizerHost::Suggest(int batch, int n,
                                                                   double remaining_s,
                                                                   absl::Duration deadline) {
  absl::Time start = env_->Now();
  nlohmann::json msg = {{"type", "suggest"},
                        {"batch", batch},
                        {"n", n},
                        {"remaining_s", remaining_s},
                        {"deadline_s", absl::ToDoubleSeconds(deadline)}};
  RETURN_IF_ERROR(Send(msg));
  absl::StatusOr<nlohmann::json> reply = ReadMessage(start + deadline);
  last_suggest_s_ = absl::ToDoubleSeconds(env_->Now() - start);
  if (!reply.ok()) return reply.status();
  const std::string type = reply->value("type", "");
  if (type == "error") {
    std::string m = (*reply)["message"].is_string() ? (*reply)["message"].get<std::string>()
                                                    : Brief(*reply);
    return absl::AbortedError(m);
  }
  if (type != "suggestions") {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a `suggestions` message, got ", Brief(*reply)));
  }
  if (!reply->contains("x") || !(*reply)["x"].is_array()) {
    return absl::InvalidArgumentError("the `suggestions` message has no list `x`");
  }
  std::vector<nlohmann::json> out;
  for (auto& p : (*reply)["x"]) out.push_back(std::move(p));
  return out;
}

absl::Status OptimizerHost::Observe(int batch, const std::vector<nlohmann::json>& x,
                                    const std::vector<double>& y, absl::Duration deadline) {
  absl::Time start = env_->Now();
  nlohmann::json ys = nlohmann::json::array();
  for (double v : y) ys.push_back(ValueToJson(v));
  nlohmann::json msg = {{"type", "observe"}, {"batch", batch}, {"x", x}, {"y", ys}};
  RETURN_IF_ERROR(Send(msg));
  absl::StatusOr<nlohmann::json> reply = ReadMessage(start + deadline);
  last_observe_s_ = absl::ToDoubleSeconds(env_->Now() - start);
  if (!reply.ok()) return reply.status();
  const std::string type = reply->value("type", "");
  if (type == "error") return absl::AbortedError(reply->value("message", "observe failed"));
  if (type != "observed") {
    return absl::InvalidArgumentError(
        absl::StrCat("expected an `observed` message, got ", Brief(*reply)));
  }
  return absl::OkStatus();
}

void OptimizerHost::End(const std::string& reason) {
  if (ended_) return;
  ended_ = true;
  // An optimizer that can no longer read `end` is reaped (or killed) by the wait below.
  if (!Send({{"type", "end"}, {"reason", reason}}).ok()) child_->Kill();
  child_->Wait(absl::Seconds(2));
}

void OptimizerHost::Kill() { child_->Kill(); }

}  // namespace bbo
