#include "server/notify/testing/smtp_sink.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"

namespace bbo::notify::testing {
namespace {

void Say(int fd, absl::string_view reply) { send(fd, reply.data(), reply.size(), MSG_NOSIGNAL); }

std::string Path(absl::string_view command) {
  const size_t open = command.find('<');
  const size_t close = command.find('>');
  if (open == absl::string_view::npos || close == absl::string_view::npos) return "";
  return std::string(command.substr(open + 1, close - open - 1));
}

// The next line without its CRLF, or nullopt when the peer is gone, takes too long or `stop`.
template <typename Stop>
std::optional<std::string> ReadLine(int fd, std::string& buffer, Stop stop) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (true) {
    const size_t end = buffer.find("\r\n");
    if (end != std::string::npos) {
      std::string line = buffer.substr(0, end);
      buffer.erase(0, end + 2);
      return line;
    }
    if (stop() || absl::Now() > deadline) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) != 1) continue;
    char chunk[4096];
    const ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return std::nullopt;
    buffer.append(chunk, static_cast<size_t>(n));
  }
}

// The message after DATA, dot-stuffing undone (RFC 5321 section 4.5.2).
template <typename Stop>
std::optional<std::string> ReadData(int fd, std::string& buffer, Stop stop) {
  std::string data;
  while (std::optional<std::string> line = ReadLine(fd, buffer, stop)) {
    if (*line == ".") return data;
    if (absl::StartsWith(*line, ".")) line->erase(0, 1);
    absl::StrAppend(&data, *line, "\r\n");
  }
  return std::nullopt;
}

}  // namespace

SmtpSink::SmtpSink(int rcpt_code) : rcpt_code_(rcpt_code) {
  listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      listen(listener_, 8) == 0 &&
      getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port_ = ntohs(addr.sin_port);
  }
  thread_ = std::thread([this] { Serve(); });
}

SmtpSink::~SmtpSink() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
  close(listener_);
}

std::string SmtpSink::url() const { return absl::StrCat("smtp://127.0.0.1:", port_); }

std::vector<ReceivedMail> SmtpSink::mails() {
  absl::MutexLock lock(&mu_);
  return mails_;
}

int SmtpSink::rcpt_commands() {
  absl::MutexLock lock(&mu_);
  return rcpt_commands_;
}

bool SmtpSink::stopping() {
  absl::MutexLock lock(&mu_);
  return stop_;
}

void SmtpSink::Serve() {
  while (!stopping()) {
    pollfd p{listener_, POLLIN, 0};
    if (poll(&p, 1, 50) != 1) continue;
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Session(fd);
    close(fd);
  }
}

void SmtpSink::Session(int fd) {
  auto stop = [this] { return stopping(); };
  std::string buffer;
  ReceivedMail mail;
  Say(fd, "220 sink ESMTP\r\n");
  while (std::optional<std::string> line = ReadLine(fd, buffer, stop)) {
    const std::string verb = absl::AsciiStrToUpper(line->substr(0, 4));
    if (verb == "EHLO") {
      Say(fd, "250-sink\r\n250 8BITMIME\r\n");
    } else if (verb == "MAIL") {
      mail = ReceivedMail{Path(*line), {}, ""};
      Say(fd, "250 OK\r\n");
    } else if (verb == "RCPT") {
      absl::MutexLock lock(&mu_);
      ++rcpt_commands_;
      if (rcpt_code_ == 250) mail.rcpt_to.push_back(Path(*line));
      Say(fd, rcpt_code_ == 250 ? "250 OK\r\n" : "550 5.1.1 no such mailbox\r\n");
    } else if (verb == "DATA") {
      Say(fd, "354 end with <CRLF>.<CRLF>\r\n");
      std::optional<std::string> data = ReadData(fd, buffer, stop);
      if (!data) return;
      mail.data = *data;
      absl::MutexLock lock(&mu_);
      mails_.push_back(mail);
      Say(fd, "250 OK queued\r\n");
    } else if (verb == "QUIT") {
      Say(fd, "221 bye\r\n");
      return;
    } else if (verb == "HELO" || verb == "RSET" || verb == "NOOP") {
      Say(fd, "250 OK\r\n");
    } else {
      Say(fd, "502 not implemented\r\n");
    }
  }
}

}  // namespace bbo::notify::testing
