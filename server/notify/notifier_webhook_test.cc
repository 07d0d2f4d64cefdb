// The webhook channel end to end: a Notifier POSTing through libcurl to cpp-httplib receivers on
// 127.0.0.1.

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "server/notify/notifier.h"

namespace bbo::notify {
namespace {

struct Received {
  std::string path;
  std::string body;
  std::string content_type;
  std::string user_agent;
  std::string signature;
};

// POST /hook answers `status`; POST /redirect answers 302 to /target; /target records a hit.
class Receiver {
 public:
  explicit Receiver(int status = 200) : status_(status) {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = status_;
      res.set_content("ok", "text/plain");
    });
    server_.Post("/redirect", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.set_redirect(absl::StrCat("http://127.0.0.1:", port_, "/target"), 302);
    });
    server_.Post("/big", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.set_content(std::string(1 << 20, 'x'), "text/plain");
    });
    auto target = [this](const httplib::Request& req, httplib::Response& res) { Record(req); };
    server_.Post("/target", target);
    server_.Get("/target", target);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    while (!server_.is_running() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(5));
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }

  std::string Url(absl::string_view path) const {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  int port() const { return port_; }
  std::vector<Received> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  int Hits(absl::string_view path) {
    int n = 0;
    for (const Received& r : requests()) n += r.path == path ? 1 : 0;
    return n;
  }

 private:
  void Record(const httplib::Request& req) {
    absl::MutexLock lock(&mu_);
    requests_.push_back(Received{req.path, req.body, req.get_header_value("Content-Type"),
                                 req.get_header_value("User-Agent"),
                                 req.get_header_value("X-BBO-Signature")});
  }

  const int status_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  absl::Mutex mu_;
  std::vector<Received> requests_ ABSL_GUARDED_BY(mu_);
};

// HMAC-SHA256 with OpenSSL, independently of the library's libsodium.
std::string OpenSslSignature(const std::string& key, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &length);
  return "sha256=" +
         absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(mac), length));
}

NotifierOptions WebhookOptions() {
  NotifierOptions options;
  options.allow_private_webhooks = true;  // the receivers are on 127.0.0.1
  options.competition = "bbo-2025";
  options.retry_delay_s = 0.05;
  options.webhook_timeout_s = 5;
  return options;
}

Notification PhaseOpened(std::string url) {
  return Notification{"team-a",
                      "phase_opened",
                      "Phase 2 is open",
                      "Submit until Friday.",
                      nlohmann::json{{"phase", "final"}, {"budget", 100}},
                      "",
                      std::move(url)};
}

TEST(NotifierWebhookTest, PostsSignedJson) {
  Receiver receiver;
  NotifierOptions options = WebhookOptions();
  options.webhook_secret = "s3cret-key";
  Notifier notifier(options);
  const double before = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  ASSERT_TRUE(notifier.Enqueue(PhaseOpened(receiver.Url("/hook"))).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  const double after = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  EXPECT_EQ(notifier.Counters().webhook.sent, 1);
  const std::vector<Received> requests = receiver.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].content_type, "application/json");
  EXPECT_EQ(requests[0].user_agent, "bbo-arena-notifier");
  EXPECT_EQ(requests[0].signature, OpenSslSignature("s3cret-key", requests[0].body));
  const nlohmann::json body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body["competition"], "bbo-2025");
  EXPECT_EQ(body["team"], "team-a");
  EXPECT_EQ(body["event"], "phase_opened");
  EXPECT_EQ(body["subject"], "Phase 2 is open");
  EXPECT_EQ(body["text"], "Submit until Friday.");
  EXPECT_EQ(body["details"], (nlohmann::json{{"phase", "final"}, {"budget", 100}}));
  EXPECT_GE(body["sent_at_s"].get<double>(), before);
  EXPECT_LE(body["sent_at_s"].get<double>(), after);
}

TEST(NotifierWebhookTest, NoSignatureWithoutSecret) {
  Receiver receiver;
  Notifier notifier(WebhookOptions());
  ASSERT_TRUE(notifier.Enqueue(PhaseOpened(receiver.Url("/hook"))).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  ASSERT_EQ(receiver.requests().size(), 1u);
  EXPECT_EQ(receiver.requests()[0].signature, "");
}

TEST(NotifierWebhookTest, ServerErrorIsRetriedThenCountedFailed) {
  Receiver receiver(/*status=*/500);
  NotifierOptions options = WebhookOptions();
  options.max_attempts = 3;
  Notifier notifier(options);
  ASSERT_TRUE(notifier.Enqueue(PhaseOpened(receiver.Url("/hook"))).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(30)).ok());
  const ChannelCounters counters = notifier.Counters().webhook;
  EXPECT_EQ(counters.sent, 0);
  EXPECT_EQ(counters.failed, 1);
  EXPECT_EQ(counters.refused, 0);
  EXPECT_EQ(receiver.Hits("/hook"), 3);
}

TEST(NotifierWebhookTest, RedirectIsNotFollowed) {
  Receiver receiver;
  NotifierOptions options = WebhookOptions();
  options.max_attempts = 1;
  Notifier notifier(options);
  ASSERT_TRUE(notifier.Enqueue(PhaseOpened(receiver.Url("/redirect"))).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  EXPECT_EQ(notifier.Counters().webhook.failed, 1);
  EXPECT_EQ(receiver.Hits("/redirect"), 1);
  EXPECT_EQ(receiver.Hits("/target"), 0);
}

TEST(NotifierWebhookTest, LongAnswerIsCutAndStillDelivered) {
  Receiver receiver;
  NotifierOptions options = WebhookOptions();
  options.max_attempts = 1;
  Notifier notifier(options);
  ASSERT_TRUE(notifier.Enqueue(PhaseOpened(receiver.Url("/big"))).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  EXPECT_EQ(notifier.Counters().webhook.sent, 1);
  EXPECT_EQ(receiver.Hits("/big"), 1);
}

TEST(NotifierWebhookTest, PrivateAddressesAreRefusedUnlessAllowed) {
  Receiver receiver;
  NotifierOptions options = WebhookOptions();
  options.allow_private_webhooks = false;
  Notifier notifier(options);
  const std::string port = std::to_string(receiver.port());
  for (const std::string& url :
       {"http://127.0.0.1:" + port + "/hook", "https://127.0.0.1:" + port + "/hook",
        "https://localhost:" + port + "/hook", "https://[::1]:" + port + "/hook",
        "https://[::ffff:127.0.0.1]:" + port + "/hook"}) {
    ASSERT_TRUE(notifier.Enqueue(PhaseOpened(url)).ok()) << url;
  }
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  const ChannelCounters counters = notifier.Counters().webhook;
  EXPECT_EQ(counters.refused, 5);
  EXPECT_EQ(counters.failed, 5);
  EXPECT_EQ(counters.sent, 0);
  EXPECT_TRUE(receiver.requests().empty());
}

}  // namespace
}  // namespace bbo::notify
