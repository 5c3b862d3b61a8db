#pragma once
// Every stored weight and scale of a model checked for NaN and Inf
// (engine/kernels/finite_check.h reads each format's bits).
#include "engine/model/model.h"

namespace pdbench {

// Throws Error "PATH: tensor NAME: element I is NaN or Inf" for the first
// such value in the model's tensors. It reads every weight: on the 1.3 GB
// Llama-3.2-1B q8_0 file about 1.6% of the time the fast pass takes to pack
// them, but 2-3x Engine::load, which only maps the file and builds the
// tokenizer.
void require_finite_weights(const Model& model);

}  // namespace pdbench
