#pragma once
// The constants of the SIMD exp and tanh (avx512_math.h, avx2_math.h), one
// copy for every vector width.
namespace pdbench::exp_tanh_polynomials {

// Cephes expf: x clamped to [kExpMin, kExpMax] (exp of either end is below
// the f32 subnormals or above FLT_MAX), n = round(x log2 e), r = x - n ln 2
// in two parts, exp(r) = 1 + r + r^2 p(r), p's coefficients highest first.
inline constexpr float kExpMin = -104.0f, kExpMax = 89.0f;
inline constexpr float kLog2E = 1.44269504088896341f;
inline constexpr float kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f;
inline constexpr float kExpP[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                   4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

// Eigen's generic_fast_tanh_float: x clamped to +-kTanhClamp, tanh = x
// p(x^2) / q(x^2), coefficients highest first; x itself below kTanhTiny.
inline constexpr float kTanhClamp = 7.90531110763549805f, kTanhTiny = 0.0004f;
inline constexpr float kTanhP[7] = {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                                    5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
                                    4.89352455891786e-03f};
inline constexpr float kTanhQ[4] = {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                                    4.89352518554385e-03f};

}  // namespace pdbench::exp_tanh_polynomials
