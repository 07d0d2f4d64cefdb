#include "scoring/internal/resample.h"

#include "scoring/internal/rng.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace bbo::scoring::internal {

Xoshiro4::Xoshiro4(uint64_t seed) {
  for (int l = 0; l < 4; ++l) {
    uint64_t z = SplitMix(seed + 0x632be59bd9b4e019ULL * static_cast<uint64_t>(l + 1));
    for (int w = 0; w < 4; ++w) {
      z = SplitMix(z);
      s[w][l] = z;
    }
  }
}

void Xoshiro4::Next(uint64_t out[4]) {
  for (int l = 0; l < 4; ++l) {
    out[l] = s[0][l] + s[3][l];
    const uint64_t t = s[1][l] << 17;
    s[2][l] ^= s[0][l];
    s[3][l] ^= s[1][l];
    s[1][l] ^= s[2][l];
    s[0][l] ^= s[3][l];
    s[2][l] ^= t;
    s[3][l] = (s[3][l] << 45) | (s[3][l] >> 19);
  }
}

// The fixed order in which the eight accumulators are summed.
static double Combine(const double a[8]) {
  const double b0 = a[0] + a[4], b1 = a[1] + a[5], b2 = a[2] + a[6], b3 = a[3] + a[7];
  return (b0 + b1) + (b2 + b3);
}

double ResampledSumPortable(Xoshiro4& rng, const double* x, uint32_t n) {
  const uint32_t reject_below = 65536u % n;
  double a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  uint32_t taken = 0;
  uint64_t r[4];
  while (taken < n) {
    rng.Next(r);
    for (int k = 0; k < 16 && taken < n; ++k) {
      const uint32_t c = static_cast<uint32_t>(r[k >> 2] >> (16 * (k & 3))) & 0xffff;
      const uint32_t prod = c * n;
      if ((prod & 0xffff) < reject_below) continue;
      a[k & 7] += x[prod >> 16];
      ++taken;
    }
  }
  return Combine(a);
}

#if defined(__x86_64__)
// The four xoshiro256+ streams in registers, stepped together: shared by the AVX2 and the
// AVX-512 paths (the state word w of every stream in s[w]).
struct Streams {
  __m256i s[4];
};

__attribute__((target("avx2"), always_inline)) inline Streams LoadStreams(const Xoshiro4& rng) {
  Streams st;
  for (int w = 0; w < 4; ++w) {
    st.s[w] = _mm256_load_si256(reinterpret_cast<const __m256i*>(rng.s[w]));
  }
  return st;
}

__attribute__((target("avx2"), always_inline)) inline void StoreStreams(const Streams& st,
                                                                        Xoshiro4& rng) {
  for (int w = 0; w < 4; ++w) _mm256_store_si256(reinterpret_cast<__m256i*>(rng.s[w]), st.s[w]);
}

// One step of the four streams (as Xoshiro4::Next): the four outputs.
__attribute__((target("avx2"), always_inline)) inline __m256i NextStep(Streams& st) {
  __m256i& s0 = st.s[0];
  __m256i& s1 = st.s[1];
  __m256i& s2 = st.s[2];
  __m256i& s3 = st.s[3];
  const __m256i out = _mm256_add_epi64(s0, s3);
  const __m256i t = _mm256_slli_epi64(s1, 17);
  s2 = _mm256_xor_si256(s2, s0);
  s3 = _mm256_xor_si256(s3, s1);
  s1 = _mm256_xor_si256(s1, s2);
  s0 = _mm256_xor_si256(s0, s3);
  s2 = _mm256_xor_si256(s2, t);
  s3 = _mm256_or_si256(_mm256_slli_epi64(s3, 45), _mm256_srli_epi64(s3, 19));
  return out;
}
#endif

