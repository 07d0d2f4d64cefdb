#!/usr/bin/env python3
"""Every `bbo` command line quoted in README.md and docs/*.md must be one the CLI accepts.

Command lines in fenced code blocks must parse completely; commands quoted inline (`bbo ...`)
may leave out required arguments (they are fragments), but every subcommand, option and value
they show must exist. The CLI is asked with BBO_CLI_CHECK set, so nothing runs. Placeholders in
capitals (ID, N, DIR, FILE, ...) are given sample values. Synopses with [optional] parts or
a|b alternatives are checked once per alternative, without the optional parts' brackets.

Usage: cli_docs_check.py --bbo build/client/bbo --root .   (exit 1 and a list when one fails)
"""

import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

SAMPLES = {"ID": "1", "N": "3", "K": "2", "B": "100", "S": "practice", "P": "practice",
           "SUBMISSION_ID": "1", "SEED": "7"}


def commands(text):
    """(line, strict) for every bbo command in the text."""
    out = []
    in_block = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            m = re.search(r"(?:^|[\s(=\"$])(?:\S*/)?bbo(?:\s+.*)$", line)
            if m and re.match(r"^(\S*/)?bbo\s", line.split("#")[0].strip().lstrip("$ ")):
                cmd = line.split("  #")[0].strip().lstrip("$ ")
                # A continued line: only the part on this line.
                cmd = cmd.rstrip("\\").strip()
                out.append((cmd, not raw.rstrip().endswith("\\")))
        else:
            for m in re.finditer(r"`((?:BBO_TOKEN=\S+ )?bbo(?: [^`]*)?)`", raw):
                out.append((m.group(1), False))
    return out


def alternatives(cmd):
    """The synopsis `cmd` with [a | b] and a|b expanded (first of each, then each other)."""
    cmd = re.sub(r"\[([^\[\]]*)\]", lambda m: m.group(1), cmd)  # optional parts: shown
    parts = cmd.split()
    choices = [p.split("|") if "|" in p and not p.startswith("|") else [p] for p in parts]
    n = max(len(c) for c in choices) if choices else 1
    return [" ".join(c[min(i, len(c) - 1)] for c in choices if c[min(i, len(c) - 1)])
            for i in range(n)]


def argv_of(cmd):
    # An elided value after an option stands for some value; elsewhere it is dropped.
    cmd = re.sub(r"(--[\w-]+)\s+(?:…|\.\.\.)", r"\1 VALUE", cmd)
    cmd = cmd.replace("…", "").replace("...", "")
    cmd = re.sub(r"^BBO_TOKEN=\S+\s+", "", cmd)
    try:
        words = shlex.split(cmd, comments=True)
    except ValueError:
        return None
    if not words or not re.match(r"^(\S*/)?bbo$", words[0]):
        return None
    words = words[1:]
    stop = [i for i, w in enumerate(words) if w in (">", ">>", "|", "&&", "2>&1", ";") or
            w.startswith(">") or w.startswith("2>")]
    if stop:
        words = words[:stop[0]]
    return [SAMPLES.get(w, w) for w in words]


def self_test(bbo):
    """The check must catch a rejected line: a temporary tree with good and bad commands."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.mkdir(os.path.join(root, "docs"))
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write("```sh\nbbo leaderboard --phase final\nbbo leaderboard --no-such-flag\n"
                    "bbo submit\n```\nInline: `bbo status --phase P`, `bbo score --bogus`, "
                    "`bbo submit --trials many`.\n")
        r = subprocess.run([sys.executable, __file__, "--bbo", bbo, "--root", root],
                           capture_output=True, text=True)
        want = "6 bbo command lines checked, 4 rejected"
        if want not in r.stdout:
            print("self-test failed:", r.stdout, r.stderr)
            return 1
    print("self-test: the bad lines were rejected")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bbo", required=True)
    ap.add_argument("--root")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.bbo)
    files = [os.path.join(args.root, "README.md")] + sorted(
        glob.glob(os.path.join(args.root, "docs", "*.md")))
    checked, failed = 0, []
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for cmd, strict in commands(text):
            for alt in alternatives(cmd):
                argv = argv_of(alt)
                if argv is None:
                    continue
                env = dict(os.environ, BBO_CLI_CHECK="strict" if strict else "fragment")
                env.pop("BBO_TOKEN", None)
                r = subprocess.run([args.bbo] + argv, env=env, capture_output=True, text=True,
                                   timeout=30)
                checked += 1
                if r.returncode != 0:
                    failed.append(f"{os.path.relpath(path, args.root)}: `{alt}`: "
                                  f"{r.stderr.strip().splitlines()[0] if r.stderr else r.returncode}")
    for f in failed:
        print("REJECTED", f)
    print(f"{checked} bbo command lines checked, {len(failed)} rejected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
