#!/usr/bin/python3
"""faultfs: a FUSE filesystem with one read-write file that misbehaves as configured.

Usage: /usr/bin/python3 faultfs.py MOUNTPOINT --config JSON
       /usr/bin/python3 faultfs.py MOUNTPOINT --config - < config.json

A loop device over the file makes a faulty block device (the counterfeit USB stick, the
disk with bad sectors, the controller that flips bits or loses writes). JSON keys, all
byte offsets in the file's (the device's) address space:

  name        the file's name (default "disk.img")
  announce    N: the file's size, what the device claims to hold (a multiple of 4096)
  store       M: how many bytes it really stores (default N; a multiple of 4096, <= N).
              Offset o is stored at o mod M: a write at o >= M overwrites o mod M and a
              read at o returns what is stored at o mod M (fake capacity that wraps
              onto the start).
  eio         [[a, b], ...]: a read touching any byte in [a, b) fails with EIO
  eio_writes  true: so does a write (default false: writes there are stored)
  hold        [[a, b, ms], ...]: a read touching any byte in [a, b) is answered ms
              milliseconds late (a device that keeps one request for seconds)
  hold_log    a file: each held read, once answered, appends a line
              "answered OFFSET NS" (NS: CLOCK_MONOTONIC nanoseconds, just before the answer)
  flip        [block, ...]: 4 KiB-aligned offsets. A read that covers byte
              block + FLIP_POS gets that byte with bit FLIP_MASK flipped, every time;
              the stored data is unchanged.
  drop        [[a, b], ...]: the bytes of a write that fall in [a, b) are reported
              written but not stored (reads return what was there before, zeros at first)
  write_bps_before, write_bps_after, write_drop_offset
              writes are paced: a byte below write_drop_offset takes 1/write_bps_before
              seconds, one at or above it 1/write_bps_after (the stick whose write cache
              fills up). Paced by one virtual device clock shared by all requests, as
              slowfs.py paces reads: a write of [lo, hi) occupies the device for
              T = (its bytes below the offset) / before + (those above) / after, from
              when the device is free (`next_free = max(now, next_free) + T`), and is
              answered at `next_free`. A request that comes within write_slack seconds
              (default WRITE_SLACK) of the last answer starts at `next_free`: the gap
              is the kernel's and Python's turnaround between two requests of one
              stream (and this server's oversleeping), and is not lost; a longer gap
              is the writer's idle time, none of it credited, but the first request
              of the new stream is taken to have been issued the median of the recent
              gaps inside streams before it arrived (it came the same way). Writing
              [lo, hi) back to back therefore takes the formula's time whatever the
              request size. Paced, the server runs at nice -20 (it sleeps between
              answers; busy cores must not stretch them), and fsync answers ENOSYS,
              so the kernel answers every flush itself: writes are stored when they
              are answered, and a flush costs the device nothing. All three or none
              (plus write_slack, optional); reads are not paced.

Faults are judged by the offset a request asks for (before the wrap).

Storage: the M stored bytes live in a memfd (an anonymous, sparse tmpfs file): holes read
as zeros and cost nothing, so a 4 GiB device that stores 1 GiB holds at most 1 GiB, only
what was written. It is freed when this process exits; nothing is left on disk.

No caching can hide a fault: every open gets FOPEN_DIRECT_IO (no page cache on the FUSE
file, every read and write reaches this server), so a flipped byte is flipped on every
read and a dropped write is never served from a cache. Requests are up to 128 KiB
(`big_writes`, `max_read`/`max_write`; libfuse 2 cannot negotiate more). A request that
touches an EIO range fails whole, never short. (A loop device over this file must keep
its requests to one FUSE request each, `queue/max_sectors_kb` 124: the kernel cuts a
bigger one into several FUSE requests, and if a later one fails, the loop driver sees
a short write and reports success. FaultDev does that, and resets it when it detaches.)

Runs in the foreground until unmounted or sent SIGTERM/SIGINT (libfuse unmounts on the
way out). When its parent process dies (a killed test) it cleans up after it within
0.5 s: detaches every loop device over its file, unmounts, removes the mount directory
and exits.

Exit status 3: fusepy is not installed (`apt-get install python3-fusepy`); 2: bad usage.
"""