#if defined(__x86_64__)
__attribute__((target("avx2"))) static double ResampledSumAvx2(Xoshiro4& rng, const double* x,
                                                                uint32_t n) {
  const uint32_t reject_below = 65536u % n;
  Streams st = LoadStreams(rng);
  const __m256i nv = _mm256_set1_epi16(static_cast<short>(n));
  const __m256i flip = _mm256_set1_epi16(static_cast<short>(0x8000));
  // Unsigned lo < reject_below as a signed comparison of both sides with the top bit flipped.
  const __m256i threshold = _mm256_set1_epi16(static_cast<short>(reject_below ^ 0x8000));
  alignas(32) uint16_t idx[16];
  // Accumulators k mod 8: lanes 0-3 of acc_a are accumulators 0-3, of acc_b 4-7.
  __m256d acc_a = _mm256_setzero_pd(), acc_b = _mm256_setzero_pd();
  uint32_t taken = 0;
  while (taken < n) {
    const __m256i out = NextStep(st);
    const __m256i lo = _mm256_mullo_epi16(out, nv);
    const __m256i hi = _mm256_mulhi_epu16(out, nv);
    const __m256i rejected = _mm256_cmpgt_epi16(threshold, _mm256_xor_si256(lo, flip));
    const uint32_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(rejected));
    if (mask == 0 && taken + 16 <= n) {
      // All 16 accepted: candidates 4g..4g+3 into lanes 0-3 (scalar loads beat the gather
      // instruction here).
      _mm256_store_si256(reinterpret_cast<__m256i*>(idx), hi);
      const __m256d g0 = _mm256_setr_pd(x[idx[0]], x[idx[1]], x[idx[2]], x[idx[3]]);
      const __m256d g1 = _mm256_setr_pd(x[idx[4]], x[idx[5]], x[idx[6]], x[idx[7]]);
      const __m256d g2 = _mm256_setr_pd(x[idx[8]], x[idx[9]], x[idx[10]], x[idx[11]]);
      const __m256d g3 = _mm256_setr_pd(x[idx[12]], x[idx[13]], x[idx[14]], x[idx[15]]);
      acc_a = _mm256_add_pd(_mm256_add_pd(acc_a, g0), g2);
      acc_b = _mm256_add_pd(_mm256_add_pd(acc_b, g1), g3);
      taken += 16;
      continue;
    }
    // A rejected candidate, or the last step: candidate by candidate, as the portable code.
    _mm256_store_si256(reinterpret_cast<__m256i*>(idx), hi);
    alignas(32) double a[8];
    _mm256_store_pd(a, acc_a);
    _mm256_store_pd(a + 4, acc_b);
    for (int k = 0; k < 16 && taken < n; ++k) {
      if ((mask >> (2 * k)) & 1) continue;
      a[k & 7] += x[idx[k]];
      ++taken;
    }
    acc_a = _mm256_load_pd(a);
    acc_b = _mm256_load_pd(a + 4);
  }
  StoreStreams(st, rng);
  alignas(32) double a[8];
  _mm256_store_pd(a, acc_a);
  _mm256_store_pd(a + 4, acc_b);
  return Combine(a);
}

// Candidates 0-7 and 8-15 gathered into one vector of the eight accumulators (lane k is
// accumulator k): each accumulator adds candidate k, then candidate k + 8, as the rules say.
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static double ResampledSumAvx512(
    Xoshiro4& rng, const double* x, uint32_t n) {
  const uint32_t reject_below = 65536u % n;
  Streams st = LoadStreams(rng);
  const __m256i nv = _mm256_set1_epi16(static_cast<short>(n));
  const __m256i threshold = _mm256_set1_epi16(static_cast<short>(reject_below));
  alignas(32) uint16_t idx[16];
  __m512d acc = _mm512_setzero_pd();
  uint32_t taken = 0;
  while (taken < n) {
    const __m256i out = NextStep(st);
    const __m256i lo = _mm256_mullo_epi16(out, nv);
    const __m256i hi = _mm256_mulhi_epu16(out, nv);
    const uint32_t rejected = _mm256_cmplt_epu16_mask(lo, threshold);  // bit k: candidate k
    if (rejected == 0 && taken + 16 <= n) {
      // (The masked forms with every lane on: GCC 12 warns about the unmasked ones' undefined
      // start value.)
      const __m512i wide = _mm512_maskz_cvtepu16_epi32(0xffff, hi);
      const __m256i first = _mm512_maskz_extracti64x4_epi64(0xff, wide, 0);
      const __m256i second = _mm512_maskz_extracti64x4_epi64(0xff, wide, 1);
      const __m512d zero = _mm512_setzero_pd();
      const __m512d g0 = _mm512_mask_i32gather_pd(zero, 0xff, first, x, 8);
      const __m512d g1 = _mm512_mask_i32gather_pd(zero, 0xff, second, x, 8);
      acc = _mm512_add_pd(_mm512_add_pd(acc, g0), g1);
      taken += 16;
      continue;
    }
    // A rejected candidate, or the last step: candidate by candidate, as the portable code.
    _mm256_store_si256(reinterpret_cast<__m256i*>(idx), hi);
    alignas(64) double a[8];
    _mm512_store_pd(a, acc);
    for (int k = 0; k < 16 && taken < n; ++k) {
      if ((rejected >> k) & 1) continue;
      a[k & 7] += x[idx[k]];
      ++taken;
    }
    acc = _mm512_load_pd(a);
  }
  StoreStreams(st, rng);
  alignas(64) double a[8];
  _mm512_store_pd(a, acc);
  return Combine(a);
}
#endif

