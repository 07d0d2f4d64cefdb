#!/usr/bin/env python3
"""Clang's thread-safety analysis on bbo-arena's sources (run by ctest as ThreadSafetyTest).

The code says which mutex guards what with abseil's annotations (ABSL_GUARDED_BY,
ABSL_EXCLUSIVE_LOCKS_REQUIRED, ...), but the build uses gcc, which ignores them. This check
compiles, with clang in -fsyntax-only mode, the non-generated sources that can break the
analysis (those that, or whose directly included project headers, use the annotations or
abseil's Mutex; see Selector), with the flags of build/compile_commands.json and
-Wthread-safety -Werror=thread-safety.

    thread_safety_check.py --build-dir BUILD --source-dir SRC [--jobs N] [--clang PATH]
        exit 0 when no source breaks the analysis; 1 with clang's diagnostics otherwise (or when
        clang cannot compile a source, or a source takes longer than --file-timeout-s)
    thread_safety_check.py --self-test [--clang PATH]
        compiles a small file that reads an ABSL_GUARDED_BY member without its lock and checks
        that the analysis refuses it (and accepts the same file with the lock held)
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

CLANG = "/usr/bin/clang++"
# Only the thread-safety diagnostics: the other warnings are gcc's business.
ANALYSIS_FLAGS = ["-fsyntax-only", "-Wno-everything", "-Wthread-safety",
                  "-Werror=thread-safety"]
# Flags of the gcc command lines that clang does not need for a syntax-only pass (or does not
# know): dropped. Everything else (-I, -isystem, -D, -std, -pthread) is kept.
DROPPED = {"-c", "-g", "-w", "-Wall", "-Wextra", "-pipe"}
DROPPED_PREFIXES = ("-O", "-W", "-fdiagnostics-color", "-fconcepts-diagnostics-depth", "-MF",
                    "-MT", "-MD", "-MMD", "-fno-tree-", "-fstack-clash-protection",
                    "-fcf-protection", "-g")
DROPPED_WITH_ARGUMENT = {"-o", "-MF", "-MT", "-MQ"}

ANNOTATION = re.compile(
    r"\bABSL_(GUARDED_BY|PT_GUARDED_BY|ACQUIRED_(AFTER|BEFORE)|(EXCLUSIVE|SHARED)_LOCKS_REQUIRED|"
    r"LOCKS_EXCLUDED|LOCK_RETURNED|(SCOPED_)?LOCKABLE|(EXCLUSIVE|SHARED)_(LOCK|TRYLOCK)_FUNCTION|"
    r"UNLOCK_FUNCTION|ASSERT_(EXCLUSIVE|SHARED)_LOCK|NO_THREAD_SAFETY_ANALYSIS)\b"
    r"|absl/synchronization/")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def clang_command(entry, clang):
    """The clang -fsyntax-only command for one compile_commands.json entry."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = [clang]
    i = 1
    while i < len(args):
        a = args[i]
        if a in DROPPED_WITH_ARGUMENT:
            i += 2
            continue
        if a in DROPPED or a.startswith(DROPPED_PREFIXES) or a == entry["file"]:
            i += 1
            continue
        out.append(a)
        i += 1
    return out + ANALYSIS_FLAGS + [entry["file"]]


def is_test(rel):
    base = os.path.basename(rel)
    return base.endswith("_test.cc") or rel.startswith(("tests/", "bench/", "examples/"))


class Selector:
    """Which sources can break the analysis. A class's guarded members are touched by the
    sources that define its functions, which include its header: a source is checked when it
    or a project header it includes directly uses the annotations or abseil's Mutex. A test
    only when it does so itself (a fake with its own locks): including an annotated header
    alone does not give it access to the guarded members. (Checking every source that reaches
    an annotation through any chain of includes costs four times as long on two cores.)"""

    def __init__(self, source_dir):
        self.source_dir = source_dir
        self.matches = {}  # path -> does the file itself match

    def _read(self, path):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def _matches(self, path):
        if path not in self.matches:
            self.matches[path] = bool(ANNOTATION.search(self._read(path)))
        return self.matches[path]

    def selected(self, path):
        text = self._read(path)
        if ANNOTATION.search(text):
            return True
        if is_test(os.path.relpath(path, self.source_dir)):
            return False
        for inc in INCLUDE.findall(text):
            full = os.path.normpath(os.path.join(self.source_dir, inc))
            if os.path.isfile(full) and self._matches(full):
                return True
        return False


