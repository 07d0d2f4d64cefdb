#include "worker/optimizer_host.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/json_number.h"
#include "common/status_macros.h"
#include "common/utf8.h"

namespace bbo {
namespace {

constexpr char kProtocol[] = "bbo-arena/1";

std::string QuoteNonStandardNumbers(const std::string& line);

// A reply quoted in an error message: its first 200 bytes, valid UTF-8.
std::string Brief(const nlohmann::json& j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.size() > 200 ? TruncateUtf8(s, 200) + "..." : s;
}

// "invalid reply: field 'x' must be an array, got string".
absl::Status WrongType(absl::string_view field, absl::string_view expected,
                       const nlohmann::json& got) {
  return absl::InvalidArgumentError(absl::StrCat("invalid reply: field '", field, "' must be ",
                                                 expected, ", got ", got.type_name()));
}

// The deepest nesting of arrays and objects in `line`, outside strings, stopping early once it
// passes `limit`: a cheap scan that keeps a line like 60 MB of '[' away from the parser.
int NestingDepth(absl::string_view line, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// Cuts every string in a point (keys and values) to kMaxMessageBytes.
nlohmann::json BoundStrings(nlohmann::json p) {
  if (p.is_string()) {
    const std::string& s = p.get_ref<const std::string&>();
    if (s.size() > kMaxMessageBytes) return TruncateUtf8(s, kMaxMessageBytes);
    return p;
  }
  if (p.is_array()) {
    for (auto& v : p) v = BoundStrings(std::move(v));
    return p;
  }
  if (!p.is_object()) return p;
  bool long_key = false;
  for (auto it = p.begin(); it != p.end(); ++it) long_key |= it.key().size() > kMaxMessageBytes;
  if (!long_key) {
    for (auto& v : p) v = BoundStrings(std::move(v));
    return p;
  }
  nlohmann::json out = nlohmann::json::object();
  for (auto it = p.begin(); it != p.end(); ++it) {
    out[TruncateUtf8(it.key(), kMaxMessageBytes)] = BoundStrings(std::move(it.value()));
  }
  return out;
}

// Parses one line into an object, within the limits of the header. A line that is not a JSON
// object (a stray print) is NotFound; one over a limit or with a `type` that is not a string is
// InvalidArgument. Keeps at most `max_points` elements of the top-level `x` array (0 = all).
absl::StatusOr<nlohmann::json> ParseBounded(const std::string& line, size_t max_points) {
  if (NestingDepth(line, kMaxDepth) > kMaxDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid reply: a line nested deeper than ", kMaxDepth, " levels"));
  }
  size_t values = 0;
  bool too_many = false;
  bool in_x = false;
  std::string key;  // the latest top-level key
  size_t points = 0;
  const nlohmann::json::parser_callback_t bound = [&](int depth,
                                                      nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) -> bool {
    using E = nlohmann::json::parse_event_t;
    if (too_many) return false;
    if (depth == 1 && event == E::key) key = parsed.is_string() ? parsed.get<std::string>() : "";
    if (depth == 1 && event == E::array_start) in_x = key == "x";
    if (depth == 1 && event == E::array_end) in_x = false;
    // An element of `x` starts (a container) or is a scalar: past max_points it is dropped
    // before any of it is stored.
    if (in_x && depth == 2 && max_points > 0 &&
        (event == E::object_start || event == E::array_start || event == E::value)) {
      if (points++ >= max_points) return false;
    }
    if (event == E::value || event == E::object_start || event == E::array_start) {
      if (++values > kMaxValues) {
        too_many = true;
        return false;
      }
    }
    return true;
  };
  nlohmann::json j = nlohmann::json::parse(line, bound, /*allow_exceptions=*/false);
  if (j.is_discarded() && !too_many && line.find_first_of("NI") != std::string::npos) {
    values = 0;
    points = 0;
    key.clear();
    in_x = false;
    j = nlohmann::json::parse(QuoteNonStandardNumbers(line), bound, false);
  }
  if (too_many) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid reply: more than ", kMaxValues, " JSON values in one message"));
  }
  if (j.is_discarded() || !j.is_object()) return absl::NotFoundError("not a JSON object");
  if (!j.contains("type")) {
    return absl::InvalidArgumentError("invalid reply: field 'type' is missing");
  }
  if (!j["type"].is_string()) return WrongType("type", "a string", j["type"]);
  return j;
}

// The `message` of an `error` reply, cut to kMaxMessageBytes, or what is wrong with it.
absl::Status ErrorReply(const nlohmann::json& reply, absl::string_view prefix) {
  auto it = reply.find("message");
  if (it == reply.end()) {
    return absl::AbortedError(absl::StrCat(prefix, "(no message)"));
  }
  if (!it->is_string()) return WrongType("message", "a string", *it);
  return absl::AbortedError(
      absl::StrCat(prefix, TruncateUtf8(it->get_ref<const std::string&>(), kMaxMessageBytes)));
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

absl::StatusOr<nlohmann::json> OptimizerHost::ReadMessage(absl::Time deadline,
                                                          size_t max_points) {
  if (stray_bytes_ > kMaxStrayStdoutBytes) return CountStray("");  // stays over the bound
  while (true) {
    ASSIGN_OR_RETURN(std::string line, child_->ReadLine(deadline));
    if (line.size() > kMaxLineBytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the optimizer printed a line of ", line.size(), " bytes, over the ",
          kMaxLineBytes >> 20, " MiB limit"));
    }
    // A line without a bracket (an empty line, a print) is neither a message nor too deep:
    // stray without the parser's attention, so a flood costs the worker a scan, not a parse.
    if (line.find_first_of("{[") == std::string::npos) {
      RETURN_IF_ERROR(CountStray(line));
      continue;
    }
    // nlohmann reports malformed input by value here; the catch is the boundary's guarantee
    // that nothing it throws (bad_alloc aside) escapes the host.
    absl::StatusOr<nlohmann::json> j;
    try {
      j = ParseBounded(line, max_points);
    } catch (const nlohmann::json::exception& e) {
      j = absl::InvalidArgumentError(absl::StrCat("invalid reply: ", e.what()));
    }
    if (absl::IsNotFound(j.status()) && !IsValidUtf8(line)) {
      // nlohmann refuses invalid UTF-8 inside strings; a reply with a stray byte in its message
      // is still a reply.
      try {
        j = ParseBounded(TruncateUtf8(line, kMaxLineBytes * 3), max_points);
      } catch (const nlohmann::json::exception& e) {
        j = absl::InvalidArgumentError(absl::StrCat("invalid reply: ", e.what()));
      }
    }
    if (j.ok() || !absl::IsNotFound(j.status())) return j;
    RETURN_IF_ERROR(CountStray(line));
  }
}

absl::Status OptimizerHost::CountStray(const std::string& line) {
  stray_bytes_ += line.size() + 1;
  if (stray_bytes_ > kMaxStrayStdoutBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the optimizer wrote over ", kMaxStrayStdoutBytes >> 20,
        " MiB to stdout outside the protocol (lines that are not protocol messages); print to "
        "stderr or log less"));
  }
  if (on_stray_stdout_) on_stray_stdout_(TruncateUtf8(line, kMaxMessageBytes));
  return absl::OkStatus();
}

