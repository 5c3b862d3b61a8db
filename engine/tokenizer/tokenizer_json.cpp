// Hugging Face tokenizer.json with a byte-level BPE model (GPT-2, Llama 3,
// Qwen). BOS/EOS are not in tokenizer.json; they come from a
// tokenizer_config.json next to it when there is one.
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/tokenizer/byte_bpe.h"
#include "engine/tokenizer/byte_level.h"
#include "engine/tokenizer/gzip_file.h"
#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/token_names.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/util/error.h"

namespace pdbench {
namespace {

using nlohmann::json;

constexpr size_t kMaxFileBytes = size_t{1} << 30;

// Checked access to a parsed document: every error names the file and the
// field ("model.vocab: expected object, found array").
class JsonFields {
 public:
  explicit JsonFields(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    fail_file(path_, field + ": " + what);
  }

  const json& expect(const json& value, json::value_t type, const std::string& field) const {
    const bool ok = type == json::value_t::number_integer ? value.is_number_integer() : value.type() == type;
    if (!ok) fail(field, std::string("expected ") + json(type).type_name() + ", found " + value.type_name());
    return value;
  }

  // The member, or nullptr when it is absent or null.
  const json* find(const json& object, const std::string& field, const std::string& key) const {
    expect(object, json::value_t::object, field);
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  }

  const json& require(const json& object, const std::string& field, const std::string& key, json::value_t type) const {
    const json* value = find(object, field, key);
    if (value == nullptr) fail(join(field, key), "missing");
    return expect(*value, type, join(field, key));
  }

  std::string string(const json& object, const std::string& field, const std::string& key) const {
    return require(object, field, key, json::value_t::string).get<std::string>();
  }

  bool boolean(const json& object, const std::string& field, const std::string& key, bool fallback) const {
    const json* value = find(object, field, key);
    return value == nullptr ? fallback : expect(*value, json::value_t::boolean, join(field, key)).get<bool>();
  }

  int32_t token_id(const json& value, const std::string& field) const {
    expect(value, json::value_t::number_integer, field);
    const auto id = value.get<int64_t>();
    if (id < 0 || id > std::numeric_limits<int32_t>::max()) fail(field, "id " + std::to_string(id) + " out of range");
    return static_cast<int32_t>(id);
  }

  static std::string join(const std::string& field, const std::string& key) {
    return field.empty() ? key : field + "." + key;
  }