void SumPickedRowsPortable(const double* rows, int stride, const uint32_t* picks,
                           uint32_t count, double* out) {
  double odd[64];
  for (int t = 0; t < stride; ++t) out[t] = odd[t] = 0;
  for (uint32_t j = 0; j < count; ++j) {
    const double* row = rows + static_cast<size_t>(picks[j]) * stride;
    double* sum = (j & 1) ? odd : out;
    for (int t = 0; t < stride; ++t) sum[t] += row[t];
  }
  for (int t = 0; t < stride; ++t) out[t] += odd[t];
}

#if defined(__x86_64__)
template <int V>
__attribute__((target("avx2"))) static void SumPickedRowsAvx2(const double* rows,
                                                               const uint32_t* picks,
                                                               uint32_t count, double* out) {
  // Even and odd picks in two sets of accumulators (two independent chains per column).
  __m256d even[V], odd[V];
  for (int v = 0; v < V; ++v) even[v] = odd[v] = _mm256_setzero_pd();
  uint32_t j = 0;
  for (; j + 1 < count; j += 2) {
    const double* a = rows + static_cast<size_t>(picks[j]) * (4 * V);
    const double* b = rows + static_cast<size_t>(picks[j + 1]) * (4 * V);
    for (int v = 0; v < V; ++v) {
      even[v] = _mm256_add_pd(even[v], _mm256_loadu_pd(a + 4 * v));
      odd[v] = _mm256_add_pd(odd[v], _mm256_loadu_pd(b + 4 * v));
    }
  }
  if (j < count) {
    const double* a = rows + static_cast<size_t>(picks[j]) * (4 * V);
    for (int v = 0; v < V; ++v) even[v] = _mm256_add_pd(even[v], _mm256_loadu_pd(a + 4 * v));
  }
  for (int v = 0; v < V; ++v) _mm256_storeu_pd(out + 4 * v, _mm256_add_pd(even[v], odd[v]));
}
#endif

void SumPickedRows(const double* rows, int stride, const uint32_t* picks, uint32_t count,
                   double* out) {
#if defined(__x86_64__)
  if (ResampleUsesAvx2()) {
    switch (stride / 4) {
      case 1: return SumPickedRowsAvx2<1>(rows, picks, count, out);
      case 2: return SumPickedRowsAvx2<2>(rows, picks, count, out);
      case 3: return SumPickedRowsAvx2<3>(rows, picks, count, out);
      case 4: return SumPickedRowsAvx2<4>(rows, picks, count, out);
      case 5: return SumPickedRowsAvx2<5>(rows, picks, count, out);
      case 6: return SumPickedRowsAvx2<6>(rows, picks, count, out);
      case 7: return SumPickedRowsAvx2<7>(rows, picks, count, out);
      case 8: return SumPickedRowsAvx2<8>(rows, picks, count, out);
      default: break;
    }
  }
#endif
  SumPickedRowsPortable(rows, stride, picks, count, out);
}

bool ResampleUsesAvx2() {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

ResampleIsa BestResampleIsa() {
#if defined(__x86_64__)
  static const ResampleIsa best = __builtin_cpu_supports("avx512f") &&
                                          __builtin_cpu_supports("avx512bw") &&
                                          __builtin_cpu_supports("avx512vl") && ResampleUsesAvx2()
                                      ? ResampleIsa::kAvx512
                                  : ResampleUsesAvx2() ? ResampleIsa::kAvx2
                                                       : ResampleIsa::kPortable;
  return best;
#else
  return ResampleIsa::kPortable;
#endif
}

double ResampledSumUsing(ResampleIsa isa, Xoshiro4& rng, const double* x, uint32_t n) {
  switch (isa) {
#if defined(__x86_64__)
    case ResampleIsa::kAvx512:
      return ResampledSumAvx512(rng, x, n);
    case ResampleIsa::kAvx2:
      return ResampledSumAvx2(rng, x, n);
#endif
    default:
      return ResampledSumPortable(rng, x, n);
  }
}

double ResampledSum(Xoshiro4& rng, const double* x, uint32_t n) {
  return ResampledSumUsing(BestResampleIsa(), rng, x, n);
}

}  // namespace bbo::scoring::internal
