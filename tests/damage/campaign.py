#!/usr/bin/env python3
"""The damage campaign: seeded mutants of fixtures and real captures through
`strobe-synth convert`, each compared with the undamaged file's output.

    campaign.py --sy BIN [--shared DIR] [--seed N] [--per-input N]
                [--jobs N] [--timeout S] [--max-fabricated N] [--measure]
                [--convert-opt OPT]...

For every mutant (tests/damage/mutate.py) it checks:

  * no signal death, no hang (--timeout), exit status in {0, 3, 4, 5};
  * an error line naming the file and the damaged record's offset where the
    mutator says one is due (duplicated or moved samples), and exactly one
    line per such record, not a line per sample;
  * record-level damage (dup, shuffle) gives no sample the undamaged file
    does not give (callchain and branch stack compared whole);
  * it counts the samples of the output whose branch stack holds a branch
    (from, to) the undamaged file never has: a fabricated sample.  Their
    total must stay at or below --max-fabricated.

--convert-opt adds an option to every mutant's convert (not to the
undamaged file's, whose branches are the program's): `--convert-opt
--drop-suspect` measures what that option leaves.

--measure also converts every mutant with `--keep ok,implausible` and lists
`windows --json`, and prints, per kind, how many fabricated samples the
plausibility checks caught and which check caught them.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402

EXITS = {0, 3, 4, 5}
GEN = "tests/fixtures/generated"

# (name, path under the project or under SHARED, convert options)
INPUTS = [
    ("etm4-etr-basic", GEN + "/etm4-etr-basic.data", ["--symfs", "."]),
    ("etm4-etr-samples", GEN + "/etm4-etr-samples.data", ["--symfs", "."]),
    ("etm4-etr-smp", GEN + "/etm4-etr-smp.data", ["--symfs", "."]),
    ("etm4-etr-pipe-zstd", GEN + "/etm4-etr-pipe-zstd.data",
     ["--symfs", "."]),
    ("ete-trbe-basic", GEN + "/ete-trbe-basic.data", ["--symfs", "."]),
    ("ete-trbe-smp", GEN + "/ete-trbe-smp.data", ["--symfs", "."]),
    ("pt-basic", GEN + "/pt-basic.data", ["--symfs", "."]),
    ("pt-samples", GEN + "/pt-samples.data", ["--symfs", "."]),
    ("pt-thread", GEN + "/pt-thread.data", ["--symfs", "."]),
    ("sp-etm", "@/fixtures/real/simpleperf-etm/orig/perf_etm.data",
     ["--format", "lbr", "--symfs",
      "@/fixtures/real/simpleperf-etm/symfs"]),
    ("sp-trbe",
     "@/fixtures/real/simpleperf-etm/orig/perf_with_unformatted_trace.data",
     ["--format", "lbr", "--symfs",
      "@/fixtures/real/simpleperf-etm/symfs"]),
    ("quipper-pt", "@/fixtures/real/quipper-intel-pt/perf.data.intel_pt-4.14",
     ["--format", "lbr"]),
]


def parse_samples(text):
    """perf-script hybrid or branch-only samples: a list of (frames,
    branches), branches a tuple of (from, to)."""
    out, frames = [], []
    for line in text.splitlines():
        if line.startswith("PERF_RECORD_") or not line.strip():
            continue
        if line.startswith(" 0x"):
            out.append((tuple(frames), _branches(line)))
            frames = []
        elif line.startswith("\t"):
            frames.append(line.strip())
        else:  # branch-only: "IP 0xF/0xT ..."
            ip, _, rest = line.strip().partition(" ")
            out.append(((ip,), _branches(rest)))
    return out


def _branches(line):
    return tuple(tuple(e.split("/")[:2]) for e in line.split())


def run(argv, timeout):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


class Input:
    def __init__(self, name, path, opts, sy, timeout):
        self.name, self.path, self.opts = name, path, opts
        rc, out, err = run([sy, "convert", "-q", "-j", "2"] + opts +
                           ["-o", "-", path], timeout)
        if rc not in (0, 5):
            raise RuntimeError("%s: undamaged file exits %s: %s" %
                               (name, rc, err))
        self.samples = set(parse_samples(out))
        self.pairs = {b for _, br in self.samples for b in br}


def check_mutant(sy, inp, mpath, kind, report, timeout, measure, extra=()):
    """Returns a dict of findings for one mutant."""
    res = {"kind": kind, "input": inp.name, "file": mpath, "errors": [],
           "fabricated": 0, "new_samples": 0}
    argv = [sy, "convert", "-q", "-j", "2"] + list(extra) + inp.opts + [
        "-o", "-", mpath]
    rc, out, err = run(argv, timeout)
    res["rc"] = rc
    if rc is None:
        res["errors"].append("hang: no exit within %d s" % timeout)
        return res
    if rc < 0:
        res["errors"].append("killed by signal %s" % signal.Signals(-rc).name)
        return res
    if rc not in EXITS:
        res["errors"].append("exit %d not in %s" % (rc, sorted(EXITS)))
    lines = [ln for ln in err.splitlines() if ln]
    if report is not None:
        pat = re.compile(r"%s: offset (%d|%#x):" % (
            re.escape(mpath), report, report))
        hits = [ln for ln in lines if pat.search(ln)]
        if len(hits) != 1:
            res["errors"].append(
                "%d error lines name offset %d (want one):\n    %s" % (
                    len(hits), report, "\n    ".join(lines[:6])))
    samples = parse_samples(out) if rc in (0, 4) else []
    res["fabricated"] = sum(1 for _, br in samples
                            if any(b not in inp.pairs for b in br))
    res["new_samples"] = sum(1 for s in samples if s not in inp.samples)
    if kind in mutate.RECORD_LEVEL and res["new_samples"]:
        res["errors"].append("%d samples the undamaged file does not give"
                             % res["new_samples"])
    if measure:
        _measure(sy, inp, mpath, timeout, res)
    return res


def _measure(sy, inp, mpath, timeout, res):
    """Fabricated samples with the implausible windows kept, and the
    reasons the windows list gives them."""
    rc, out, _ = run([sy, "convert", "-q", "-j", "2", "--keep",
                      "ok,implausible"] + inp.opts + ["-o", "-", mpath],
                     timeout)
    samples = parse_samples(out) if rc in (0, 4) else []
    res["fabricated_all"] = sum(1 for _, br in samples
                                if any(b not in inp.pairs for b in br))
    # convert --format lbr keeps every branch of a window: so must the list
    opts = ["--depth", "all" if "lbr" in inp.opts else "64"] + [
        o for o in inp.opts if o not in ("--format", "lbr")]
    rc, out, _ = run([sy, "windows", "--json", "-j", "2"] + opts + [mpath],
                     timeout)
    res["checks"] = []
    try:
        for w in json.loads(out)["windows_list"]:
            if w.get("status") == "implausible":
                res["checks"].append(w.get("reason", "").split(":")[0])
    except (ValueError, KeyError, TypeError):
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sy", required=True)
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--per-input", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--max-fabricated", type=int, default=-1)
    ap.add_argument("--kinds", default=",".join(mutate.KINDS))
    ap.add_argument("--measure", action="store_true")
    ap.add_argument("--convert-opt", action="append", default=[])
    ap.add_argument("--require-shared", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()

    inputs, missing = [], []
    for name, path, opts in INPUTS:
        path = path.replace("@", a.shared)
        opts = [o.replace("@", a.shared) for o in opts]
        if not os.path.exists(path):
            missing.append(path)
            continue
        inputs.append(Input(name, path, opts, a.sy, a.timeout))
    if missing:
        print("not found (left out): %s" % " ".join(missing))
        if a.require_shared:
            print("FAIL: inputs missing")
            return 1

    tmp = tempfile.mkdtemp(prefix="sy-damage-")
    try:
        results = _campaign(a, inputs, tmp)
    finally:
        shutil.rmtree(tmp)
    return _report(a, results)


def _campaign(a, inputs, tmp):
    jobs = []
    kinds = a.kinds.split(",")
    for k, inp in enumerate(inputs):
        with open(inp.path, "rb") as f:
            data = f.read()
        for n, (kind, blob, off, report, detail) in enumerate(
                mutate.mutants(data, a.seed * 1000 + k, a.per_input, kinds)):
            mpath = os.path.join(tmp, "%s-%03d.data" % (inp.name, n))
            with open(mpath, "wb") as f:
                f.write(blob)
            jobs.append((inp, mpath, kind, report, off, detail))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = [ex.submit(check_mutant, a.sy, inp, mpath, kind, report,
                          a.timeout, a.measure, a.convert_opt)
                for inp, mpath, kind, report, _, _ in jobs]
        results = [f.result() for f in futs]
    for r, (_, _, _, _, off, detail) in zip(results, jobs):
        r["offset"], r["detail"] = off, detail
    return results


def _report(a, results):
    by_kind = collections.OrderedDict((k, collections.Counter())
                                      for k in mutate.KINDS)
    checks = collections.Counter()
    failures = []
    for r in results:
        c = by_kind[r["kind"]]
        c["mutants"] += 1
        c["exit %s" % r["rc"]] += 1
        c["fabricated"] += r["fabricated"]
        c["fab_mutants"] += r["fabricated"] > 0
        if a.measure:
            c["fabricated_all"] += r.get("fabricated_all", 0)
            c["fab_all_mutants"] += r.get("fabricated_all", 0) > 0
            c["implausible"] += len(r.get("checks", []))
            for chk in set(r.get("checks", [])):
                checks[(r["kind"], chk)] += 1
        for e in r["errors"]:
            failures.append("%s (%s at %d, %s): %s" % (
                os.path.basename(r["file"]), r["kind"], r["offset"],
                r["detail"], e))
        if a.verbose and (r["fabricated"] or r.get("fabricated_all")):
            print("  %s %s at %d (%s): fabricated %d, with implausible %s, "
                  "checks %s" % (os.path.basename(r["file"]), r["kind"],
                                 r["offset"], r["detail"], r["fabricated"],
                                 r.get("fabricated_all", "-"),
                                 r.get("checks", "-")))
    total = sum(r["fabricated"] for r in results)
    print("%d mutants of %d inputs" % (
        len(results), len({r["input"] for r in results})))
    for kind, c in by_kind.items():
        if not c["mutants"]:
            continue
        exits = " ".join("%s:%d" % (k[5:], v) for k, v in sorted(c.items())
                         if k.startswith("exit "))
        line = "  %-13s %4d mutants  exits %-22s fabricated samples %d " \
               "(in %d mutants)" % (kind, c["mutants"], exits,
                                    c["fabricated"], c["fab_mutants"])
        if a.measure:
            line += "; without the checks %d (in %d mutants), %d windows " \
                    "implausible" % (c["fabricated_all"],
                                     c["fab_all_mutants"], c["implausible"])
        print(line)
    if a.measure:
        for (kind, chk), n in sorted(checks.items()):
            print("  check %-40s %-13s caught windows in %d mutants" %
                  (chk, kind, n))
    print("fabricated samples in total: %d" % total)
    if 0 <= a.max_fabricated < total:
        failures.append("%d fabricated samples, more than the %d measured" %
                        (total, a.max_fabricated))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