 private:
  const std::string& path_;
};

json parse(const std::string& path) {
  try {
    return json::parse(read_maybe_gzip(path, kMaxFileBytes));
  } catch (const json::parse_error& e) {
    fail_file(path, std::string("not valid JSON: ") + e.what());
  }
}

void read_model(const JsonFields& f, const json& doc, ByteBpeConfig& config) {
  const json& model = f.require(doc, "", "model", json::value_t::object);
  if (const json* type = f.find(model, "model", "type")) {
    const std::string name = f.expect(*type, json::value_t::string, "model.type").get<std::string>();
    if (name != "BPE") f.fail("model.type", "\"" + name + "\" is not supported (only \"BPE\")");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const json* affix = f.find(model, "model", key);
    if (affix != nullptr &&
        !f.expect(*affix, json::value_t::string, JsonFields::join("model", key)).get<std::string>().empty()) {
      f.fail(JsonFields::join("model", key), "not supported");
    }
  }
  config.ignore_merges = f.boolean(model, "model", "ignore_merges", false);

  const json& vocab = f.require(model, "model", "vocab", json::value_t::object);
  config.vocab.reserve(vocab.size());
  for (const auto& [piece, id] : vocab.items())
    config.vocab.emplace_back(piece, f.token_id(id, "model.vocab." + piece));

  const json& merges = f.require(model, "model", "merges", json::value_t::array);
  config.merges.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const std::string field = "model.merges[" + std::to_string(i) + "]";
    const json& merge = merges[i];
    if (merge.is_string()) {  // "left right"
      auto pair = split_merge(merge.get<std::string>());
      if (!pair) f.fail(field, "\"" + merge.get<std::string>() + "\" is not two tokens separated by a space");
      config.merges.push_back(std::move(*pair));
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
      config.merges.emplace_back(merge[0].get<std::string>(), merge[1].get<std::string>());
    } else {
      f.fail(field, std::string("expected \"left right\" or [left, right], found ") + merge.type_name());
    }
  }
}

// Appends the regex steps; returns whether a ByteLevel step was seen.
bool read_pre_tokenizer(const JsonFields& f, const json& node, const std::string& field, ByteBpeConfig& config) {
  const std::string type = f.string(node, field, "type");
  if (type == "ByteLevel") {
    if (f.boolean(node, field, "add_prefix_space", false)) f.fail(field, "add_prefix_space is not supported");
    if (f.boolean(node, field, "use_regex", true)) {
      config.pre_tokenizer.push_back({std::string(known_pre_tokenizer_pattern("gpt2")), false});
    }
    return true;
  }
  if (type == "Split") {
    const std::string behavior = f.string(node, field, "behavior");
    if (behavior != "Isolated") f.fail(field, "behavior \"" + behavior + "\" is not supported (only \"Isolated\")");
    if (f.boolean(node, field, "invert", false)) f.fail(field, "invert is not supported");
    const json& pattern = f.require(node, field, "pattern", json::value_t::object);
    const std::string pattern_field = JsonFields::join(field, "pattern");
    if (f.find(pattern, pattern_field, "Regex") != nullptr) {
      config.pre_tokenizer.push_back({f.string(pattern, pattern_field, "Regex"), false});
    } else {
      config.pre_tokenizer.push_back({f.string(pattern, pattern_field, "String"), true});
    }
    return false;
  }
  if (type == "Sequence") {
    const json& steps = f.require(node, field, "pretokenizers", json::value_t::array);
    bool byte_level = false;
    for (size_t i = 0; i < steps.size(); ++i) {
      byte_level |= read_pre_tokenizer(f, steps[i], field + ".pretokenizers[" + std::to_string(i) + "]", config);
    }
    return byte_level;
  }
  f.fail(field, "type \"" + type + "\" is not supported (ByteLevel, Split, Sequence)");
}

bool wants_nfc(const JsonFields& f, const json& node, const std::string& field) {
  const std::string type = f.string(node, field, "type");
  if (type == "NFC") return true;
  if (type == "Sequence") {
    const json& steps = f.require(node, field, "normalizers", json::value_t::array);
    bool nfc = false;
    for (size_t i = 0; i < steps.size(); ++i) {
      nfc |= wants_nfc(f, steps[i], field + ".normalizers[" + std::to_string(i) + "]");
    }
    return nfc;
  }
  f.fail(field, "type \"" + type + "\" is not supported (only NFC)");
}

void read_added_tokens(const JsonFields& f, const json& doc, ByteBpeConfig& config) {
  const json* added = f.find(doc, "", "added_tokens");
  if (added == nullptr) return;
  f.expect(*added, json::value_t::array, "added_tokens");
  for (size_t i = 0; i < added->size(); ++i) {
    const std::string field = "added_tokens[" + std::to_string(i) + "]";
    const json& token = (*added)[i];
    config.added.emplace_back(
        f.string(token, field, "content"),
        f.token_id(f.require(token, field, "id", json::value_t::number_integer), JsonFields::join(field, "id")));
  }
}

// The id of a special token given by its text: an added token, else a
// vocabulary piece; -1 when neither.
int32_t find_token(const ByteBpeConfig& config, const std::string& text) {
  for (const auto& [content, id] : config.added) {
    if (content == text) return id;
  }
  const std::string spelling = byte_level::encode(text);
  for (const auto& [piece, id] : config.vocab) {
    if (piece == spelling) return id;
  }
  return -1;
}

// tokenizer_config.json's bos_token / eos_token: a string, {"content": ...} or null.
int32_t config_token(const JsonFields& f, const json& doc, const char* key, const ByteBpeConfig& config,
                     const std::string& tokenizer_path) {
  const json* value = f.find(doc, "", key);
  if (value == nullptr) return -1;
  const std::string text = value->is_object() ? f.string(*value, key, "content")
                                              : f.expect(*value, json::value_t::string, key).get<std::string>();
  const int32_t id = find_token(config, text);
  if (id < 0) f.fail(key, "\"" + text + "\" is not a token of " + tokenizer_path);
  return id;
}

void read_special_tokens(const std::string& path, ByteBpeConfig& config) {
  for (const auto& [content, id] : config.added) {
    if (is_end_of_turn_name(content)) config.end_of_generation.push_back(id);
  }
  const auto config_path = (std::filesystem::path(path).parent_path() / "tokenizer_config.json").string();
  std::error_code error;
  if (std::filesystem::exists(config_path, error)) {
    const json doc = parse(config_path);
    const JsonFields f(config_path);
    config.bos = config_token(f, doc, "bos_token", config, path);
    config.eos = config_token(f, doc, "eos_token", config, path);
    return;
  }
  // No config: the first end-of-turn token, or GPT-2's, whose tokenizer.json
  // has it only in the vocabulary.
  config.eos = config.end_of_generation.empty() ? find_token(config, "<|endoftext|>") : config.end_of_generation[0];
}

}  // namespace

std::unique_ptr<Tokenizer> load_tokenizer_json(const std::string& path) {
  try {
    const json doc = parse(path);
    const JsonFields f(path);
    f.expect(doc, json::value_t::object, "document");
    ByteBpeConfig config;
    config.source = path;
    read_model(f, doc, config);

    const json* pre_tokenizer = f.find(doc, "", "pre_tokenizer");
    if (pre_tokenizer == nullptr || !read_pre_tokenizer(f, *pre_tokenizer, "pre_tokenizer", config)) {
      f.fail("pre_tokenizer",
             "no ByteLevel step: only byte-level BPE is supported (for SentencePiece-style "
             "vocabularies use the GGUF or llama2.c tokenizer.bin)");
    }
    if (const json* normalizer = f.find(doc, "", "normalizer")) config.nfc = wants_nfc(f, *normalizer, "normalizer");
    read_added_tokens(f, doc, config);
    read_special_tokens(path, config);
    return std::make_unique<ByteBpeTokenizer>(config);
  } catch (const json::exception& e) {  // anything the checks above missed
    fail_file(path, e.what());
  }
}

}  // namespace pdbench
