#ifndef BBO_SERVER_RPC_CONVERT_H_
#define BBO_SERVER_RPC_CONVERT_H_

// Translation between bbo.v1 protos and domain types, and absl::Status -> grpc::Status. The
// only place (with the *_service.cc handlers) where domain meets gRPC.

#include "absl/status/status.h"
#include "bbo/v1/common.pb.h"
#include "common/search_space.h"
#include "grpcpp/support/status.h"
#include "server/study_manager.h"

namespace bbo::rpc {

grpc::Status ToGrpcStatus(const absl::Status& s);

// A proto suggestion -> a domain point; a ParamValue with no member set becomes a decode error
// naming the parameter.
IncomingPoint FromProto(const v1::Suggestion& s);
void ToProto(const Point& p, v1::Suggestion* out);

v1::SubmissionKind ToProto(SubmissionKind k);

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_CONVERT_H_
