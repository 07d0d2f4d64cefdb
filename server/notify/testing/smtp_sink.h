#ifndef BBO_SERVER_NOTIFY_TESTING_SMTP_SINK_H_
#define BBO_SERVER_NOTIFY_TESTING_SMTP_SINK_H_

// A local SMTP server for tests: listens on 127.0.0.1 (a free port), speaks enough ESMTP for
// libcurl (a 220 greeting, EHLO/HELO 250, MAIL FROM, RCPT TO answered `rcpt_code`, DATA 354 up
// to CRLF.CRLF then 250, RSET, NOOP, QUIT 221) and records each envelope and message. One
// connection at a time on its own thread; every wait is bounded, so a broken client cannot hang
// a test. Thread-safe.

#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace bbo::notify::testing {

struct ReceivedMail {
  std::string mail_from;             // the address inside MAIL FROM:<...>
  std::vector<std::string> rcpt_to;  // accepted RCPT TO addresses
  std::string data;  // the message as the client meant it: dot-stuffing undone, CRLF line ends
};

class SmtpSink {
 public:
  // rcpt_code: 250 accepts recipients; anything else answers "550 5.1.1 no such mailbox".
  explicit SmtpSink(int rcpt_code = 250);
  ~SmtpSink();  // stops within about 50 ms once the current session ends (at most 10 s)
  SmtpSink(const SmtpSink&) = delete;
  SmtpSink& operator=(const SmtpSink&) = delete;

  std::string url() const;  // "smtp://127.0.0.1:<port>"
  std::vector<ReceivedMail> mails();
  int rcpt_commands();  // RCPT TO commands seen, accepted or not

 private:
  bool stopping();
  void Serve();
  void Session(int fd);

  const int rcpt_code_;
  int listener_ = -1;
  int port_ = 0;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<ReceivedMail> mails_ ABSL_GUARDED_BY(mu_);
  int rcpt_commands_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;  // last: started once everything above is built
};

}  // namespace bbo::notify::testing

#endif  // BBO_SERVER_NOTIFY_TESTING_SMTP_SINK_H_
