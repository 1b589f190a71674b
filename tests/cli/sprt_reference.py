# Reference LLRs for tests/cli/test_cli_match.cpp ("match: SPRT log-likelihood ratio ..."):
# fishtest's LLR_logistic for pentanomial counts, the secular equation solved by scipy's
# brentq where present, else by bisection.
import math
try:
    from scipy.optimize import brentq
except ImportError:
    def brentq(f, a, b):
        for _ in range(300):
            m = (a + b) / 2
            if f(m) > 0: a = m
            else: b = m
        return (a + b) / 2
def L(elo): return 1 / (1 + 10 ** (-elo / 400))
def llr(results, elo0, elo1):
    r = [max(1e-3, float(x)) for x in results]
    N = sum(r)
    pdf = [(i / 4, x / N) for i, x in enumerate(r)]
    def mle(s):
        f = lambda x: sum(p * (a - s) / (1 + x * (a - s)) for a, p in pdf)
        x = brentq(f, -1 / (1 - s) + 1e-9, 1 / s - 1e-9)
        return [p / (1 + x * (a - s)) for a, p in pdf]
    p0, p1 = mle(L(elo0)), mle(L(elo1))
    return N * sum(p * math.log(p1[i] / p0[i]) for i, (a, p) in enumerate(pdf))
for res, e0, e1 in [([0,0,10,0,0], 0, 5), ([5,0,20,0,15], 0, 50), ([1,2,3,4,5], -10, 10), ([30,0,40,0,10], 0, 100), ([0,0,0,0,12], 0, 100)]:
    print(res, e0, e1, repr(llr(res, e0, e1)))
print(math.log(0.05/0.95), math.log(0.95/0.05))
