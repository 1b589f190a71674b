#include "match/sprt.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace konane::match {

namespace {

/// The root x of sum p_i d_i / (1 + x d_i) = 0 (d_i = a_i - s) in (-1 / max d, -1 / min d),
/// where the sum falls from +infinity to -infinity: by bisection (the secular equation of Van
/// den Bergh's Proposition 1.1; fishtest solves it with Brent's method).
double secular(const double (&p)[5], const double (&d)[5]) {
    double dmin = d[0], dmax = d[0];
    for (double v : d) {
        dmin = std::min(dmin, v);
        dmax = std::max(dmax, v);
    }
    double lo = -1 / dmax, hi = -1 / dmin;
    const auto f = [&](double x) {
        double sum = 0;
        for (int i = 0; i < 5; ++i)
            sum += p[i] * d[i] / (1 + x * d[i]);
        return sum;
    };
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        if (mid <= lo || mid >= hi) break;
        (f(mid) > 0 ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

}  // namespace

double SprtBounds::lower() const {
    return std::log(beta / (1 - alpha));
}

double SprtBounds::upper() const {
    return std::log((1 - beta) / alpha);
}

double logistic_score(double elo) {
    return 1 / (1 + std::pow(10.0, -elo / 400));
}

double sprt_llr(const Pentanomial& pairs, double elo0, double elo1) {
    if (!std::isfinite(elo0) || !std::isfinite(elo1) || elo0 >= elo1)
        throw std::invalid_argument("sprt: elo0 must be below elo1, both finite");
    std::uint64_t total = 0;
    for (std::uint64_t c : pairs)
        total += c;
    if (total == 0) return 0;
    // The empirical distribution of the pair score (a_i = i / 4 of the two games' points),
    // an empty count taken as 1e-3.
    double n = 0, phat[5];
    for (int i = 0; i < 5; ++i) {
        phat[i] = pairs[i] > 0 ? static_cast<double>(pairs[i]) : 1e-3;
        n += phat[i];
    }
    for (double& v : phat)
        v /= n;
    // The maximum-likelihood distribution of mean s for each hypothesis.
    const auto mle = [&](double s, double(&out)[5]) {
        double d[5];
        for (int i = 0; i < 5; ++i)
            d[i] = i / 4.0 - s;
        const double x = secular(phat, d);
        for (int i = 0; i < 5; ++i)
            out[i] = phat[i] / (1 + x * d[i]);
    };
    double p0[5], p1[5];
    mle(logistic_score(elo0), p0);
    mle(logistic_score(elo1), p1);
    double llr = 0;
    for (int i = 0; i < 5; ++i)
        llr += phat[i] * std::log(p1[i] / p0[i]);
    return n * llr;
}

SprtDecision sprt_decision(double llr, const SprtBounds& b) {
    if (llr >= b.upper()) return SprtDecision::H1;
    if (llr <= b.lower()) return SprtDecision::H0;
    return SprtDecision::Continue;
}

const char* sprt_decision_name(SprtDecision d) {
    switch (d) {
        case SprtDecision::Continue:
            return "continue";
        case SprtDecision::H0:
            return "H0";
        case SprtDecision::H1:
            return "H1";
    }
    return "?";
}

}  // namespace konane::match
