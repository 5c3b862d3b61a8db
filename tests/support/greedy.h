#pragma once
// A short greedy generation, for tests that only need a model to run.
#include <string>

#include "engine/runtime/generator.h"

namespace pdbench::test {

// `max_new_tokens` greedy tokens after `prompt` on `kind`'s pass, in a
// context of `context` tokens.
inline GenerationResult generate_greedy(const Engine& engine, ForwardKind kind, const std::string& prompt,
                                        size_t max_new_tokens, size_t context = 32) {
  GeneratorOptions options;
  options.forward = kind;
  options.context = context;
  Generator generator(engine, options);
  GenerateRequest request;
  request.prompt = prompt;
  request.max_new_tokens = max_new_tokens;
  request.sampling.temperature = 0.0f;
  return generator.generate(request);
}

}  // namespace pdbench::test
