#!/usr/bin/env python3
"""sweep_model.py: the LogGP paper's closed-form model of Sweep3D (002, Sundaram-Stukel &
Vernon, PPoPP'99, Table 2, eqs 5-9) for examples/sweep: the predicted run time of ITERATIONS
iterations on an n x m process grid (n = px, east-west; m = py, north-south).

The text of the paper we have lost its equations; they are reconstructed here from its prose
and doc/sweep.md states each choice. Per message of b bytes, with the LogGP band of b (L, o,
G, and its line L + 2o + (b - 1) G) as models/net_model.c prices it (pnm_loggp_parts):
  eager (b <= rndv):  Total_comm = line(b), Send = o, Receive = o                (eqs 1, 3, 4)
  rendezvous:         Total_comm = line(b) + 2L + 2o, Send = 2L + 3o, Receive = Total - o - L
  W = W_g * mmi * mk * it * jt                                                          (5)
  StartP(1,1) = 0; StartP(i,j) = max(StartP(i-1,j) + W + Total_comm(b_i) + Receive(b_j),
                                     StartP(i,j-1) + W + Send(b_i) + Total_comm(b_j))   (6)
    (a term whose neighbour does not exist is dropped, and so are Receive(b_j) on the north
     edge and Send(b_i) on the east edge: no such message)
  T56 = StartP(1,m) + 2 nb (W + Send(b_i) + Receive(b_j) + S (m-1) L)                  (7)
  T78 = StartP(n-1,m) + 2 nb (W + Send(b_i) + Receive(b_i) + Receive(b_j)
                              + S ((m-1) L + (n-2) L)) + Receive(b_i) + Total_comm(b_i) + W  (8)
  T   = ITERATIONS * 2 (T56 + T78)                                                      (9)
with b_i = jt mk mmi 8 (the i-face, east-west), b_j = it mk mmi 8 (north-south),
nb = (kt / mk)(mo / mmi) blocks per octant, S = 1 when a face is sent by rendezvous (the
paper: the synchronisation terms vanish below its 4 KiB handshake) else 0. Sends and receives
a processor on an edge does not make are left out of its block cost (P(1,m) receives nothing
from the west, P(n-1,m) sends nothing south). With n = 1, T78 is P(1,m)'s own end.

Parameters: --model FILE (a phasor-model file, doc/model-format.md: its LogGP fit, pooled
`all` when it has one, else each price averaged over the sources; L_ns and o_ns from
version 9, else o = 0 and L = L2o_ns, said on stderr), or --L/--o/--G/--rndv in ns and bytes;
W from --block-ns (a block's time, measured) or --wg (ns per point).
Usage: bench/sweep_model.py --model FILE --px N --py N --it N --jt N --kt N --mo N --mmi N
       --mk N [--iterations N] (--wg NS | --block-ns NS) [--no-sync] [--json]
"""
import argparse
import json
import sys


class LogGP:
    """Send, Receive and Total_comm of a message, from one set of bands or several averaged."""

    def __init__(self, sets, note):
        self.sets = sets  # [(bands, rndv, handshake or None)], each band (hi, L2o, G, L, o)
        self.note = note

    @staticmethod
    def _parts(bands, rndv, hs, b):
        k = 0
        while k < len(bands) - 1 and bands[k][0] is not None and b > bands[k][0]:
            k += 1
        _, l2o, G, L, o = bands[k]
        line = l2o + G * max(b - 1, 0)
        if rndv and b > rndv:
            total = max(line + (2 * L + 2 * o if hs is None else hs), 0.0)
            return {"send": 2 * L + 3 * o, "recv": max(total - o - L, 0.0), "total": total,
                    "L": L, "o": o, "rndv": True}
        return {"send": o, "recv": o, "total": max(line, 0.0), "L": L, "o": o, "rndv": False}

    def parts(self, b):
        ps = [self._parts(bands, rndv, hs, b) for bands, rndv, hs in self.sets]
        out = {k: sum(p[k] for p in ps) / len(ps) for k in ("send", "recv", "total", "L", "o")}
        out["rndv"] = any(p["rndv"] for p in ps)
        return out

    @classmethod
    def from_file(cls, path):
        f = json.load(open(path))
        lg = f.get("models", {}).get("loggp")
        if not lg:
            sys.exit(f"sweep_model: {path}: no LogGP model in the file")
        notes = []
        def read(src):
            bands, split = [], src.get("L_o_split")
            for bd in src["bands"]:
                if "L_ns" in bd and "o_ns" in bd:
                    L, o = bd["L_ns"], bd["o_ns"]
                else:
                    L, o = bd["L2o_ns"], 0.0
                    split = "absent"
                bands.append((bd["hi"], bd["L2o_ns"], bd["G_ns_per_byte"], L, o))
            if split in ("absent", "none"):
                notes.append(f"L and o not told apart ({'no L_ns/o_ns' if split == 'absent' else 'L_o_split none'}): o = 0, L = L2o_ns")
            return bands, src.get("rndv", 0), src.get("handshake_ns")
        pooled = lg.get("all") or {}
        if pooled.get("bands"):
            sets, where = [read(pooled)], "the pooled fit (all)"
        else:
            sets = [read(s) for s in lg["sources"] if s.get("bands")]
            where = f"the mean over {len(sets)} sources"
        if not sets:
            sys.exit(f"sweep_model: {path}: the LogGP model has no bands")
        return cls(sets, f"LogGP of {path} (version {f.get('version')}), {where}"
                   + ("; " + notes[0] if notes else ""))

    @classmethod
    def from_args(cls, L, o, G, rndv):
        return cls([([(None, L + 2 * o, G, L, o)], rndv, None)], "LogGP from the command line")


