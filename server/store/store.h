#ifndef BBO_SERVER_STORE_STORE_H_
#define BBO_SERVER_STORE_STORE_H_

// Store: the coordinator's durable state (submissions, job queue, workers, studies, every
// suggestion with its value and timing, errors), as one object implementing the per-concept
// interfaces. Domain classes take the narrowest interface they need; the coordinator owns one
// Store. Implementations: SqliteStore (server/store/sqlite_store.h, the real one) and
// InMemoryStore (server/store/memory_store.h, same semantics, nothing durable);
// FaultInjectionStore (server/testing/) wraps either to make chosen methods fail.
//
// Contract shared by every method of every interface:
// - One transaction: the method either fully happens or returns an error and changes nothing.
// - Thread-safe: any method may be called from any thread at any time.
// - Status codes: NotFound for an unknown id where the method says so; AlreadyExists when a
//   uniqueness or reference constraint fails; FailedPrecondition when the state forbids the
//   change (FinishJob); InvalidArgument for malformed input; Unavailable / ResourceExhausted /
//   Internal for storage failures (retry / free space / bug).
// - Times are seconds since the Unix epoch (double).

#include "server/store/contact_store.h"
#include "server/store/registration_store.h"
#include "server/store/identity_store.h"
#include "server/store/job_store.h"
#include "server/store/phase_store.h"
#include "server/store/race_store.h"
#include "server/store/records.h"
#include "server/store/scoring_store.h"
#include "server/store/study_store.h"
#include "server/store/submission_store.h"
#include "server/store/worker_store.h"

namespace bbo {

class Store : public SubmissionStore,
              public JobStore,
              public WorkerStore,
              public StudyStore,
              public ScoringStore,
              public IdentityStore,
              public PhaseStore,
              public RaceStore,
              public ContactStore,
              public RegistrationStore {
 public:
  ~Store() override = default;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_STORE_H_
