// RMSNorm and SwiGLU on every ISA this CPU runs, and GeGLU's table, against the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "engine/kernels/activation.h"
#include "engine/kernels/reference.h"
#include "engine/util/half.h"

namespace pdbench {
namespace {

std::vector<float> random_floats(size_t n, float spread, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, spread);
  std::vector<float> x(n);
  for (float& v : x) v = normal(gen);
  return x;
}

// fn(isa, n) for every supported ISA and widths with and without a partial
// vector of 16 at the end.
template <typename Fn>
void for_each_isa_and_width(Fn fn) {
  for (Isa isa : supported_isas())
    for (size_t n : {1, 15, 16, 17, 33, 576, 2048, 8197}) {
      SCOPED_TRACE(std::string(isa_name(isa)) + " n=" + std::to_string(n));
      fn(isa, n);
    }
}

TEST(Activation, RmsnormMatchesReference) {
  for_each_isa_and_width([](Isa isa, size_t n) {
    const auto x = random_floats(n, 3.0f, 1), weight = random_floats(n, 1.0f, 2);
    std::vector<float> fast(n), ref(n);
    rmsnorm(fast.data(), x.data(), weight.data(), n, 1e-5f, isa);
    ref::rmsnorm(ref.data(), x.data(), weight.data(), n, 1e-5f);
    // Only the sum of squares is reassociated: a few ulp of each output.
    for (size_t i = 0; i < n; ++i) EXPECT_NEAR(fast[i], ref[i], 1e-6f * std::abs(ref[i])) << i;
  });
}

// An in-place kernel (a = f(a, b)) and its reference on the same inputs,
// a spread as given: {fast, reference}.
template <typename Fast, typename Ref>
std::pair<std::vector<float>, std::vector<float>> in_place(size_t n, float spread, Fast fast, Ref ref) {
  auto a = random_floats(n, spread, 3);
  const auto b = random_floats(n, 1.0f, 4);
  auto ref_a = a;
  fast(a.data(), b.data(), n);
  ref(ref_a.data(), b.data(), n);
  return {a, ref_a};
}

TEST(Activation, SwigluMatchesReference) {
  for_each_isa_and_width([](Isa isa, size_t n) {
    const auto [fast, ref] = in_place(
        n, 4.0f, [isa](float* gate, const float* up, size_t k) { swiglu(gate, up, k, isa); }, ref::swiglu);
    // exp within about 1 ulp, then the reference's divide and products.
    for (size_t i = 0; i < n; ++i) EXPECT_NEAR(fast[i], ref[i], 1e-6f * std::abs(ref[i])) << i;
  });
}

TEST(Activation, AddIsTheReferenceSum) {
  for_each_isa_and_width([](Isa isa, size_t n) {
    const auto [fast, ref] =
        in_place(n, 1.0f, [isa](float* a, const float* b, size_t k) { add(a, b, k, isa); }, ref::add);
    EXPECT_EQ(fast, ref);  // one rounding per element either way
  });
}

// The table lookup is the reference bit for bit: at every f16 value (each
// of the table's entries), at the ends of its range and around them, at
// infinities and NaN, and on random inputs.
TEST(Activation, GegluIsTheReferenceBitForBit) {
  std::vector<float> gate;
  for (uint32_t h = 0; h < (1u << 16); ++h) gate.push_back(fp16_to_f32(static_cast<uint16_t>(h)));
  for (float end : {-10.0f, 10.0f})
    for (int step = -3; step <= 3; ++step) gate.push_back(std::nextafter(end, end + static_cast<float>(step)));
  const auto random = random_floats(8197, 4.0f, 5);
  gate.insert(gate.end(), random.begin(), random.end());
  const std::vector<float> up = random_floats(gate.size(), 1.0f, 6);
  auto fast = gate, ref = gate;
  geglu(fast.data(), up.data(), fast.size());
  ref::geglu(ref.data(), up.data(), ref.size());
  for (size_t i = 0; i < gate.size(); ++i) {
    if (std::isnan(ref[i])) {
      EXPECT_TRUE(std::isnan(fast[i])) << gate[i];
    } else {
      ASSERT_EQ(fast[i], ref[i]) << "gelu(" << gate[i] << ") * " << up[i];
    }
  }
}

// Where exp under- or overflows, silu still ends at the reference's values:
// g for large g, -0 for very negative g, inf and NaN as they were.
TEST(Activation, SwigluAtTheEndsOfExpsRange) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ends{0.0f, -0.0f, 1e-30f, -1e-30f, 20.0f, -20.0f, 87.0f, -87.0f, 88.5f, -88.5f,
                                89.0f, -89.0f, 104.0f, -104.0f, 1e30f, -1e30f, inf, std::nanf("")};
  const std::vector<float> up(ends.size(), 1.5f);
  for (Isa isa : supported_isas()) {
    SCOPED_TRACE(isa_name(isa));
    auto gate = ends, ref_gate = ends;
    swiglu(gate.data(), up.data(), gate.size(), isa);
    ref::swiglu(ref_gate.data(), up.data(), ref_gate.size());
    for (size_t i = 0; i < ends.size(); ++i) {
      SCOPED_TRACE("g=" + std::to_string(ends[i]));
      if (!std::isfinite(ref_gate[i])) {
        EXPECT_EQ(std::isnan(gate[i]), std::isnan(ref_gate[i]));
        if (!std::isnan(ref_gate[i])) {
          EXPECT_EQ(gate[i], ref_gate[i]);
        }
        continue;
      }
      EXPECT_NEAR(gate[i], ref_gate[i], 1e-6f * std::abs(ref_gate[i]) + 1e-37f);
    }
  }
}

}  // namespace
}  // namespace pdbench
