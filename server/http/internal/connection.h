#ifndef BBO_SERVER_HTTP_INTERNAL_CONNECTION_H_
#define BBO_SERVER_HTTP_INTERNAL_CONNECTION_H_

// The server's side of its connections (server/http/http_server.cc): what the acceptor needs to
// know of each one to bound them, and the table of open ones. Everything here lives on the
// server's one I/O thread; not thread-safe.

#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace bbo::http::internal {

class Connection {
 public:
  enum class Phase {
    kHandshake,  // TLS handshake
    kHeader,     // waiting for the request line and headers (or the next request)
    kBody,       // reading the body
    kHandling,   // a handler has it
    kWriting,    // sending the answer
    kClosed,
  };
  virtual ~Connection() = default;
  // Closes the socket at once; the pending operation ends with an error and the connection
  // leaves the table.
  virtual void Evict() = 0;

  Phase phase() const { return phase_; }
  // When the current phase began.
  std::chrono::steady_clock::time_point since() const { return since_; }
  const std::string& address() const { return address_; }
  bool trusted() const { return trusted_; }
  // A connection that may be closed to make room: one that waits for its client (to send its
  // request, or to take its answer), not one whose request a handler has.
  bool Waiting() const { return phase_ != Phase::kHandling && phase_ != Phase::kClosed; }

 protected:
  void SetPhase(Phase phase) {
    phase_ = phase;
    since_ = std::chrono::steady_clock::now();
  }
  std::string address_;
  bool trusted_ = false;

 private:
  friend class ConnectionTable;
  Phase phase_ = Phase::kHandshake;
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
  std::list<std::weak_ptr<Connection>>::iterator slot_;
  bool listed_ = false;
};

// The open connections, with a count per address.
class ConnectionTable {
 public:
  int size() const { return static_cast<int>(list_.size()); }
  int CountFrom(const std::string& address) const {
    auto it = per_address_.find(address);
    return it == per_address_.end() ? 0 : it->second;
  }
  void Add(const std::shared_ptr<Connection>& c);
  void Remove(Connection* c);
  // The connection that has waited longest for its client (those sending headers first, then
  // bodies, then those taking an answer), from `address` unless it is empty; nullptr when none
  // waits.
  std::shared_ptr<Connection> OldestWaiting(const std::string& address) const;
  // Every open connection, for closing them all.
  std::list<std::shared_ptr<Connection>> All() const;

 private:
  std::list<std::weak_ptr<Connection>> list_;
  absl::flat_hash_map<std::string, int> per_address_;
};

}  // namespace bbo::http::internal

#endif  // BBO_SERVER_HTTP_INTERNAL_CONNECTION_H_
