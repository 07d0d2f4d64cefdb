// The bounded HTTP server (server/http/http_server.h) on a real socket on 127.0.0.1, spoken to
// with raw bytes: what an anonymous caller can make it hold, and that prompt clients are served
// whatever slow ones do. Every test is bounded in time and connections.

#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::http {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

int Connect(int port, const char* from = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, from, &local.sin_addr);
  bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += n;
  }
  return true;
}

// Everything the server sends until it closes, or until `timeout`.
std::string ReadAll(int fd, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  std::string out;
  const auto end = std::chrono::steady_clock::now() + timeout;
  char buf[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, n);
  }
  return out;
}

// Whether the server closed `fd` within `timeout`.
bool ClosedWithin(int fd, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) > 0) {
      const ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN)) return true;
    }
  }
  return false;
}

std::string Exchange(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "connect failed";
  SendAll(fd, request);
  std::string answer = ReadAll(fd);
  close(fd);
  return answer;
}

std::string Get(const std::string& path, const std::string& extra = "") {
  return absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n", extra,
                      "\r\n");
}

class HttpServerTest : public ::testing::Test {
 protected:
  // Starts a server whose handler answers "path:body" (or `handler` when set).
  void Start(HttpServerOptions o = {}, Handler handler = nullptr, HeadCheck check = nullptr) {
    if (handler == nullptr) {
      handler = [this](const Request& r) {
        ++handled_;
        Response res;
        res.body = absl::StrCat(r.method, " ", r.path, " q=", r.Param("q"),
                                " client=", r.client_address, " body=", r.body);
        return res;
      };
    }
    if (check == nullptr) {
      check = [](const Request&) {
        HeadDecision d;
        d.max_body_bytes = 1024;
        return d;
      };
    }
    absl::StatusOr<std::unique_ptr<HttpServer>> s = HttpServer::Start(o, check, handler);
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = *std::move(s);
  }
  int port() const { return server_->port(); }

  std::atomic<int> handled_{0};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, AnswersAGetWithItsQueryAndTheDefaultHeaders) {
  HttpServerOptions o;
  o.default_headers = {{"X-Content-Type-Options", "nosniff"}};
  Start(o);
  const std::string answer = Exchange(port(), Get("/api/x?q=a%20b+c"));
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(answer, HasSubstr("X-Content-Type-Options: nosniff"));
  EXPECT_THAT(answer, HasSubstr("GET /api/x q=a b c client=127.0.0.1 body="));
}

