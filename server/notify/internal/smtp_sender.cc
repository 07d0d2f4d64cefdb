#include "server/notify/internal/smtp_sender.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "server/notify/internal/curl_easy.h"
#include "server/notify/internal/email_message.h"
#include "server/notify/internal/url.h"

namespace bbo::notify::internal {
namespace {

struct Upload {
  absl::string_view data;
  size_t offset = 0;
};

size_t ReadUpload(char* buffer, size_t size, size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  const size_t n = std::min(size * count, upload->data.size() - upload->offset);
  std::memcpy(buffer, upload->data.data() + upload->offset, n);
  upload->offset += n;
  return n;
}

// curl_slist owner.
struct Recipients {
  curl_slist* list = nullptr;
  ~Recipients() { curl_slist_free_all(list); }
};

}  // namespace

absl::Status CheckSmtpOptions(const SmtpOptions& smtp) {
  absl::StatusOr<UrlParts> url = ParseUrl(smtp.url);
  if (!url.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("smtp.url: ", url.status().message()));
  }
  if (url->scheme != "smtp" && url->scheme != "smtps") {
    return absl::InvalidArgumentError("smtp.url: the scheme must be smtp:// or smtps://");
  }
  if (absl::Status s = CheckEmailAddress(smtp.from, "smtp.from"); !s.ok()) return s;
  if (!(smtp.timeout_s > 0)) {
    return absl::InvalidArgumentError("smtp.timeout_s: must be positive (seconds)");
  }
  return absl::OkStatus();
}

bool SmtpTlsRequired(const SmtpOptions& smtp) {
  absl::StatusOr<UrlParts> url = ParseUrl(smtp.url);
  if (!url.ok()) return true;
  if (url->scheme == "smtps") return true;
  return smtp.require_tls && !IsLoopbackHost(url->host);
}

absl::Status SendEmail(const SmtpOptions& smtp, absl::string_view to, absl::string_view message,
                       const std::atomic<bool>& abort) {
  if (absl::Status s = CheckSmtpOptions(smtp); !s.ok()) return s;
  if (absl::Status s = CheckEmailAddress(to, "email"); !s.ok()) return s;
  CurlEasy easy(&abort, absl::Seconds(smtp.timeout_s));
  CURL* curl = easy.get();
  if (curl == nullptr) return easy.Perform();
  const std::string from = absl::StrCat("<", smtp.from, ">");
  Recipients rcpt;
  rcpt.list = curl_slist_append(nullptr, absl::StrCat("<", to, ">").c_str());
  Upload upload{message};
  curl_easy_setopt(curl, CURLOPT_URL, smtp.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  curl_easy_setopt(curl, CURLOPT_USE_SSL,
                   SmtpTlsRequired(smtp) ? static_cast<long>(CURLUSESSL_ALL)
                                         : static_cast<long>(CURLUSESSL_TRY));
  if (!smtp.username.empty()) {
    curl_easy_setopt(curl, CURLOPT_USERNAME, smtp.username.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, smtp.password.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from.c_str());
  curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt.list);
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, &ReadUpload);
  curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
  return easy.Perform();
}

}  // namespace bbo::notify::internal
