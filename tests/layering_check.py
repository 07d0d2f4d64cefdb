#!/usr/bin/env python3
"""The layering rules of bbo-arena, checked on the source tree (run by ctest as LayeringTest).

    layering_check.py ROOT        checks the tree at ROOT; exit 1 and one line per violation
    layering_check.py --self-test builds small trees that break each rule and checks that each
                                  is caught (exit 1 if a rule goes unnoticed)

The rules (README.md "Layout" draws them):
  1. Layers point one way: common <- problems, scoring <- report <- server, worker <- client;
     problems <- worker too (a worker evaluates the hidden objectives of its studies).
     Each folder includes project headers only from the folders in ALLOWED below.
  2. The CLI (client/) uses other folders' public headers only: nothing under an internal/
     folder, and of server/ only the embedding header and the store interfaces.
  3. Helpers under an internal/ folder are included only from the folder that holds it.
  4. gRPC stays at the edges: no header outside server/rpc/ includes gRPC, and of the sources
     only server/rpc/, main.cc files, the worker's and the CLI's transport files, tests/ and
     bench/ do.
  5. No non-test source file is longer than MAX_LINES lines.
  6. No non-test function is longer than MAX_FUNCTION_LINES lines (from the line of its opening
     brace to the line of its closing one): a long function is a missing name.
  7. Transports apply the domain's rules, they do not write their own: the gRPC handlers
     (server/rpc/*_service.cc), the web views (server/web/views.cc), the database facade
     (server/embed.cc) and the CLI never test an identity's role (is_organizer(), is_team(),
     is_worker(), Identity::Role::...); what an identity may do is decided in server/access.h and
     the domain classes. Authentication middleware (server/rpc/authenticate.cc,
     server/web/web_server.cc) is not a handler.
"""

import os
import re
import sys
import tempfile

MAX_LINES = 700
MAX_FUNCTION_LINES = 80
# Functions over the limit that are being split (each entry "path:function head"); must be empty.
KNOWN_LONG = {
}

# Project folders a folder's files may include from ("bbo" = generated protobuf messages).
ALLOWED = {
    "common": {"common", "bbo"},
    "problems": {"common", "problems"},
    "scoring": {"common", "scoring"},
    "report": {"common", "scoring", "report"},
    "server": {"common", "problems", "scoring", "report", "server", "bbo"},
    "worker": {"common", "problems", "worker", "bbo"},
    "client": {"common", "problems", "scoring", "report", "server", "worker", "client", "bbo"},
}
# The only server/ headers the CLI may include.
CLIENT_SERVER_HEADERS = {"server/embed.h", "server/store/store.h"}
# Sources (besides server/rpc/, main.cc files, tests/ and bench/) that speak gRPC.
GRPC_SOURCES = {"client/remote.cc", "worker/grpc_coordinator_client.cc"}
# Top-level folders whose sources are checked; the rest (tests/, bench/, examples/) are free.
LAYERED = set(ALLOWED)
PROJECT_ROOTS = LAYERED | {"bbo", "tests", "bench", "examples"}
SOURCE_SUFFIXES = (".h", ".cc")
SKIP_DIRS = {".git", "build", "vendor", "node_modules", "demo-out"}

# Rule 7: where a role test is a domain rule written in a transport.
ROLE_TEST = re.compile(r"\b(is_organizer|is_team|is_worker)\s*\(\s*\)|\bIdentity::Role::")


def is_transport(rel):
    return ((rel.startswith("server/rpc/") and rel.endswith("_service.cc"))
            or rel in ("server/web/views.cc", "server/embed.cc") or rel.startswith("client/"))


INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^">]+)[">]')


def is_grpc(path):
    return (path.startswith("grpcpp/") or path.startswith("grpc/")
            or path.endswith(".grpc.pb.h"))


def is_test(rel):
    base = os.path.basename(rel)
    return base.endswith("_test.cc") or base.endswith("_test.h") or "/testing/" in rel \
        or "/testdata/" in rel \
        or rel.startswith("tests/")


def sources(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not d.startswith("build"))
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                full = os.path.join(dirpath, name)
                yield os.path.relpath(full, root).replace(os.sep, "/"), full


def internal_owner(path):
    """The folder allowed to include `path` if it lies under an internal/ folder, else None."""
    parts = path.split("/")
    if "internal" not in parts[:-1]:
        return None
    return "/".join(parts[:parts.index("internal")])


