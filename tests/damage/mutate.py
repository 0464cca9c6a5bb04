#!/usr/bin/env python3
"""Seeded damage for perf.data files: the corpus of the damage campaign.

    mutate.py [--seed N] [--count N] [--kinds k1,k2] INPUT OUTDIR

writes OUTDIR/<stem>-NNN.data and one line per mutant to OUTDIR/manifest.tsv:

    file  kind  offset  report  detail

`offset` is the byte that was damaged (or where a record was put), `report`
the file offset of the record a reader must name (a duplicated or moved
record that breaks the per-CPU time order), or "-" when the damage cannot
be told from good data by the file alone (a flipped trace bit, a changed
field).  Kinds:

  payload-flip   one bit of an AUXTRACE payload (the hardware trace)
  payload-byte   one byte of an AUXTRACE payload set to another value
  rec-header     one byte of a record header (type, misc, size)
  rec-body       one byte of a record body (not a payload)
  attr           one byte of an attr, or unknown sample_type bits set
  feature        one byte of the feature table or sections
  file-header    one byte of the file header
  truncate       the file cut at a random offset
  dup            a sample record copied: right after itself, or later
  shuffle        a sample record moved before an earlier one of its CPU

Same seed, same input: same corpus (random.Random is seeded per input).
"""
import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata  # noqa: E402

KINDS = ("payload-flip", "payload-byte", "rec-header", "rec-body", "attr",
         "feature", "file-header", "truncate", "dup", "shuffle")
RECORD_LEVEL = ("dup", "shuffle")


def _payloads(pd):
    return [(r.off + r.size, r.payload) for r in pd.records
            if r.type == perfdata.REC_AUXTRACE and r.payload]


def _other(rng, old):
    v = rng.randrange(255)
    return v + 1 if v >= old else v


def _set_byte(data, off, val):
    out = bytearray(data)
    out[off] = val
    return bytes(out)


def _insert(pd, at, blob):
    """@blob inserted at @at (a record boundary in the data section), the
    way perf would have written it: in file mode the header's data size,
    the feature table's section offsets and the AUXTRACE index's record
    offsets follow."""
    d = pd.data
    out = bytearray(d[:at] + blob + d[at:])
    if pd.pipe:
        return bytes(out)
    n = len(blob)
    size = struct.unpack_from("<Q", out, 48)[0]
    struct.pack_into("<Q", out, 48, size + n)
    for bit, tab in pd.feature_table():
        off, size = struct.unpack_from("<QQ", out, tab + n)
        struct.pack_into("<Q", out, tab + n, off + n)
        if bit == perfdata.FEAT_AUXTRACE:
            _shift_index(out, off + n, size, at, n)
    return bytes(out)


def _shift_index(out, off, size, at, n):
    """perf's AUXTRACE index: u64 count, then (file offset, size) pairs."""
    if size < 8 or off + size > len(out):
        return
    nr = struct.unpack_from("<Q", out, off)[0]
    if 8 + 16 * nr != size:
        return  # simpleperf's layout, or damaged: left as it is
    for k in range(nr):
        p = off + 8 + 16 * k
        v = struct.unpack_from("<Q", out, p)[0]
        if v >= at:
            struct.pack_into("<Q", out, p, v + n)


def payload_flip(rng, pd):
    spans = _payloads(pd)
    if not spans:
        return None
    start, n = rng.choice(spans)
    off, bit = start + rng.randrange(n), rng.randrange(8)
    return (_set_byte(pd.data, off, pd.data[off] ^ (1 << bit)), off, None,
            "bit %d" % bit)


def payload_byte(rng, pd):
    spans = _payloads(pd)
    if not spans:
        return None
    start, n = rng.choice(spans)
    off = start + rng.randrange(n)
    val = _other(rng, pd.data[off])
    return _set_byte(pd.data, off, val), off, None, "byte %#x" % val


def rec_header(rng, pd):
    rec = rng.choice(pd.records)
    off = rec.off + rng.randrange(8)
    val = _other(rng, pd.data[off])
    return _set_byte(pd.data, off, val), off, None, "record at %#x" % rec.off


def rec_body(rng, pd):
    recs = [r for r in pd.records if r.size > 8]
    rec = rng.choice(recs)
    off = rec.off + 8 + rng.randrange(rec.size - 8)
    val = _other(rng, pd.data[off])
    return _set_byte(pd.data, off, val), off, None, "record at %#x" % rec.off


