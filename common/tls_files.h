#ifndef BBO_COMMON_TLS_FILES_H_
#define BBO_COMMON_TLS_FILES_H_

// The PEM files of TLS on bbo-arena's gRPC ports, read once at start-up by each binary's main.cc
// so that a missing or wrong file is an error naming the file and the flag that named it, before
// any connection is tried. No gRPC here: the transports (server/rpc/, client/remote.cc,
// worker/grpc_coordinator_client.cc) turn the contents into gRPC credentials. Plain functions and
// value types; thread-compatible.

#include <string>

#include "absl/status/statusor.h"

namespace bbo {

// One PEM file named on a command line: its path ("" = not given) and the flag or environment
// variable that named it ("--ca_file", "BBO_CA_FILE"), for error messages.
struct PemFileArg {
  std::string path;
  std::string flag;
};

// Reads `file`: InvalidArgument naming the flag and the path when it cannot be read, is empty
// or holds no PEM block ("-----BEGIN "). Precondition: file.path is not empty.
absl::StatusOr<std::string> ReadPemFile(const PemFileArg& file);

// What a client channel (bbo, bbo-worker) uses for TLS (see UsesTls): with ca_pem, TLS verified
// against that CA; without, TLS verified against the system's trusted roots, except on loopback
// or with `insecure`. cert_pem and key_pem are set together, and only with ca_pem (mutual TLS).
struct ClientTls {
  // The CA certificate(s) the server's certificate must be signed by.
  std::string ca_pem;
  // This client's certificate chain and private key, for servers that require one.
  std::string cert_pem;
  std::string key_pem;
  // Plaintext even to another host (`--insecure`): the token then travels in clear text.
  bool insecure = false;

  // Whether a CA was given.
  bool enabled() const { return !ca_pem.empty(); }
};

// Whether a gRPC target names this machine: "localhost", 127.0.0.0/8, ::1, 0.0.0.0 or :: (with or without a
// port, brackets, or a "dns:///", "ipv4:", "ipv6:" scheme), or a "unix:" socket.
bool IsLoopbackTarget(const std::string& target);

// Whether a client channel to `target` uses TLS: always with a CA (tls.enabled()); without one,
// unless `target` is loopback (IsLoopbackTarget) or tls.insecure. TLS without a CA verifies the
// server against the system's trusted roots (gRPC's default roots: $GRPC_DEFAULT_SSL_ROOTS_FILE_PATH
// or the roots gRPC was installed with), so bearer tokens never go to another host in clear
// text unless asked to.
bool UsesTls(const ClientTls& tls, const std::string& target);

// Reads the files a client was given (empty paths are "not given"). InvalidArgument, naming the
// flags, when one of cert/key comes without the other or without a CA, or a file cannot be read.
absl::StatusOr<ClientTls> ReadClientTls(const PemFileArg& ca, const PemFileArg& cert,
                                        const PemFileArg& key);

}  // namespace bbo

#endif  // BBO_COMMON_TLS_FILES_H_
