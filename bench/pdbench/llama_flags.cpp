#include "bench/pdbench/llama_flags.h"

#include <string_view>

#include "engine/util/error.h"

namespace pdbench::cli {

namespace {

struct Refused {
  std::string_view flag;
  std::string_view why;
};

constexpr Refused kRefused[] = {
    {"-fa", "attention is always tiled with an online softmax (flash-style); drop the flag"},
    {"-ngl", "pdbench runs on the CPU only; drop the flag"},
    {"-pg", "give the prompt and generated lengths as -p and -n (every combination is a case)"},
    {"-nkvo", "the KV cache is always in host memory; drop the flag"},
};

}  // namespace

std::vector<std::string> translate_llama_flags(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (std::string& a : args) {
    if (a == "-ctk") a = "--cache-type-k";
    if (a == "-ctv") a = "--cache-type-v";
    for (const Refused& r : kRefused)
      if (a == r.flag) throw Error(std::string(r.flag) + " is llama.cpp's flag: " + std::string(r.why));
  }
  return args;
}

}  // namespace pdbench::cli
