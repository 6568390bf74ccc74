#!/usr/bin/python3
"""slowfs: a FUSE filesystem with one read-only file whose read rate depends on the offset.

Usage: /usr/bin/python3 slowfs.py MOUNTPOINT SIZE START_BPS END_BPS [--name disk.img]

Like a hard disk whose outer zones are fast and inner zones slow, the rate at offset x is
linear between START_BPS (x = 0) and END_BPS (x = SIZE), in bytes per second. Reads are
paced by one virtual device clock shared by all requests: a request for [off, off+len)
occupies the device for T = integral of dx / rate(x) over that range, starting when the
device is free (`next_free = max(now, next_free) + T`), and is answered at `next_free`.
Reading a range [lo, hi) back to back therefore takes integral dx / rate(x) over [lo, hi)
whatever the request size or the number of requests in flight: the ground truth.

Host turnaround (`--slack`, default 5 ms). The kernel cuts reads into 128 KiB requests
(libfuse 2 cannot raise that) and, because libfuse 2 cannot enable async_dio, sends the
pieces of one read one after the other (io_uring/libaio reads at QD > 1 on one file also
reached the server one at a time here; separate processes do overlap). Between a reply and the next request the kernel
and Python need ~0.2-0.4 ms (several ms when the CPUs are busy), and under the strict
formula that gap is lost: a back-to-back reader gets 4-7% less than the profile. So when
the open file that made the previous request makes the next one within 50 ms (`IDLE`),
up to `slack` of the gap is not lost: `start = max(next_free, now - slack)`, as if the
device kept streaming (a drive's read-ahead). A new open file, or a gap over 50 ms,
starts from `max(now, next_free)` with no credit, so a measurement that starts from its
own open is exact. `--slack 0` gives the strict model.

Content: the byte at offset x is (x % 251) + 1, never zero, deterministic, served as a
slice of a preallocated buffer (no per-request generation cost).

Writes, truncation and creation are refused with EROFS (the mount is also `ro`).

O_DIRECT: this kernel accepts O_DIRECT opens of FUSE files with or without the
FOPEN_DIRECT_IO flag from the server (and does not enforce alignment); either way
O_DIRECT reads bypass the page cache and reach this server. Opens without O_DIRECT get
FOPEN_DIRECT_IO (`--direct-io auto`), so buffered reads are paced too: no readahead, no
page cache. `--direct-io always|never` sets the flag on every open / on none.

Runs in the foreground until unmounted (`fusermount -u` / `umount -l`) or sent SIGTERM /
SIGINT (libfuse unmounts on the way out). When its parent process dies (a killed test)
it does the same within 0.5 s, so it does not stay behind serving.

Exit status 3: fusepy is not installed (`apt-get install python3-fusepy`).
"""

import argparse
import ctypes
import errno
import gc
import math
import os
import signal
import stat
import sys
import threading
import time

try:  # Debian's python3-fusepy installs the module as `fusepy`, pip's fusepy as `fuse`.
    from fusepy import FUSE, FuseOSError, Operations
except ImportError:
    try:
        from fuse import FUSE, FuseOSError, Operations
    except ImportError:
        sys.stderr.write("slowfs: python3-fusepy is not installed (apt-get install python3-fusepy)\n")
        sys.exit(3)

PERIOD = 251  # content period (a prime: no power-of-two alignment lines up with it)
MAX_REQ = 4 << 20  # requests up to this size are a slice of the preallocated buffer
DEFAULT_SLACK = 0.005  # seconds of a host gap that are not lost (see the module doc)
IDLE = 0.050  # a longer gap is idle time, not host turnaround: no credit

# O_DIRECT as the kernel passes it in the open flags (0o40000 on x86, arm, riscv).
O_DIRECT = getattr(os, "O_DIRECT", 0o40000)


