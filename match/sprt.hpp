// The sequential probability ratio test of a match (`konane match --sprt`), over game pairs: the
// two games of an opening with the colours swapped, scored 0, 1/2, 1, 3/2 or 2 for engine A
// (five counts, the pentanomial model), as fishtest tests Stockfish patches. The log-likelihood
// ratio is the generalized one (GSPRT) of Michel Van den Bergh, "Normalized Elo" and
// "support_MLE_multinomial" notes (hardy.uhasselt.be/Fishtest), as fishtest's
// server/fishtest/stats/LLRcalc.py computes it (LLR_logistic): for each hypothesis the
// maximum-likelihood distribution of the pair scores with that expected score (Proposition 1.1:
// p_i = phat_i / (1 + x (a_i - s)), x the root of the secular equation sum phat_i (a_i - s) /
// (1 + x (a_i - s)) = 0), and LLR = N sum phat_i log(p1_i / p0_i). Empty counts are taken as
// 1e-3 (fishtest's regularization). Wald's bounds: log(beta / (1 - alpha)) and
// log((1 - beta) / alpha).
#pragma once

#include <array>
#include <cstdint>

namespace konane::match {

/// The hypotheses of a test: H0 "A is elo0 stronger than B", H1 "elo1", in logistic Elo (an
/// expected score 1 / (1 + 10^(-elo / 400))), and the error rates alpha (accepting H1 when H0
/// holds) and beta (accepting H0 when H1 holds), each in (0, 1/2).
struct SprtBounds {
    double elo0 = 0, elo1 = 5;
    double alpha = 0.05, beta = 0.05;

    double lower() const;  ///< log(beta / (1 - alpha)): at or below it, H0 is accepted
    double upper() const;  ///< log((1 - beta) / alpha): at or above it, H1 is accepted
};

/// The pentanomial counts: counts[k] game pairs in which A scored k / 2 points (0 .. 2).
using Pentanomial = std::array<std::uint64_t, 5>;

/// The expected score (0 .. 1) of a logistic Elo difference: 1 / (1 + 10^(-elo / 400)).
double logistic_score(double elo);

/// The generalized log-likelihood ratio of H1 (elo1) against H0 (elo0) for the pair counts
/// `pairs` under the pentanomial model (the file's comment: fishtest's LLR_logistic). 0 when
/// there is no pair. Throws std::invalid_argument when elo0 >= elo1 or an Elo is not finite.
double sprt_llr(const Pentanomial& pairs, double elo0, double elo1);

/// What a test says: H0 accepted, H1 accepted, or go on.
enum class SprtDecision : std::uint8_t { Continue, H0, H1 };

/// The decision of `llr` between `b`'s bounds.
SprtDecision sprt_decision(double llr, const SprtBounds& b);

/// "continue", "H0" or "H1".
const char* sprt_decision_name(SprtDecision d);

}  // namespace konane::match