import argparse
import bisect
import collections
import errno
import fcntl
import gc
import json
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
        sys.stderr.write("faultfs: python3-fusepy is not installed (apt-get install python3-fusepy)\n")
        sys.exit(3)

BLOCK = 4096
FLIP_POS = 1445  # the byte of a flip block that comes back flipped (odd, mid-block)
FLIP_MASK = 0x10  # the bit that flips
MAX_REQ = 128 * 1024  # largest FUSE request libfuse 2 gets from the kernel
WRITE_SLACK = 0.020  # a gap between paced writes up to this is host turnaround: not lost


def merged(ranges):
    """Sorted, merged, non-empty [a, b) ranges as two parallel lists (starts, ends)."""
    out = []
    for a, b in sorted((int(a), int(b)) for a, b in ranges):
        if a >= b:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [a for a, _ in out], [b for _, b in out]


class Ranges:
    def __init__(self, ranges):
        self.starts, self.ends = merged(ranges)

    def __bool__(self):
        return bool(self.starts)

    def overlaps(self, lo, hi):
        """Does [lo, hi) touch any range?"""
        i = bisect.bisect_right(self.starts, lo) - 1
        if i >= 0 and self.ends[i] > lo:
            return True
        return i + 1 < len(self.starts) and self.starts[i + 1] < hi

    def outside(self, lo, hi):
        """The pieces of [lo, hi) outside every range."""
        pieces = []
        i = max(bisect.bisect_right(self.starts, lo) - 1, 0)
        at = lo
        while at < hi and i < len(self.starts):
            a, b = self.starts[i], self.ends[i]
            if b <= at:
                i += 1
                continue
            if a >= hi:
                break
            if a > at:
                pieces.append((at, a))
            at = max(at, b)
            i += 1
        if at < hi:
            pieces.append((at, hi))
        return pieces


