#include "common/submission_verdict.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace bbo {

namespace fs = std::filesystem;

SubmissionVerdict JudgeStudies(int studies, int failed, int batches, int random_batches,
                               const std::vector<std::string>& error_messages,
                               const std::string& submission_dir) {
  SubmissionVerdict v;
  if (failed > 0) {
    v.failure.push_back(absl::StrCat(failed, " of ", studies, " studies did not complete"));
  }
  if (batches > 0 && 2 * random_batches > batches) {
    v.failure.push_back(absl::StrCat(random_batches, " of ", batches,
                                     " batches were filled by random search instead of the "
                                     "optimizer"));
  }
  v.ok = v.failure.empty();
  for (const std::string& message : error_messages) {
    for (const std::string& line : OwnTracebackLines(message, submission_dir)) {
      if (std::find(v.traceback.begin(), v.traceback.end(), line) == v.traceback.end()) {
        v.traceback.push_back(line);
      }
    }
    if (v.traceback.size() >= 12) break;
  }
  if (!error_messages.empty()) v.first_error = error_messages.front();
  return v;
}

std::string VerdictText(const SubmissionVerdict& v, const std::string& command) {
  if (v.ok) return "";
  std::string out = absl::StrCat(command, command.empty() ? "" : ": ", "FAILED: ",
                                 absl::StrJoin(v.failure, "; "), ".\n");
  if (!v.traceback.empty()) {
    absl::StrAppend(&out, "In your files:\n");
    for (const std::string& line : v.traceback) absl::StrAppend(&out, "  ", line, "\n");
  } else if (!v.first_error.empty()) {
    absl::StrAppend(&out, "The first error: ", v.first_error, "\n");
  }
  absl::StrAppend(&out,
                  "(a study that does not complete, or more than half of all batches filled by "
                  "random search, fails the run: docs/participants.md)\n");
  return out;
}

std::vector<std::string> OwnTracebackLines(const std::string& message,
                                           const std::string& submission_dir) {
  // The worker quotes the optimizer's stderr tail as lines "\n  | <line>" (StderrBlock); older
  // databases have it C-escaped: `...; stderr: "<tail>"`.
  std::string text = message;
  const size_t quoted = message.find("stderr: \"");
  if (const size_t block = message.find("\n  | "); block != std::string::npos) {
    text.clear();
    for (absl::string_view l : absl::StrSplit(absl::string_view(message).substr(block + 1), '\n')) {
      absl::ConsumePrefix(&l, "  | ");
      absl::StrAppend(&text, l, "\n");
    }
  } else if (quoted != std::string::npos && message.size() > quoted + 10) {
    const size_t close = message.rfind('"');
    std::string unescaped;
    if (close > quoted + 9 &&
        absl::CUnescape(message.substr(quoted + 9, close - quoted - 9), &unescaped)) {
      text = unescaped;
    }
  }
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::vector<std::string> out;
  std::error_code ec;  // "" (no folder on this host) is no error: only /sub frames are its own
  const std::string host_dir =
      submission_dir.empty() ? "" : fs::absolute(submission_dir, ec).lexically_normal().string();
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    // A frame in one of the submission's files: inside the sandbox they are under /sub.
    const bool own = absl::StrContains(l, "File \"/sub/") ||
                     (!host_dir.empty() && absl::StrContains(l, "File \"" + host_dir));
    if (!own) continue;
    out.push_back(std::string(absl::StripAsciiWhitespace(l)));
    if (i + 1 < lines.size() && !absl::StrContains(lines[i + 1], "File \"")) {
      out.push_back("  " + std::string(absl::StripAsciiWhitespace(lines[i + 1])));
    }
  }
  if (!out.empty()) {
    // The exception itself: the last line that starts a line of its own (frames and source
    // lines are indented), Python's "Traceback ..." header aside.
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
      if (it->empty() || absl::ascii_isspace(static_cast<unsigned char>((*it)[0])) ||
          absl::StartsWith(*it, "Traceback") || absl::StartsWith(*it, "File \"")) {
        continue;
      }
      out.push_back(std::string(absl::StripAsciiWhitespace(*it)));
      break;
    }
  }
  return out;
}

}  // namespace bbo
