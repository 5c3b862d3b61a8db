#include "engine/format/tensor_type.h"

#include <array>
#include <string>

namespace pdbench {

namespace {
struct Row {
  uint32_t id;
  TensorTypeTraits traits;
};
constexpr std::array<Row, 15> kSupported{{
    {0, {"f32", 1, 4}},
    {1, {"f16", 1, 2}},
    {2, {"q4_0", BlockQ4_0::kElements, sizeof(BlockQ4_0)}},
    {3, {"q4_1", BlockQ4_1::kElements, sizeof(BlockQ4_1)}},
    {6, {"q5_0", BlockQ5_0::kElements, sizeof(BlockQ5_0)}},
    {7, {"q5_1", BlockQ5_1::kElements, sizeof(BlockQ5_1)}},
    {8, {"q8_0", BlockQ8_0::kElements, sizeof(BlockQ8_0)}},
    {10, {"q2_K", BlockQ2_K::kElements, sizeof(BlockQ2_K)}},
    {11, {"q3_K", BlockQ3_K::kElements, sizeof(BlockQ3_K)}},
    {12, {"q4_K", BlockQ4_K::kElements, sizeof(BlockQ4_K)}},
    {13, {"q5_K", BlockQ5_K::kElements, sizeof(BlockQ5_K)}},
    {14, {"q6_K", BlockQ6_K::kElements, sizeof(BlockQ6_K)}},
    {20, {"iq4_nl", BlockIQ4_NL::kElements, sizeof(BlockIQ4_NL)}},
    {23, {"iq4_xs", BlockIQ4_XS::kElements, sizeof(BlockIQ4_XS)}},
    {30, {"bf16", 1, 2}},
}};

// ggml's names for the types it knows and this engine does not load.
constexpr std::array<std::string_view, 40> kGgmlNames{
    "f32",  "f16",  "q4_0", "q4_1", "q4_2", "q4_3", "q5_0", "q5_1", "q8_0",    "q8_1",
    "q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "q8_K", "iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s",
    "iq4_nl", "iq3_s", "iq2_s", "iq4_xs", "i8", "i16", "i32", "i64", "f64", "iq1_m",
    "bf16", "q4_0_4_4", "q4_0_4_8", "q4_0_8_8", "tq1_0", "tq2_0", "iq4_nl_4_4", "iq4_nl_4_8",
    "iq4_nl_8_8", "mxfp4"};
}  // namespace

std::optional<TensorTypeTraits> tensor_type_traits(uint32_t type) {
  for (const auto& row : kSupported)
    if (row.id == type) return row.traits;
  return std::nullopt;
}

const TensorTypeTraits& traits(TensorType type) {
  for (const auto& row : kSupported)
    if (row.id == static_cast<uint32_t>(type)) return row.traits;
  return kSupported[0].traits;  // unreachable for valid enum values
}

std::string ggml_type_name(uint32_t type) {
  if (type < kGgmlNames.size()) return std::string(kGgmlNames[type]);
  return "type " + std::to_string(type);
}

std::string supported_tensor_type_names() {
  std::string names;
  for (const auto& row : kSupported) {
    if (!names.empty()) names += ", ";
    names += row.traits.name;
  }
  return names;
}

}  // namespace pdbench
