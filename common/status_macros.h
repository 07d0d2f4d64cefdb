#ifndef BBO_COMMON_STATUS_MACROS_H_
#define BBO_COMMON_STATUS_MACROS_H_

// RETURN_IF_ERROR / ASSIGN_OR_RETURN for absl::Status (Debian's abseil predates its own).

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define BBO_CONCAT_INNER_(a, b) a##b
#define BBO_CONCAT_(a, b) BBO_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::absl::Status bbo_status_ = (expr);               \
    if (!bbo_status_.ok()) return bbo_status_;         \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) \
  BBO_ASSIGN_OR_RETURN_IMPL_(BBO_CONCAT_(bbo_statusor_, __LINE__), lhs, expr)

#define BBO_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                               \
  if (!statusor.ok()) return statusor.status();         \
  lhs = std::move(statusor).value()

#endif  // BBO_COMMON_STATUS_MACROS_H_