def pattern(offset, n):
    """The n bytes of content at offset: byte x is (x % PERIOD) + 1."""
    period = bytes(range(1, PERIOD + 1))
    s = offset % PERIOD
    return (period * ((s + n) // PERIOD + 1))[s:s + n]


class Profile:
    """rate(x) = a + k x for x in [0, size]; times are integrals of dx / rate."""

    def __init__(self, size, start_bps, end_bps):
        self.size = size
        self.a = float(start_bps)
        self.k = (float(end_bps) - float(start_bps)) / float(size)

    def rate(self, x):
        return self.a + self.k * x

    def seconds(self, lo, hi):
        """Integral over [lo, hi) of dx / rate(x)."""
        if hi <= lo:
            return 0.0
        ra = self.rate(lo)
        if self.k == 0.0:
            return (hi - lo) / ra
        # ln(rate(hi) / rate(lo)) / k, accurate also for a nearly flat profile
        return math.log1p(self.k * (hi - lo) / ra) / self.k


class SlowFS(Operations):
    # fusepy looks operations up by attribute name (`lock`, `read`, ...): private
    # state carries a leading underscore so it never shadows one.
    use_ns = True  # silences fusepy's utimens deprecation warning

    def __init__(self, name, profile, direct_io="auto", slack=DEFAULT_SLACK):
        self._name = name
        self._path = "/" + name
        self._profile = profile
        self._size = profile.size
        self._direct_io = direct_io
        self._slack = slack
        self._data = pattern(0, PERIOD + MAX_REQ)
        self._clock = threading.Lock()
        self._next_free = 0.0  # monotonic time at which the device is free
        self._last_fh = 0  # the open file that made the last request
        self._opens = 0
        self._time = time.time_ns()
        self._uid, self._gid = os.getuid(), os.getgid()

    def _attrs(self, mode, size, nlink):
        t = self._time
        return {
            "st_mode": mode, "st_nlink": nlink, "st_size": size,
            "st_uid": self._uid, "st_gid": self._gid,
            "st_atime": t, "st_mtime": t, "st_ctime": t,
            "st_blksize": 4096, "st_blocks": (size + 511) // 512,
        }

    def getattr(self, path, fh=None):
        if path == "/":
            return self._attrs(stat.S_IFDIR | 0o555, 0, 2)
        if path == self._path:
            return self._attrs(stat.S_IFREG | 0o444, self._size, 1)
        raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        if path != "/":
            raise FuseOSError(errno.ENOTDIR)
        return [".", "..", self._name]

    def statfs(self, path):
        return {"f_bsize": 4096, "f_frsize": 4096, "f_blocks": self._size // 4096,
                "f_bfree": 0, "f_bavail": 0, "f_files": 2, "f_ffree": 0,
                "f_favail": 0, "f_namemax": 255}

    def access(self, path, amode):
        if path not in ("/", self._path):
            raise FuseOSError(errno.ENOENT)
        if amode & os.W_OK:
            raise FuseOSError(errno.EROFS)
        return 0

    def open(self, path, fi):  # raw_fi=True: fi is the fuse_file_info itself
        if path != self._path:
            raise FuseOSError(errno.ENOENT)
        if fi.flags & (os.O_WRONLY | os.O_RDWR | os.O_TRUNC | os.O_APPEND):
            raise FuseOSError(errno.EROFS)
        direct = fi.flags & O_DIRECT
        if self._direct_io == "always" or (self._direct_io == "auto" and not direct):
            fi.direct_io = 1
        fi.keep_cache = 0
        with self._clock:
            self._opens += 1
            fi.fh = self._opens
        return 0

    def read(self, path, size, offset, fi):
        if offset >= self._size:
            return b""
        n = min(size, self._size - offset)
        busy = self._profile.seconds(offset, offset + n)
        with self._clock:
            now = time.monotonic()
            if fi.fh == self._last_fh and now - self._next_free <= IDLE:
                # Up to `slack` of a gap is not lost: the device kept streaming while
                # the host turned the last reply into this request.
                start = max(self._next_free, now - self._slack)
            else:
                start = max(self._next_free, now)  # another reader, or idle: no credit
            done = start + busy
            self._next_free = done
            self._last_fh = fi.fh
        s = offset % PERIOD
        if n <= MAX_REQ:
            out = self._data[s:s + n]
        else:
            out = pattern(offset, n)
        left = done - time.monotonic()
        if left > 0:
            time.sleep(left)
        return out

    def _erofs(self, *args, **kwargs):
        raise FuseOSError(errno.EROFS)

    write = truncate = create = mknod = mkdir = unlink = rmdir = _erofs
    rename = link = symlink = chmod = chown = utimens = _erofs
    setxattr = removexattr = _erofs


def watch_parent(ppid):
    """When the parent process dies (a killed test), unmount and exit: SIGTERM to the
    main thread, which runs libfuse's loop; libfuse's handler ends it and unmounts."""
    while os.getppid() == ppid:
        time.sleep(0.5)
    signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mountpoint")
    p.add_argument("size", type=int, help="file size in bytes")
    p.add_argument("start_bps", type=float, help="read rate at offset 0, bytes/s")
    p.add_argument("end_bps", type=float, help="read rate at the end, bytes/s")
    p.add_argument("--name", default="disk.img", help="file name (default %(default)s)")
    p.add_argument("--direct-io", choices=["auto", "never", "always"], default="auto",
                   help="FOPEN_DIRECT_IO on opens without O_DIRECT (auto), never, always")
    p.add_argument("--slack", type=float, default=DEFAULT_SLACK,
                   help="seconds of a host gap not lost; 0: strict (default %(default)s)")
    a = p.parse_args()
    if a.size <= 0 or a.start_bps <= 0 or a.end_bps <= 0 or a.slack < 0:
        p.error("size and rates must be positive, slack not negative")
    if "/" in a.name or a.name in ("", ".", ".."):
        p.error("bad file name")

    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_TIMERSLACK = 29
    # Sleeps wake within ~1 us instead of the default 50 us timer slack (inherited by
    # the libfuse worker threads, which are created later).
    libc.prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0)
    gc.disable()  # nothing here makes reference cycles: no collector pauses mid-stream
    sys.setswitchinterval(0.0002)  # a thread waiting for the GIL gets it within 0.2 ms

    fs = SlowFS(a.name, Profile(a.size, a.start_bps, a.end_bps), a.direct_io, a.slack)
    FUSE(fs, a.mountpoint, raw_fi=True, foreground=True, ro=True,
         fsname="slowfs", subtype="slowfs", default_permissions=True)


if __name__ == "__main__":
    main()
