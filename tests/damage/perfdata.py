"""A small, independent reader of perf.data layout for the damage corpus.

It knows only what the mutator needs: where the sections and records are,
which records are AUXTRACE (and where their payloads lie), and, for SAMPLE
records, the attr, time, cpu and tid.  It is written from the kernel's and
perf's documented layout (../shared/reference/perf-data.md), not from
strobe-synth's reader, so that the corpus does not depend on the code under
test.
"""
import struct

MAGIC = b"PERFILE2"
HEADER_SIZE = 104

REC_SAMPLE = 9
REC_ATTR = 64          # pipe mode: an attr with its ids
REC_AUXTRACE = 71
REC_FINISHED_ROUND = 3
REC_COMPRESSED = 81
REC_COMPRESSED2 = 83
FEAT_AUXTRACE = 18

S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU = (
    1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7)
S_STREAM_ID = 1 << 9
S_IDENTIFIER = 1 << 16


class Record:
    __slots__ = ("off", "type", "misc", "size", "payload", "attr", "time",
                 "cpu", "tid")

    def __init__(self, off, rtype, misc, size, payload):
        self.off, self.type, self.misc, self.size = off, rtype, misc, size
        self.payload = payload  # AUXTRACE bytes after the record, else 0
        self.attr = self.time = self.cpu = self.tid = None

    @property
    def end(self):
        return self.off + self.size + self.payload


class Attr:
    """@off: the attr's bytes; @where: the offset a reader names it by (its
    entry in the attr section, or its ATTR record in a pipe)."""
    __slots__ = ("off", "where", "size", "sample_type", "ids")

    def __init__(self, off, where, size, sample_type, ids):
        self.off, self.where, self.size, self.sample_type, self.ids = (
            off, where, size, sample_type, ids)


class PerfData:
    """Layout of one perf.data image (bytes)."""

    def __init__(self, data):
        self.data = data
        if data[:8] != MAGIC:
            raise ValueError("not a perf.data file")
        hsize = struct.unpack_from("<Q", data, 8)[0]
        self.pipe = hsize == 16
        self.attrs = []
        self.records = []
        if self.pipe:
            self.header_size = 16
            self.data_off, self.data_end = 16, len(data)
        else:
            self.header_size = hsize
            (self.attr_size, self.attrs_off, self.attrs_len, self.data_off,
             data_len) = struct.unpack_from("<QQQQQ", data, 16)
            self.data_end = min(self.data_off + data_len, len(data))
            self._file_attrs()
        self._records()

    def _file_attrs(self):
        d = self.data
        for i in range(self.attrs_len // self.attr_size):
            off = self.attrs_off + i * self.attr_size
            size = struct.unpack_from("<I", d, off + 4)[0]
            st = struct.unpack_from("<Q", d, off + 24)[0]
            ids_off, ids_len = struct.unpack_from(
                "<QQ", d, off + self.attr_size - 16)
            ids = [struct.unpack_from("<Q", d, ids_off + 8 * k)[0]
                   for k in range(ids_len // 8)]
            self.attrs.append(Attr(off, off, size, st, ids))

    def _records(self):
        d, off = self.data, self.data_off
        while off + 8 <= self.data_end:
            rtype, misc, size = struct.unpack_from("<IHH", d, off)
            if size < 8 or off + size > self.data_end:
                break
            payload = 0
            if rtype == REC_AUXTRACE and size >= 16:
                payload = struct.unpack_from("<Q", d, off + 8)[0]
                if off + size + payload > self.data_end:
                    break
            rec = Record(off, rtype, misc, size, payload)
            if rtype == REC_ATTR:
                self._pipe_attr(rec)
            self.records.append(rec)
            off += size + payload
        for rec in self.records:
            if rec.type == REC_SAMPLE:
                self._sample(rec)

    def _pipe_attr(self, rec):
        d = self.data
        size = struct.unpack_from("<I", d, rec.off + 8 + 4)[0]
        st = struct.unpack_from("<Q", d, rec.off + 8 + 24)[0]
        ids = [struct.unpack_from("<Q", d, k)[0]
               for k in range(rec.off + 8 + size, rec.off + rec.size, 8)]
        self.attrs.append(Attr(rec.off + 8, rec.off, size, st, ids))

    def _attr_of(self, sid):
        if len(self.attrs) == 1:
            return 0
        for i, a in enumerate(self.attrs):
            if sid in a.ids:
                return i
        return None

    def _sample(self, rec):
        """attr, time, cpu, tid of a sample whose attrs use IDENTIFIER."""
        d, p = self.data, rec.off + 8
        if not self.attrs or not all(a.sample_type & S_IDENTIFIER
                                     for a in self.attrs):
            return
        if rec.size < 16:
            return
        idx = self._attr_of(struct.unpack_from("<Q", d, p)[0])
        if idx is None:
            return
        st, p = self.attrs[idx].sample_type, p + 8
        end = rec.off + rec.size
        fields = [(S_IP, 8, None), (S_TID, 8, "tid"), (S_TIME, 8, "time"),
                  (S_ADDR, 8, None), (S_ID, 8, None), (S_STREAM_ID, 8, None),
                  (S_CPU, 8, "cpu")]
        for bit, n, name in fields:
            if not st & bit:
                continue
            if p + n > end:
                return
            if name == "tid":
                rec.tid = struct.unpack_from("<I", d, p + 4)[0]
            elif name == "time":
                rec.time = struct.unpack_from("<Q", d, p)[0]
            elif name == "cpu":
                rec.cpu = struct.unpack_from("<I", d, p)[0]
            p += n
        rec.attr = idx

    def feature_table(self):
        """(feature bit, file offset of its table entry) for each feature
        the header declares (file mode)."""
        if self.pipe or len(self.data) < HEADER_SIZE:
            return []
        bits = int.from_bytes(self.data[72:104], "little")
        out, tab = [], self.data_end
        for bit in range(256):
            if bits >> bit & 1:
                if tab + 16 > len(self.data):
                    break
                out.append((bit, tab))
                tab += 16
        return out

    def feature_span(self):
        """[start, end) of the feature table and sections (file mode)."""
        if self.pipe:
            return None
        start = self.data_end
        return (start, len(self.data)) if start < len(self.data) else None
