// The Notifier's contract apart from either channel's content: argument checks, the bounded
// queue, Flush, timeouts and a prompt shutdown. A "silent" receiver (a listening socket on
// 127.0.0.1 that never accepts: connections complete, no answer ever comes) stands for a slow
// or hung webhook.

#include "server/notify/notifier.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace bbo::notify {
namespace {

class SilentReceiver {
 public:
  SilentReceiver() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(fd_, 16), 0);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentReceiver() { close(fd_); }
  std::string Url() const { return absl::StrCat("http://127.0.0.1:", port_, "/hook"); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

Notification Webhook(std::string url) {
  return Notification{"team-a",       "submission_failed",      "Submission 3 failed",
                      "See the log.", nlohmann::json::object(), "",
                      std::move(url)};
}

NotifierOptions LocalOptions() {
  NotifierOptions options;
  options.allow_private_webhooks = true;
  options.retry_delay_s = 0.05;
  return options;
}

TEST(ValidateWebhookUrlTest, AcceptsHttpsUrl) {
  EXPECT_TRUE(ValidateWebhookUrl("https://hooks.example.org/bbo?team=a#x", false).ok());
  EXPECT_TRUE(ValidateWebhookUrl("https://hooks.example.org:8443/bbo", false).ok());
  EXPECT_TRUE(ValidateWebhookUrl("HTTPS://Hooks.Example.org", false).ok());
  EXPECT_TRUE(ValidateWebhookUrl("https://[2001:db8::1]/hook", false).ok());
}

TEST(ValidateWebhookUrlTest, RefusesOtherSchemesUserinfoWhitespaceAndLength) {
  const std::string too_long = "https://example.org/" + std::string(2048, 'a');
  for (const std::string& url : {std::string("ftp://example.org/x"),
                                 std::string("file:///etc/passwd"),
                                 std::string("gopher://example.org"),
                                 std::string("https://user:pw@example.org/"),
                                 std::string("https://user@example.org/"),
                                 std::string("https://exa mple.org/"),
                                 std::string("https://example.org/a b"),
                                 std::string("https://example.org/\r\nX: y"),
                                 std::string("https://example.org/\t"),
                                 std::string("https:///path"),
                                 std::string("https://"),
                                 std::string("example.org/hook"),
                                 std::string(""),
                                 std::string("https://example.org:0/"),
                                 std::string("https://example.org:99999/"),
                                 std::string("https://example.org:/"),
                                 std::string("https://[::1/"),
                                 std::string("https://example.org\\@evil.org/"),
                                 std::string("https://bücher.example/"),
                                 too_long}) {
    EXPECT_EQ(ValidateWebhookUrl(url, true).code(), absl::StatusCode::kInvalidArgument) << url;
  }
}

TEST(ValidateWebhookUrlTest, PrivateHostsAndHttpOnlyWhenAllowed) {
  for (const char* url :
       {"http://hooks.example.org/", "https://127.0.0.1/", "https://localhost:8080/",
        "https://10.1.2.3/", "https://192.168.0.1/", "https://169.254.169.254/latest",
        "https://[::1]/", "https://[fd00::1]/", "https://0.0.0.0/"}) {
    EXPECT_EQ(ValidateWebhookUrl(url, false).code(), absl::StatusCode::kInvalidArgument) << url;
    EXPECT_TRUE(ValidateWebhookUrl(url, true).ok()) << url;
  }
}

TEST(ValidateNotifierOptionsTest, NamesTheBadField) {
  EXPECT_TRUE(ValidateNotifierOptions(NotifierOptions{}).ok());
  NotifierOptions options;
  options.max_queue = 0;
  EXPECT_EQ(ValidateNotifierOptions(options).code(), absl::StatusCode::kInvalidArgument);
  options = NotifierOptions{};
  options.max_attempts = 0;
  EXPECT_EQ(ValidateNotifierOptions(options).code(), absl::StatusCode::kInvalidArgument);
  options = NotifierOptions{};
  options.smtp = SmtpOptions{"smtp://mail.example.org:587", "not an address", "", "", true, 20};
  const absl::Status status = ValidateNotifierOptions(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("smtp.from"), absl::string_view::npos) << status;
  options.smtp = SmtpOptions{"imap://mail.example.org", "arena@example.org", "", "", true, 20};
  EXPECT_EQ(ValidateNotifierOptions(options).code(), absl::StatusCode::kInvalidArgument);
}

TEST(NotifierTest, EnqueueChecksItsArguments) {
  Notifier notifier(LocalOptions());
  Notification n = Webhook("https://hooks.example.org/x");
  n.event = "submission_exploded";
  EXPECT_EQ(notifier.Enqueue(n).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(notifier.Enqueue(Webhook("ftp://example.org/x")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(notifier.Enqueue(Webhook("")).ok());  // no channel: nothing to do
  EXPECT_TRUE(notifier.Flush(absl::Seconds(1)).ok());
  const NotifierCounters counters = notifier.Counters();
  EXPECT_EQ(counters.webhook.sent + counters.webhook.failed + counters.webhook.dropped, 0);
}

TEST(NotifierTest, FullQueueRefusesAndCountsDropped) {
  SilentReceiver receiver;
  NotifierOptions options = LocalOptions();
  options.max_queue = 2;
  options.webhook_timeout_s = 30;
  auto notifier = std::make_unique<Notifier>(options);
  EXPECT_TRUE(notifier->Enqueue(Webhook(receiver.Url())).ok());
  EXPECT_TRUE(notifier->Enqueue(Webhook(receiver.Url())).ok());
  EXPECT_EQ(notifier->Enqueue(Webhook(receiver.Url())).code(),
            absl::StatusCode::kResourceExhausted);
  const ChannelCounters counters = notifier->Counters().webhook;
  EXPECT_EQ(counters.dropped, 1);
  EXPECT_EQ(counters.sent, 0);
  EXPECT_EQ(counters.failed, 0);
  EXPECT_EQ(notifier->Flush(absl::Milliseconds(100)).code(), absl::StatusCode::kDeadlineExceeded);
  const absl::Time start = absl::Now();
  notifier.reset();  // one send in progress, one queued: both dropped, promptly
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

TEST(NotifierTest, SilentReceiverHitsTheTimeout) {
  SilentReceiver receiver;
  NotifierOptions options = LocalOptions();
  options.webhook_timeout_s = 1;
  options.max_attempts = 1;
  Notifier notifier(options);
  const absl::Time start = absl::Now();
  ASSERT_TRUE(notifier.Enqueue(Webhook(receiver.Url())).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(10)).ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(900));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(notifier.Counters().webhook.failed, 1);
}

TEST(NotifierTest, DestructorReturnsPromptlyDuringASend) {
  SilentReceiver receiver;
  NotifierOptions options = LocalOptions();
  options.webhook_timeout_s = 60;
  auto notifier = std::make_unique<Notifier>(options);
  ASSERT_TRUE(notifier->Enqueue(Webhook(receiver.Url())).ok());
  absl::SleepFor(absl::Milliseconds(300));  // the transfer is waiting for an answer
  const absl::Time start = absl::Now();
  notifier.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

TEST(NotifierTest, DestructorDuringRetryDelayDoesNotWait) {
  SilentReceiver receiver;
  NotifierOptions options = LocalOptions();
  options.webhook_timeout_s = 0.2;
  options.retry_delay_s = 600;
  auto notifier = std::make_unique<Notifier>(options);
  ASSERT_TRUE(notifier->Enqueue(Webhook(receiver.Url())).ok());
  absl::SleepFor(absl::Milliseconds(600));  // first attempt timed out; the retry waits
  const absl::Time start = absl::Now();
  notifier.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

}  // namespace
}  // namespace bbo::notify
