#include "engine/model/finite_weights.h"

#include <string>

#include "engine/kernels/finite_check.h"
#include "engine/util/error.h"

namespace pdbench {

void require_finite_weights(const Model& model) {
  for (const NamedTensor& t : model.tensors())
    if (const auto at = first_non_finite(t.type, t.bytes))
      fail_file(model.path(), "tensor " + t.name + ": element " + std::to_string(*at) + " is NaN or Inf" +
                                  (traits(t.type).block_size > 1 ? " (its block's scale)" : ""));
}

}  // namespace pdbench
