#pragma once
// Each engine's command-line flags as data: one table per engine (flags_<engine>.cpp), every flag
// of its current CLI classified as modelled (changes memory), ignored (does not) — anything else is
// unknown and an error with a did-you-mean. The parser follows each engine's own syntax.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvplan/deploy.h"

namespace kvplan::detail {

enum class Arity { none, one, two, optional, many };   // many: nargs='+' (until the next flag)
enum class FlagEffect { memory, ignored, unmodelled };

struct FlagDef {
  std::vector<std::string> names;   // canonical first
  Arity arity = Arity::one;
  FlagEffect effect = FlagEffect::ignored;
  std::string env;                  // llama.cpp's LLAMA_ARG_* (or "")
  std::vector<std::string> negations;  // --no-x spellings (BooleanOptionalAction, llama.cpp's --no-*)
  std::string why;                  // unmodelled: what memory it changes that kvplan does not count
};

struct EngineFlagTable {
  std::string engine;               // "vllm", ...
  std::string provenance;           // repository, commit and path the table was read from
  std::vector<FlagDef> flags;
  bool underscores_to_dashes = false;  // vLLM's FlexibleArgumentParser, llama.cpp: --a_b == --a-b
  bool equals_values = true;           // --flag=value (argparse, click); llama.cpp: no
  bool dotted_keys = false;            // vLLM --compilation-config.mode 3
  bool positional_model = false;       // vllm serve MODEL, trtllm-serve MODEL
  bool negative_numbers_as_values = true;
  bool allow_abbrev = false;           // argparse's default: a unique prefix names a flag (SGLang)
  // name -> index into flags (built once)
  std::map<std::string, std::size_t> by_name;
  std::map<std::string, std::size_t> by_negation;
  std::map<std::string, std::size_t> by_env;
};

// The table of one engine (built on first use from the engine's file).
const EngineFlagTable& engine_flag_table(EngineKind e);
// Table sources, one per engine.
EngineFlagTable vllm_flag_table();
EngineFlagTable sglang_flag_table();
EngineFlagTable llamacpp_flag_table();
EngineFlagTable trtllm_flag_table();
EngineFlagTable ollama_flag_table();

// Builds a table from lines "NAMES | arity | effect [| env=NAME] [| neg=--no-x ...] [| why=TEXT]" where
// NAMES is space-separated, arity is 0, 1, 2, ? or +, effect is memory, ignored or unmodelled (why=
// says what memory it changes that kvplan does not count); # starts a comment.
EngineFlagTable make_flag_table(std::string engine, std::string provenance, std::string_view text);

// Parsed flags: canonical name -> value ("true"/"false" for switches), the last one wins as in
// the engines' parsers; `ignored` lists the flags that do not change memory, as given.
struct ParsedFlags {
  std::map<std::string, std::string> values;
  std::vector<std::string> ignored;
  std::vector<std::string> unmodelled;   // flags taking GPU memory kvplan does not model
  std::map<std::string, std::string> unmodelled_why;  // flag as given -> what it changes (from the table)
  std::vector<std::string> abbreviations;  // "--given = --full" (argparse allow_abbrev)
  std::string positional;   // the model given positionally
  bool has(const std::string& k) const { return values.count(k) > 0; }
  const std::string& get(const std::string& k) const { return values.at(k); }
};

// Parses `args` (and the engine's env variables) with the engine's table and syntax. `base_dir`
// resolves --config files. Errors name the engine, the flag and where to put kvplan's options.
ParsedFlags parse_engine_flags(EngineKind e, const std::vector<std::string>& args,
                               const std::vector<std::pair<std::string, std::string>>& env, const std::string& base_dir);

// What an unmodelled flag changes that kvplan does not count (the table's why=, or a general line).
std::string unmodelled_reason(const FlagDef& f);

// SGLang --chunked-prefill-size (argparse type=int), the one reading check and simulate share: the
// scheduler's init_chunked_prefill (python/sglang/srt/managers/scheduler.py) turns chunked prefill
// off for a value <= 0 (-1 as documented, 0 too); below -1 is refused. `size` is empty when the
// flag is absent or turns it off (`off`).
struct SglangChunkedPrefill {
  std::optional<std::uint64_t> size;
  bool off = false;
};
SglangChunkedPrefill sglang_chunked_prefill(const ParsedFlags& f);

// Numbers as each engine's parser reads them.
// vLLM's human_readable_int: 32k = 32,000 (decimal, lower case, decimals allowed), 32K = 32,768
// (binary, upper case, whole numbers only), t/T too.
std::uint64_t vllm_int(const std::string& text, std::string_view flag);
// Python int() / C++ std::stoi: plain (optionally signed) decimal integers.
std::int64_t plain_int(const std::string& text, std::string_view flag);
std::uint64_t plain_uint(const std::string& text, std::string_view flag);
double plain_float(const std::string& text, std::string_view flag);
// argparse/click/llama.cpp boolean spellings for flags given a value.
bool flag_truthy(const std::string& text, std::string_view flag);

// Reads a file named in a command (--config, --extra_llm_api_options): a regular file of at most
// kMaxCommandFileBytes. From a deployment file (base_dir not empty) a relative path not found as
// given is resolved against base_dir, and the file must lie inside base_dir, symlinks resolved
// (contained_path, kvplan/files.h); an absolute path or `..` out of it is an InputError naming the
// flag and the path. An empty base_dir (the user's own command line) reads the path as given.
inline constexpr std::uint64_t kMaxCommandFileBytes = 1ull << 20;  // a --config / --extra_llm_api_options YAML
std::string read_command_file(const std::string& path, const std::string& base_dir, std::string_view flag);

}  // namespace kvplan::detail
