#include "common.h"

#include <iostream>

namespace kvplan::cli {

void ModelOptions::add(CLI::App& cmd) {
  cmd.add_option("MODEL", model, "config.json path, a directory holding one, or a bundled id (kvplan models)")
      ->required();
  cmd.add_option("--assume", assume,
                 "accept an explicit assumption: 'dense' (unknown model_type read as plain attention), "
                 "'dtype=NAME' (model dtype when the config names none)");
}

ModelSpec ModelOptions::load() const {
  LoadOptions opts;
  opts.assume = assume;
  return load_model(model, opts);
}

std::optional<Dtype> parse_dtype_or_auto(const std::string& text, const char* flag) {
  if (text.empty() || text == "auto") return std::nullopt;
  return parse_dtype(text, flag);
}

std::optional<WeightFormat> parse_weight_format_or_auto(const std::string& text, const char* flag) {
  if (text.empty() || text == "auto") return std::nullopt;
  return parse_weight_format(text, flag);
}

void DtypeOptions::add(CLI::App& cmd) {
  // plan, sweep and size share these table entries.
  add_field(cmd, "size", "kv_dtype", kv)->capture_default_str();
  add_field(cmd, "size", "k_dtype", k);
  add_field(cmd, "size", "v_dtype", v);
  add_field(cmd, "size", "state_dtype", state);
}

void DtypeOptions::apply(Workload& w) const {
  auto both = parse_dtype_or_auto(kv, "--kv-dtype");
  w.k_dtype = k.empty() ? both : parse_dtype_or_auto(k, "--k-dtype");
  w.v_dtype = v.empty() ? both : parse_dtype_or_auto(v, "--v-dtype");
  w.state_dtype = parse_dtype_or_auto(state, "--state-dtype");
}

std::vector<Verb>& verbs() {
  static std::vector<Verb> v;
  return v;
}

namespace {
std::string& current_verb() {
  static std::string verb;
  return verb;
}
}  // namespace

void set_current_verb(std::string verb) { current_verb() = std::move(verb); }

void print_json(const nlohmann::json& j) {
  // Names and paths come from the user and may not be valid UTF-8: replace, never throw.
  std::cout << with_schema(current_verb(), j).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace kvplan::cli
