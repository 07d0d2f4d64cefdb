"""Reaching outside the host from the sandbox: TCP/UDP to documentation-only (TEST-NET)
addresses, name resolution, and a look at the sandbox's own network: it must have only `lo`
and no route anywhere. The TEST-NET addresses are unroutable and are tried only from inside
the sandbox's own empty network namespace, where they fail at once."""
import socket

import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

import hostile_lib as h


def tcp(host, port, family=socket.AF_INET):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect((host, port))
        return "connected to %s:%d" % (host, port)
    finally:
        s.close()


def udp(host, port, family=socket.AF_INET):
    s = socket.socket(family, socket.SOCK_DGRAM)
    try:
        s.connect((host, port))  # fails with ENETUNREACH when there is no route
        s.send(b"HOSTILE")
        return "UDP datagram sent to %s:%d" % (host, port)
    finally:
        s.close()


def interfaces():
    names = [n for _, n in socket.if_nameindex()]
    extra = [n for n in names if n != "lo"]
    return ("interfaces besides lo: %s" % ",".join(extra)) if extra else None


def routes():
    out = []
    for path in ("/proc/net/route", "/proc/net/ipv6_route"):
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        if path.endswith("/route"):
            out += [l.split()[0] for l in lines[1:] if l.split() and l.split()[0] != "lo"]
        else:
            out += [l.split()[-1] for l in lines if l.split() and l.split()[-1] != "lo"]
    return ("routes through %s" % ",".join(sorted(set(out)))) if out else None


class Outside(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.p = h.Probes()
        self.state = {}
        self.p.attempt("tcp_192.0.2.1_80", lambda: tcp("192.0.2.1", 80))
        self.p.attempt("tcp_198.51.100.7_443", lambda: tcp("198.51.100.7", 443))
        self.p.attempt("udp_203.0.113.9_53", lambda: udp("203.0.113.9", 53))
        self.p.attempt("tcp_2001:db8::1_80", lambda: tcp("2001:db8::1", 80, socket.AF_INET6))
        self.p.attempt("dns_example.com", lambda: "resolved to %s" % socket.gethostbyname("example.com"))
        self.p.attempt("only_loopback_interface", interfaces)
        self.p.attempt("no_routes", routes)

    def suggest(self, n_suggestions=1):
        h.bayesmark_report(self.p, self.state)
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(Outside)