def entries_to_check(build_dir, source_dir):
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    build_dir = os.path.realpath(build_dir)
    source_dir = os.path.realpath(source_dir)
    selector = Selector(source_dir)
    chosen, seen, skipped = [], set(), 0
    for e in entries:
        path = os.path.realpath(os.path.join(e.get("directory", ""), e["file"]))
        generated = path.startswith(build_dir + os.sep) or not path.startswith(source_dir + os.sep)
        if generated or path in seen:
            continue
        seen.add(path)
        if selector.selected(path):
            chosen.append(dict(e, file=path))
        else:
            skipped += 1
    return chosen, skipped


def run_one(entry, clang, timeout_s):
    cmd = clang_command(entry, clang)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=entry.get("directory") or None, capture_output=True,
                           text=True, timeout=timeout_s)
        return entry["file"], p.returncode, p.stdout + p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired:
        return entry["file"], -1, f"clang took over {timeout_s} s\n", time.monotonic() - start


def check(args):
    if not os.access(args.clang, os.X_OK):
        print(f"thread_safety_check: {args.clang} not found (deploy/install-deps.sh installs "
              f"clang)", file=sys.stderr)
        return 1
    chosen, skipped = entries_to_check(args.build_dir, args.source_dir)
    start = time.monotonic()
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_one, e, args.clang, args.file_timeout_s) for e in chosen]
        for f in concurrent.futures.as_completed(futures):
            path, rc, output, seconds = f.result()
            rel = os.path.relpath(path, args.source_dir)
            if args.verbose:
                print(f"{rel}: {seconds:.1f} s{'' if rc == 0 else ' FAILED'}")
            if rc != 0:
                failed.append((rel, output))
    elapsed = time.monotonic() - start
    for rel, output in sorted(failed):
        print(f"--- {rel}\n{output}")
    print(f"thread-safety: {len(chosen)} sources checked with {args.jobs} jobs in "
          f"{elapsed:.0f} s ({skipped} use no locks), {len(failed)} failed")
    return 1 if failed else 0


SELF_TEST = """
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

class Counter {
 public:
  int Get() {
    %s
    return value_;
  }

 private:
  absl::Mutex mu_;
  int value_ ABSL_GUARDED_BY(mu_) = 0;
};

int main() { return Counter().Get(); }
"""


def self_test(args):
    """The analysis refuses a read of a guarded member without its lock, and accepts it with."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for lock, want_fail in (("", True), ("absl::MutexLock l(&mu_);", False)):
            path = os.path.join(tmp, "planted.cc")
            with open(path, "w") as f:
                f.write(SELF_TEST % lock)
            entry = {"file": path, "directory": tmp,
                     "command": f"/usr/bin/c++ -O2 -g -Wall -Wextra -w -std=c++20 -o planted.o "
                                f"-c {path}"}
            _, rc, output, _ = run_one(entry, args.clang, args.file_timeout_s)
            caught = rc != 0 and "thread-safety" in output
            if want_fail and not caught:
                print(f"self-test: a read without the lock went unnoticed (rc {rc}):\n{output}")
                ok = False
            if not want_fail and rc != 0:
                print(f"self-test: a read with the lock held was refused:\n{output}")
                ok = False
    print("self-test: " + ("the planted violation is caught" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--source-dir", default=".")
    parser.add_argument("--clang", default=CLANG)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--file-timeout-s", type=float, default=120)
    parser.add_argument("--verbose", action="store_true", help="time of each source")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    args.source_dir = os.path.realpath(args.source_dir)
    return self_test(args) if args.self_test else check(args)


if __name__ == "__main__":
    sys.exit(main())
