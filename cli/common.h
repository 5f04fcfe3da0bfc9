#pragma once
// Shared option plumbing for the verbs: each verb registers its options and a runner.
#include <cctype>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include "kvplan/kvplan.h"

namespace kvplan::cli {

using Runner = std::function<int()>;

// Registers the option a request table entry names (kvplan/request.h): flag and help text come
// from the table, so the CLI cannot drift from it. `alias` adds a short form ("-n").
template <class T>
CLI::Option* add_field(CLI::App& cmd, std::string_view verb, std::string_view name, T& var, std::string_view alias = {}) {
  const RequestField& f = request_field(verb, name);
  std::string flags(f.cli_flag);
  if (!alias.empty()) flags += "," + std::string(alias);
  CLI::Option* o = cmd.add_option(flags, var, std::string(f.help));
  if constexpr (std::is_same_v<T, std::string>) {
    // Text read by the library's parser: help names the table's type ("TOKENS", "BYTES") rather
    // than "TEXT". (Typed options keep CLI11's INT/FLOAT names, which main's numeric guard reads.)
    std::string type(field_type_name(f.type));
    for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    o->type_name(type);
  }
  return o;
}

// Options every model-reading verb shares.
struct ModelOptions {
  std::string model;
  std::vector<std::string> assume;
  void add(CLI::App& cmd);
  ModelSpec load() const;
};

// --kv-dtype / --k-dtype / --v-dtype / --state-dtype; "auto" = the model's own dtype.
struct DtypeOptions {
  std::string kv = "auto", k, v, state;
  void add(CLI::App& cmd);
  void apply(Workload& w) const;
};

std::optional<Dtype> parse_dtype_or_auto(const std::string& text, const char* flag);
// --weight-dtype: "auto"/empty = the checkpoint's format; a preset (awq, Q4_K_M, ...) or a dtype.
std::optional<WeightFormat> parse_weight_format_or_auto(const std::string& text, const char* flag);

// Prints exactly one JSON object (and a newline) on stdout, tagged with the running verb's
// schema ("schema": "kvplan.<verb>/<version>", docs/schema/).
void print_json(const nlohmann::json& j);
// The verb main() selected; print_json names its schema.
void set_current_verb(std::string verb);

// Each verb file registers itself (KVPLAN_VERB), so adding a verb touches no other file.
using Registrar = void (*)(CLI::App& app, Runner& run);
struct Verb {
  int order;
  Registrar add;
};
std::vector<Verb>& verbs();
struct VerbRegistration {
  VerbRegistration(int order, Registrar add) { verbs().push_back({order, add}); }
};
#define KVPLAN_VERB(order, fn) static const ::kvplan::cli::VerbRegistration kvplan_verb_##fn{order, &fn}

// Exit codes (docs/cli.md): 0 success / PASS; 1 a failed check (kvplan check FAIL, --require-*);
// 2 bad input; 3 kvplan check UNCERTAIN (kvplan::kExitUncertain; 1 with --strict); 4 an internal
// error (a bug: please report it).
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 4;

}  // namespace kvplan::cli
