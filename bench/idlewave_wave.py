#!/usr/bin/env python3
"""idlewave_wave.py: the idle wave and the phases of an idlewave run, from `phasor dump --csv`.

Iterations are the intervals between a rank's MPI_Pcontrol markers (examples/idlewave marks the
start of every iteration and the end of the last). Per rank and iteration: the duration, the
time in MPI_Waitall/Wait* (`wait`), and the time outside MPI (`compute`).

- Source of the idle wave: the (rank, iteration) whose compute time exceeds the rank's median
  the most; its excess E.
- A rank is reached at its first iteration k >= the source's whose wait exceeds the rank's
  median wait by more than FRAC * E (default 0.5), and by more than 5 median absolute
  deviations. Distances: |i - source| on an open chain; on a periodic one, up (i - source mod P)
  or down (source - i mod P), whichever is shorter (unidirectional: always up).
- Speed: ranks per iteration = 1 / slope of the least-squares line of arrival iteration over
  distance, per side (up: ranks above the source, down: below). The wave's amplitude at a
  reached rank: its wait excess in the arrival iteration.
- Phases: theta_i(t) = 2 pi (k + (t - t_ik) / (t_ik+1 - t_ik)) between markers, on a grid of a
  quarter of the median period over the interval every rank covers; R = |mean exp(i theta)|;
  the phase gradient as the mean |theta_j - theta_i| over the pairs that exchange messages
  (T_ij from the logged receives), in iterations (units of 2 pi).
- Resynchronisation: the time from the source iteration's start until R, having dropped below
  R* (default 0.95) after it, is back at or above R*, in seconds and median iterations (0 when
  R never drops); R_min_after_resync shows how deep later dips (noise) go.

Usage:
  idlewave_wave.py DUMP.csv [--frac F] [--rstar R] [--direction ..] [--boundary ..]
        [--delay-rank R --delay-iter K]
                                            prints one JSON object; with the delay's rank
                                            and iteration, the wave's source is that
  idlewave_wave.py DUMP.csv --check --direction bi|uni --boundary open|periodic --distance D
        --delay-rank R --delay-iter K --delay-us US      checks the wave against the run's
                                                         settings; prints what is wrong
Exit status: 0 fine, 1 a check failed or the dump has no usable markers, 2 bad usage.
Python 3 standard library only.
"""
import argparse
import cmath
import csv
import json
import math
import statistics
import sys

WAITS = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome"}