TEST_F(HttpServerTest, ServesSeveralRequestsOnAKeptAliveConnection) {
  Start();
  const int fd = Connect(port());
  ASSERT_GE(fd, 0);
  const std::string req = "GET /one HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  ASSERT_TRUE(
      SendAll(fd, req + "GET /two HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
  const std::string answers = ReadAll(fd);
  close(fd);
  EXPECT_THAT(answers, HasSubstr("GET /one"));
  EXPECT_THAT(answers, HasSubstr("GET /two"));
}

TEST_F(HttpServerTest, ACompressedBodyIsRefusedBeforeItIsRead) {
  Start();
  // A gigabyte announced: refused from the headers alone, the handler never called.
  const std::string answer =
      Exchange(port(),
               "POST /api/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
               "\r\nContent-Encoding: gzip\r\nContent-Length: 1000000000\r\n\r\n\x1f\x8b\x08");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 415"));
  EXPECT_THAT(answer, HasSubstr("uncompressed"));
  EXPECT_EQ(handled_.load(), 0);
}

TEST_F(HttpServerTest, ABodyWithoutALengthIsRefusedAndNotRead) {
  Start();
  const int fd = Connect(port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "POST /api/register HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  // The stream goes on; the server has answered and stops reading it.
  SendAll(fd, std::string(64 << 10, 'x'));
  const std::string answer = ReadAll(fd, std::chrono::seconds(4));
  close(fd);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 411"));
  EXPECT_EQ(handled_.load(), 0);
  const std::string chunked = Exchange(
      port(),
      "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
  EXPECT_THAT(chunked, StartsWith("HTTP/1.1 411"));
}

TEST_F(HttpServerTest, ABodyOverItsBoundIsRefusedAndOneWithinItArrivesWhole) {
  Start();
  const std::string big = Exchange(port(), absl::StrCat("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                        "Content-Length: 1025\r\n\r\n",
                                                        std::string(1025, 'b')));
  EXPECT_THAT(big, StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(big, HasSubstr("at most 1024"));
  const std::string ok = Exchange(port(), absl::StrCat("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                       "Connection: close\r\nContent-Length: 1024"
                                                       "\r\n\r\n",
                                                       std::string(1024, 'b')));
  EXPECT_THAT(ok, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(ok, HasSubstr("body=" + std::string(1024, 'b')));
  EXPECT_EQ(handled_.load(), 1);
}

TEST_F(HttpServerTest, RangesAreIgnoredSoAnAnswerIsSentOnce) {
  const std::string body(8000, 'r');
  Start({}, [&](const Request&) {
    Response r;
    r.body = body;
    return r;
  });
  std::string ranges = "Range: bytes=0-";
  for (int i = 0; i < 2000; ++i) absl::StrAppend(&ranges, ",0-7999");
  const std::string answer =
      Exchange(port(), Get("/openapi.json", ranges.substr(0, 7000) + "\r\n"));
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200"));
  EXPECT_LT(answer.size(), body.size() + 2000);
}

TEST_F(HttpServerTest, HeadersOverTheBoundAreRefused) {
  Start();
  const std::string answer =
      Exchange(port(), Get("/x", "X-Junk: " + std::string(9000, 'j') + "\r\n"));
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 431"));
  EXPECT_EQ(handled_.load(), 0);
}

TEST_F(HttpServerTest, JunkIsAnswered400AndHeadGetsTheHeadersOnly) {
  Start();
  EXPECT_THAT(Exchange(port(), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(Exchange(port(), "GET /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
              StartsWith("HTTP/1.1 400"));
  const std::string head =
      Exchange(port(), "HEAD /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(head, HasSubstr("Content-Length: "));
  EXPECT_EQ(head.substr(head.find("\r\n\r\n") + 4), "");
}

TEST_F(HttpServerTest, ATrickledRequestIsClosedAtItsDeadlineHoweverSlowlyItSends) {
  HttpServerOptions o;
  o.header_deadline = absl::Milliseconds(800);
  Start(o);
  const int fd = Connect(port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "GET /x HTTP/1.1\r\n"));
  const auto start = std::chrono::steady_clock::now();
  bool closed = false;
  // One header line every 100 ms: each byte is on time, the whole request is not.
  for (int i = 0; i < 40 && !closed; ++i) {
    closed = !SendAll(fd, absl::StrCat("X-", i, ": y\r\n")) ||
             ClosedWithin(fd, std::chrono::milliseconds(100));
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  close(fd);
  EXPECT_TRUE(closed);
  EXPECT_LT(waited, 2.0);
  EXPECT_GE(server_->stats().connections_timed_out, 1);
}

TEST_F(HttpServerTest, SlowConnectionsMakeRoomForAPromptClient) {
  HttpServerOptions o;
  o.max_connections = 16;
  o.max_connections_per_address = 16;
  Start(o);
  std::vector<int> slow;
  for (int i = 0; i < 40; ++i) {
    const int fd = Connect(port());
    ASSERT_GE(fd, 0);
    SendAll(fd, "GET /slow HTTP/1.1\r\n");
    slow.push_back(fd);
  }
  // A prompt client is answered at once although 40 slow ones came before it.
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THAT(Exchange(port(), Get("/prompt")), StartsWith("HTTP/1.1 200"));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  }
  const HttpServerStats stats = server_->stats();
  EXPECT_LE(stats.connections_open, 16);
  EXPECT_GE(stats.connections_evicted, 40 - 16);
  for (int fd : slow) close(fd);
}

TEST_F(HttpServerTest, OneAddressCannotTakeEveryConnection) {
  HttpServerOptions o;
  o.max_connections = 64;
  o.max_connections_per_address = 8;
  Start(o);
  std::vector<int> a;
  for (int i = 0; i < 20; ++i) {
    const int fd = Connect(port(), "127.0.0.2");
    ASSERT_GE(fd, 0);
    SendAll(fd, "GET /slow HTTP/1.1\r\n");
    a.push_back(fd);
  }
  std::vector<int> b;
  for (int i = 0; i < 8; ++i) {
    const int fd = Connect(port(), "127.0.0.3");
    ASSERT_GE(fd, 0);
    SendAll(fd, "GET /slow HTTP/1.1\r\n");
    b.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // 127.0.0.2 holds 8 (its bound), 127.0.0.3 all of its 8.
  EXPECT_EQ(server_->stats().connections_open, 16);
  int open_b = 0;
  for (int fd : b) open_b += ClosedWithin(fd, std::chrono::milliseconds(20)) ? 0 : 1;
  EXPECT_EQ(open_b, 8);
  for (int fd : a) close(fd);
  for (int fd : b) close(fd);
}

TEST_F(HttpServerTest, BusyHandlersAnswer503InsteadOfQueueingWithoutBound) {
  HttpServerOptions o;
  o.handler_threads = 1;
  o.max_queued_requests = 0;
  absl::Notification release;
  std::atomic<int> started{0};
  Start(o, [&](const Request&) {
    ++started;
    release.WaitForNotificationWithTimeout(absl::Seconds(10));
    return Response();
  });
  const int fd = Connect(port());
  ASSERT_GE(fd, 0);
  SendAll(fd, Get("/slow-handler"));
  while (started.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::string second = Exchange(port(), Get("/x"));
  EXPECT_THAT(second, StartsWith("HTTP/1.1 503"));
  EXPECT_THAT(second, HasSubstr("Retry-After"));
  release.Notify();
  EXPECT_THAT(ReadAll(fd), StartsWith("HTTP/1.1 200"));
  close(fd);
}

TEST_F(HttpServerTest, AHostOfAnotherSiteIsRefused) {
  HttpServerOptions o;
  o.allowed_hosts = {"localhost", "arena.example.org"};
  Start(o);
  auto with_host = [&](const std::string& host) {
    return Exchange(
        port(), absl::StrCat("GET /x HTTP/1.1\r\nHost: ", host, "\r\nConnection: close\r\n\r\n"));
  };
  EXPECT_THAT(with_host("rebind.attacker.example:8080"), StartsWith("HTTP/1.1 421"));
  EXPECT_THAT(with_host(""), StartsWith("HTTP/1.1 421"));
  EXPECT_THAT(with_host("localhost:8080"), StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(with_host("ARENA.example.org"), StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(with_host("127.0.0.1:8080"), StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(with_host("[::1]:8080"), StartsWith("HTTP/1.1 200"));
  EXPECT_EQ(handled_.load(), 4);
}

TEST_F(HttpServerTest, TheClientBehindATrustedProxyIsItsForwardedAddress) {
  HttpServerOptions o;
  o.trusted_proxies = {"127.0.0.1"};
  Start(o);
  EXPECT_THAT(Exchange(port(), Get("/x", "X-Forwarded-For: 10.1.1.1, 192.0.2.7\r\n")),
              HasSubstr("client=192.0.2.7 "));
  Start({});
  EXPECT_THAT(Exchange(port(), Get("/x", "X-Forwarded-For: 192.0.2.7\r\n")),
              HasSubstr("client=127.0.0.1 "));
}

TEST_F(HttpServerTest, AHeadCheckRefusalIsSentWithoutReadingTheBody) {
  Start({}, nullptr, [](const Request& head) {
    HeadDecision d;
    d.refused = head.Header("authorization").empty();
    d.refusal.status = 401;
    d.refusal.body = "who are you";
    d.max_body_bytes = 1 << 20;
    return d;
  });
  const std::string answer = Exchange(port(), absl::StrCat("POST /api/submit HTTP/1.1\r\nHost: "
                                                           "127.0.0.1\r\nContent-Length: 300000"
                                                           "\r\n\r\n",
                                                           std::string(300000, 'z')));
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 401"));
  EXPECT_THAT(answer, HasSubstr("who are you"));
  EXPECT_EQ(handled_.load(), 0);
}

TEST(HttpRulesTest, QueryHostAndClient) {
  const auto q = ParseQuery("a=1&b=x%20y+z&c&=v&d=%zz");
  ASSERT_EQ(q.size(), 5u);
  EXPECT_EQ(q[1].second, "x y z");
  EXPECT_EQ(q[2].first, "c");
  EXPECT_EQ(q[4].second, "%zz");
  EXPECT_TRUE(HostAllowed("anything", {}));
  EXPECT_TRUE(HostAllowed("10.0.0.1:80", {"localhost"}));
  EXPECT_FALSE(HostAllowed("localhost.attacker.example", {"localhost"}));
  EXPECT_FALSE(HostAllowed("arena.example.org:8443", {"arena.example.org:443"}));
  EXPECT_TRUE(HostAllowed("arena.example.org:443", {"arena.example.org:443"}));
  EXPECT_EQ(ClientAddress("10.0.0.9", "1.2.3.4", {}), "10.0.0.9");
  EXPECT_EQ(ClientAddress("10.0.0.9", "1.2.3.4, 10.0.0.8", {"10.0.0.9", "10.0.0.8"}), "1.2.3.4");
  EXPECT_EQ(ClientAddress("10.0.0.9", "", {"10.0.0.9"}), "10.0.0.9");
}

}  // namespace
}  // namespace bbo::http
