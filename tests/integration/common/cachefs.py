#!/usr/bin/python3
"""cachefs: a FUSE file that behaves like a drive with a volatile write cache over slow media.

Usage: /usr/bin/python3 cachefs.py MOUNTPOINT --config JSON
       /usr/bin/python3 cachefs.py MOUNTPOINT --config - < config.json

A loop device over the file makes the ground truth of `iolab flush` and of the
`flush_too_fast` finding: a disk whose writes are answered by a cache and whose flushes
are honest, lie, or let the media store in another order than written. JSON keys:

  name        the disk file's name (default "disk.img")
  size        the device's size in bytes (a multiple of 4096)
  cache       the volatile cache's size in bytes (a multiple of 4096; 0: write-through)
  media_bps   the media's store rate in bytes per second (the cache drains at this rate)
  flush       "honest": a flush returns when every write before it is stored (it takes
              the drain time); "lie": a flush returns at once, whatever the cache holds;
              "reorder": as "lie", and the media stores the newest cached write first
              (last in, first out), so across flushes an older write stays cached (and is
              lost at a power cut) while newer ones are stored
  flush_ms    latency added to every flush (a known flush cost; default 0)
  read_bps    the media's read rate in bytes per second (default 0: reads are not paced).
              Reads of blocks the cache does not hold take n / read_bps on a read channel
              of their own (requests queue on it, one after another), so a reader sees
              the media's rate, as a drive's reads off its platters or flash do

Storage. The media is a memfd (sparse: only what was stored takes memory, freed with this
process). The cache is a list of pending 4 KiB blocks in write order, at most `cache`
bytes. A write is cut into 4 KiB blocks (a partial block is merged with the block's
newest content, cache first); each block goes into the cache at once while it has room,
and waits for room while it is full, so a write is answered when its last block is in.
With "honest" and "lie" every write is its own entry (a block written twice while cached
takes two), and the media stores the entries oldest first: what is stored is always a
prefix of what was written. With "reorder" a block has at most one entry (a rewrite
replaces it and becomes the newest), and the media stores the newest entry first. Reads
return the newest data: cache first, then media.

The media's clock. The media stores one block per 4096 / media_bps seconds, on a virtual
clock that starts when the cache gets data while empty: block k of a busy stretch is
stored at start + k * 4096 / media_bps, whoever notices it first (the drain thread, a
writer waiting for room, a flush waiting for the drain) stores every block whose time
has come. So oversleeping costs no throughput, it only delays by the oversleep when a
block becomes visible as stored. Write-through (`cache: 0`) has no drain: a write of n
bytes occupies the media for n / media_bps from when the media is free and is stored and
answered then (a write that comes within WRITE_SLACK of the previous answer, with no
flush between, is the same stream: it starts when the previous write ended, so the
host's turnaround between requests is not lost). A flush costs flush_ms from when it
arrived or when its drain ended, whichever is later. The server runs at nice -20 with a
timer slack of 1 ns, and a paced answer (a write-through write, flush_ms) ends its wait
with a busy wait of SPIN, so it comes when it should on busy cores (a sleep alone ends
50-100 us late here).

Flushes. The loop device's REQ_OP_FLUSH (fdatasync on it, and a FUA write) reaches this
server as a FUSE fsync of the disk file, which is answered (never ENOSYS, so the kernel
keeps sending them) and counted.

Control. The file `control` beside the disk file takes one command per open: open it
read-write, write the command, read the answer (JSON) to its end.

  freeze   the power cut's instant: blocks due are stored, then the media stops, and no
           write or flush is answered or stored until `cut` (reads are still served)
  cut      the power cut: drops everything the cache holds and fails every write and
           flush in flight with EIO (their data is not stored); answers
           {"dropped": [block offsets]}: the 4 KiB blocks whose newest write was lost
           (cached or in flight; the media may hold an older version there). The
           power stays off until `on`: reads are served from the media, writes and
           flushes fail (the rest of what the dead writer had queued in the block
           layer: a split request's later pieces must not be stored after the cut).
  on       the power comes back: writes and flushes are taken as before; answers
           {"dropped": [block offsets]} of the writes failed while off
  thaw     ends a freeze without a cut
  pending  {"pending": [block offsets]}: blocks whose newest write is cached
  stats    {"stored_bytes", "accepted_bytes", "writes", "flushes",
            "flushes_with_data_cached", "flush_ns", "cached_bytes", "cuts", "dropped_blocks",
            "frozen", "off"}: bytes the media stored, bytes of writes answered, writes
           answered, flushes seen, flushes answered while writes from before them were
           still cached (lies), the answered flushes' time here (arrival to answer, ns),
           bytes cached now, power cuts, blocks they dropped,
           whether frozen, whether off (cut and not on again)
  stop     every waiting and later write and flush fails with EIO (the device goes away)

No page cache hides anything: every open gets FOPEN_DIRECT_IO. Requests are up to
128 KiB (libfuse 2); the loop device over this file keeps its requests to one FUSE
request each (`queue/max_sectors_kb` 124), so a write failed by a cut fails whole.

Runs in the foreground until unmounted or sent SIGTERM/SIGINT. When its parent process
dies (a killed test) it cleans up after it within 0.5 s: fails what waits, detaches
every loop device over its file, unmounts, removes the mount directory and exits.

Exit status 3: fusepy is not installed (`apt-get install python3-fusepy`); 2: bad usage.
"""

