#ifndef BBO_WORKER_WORKER_RECORD_H_
#define BBO_WORKER_WORKER_RECORD_H_

// WorkerRecord: the file <work_dir>/.bbo-worker that says which control groups a live worker
// uses, so that what a killed worker leaves behind can be found and removed by the next one,
// even when the next one runs in another cgroup (a batch system gives every job its own: the
// groups of a SIGKILLed Slurm task stay inside that job's groups, where the next task's own
// sweep, worker/cgroup.h RemoveStale, never looks) or another scratch folder.
//
// The worker holds an exclusive flock(2) on the record for its whole life; the kernel releases
// it when the process dies, however it dies. A record whose lock can be taken is a dead
// worker's. Only records and folders owned by this process's user, and folders not writable by
// others, are trusted.
//
// Not thread-safe: one per worker process, made at start.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "worker/cgroup.h"

namespace bbo {

class WorkerRecord {
 public:
  // Writes the record of `cgroups` (null: none) into `work_dir` (which must exist) and locks it;
  // it is written under a temporary name, locked, then renamed, so no sweeper ever sees it
  // unlocked. Unavailable when the file cannot be written.
  static absl::StatusOr<std::unique_ptr<WorkerRecord>> Claim(const std::string& work_dir,
                                                             const CgroupManager* cgroups);
  // Removes the record and releases the lock.
  ~WorkerRecord();
  WorkerRecord(const WorkerRecord&) = delete;
  WorkerRecord& operator=(const WorkerRecord&) = delete;

 private:
  WorkerRecord(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

struct DeadWorkerSweep {
  int groups = 0;   // study groups removed
  int folders = 0;  // scratch folders removed (siblings of work_dir)
};

// Removes what dead workers left, found through their records: in `work_dir` itself (a worker
// killed before this one started there; the folder stays, its record goes) and in every sibling
// folder of `work_dir` holding a record (the folder goes, renamed first): the study groups of
// the recorded parents whose worker has gone (IsStaleStudyName), then the parents and mirrored
// levels once empty. Errors are logged, never fatal.
DeadWorkerSweep RemoveDeadWorkers(const std::string& work_dir);

}  // namespace bbo

#endif  // BBO_WORKER_WORKER_RECORD_H_
