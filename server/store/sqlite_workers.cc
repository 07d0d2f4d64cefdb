// SqliteStore: the WorkerStore methods.

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/sqlite_store.h"

namespace bbo {

absl::Status SqliteStore::RegisterWorker(const std::string& worker_id, const std::string& hostname,
                                         int slots, double now) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("INSERT INTO workers (id, hostname, slots, registered_at,"
                                 " last_heartbeat) VALUES (?, ?, ?, ?, ?)"));
  u->Bind(1, worker_id).Bind(2, hostname).Bind(3, slots).Bind(4, now).Bind(5, now);
  return u->Run();
}

absl::Status SqliteStore::TouchWorker(const std::string& worker_id, double now) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE workers SET last_heartbeat = ? WHERE id = ?"));
  u->Bind(1, now).Bind(2, worker_id);
  RETURN_IF_ERROR(u->Run());
  if (db_->Changes() == 0) {
    return absl::NotFoundError(absl::StrCat("unknown worker ", worker_id, "; register again"));
  }
  return absl::OkStatus();
}

}  // namespace bbo
