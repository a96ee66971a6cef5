#!/usr/bin/env bash
# hmm_ref.sh: models/hmm.c against an independent implementation written here in pure
# Python (log-space forward-backward with logsumexp, no scaling, no shift): on the fixed
# series of hmm_ref_dump, the log L of the initial and final models (forward algorithm) and
# the log L after each of 20 Baum-Welch iterations from the same initial parameters agree
# to 1e-6, and so do the final parameters (to 1e-6 absolute). Exit 77 without python3.
# Usage: tests/unit/hmm_ref.sh [HMM_REF_DUMP] (default: $HMM_REF_DUMP, set by make check)
set -uo pipefail
dump=${1:-${HMM_REF_DUMP:-}}
[ -n "$dump" ] && [ -x "$dump" ] || { echo "hmm_ref.sh: usage: hmm_ref.sh HMM_REF_DUMP" >&2; exit 2; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"$dump" >"$out" || { echo "hmm_ref.sh: $dump failed"; echo "0 passed, 1 failed"; exit 1; }
python3 - "$out" <<'PY'
import math, sys

def lse(v):
    m = max(v)
    if m == -math.inf:
        return m
    return m + math.log(sum(math.exp(a - m) for a in v))

def logn(x, mu, sd):
    z = (x - mu) / sd
    return -math.log(sd) - 0.5 * math.log(2 * math.pi) - 0.5 * z * z

def forward(x, pi, A, mu, sd):
    K = len(pi)
    la = [math.log(p) if p > 0 else -math.inf for p in pi]
    lA = [[math.log(a) if a > 0 else -math.inf for a in r] for r in A]
    al = [[la[k] + logn(x[0], mu[k], sd[k]) for k in range(K)]]
    for t in range(1, len(x)):
        p = al[-1]
        al.append([lse([p[i] + lA[i][j] for i in range(K)]) + logn(x[t], mu[j], sd[j])
                   for j in range(K)])
    return al, lse(al[-1])

def baum_welch_step(x, pi, A, mu, sd, var_floor):
    K, T = len(pi), len(x)
    lA = [[math.log(a) if a > 0 else -math.inf for a in r] for r in A]
    al, ll = forward(x, pi, A, mu, sd)
    be = [[0.0] * K for _ in range(T)]
    for t in range(T - 2, -1, -1):
        be[t] = [lse([lA[i][j] + logn(x[t + 1], mu[j], sd[j]) + be[t + 1][j]
                      for j in range(K)]) for i in range(K)]
    gam = [[math.exp(al[t][k] + be[t][k] - ll) for k in range(K)] for t in range(T)]
    xi = [[0.0] * K for _ in range(K)]
    for t in range(T - 1):
        for i in range(K):
            for j in range(K):
                xi[i][j] += math.exp(al[t][i] + lA[i][j] + logn(x[t + 1], mu[j], sd[j])
                                     + be[t + 1][j] - ll)
    npi = gam[0][:]
    nA = [[xi[i][j] / sum(xi[i]) for j in range(K)] for i in range(K)]
    nmu, nsd = [], []
    for k in range(K):
        w = sum(g[k] for g in gam)
        m = sum(g[k] * v for g, v in zip(gam, x)) / w
        var = sum(g[k] * (v - m) ** 2 for g, v in zip(gam, x)) / w
        nmu.append(m)
        nsd.append(math.sqrt(max(var, var_floor)))
    return ll, npi, nA, nmu, nsd

lines = [l.split() for l in open(sys.argv[1])]
x = [float(v) for v in lines[0][1:]]
cases, cur = [], None
for l in lines[1:]:
    if l[0] == "case":
        cur = {"name": l[1]}
        cases.append(cur)
    else:
        cur[l[0]] = [float(v) for v in l[1:]]

passed = failed = 0
def check(what, got, want, tol=1e-6):
    global passed, failed
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(got, want)) if not abs(a - b) <= tol]
    if bad or len(got) != len(want):
        failed += 1
        print(f"FAIL {what}: {len(bad)} of {len(want)} differ, first {bad[:1]}")
    else:
        passed += 1
        print(f"ok   {what}: {len(want)} values, max |diff| "
              f"{max(abs(a - b) for a, b in zip(got, want)):.2e}")

for c in cases:
    K = int(c["K"][0])
    mat = lambda v: [v[i * K:(i + 1) * K] for i in range(K)]
    pi, A, mu, sd, vf = c["pi"], mat(c["A"]), c["mu"], c["sd"], c["var_floor"][0]
    n = c["name"]
    check(f"{n} log L of the initial model (C hmm_loglik)", c["loglik_init"],
          [forward(x, pi, A, mu, sd)[1]])
    trace = []
    for it in range(len(c["trace"])):
        ll, pi2, A2, mu2, sd2 = baum_welch_step(x, pi, A, mu, sd, vf)
        trace.append(ll)
        if it + 1 < len(c["trace"]):
            pi, A, mu, sd = pi2, A2, mu2, sd2
    check(f"{n} log L over {len(trace) - 1} EM iterations (C hmm_fit_from's trace)",
          c["trace"], trace)
    order = sorted(range(K), key=lambda k: mu[k])
    check(f"{n} final means", c["fit_mu"], [mu[k] for k in order])
    check(f"{n} final sds", c["fit_sd"], [sd[k] for k in order])
    check(f"{n} final transitions", c["fit_A"], [A[i][j] for i in order for j in order])
    check(f"{n} final initial distribution", c["fit_pi"], [pi[k] for k in order])
    check(f"{n} log L of the final model (C hmm_loglik)", c["loglik_final"],
          [forward(x, pi, A, mu, sd)[1]])
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