def load(path):
    """Per rank: the marker times and per-iteration duration, wait and compute; the receives."""
    ev, recv_from = {}, {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            r = int(row["rank"])
            ev.setdefault(r, []).append((row["call"], int(row["start_ns"]), int(row["end_ns"])))
            if row["call"] in ("MPI_Irecv", "MPI_Recv") and int(row["peer"]) >= 0:
                recv_from.setdefault(r, set()).add(int(row["peer"]))
    ranks = {}
    for r, evs in ev.items():
        evs.sort(key=lambda e: e[1])
        marks = [s for c, s, _ in evs if c == "MPI_Pcontrol"]
        if len(marks) < 2:
            continue
        n = len(marks) - 1
        dur = [marks[k + 1] - marks[k] for k in range(n)]
        wait, mpi = [0] * n, [0] * n
        k = 0
        for c, s, e in evs:
            if c == "MPI_Pcontrol" or s < marks[0] or s >= marks[-1]:
                continue
            while k + 1 < n and s >= marks[k + 1]:
                k += 1
            mpi[k] += e - s
            if c in WAITS:
                wait[k] += e - s
        ranks[r] = {"marks": marks, "dur": dur, "wait": wait,
                    "compute": [d - m for d, m in zip(dur, mpi)]}
    return ranks, recv_from


def mad(v):
    m = statistics.median(v)
    return statistics.median([abs(x - m) for x in v])


def slope(xs, ys):
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def distance(i, src, p, periodic, uni):
    """(side, distance) of rank i from the source."""
    if not periodic:
        return ("up" if i > src else "down"), abs(i - src)
    up, down = (i - src) % p, (src - i) % p
    if uni or up <= down:
        return "up", up
    return "down", down


def wave(ranks, frac, periodic=False, uni=False, known=None):
    """The idle wave; known = (rank, iteration) of the delay, else the largest excess."""
    p = max(ranks) + 1
    src, ks, exc = None, None, 0
    for r, d in ranks.items():
        med = statistics.median(d["compute"])
        for k, c in enumerate(d["compute"]):
            if (known is None and c - med > exc) or (r, k) == known:
                src, ks, exc = r, k, c - med
    out = {"source": src, "source_iteration": ks, "source_excess_ns": exc, "reached": {},
           "amplitude_ns": {}}
    if src is None:
        return out
    for r, d in ranks.items():
        if r == src:
            continue
        med, dev = statistics.median(d["wait"]), mad(d["wait"])
        thr = max(frac * exc, 5 * dev)
        ex = [w - med for w in d["wait"]]
        hit = next((k for k in range(ks, len(ex)) if ex[k] > thr), None)
        if hit is not None:
            out["reached"][r] = hit
            out["amplitude_ns"][r] = ex[hit]
    speeds = {}
    for side in ("up", "down"):
        pts = [(distance(r, src, p, periodic, uni)[1], k) for r, k in out["reached"].items()
               if distance(r, src, p, periodic, uni)[0] == side]
        s = slope([x for x, _ in pts], [y for _, y in pts])
        speeds[side] = 1 / s if s and s > 0 else None
        out["reached_" + side] = len(pts)
    out["ranks_per_iteration"] = speeds
    return out


def phases(ranks, recv_from, rstar, src_start):
    """R on a grid, the resynchronisation time after src_start, the phase gradient."""
    t0 = max(d["marks"][0] for d in ranks.values())
    t1 = min(d["marks"][-1] for d in ranks.values())
    period = statistics.median(statistics.median(d["dur"]) for d in ranks.values())
    if t1 <= t0 or period <= 0:
        return None
    dt = period / 4
    grid = [t0 + i * dt for i in range(int((t1 - t0) / dt) + 1)]
    theta = {}
    for r, d in ranks.items():
        m, th, k = d["marks"], [], 0
        for t in grid:
            while k + 2 < len(m) and t >= m[k + 1]:
                k += 1
            th.append(2 * math.pi * (k + (t - m[k]) / (m[k + 1] - m[k])))
        theta[r] = th
    R = [abs(sum(cmath.exp(1j * theta[r][g]) for r in theta)) / len(theta)
         for g in range(len(grid))]
    edges = [(i, j) for i, js in recv_from.items() for j in js if i in theta and j in theta]
    grad = [statistics.mean(abs(theta[j][g] - theta[i][g]) for i, j in edges) / (2 * math.pi)
            if edges else 0.0 for g in range(len(grid))]
    res = {"grid_points": len(grid), "median_period_ns": period, "R_min": min(R),
           "R_final": R[-1], "R_mean_last_quarter": statistics.mean(R[3 * len(R) // 4:]),
           "gradient_mean_last_quarter": statistics.mean(grad[3 * len(grad) // 4:]),
           "gradient_max": max(grad), "resync_s": None, "resync_iterations": None,
           "R_before": None, "R_min_after_resync": None}
    if src_start is not None:
        before = [x for t, x in zip(grid, R) if t < src_start]
        res["R_before"] = statistics.median(before) if before else None
        # the delay's excursion: the first drop below R* from the delay on, and the first
        # return to R* after it (as `phasor phases` ends an excursion)
        after = [g for g, t in enumerate(grid) if t >= src_start]
        low = next((g for g in after if R[g] < rstar), None)
        if low is None:
            res["resync_s"] = 0.0
        else:
            up = next((g for g in range(low, len(grid)) if R[g] >= rstar), None)
            if up is not None:
                res["resync_s"] = (grid[up] - src_start) / 1e9
                res["R_min_after_resync"] = min(R[up:])
        if res["resync_s"] is not None:
            res["resync_iterations"] = res["resync_s"] * 1e9 / period
    return res


def check(ranks, w, a):
    """The wave against the settings of the run; returns what is wrong."""
    bad = []
    p = max(ranks) + 1
    if sorted(ranks) != list(range(p)):
        return [f"ranks with markers: {sorted(ranks)}"]
    src, ks, kd = w["source"], w["source_iteration"], a.delay_iter
    if (src, ks) != (a.delay_rank, kd):
        bad.append(f"longest compute excess at rank {src} iteration {ks}, "
                   f"want rank {a.delay_rank} iteration {kd}")
        return bad
    # the delay is a sleep outside MPI; the exchange after it may be quicker than usual (the
    # neighbours are ready), so the whole iteration is held to less
    d, delay = ranks[src], a.delay_us * 1e3
    medc, medd = statistics.median(d["compute"]), statistics.median(d["dur"])
    if d["compute"][kd] - medc < 0.8 * delay:
        bad.append(f"delayed iteration's compute {d['compute'][kd]} ns, median {medc} ns: "
                   f"less than 0.8 x the {a.delay_us} us delay longer")
    if d["dur"][kd] - medd < 0.5 * delay:
        bad.append(f"delayed iteration {d['dur'][kd]} ns, median {medd} ns: "
                   f"less than 0.5 x the {a.delay_us} us delay longer")
    uni, per, dist = a.direction == "uni", a.boundary == "periodic", a.distance
    for r in range(p):
        if r == src:
            continue
        side, j = distance(r, src, p, per, uni)
        # with one Waitall a neighbour at distance <= D waits in the delayed iteration itself,
        # and the wave advances D ranks per iteration
        expect = kd + (j + dist - 1) // dist - 1
        got = w["reached"].get(r)
        downstream = not (uni and not per and r < src)
        if downstream:
            if got is None:
                bad.append(f"rank {r} ({side} {j}): its waits never grew; "
                           f"want the wave in iteration {expect}")
            elif abs(got - expect) > 1:
                bad.append(f"rank {r} ({side} {j}): wave in iteration {got}, want {expect} +- 1")
        else:
            # upstream of a unidirectional chain: no wave where one would have arrived
            ex = ranks[r]["wait"]
            m = statistics.median(ex)
            around = [ex[k] - m for k in range(max(expect - 1, 0), min(expect + 2, len(ex)))]
            if around and max(around) > 0.5 * w["source_excess_ns"]:
                bad.append(f"rank {r} (upstream {j}): waited {max(around)} ns more than usual "
                           f"around iteration {expect}, as if the wave went upstream")
    for side, v in w["ranks_per_iteration"].items():
        n = w["reached_" + side]
        if n >= 3 and (v is None or not 0.5 * dist <= v <= 2 * dist):
            bad.append(f"speed {side}: {v} ranks per iteration over {n} ranks, "
                       f"want {dist} (within x2)")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump")
    ap.add_argument("--frac", type=float, default=0.5)
    ap.add_argument("--rstar", type=float, default=0.95)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--direction", choices=("bi", "uni"), default="bi")
    ap.add_argument("--boundary", choices=("open", "periodic"), default="open")
    ap.add_argument("--distance", type=int, default=1)
    ap.add_argument("--delay-rank", type=int)
    ap.add_argument("--delay-iter", type=int)
    ap.add_argument("--delay-us", type=float)
    a = ap.parse_args()
    try:
        ranks, recv_from = load(a.dump)
    except (OSError, KeyError, ValueError) as e:
        print(f"idlewave_wave.py: {a.dump}: {e}", file=sys.stderr)
        return 1
    if not ranks:
        print(f"idlewave_wave.py: {a.dump}: no rank has two MPI_Pcontrol markers",
              file=sys.stderr)
        return 1
    # --check finds the source itself (and must find the delay); the figures may be told
    known = None
    if not a.check and a.delay_rank is not None and a.delay_iter is not None:
        known = (a.delay_rank, a.delay_iter)
    w = wave(ranks, a.frac, a.boundary == "periodic", a.direction == "uni", known)
    if a.check:
        if a.delay_rank is None or a.delay_iter is None or a.delay_us is None:
            ap.error("--check needs --delay-rank, --delay-iter and --delay-us")
        bad = check(ranks, w, a)
        for b in bad[:10]:
            print(b)
        return 1 if bad else 0
    src_start = None
    if w["source"] is not None:
        src_start = ranks[w["source"]]["marks"][w["source_iteration"]]
    out = {"ranks": len(ranks), "iterations": min(len(d["dur"]) for d in ranks.values()),
           "wave": w, "phases": phases(ranks, recv_from, a.rstar, src_start)}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
