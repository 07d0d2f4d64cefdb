"""Reads host files from inside the sandbox: /etc/shadow, /root, /home, /work, the project
checkout, the coordinator's SQLite file and its token secret, the worker's token file (their real host
paths, which the runner tells this case and the system passes to the sandbox nowhere), the worker's folder (other submissions), /var,
/boot, the host's /tmp and /var/tmp sentinels, and via /proc/1/root. Every read must fail."""
import os

import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

import hostile_lib as h


def sentinel(path):
    """The runner's sentinel file holds a secret; the sandbox's private /tmp may have a file of
    the same path only if the sandbox made it, so a match of the content is what counts."""
    with open(path, "rb") as f:
        data = f.read(200)
    return ("read the host's sentinel: %r" % data[:40]) if b"HOSTILE-SENTINEL" in data else None


class ReadHost(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        t = h.TARGET
        self.p = h.Probes()
        self.state = {}
        paths = {
            "etc_shadow": "/etc/shadow",
            "etc_gshadow": "/etc/gshadow",
            "etc_ssh": "/etc/ssh",
            "root_home": "/root",
            "home": "/home",
            "work": "/work",
            "var": "/var",
            "var_log": "/var/log",
            "var_lib": "/var/lib",
            "boot": "/boot",
            "srv": "/srv",
            "run": "/run",
            "sys": "/sys",
            "proc1_root_shadow": "/proc/1/root/etc/shadow",
            "checkout": t.get("source_dir", "/work/main"),
            "checkout_readme": os.path.join(t.get("source_dir", "/work/main"), "README.md"),
            "coordinator_sqlite": t.get("db_path", "/nonexistent"),
            "coordinator_sqlite_dir": os.path.dirname(t.get("db_path", "/nonexistent/x")),
            "worker_dir": t.get("work_dir", "/nonexistent"),
            "worker_submissions": os.path.join(t.get("work_dir", "/nonexistent"), "submissions"),
            "build_dir": t.get("build_dir", "/nonexistent"),
        }
        for name, path in paths.items():
            self.p.attempt("read_" + name, lambda path=path: h.read_some(path))
        for i, path in enumerate(t.get("secret_files", [])):
            self.p.attempt("read_secret_%d" % i, lambda path=path: h.read_some(path))
        for i, path in enumerate(t.get("sentinel_files", [])):
            self.p.attempt("read_sentinel_%d" % i, lambda path=path: sentinel(path))
        # What the sandbox does see at /, shown for the record.
        try:
            self.p.info("root_listing", ",".join(sorted(os.listdir("/"))))
        except OSError as e:
            self.p.info("root_listing", h.short(e))

    def suggest(self, n_suggestions=1):
        h.bayesmark_report(self.p, self.state)
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(ReadHost)
