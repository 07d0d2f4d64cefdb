"""Writes host sysctls from inside the sandbox: kernel.core_pattern (a pipe to a program is the
classic root escape), kernel.modprobe, vm.drop_caches, kernel.randomize_va_space, vm.overcommit
and more, plus /proc/sysrq-trigger. Every write must fail; the runner checks the host values
are unchanged (and restores any that changed, as evidence)."""
import bayesmark.random_search as rs
from bayesmark.abstract_optimizer import AbstractOptimizer
from bayesmark.experiment import experiment_main

import hostile_lib as h

WRITES = [
    ("core_pattern", "/proc/sys/kernel/core_pattern", "|/tmp/%s %%p" % h.MARKER),
    ("modprobe", "/proc/sys/kernel/modprobe", "/tmp/" + h.MARKER),
    ("drop_caches", "/proc/sys/vm/drop_caches", "1"),
    ("randomize_va_space", "/proc/sys/kernel/randomize_va_space", "0"),
    ("overcommit_memory", "/proc/sys/vm/overcommit_memory", "1"),
    ("sysrq", "/proc/sys/kernel/sysrq", "1"),
    ("kptr_restrict", "/proc/sys/kernel/kptr_restrict", "0"),
    ("hostname", "/proc/sys/kernel/hostname", "pwned"),
    ("ip_forward", "/proc/sys/net/ipv4/ip_forward", "1"),
    ("max_user_namespaces", "/proc/sys/user/max_user_namespaces", "100000"),
    ("pid_max", "/proc/sys/kernel/pid_max", "4194304"),
    ("sysrq_trigger", "/proc/sysrq-trigger", "m"),
]


def write(path, value):
    with open(path, "w") as f:
        f.write(value + "\n")
    return "wrote %r to %s" % (value, path)


class Sysctl(AbstractOptimizer):
    def __init__(self, api_config, **kwargs):
        AbstractOptimizer.__init__(self, api_config)
        self.p = h.Probes()
        self.state = {}
        for name, path, value in WRITES:
            self.p.attempt("sysctl_" + name, lambda path=path, value=value: write(path, value))

    def suggest(self, n_suggestions=1):
        h.bayesmark_report(self.p, self.state)
        return rs.suggest_dict([], [], self.api_config, n_suggestions=n_suggestions)

    def observe(self, X, y):
        pass


if __name__ == "__main__":
    experiment_main(Sysctl)