std::string OptimizerHost::QuotedStderr() {
  return StderrBlock(child_->StderrTail(), kQuotedStderrBytes);
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
          QuotedStderr().empty() ? "; no stderr" : "; its stderr ended with:",
          QuotedStderr()));
    }
    return reply.status();
  }
  const std::string& type = (*reply)["type"].get_ref<const std::string&>();
  if (type == "error") return ErrorReply(*reply, "optimizer failed to start: ");
  if (type != "ready") {
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
  absl::StatusOr<nlohmann::json> reply =
      ReadMessage(start + deadline, static_cast<size_t>(std::max(n, 0)) + 1);
  last_suggest_s_ = absl::ToDoubleSeconds(env_->Now() - start);
  if (!reply.ok()) return reply.status();
  const std::string& type = (*reply)["type"].get_ref<const std::string&>();
  if (type == "error") return ErrorReply(*reply, "");
  if (type != "suggestions") {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a `suggestions` message, got ", Brief(*reply)));
  }
  auto x = reply->find("x");
  if (x == reply->end()) return absl::InvalidArgumentError("invalid reply: field 'x' is missing");
  if (!x->is_array()) return WrongType("x", "an array of objects", *x);
  std::vector<nlohmann::json> out;
  out.reserve(x->size());
  for (auto& p : *x) out.push_back(BoundStrings(std::move(p)));
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
  const std::string& type = (*reply)["type"].get_ref<const std::string&>();
  if (type == "error") return ErrorReply(*reply, "observe failed: ");
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
