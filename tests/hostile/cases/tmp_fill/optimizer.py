"""Fills /tmp with 16 MiB files (under the 256 MiB per-file limit, so only the size of /tmp can
stop it) up to 1 GiB: it must get ENOSPC at the configured size of /tmp (bbo-server
--optimizer_tmp_mb). It then frees the space and the study completes."""
import errno
import os

import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

import hostile_lib as h

FILE = 16 << 20
CAP_TRY = 1 << 30


def fill(directory, prefix):
    block = b"\xa5" * (1 << 20)
    written, files, err = 0, [], "none"
    try:
        while written < CAP_TRY:
            path = os.path.join(directory, "%s-%d" % (prefix, len(files)))
            files.append(path)
            with open(path, "wb") as f:
                for _ in range(FILE >> 20):
                    f.write(block)
                    written += len(block)
                f.flush()
                os.fsync(f.fileno())
    except OSError as e:
        err = errno.errorcode.get(e.errno, str(e.errno))
    return written, files, err


class TmpFill(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.p = h.Probes()
        self.state = {}
        tmp_mb = int(h.TARGET.get("limits", {}).get("tmp_mb") or 512)
        written, files, err = fill("/tmp", "fill")
        mib = written >> 20
        self.p.record("tmp_capped_at_size", mib <= tmp_mb + 1 and err in ("ENOSPC", "EDQUOT"),
                      "wrote %d MiB to /tmp, then %s (size %d MiB)" % (mib, err, tmp_mb))
        for f in files:
            try:
                os.unlink(f)
            except OSError:
                pass
        st = os.statvfs("/tmp")
        self.p.info("tmp_statvfs", "%d MiB total" % (st.f_blocks * st.f_frsize >> 20))

    def suggest(self, n_suggestions=1):
        h.bayesmark_report(self.p, self.state)
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(TmpFill)