SCOPE = re.compile(r'\b(namespace|class|struct|union|enum)\b[^()]*$|extern\s+"C"\s*$')
FUNC_TAIL = re.compile(r'\)\s*(const|override|final|noexcept|mutable|volatile|&|&&|\s|->\s*[\w:<>,\s\*&]+|ABSL_\w+\([^()]*\)|:\s*[\w:]+(\([^()]*\)|\{[^{}]*\})(\s*,\s*[\w:]+(\([^()]*\)|\{[^{}]*\}))*)*$')

def strip(text):
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append(''.join(ch if ch == '\n' else ' ' for ch in text[i:j])); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if m:
                end = text.find(')' + m.group(1) + '"', i)
                j = n if end < 0 else end + len(m.group(1)) + 2
                out.append('""' + ''.join(ch if ch == '\n' else ' ' for ch in text[i+2:j])); i = j
            else:
                out.append(c); i += 1
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == '\\': j += 1
                if j < n and text[j] == '\n': break
                j += 1
            out.append(c + ' ' * (j - i - 1) + (c if j < n else '')); i = j + 1
        else:
            out.append(c); i += 1
    return ''.join(out)

def long_functions(text, limit):
    s = strip(text)
    # preprocessor lines blanked
    s = '\n'.join('' if l.lstrip().startswith('#') else l for l in s.split('\n'))
    stack = []  # kinds: 'scope', 'func', 'other'
    head_start = 0
    found = []
    line = 1
    func_start = None
    for i, c in enumerate(s):
        if c == '\n':
            line += 1
        elif c == '{':
            head = ' '.join(s[head_start:i].split())
            in_func = 'func' in stack
            if in_func:
                stack.append('other')
            elif SCOPE.search(head) or head.endswith('namespace') or re.search(r'\bnamespace\b', head):
                stack.append('scope')
            elif FUNC_TAIL.search(head) and not head.endswith('= ') :
                stack.append('func'); func_start = (line, head)
            else:
                stack.append('other')
            head_start = i + 1
        elif c == '}':
            if stack:
                k = stack.pop()
                if k == 'func':
                    length = line - func_start[0] + 1
                    if length > limit:
                        found.append((func_start[0], length, func_start[1][-90:]))
            head_start = i + 1
        elif c == ';':
            if 'func' not in stack:
                head_start = i + 1
    return found


def check_file(rel, text):
    errors = []
    top = rel.split("/")[0]
    lines = text.splitlines()
    if top in LAYERED and not is_test(rel) and len(lines) > MAX_LINES:
        errors.append(f"{rel}: {len(lines)} lines (the limit is {MAX_LINES}; split it by concept)")
    if top in LAYERED and not is_test(rel) and rel.endswith(".cc"):
        for line, length, head in long_functions(text, MAX_FUNCTION_LINES):
            if f"{rel}:{head}" not in KNOWN_LONG:
                errors.append(f"{rel}:{line}: a function of {length} lines (the limit is "
                              f"{MAX_FUNCTION_LINES}; name its parts): {head[-80:]}")
    if is_transport(rel) and not is_test(rel):
        for number, line in enumerate(strip(text).splitlines(), 1):
            if ROLE_TEST.search(line):
                errors.append(f"{rel}:{number}: a transport tests an identity's role (a domain "
                              f"rule: ask server/access.h or the domain class)")
    for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        inc = m.group(1)
        where = f"{rel}:{number}: includes {inc}"
        head = inc.split("/")[0]
        if is_grpc(inc):
            in_rpc = rel.startswith("server/rpc/")
            if rel.endswith(".h") and not in_rpc:
                errors.append(f"{where}: gRPC in a header outside server/rpc/")
            elif not (in_rpc or os.path.basename(rel) == "main.cc" or rel in GRPC_SOURCES
                      or top in ("tests", "bench", "examples")):
                errors.append(f"{where}: gRPC outside server/rpc/, main.cc and the transport "
                              f"files {sorted(GRPC_SOURCES)}")
            continue
        if "/" not in inc or head not in PROJECT_ROOTS:
            continue  # a system or third-party header
        owner = internal_owner(inc)
        if owner is not None and not rel.startswith(owner + "/"):
            errors.append(f"{where}: an internal header of {owner}/")
        if top not in LAYERED:
            continue
        if head not in ALLOWED[top]:
            errors.append(f"{where}: {top}/ may include only from {sorted(ALLOWED[top])}")
        elif top == "client" and head == "server" and inc not in CLIENT_SERVER_HEADERS:
            errors.append(f"{where}: the CLI may include of server/ only "
                          f"{sorted(CLIENT_SERVER_HEADERS)}")
    return errors


