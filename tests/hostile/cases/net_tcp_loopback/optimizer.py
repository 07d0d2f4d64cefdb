"""TCP connects from inside the sandbox to the host: the runner's own listener on 127.0.0.1
and ::1, the coordinator's gRPC port, other loopback addresses. All must be refused (the
sandbox has its own empty loopback); the runner checks its listener saw no connection."""
import socket

import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

import hostile_lib as h


def tcp(host, port, family=socket.AF_INET):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect((host, int(port)))
        s.sendall(b"HOSTILE hello\n")
        return "connected to %s:%s" % (host, port)
    finally:
        s.close()


class TcpLoopback(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        t = h.TARGET
        self.p = h.Probes()
        self.state = {}
        lp, sp = t.get("host_tcp_port", 1), t.get("server_port", 1)
        self.p.attempt("tcp_127.0.0.1_listener", lambda: tcp("127.0.0.1", lp))
        self.p.attempt("tcp_localhost_listener", lambda: tcp("localhost", lp))
        self.p.attempt("tcp_127.0.0.2_listener", lambda: tcp("127.0.0.2", lp))
        self.p.attempt("tcp_0.0.0.0_listener", lambda: tcp("0.0.0.0", lp))
        if t.get("host_tcp6_port"):
            self.p.attempt("tcp_::1_listener", lambda: tcp("::1", t["host_tcp6_port"], socket.AF_INET6))
        self.p.attempt("tcp_127.0.0.1_coordinator", lambda: tcp("127.0.0.1", sp))
        self.p.attempt("tcp_::1_coordinator", lambda: tcp("::1", sp, socket.AF_INET6))
        # Listening inside the sandbox is harmless (its own loopback): shown, not asserted.
        try:
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            self.p.info("listen_inside", "bound 127.0.0.1:%d in the sandbox's own namespace" % s.getsockname()[1])
            s.close()
        except OSError as e:
            self.p.info("listen_inside", h.short(e))

    def suggest(self, n_suggestions=1):
        h.bayesmark_report(self.p, self.state)
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(TcpLoopback)
