# A hosting-protocol optimizer that uses resources, for the worker's cgroup tests. By env MODE:
#   memory   allocates and touches 512 MiB in the second suggest
#   tmp      writes 1 MiB blocks to /tmp, then /dev/shm, until a write fails, and answers the
#            second suggest with an error "tmp=<MiB> shm=<MiB> <exception>"
#   hog      starts a thread that spins forever after the first suggest
#   daemon   double-forks a process that leaves the session and sleeps for 120 s
#   forks    starts up to 64 sleeping children in the second suggest (stopping at the first
#            refused fork) and answers normally
#   peak     allocates and touches 96 MiB in the second suggest and frees it before answering
import json
import os
import sys
import subprocess
import threading

mode = os.environ.get("MODE", "memory")
count = 0


def fill(path):
    written = 0
    try:
        with open(path, "wb") as f:
            block = b"x" * (1 << 20)
            while written < (1 << 30):
                f.write(block)
                f.flush()
                written += 1
    except OSError as e:
        return written, "%s" % e.strerror
    return written, "no error"


def spin():
    while True:
        pass


for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    reply = None
    if t == "start":
        reply = {"type": "ready"}
    elif t == "suggest":
        count += 1
        reply = {"type": "suggestions", "x": [{"x0": 0.5}] * msg["n"]}
        if mode == "memory" and count == 2:
            hog = bytearray(512 << 20)
            for i in range(0, len(hog), 4096):
                hog[i] = 1
        if mode == "tmp" and count == 2:
            tmp, why_tmp = fill("/tmp/fill-tmp")
            shm, why_shm = fill("/dev/shm/fill-shm")
            reply = {"type": "error", "message": "tmp=%d shm=%d %s" % (tmp, shm, why_tmp)}
        if mode == "forks" and count == 2:
            children = []
            try:
                for _ in range(64):
                    children.append(subprocess.Popen(["/bin/sleep", "30"]))
            except OSError:
                pass
        if mode == "peak" and count == 2:
            held = bytearray(96 << 20)
            for i in range(0, len(held), 4096):
                held[i] = 1
            del held
        if mode == "hog" and count == 1:
            threading.Thread(target=spin, daemon=True).start()
        if mode == "daemon" and count == 1:
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execv("/bin/sleep", ["sleep", "120"])
                os._exit(0)
            os.wait()
    elif t == "observe":
        reply = {"type": "observed"}
    elif t == "end":
        sys.exit(0)
    print(json.dumps(reply), flush=True)
