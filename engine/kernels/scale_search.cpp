#include "engine/kernels/scale_search.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace pdbench::scale_search {

namespace {

int clamped(float v, int lo, int hi) { return std::clamp(nearest_int(v), lo, hi); }

// The weighted fit of quants l to x: sum w x l and sum w l^2, with w = x^2,
// accumulated in ggml's order.
struct Fit {
  float sumlx = 0.0f, suml2 = 0.0f;
  void add(float x, int l) {
    const float w = x * x;
    sumlx += w * x * static_cast<float>(l);
    suml2 += w * static_cast<float>(l) * static_cast<float>(l);
  }
};

Fit fit_at(size_t n, int nmax, const float* x, float iscale) {
  Fit fit;
  for (size_t i = 0; i < n; ++i) fit.add(x[i], clamped(iscale * x[i], -nmax, nmax - 1));
  return fit;
}

void store_symmetric(size_t n, int nmax, const float* x, float iscale, int8_t* L) {
  for (size_t i = 0; i < n; ++i) L[i] = static_cast<int8_t>(nmax + clamped(iscale * x[i], -nmax, nmax - 1));
}

// One pass of make_q3_quants's refinement: each quant moved to the one its
// group's fit without it asks for, where that improves the fit. L holds
// signed quants. Returns how many moved.
int refine_once(size_t n, int nmax, const float* x, int8_t* L, Fit& fit) {
  int changed = 0;
  for (size_t i = 0; i < n; ++i) {
    const float w = x[i] * x[i];
    float slx = fit.sumlx - w * x[i] * static_cast<float>(L[i]);
    if (!(slx > 0)) continue;
    float sl2 = fit.suml2 - w * static_cast<float>(L[i]) * static_cast<float>(L[i]);
    const int l = clamped(x[i] * sl2 / slx, -nmax, nmax - 1);
    if (l == L[i]) continue;
    slx += w * x[i] * static_cast<float>(l);
    sl2 += w * static_cast<float>(l) * static_cast<float>(l);
    if (sl2 > 0 && slx * slx * fit.suml2 > fit.sumlx * fit.sumlx * sl2) {
      L[i] = static_cast<int8_t>(l);
      fit = {slx, sl2};
      ++changed;
    }
  }
  return changed;
}

// The weighted error of x ~ scale * L + min: absolute or squared.
float weighted_error(size_t n, const float* x, const float* weights, const uint8_t* L, float scale, float min,
                     bool use_mad) {
  float error = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    float diff = scale * static_cast<float>(L[i]) + min - x[i];
    diff = use_mad ? std::abs(diff) : diff * diff;
    error += weights[i] * diff;
  }
  return error;
}

}  // namespace

float signed_absmax(size_t n, const float* x) {
  float amax = 0.0f, max = 0.0f;
  for (size_t i = 0; i < n; ++i)
    if (std::isnan(x[i]) || std::abs(x[i]) > amax) {
      amax = std::abs(x[i]);
      max = x[i];
      if (std::isnan(max)) break;
    }
  return max;
}

int nearest_int(float v) {
  const float shifted = v + 12582912.0f;
  return static_cast<int>(std::bit_cast<uint32_t>(shifted) & 0x007fffffu) - 0x00400000;
}

// ggml's make_qx_quants(n, nmax, x, L, 1, NULL).
float symmetric_weighted(size_t n, int nmax, const float* x, int8_t* L) {
  const float max = signed_absmax(n, x);
  if (std::abs(max) < kGroupMaxEps) {
    std::fill_n(L, n, 0);
    return 0.0f;
  }
  float iscale = static_cast<float>(-nmax) / max;
  store_symmetric(n, nmax, x, iscale, L);
  Fit fit = fit_at(n, nmax, x, iscale);
  float scale = fit.suml2 != 0.0f ? fit.sumlx / fit.suml2 : 0.0f;
  float best = scale * fit.sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(is)) / max;
    fit = fit_at(n, nmax, x, iscale);
    if (fit.suml2 > 0 && fit.sumlx * fit.sumlx > best * fit.suml2) {
      store_symmetric(n, nmax, x, iscale, L);
      scale = fit.sumlx / fit.suml2;
      best = scale * fit.sumlx;
    }
  }
  return scale;
}

// ggml's make_q3_quants(n, nmax, x, L, true).
float symmetric_refined(size_t n, int nmax, const float* x, int8_t* L) {
  const float max = signed_absmax(n, x);
  if (std::abs(max) < kGroupMaxEps) {
    std::fill_n(L, n, 0);
    return 0.0f;
  }
  const float iscale = static_cast<float>(-nmax) / max;
  Fit fit;
  for (size_t i = 0; i < n; ++i) {
    L[i] = static_cast<int8_t>(clamped(iscale * x[i], -nmax, nmax - 1));
    fit.add(x[i], L[i]);
  }
  for (int pass = 0; pass < 5 && refine_once(n, nmax, x, L, fit) > 0; ++pass) {
  }
  for (size_t i = 0; i < n; ++i) L[i] = static_cast<int8_t>(L[i] + nmax);
  return fit.suml2 > 0.0f ? fit.sumlx / fit.suml2 : 0.0f;
}

// ggml's make_qkx2_quants.
float offset_weighted(size_t n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                      float rmin, float rdelta, int nstep, bool use_mad) {
  float min = x[0], max = x[0], sum_w = weights[0], sum_x = sum_w * x[0];
  for (size_t i = 1; i < n; ++i) {
    min = std::min(min, x[i]);
    max = std::max(max, x[i]);
    sum_w += weights[i];
    sum_x += weights[i] * x[i];
  }
  min = std::min(min, 0.0f);
  if (max == min) {
    std::fill_n(L, n, 0);
    *the_min = -min;
    return 0.0f;
  }
  float iscale = static_cast<float>(nmax) / (max - min);
  float scale = 1 / iscale;
  for (size_t i = 0; i < n; ++i) L[i] = static_cast<uint8_t>(clamped(iscale * (x[i] - min), 0, nmax));
  float best_error = weighted_error(n, x, weights, L, scale, min, use_mad);
  uint8_t Laux[32];
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * static_cast<float>(is) + static_cast<float>(nmax)) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (size_t i = 0; i < n; ++i) {
      Laux[i] = static_cast<uint8_t>(clamped(iscale * (x[i] - min), 0, nmax));
      const float wl = weights[i] * static_cast<float>(Laux[i]);
      sum_l += wl;
      sum_l2 += wl * static_cast<float>(Laux[i]);
      sum_xl += wl * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (!(D > 0)) continue;
    float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
    float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
    if (this_min > 0) {
      this_min = 0;
      this_scale = sum_xl / sum_l2;
    }
    const float error = weighted_error(n, x, weights, Laux, this_scale, this_min, use_mad);
    if (error < best_error) {
      std::copy_n(Laux, n, L);
      best_error = error;
      scale = this_scale;
      min = this_min;
    }
  }
  *the_min = -min;
  return scale;
}

int nearest_grid_index(const int8_t* grid, float x) {
  // Index i once x reaches the midpoint of grid[i - 1] and grid[i]; doubled
  // so both sides are exact.
  const float x2 = x + x;
  int index = 0;
  for (int step = 8; step > 0; step /= 2) {
    const int j = index + step;
    if (x2 >= static_cast<float>(grid[j - 1] + grid[j])) index = j;
  }
  return index;
}

}  // namespace pdbench::scale_search
