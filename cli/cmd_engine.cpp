// kvplan engine ENGINE MODEL ...: what vLLM / llama.cpp / SGLang / TensorRT-LLM / Ollama allocate and log.
#include <algorithm>
#include <array>
#include <cctype>
#include <iostream>

#include "common.h"
#include "kvplan/engine_fields.h"
#include "kvplan/engines.h"

namespace kvplan::cli {

namespace {
// One flag of the union of the engine tables (kvplan/engine_fields.h): registered once, read by
// every engine whose table spells it.
struct EngineFlag {
  std::string flags;               // "--tensor-parallel-size,--tp-size,--tp"
  FieldType type = FieldType::text;
  std::vector<EngineKind> engines;  // the engines whose table has it
  CLI::Option* option = nullptr;
  std::string text;                 // a value flag's text as typed
  std::vector<std::string> list;    // a list flag's values
  bool on = false;                  // a switch
};

struct EngineOptions {
  std::string engine;
  ModelOptions model;
  bool json = false;
  std::vector<EngineFlag> flags;
};

// The table entries of `kind` a given flag sets, as one request object (kvplan/engine_fields.h);
// a flag another engine reads is an error, never silently ignored (`engine vllm --ctx-size 4096`
// is llama.cpp's n_ctx, not vLLM's max_model_len).
nlohmann::json engine_request(EngineKind kind, const std::vector<EngineFlag>& flags) {
  nlohmann::json req = nlohmann::json::object();
  const std::vector<EngineField> table = engine_fields(kind);
  for (const auto& f : flags) {
    if (f.option->count() == 0) continue;
    if (std::find(f.engines.begin(), f.engines.end(), kind) == f.engines.end()) {
      std::string owners;
      for (EngineKind e : f.engines) owners += (owners.empty() ? "" : ", ") + std::string(engine_name(e));
      throw InputError::value(f.option->get_name(), "given for engine " + std::string(engine_name(kind)),
                              "an option of " + std::string(engine_name(kind)) + " (" + f.option->get_name() +
                                  " is read by " + owners + " only; see kvplan engine --help)");
    }
    for (const auto& field : table) {
      if (field.cli_flags != f.flags) continue;
      if (field.type == FieldType::boolean) req[std::string(field.name)] = field.default_value != "true";  // the switch turns it over
      else if (field_is_list(field.type)) req[std::string(field.name)] = f.list;
      else req[std::string(field.name)] = f.text;
    }
  }
  return req;
}

int run_engine(const EngineOptions& o) {
  const EngineKind kind = parse_engine(o.engine);
  const nlohmann::json req = engine_request(kind, o.flags);
  const ModelSpec m = o.model.load();
  const EngineReport r = engine_report(kind, m, req, FieldNaming::cli_flag);
  if (o.json) print_json(r.json);
  else std::cout << m.name << "\n" << r.text;
  return 0;
}
}  // namespace

static void register_engine(CLI::App& app, Runner& run) {
  auto o = std::make_shared<EngineOptions>();
  auto* cmd = app.add_subcommand("engine", "what an inference engine (vllm, llama.cpp, sglang, trtllm, ollama) allocates and logs");
  cmd->add_option("ENGINE", o->engine, "vllm, llama.cpp, sglang, trtllm or ollama")->required();
  o->model.add(*cmd);
  cmd->add_flag("--json", o->json, "print one JSON object");
  // The union of the engine tables: a flag read by several engines goes in "shared" (first), the
  // others in their engine's group; help, type and default come from the first table that has it.
  constexpr std::array kinds{EngineKind::vllm, EngineKind::llamacpp, EngineKind::sglang, EngineKind::trtllm, EngineKind::ollama};
  constexpr std::array groups{"vLLM", "llama.cpp", "SGLang", "TensorRT-LLM", "Ollama"};
  std::vector<EngineField> first;  // per flag, the entry its help comes from
  for (EngineKind k : kinds) {
    for (const EngineField& f : engine_fields(k)) {
      auto it = std::find_if(o->flags.begin(), o->flags.end(), [&](const EngineFlag& e) { return e.flags == f.cli_flags; });
      if (it == o->flags.end()) {
        o->flags.push_back({std::string(f.cli_flags), f.type, {k}});
        first.push_back(f);
      } else if (it->engines.back() != k) {
        it->engines.push_back(k);
      }
    }
  }
  // o->flags is complete: the options below hold pointers into it.
  for (bool shared : {true, false}) {
    for (std::size_t i = 0; i < o->flags.size(); ++i) {
      EngineFlag& e = o->flags[i];
      if ((e.engines.size() > 1) != shared) continue;
      const EngineField& f = first[i];
      std::string help(f.help);
      std::string group = "shared";
      if (shared) {
        help += " [";
        for (EngineKind k : e.engines) help += std::string(k == e.engines.front() ? "" : ", ") + std::string(engine_name(k));
        help += "]";
      } else {
        group = groups[static_cast<std::size_t>(std::find(kinds.begin(), kinds.end(), e.engines.front()) - kinds.begin())];
      }
      std::string type(field_type_name(f.type));
      for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (f.type == FieldType::boolean) {
        e.option = cmd->add_flag(e.flags, e.on, help);
      } else if (field_is_list(f.type)) {
        e.option = cmd->add_option(e.flags, e.list, help)->type_name(type)->delimiter(',');
      } else {
        e.option = cmd->add_option(e.flags, e.text, help)->type_name(type);
        if (!f.default_value.empty()) e.option->default_str(std::string(f.default_value));
      }
      e.option->group(group);
    }
  }
  cmd->callback([&run, o] {
    run = [o] { return run_engine(*o); };
  });
}

KVPLAN_VERB(40, register_engine);

}  // namespace kvplan::cli
