# Sandbox probe for sandbox_test: runs the checks named on the command line and prints one
# line "name=yes|no" per check on stdout.
import os
import socket
import sys


def tcp(port):
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=2)
    s.close()
    return True


def readable(path):
    if os.path.isdir(path):
        os.listdir(path)
        return True
    with open(path, "rb") as f:
        f.read(1)
    return True


def alloc(mb):
    b = bytearray(int(mb) << 20)
    return len(b) > 0


def spawn_many(n):
    pids = []
    for _ in range(int(n)):
        pid = os.fork()
        if pid == 0:
            import time
            time.sleep(2)
            os._exit(0)
        pids.append(pid)
    return True


def hold(token):
    # Says so, then stays alive for a moment so the host can look at this process.
    import time
    print("hold=started", flush=True)
    time.sleep(3)
    return True


def rewrite(path):
    # Writes a file's own content back: harmless where it succeeds, denied where it should be.
    with open(path) as f:
        value = f.read()
    with open(path, "w") as f:
        f.write(value)
    return True


def new_user_namespace(arg):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.unshare(0x10000000) == 0  # CLONE_NEWUSER


def netlink(arg):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    s.close()
    return True


CHECKS = {
    "userns": new_user_namespace,
    "netlink": netlink,
    "hold": hold,
    "rewrite": rewrite,
    "uid": lambda arg: str(os.getuid()),
    "tcp": tcp,
    "read": readable,
    "alloc": alloc,
    "numpy": lambda arg: __import__("numpy") and __import__("scipy") and __import__("sklearn") and True,
    "write": lambda path: open(path, "w").write("x") > 0,
    "fork": spawn_many,
}

for spec in sys.argv[1:]:
    name, _, arg = spec.partition(":")
    try:
        result = CHECKS[name](arg)
        out = result if isinstance(result, str) else ("yes" if result else "no")
    except BaseException:
        out = "no"
    print("%s=%s" % (spec, out), flush=True)