def check_tree(root):
    errors = []
    count = 0
    for rel, full in sources(root):
        count += 1
        with open(full, encoding="utf-8", errors="replace") as f:
            errors.extend(check_file(rel, f.read()))
    return count, errors


def self_test():
    """Each case: files of a small tree and the text one violation must contain."""
    long_file = "\n".join(["// x"] * (MAX_LINES + 1))
    body = "\n".join(["  x += 1;  // {"] * MAX_FUNCTION_LINES)
    long_function = "namespace bbo {\nint F(int x) {\n" + body + "\n}\n}  // namespace bbo\n"
    long_method = ("namespace bbo::scoring {\nabsl::StatusOr<int> A::G(const std::string& s) const\n"
                   "    ABSL_LOCKS_EXCLUDED(mu_) {\n  auto f = [&](int y) {\n"
                   + "\n".join(['    y += s.size();  // "}"'] * 86) + "\n  };\n  return f(1);\n}\n}\n")
    short_function = ("namespace {\nconst char* kSql[] = {\n" + "\n".join(['  "x",'] * 90)
                      + "\n};\nstruct S {\n  int F() {\n    return 1;\n  }\n};\n}\n")
    cases = [
        ({"problems/p.cc": '#include "server/store/store.h"\n'}, "problems/ may include only"),
        ({"problems/p.h": '#include "worker/worker.h"\n'}, "problems/ may include only"),
        ({"scoring/s.cc": '#include "report/report.h"\n'}, "scoring/ may include only"),
        ({"scoring/s.cc": '#include "server/phase.h"\n'}, "scoring/ may include only"),
        ({"common/c.cc": '#include "problems/problem.h"\n'}, "common/ may include only"),
        ({"client/c.cc": '#include "server/coordinator.h"\n'}, "the CLI may include of server/"),
        ({"client/c.cc": '#include "report/internal/json_view.h"\n'}, "an internal header"),
        ({"server/a.cc": '#include "problems/ml/internal/model.h"\n'}, "an internal header"),
        ({"server/phase.h": '#include "grpcpp/server_context.h"\n'}, "gRPC in a header"),
        ({"worker/w.h": '#include "bbo/v1/worker_service.grpc.pb.h"\n'}, "gRPC in a header"),
        ({"server/phase.cc": '#include "grpcpp/grpcpp.h"\n'}, "gRPC outside"),
        ({"server/big.cc": long_file}, "lines (the limit"),
        ({"server/f.cc": long_function}, "a function of 82 lines"),
        ({"server/rpc/x_service.cc": "void F() {\n  if (who.is_organizer()) return;\n}\n"},
         "a transport tests an identity's role"),
        ({"server/web/views.cc": "bool b = who.role == Identity::Role::kTeam;\n"},
         "a transport tests an identity's role"),
        ({"report/g.cc": long_method}, "a function of 91 lines"),
    ]
    allowed = {
        "server/rpc/services.h": '#include "bbo/v1/study_service.grpc.pb.h"\n',
        "server/main.cc": '#include "grpcpp/server_builder.h"\n',
        "client/remote.cc": '#include "grpcpp/create_channel.h"\n',
        "client/main.cc": '#include "server/embed.h"\n#include "report/report.h"\n',
        "problems/ml/x.cc": '#include "problems/ml/internal/model.h"\n',
        "server/big_test.cc": long_file,
        "server/f_test.cc": long_function,
        "server/table.cc": short_function,
        "server/access.cc": "bool F(const Identity& who) { return who.is_organizer(); }\n",
        "server/rpc/authenticate.cc": "bool G(const Identity& w) { return w.is_worker(); }\n",
        "server/rpc/y_service.cc": "// a comment may say is_organizer() without doing it\n",
        "tests/e2e.cc": '#include "server/coordinator.h"\n#include "grpcpp/grpcpp.h"\n',
        "report/r.cc": '#include "scoring/leaderboard.h"\n#include <vector>\n',
    }
    failures = []
    for files, expected in cases:
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            _, errors = check_tree(root)
            if not any(expected in e for e in errors):
                failures.append(f"not caught: {files} (expected '{expected}', got {errors})")
    with tempfile.TemporaryDirectory() as root:
        for rel, text in allowed.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        _, errors = check_tree(root)
        failures.extend(f"false alarm: {e}" for e in errors)
    for f in failures:
        print(f)
    print(f"layering self-test: {len(cases)} violations, {len(allowed)} allowed files, "
          f"{len(failures)} failures")
    return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__)
        return 2
    count, errors = check_tree(argv[1])
    for e in errors:
        print(e)
    print(f"layering: {count} source files checked, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