def attr(rng, pd):
    if not pd.attrs:
        return None
    a = rng.choice(pd.attrs)
    if rng.random() < 0.5:
        # sample_type bits no kernel defines (bit 40 and up)
        off = a.off + 24 + 5 + rng.randrange(3)
        val = pd.data[off] | (1 << rng.randrange(8))
        if val == pd.data[off]:
            val ^= 0x80
        return (_set_byte(pd.data, off, val), off, a.where,
                "unknown sample_type bits")
    off = a.off + rng.randrange(a.size)
    val = _other(rng, pd.data[off])
    return _set_byte(pd.data, off, val), off, None, "attr at %#x" % a.off


def feature(rng, pd):
    span = pd.feature_span()
    if not span:
        return None
    off = rng.randrange(*span)
    val = _other(rng, pd.data[off])
    return _set_byte(pd.data, off, val), off, None, "feature area"


def file_header(rng, pd):
    off = rng.randrange(pd.header_size)
    val = _other(rng, pd.data[off])
    return _set_byte(pd.data, off, val), off, None, "header"


def truncate(rng, pd):
    off = rng.randrange(pd.header_size, len(pd.data))
    return pd.data[:off], off, None, "cut"


def _timed_samples(pd):
    return [i for i, r in enumerate(pd.records)
            if r.type == perfdata.REC_SAMPLE and r.time is not None and
            r.cpu is not None]


def dup(rng, pd):
    idx = _timed_samples(pd)
    if not idx:
        return None
    i = rng.choice(idx)
    rec = pd.records[i]
    blob = pd.data[rec.off:rec.end]
    # right after itself, or after a later sample of its CPU that is
    # newer (then the copy is out of time order there)
    later = [j for j in idx[idx.index(i) + 1:]
             if pd.records[j].cpu == rec.cpu and
             pd.records[j].time > rec.time]
    j = rng.choice(later) if later and rng.random() < 0.5 else i
    at = pd.records[j].end
    return (_insert(pd, at, blob), at, at,
            "copy of the sample at %#x" % rec.off)


def shuffle(rng, pd):
    """A sample moved before an earlier, older sample of its CPU: the
    record it jumped over is then out of time order."""
    idx = _timed_samples(pd)
    pairs = []
    for k, i in enumerate(idx):
        ri = pd.records[i]
        for j in idx[k + 1:k + 8]:
            rj = pd.records[j]
            if rj.cpu == ri.cpu and rj.time > ri.time:
                pairs.append((i, j))
                break
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    ri, rj = pd.records[i], pd.records[j]
    d = pd.data
    moved = d[rj.off:rj.end]
    out = d[:ri.off] + moved + d[ri.off:rj.off] + d[rj.end:]
    # the first record of the CPU older than the moved one is now out of
    # order: it is the one jumped over, now len(moved) bytes later
    return out, ri.off, ri.off + len(moved), "sample at %#x moved to %#x" % (
        rj.off, ri.off)


MUTATORS = {
    "payload-flip": payload_flip, "payload-byte": payload_byte,
    "rec-header": rec_header, "rec-body": rec_body, "attr": attr,
    "feature": feature, "file-header": file_header, "truncate": truncate,
    "dup": dup, "shuffle": shuffle,
}


def mutants(data, seed, count, kinds):
    """Yields (kind, bytes, offset, report, detail), @count of them, the
    kinds taken in turn (a kind the input cannot have is skipped)."""
    pd = perfdata.PerfData(data)
    rng = random.Random(seed)
    usable = [k for k in kinds if MUTATORS[k](random.Random(0), pd)]
    n = 0
    while usable and n < count:
        kind = usable[n % len(usable)]
        out = MUTATORS[kind](rng, pd)
        if out is None or out[0] == data:
            continue
        blob, off, report, detail = out
        yield kind, blob, off, report, detail
        n += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("input")
    ap.add_argument("outdir")
    a = ap.parse_args()
    kinds = a.kinds.split(",")
    for k in kinds:
        if k not in MUTATORS:
            ap.error("unknown kind %s" % k)
    with open(a.input, "rb") as f:
        data = f.read()
    os.makedirs(a.outdir, exist_ok=True)
    stem = os.path.basename(a.input).rsplit(".", 1)[0]
    with open(os.path.join(a.outdir, "manifest.tsv"), "a") as man:
        for n, (kind, blob, off, report, detail) in enumerate(
                mutants(data, a.seed, a.count, kinds)):
            name = "%s-%03d.data" % (stem, n)
            with open(os.path.join(a.outdir, name), "wb") as f:
                f.write(blob)
            man.write("%s\t%s\t%d\t%s\t%s\n" % (
                name, kind, off, "-" if report is None else report, detail))


if __name__ == "__main__":
    main()
