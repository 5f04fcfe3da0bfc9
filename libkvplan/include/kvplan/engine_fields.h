#pragma once
// Engine options as data: one field table per engine (name, CLI flags, type, unit, default, help
// and a typed setter into the options struct of kvplan/engines.h). `kvplan engine` registers its
// flags from the tables, kvplan.engine() takes the tables' names as keywords, and
// kvplan.fields("engine.vllm") lists them, so an option cannot exist in one face and not another.
// The names are the options structs' members; the flags are the ones `kvplan engine` has always
// taken (the engines' own spellings where they have one). A flag several engines read (--tp,
// --kv-cache-dtype, --gpu-memory, ...) is in the table of each.
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/engine_ollama.h"
#include "kvplan/engines.h"
#include "kvplan/fields.h"

namespace kvplan {

struct EngineField {
  std::string_view name;           // the options struct member, the Python keyword
  std::string_view cli_flags;      // "--tensor-parallel-size,--tp-size,--tp": the first names the option in messages
  FieldType type;
  std::string_view unit;           // "tokens", "bytes", "" (none)
  std::string_view default_value;  // as text; "" = unset (the engine decides, see help)
  std::string_view help;
};

// A table entry with its setter and getter: `set` reads `value` by the field's type and writes it
// into the struct (errors name the option as `label`); `get` reads the member back as JSON (null
// when unset), for the request echo.
template <class Options>
struct EngineOptionField : EngineField {
  void (*set)(Options& options, const nlohmann::json& value, FieldType type, std::string_view label);
  nlohmann::json (*get)(const Options& options);
};

std::span<const EngineOptionField<VllmOptions>> vllm_fields();
std::span<const EngineOptionField<LlamaCppOptions>> llamacpp_fields();
std::span<const EngineOptionField<SglangOptions>> sglang_fields();
std::span<const EngineOptionField<TrtllmOptions>> trtllm_fields();
std::span<const EngineOptionField<OllamaOptions>> ollama_fields();
// Any engine's table without the setters (the CLI's flags and help, kvplan.fields("engine.vllm")).
std::vector<EngineField> engine_fields(EngineKind e);
// The name a field goes by in messages: its first CLI flag, or its name.
std::string_view field_label(const EngineField& f, FieldNaming naming);

// The engine option parsers every face calls. `request` is an object of the engine table's fields
// (keys: the names); values as in kvplan/fields.h, null/""/[] meaning the default. An unknown key
// or a bad value is an InputError naming the option as `naming` spells it.
// SGLang: free_before_bytes unset is the device total (gpu_memory_bytes), as nothing else is loaded.
VllmOptions vllm_options_from_request(const nlohmann::json& request, FieldNaming naming = FieldNaming::keyword);
LlamaCppOptions llamacpp_options_from_request(const nlohmann::json& request, FieldNaming naming = FieldNaming::keyword);
SglangOptions sglang_options_from_request(const nlohmann::json& request, FieldNaming naming = FieldNaming::keyword);
TrtllmOptions trtllm_options_from_request(const nlohmann::json& request, FieldNaming naming = FieldNaming::keyword);
OllamaOptions ollama_options_from_request(const nlohmann::json& request, FieldNaming naming = FieldNaming::keyword);

// The options as the parser resolved them, one key per table field (null: unset, the engine
// decides): `kvplan engine --json`'s "request", the same from every face.
nlohmann::json request_json(const VllmOptions& o);
nlohmann::json request_json(const LlamaCppOptions& o);
nlohmann::json request_json(const SglangOptions& o);
nlohmann::json request_json(const TrtllmOptions& o);
nlohmann::json request_json(const OllamaOptions& o);

// One `kvplan engine` run as every face shows it (the CLI, kvplan.engine(), the page): `request`
// read by the engine's table, the profile, its JSON with "model" and "request" (request_json), and
// its text report (without the model line).
struct EngineReport {
  nlohmann::json json;
  std::string text;
};
EngineReport engine_report(EngineKind kind, const ModelSpec& m, const nlohmann::json& request,
                           FieldNaming naming = FieldNaming::keyword);

// {"name", "cli_flag", "cli_aliases", "type", "unit", "default", "help"} ("default": null when unset).
nlohmann::json to_json(const EngineField& f);

}  // namespace kvplan