import argparse
import collections
import ctypes
import errno
import gc
import json
import os
import signal
import stat
import sys
import threading
import time

# faultfs.py beside this file: the FUSE classes (it exits 3 without fusepy), the request
# size and the loop-device cleanup of an orphaned server.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faultfs import FUSE, MAX_REQ, FuseOSError, Operations, detach, loops_over  # noqa: E402

BLOCK = 4096
CONTROL = "control"
MODES = ("honest", "lie", "reorder")
WRITE_SLACK = 0.020  # write-through: a gap up to this since the last answer is turnaround
DRAIN_NAP = 0.001  # the drain thread's shortest sleep while the cache holds data
SPIN = 0.0003  # the last part of a paced answer's wait is a busy wait (see sleep_until)
PR_SET_TIMERSLACK = 29  # <linux/prctl.h>


def sleep_until(t):
    """Return at monotonic time t: a sleep to SPIN before it, then a busy wait (a sleep
    alone ends 50-100 us late on a busy virtual machine even with 1 ns timer slack:
    the wake-up's latency; 5% of a 2 ms flush)."""
    left = t - time.monotonic()
    if left > SPIN:
        time.sleep(left - SPIN)
    while time.monotonic() < t:
        pass


class CacheFS(Operations):
    # fusepy looks operations up by attribute name: private state has a leading underscore.
    use_ns = True

    def __init__(self, cfg):
        self._name = cfg["name"]
        self._path = "/" + self._name
        self._ctl = "/" + CONTROL
        self._size = cfg["size"]
        self._cap = cfg["cache"] // BLOCK  # the cache's room, in blocks
        self._bps = float(cfg["media_bps"])
        self._read_bps = float(cfg.get("read_bps", 0))
        self._read_end = 0.0  # when the read channel is free (monotonic s)
        self._read_lock = threading.Lock()
        self._per = BLOCK / self._bps  # seconds the media takes to store one block
        self._mode = cfg["flush"]
        self._lifo = self._mode == "reorder"
        self._flush_s = cfg["flush_ms"] / 1000.0
        self._media = os.memfd_create("cachefs-media", os.MFD_CLOEXEC)
        os.ftruncate(self._media, self._size)
        self._lock = threading.Lock()
        # Writers waiting for room, flushes waiting for the drain, anything held by a
        # freeze: woken when blocks are stored and at a thaw, cut or stop.
        self._room = threading.Condition(self._lock)
        self._work = threading.Condition(self._lock)  # the drain thread
        self._entries = collections.OrderedDict()  # seq -> (block offset, bytes), by seq
        self._newest = {}  # block offset -> seq of its newest cached write
        self._seq = 0
        self._t_free = 0.0  # the media's clock: when it stored its last block
        self._frozen = False
        self._epoch = 0  # +1 at each power cut: what waited from before it fails
        self._off = False  # from a cut until `on`: writes and flushes fail
        self._off_dropped = set()  # blocks of the writes failed while off
        self._stopping = False
        self._inflight = {}  # write id -> (lo, hi): writes not answered yet
        self._wid = 0
        self._next_free = 0.0  # write-through: when the media is free
        self._last_reply = -1.0  # write-through: when the last write was answered
        self._stream = False  # write-through: the last request was a write
        self._st = {k: 0 for k in ("stored_bytes", "accepted_bytes", "writes", "flushes",
                                   "flushes_with_data_cached", "flush_ns", "cuts", "dropped_blocks")}
        self._answers = {}  # control file handle -> its answer
        self._fh = 0
        self._time = time.time_ns()
        self._uid, self._gid = os.getuid(), os.getgid()

    # ---- the cache (all with self._lock held) ----------------------------------------

    def _commit_due(self, now):
        """Store every cached block whose time on the media's clock has come."""
        if self._frozen or not self._entries:
            return
        n = 0
        while self._entries and self._t_free + self._per <= now:
            self._t_free += self._per
            seq, (blk, data) = self._entries.popitem(last=self._lifo)
            os.pwrite(self._media, data, blk)
            if self._newest.get(blk) == seq:
                del self._newest[blk]
            n += 1
        if n:
            self._st["stored_bytes"] += n * BLOCK
            self._room.notify_all()

    def _pending_upto(self, mark):
        """Cached entries written at or before write number `mark` (entries are by seq)."""
        if not self._entries:
            return 0
        if next(reversed(self._entries)) <= mark:
            return len(self._entries)
        k = 0
        for seq in self._entries:
            if seq > mark:
                break
            k += 1
        return k

    def _has_room(self, blk):
        return len(self._entries) < self._cap or (self._lifo and blk in self._newest)

    def _check(self, epoch):
        if self._stopping or self._epoch != epoch:
            raise FuseOSError(errno.EIO)

    def _admit(self, lo, hi):
        """A write of [lo, hi) arrives: it fails while stopping or off (its blocks then
        join what the cut dropped: the write was queued before the cut)."""
        if self._stopping:
            raise FuseOSError(errno.EIO)
        if self._off:
            self._off_dropped.update(range(lo - lo % BLOCK, hi, BLOCK))
            raise FuseOSError(errno.EIO)

    def _wait_room(self, epoch, blk):
        while True:
            self._check(epoch)
            if self._frozen:
                self._room.wait()
                continue
            now = time.monotonic()
            self._commit_due(now)
            if self._has_room(blk):
                return
            self._room.wait(max(self._t_free + self._per - now, 0.0))

    def _wait_thawed(self, epoch):
        while self._frozen and self._epoch == epoch and not self._stopping:
            self._room.wait()
        self._check(epoch)

    def _block(self, blk):
        """The newest content of block `blk`: cached, else on the media."""
        seq = self._newest.get(blk)
        if seq is not None:
            return self._entries[seq][1]
        return os.pread(self._media, BLOCK, blk)

    def _insert(self, blk, data, now):
        if not self._entries:
            # The media was idle: its clock starts now.
            self._t_free = max(self._t_free, now)
            self._work.notify()
        if self._lifo and blk in self._newest:
            del self._entries[self._newest[blk]]
        self._seq += 1
        self._entries[self._seq] = (blk, data)
        self._newest[blk] = self._seq

    def _begin(self, lo, hi):
        self._wid += 1
        self._inflight[self._wid] = (lo, hi)
        return self._wid

    def _drain(self):
        with self._lock:
            while not self._stopping:
                now = time.monotonic()
                self._commit_due(now)
                if self._frozen or not self._entries:
                    self._work.wait()
                else:
                    self._work.wait(max(self._t_free + self._per - now, DRAIN_NAP))

    # ---- control ----------------------------------------------------------------------

    def _command(self, cmd):
        with self._lock:
            now = time.monotonic()
            if cmd == "freeze":
                self._commit_due(now)
                self._frozen = True
                return {"frozen": True}
            if cmd == "thaw":
                self._frozen = False
                self._room.notify_all()
                self._work.notify()
                return {"frozen": False}
            if cmd == "cut":
                self._commit_due(now)  # a no-op when frozen: the cut is at the freeze
                dropped = set(self._newest)
                for lo, hi in self._inflight.values():
                    dropped.update(range(lo - lo % BLOCK, hi, BLOCK))
                self._entries.clear()
                self._newest.clear()
                self._epoch += 1
                self._frozen = False
                self._off = True
                self._off_dropped = set()
                self._t_free = self._next_free = now
                self._stream = False
                self._st["cuts"] += 1
                self._st["dropped_blocks"] += len(dropped)
                self._room.notify_all()
                self._work.notify()
                return {"dropped": sorted(dropped)}
            if cmd == "on":
                dropped = sorted(self._off_dropped)
                self._off = False
                self._off_dropped = set()
                self._st["dropped_blocks"] += len(dropped)
                return {"dropped": dropped}
            if cmd == "pending":
                return {"pending": sorted(self._newest)}
            if cmd == "stats":
                self._commit_due(now)
                return dict(self._st, cached_bytes=len(self._entries) * BLOCK, frozen=self._frozen,
                            off=self._off)
            if cmd == "stop":
                self._stop()
                return {"stopped": True}
        raise FuseOSError(errno.EINVAL)

    def _stop(self):
        self._stopping = True
        self._frozen = False
        self._room.notify_all()
        self._work.notify()

    def stop(self):
        """Fail every waiting and later write and flush (the device goes away)."""
        with self._lock:
            self._stop()

    # ---- FUSE operations --------------------------------------------------------------

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
        if path == self._ctl:
            return self._attrs(stat.S_IFREG | 0o600, 0, 1)
        raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        if path != "/":
            raise FuseOSError(errno.ENOTDIR)
        return [".", "..", self._name, CONTROL]

    def statfs(self, path):
        return {"f_bsize": BLOCK, "f_frsize": BLOCK, "f_blocks": self._size // BLOCK,
                "f_bfree": 0, "f_bavail": 0, "f_files": 3, "f_ffree": 0,
                "f_favail": 0, "f_namemax": 255}

    def access(self, path, amode):
        if path not in ("/", self._path, self._ctl):
            raise FuseOSError(errno.ENOENT)
        return 0

    def open(self, path, fi):  # raw_fi=True: fi is the fuse_file_info itself
        if path not in (self._path, self._ctl):
            raise FuseOSError(errno.ENOENT)
        if fi.flags & (os.O_TRUNC | os.O_APPEND):
            raise FuseOSError(errno.EPERM)
        fi.direct_io = 1  # no page cache: every read and write reaches us
        fi.keep_cache = 0
        if path == self._ctl:
            with self._lock:
                self._fh += 1
                fi.fh = self._fh
        return 0

    def read(self, path, size, offset, fi):
        if path == self._ctl:
            return self._answers.get(fi.fh, b"")[offset:offset + size]
        if offset >= self._size:
            return b""
        end = min(offset + size, self._size)
        media = end - offset  # bytes the media serves (not the cache)
        with self._lock:
            data = os.pread(self._media, end - offset, offset)
            if self._newest:
                out = bytearray(data)
                blk = offset - offset % BLOCK
                while blk < end:
                    if blk in self._newest:
                        lo, hi = max(blk, offset), min(blk + BLOCK, end)
                        out[lo - offset:hi - offset] = self._block(blk)[lo - blk:hi - blk]
                        media -= hi - lo
                    blk += BLOCK
                data = bytes(out)
        if self._read_bps > 0 and media > 0:
            with self._read_lock:
                done = max(time.monotonic(), self._read_end) + media / self._read_bps
                self._read_end = done
            sleep_until(done)
        return data

    def write(self, path, data, offset, fi):
        if path == self._ctl:
            answer = self._command(bytes(data).decode("ascii", "replace").strip())
            self._answers[fi.fh] = json.dumps(answer).encode()
            return len(data)
        n = len(data)
        if offset >= self._size and n:
            raise FuseOSError(errno.ENOSPC)
        end = min(offset + n, self._size)
        if end <= offset:
            return 0
        if self._cap == 0:
            self._write_through(data, offset, end)
            return end - offset
        view = memoryview(data)
        with self._lock:
            self._admit(offset, end)
            epoch = self._epoch
            wid = self._begin(offset, end)
            try:
                blk = offset - offset % BLOCK
                while blk < end:
                    self._wait_room(epoch, blk)
                    lo, hi = max(blk, offset), min(blk + BLOCK, end)
                    if hi - lo == BLOCK:
                        piece = bytes(view[lo - offset:hi - offset])
                    else:
                        b = bytearray(self._block(blk))
                        b[lo - blk:hi - blk] = view[lo - offset:hi - offset]
                        piece = bytes(b)
                    self._insert(blk, piece, time.monotonic())
                    blk += BLOCK
                self._st["accepted_bytes"] += end - offset
                self._st["writes"] += 1
            finally:
                del self._inflight[wid]
        return end - offset

    def _write_through(self, data, offset, end):
        """Stored and answered when the media has written it (cache: 0)."""
        with self._lock:
            self._admit(offset, end)
            epoch = self._epoch
            now = time.monotonic()
            same_stream = self._stream and now - self._last_reply <= WRITE_SLACK
            start = self._next_free if same_stream else max(now, self._next_free)
            done = start + (end - offset) / self._bps
            self._next_free = done
            wid = self._begin(offset, end)
        try:
            sleep_until(done)
            with self._lock:
                self._wait_thawed(epoch)
                os.pwrite(self._media, data[:end - offset], offset)
                self._st["stored_bytes"] += end - offset
                self._st["accepted_bytes"] += end - offset
                self._st["writes"] += 1
                self._last_reply = time.monotonic()
                self._stream = True
        finally:
            with self._lock:
                del self._inflight[wid]

    def fsync(self, path, datasync, fi):
        if path != self._path:
            return 0
        arrived = time.monotonic()
        with self._lock:
            if self._stopping or self._off:
                raise FuseOSError(errno.EIO)
            epoch = self._epoch
            self._st["flushes"] += 1
            self._stream = False
            mark = self._seq
            ready = arrived
            if self._mode == "honest":
                while True:
                    self._check(epoch)
                    if self._frozen:
                        self._room.wait()
                        continue
                    now = time.monotonic()
                    self._commit_due(now)
                    k = self._pending_upto(mark)
                    if k == 0:
                        break
                    self._room.wait(max(self._t_free + k * self._per - now, 0.0))
                ready = max(arrived, self._t_free)
        if self._flush_s:
            sleep_until(ready + self._flush_s)
        with self._lock:
            self._wait_thawed(epoch)
            self._commit_due(time.monotonic())
            if self._pending_upto(mark):
                self._st["flushes_with_data_cached"] += 1
            self._st["flush_ns"] += int((time.monotonic() - arrived) * 1e9)
        return 0

    def truncate(self, path, length, fh=None):
        if path == self._ctl:
            return 0
        if path != self._path:
            raise FuseOSError(errno.ENOENT)
        if length != self._size:
            raise FuseOSError(errno.EPERM)  # the size is the device's, fixed
        return 0

    def flush(self, path, fi):
        return 0

    def release(self, path, fi):
        if path == self._ctl:
            self._answers.pop(fi.fh, None)
        return 0

    def _eperm(self, *args, **kwargs):
        raise FuseOSError(errno.EPERM)

    create = mknod = mkdir = unlink = rmdir = rename = link = symlink = _eperm
    chmod = chown = setxattr = removexattr = _eperm

    def utimens(self, path, times=None):
        return 0


