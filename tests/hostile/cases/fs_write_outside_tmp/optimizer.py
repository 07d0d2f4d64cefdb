"""Writes outside the sandbox's private /tmp: into its own (read-only) submission folder, /,
/etc, /usr (a .pth file would run code in every later Python), the bundled bayesmark package
(shared by every submission on the worker), /var/tmp and the host's sentinel folders, /dev;
changes modes and times of files it can see. Every write must fail, and the runner checks no
file named after its marker appeared anywhere on the host and the sentinel trees are intact."""
import os

import bayesmark
import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

import hostile_lib as h


class WriteOutside(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        t = h.TARGET
        m = h.MARKER
        self.p = h.Probes()
        self.state = {}
        pkg = os.path.dirname(os.path.abspath(bayesmark.__file__))
        targets = {
            "sub": "/sub/" + m,
            "root": "/" + m,
            "etc": "/etc/" + m,
            "usr": "/usr/" + m,
            "usr_dist_packages_pth": "/usr/lib/python3/dist-packages/" + m + ".pth",
            "bayesmark_package": os.path.join(pkg, m + ".py"),
            "var_tmp": "/var/tmp/" + m,
            "dev": "/dev/" + m,
            "proc": "/proc/" + m,
        }
        for i, d in enumerate(t.get("sentinel_dirs", [])):
            if d.startswith("/tmp/"):
                continue  # /tmp is the sandbox's own: writing there is allowed (and invisible)
            targets["sentinel_%d" % i] = os.path.join(d, m)
        for name, path in targets.items():
            self.p.attempt("write_" + name, lambda path=path: h.write_file(path))

        def append(path):
            with open(path, "ab") as f:
                f.write(b"\n# " + m.encode() + b"\n")
            return "appended to " + path

        self.p.attempt("append_own_optimizer", lambda: append("/sub/optimizer.py"))
        self.p.attempt("append_bayesmark_init", lambda: append(os.path.join(pkg, "__init__.py")))
        self.p.attempt("truncate_own_optimizer", lambda: os.truncate("/sub/optimizer.py", 0) or "truncated")
        self.p.attempt("rename_own_optimizer", lambda: os.rename("/sub/optimizer.py", "/sub/" + m) or "renamed")
        self.p.attempt("symlink_in_sub", lambda: os.symlink("/etc/passwd", "/sub/" + m + "-link") or "linked")
        self.p.attempt("mkdir_in_sub", lambda: os.mkdir("/sub/" + m + "-dir") or "made")
        self.p.attempt("chmod_sub", lambda: os.chmod("/sub", 0o777) or "chmod done")
        self.p.attempt("chmod_python", lambda: os.chmod("/usr/bin/python3", 0o777) or "chmod done")
        self.p.attempt("utime_python", lambda: os.utime("/usr/bin/python3", (0, 0)) or "utime done")
        self.p.attempt("chown_tmp_file_to_root", lambda: self._chown_root())
        # The private /tmp and /dev/shm are writable: shown, not asserted.
        for d in ("/tmp", "/dev/shm"):
            try:
                h.write_file(os.path.join(d, m))
                self.p.info("write_private_" + d.strip("/").replace("/", "_"), "allowed")
            except OSError as e:
                self.p.info("write_private_" + d.strip("/").replace("/", "_"), h.short(e))
        for d in t.get("sentinel_dirs", []):
            if d.startswith("/tmp/"):
                try:
                    os.makedirs(d, exist_ok=True)
                    h.write_file(os.path.join(d, m))
                    self.p.info("write_private_tmp_sentinel_path", "wrote into the private /tmp copy of " + d)
                except OSError as e:
                    self.p.info("write_private_tmp_sentinel_path", h.short(e))

    def _chown_root(self):
        path = "/tmp/" + h.MARKER + "-chown"
        h.write_file(path)
        os.chown(path, 0, 0)
        return "chowned to 0:0"

    def suggest(self, n_suggestions=1):
        h.bayesmark_report(self.p, self.state)
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(WriteOutside)
