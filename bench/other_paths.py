#!/usr/bin/env python3
"""other_paths.py IN OUT OLD NEW: copies the perf.data IN to OUT with OLD
replaced by NEW (the same length) in the file names of the MMAP2 records of
every other process, by order of first appearance (the second, fourth...).

For bench/b_checks.sh: a scaled recording runs the same program again and
again at the same addresses, so the window checks recall the branches of
the process before (their caches stay while the mappings are the same,
plausible.c).  With the same binaries found under another path (NEW a
symbolic link beside OLD under the symfs), every process maps other
objects than the one before it, and each process's branches are checked,
not recalled: the first visit of a new program or of a randomised layout.
Prints the MMAP2 records changed and the processes.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "damage"))
import perfdata  # noqa: E402

REC_MMAP2 = 10


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.split("\n\n")[0])
    src, dst, old, new = sys.argv[1:]
    old, new = old.encode(), new.encode()
    if len(old) != len(new):
        sys.exit("other_paths.py: OLD and NEW differ in length")
    with open(src, "rb") as f:
        data = bytearray(f.read())
    pd = perfdata.PerfData(bytes(data))
    order, changed = {}, 0
    for rec in pd.records:
        if rec.type != REC_MMAP2:
            continue
        pid = struct.unpack_from("<I", data, rec.off + 8)[0]
        k = order.setdefault(pid, len(order))
        if k % 2 == 0:
            continue
        # the file name follows the header, pid, tid, addr, len, pgoff,
        # maj, min, ino, ino_generation (or the build-id), prot and flags
        at = data.find(old, rec.off + 72, rec.off + rec.size)
        if at >= 0:
            data[at:at + len(old)] = new
            changed += 1
    with open(dst, "wb") as f:
        f.write(data)
    print("%d MMAP2 records of %d processes" % (changed, len(order) // 2))


if __name__ == "__main__":
    main()
