"""The archive attacks of the hostile suite: tar / tar.gz / zip files built at test time (no
binary is committed) around a case's well-behaved optimizer.py. Standard library only."""
import io
import os
import struct
import tarfile
import time
import zipfile
import zlib


def _tar_add(tf, name, data=b"", mode=0o644, kind=tarfile.REGTYPE, linkname="", dev=(0, 0)):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.mode = mode
    ti.mtime = int(time.time())
    ti.linkname = linkname
    ti.devmajor, ti.devminor = dev
    if kind == tarfile.REGTYPE:
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))
    else:
        tf.addfile(ti)


def _gzip_of_zeros_tar(path, optimizer, zeros_bytes):
    """A tar.gz holding optimizer.py and `zeros_bytes` of zeros, built without compressing the
    zeros one by one: after a full flush deflate restarts, so one compressed MiB repeats."""
    first_ti = tarfile.TarInfo("optimizer.py")
    first_ti.size = len(optimizer)
    first_ti.mode = 0o644
    first_ti.mtime = int(time.time())
    body = first_ti.tobuf(format=tarfile.GNU_FORMAT) + optimizer + bytes((512 - len(optimizer) % 512) % 512)
    ti = tarfile.TarInfo("zeros.bin")
    ti.size = zeros_bytes
    ti.mode = 0o644
    ti.mtime = int(time.time())
    header = ti.tobuf(format=tarfile.GNU_FORMAT)
    mib = bytes(1 << 20)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(body + header) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
    pad = (512 - zeros_bytes % 512) % 512
    tail = c.compress(bytes(pad) + bytes(1024)) + c.flush(zlib.Z_FINISH)
    crc = zlib.crc32(body + header)
    for _ in range(zeros_bytes >> 20):
        crc = zlib.crc32(mib, crc)
    crc = zlib.crc32(bytes(pad) + bytes(1024), crc)
    size = len(body) + len(header) + zeros_bytes + pad + 1024
    with open(path, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00" + struct.pack("<I", int(time.time())) + b"\x02\xff")
        f.write(first)
        for _ in range(zeros_bytes >> 20):
            f.write(block)
        f.write(tail)
        f.write(struct.pack("<II", crc & 0xffffffff, size & 0xffffffff))


def build_archive(kind, case_dir, out_dir, sentinel_dirs, sentinel_files, marker):
    """Builds the attack archive `kind` around the case's optimizer.py; returns its path."""
    with open(os.path.join(case_dir, "optimizer.py"), "rb") as f:
        optimizer = f.read()
    tmp_sentinel = sentinel_dirs[0]
    up = "../" * 16
    if kind in ("zip_slip", "zip_bomb"):
        path = os.path.join(out_dir, "attack.zip")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            zf.writestr("optimizer.py", optimizer)
            if kind == "zip_slip":
                zf.writestr(up + tmp_sentinel.lstrip("/") + "/" + marker + "-zipslip", b"HOSTILE zip slip\n")
            else:
                mib = bytes(1 << 20)
                for i in range(3):
                    with zf.open("zeros-%d.bin" % i, "w", force_zip64=True) as w:
                        for _ in range(100):
                            w.write(mib)
        return path
    if kind == "tar_bomb":
        path = os.path.join(out_dir, "attack.tar.gz")
        _gzip_of_zeros_tar(path, optimizer, 1 << 30)
        return path
    path = os.path.join(out_dir, "attack.tar")
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tf:
        _tar_add(tf, "optimizer.py", optimizer)
        if kind == "traversal":
            _tar_add(tf, up + tmp_sentinel.lstrip("/") + "/" + marker + "-traversal", b"HOSTILE traversal\n")
            _tar_add(tf, "sub/../../../../../../../../" + marker + "-traversal2", b"HOSTILE traversal\n")
        elif kind == "absolute":
            _tar_add(tf, tmp_sentinel + "/" + marker + "-absolute", b"HOSTILE absolute\n")
        elif kind == "symlink":
            _tar_add(tf, "escape", kind=tarfile.SYMTYPE, linkname=tmp_sentinel)
            _tar_add(tf, "escape/" + marker + "-symlink", b"HOSTILE symlink\n")
            _tar_add(tf, "shadow", kind=tarfile.SYMTYPE, linkname="/etc/shadow")
        elif kind == "hardlink":
            _tar_add(tf, "hard", kind=tarfile.LNKTYPE, linkname=sentinel_files[0])
            _tar_add(tf, "hard", b"HOSTILE overwritten through a hard link\n")
            _tar_add(tf, "shadow", kind=tarfile.LNKTYPE, linkname="/etc/shadow")
        elif kind == "device":
            _tar_add(tf, "mem", kind=tarfile.CHRTYPE, mode=0o666, dev=(1, 1))
            _tar_add(tf, "sda", kind=tarfile.BLKTYPE, mode=0o666, dev=(8, 0))
            _tar_add(tf, "fifo", kind=tarfile.FIFOTYPE, mode=0o666)
        elif kind == "many_entries":
            for i in range(12000):
                _tar_add(tf, "f/%05d" % i, b"")
        else:
            raise ValueError("unknown archive attack %r" % kind)
    return path
