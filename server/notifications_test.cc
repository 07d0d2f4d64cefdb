// Notifications over a real Coordinator of a two-phase competition with a calendar seam (a
// FakeClock the test moves): e-mail to a local SMTP sink and webhooks to a cpp-httplib receiver,
// both on 127.0.0.1; who is told what, once; who may set a contact.

#include "server/notifications.h"

#include <unistd.h>

#include <filesystem>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "problems/test_problems.h"
#include "server/coordinator.h"
#include "server/testing/competition_fixtures.h"
#include "server/notify/testing/smtp_sink.h"
#include "server/store/memory_store.h"

namespace bbo {
namespace {

using ::bbo::notify::testing::ReceivedMail;
using ::bbo::notify::testing::SmtpSink;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kFile[] = R"json(
{
  "name": "notify-2026",
  "seed": 7,
  "phases": [
    {"name": "practice", "start": "2026-01-01T00:00:00Z", "end": "2026-02-01T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 2, "default_trials": 2,
     "baseline_trials": 1},
    {"name": "feedback", "title": "Feedback", "start": "2026-02-01T00:00:00Z",
     "end": "2026-03-01T00:00:00Z", "problem_set": "test", "batch_size": 2, "n_batches": 2,
     "baseline_trials": 1}
  ]
})json";

using bbo::testing::At;

std::string Archive() { return bbo::testing::PlaceholderArchive("notifications"); }

// Records every POST, by path, as JSON.
class Receiver {
 public:
  Receiver() {
    server_.Post(R"(/\w+)", [this](const httplib::Request& req, httplib::Response& res) {
      absl::MutexLock lock(&mu_);
      posts_.push_back({req.path, nlohmann::json::parse(req.body, nullptr, false)});
      res.set_content("ok", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    while (!server_.is_running() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(5));
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& path) const {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  // The events POSTed to `path`, in order.
  std::vector<nlohmann::json> Posts(const std::string& path) {
    absl::MutexLock lock(&mu_);
    std::vector<nlohmann::json> out;
    for (const auto& [p, body] : posts_) {
      if (p == path) out.push_back(body);
    }
    return out;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  absl::Mutex mu_;
  std::vector<std::pair<std::string, nlohmann::json>> posts_ ABSL_GUARDED_BY(mu_);
};

std::vector<std::string> Events(const std::vector<nlohmann::json>& posts) {
  std::vector<std::string> out;
  for (const nlohmann::json& p : posts) out.push_back(p.value("event", "?"));
  return out;
}

class NotificationsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    coordinator_.reset();
    if (!db_.empty()) {
      for (const char* suffix : {"", "-wal", "-shm", ".lock", ".secret"}) {
        std::filesystem::remove(db_ + suffix);
      }
    }
  }
  // A coordinator of kFile at `now` on the calendar; over `store`, or the SQLite file db_ when
  // null. Notifications on unless `notify` is false.
  void Start(const char* now, std::unique_ptr<Store> store, bool notify = true) {
    auto spec = ParseCompetitionFile(kFile);
    ASSERT_TRUE(spec.ok()) << spec.status();
    std::vector<std::vector<std::unique_ptr<Problem>>> problems(spec->phases.size());
    for (auto& p : problems) p.push_back(MakeTrivialProblem(2));
    auto calendar = std::make_unique<FakeClock>(At(now));
    calendar_ = calendar.get();
    CoordinatorOptions o;
    o.run_baseline = false;
    o.db_path = db_;
    if (notify) {
      notify::NotifierOptions n;
      n.smtp = notify::SmtpOptions{sink_.url(), "arena@example.org", "", "", true, 5};
      n.retry_delay_s = 0.05;
      n.webhook_timeout_s = 5;
      o.notify = n;
      o.notify_webhooks = true;
      o.notify_allow_private_webhooks = true;  // the receiver is on 127.0.0.1
    }
    auto c = Coordinator::CreateCompetition(o, *std::move(spec), std::move(problems), nullptr,
                                            std::move(calendar), std::move(store));
    ASSERT_TRUE(c.ok()) << c.status();
    coordinator_ = *std::move(c);
  }
  void StartSqlite(const char* now) {
    db_ = std::filesystem::temp_directory_path() /
          absl::StrCat("notifications_test_", ::getpid(), ".sqlite");
    Start(now, nullptr);
  }
  void MoveTo(const char* when) { calendar_->Advance(At(when) - calendar_->Now()); }
  void SetContact(const std::string& team, const std::string& hook) {
    ASSERT_TRUE(
        coordinator_->competition()
            .SetContact(Identity::Team(team), "", team + "@example.org", receiver_.Url(hook))
            .ok());
  }
  void Submit(const std::string& team, const std::string& name) {
    absl::StatusOr<Phase*> phase = coordinator_->competition().ForSubmission("");
    ASSERT_TRUE(phase.ok()) << phase.status();
    ASSERT_TRUE((*phase)->Register(Identity::Team(team), name, Archive(), 0, "").ok());
  }
  // Plays every queued job as a worker does, through the queue: a submission named "crash..."
  // dies at its first suggest, the others run to the end.
  void PlayAll() {
    const Identity worker = Identity::Worker("w");
    absl::StatusOr<WorkerRegistration> reg =
        coordinator_->queue().RegisterWorker(worker, "host", 1);
    ASSERT_TRUE(reg.ok()) << reg.status();
    StudyManager& studies = coordinator_->studies();
    for (int guard = 0; guard < 100; ++guard) {
      auto job = coordinator_->queue().Lease(worker, reg->worker_id);
      ASSERT_TRUE(job.ok()) << job.status();
      if (!*job) break;
      auto study = studies.OpenForJob(Identity::Coordinator(), (*job)->job_id, reg->worker_id);
      ASSERT_TRUE(study.ok()) << study.status();
      const bool crash =
          coordinator_->store().GetSubmission((*job)->submission_id)->name.rfind("crash", 0) == 0;
      for (int b = 0; b < study->budget.n_batches; ++b) {
        if (crash) {
          ASSERT_TRUE(studies
                          .ReportSuggestFailure(Identity::Coordinator(), study->study_id, b,
                                                "SyntaxError: invalid syntax", true)
                          .ok());
          break;
        }
        auto space = SearchSpace::FromJson(study->api_config);
        std::mt19937_64 rng(1);
        std::vector<IncomingPoint> points;
        for (Point& p : space->SampleRandom(study->budget.batch_size, rng)) {
          points.push_back({std::move(p), ""});
        }
        ASSERT_TRUE(studies.SubmitBatch(Identity::Coordinator(), study->study_id, b, points).ok());
      }
      ASSERT_TRUE(coordinator_->queue().Finish(worker, reg->worker_id, (*job)->job_id, "").ok());
    }
  }
  void Flush() {
    ASSERT_NE(coordinator_->notifications(), nullptr);
    ASSERT_TRUE(coordinator_->notifications()->Flush(absl::Seconds(20)).ok());
  }
  // The mails to `address`.
  std::vector<ReceivedMail> MailsTo(const std::string& address) {
    std::vector<ReceivedMail> out;
    for (const ReceivedMail& m : sink_.mails()) {
      if (m.rcpt_to == std::vector<std::string>{address}) out.push_back(m);
    }
    return out;
  }

  SmtpSink sink_;
  Receiver receiver_;
  std::string db_;
  FakeClock* calendar_ = nullptr;
  std::unique_ptr<Coordinator> coordinator_;
};

TEST_F(NotificationsTest, ATeamIsToldWhenItsSubmissionFinishesOrFailsAndNoOtherTeamIs) {
  Start("2026-01-10T00:00:00Z", std::make_unique<InMemoryStore>());
  SetContact("red", "/red");
  SetContact("blue", "/blue");
  Submit("red", "good1");
  Submit("red", "crash1");
  Submit("green", "quiet1");  // no contact: no one is told
  PlayAll();
  Flush();

  const std::vector<nlohmann::json> red = receiver_.Posts("/red");
  ASSERT_EQ(red.size(), 2u);
  EXPECT_EQ(Events(red), (std::vector<std::string>{"submission_finished", "submission_failed"}));
  EXPECT_EQ(red[0]["team"], "red");
  EXPECT_EQ(red[0]["details"]["submission"], "good1");
  EXPECT_EQ(red[0]["details"]["phase"], "practice");
  EXPECT_EQ(red[0]["details"]["state"], "finished");
  EXPECT_EQ(red[0]["details"]["description"], "finished: 2 jobs done, no errors");
  EXPECT_THAT(red[0]["text"].get<std::string>(), HasSubstr("finished: 2 jobs done, no errors"));
  const int64_t good1 = red[0]["details"]["submission_id"].get<int64_t>();
  EXPECT_THAT(red[0]["text"].get<std::string>(), HasSubstr(absl::StrCat("bbo logs ", good1)));
  EXPECT_EQ(red[1]["details"]["submission"], "crash1");
  EXPECT_EQ(red[1]["details"]["state"], "failed");
  EXPECT_THAT(red[1]["text"].get<std::string>(), HasSubstr("failed: 2 of 2 studies had errors"));
  EXPECT_TRUE(receiver_.Posts("/blue").empty());

  const std::vector<ReceivedMail> mails = MailsTo("red@example.org");
  ASSERT_EQ(mails.size(), 2u);
  EXPECT_THAT(mails[0].data, HasSubstr("submission \"good1\" finished"));
  EXPECT_THAT(mails[0].data, HasSubstr("finished: 2 jobs done, no errors"));
  EXPECT_THAT(mails[1].data, HasSubstr("submission \"crash1\" failed"));
  EXPECT_THAT(mails[1].data, HasSubstr(absl::StrCat(
                                 "bbo logs ", red[1]["details"]["submission_id"].get<int64_t>())));
  EXPECT_TRUE(MailsTo("blue@example.org").empty());
  EXPECT_EQ(sink_.mails().size(), 2u);

  // /metrics counts the deliveries by channel.
  const MetricsGauges g = coordinator_->Gauges();
  EXPECT_EQ(g.notifications.at("email").sent, 2);
  EXPECT_EQ(g.notifications.at("webhook").sent, 2);
  const std::string text = coordinator_->metrics().Render(g);
  EXPECT_THAT(text, HasSubstr("bbo_notifications_sent_total{channel=\"email\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("bbo_notifications_failed_total{channel=\"webhook\"} 0\n"));
}

TEST_F(NotificationsTest, APhaseOpeningIsAnnouncedOnceToEveryTeamWithAContactAcrossRestarts) {
  StartSqlite("2026-01-10T00:00:00Z");
  SetContact("red", "/red");
  ASSERT_TRUE(coordinator_->competition()
                  .SetContact(Identity::Organizer(), "blue", "blue@example.org", "")
                  .ok());
  // The practice phase opened nine days ago: old news, not announced.
  ASSERT_TRUE(coordinator_->notifications()->CheckCalendar().ok());
  Flush();
  EXPECT_TRUE(sink_.mails().empty());

  MoveTo("2026-02-01T00:10:00Z");  // practice closed and feedback opened ten minutes ago
  ASSERT_TRUE(coordinator_->notifications()->CheckCalendar().ok());
  ASSERT_TRUE(coordinator_->notifications()->CheckCalendar().ok());
  Flush();
  EXPECT_EQ(Events(receiver_.Posts("/red")),
            (std::vector<std::string>{"phase_closed", "phase_opened"}));
  EXPECT_EQ(receiver_.Posts("/red")[1]["details"]["phase"], "feedback");
  ASSERT_EQ(MailsTo("blue@example.org").size(), 2u);
  EXPECT_THAT(MailsTo("blue@example.org")[1].data, HasSubstr("phase \"feedback\" opened"));
  EXPECT_EQ(MailsTo("red@example.org").size(), 2u);

  // A second coordinator on the same file, through its sweep: nothing again.
  coordinator_.reset();
  Start("2026-02-01T00:20:00Z", nullptr);
  coordinator_->Start();
  absl::SleepFor(absl::Milliseconds(1500));  // the sweep runs every second
  Flush();
  EXPECT_EQ(receiver_.Posts("/red").size(), 2u);
  EXPECT_EQ(sink_.mails().size(), 4u);

  // Feedback closed three hours ago: past the hour, not announced.
  MoveTo("2026-03-01T03:00:00Z");
  ASSERT_TRUE(coordinator_->notifications()->CheckCalendar().ok());
  Flush();
  EXPECT_EQ(receiver_.Posts("/red").size(), 2u);
  EXPECT_EQ(sink_.mails().size(), 4u);
}

TEST_F(NotificationsTest, ContactsFollowTheAccessRulesAndRefuseBadAddresses) {
  Start("2026-01-10T00:00:00Z", std::make_unique<InMemoryStore>(), /*notify=*/false);
  EXPECT_EQ(coordinator_->notifications(), nullptr);
  Competition& c = coordinator_->competition();
  const Identity red = Identity::Team("red");
  EXPECT_EQ(c.SetContact(red, "blue", "", "").status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(c.Contact(red, "blue").status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(c.SetContact(Identity::Anonymous(), "red", "a@example.org", "").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(c.SetContact(Identity::Worker("w"), "red", "", "").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(c.SetContact(Identity::Organizer(), "", "a@example.org", "").status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<TeamContact> bad = c.SetContact(red, "", "not an address", "");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("email"));
  for (const char* url : {"file:///etc/passwd", "http://hooks.example.org/x",
                          "https://127.0.0.1/hook", "https://10.1.2.3/hook"}) {
    bad = c.SetContact(red, "", "", url);
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(bad.status().message(), HasSubstr("webhook_url")) << url;
  }
  EXPECT_EQ(*coordinator_->store().GetTeamContact("red"), std::nullopt);

  // Stored without notifications on, for later.
  absl::StatusOr<TeamContact> set =
      c.SetContact(red, "", "red@example.org", "https://hooks.example.org/bbo");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->team, "red");
  EXPECT_EQ(c.Contact(red, "")->webhook_url, "https://hooks.example.org/bbo");
  ASSERT_TRUE(c.SetContact(red, "red", "", "").ok());  // "" clears
  EXPECT_EQ(c.Contact(red, "")->email, "");
  EXPECT_EQ(c.Contact(red, "")->webhook_url, "");

  // An organizer sets and reads any team's.
  ASSERT_TRUE(c.SetContact(Identity::Organizer(), "blue", "blue@example.org", "").ok());
  EXPECT_EQ(c.Contact(Identity::Organizer(), "blue")->email, "blue@example.org");
  EXPECT_EQ(c.Contact(Identity::Organizer(), "green")->email, "");
  EXPECT_THAT(coordinator_->metrics().Render(coordinator_->Gauges()),
              Not(HasSubstr("bbo_notifications")));
}

}  // namespace
}  // namespace bbo
