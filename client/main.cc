// bbo: the bbo-arena command line for participants and organizers. Main (cli.h) declares the
// commands of client/commands/ (commands.h: each command's AddXxxCommand and RunXxx) on the
// command line (CLI11), parses it, and runs the command it names.
//
//   bbo local SUBMISSION [--trials N] [--json]         score locally on the practice suite
//   bbo check SUBMISSION                               one short study, in seconds
//   bbo submit SUBMISSION [--name NAME] [--team T] [--server H:P]   register a submission
//   bbo status [--server H:P] [--json]                 submissions and their progress
//   bbo withdraw SUBMISSION_ID [--server H:P]          cancel a submission's queued jobs
//   bbo choose SUBMISSION_ID [--server H:P]            the submission that goes on to the next phase
//   bbo phases [--server H:P] [--json]                 the competition's phases and windows
//   bbo logs SUBMISSION_ID [--limit N] [--json]        why a submission's studies ended so
//   bbo leaderboard [--server H:P] [--board main|warm-start] [--json]   the leaderboard
//   bbo problems [--server H:P] [--json]               practice problems for remote studies
//   bbo score RESULTS.csv [--random-search NAME] [--json]   offline Bayesmark scoring
//   bbo export --db FILE [--out results.csv] [--board B]   a coordinator's results as CSV
//   bbo admin --db FILE team|worker|organizer add|rotate|revoke NAME; tokens; audit; jobs
//   bbo replay --db FILE (--study ID ... | --all)       re-evaluate recorded studies
//   bbo tasks design --family F --out FILE [--points N] [--seed S]   generated-task designs
//   bbo tasks list [--design FILE]                     task families (stored or designable)
//   bbo report [--server H:P | --results CSV | --db FILE] [--phase P] [--format html|json|csv]
//              [--out DIR]                             the full scoring report of a phase
//
// Every command that talks to a server also takes --ca_file (TLS) and --cert_file/--key_file
// (mutual TLS), or $BBO_CA_FILE, $BBO_CERT_FILE, $BBO_KEY_FILE.
//
// The participant build (-DBBO_PARTICIPANT_BUILD=ON, deploy/build-participant.sh) compiles
// only `local` and `check` (plus --help and --version): everything else is left out at compile
// time by the BBO_PARTICIPANT_BUILD blocks of cli.cc, and client/CMakeLists.txt links no more.

#include "client/cli.h"

int main(int argc, char** argv) { return bbo::client::Main(argc, argv); }
