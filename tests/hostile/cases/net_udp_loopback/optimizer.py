"""UDP datagrams from inside the sandbox to the runner's UDP socket on 127.0.0.1 (and
127.0.0.2, ::1, the coordinator's port): sendto may "succeed" locally (UDP has no handshake),
so the real check is the runner's: its socket must receive nothing. A reply received inside
would mean the host answered."""
import socket

import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

import hostile_lib as h


def udp(host, port, family=socket.AF_INET):
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(1)
    try:
        for _ in range(20):
            s.sendto(b"HOSTILE datagram", (host, int(port)))
        try:
            data = s.recv(100)
            return "got a reply from %s:%s: %r" % (host, port, data[:20])
        except (socket.timeout, OSError):
            return None
    finally:
        s.close()


class UdpLoopback(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        t = h.TARGET
        self.p = h.Probes()
        self.state = {}
        up = t.get("host_udp_port", 1)
        self.p.attempt("udp_127.0.0.1_listener", lambda: udp("127.0.0.1", up))
        self.p.attempt("udp_127.0.0.2_listener", lambda: udp("127.0.0.2", up))
        self.p.attempt("udp_::1_listener", lambda: udp("::1", up, socket.AF_INET6))
        self.p.attempt("udp_coordinator_port", lambda: udp("127.0.0.1", t.get("server_port", 1)))
        # Broadcast inside an empty namespace: nowhere to go.
        def bcast():
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            try:
                s.sendto(b"HOSTILE", ("255.255.255.255", int(up)))
                return "broadcast sent"
            finally:
                s.close()
        try:
            self.p.info("udp_broadcast", bcast())
        except OSError as e:
            self.p.info("udp_broadcast", h.short(e))

    def suggest(self, n_suggestions=1):
        h.bayesmark_report(self.p, self.state)
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(UdpLoopback)
