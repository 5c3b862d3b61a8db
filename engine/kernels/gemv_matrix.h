#pragma once
// A weight matrix in the layout the decode gemv of one ISA reads fastest.
// The AVX-512 and AVX2 kernels read the integer formats (Q8_0, Q4_0 to
// Q5_1, Q2_K to Q6_K, IQ4_NL, IQ4_XS) regrouped (RowLayout::GroupedQuants,
// grouped_rows.h), and only so: a copy made once at load, byte for byte the
// size of the file's rows. Every other format and ISA reads the file's rows
// in place.
#include <cstddef>
#include <vector>

#include "engine/kernels/gemv.h"
#include "engine/kernels/matrix_view.h"
#include "engine/util/aligned_vector.h"

namespace pdbench {

// The layout gemv_rows reads `type` in on `isa`: the file's where the ISA
// has a kernel for it, else regrouped.
RowLayout gemv_layout(TensorType type, Isa isa = selected_isa());

class GemvMatrix {
 public:
  explicit GemvMatrix(const MatrixView& w, Isa isa = selected_isa());
  // The view points into storage_, whose buffer a move keeps; a copy would not.
  GemvMatrix(GemvMatrix&&) = default;
  GemvMatrix& operator=(GemvMatrix&&) = default;
  GemvMatrix(const GemvMatrix&) = delete;
  GemvMatrix& operator=(const GemvMatrix&) = delete;

  const MatrixView& view() const { return view_; }
  size_t copied_bytes() const { return storage_.size(); }  // 0 when read in place

 private:
  AlignedVector<std::byte> storage_;
  MatrixView view_;
};

}  // namespace pdbench
