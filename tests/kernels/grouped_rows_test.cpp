// The grouped layout (grouped_rows.h) is a permutation of a row's bytes:
// ungroup_row gives back the file's row bit for bit, for every format that
// has one, at widths whose last group of 16 lanes is full or not.
#include "engine/kernels/grouped_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/kernels/weight_format.h"
#include "tests/support/random_values.h"

namespace pdbench {
namespace {

TEST(GroupedRows, UngroupGivesBackTheFileRow) {
  for (const WeightFormat& format : weight_formats()) {
    if (!has_grouped_layout(format.type)) continue;
    const size_t block = traits(format.type).block_size;
    for (size_t blocks : {size_t{1}, size_t{3}, size_t{16}, size_t{17}}) {
      const size_t cols = block * blocks;
      SCOPED_TRACE(std::string(traits(format.type).name) + ", " + std::to_string(cols) + " columns");
      const std::vector<float> x = test::random_normal(cols, static_cast<uint32_t>(cols));
      std::vector<std::byte> file(row_bytes(format.type, cols)), grouped(file.size()), back(file.size());
      format.quantize(x.data(), file.data(), cols);
      group_row(format.type, file.data(), grouped.data(), cols);
      ungroup_row(format.type, grouped.data(), back.data(), cols);
      EXPECT_EQ(back, file);
      std::vector<std::byte> sorted_file = file, sorted_grouped = grouped;
      std::sort(sorted_file.begin(), sorted_file.end());
      std::sort(sorted_grouped.begin(), sorted_grouped.end());
      const TensorType type = format.type;
      if (type == TensorType::Q8_0 || type == TensorType::Q4_0 || type == TensorType::Q4_1 ||
          type == TensorType::IQ4_NL || type == TensorType::IQ4_XS) {
        EXPECT_EQ(sorted_grouped, sorted_file) << "whole bytes move, none is rewritten";
      }
    }
  }
}

TEST(GroupedRows, LanesAreSubBlocks) {
  EXPECT_EQ(grouped_lane_elements(TensorType::Q8_0), 32u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q4_0), 32u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q4_1), 32u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q5_0), 32u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q5_1), 32u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q2_K), 16u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q3_K), 16u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q4_K), 32u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q5_K), 32u);
  EXPECT_EQ(grouped_lane_elements(TensorType::Q6_K), 16u);
  EXPECT_EQ(grouped_lane_elements(TensorType::IQ4_NL), 32u);
  EXPECT_EQ(grouped_lane_elements(TensorType::IQ4_XS), 32u);
  EXPECT_FALSE(has_grouped_layout(TensorType::F32));
}

}  // namespace
}  // namespace pdbench
