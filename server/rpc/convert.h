#ifndef BBO_SERVER_RPC_CONVERT_H_
#define BBO_SERVER_RPC_CONVERT_H_

// Translation between bbo.v1 protos and the coordinator's domain types. Suggestions and points
// go through the shared wire converter (common/wire.h); absl -> gRPC status is status.h.

#include "bbo/v1/common.pb.h"
#include "common/search_space.h"
#include "common/wire.h"
#include "server/rpc/status.h"
#include "server/study_manager.h"

namespace bbo::rpc {

// A proto suggestion -> the point SubmitBatch receives: an undecodable one (a ParamValue with
// no member set) carries the wire converter's error naming the parameter, and the study
// replaces it by random search.
IncomingPoint FromProto(const v1::Suggestion& s);

v1::SubmissionKind ToProto(SubmissionKind k);

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_CONVERT_H_
