#pragma once
// A made-up SentencePiece ("llama") vocabulary of any size from 259 up, for
// synthetic models: valid for every GGUF engine, meaningless as language.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pdbench {

struct SyntheticVocab {
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::vector<int32_t> types;  // tokenizer.ggml.token_type values
};

// <unk>, <s>, </s>, the 256 <0xXX> byte tokens, then unique pieces in order of
// length ("▁", "a".."z", "▁a".."▁z", "aa".."zz", "▁aa", ...). Every piece
// longer than one character is a shorter piece plus a letter, so BPE merges
// can reach it; scores fall with the id, as SentencePiece's log-probabilities do.
// The last pieces are then `added_control` in order (a vocabulary's added
// tokens, such as Phi-3's <|endoftext|>). Throws pdbench::Error when n_vocab
// < 259 + added_control.size().
SyntheticVocab synthetic_vocab(size_t n_vocab, const std::vector<std::string>& added_control = {});

}  // namespace pdbench
