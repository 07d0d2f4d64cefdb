#include "server/notify/internal/curl_easy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace bbo::notify::internal {
namespace {

// curl_global_init is not safe to race with other libcurl calls on every build: once per
// process, before the first handle.
bool InitCurl() {
  static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  return ok;
}

}  // namespace

CurlEasy::CurlEasy(const std::atomic<bool>* abort, absl::Duration timeout) : abort_(abort) {
  if (!InitCurl()) return;
  handle_ = curl_easy_init();
  if (handle_ == nullptr) return;
  const long timeout_ms = std::max<long>(1, absl::ToInt64Milliseconds(timeout));
  curl_easy_setopt(handle_, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle_, CURLOPT_PROXY, "");
  curl_easy_setopt(handle_, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(handle_, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(handle_, CURLOPT_ERRORBUFFER, error_);
  curl_easy_setopt(handle_, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(handle_, CURLOPT_XFERINFOFUNCTION, &CurlEasy::Progress);
  curl_easy_setopt(handle_, CURLOPT_XFERINFODATA, this);
}

CurlEasy::~CurlEasy() {
  if (handle_ != nullptr) curl_easy_cleanup(handle_);
}

int CurlEasy::Progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* easy = static_cast<const CurlEasy*>(self);
  return easy->abort_->load() ? 1 : 0;
}

absl::Status CurlEasy::Perform() {
  if (handle_ == nullptr) return absl::InternalError("libcurl could not be initialised");
  if (abort_->load()) return absl::CancelledError("shutting down");
  error_[0] = '\0';
  const CURLcode code = curl_easy_perform(handle_);
  if (code == CURLE_OK) return absl::OkStatus();
  const std::string message =
      absl::StrCat(curl_easy_strerror(code), error_[0] != '\0' ? absl::StrCat(": ", error_) : "");
  if (code == CURLE_ABORTED_BY_CALLBACK && abort_->load()) {
    return absl::CancelledError("shutting down");
  }
  if (code == CURLE_OPERATION_TIMEDOUT) return absl::DeadlineExceededError(message);
  return absl::UnavailableError(message);
}

}  // namespace bbo::notify::internal
