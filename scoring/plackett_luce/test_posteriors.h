#ifndef BBO_SCORING_PLACKETT_LUCE_TEST_POSTERIORS_H_
#define BBO_SCORING_PLACKETT_LUCE_TEST_POSTERIORS_H_

// Hand-made posteriors for the decision, selection and racing tests (test-only header).

#include <functional>
#include <string>
#include <vector>

#include "scoring/plackett_luce/posterior.h"

namespace bbo::scoring::pl::testing {

// n methods "A", "B", ... on grid 1..T with S draws (one chain) whose unnormalised ratings are
// rating(t, s, i); normalised here.
inline RatingPosterior MakePosterior(int n, int T, int S,
                                     const std::function<double(int, int, int)>& rating) {
  RatingPosterior p;
  p.model = "test";
  for (int i = 0; i < n; ++i) p.methods.push_back(std::string(1, static_cast<char>('A' + i)));
  for (int t = 0; t < T; ++t) p.grid.points.push_back(t + 1.0);
  p.grid.spacing = GridSpacing::kUniform;
  p.chains = 1;
  p.draws_per_chain = S;
  p.theta.resize(static_cast<size_t>(T) * S * n);
  for (int t = 0; t < T; ++t) {
    for (int s = 0; s < S; ++s) {
      double sum = 0;
      for (int i = 0; i < n; ++i) sum += rating(t, s, i);
      for (int i = 0; i < n; ++i) {
        p.theta[(static_cast<size_t>(t) * S + s) * n + i] = rating(t, s, i) / sum;
      }
    }
  }
  return p;
}

}  // namespace bbo::scoring::pl::testing

#endif  // BBO_SCORING_PLACKETT_LUCE_TEST_POSTERIORS_H_
