// Hostile model files and sizes: NaN and Inf in weights and scales, absurd
// metadata, a model or KV cache larger than memory. Each is a pdbench::Error
// naming the file and the key, tensor or position, before anything large is
// allocated and before a non-finite value reaches a result.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>

#include "engine/model/synthetic_model.h"
#include "engine/runtime/generator.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"
#include "tests/support/error_of.h"
#include "tests/support/gguf_rewrite.h"
#include "tests/support/scoped_env.h"
#include "tests/support/test_paths.h"
#include "tests/support/tiny_model.h"

namespace pdbench {
namespace {

namespace fs = std::filesystem;

using test::error_of;

// A llama model small enough to write and run in milliseconds.
SyntheticSpec tiny_llama(TensorType type) {
  return {"tiny", test::tiny_config("llama-3.2-1b", 64, 16, 96, 1024), type, 3};
}

class HostileModel : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir("hostile"); }

  std::string tiny(TensorType type = TensorType::F32) {
    const std::string path = dir_ + "/tiny-" + std::string(traits(type).name) + ".gguf";
    if (!fs::exists(path)) write_synthetic_model(tiny_llama(type), path);
    return path;
  }
  std::string edited(const std::string& from, const std::string& name, const test::GgufEdits& edits) {
    const std::string path = dir_ + "/" + name + ".gguf";
    test::rewrite_gguf(from, path, edits);
    return path;
  }
  // `from` with one tensor's bytes changed by `patch`.
  std::string patched(const std::string& from, const std::string& name, const std::string& tensor,
                      std::function<void(std::span<std::byte>)> patch) {
    return edited(from, name, {{}, [&](const std::string& t, std::span<std::byte> bytes) {
                                 if (t == tensor) patch(bytes);
                               }});
  }

  std::string dir_;
};

GenerateRequest greedy_ids(std::vector<int32_t> ids) {
  GenerateRequest r;
  r.prompt_ids = std::move(ids);
  r.max_new_tokens = 4;
  r.sampling.temperature = 0.0f;
  return r;
}

// A NaN in the stored bits of block 3: the value itself, or the block's f16 scale.
void poke_nan(TensorType type, std::span<std::byte> bytes) {
  const size_t offset = 3 * traits(type).block_bytes;
  if (type == TensorType::F32)
    test::poke(bytes, offset, std::numeric_limits<float>::quiet_NaN());
  else
    test::poke(bytes, offset, static_cast<uint16_t>(type == TensorType::BF16 ? 0x7fc0 : 0x7e00));  // quiet NaNs
}

TEST_F(HostileModel, NonFiniteWeightOrScaleIsAnErrorNamingTheTensorBeforeAnythingRuns) {
  for (TensorType type : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q4_0}) {
    SCOPED_TRACE(traits(type).name);
    const std::string path = patched(tiny(type), "nan-" + std::string(traits(type).name), "blk.1.ffn_down.weight",
                                     [&](std::span<std::byte> bytes) { poke_nan(type, bytes); });
    const Engine engine = Engine::load(path);  // loading maps the file; running reads every weight first
    const std::string quantized = traits(type).block_size > 1 ? " (its block's scale)" : "";
    const std::string want = path + ": tensor blk.1.ffn_down.weight: element " +
                             std::to_string(3 * traits(type).block_size) + " is NaN or Inf" + quantized;
    EXPECT_EQ(error_of([&] { Generator generator(engine); }), want);
    EXPECT_EQ(error_of([&] { engine.forward(ForwardKind::Reference); }), want);
  }
  const std::string inf_norm = patched(tiny(), "inf-norm", "output_norm.weight", [](std::span<std::byte> bytes) {
    test::poke(bytes, 5 * sizeof(float), std::numeric_limits<float>::infinity());
  });
  EXPECT_EQ(error_of([&] { Engine::load(inf_norm).forward(ForwardKind::Fast); }),
            inf_norm + ": tensor output_norm.weight: element 5 is NaN or Inf");
}

