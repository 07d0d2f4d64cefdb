# Tries to escape the sandbox and reports what worked through its suggestions: x0 = 0.9 when an
# attempt succeeded, 0.1 when it failed. Attempt i is suggestion i of batch 0:
#   0: TCP connect to the coordinator (host and port read from target.txt in the submission)
#   1: read the coordinator's SQLite file (path in target.txt)
#   2: read /root
#   3: read the project checkout (path in target.txt)
#   4: write into the submission folder
#   5: run as root
#   6: resolve and reach a public host
#   7: read /etc/shadow
import os
import socket

from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main


def attempt(fn):
    try:
        return bool(fn())
    except Exception:
        return False


def tcp(host, port):
    s = socket.create_connection((host, int(port)), timeout=2)
    s.close()
    return True


def read(path):
    if os.path.isdir(path):
        return len(os.listdir(path)) > 0
    with open(path, "rb") as f:
        return len(f.read(16)) > 0


def write_sub():
    with open("pwned.txt", "w") as f:
        f.write("x")
    return True


class HostileOptimizer(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        with open("target.txt") as f:
            host, port, db, checkout = f.read().split()
        self.results = [
            attempt(lambda: tcp(host, port)),
            attempt(lambda: read(db)),
            attempt(lambda: read("/root")),
            attempt(lambda: read(checkout)),
            attempt(write_sub),
            attempt(lambda: os.getuid() == 0),
            attempt(lambda: tcp("example.com", 80)),
            attempt(lambda: read("/etc/shadow")),
        ]

    def suggest(self, n_suggestions=1):
        return [{"x0": 0.9 if self.results[i % 8] else 0.1} for i in range(n_suggestions)]

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(HostileOptimizer)
