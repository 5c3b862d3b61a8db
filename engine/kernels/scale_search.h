#pragma once
// Internal to the K-quant and IQ4 reference quantizers: the searches ggml's
// reference quantizers (ggml-quants.c) run for a group's scale, each
// written here from their documented steps and reproducing the named
// function's bits for the cases the quantizers call it with. Each fills
// L with the group's quants and returns the scale.
#include <cstddef>
#include <cstdint>

namespace pdbench::scale_search {

// Groups whose largest |x| is below this are all zero (ggml's GROUP_MAX_EPS).
inline constexpr float kGroupMaxEps = 1e-15f;

// The value of largest magnitude, with its sign (the first of equals), or
// NaN if any is NaN. ggml passes over a NaN here; keeping it makes a block
// whose values or fit overflowed store a NaN scale, which the load's
// finite check finds, rather than finite garbage. Finite inputs give
// ggml's bits.
float signed_absmax(size_t n, const float* x);

// Rounds to nearest, ties to even, for |v| < 2^22 (ggml's nearest_int: 1.5
// * 2^23 added leaves the integer in the low mantissa bits).
int nearest_int(float v);

// Symmetric quants in [-nmax, nmax - 1], stored as L = q + nmax, for
// weights x^2 (ggml's make_qx_quants with rmse_type 1 and no importance
// weights): the least-squares scale of round(x * s) for the 19 inverse
// scales -(nmax + k / 10) / max, k in -9..9, where max is the value of
// largest magnitude; the best fit by sum w x q)^2 / sum w q^2 wins.
float symmetric_weighted(size_t n, int nmax, const float* x, int8_t* L);

// Symmetric quants in [-nmax, nmax - 1] (L = q + nmax) from round(-nmax x /
// max), improved one quant at a time for up to 5 passes where that raises
// the weighted fit (ggml's make_q3_quants with do_rmse).
float symmetric_refined(size_t n, int nmax, const float* x, int8_t* L);

// Quants in [0, nmax] with an offset: x ~ scale * L - min, min >= 0 returned
// in *min. Tries nstep + 1 inverse scales (rmin + rdelta * k + nmax) / (max
// - min), each with the weighted least-squares scale and offset of its
// quants, and keeps the smallest weighted error, absolute (use_mad) or
// squared (ggml's make_qkx2_quants).
float offset_weighted(size_t n, int nmax, const float* x, const float* weights, uint8_t* L, float* min, float rmin,
                      float rdelta, int nstep, bool use_mad);

// The index of the grid value (16 of them, ascending) nearest x, the upper
// one on a tie (ggml's best_index_int8).
int nearest_grid_index(const int8_t* grid, float x);

}  // namespace pdbench::scale_search