TEST_F(HostileModel, NonFiniteNormInALlama2cCheckpointNamesItsRunCName) {
  std::ifstream in(test::model_path("stories260K.bin"), std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  int32_t header[7];
  std::memcpy(header, bytes.data(), sizeof header);
  const auto dim = static_cast<size_t>(header[0]);
  const auto vocab = static_cast<size_t>(std::abs(header[5]));  // negative: a separate classifier
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // rms_att_weight follows the token embedding; element 2 of layer 0.
  std::memcpy(bytes.data() + sizeof header + (vocab * dim + 2) * sizeof(float), &nan, sizeof nan);
  const std::string path = dir_ + "/nan.bin";
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const Engine engine = Engine::load(path, test::model_path("tok512.bin"));
  EXPECT_EQ(error_of([&] { engine.forward(ForwardKind::Reference); }),
            path + ": tensor rms_att_weight[0]: element 2 is NaN or Inf");
}

// Finite weights can still overflow: the largest float as the final norm's
// weights sends normalized activations above 1 to Inf, and the LM head mixes
// them into NaN. The check on the logits names the position.
TEST_F(HostileModel, OverflowToNonFiniteLogitsIsAnErrorNamingThePosition) {
  const std::string path = patched(tiny(), "overflow", "output_norm.weight", [](std::span<std::byte> bytes) {
    for (size_t i = 0; i < bytes.size(); i += sizeof(float)) test::poke(bytes, i, FLT_MAX);
  });
  const Engine engine = Engine::load(path);
  for (ForwardKind kind : {ForwardKind::Reference, ForwardKind::Fast}) {
    GeneratorOptions options;
    options.forward = kind;
    Generator generator(engine, options);
    const std::string message = error_of([&] { generator.generate(greedy_ids({1, 5, 9})); });
    EXPECT_TRUE(message.starts_with(path + ": the logit of token ")) << message;
    EXPECT_NE(message.find(" at position 2 of sequence "), std::string::npos) << message;
    EXPECT_NE(message.find("a weight or scale is NaN or Inf, or the activations overflowed"), std::string::npos)
        << message;
  }
}

TEST_F(HostileModel, AbsurdMetadataIsAnErrorNamingTheKey) {
  struct Case {
    std::string key;
    gguf::Value value;
    std::string message;
  };
  const std::vector<Case> cases{
      {"llama.attention.head_count", gguf::Value::u32(3'000'000'000u),
       "head count (llama.attention.head_count) = 3000000000: expected 1 to 4096"},
      {"llama.block_count", gguf::Value::u64(uint64_t{1} << 40),
       "block count (llama.block_count) = 1099511627776: expected 1 to 4096"},
      {"llama.embedding_length", gguf::Value::u32(0), "embedding length (llama.embedding_length) = 0: expected 1 to "
                                                      "1048576"},
      {"llama.feed_forward_length", gguf::Value::u32(0),
       "feed-forward length (llama.feed_forward_length) = 0: expected 1 to 1048576"},
      {"llama.context_length", gguf::Value::u32(0), "context length (llama.context_length) = 0: expected 1 to 16777216"},
      {"llama.attention.head_count_kv", gguf::Value::u32(3),
       "KV head count (llama.attention.head_count_kv) = 3: expected a divisor of the head count 4"},
      {"llama.rope.dimension_count", gguf::Value::u32(64),
       "rope dimension count (llama.rope.dimension_count) = 64: expected an even number from 2 to the head size 16"},
      {"llama.attention.key_length", gguf::Value::u32(0),
       "head size (llama.attention.key_length) = 0: expected 1 to 1048576"},
      {"llama.rope.freq_base", gguf::Value::f32(std::numeric_limits<float>::quiet_NaN()),
       "rope frequency base (llama.rope.freq_base) = nan: expected a positive number below 1e12"},
      {"llama.attention.layer_norm_rms_epsilon", gguf::Value::f32(std::numeric_limits<float>::infinity()),
       "RMS norm epsilon (llama.attention.layer_norm_rms_epsilon) = inf: expected a number in (0, 1)"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].key);
    const std::string path = edited(tiny(), "meta" + std::to_string(i), {{{cases[i].key, cases[i].value}}, {}});
    EXPECT_EQ(error_of([&] { Model::load(path); }), path + ": " + cases[i].message);
  }
}

TEST_F(HostileModel, ModelLargerThanAvailableMemoryIsAnError) {
  const std::string path = tiny();
  const size_t bytes = Model::load(path).weight_bytes();
  const test::ScopedEnv no_memory(kMemAvailableVariable, "0");
  EXPECT_EQ(error_of([&] { Model::load(path); }),
            path + ": model weights: " + format_bytes(bytes) +
                " needed, but only 0 B of memory is available (PDBENCH_MEM_AVAILABLE_MIB)");
}

TEST_F(HostileModel, FastPassWeightsBeyondAvailableMemoryAreAnError) {
  const Engine engine = Engine::load(tiny(TensorType::BF16));
  const test::ScopedEnv no_memory(kMemAvailableVariable, "0");
  const std::string message = error_of([&] { engine.forward(ForwardKind::Fast); });
  EXPECT_TRUE(message.starts_with(engine.model().path() + ": fast forward pass: prefill GEMM weights (")) << message;
  EXPECT_TRUE(message.ends_with(" KiB needed, but only 0 B of memory is available (PDBENCH_MEM_AVAILABLE_MIB)"))
      << message;
}

TEST_F(HostileModel, KvCapacityThatCannotFitIsAnErrorBeforeAllocating) {
  const Engine engine = Engine::load(tiny());
  engine.forward(ForwardKind::Fast);  // packed before memory is limited below
  GeneratorOptions options;
  // 2 layers x 2 KV heads x 16 x (K + V) x 4 bytes = 512 bytes a token:
  // 2^31 tokens (and a block for a snapshot) are a TiB, beyond any machine here.
  options.context = size_t{1} << 31;
  EXPECT_TRUE(error_of([&] { Generator g(engine, options); })
                  .starts_with("KV cache of 2147483664 tokens (f32 K, f32 V): 1.0 TiB needed, but only "));
  options.context = 4096;
  const test::ScopedEnv one_mib(kMemAvailableVariable, "1");
  EXPECT_EQ(error_of([&] { Generator g(engine, options); }),
            "KV cache of 4112 tokens (f32 K, f32 V): 2.0 MiB needed, but only 1.0 MiB of memory is available "
            "(PDBENCH_MEM_AVAILABLE_MIB)");
  options.context = std::numeric_limits<size_t>::max();
  EXPECT_EQ(error_of([&] { Generator g(engine, options); }),
            "KV cache: a context of 18446744073709551615 tokens for 1 sequences overflows a 64-bit size");
}

TEST_F(HostileModel, ActivationsBeyondAvailableMemoryAreAnErrorBeforeTheForwardPass) {
  const Engine engine = Engine::load(tiny());
  GeneratorOptions options;
  options.context = 128;
  Generator generator(engine, options);
  const test::ScopedEnv no_memory(kMemAvailableVariable, "0");
  const std::vector<int32_t> prompt(100, 7);
  const std::string message = error_of([&] { generator.generate(greedy_ids(prompt)); });
  EXPECT_TRUE(message.starts_with(engine.model().path() + ": activations of a forward pass over 100 tokens: "))
      << message;
  EXPECT_NE(message.find("needed, but only 0 B of memory is available"), std::string::npos) << message;
}

}  // namespace
}  // namespace pdbench