ORPHANED = threading.Event()


def watch_parent(fs, ppid, file_path):
    """When the parent process dies (a killed test): fail whatever waits, detach the loop
    devices over our file, then SIGTERM the main thread, which runs libfuse's loop:
    libfuse's handler ends it and unmounts; main() then removes the mount directory."""
    while os.getppid() == ppid:
        time.sleep(0.5)
    ORPHANED.set()
    fs.stop()
    for dev in loops_over(file_path):
        detach(dev, file_path)
    signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)


def precise_timers():
    """A timer slack of 1 ns for this thread and the threads it starts: a sleep ends
    when asked, not up to 50 us later (the default)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(ctypes.c_int(PR_SET_TIMERSLACK), ctypes.c_ulong(1), ctypes.c_ulong(0),
                   ctypes.c_ulong(0), ctypes.c_ulong(0))
    except (OSError, AttributeError):
        pass


def config(p, text):
    try:
        c = json.loads(text)
    except ValueError as e:
        p.error(f"--config is not JSON: {e}")
    if not isinstance(c, dict):
        p.error("--config must be a JSON object")
    unknown = set(c) - {"name", "size", "cache", "media_bps", "flush", "flush_ms", "read_bps"}
    if unknown:
        p.error(f"unknown config keys: {sorted(unknown)}")
    c.setdefault("name", "disk.img")
    c.setdefault("flush_ms", 0)
    name = c["name"]
    if not isinstance(name, str) or "/" in name or name in ("", ".", "..", CONTROL):
        p.error("bad file name")
    n, k = c.get("size"), c.get("cache")
    if not isinstance(n, int) or n <= 0 or n % BLOCK:
        p.error("size must be a positive multiple of 4096")
    if not isinstance(k, int) or k < 0 or k % BLOCK:
        p.error("cache must be a multiple of 4096 (0: write-through)")
    bps = c.get("media_bps")
    if not isinstance(bps, (int, float)) or not bps > 0:
        p.error("media_bps must be a positive number")
    if c.get("flush") not in MODES:
        p.error(f"flush must be one of {', '.join(MODES)}")
    rb = c.setdefault("read_bps", 0)
    if not isinstance(rb, (int, float)) or rb < 0:
        p.error("read_bps must be a rate in bytes per second (0: reads not paced)")
    ms = c["flush_ms"]
    if not isinstance(ms, (int, float)) or not 0 <= ms <= 60_000:
        p.error("flush_ms must be milliseconds from 0 to 60000")
    return c


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mountpoint")
    p.add_argument("--config", required=True,
                   help="the device, a JSON object (see above); -: read it from stdin")
    a = p.parse_args()
    cfg = config(p, sys.stdin.read() if a.config == "-" else a.config)
    mountpoint = os.path.abspath(a.mountpoint)
    fs = CacheFS(cfg)
    # The media's clock and every paced answer need a CPU when they wake: the highest
    # nice level and a 1 ns timer slack, both inherited by the threads started below
    # (the drain thread, libfuse's workers).
    try:
        os.nice(-20)
    except OSError:
        pass
    precise_timers()
    threading.Thread(target=fs._drain, daemon=True).start()
    threading.Thread(target=watch_parent, args=(fs, os.getppid(), os.path.join(mountpoint, cfg["name"])),
                     daemon=True).start()
    gc.disable()  # nothing here makes reference cycles: no collector pauses mid-stream
    try:
        FUSE(fs, mountpoint, raw_fi=True, foreground=True, big_writes=True,
             max_read=MAX_REQ, max_write=MAX_REQ, fsname="cachefs", subtype="cachefs",
             default_permissions=True)
    finally:
        fs.stop()
    if ORPHANED.is_set():
        try:
            os.rmdir(mountpoint)
        except OSError:
            pass


if __name__ == "__main__":
    main()
