#ifndef BBO_SCORING_INTERNAL_RESAMPLE_H_
#define BBO_SCORING_INTERNAL_RESAMPLE_H_

// The inner loop of the bootstrap (Turner et al. (2021) §4.1): the sum of n values drawn with
// replacement from x[0..n). It runs 10^4 x methods x problems times per report, so it is written
// for speed:
//  - four xoshiro256+ streams step together; each step yields 16 candidate 16-bit numbers
//    (stream l gives candidates 4l..4l+3, low bits first);
//  - candidate c becomes index (c n) >> 16, or is rejected when (c n) mod 2^16 < 2^16 mod n
//    (Lemire's method: every index exactly equally likely);
//  - accepted candidate k (its position 0..15 in the step) is added to accumulator k mod 8;
//    the eight are summed as ((a0 + a4) + (a1 + a5)) + ((a2 + a6) + (a3 + a7)). A step's
//    candidates left over when n values are taken are discarded.
// The AVX-512, the AVX2 and the portable implementation follow these rules exactly, so the
// result is bit-for-bit the same on every x86-64 machine (tested): AVX-512 gathers candidates
// 0-7 and 8-15 into one vector of the eight accumulators, which adds them in the same order.

#include <cstdint>

namespace bbo::scoring::internal {

// Four xoshiro256+ generators, state word w of stream l at s[w][l].
struct Xoshiro4 {
  alignas(32) uint64_t s[4][4];
  explicit Xoshiro4(uint64_t seed);
  // One step of all four streams: out[l] = the output of stream l.
  void Next(uint64_t out[4]);
};

// The instruction sets ResampledSum can use, slowest first.
enum class ResampleIsa { kPortable, kAvx2, kAvx512 };
// The fastest one this machine runs: the one ResampledSum uses.
ResampleIsa BestResampleIsa();

// n in [1, 65535].
double ResampledSum(Xoshiro4& rng, const double* x, uint32_t n);
double ResampledSumPortable(Xoshiro4& rng, const double* x, uint32_t n);
// ResampledSum on a given instruction set, which must be at most BestResampleIsa() (tests).
double ResampledSumUsing(ResampleIsa isa, Xoshiro4& rng, const double* x, uint32_t n);
// out[t] = sum over j of rows[picks[j] * stride + t], t < stride: for each t the even j and the
// odd j are summed in j order apart, then added (even + odd), so every implementation gives the
// same bits (two chains of additions instead of one: half the latency). stride is a multiple of
// 4, at most 64.
void SumPickedRows(const double* rows, int stride, const uint32_t* picks, uint32_t count,
                   double* out);
void SumPickedRowsPortable(const double* rows, int stride, const uint32_t* picks,
                           uint32_t count, double* out);
// Whether ResampledSum uses AVX2 on this machine.
bool ResampleUsesAvx2();

}  // namespace bbo::scoring::internal

#endif  // BBO_SCORING_INTERNAL_RESAMPLE_H_
