#include "server/notify/internal/webhook_sender.h"

#include <curl/curl.h>
#include <sodium.h>
#include <sys/socket.h>

#include "absl/strings/str_cat.h"
#include "server/notify/internal/address_guard.h"
#include "server/notify/internal/curl_easy.h"
#include "server/notify/internal/url.h"

namespace bbo::notify::internal {
namespace {

// Receivers answer "ok"; more than this is read no further (the transfer stops there).
constexpr size_t kMaxAnswerBytes = 64 * 1024;

struct Guard {
  bool allow_private = false;
  std::string refused;  // why the last address was refused
};

// Runs after libcurl resolved the host, on the very address it connects to: no DNS rebinding
// between a check and the connection.
curl_socket_t OpenSocket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* guard = static_cast<Guard*>(user);
  if (!guard->allow_private) {
    const std::string range = NonPublicRange(&address->addr);
    if (!range.empty()) {
      guard->refused = absl::StrCat(AddressText(&address->addr), " is ", range);
      return CURL_SOCKET_BAD;
    }
  }
  // CLOEXEC: the coordinator spawns processes that must not inherit the connection.
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

struct Answer {
  size_t bytes = 0;
  bool capped = false;
};

size_t DiscardAnswer(char*, size_t size, size_t count, void* user) {
  auto* answer = static_cast<Answer*>(user);
  answer->bytes += size * count;
  if (answer->bytes > kMaxAnswerBytes) {
    answer->capped = true;
    return 0;
  }
  return size * count;
}

// curl_slist owner.
struct Headers {
  curl_slist* list = nullptr;
  ~Headers() { curl_slist_free_all(list); }
  void Add(const std::string& header) { list = curl_slist_append(list, header.c_str()); }
};

absl::Status CheckPolicy(const WebhookRequest& request) {
  absl::StatusOr<UrlParts> url = ParseUrl(request.url);
  if (!url.ok()) return absl::PermissionDeniedError(url.status().message());
  if (url->scheme != "https" && url->scheme != "http") {
    return absl::PermissionDeniedError("only http(s) webhooks are sent");
  }
  if (url->scheme == "http" && !request.allow_private) {
    return absl::PermissionDeniedError("plain http:// webhooks are refused; use https://");
  }
  return absl::OkStatus();
}

absl::Status Outcome(CURL* curl, absl::Status performed, const Guard& guard, const Answer& answer) {
  if (!guard.refused.empty() && !performed.ok() && !absl::IsCancelled(performed)) {
    return absl::PermissionDeniedError(
        absl::StrCat("refused: ", guard.refused, " (private webhooks are not allowed)"));
  }
  if (!performed.ok() && !answer.capped) return performed;
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  if (code >= 200 && code < 300) return absl::OkStatus();
  if (code >= 300 && code < 400) {
    return absl::UnavailableError(absl::StrCat("HTTP ", code, " (redirects are not followed)"));
  }
  return absl::UnavailableError(absl::StrCat("HTTP ", code));
}

}  // namespace

std::string WebhookBody(absl::string_view competition, const Notification& n, absl::Time now) {
  const nlohmann::json body = {
      {"competition", std::string(competition)},
      {"team", n.team},
      {"event", n.event},
      {"subject", n.subject},
      {"text", n.text},
      {"details", n.details},
      {"sent_at_s", absl::ToDoubleSeconds(now - absl::UnixEpoch())},
  };
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string WebhookSignature(absl::string_view secret, absl::string_view body) {
  static const bool sodium_ok = sodium_init() >= 0;
  (void)sodium_ok;  // libsodium's documented precondition for every other call
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(secret.data()),
                              secret.size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(body.data()),
                                body.size());
  crypto_auth_hmacsha256_final(&state, mac);
  char hex[2 * sizeof(mac) + 1];
  sodium_bin2hex(hex, sizeof(hex), mac, sizeof(mac));
  return absl::StrCat("sha256=", hex);
}

absl::Status SendWebhook(const WebhookRequest& request, const std::atomic<bool>& abort) {
  if (absl::Status s = CheckPolicy(request); !s.ok()) return s;
  CurlEasy easy(&abort, request.timeout);
  CURL* curl = easy.get();
  if (curl == nullptr) return easy.Perform();
  Guard guard{request.allow_private, ""};
  Answer answer;
  Headers headers;
  headers.Add("Content-Type: application/json");
  headers.Add("Expect:");  // no 100-continue round trip
  if (!request.secret.empty()) {
    headers.Add(absl::StrCat("X-BBO-Signature: ", WebhookSignature(request.secret, request.body)));
  }
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "bbo-arena-notifier");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, &OpenSocket);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, &guard);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &DiscardAnswer);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  return Outcome(curl, easy.Perform(), guard, answer);
}

}  // namespace bbo::notify::internal
