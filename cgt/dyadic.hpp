// Exact rationals for combinatorial game values: the numbers of short games (dyadic rationals
// m / 2^k) and the coordinates of thermographs (Siegel, "Combinatorial Game Theory", 2013,
// ch. II.5), whose breakpoints are dyadic too.
#pragma once

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>

namespace konane::cgt {

/// A rational n / d in lowest terms, d > 0. Short games only ever need dyadic ones (d a power of
/// two); the type does not insist on it. Arithmetic throws std::overflow_error when a numerator
/// or denominator would leave 62 bits (never for the values of a board of 64 squares).
class Rational {
  public:
    constexpr Rational() = default;
    /// The integer n.
    constexpr Rational(std::int64_t n) : n_(n) {}  // NOLINT(google-explicit-constructor)
    /// n / d; d != 0 (throws std::invalid_argument).
    Rational(std::int64_t n, std::int64_t d) : n_(n), d_(d) {
        if (d == 0) throw std::invalid_argument("rational with denominator 0");
        normalise();
    }

    std::int64_t num() const { return n_; }
    std::int64_t den() const { return d_; }
    bool is_integer() const { return d_ == 1; }

    friend Rational operator+(const Rational& a, const Rational& b) {
        return Rational(checked(mul(a.n_, b.d_) + mul(b.n_, a.d_)), mul(a.d_, b.d_));
    }
    friend Rational operator-(const Rational& a) { return Rational(-a.n_, a.d_); }
    friend Rational operator-(const Rational& a, const Rational& b) { return a + (-b); }
    friend Rational operator*(const Rational& a, const Rational& b) {
        return Rational(mul(a.n_, b.n_), mul(a.d_, b.d_));
    }
    friend Rational operator/(const Rational& a, const Rational& b) {
        if (b.n_ == 0) throw std::invalid_argument("rational division by 0");
        return Rational(mul(a.n_, b.d_) * (b.n_ < 0 ? -1 : 1), mul(a.d_, b.n_ < 0 ? -b.n_ : b.n_));
    }
    friend bool operator==(const Rational& a, const Rational& b) = default;
    friend bool operator<(const Rational& a, const Rational& b) {
        return mul(a.n_, b.d_) < mul(b.n_, a.d_);
    }
    friend bool operator>(const Rational& a, const Rational& b) { return b < a; }
    friend bool operator<=(const Rational& a, const Rational& b) { return !(b < a); }
    friend bool operator>=(const Rational& a, const Rational& b) { return !(a < b); }

    /// "0", "-3", "1/2", "-5/8": the notation CGSuite prints numbers in.
    std::string str() const {
        return d_ == 1 ? std::to_string(n_) : std::to_string(n_) + "/" + std::to_string(d_);
    }

  private:
    static std::int64_t mul(std::int64_t a, std::int64_t b) {
        std::int64_t r = 0;
        if (__builtin_mul_overflow(a, b, &r) || r > (std::int64_t{1} << 62) ||
            r < -(std::int64_t{1} << 62))
            throw std::overflow_error("rational arithmetic overflows 62 bits");
        return r;
    }
    static std::int64_t checked(std::int64_t v) { return mul(v, 1); }
    void normalise() {
        if (d_ < 0) {
            n_ = -n_;
            d_ = -d_;
        }
        const std::int64_t g = std::gcd(n_ < 0 ? -n_ : n_, d_);
        if (g > 1) {
            n_ /= g;
            d_ /= g;
        }
    }
    std::int64_t n_ = 0;
    std::int64_t d_ = 1;
};

}  // namespace konane::cgt
