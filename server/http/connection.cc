#include "server/http/internal/connection.h"

namespace bbo::http::internal {

void ConnectionTable::Add(const std::shared_ptr<Connection>& c) {
  c->slot_ = list_.insert(list_.end(), c);
  c->listed_ = true;
  ++per_address_[c->address()];
}

void ConnectionTable::Remove(Connection* c) {
  if (!c->listed_) return;
  list_.erase(c->slot_);
  c->listed_ = false;
  auto it = per_address_.find(c->address());
  if (it != per_address_.end() && --it->second <= 0) per_address_.erase(it);
}

std::shared_ptr<Connection> ConnectionTable::OldestWaiting(const std::string& address) const {
  std::shared_ptr<Connection> best;
  // Rank: a connection still sending its headers goes before one sending a body (a body is
  // sent by a client that was prompt with its headers), before one taking its answer (a client
  // that had a whole request answered); then the longest waiting.
  auto rank = [](const Connection& c) {
    switch (c.phase()) {
      case Connection::Phase::kBody:
        return 1;
      case Connection::Phase::kWriting:
        return 2;
      default:
        return 0;
    }
  };
  for (const std::weak_ptr<Connection>& w : list_) {
    std::shared_ptr<Connection> c = w.lock();
    if (c == nullptr || !c->Waiting()) continue;
    if (!address.empty() && c->address() != address) continue;
    if (best == nullptr || rank(*c) < rank(*best) ||
        (rank(*c) == rank(*best) && c->since() < best->since())) {
      best = std::move(c);
    }
  }
  return best;
}

std::list<std::shared_ptr<Connection>> ConnectionTable::All() const {
  std::list<std::shared_ptr<Connection>> out;
  for (const std::weak_ptr<Connection>& w : list_) {
    if (std::shared_ptr<Connection> c = w.lock()) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace bbo::http::internal