class FaultFS(Operations):
    # fusepy looks operations up by attribute name (`read`, `write`, ...): private state
    # carries a leading underscore so it never shadows one.
    use_ns = True  # silences fusepy's utimens deprecation warning

    def __init__(self, cfg):
        self._name = cfg["name"]
        self._path = "/" + self._name
        self._size = cfg["announce"]
        self._store = cfg["store"]
        self._eio = Ranges(cfg["eio"])
        self._eio_writes = cfg["eio_writes"]
        self._hold = [tuple(h) for h in cfg["hold"]]
        self._hold_log = cfg.get("hold_log")
        self._flips = sorted(set(cfg["flip"]))
        self._drop = Ranges(cfg["drop"])
        self._pace = None
        if cfg.get("write_bps_before") is not None:
            self._pace = (cfg["write_bps_before"], cfg["write_bps_after"], cfg["write_drop_offset"])
        self._slack = cfg.get("write_slack", WRITE_SLACK)
        self._clock = threading.Lock()
        self._next_free = 0.0  # monotonic time at which the device is free to write
        # When the last paced write was due (monotonic s): the device's answer, on its
        # clock. A gap is counted from it, not from when this server got to answer:
        # the sleep's own lateness (50-100 us a request here, more on a loaded host)
        # is host turnaround like the rest, and counted from the reply it was lost on
        # every request (64 of them in 8 MiB: +2-4% on a CI run's 8 MiB stream).
        self._last_reply = 0.0
        self._gaps = collections.deque(maxlen=63)  # recent gaps inside streams (seconds)
        self._fd = os.memfd_create("faultfs-store", os.MFD_CLOEXEC)
        os.ftruncate(self._fd, self._store)
        self._time = time.time_ns()
        self._uid, self._gid = os.getuid(), os.getgid()

    def _attrs(self, mode, size, nlink):
        t = self._time
        return {
            "st_mode": mode, "st_nlink": nlink, "st_size": size,
            "st_uid": self._uid, "st_gid": self._gid,
            "st_atime": t, "st_mtime": t, "st_ctime": t,
            "st_blksize": BLOCK, "st_blocks": (size + 511) // 512,
        }

    def getattr(self, path, fh=None):
        if path == "/":
            return self._attrs(stat.S_IFDIR | 0o755, 0, 2)
        if path == self._path:
            return self._attrs(stat.S_IFREG | 0o644, self._size, 1)
        raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        if path != "/":
            raise FuseOSError(errno.ENOTDIR)
        return [".", "..", self._name]

    def statfs(self, path):
        return {"f_bsize": BLOCK, "f_frsize": BLOCK, "f_blocks": self._size // BLOCK,
                "f_bfree": 0, "f_bavail": 0, "f_files": 2, "f_ffree": 0,
                "f_favail": 0, "f_namemax": 255}

    def access(self, path, amode):
        if path not in ("/", self._path):
            raise FuseOSError(errno.ENOENT)
        return 0

    def open(self, path, fi):  # raw_fi=True: fi is the fuse_file_info itself
        if path != self._path:
            raise FuseOSError(errno.ENOENT)
        if fi.flags & (os.O_TRUNC | os.O_APPEND):
            raise FuseOSError(errno.EPERM)
        fi.direct_io = 1  # no page cache: every read and write reaches us
        fi.keep_cache = 0
        return 0

    def _pieces(self, lo, hi):
        """[lo, hi) as (stored offset, length, offset in the request) pieces (the wrap)."""
        m = self._store
        out = []
        at = lo
        while at < hi:
            phys = at % m
            n = min(hi - at, m - phys)
            out.append((phys, n, at - lo))
            at += n
        return out

    def read(self, path, size, offset, fi):
        if offset >= self._size:
            return b""
        end = min(offset + size, self._size)
        if self._eio and self._eio.overlaps(offset, end):
            raise FuseOSError(errno.EIO)
        for a, b, ms in self._hold:
            if offset < b and a < end:
                time.sleep(ms / 1000)
                if self._hold_log:
                    with open(self._hold_log, "a") as f:
                        f.write(f"answered {offset} {time.monotonic_ns()}\n")
        if end <= self._store:
            data = os.pread(self._fd, end - offset, offset)
        else:
            data = b"".join(os.pread(self._fd, n, phys) for phys, n, _ in self._pieces(offset, end))
        if self._flips:
            i = bisect.bisect_left(self._flips, offset - FLIP_POS)
            hit = []
            while i < len(self._flips) and self._flips[i] + FLIP_POS < end:
                hit.append(self._flips[i] + FLIP_POS - offset)
                i += 1
            if hit:
                data = bytearray(data)
                for p in hit:
                    if p >= 0:
                        data[p] ^= FLIP_MASK
                data = bytes(data)
        return data

    def _write_done(self, lo, hi):
        """When a paced write of [lo, hi) asked for now completes (monotonic seconds)."""
        before, after, at = self._pace
        fast = max(0, min(hi, at) - lo)
        busy = fast / before + (hi - lo - fast) / after
        with self._clock:
            now = time.monotonic()
            # A request within the slack of the last answer is the same stream: the gap
            # is the kernel's and Python's turnaround (and this server's oversleeping),
            # and the device kept streaming. A longer gap is the writer's idle time,
            # none of it credited: a writer that waited for its data must not then
            # write faster than the pace.
            gap = now - self._last_reply
            if gap <= self._slack:
                # Credited up to the gaps a stream usually has (its 97th percentile):
                # a writer's own pause that still fits in the slack (verify's flush and
                # bookkeeping between two regions, one request in 128) is idle time, not
                # turnaround; credited whole it made every other region up to 20 ms
                # (a quarter at 160 MB/s) faster than the pace.
                usual = sorted(self._gaps)[int(len(self._gaps) * 0.97)] if self._gaps else gap
                start = max(self._next_free, now - usual)
                self._gaps.append(gap)
            else:
                # A new stream: its first request reached us after the same path as
                # every request of a stream (the loop device's worker woken, the
                # kernel's FUSE queue, this server woken): credit the median gap
                # inside streams, a device's clock starts when the write is issued.
                turnaround = sorted(self._gaps)[len(self._gaps) // 2] if self._gaps else 0.0
                start = max(now - turnaround, self._next_free)
            self._next_free = start + busy
            return self._next_free

    def write(self, path, data, offset, fi):
        n = len(data)
        if offset >= self._size and n:
            raise FuseOSError(errno.ENOSPC)
        end = min(offset + n, self._size)
        done = self._write_done(offset, end) if self._pace else None
        if self._eio_writes and self._eio.overlaps(offset, end):
            raise FuseOSError(errno.EIO)
        view = memoryview(data)
        kept = self._drop.outside(offset, end) if self._drop else [(offset, end)]
        for lo, hi in kept:
            for phys, k, at in self._pieces(lo, hi):
                skip = lo - offset + at
                os.pwrite(self._fd, view[skip:skip + k], phys)
        if done is not None:
            left = done - time.monotonic()
            if left > 0:
                time.sleep(left)
            with self._clock:
                self._last_reply = max(self._last_reply, done)
        return end - offset

    def truncate(self, path, length, fh=None):
        if path != self._path:
            raise FuseOSError(errno.ENOENT)
        if length != self._size:
            raise FuseOSError(errno.EPERM)  # the size is the device's, fixed
        return 0

    def fsync(self, path, datasync, fi):
        if self._pace:
            # Every write is stored when it is answered: nothing to flush. ENOSYS tells
            # the kernel so once (it answers later flushes itself, as a success), so a
            # paced device's flush costs no round trip through Python, time the pace
            # does not count and a writer timing its flushes would.
            raise FuseOSError(errno.ENOSYS)
        return 0

    def flush(self, path, fi):
        return 0

    def release(self, path, fi):
        return 0

    def _eperm(self, *args, **kwargs):
        raise FuseOSError(errno.EPERM)

    create = mknod = mkdir = unlink = rmdir = rename = link = symlink = _eperm
    chmod = chown = setxattr = removexattr = _eperm

    def utimens(self, path, times=None):
        return 0


def loops_over(path):
    """/dev/loopN devices whose backing file is `path`."""
    found = []
    try:
        names = os.listdir("/sys/block")
    except OSError:
        return found
    for n in names:
        if not n.startswith("loop"):
            continue
        try:
            with open(f"/sys/block/{n}/loop/backing_file") as f:
                back = f.read().strip()
        except OSError:
            continue
        if back.endswith(" (deleted)"):
            back = back[: -len(" (deleted)")]
        if back == path:
            found.append("/dev/" + n)
    return found


ORPHANED = threading.Event()
LOOP_CLR_FD = 0x4C01  # <linux/loop.h>


def detach(dev, path):
    """Detach loop device `dev` if it is still over `path`: checked while the device is
    held open (so it cannot be detached and reused by another test under us), then
    LOOP_CLR_FD, which takes effect on the last close."""
    try:
        fd = os.open(dev, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if dev in loops_over(path):
            # The loop device keeps a capped request size when it is reused: back to
            # the default (0) first.
            try:
                with open(f"/sys/block/{os.path.basename(dev)}/queue/max_sectors_kb", "w") as k:
                    k.write("0")
            except OSError:
                pass
            fcntl.ioctl(fd, LOOP_CLR_FD, 0)
    except OSError:
        pass
    finally:
        os.close(fd)


def watch_parent(ppid, file_path):
    """When the parent process dies (a killed test), detach the loop devices over our
    file, then SIGTERM the main thread, which runs libfuse's loop: libfuse's handler ends
    it and unmounts; main() then removes the mount directory."""
    while os.getppid() == ppid:
        time.sleep(0.5)
    ORPHANED.set()
    for dev in loops_over(file_path):
        detach(dev, file_path)
    signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)


def config(p, text):
    try:
        c = json.loads(text)
    except ValueError as e:
        p.error(f"--config is not JSON: {e}")
    if not isinstance(c, dict):
        p.error("--config must be a JSON object")
    pace = ("write_bps_before", "write_bps_after", "write_drop_offset")
    unknown = set(c) - {"name", "announce", "store", "eio", "eio_writes", "flip", "drop", *pace, "write_slack",
                        "hold", "hold_log"}
    if unknown:
        p.error(f"unknown config keys: {sorted(unknown)}")
    c.setdefault("name", "disk.img")
    c.setdefault("store", c.get("announce"))
    for k in ("eio", "flip", "drop", "hold"):
        c.setdefault(k, [])
    c.setdefault("eio_writes", False)
    n, m = c.get("announce"), c["store"]
    if not isinstance(n, int) or not isinstance(m, int) or n <= 0 or m <= 0:
        p.error("announce and store must be positive integers")
    if n % BLOCK or m % BLOCK or m > n:
        p.error("announce and store must be multiples of 4096, store <= announce")
    name = c["name"]
    if not isinstance(name, str) or "/" in name or name in ("", ".", ".."):
        p.error("bad file name")
    for k in ("eio", "drop"):
        for r in c[k]:
            if not (isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) for x in r)
                    and 0 <= r[0] < r[1] <= n):
                p.error(f"{k}: {r!r} is not a range [a, b) with 0 <= a < b <= announce")
    for h in c["hold"]:
        if not (isinstance(h, list) and len(h) == 3 and all(isinstance(x, int) for x in h)
                and 0 <= h[0] < h[1] <= n and 0 < h[2] <= 600_000):
            p.error(f"hold: {h!r} is not [a, b, ms] with 0 <= a < b <= announce, 0 < ms <= 600000")
    if c.get("hold_log") is not None and not isinstance(c["hold_log"], str):
        p.error("hold_log must be a path")
    for b in c["flip"]:
        if not isinstance(b, int) or b % BLOCK or not 0 <= b < n:
            p.error(f"flip: {b!r} is not a 4 KiB-aligned block offset below announce")
    given = [k for k in pace if c.get(k) is not None]
    if given and len(given) != len(pace):
        p.error(f"{', '.join(pace)}: all three or none")
    if given:
        if not all(isinstance(c[k], int) and c[k] > 0 for k in pace[:2]):
            p.error("write_bps_before and write_bps_after must be positive integers")
        if not isinstance(c["write_drop_offset"], int) or not 0 <= c["write_drop_offset"] <= n:
            p.error("write_drop_offset must be an integer from 0 to announce")
    slack = c.get("write_slack", WRITE_SLACK)
    if not isinstance(slack, (int, float)) or not 0 <= slack <= 1:
        p.error("write_slack must be seconds from 0 to 1")
    return c


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mountpoint")
    p.add_argument("--config", required=True,
                   help="the faults, a JSON object (see above); -: read it from stdin")
    a = p.parse_args()
    cfg = config(p, sys.stdin.read() if a.config == "-" else a.config)
    mountpoint = os.path.abspath(a.mountpoint)
    fs = FaultFS(cfg)
    if fs._pace:
        # A paced device answers on its clock only if it gets a CPU when it wakes: the
        # highest nice level (threads libfuse starts inherit it), so compilers and other
        # tests on the same cores do not stretch its answers. It sleeps between them.
        try:
            os.nice(-20)
        except OSError:
            pass
    threading.Thread(target=watch_parent, args=(os.getppid(), os.path.join(mountpoint, cfg["name"])),
                     daemon=True).start()
    gc.disable()  # nothing here makes reference cycles: no collector pauses mid-stream
    FUSE(fs, mountpoint, raw_fi=True, foreground=True, big_writes=True,
         max_read=MAX_REQ, max_write=MAX_REQ, fsname="faultfs", subtype="faultfs",
         default_permissions=True)
    if ORPHANED.is_set():
        try:
            os.rmdir(mountpoint)
        except OSError:
            pass


if __name__ == "__main__":
    main()
