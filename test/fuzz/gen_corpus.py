#!/usr/bin/env python3
"""Write the seed corpus of the fuzz targets (test/fuzz/corpus/<target>/): valid messages of
every type and a few edge cases. Run from anywhere; the files are committed, so the fuzzers
need no Python. Layouts: transport-ib/vbt_ib_int.h, runtime/vbt_p2p.h, launcher/vbt_opts.c,
test/fuzz/fuzz_*.c (host byte order, little-endian here). The other files of the corpus, named
by their SHA-1, are inputs the fuzzers found that add coverage, kept with
`./fuzz_<target> -merge=1 test/fuzz/corpus/<target> <grown corpus>`."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- ib transport header: version, type, credits, src ----
def ibh(version=1, type_=1, credits=0, src=0):
    return struct.pack("<BBHI", version, type_, credits, src)


write("ib_hdr", "data", ibh(type_=1, credits=3, src=2) + b"payload")
write("ib_hdr", "credit", ibh(type_=2, credits=32, src=1))
write("ib_hdr", "fin", ibh(type_=3, src=15))
write("ib_hdr", "bad_version", ibh(version=2) + b"x")
write("ib_hdr", "bad_src", ibh(src=16) + b"x")
write("ib_hdr", "bad_credits", ibh(type_=2, credits=65))
write("ib_hdr", "data_empty", ibh())
write("ib_hdr", "short", b"\x01\x01\x00")
# Credit sequences (odd bytes: we send; even: the peer returns byte >> 1 credits).
write("ib_hdr", "credits_honest", bytes([1, 1, 1, 4, 1, 2, 1, 1, 6]))
write("ib_hdr", "credits_over", bytes([1, 1, 4, 4]))


# ---- CM REQ/REP: first byte = flags (bit 0: our use_grh; bit 1: a published address follows);
# then version, type, mtu, use_grh, lid, rd_atomic, reserved, src, qpn, psn, eager_limit, gid ----
def cm(use_grh=1, type_=1, mtu=3, lid=0, src=0, qpn=0x11, psn=0x123, eager=8192, version=2,
       rd_atomic=16, flags=None, gid=bytes(range(16))):
    return bytes([use_grh if flags is None else flags]) + struct.pack(
        "<BBBBHBBIIII", version, type_, mtu, use_grh, lid, rd_atomic, 0, src, qpn, psn,
        eager) + gid


write("ib_cm", "req_grh", cm())
write("ib_cm", "rep_grh", cm(type_=2, src=7))
write("ib_cm", "req_lid", cm(use_grh=0, lid=5))
write("ib_cm", "bad_lid", cm(use_grh=0, lid=0xc000))
write("ib_cm", "bad_qpn", cm(qpn=0x1000000))
write("ib_cm", "bad_rd_atomic", cm(rd_atomic=0))
write("ib_cm", "old_version", cm(version=1))
write("ib_cm", "self", cm(src=1))
write("ib_cm", "short", cm()[:20])


# The published address: version, link_layer, active_mtu, use_grh, lid, reserved, eager_limit,
# ud_qpn, gid.
def addr(use_grh=1, mtu=3, lid=0, ud_qpn=0x22, eager=8192, version=2, link_layer=2,
         gid=bytes(range(16))):
    return struct.pack("<BBBBHHII", version, link_layer, mtu, use_grh, lid, 0, eager,
                       ud_qpn) + gid


# flags | 2, the message, the UD QP it came from, its source LID and whether known, the blob.
def cm_from(msg_kw, src_qpn=0x22, slid=0, have_slid=0, blob=None):
    m = cm(**msg_kw)
    flags = m[0] | 2
    return bytes([flags]) + m[1:] + struct.pack("<IHB", src_qpn, slid, have_slid) + (
        addr() if blob is None else blob)


write("ib_cm", "from_published", cm_from({}))
write("ib_cm", "from_other_qp", cm_from({}, src_qpn=0x23))
write("ib_cm", "from_other_gid", cm_from({"gid": bytes(16)}))
write("ib_cm", "from_other_mtu", cm_from({"mtu": 5}))
write("ib_cm", "from_lid", cm_from({"use_grh": 0, "lid": 5}, slid=5, have_slid=1,
                                   blob=addr(use_grh=0, lid=5, link_layer=1)))
write("ib_cm", "from_other_port", cm_from({"use_grh": 0, "lid": 5}, slid=6, have_slid=1,
                                          blob=addr(use_grh=0, lid=5, link_layer=1)))
write("ib_cm", "blob_short", cm_from({}, blob=addr()[:30]))
write("ib_cm", "blob_bad_qpn", cm_from({}, blob=addr(ud_qpn=0)))


# ---- p2p: version, type, flags, context_id, src, tag, len, id ----
def p2p(type_, len_=0, id_=0, flags=0, ctx=4, src=1, tag=7, version=5):
    return struct.pack("<BBHIiiQQ", version, type_, flags, ctx, src, tag, len_, id_)


# Request ids of the target's live requests: slot 2k+1 (the even slots are released), gen 1.
def rid(k):
    return (1 << 32) | (2 * k + 1)


write("p2p", "eager", p2p(1, 5) + b"hello")
write("p2p", "eager_sync", p2p(1, 3, rid(0)) + b"abc")
write("p2p", "frag_first", p2p(2, 100) + b"x" * 40)
write("p2p", "frag", p2p(3) + b"y" * 60)
write("p2p", "ack", p2p(4, 0, rid(3)))
write("p2p", "rts", p2p(5, 1 << 20, rid(5), flags=1) + struct.pack("<Q", 0x7f0000001000))
write("p2p", "cts", p2p(6, 4096, rid(7), flags=4) + struct.pack("<QQQ", rid(8), 0x7f0000002000,
                                                                  0x1234))
write("p2p", "fin", p2p(7, 0, rid(9)))
write("p2p", "rdata", p2p(8, 8192, rid(10)) + b"z" * 32)
write("p2p", "done", p2p(9, 0, rid(140)))
write("p2p", "ack_released", p2p(4, 0, (1 << 32) | 2))
write("p2p", "ack_pointer", p2p(4, 0, 0x00007ffd12345678))
write("p2p", "cts_short", p2p(6, 4096, rid(7)) + b"\0" * 10)
write("p2p", "eager_len", p2p(1, 1 << 63) + b"x")
write("p2p", "bad_type", p2p(10))
write("p2p", "runt", p2p(1)[:20])


# ---- shm cells: first byte = start position; per cell: seq, len, up to 48 data bytes ----
def cell(seq, data, len_=None):
    d = data[:48]
    return struct.pack("<II", seq, len(data) if len_ is None else len_) + d + b"\0" * (48 - len(d))


m = p2p(1, 5) + b"hello"
write("shm_cell", "two", b"\0" + cell(1, m) + cell(2, p2p(4, 0, rid(1))))
write("shm_cell", "full", b"\0" + b"".join(cell(i + 1, m) for i in range(4)))
write("shm_cell", "corrupt_len", b"\0" + cell(1, m, 8193))
write("shm_cell", "big_len", b"\0" + cell(1, m, 8192))
write("shm_cell", "wrap", b"\x80" + cell(0xfffffffd, m) + cell(0xfffffffe, m) +
      cell(0xffffffff, m) + cell(0, m))
write("shm_cell", "stale", b"\0" + cell(0xfffffffd, m))

# ---- mpirun arguments, NUL-separated ----
def args(*a):
    return b"\0".join(x.encode() for x in a)


write("opts", "np", args("-np", "4", "./a.out", "x"))
write("opts", "mpmd", args("-n", "2", "a", ":", "-n", "3", "b", "-v"))
write("opts", "bind", args("--bind-to", "core", "--map-by", "ppr:2:node", "--report-bindings",
                           "prog"))
write("opts", "env", args("-x", "FOO=bar", "-genv", "A", "1", "--env", "B=2", "prog"))
write("opts", "hosts", args("--host", "a,b:2", "-H", "c", "--hostfile", "/dev/null",
                            "--oversubscribe", "p"))
write("opts", "misc", args("--timeout=30", "--tag-output", "-wdir", "/tmp", "--launcher",
                           "local", "--mca", "x", "y", "-N", "2", "p"))
write("opts", "bad", args("--bind-too", "core", "p"))
write("opts", "colon", args("-n", "1", "a", ":"))
write("opts", "help", args("--help"))
