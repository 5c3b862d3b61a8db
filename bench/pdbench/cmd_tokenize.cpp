// pdbench tokenize: show how a tokenizer splits text.
#include <cstdio>
#include <memory>
#include <string>

#include "bench/pdbench/commands.h"
#include "bench/pdbench/options.h"
#include "engine/runtime/engine.h"
#include "engine/util/error.h"

namespace pdbench::cli {

namespace {

struct TokenizeArgs {
  std::string model;
  std::string tokenizer;
  std::string text;
  std::string text_file;
  bool ids_only = false;
  bool bos = false;
};

// A piece as a quoted, escaped string: control bytes and quotes made visible.
std::string quoted(std::string_view piece) {
  std::string out = "'";
  for (unsigned char ch : piece) {
    if (ch == '\n') out += "\\n";
    else if (ch == '\t') out += "\\t";
    else if (ch == '\r') out += "\\r";
    else if (ch == '\'' || ch == '\\') (out += '\\') += static_cast<char>(ch);
    else if (ch < 0x20 || ch == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "'";
}

void run(const TokenizeArgs& args) {
  if (args.model.empty() && args.tokenizer.empty())
    throw Error("tokenize: give a model (-m) or a tokenizer file (--tokenizer)");
  // A GGUF model's tokenizer is read from its metadata without loading weights.
  const auto tokenizer = load_tokenizer_file(args.tokenizer.empty() ? args.model : args.tokenizer);
  const std::vector<int32_t> ids = tokenizer->encode(read_text(args.text, args.text_file), args.bos);
  if (args.ids_only) {
    for (size_t i = 0; i < ids.size(); ++i) std::printf(i ? " %d" : "%d", ids[i]);
    std::printf("\n");
    return;
  }
  for (int32_t id : ids) std::printf("%6d  %s\n", id, quoted(tokenizer->piece(id)).c_str());
  std::printf("%zu tokens\n", ids.size());
}

}  // namespace

void register_tokenize(CLI::App& app) {
  auto args = std::make_shared<TokenizeArgs>();
  CLI::App* cmd = app.add_subcommand("tokenize", "Split text into tokens: ids and pieces");
  cmd->footer(
      "Tokenizer sources: a GGUF model's metadata (-m), a llama2.c tokenizer.bin, or a Hugging Face\n"
      "tokenizer.json (.gz accepted). Examples:\n"
      "  pdbench tokenize -m models/stories260K.gguf \"Once upon a time\"\n"
      "  pdbench tokenize --tokenizer tokenizer.json.gz --ids \"Hello, world!\"");
  auto* model = cmd->add_option("-m,--model", args->model, "GGUF model whose tokenizer to use")->check(CLI::ExistingFile);
  cmd->add_option("--tokenizer", args->tokenizer, "Tokenizer file")->check(CLI::ExistingFile)->excludes(model);
  auto* text = cmd->add_option("text", args->text, "Text to tokenize");
  cmd->add_option("-f,--file", args->text_file, "Read the text from a file")->check(CLI::ExistingFile)->excludes(text);
  cmd->add_flag("--ids", args->ids_only, "Print only the ids, space-separated, on one line");
  cmd->add_flag("--bos", args->bos, "Add BOS first (off by default)");
  cmd->callback([args] { run(*args); });
}

}  // namespace pdbench::cli
