#pragma once
// llama2.c tokenizer.bin: int32 max_token_length, then per token a float
// score, an int32 byte length and the bytes. Ids 0, 1, 2 are unk, BOS, EOS and
// 3..258 the byte tokens <0x00>..<0xFF>; pieces spell spaces as " ".
#include <cstdint>
#include <string>

#include "engine/tokenizer/spm_bpe.h"

namespace pdbench {

// The vocabulary as llama2.c run.c uses it, for callers that change an
// option (e.g. SentencePiece's remove_extra_whitespaces) before building a
// tokenizer. Throws pdbench::Error naming `path` and the problem.
SpmVocab read_llama2c_vocab(const std::string& path, int32_t vocab_size);

}  // namespace pdbench