def predict(lg, n, m, it, jt, kt, mo, mmi, mk, iterations, W, sync=True):
    """The closed-form time (ns) and its parts."""
    bi, bj = jt * mk * mmi * 8, it * mk * mmi * 8
    pi, pj = lg.parts(bi), lg.parts(bj)
    S = 1.0 if sync and (pi["rndv"] or pj["rndv"]) else 0.0
    L = max(pi["L"], pj["L"])
    nb = (kt // mk) * (mo // mmi)
    # eq 6, 1-indexed as the paper
    start = {(1, 1): 0.0}
    for j in range(1, m + 1):
        for i in range(1, n + 1):
            if (i, j) == (1, 1):
                continue
            c = []
            if i > 1:
                c.append(start[(i - 1, j)] + W + pi["total"] + (pj["recv"] if j > 1 else 0.0))
            if j > 1:
                c.append(start[(i, j - 1)] + W + (pi["send"] if i < n else 0.0) + pj["total"])
            start[(i, j)] = max(c)
    send_e = pi["send"] if n > 1 else 0.0
    recv_n = pj["recv"] if m > 1 else 0.0
    # eq 7: P(1,m), on the west and south edges, receives from the north, sends east
    t56 = start[(1, m)] + 2 * nb * (W + send_e + recv_n + S * (m - 1) * L)
    # eq 8: P(n-1,m) pipelines every block to P(n,m), which then takes the last one
    if n == 1:
        t78 = t56
    else:
        recv_w = pi["recv"] if n - 1 > 1 else 0.0
        t78 = (start[(n - 1, m)]
               + 2 * nb * (W + pi["send"] + recv_w + recv_n + S * ((m - 1) + max(n - 2, 0)) * L)
               + pi["recv"] + pi["total"] + W)
    return {"predicted_ns": iterations * 2 * (t56 + t78), "T56_ns": t56, "T78_ns": t78,
            "W_ns": W, "blocks_per_octant": nb, "bytes_ew": bi, "bytes_ns": bj,
            "ew": pi, "ns": pj, "sync": S > 0, "startp_1m_ns": start[(1, m)],
            "startp_n1m_ns": start[(n - 1, m)] if n > 1 else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model")
    ap.add_argument("--L", type=float, help="ns (without --model)")
    ap.add_argument("--o", type=float, default=0.0, help="ns")
    ap.add_argument("--G", type=float, default=0.0, help="ns per byte")
    ap.add_argument("--rndv", type=int, default=0, help="eager limit, bytes (0: all eager)")
    for k, d in (("px", None), ("py", None), ("it", 16), ("jt", 16), ("kt", 64), ("mo", 6),
                 ("mmi", 3), ("mk", 8), ("iterations", 1)):
        ap.add_argument("--" + k, type=int, default=d, required=d is None)
    ap.add_argument("--wg", type=float, help="W_g: ns per grid point and angle")
    ap.add_argument("--block-ns", type=float, help="W itself: ns per block (measured)")
    ap.add_argument("--no-sync", action="store_true", help="drop the (m-1)L, (n-2)L terms")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if (a.model is None) == (a.L is None):
        ap.error("give --model FILE or --L (with --o, --G, --rndv)")
    if (a.wg is None) == (a.block_ns is None):
        ap.error("give --wg or --block-ns")
    if a.kt % a.mk or a.mo % a.mmi:
        ap.error("--mk must divide --kt and --mmi --mo")
    lg = LogGP.from_file(a.model) if a.model else LogGP.from_args(a.L, a.o, a.G, a.rndv)
    W = a.block_ns if a.block_ns is not None else a.wg * a.mmi * a.mk * a.it * a.jt
    r = predict(lg, a.px, a.py, a.it, a.jt, a.kt, a.mo, a.mmi, a.mk, a.iterations, W,
                not a.no_sync)
    r["predicted_s"] = r["predicted_ns"] / 1e9
    r["parameters"] = lg.note
    if a.json:
        print(json.dumps(r))
        return
    print(f"# {lg.note}")
    for name, b, p in (("east-west", r["bytes_ew"], r["ew"]), ("north-south", r["bytes_ns"], r["ns"])):
        print(f"{name} face {b} B ({'rendezvous' if p['rndv'] else 'eager'}): L {p['L']:.0f} ns, "
              f"o {p['o']:.0f} ns, Send {p['send']:.0f} ns, Receive {p['recv']:.0f} ns, "
              f"Total_comm {p['total']:.0f} ns")
    print(f"W {W:.0f} ns per block, {r['blocks_per_octant']} blocks per octant; "
          f"T56 {r['T56_ns'] / 1e6:.3f} ms, T78 {r['T78_ns'] / 1e6:.3f} ms"
          f"{'' if r['sync'] else ' (no synchronisation terms: eager)'}")
    print(f"predicted_s {r['predicted_s']:.6f}")


if __name__ == "__main__":
    main()
