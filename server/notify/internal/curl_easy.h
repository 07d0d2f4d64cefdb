#ifndef BBO_SERVER_NOTIFY_INTERNAL_CURL_EASY_H_
#define BBO_SERVER_NOTIFY_INTERNAL_CURL_EASY_H_

// One libcurl transfer with the settings every send of the notifier shares: no signals (we run
// on a thread), no proxy from the environment (the SSRF guard must see the real peer), a total
// timeout, and an abort flag polled by the progress callback so that the notifier's destructor
// never waits for a slow peer. Not thread-safe: one transfer, one thread.

#include <curl/curl.h>

#include <atomic>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace bbo::notify::internal {

class CurlEasy {
 public:
  // `abort` must outlive this object; when it becomes true the transfer stops within about a
  // second (libcurl calls the progress callback at least that often).
  CurlEasy(const std::atomic<bool>* abort, absl::Duration timeout);
  ~CurlEasy();
  CurlEasy(const CurlEasy&) = delete;
  CurlEasy& operator=(const CurlEasy&) = delete;

  // nullptr when libcurl could not be initialised; Perform then answers Internal.
  CURL* get() { return handle_; }

  // Runs the transfer. OK, or: Cancelled when aborted, DeadlineExceeded on timeout, Unavailable
  // otherwise, with libcurl's message.
  absl::Status Perform();

 private:
  static int Progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t);

  CURL* handle_ = nullptr;
  const std::atomic<bool>* abort_;
  char error_[CURL_ERROR_SIZE] = {};
};

}  // namespace bbo::notify::internal

#endif  // BBO_SERVER_NOTIFY_INTERNAL_CURL_EASY_H_
