"""The protocol channel: the real stdout, set aside so stray prints cannot corrupt it."""
import os
import sys

_CHANNEL = None


class Channel:
    def __init__(self):
        # Keep the real stdout for the protocol; point fd 1 and sys.stdout at stderr.
        sys.stdout.flush()
        proto_fd = os.dup(1)
        os.dup2(2, 1)
        self.out = os.fdopen(proto_fd, "w", buffering=1)
        sys.stdout = sys.stderr


def claim():
    """Set stdout aside for the protocol (idempotent) and return the channel."""
    global _CHANNEL
    if _CHANNEL is None:
        _CHANNEL = Channel()
    return _CHANNEL
