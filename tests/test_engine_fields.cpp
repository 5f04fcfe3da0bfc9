// The engine option tables (kvplan/engine_fields.h): each table's default text is the options
// struct's default, values are read by the field's type, and messages name the option as the
// caller spells it. (CLI/Python parity: tests/cli/test_engine_fields_cli.py.)
#include "helpers.h"
#include "kvplan/engine_fields.h"

using namespace kvplan;
using kvplan::test::HasMessage;
using json = nlohmann::json;

namespace {
// A request setting every field that has a default to its default text, on top of `base`.
template <class O>
json defaults_request(std::span<const EngineOptionField<O>> table, json base) {
  for (const auto& f : table) {
    if (f.default_value.empty() || base.contains(std::string(f.name))) continue;
    base[std::string(f.name)] = f.type == FieldType::boolean ? json(f.default_value == "true") : json(f.default_value);
  }
  return base;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(engine_fields)

// Written twice (the struct's initialiser and the table's text) and checked here: the same profile
// with every default given as text as with none given, on models where the options matter.
BOOST_AUTO_TEST_CASE(table_defaults_are_the_struct_defaults) {
  for (const char* name : {"google/gemma-3-1b-it", "Qwen/Qwen3-Next-80B-A3B-Thinking", "deepseek-ai/DeepSeek-V3"}) {
    BOOST_TEST_CONTEXT(name) {
      const ModelSpec m = load_model(name);
      const json vb{{"kv_cache_memory_bytes", "20GiB"}};
      BOOST_TEST(to_json(vllm_profile(m, vllm_options_from_request(defaults_request(vllm_fields(), vb)))) ==
                 to_json(vllm_profile(m, vllm_options_from_request(vb))));
      BOOST_TEST(to_json(llamacpp_profile(m, llamacpp_options_from_request(defaults_request(llamacpp_fields(), json::object())))) ==
                 to_json(llamacpp_profile(m, llamacpp_options_from_request(json::object()))));
      const json sb{{"rest_bytes", "20GiB"}};
      BOOST_TEST(to_json(sglang_profile(m, sglang_options_from_request(defaults_request(sglang_fields(), sb)))) ==
                 to_json(sglang_profile(m, sglang_options_from_request(sb))));
      const json tb{{"kv_memory_bytes", "20GiB"}};
      BOOST_TEST(to_json(trtllm_profile(m, trtllm_options_from_request(defaults_request(trtllm_fields(), tb)))) ==
                 to_json(trtllm_profile(m, trtllm_options_from_request(tb))));
    }
  }
}

BOOST_AUTO_TEST_CASE(values_by_type) {
  const VllmOptions v = vllm_options_from_request(
      {{"max_model_len", "32k"}, {"kv_cache_memory_bytes", "1.5GiB"}, {"tensor_parallel_size", 2},
       {"gpu_memory_utilization", "0.85"}, {"enable_prefix_caching", false}, {"block_size", nullptr}});
  BOOST_TEST(v.max_model_len == 32768u);
  BOOST_TEST(*v.kv_cache_memory_bytes == 1610612736u);  // 1.5 x 2^30
  BOOST_TEST(v.tensor_parallel_size == 2u);
  BOOST_TEST(v.gpu_memory_utilization == 0.85);
  BOOST_TEST(!v.enable_prefix_caching);
  BOOST_TEST(!v.block_size.has_value());  // null: the default
  const TrtllmOptions t = trtllm_options_from_request({{"max_attention_window", "512,512,32k"}});
  BOOST_TEST(t.max_attention_window == (std::vector<std::uint64_t>{512, 512, 32768}), boost::test_tools::per_element());
  // SGLang: the free memory before weights is the device total unless given.
  BOOST_TEST(sglang_options_from_request({{"gpu_memory_bytes", "80GiB"}}).free_before_bytes == 80ull << 30);
  BOOST_TEST(sglang_options_from_request({{"gpu_memory_bytes", "80GiB"}, {"free_before_bytes", "78GiB"}}).free_before_bytes ==
             78ull << 30);
}

BOOST_AUTO_TEST_CASE(messages_name_the_flag_or_the_keyword) {
  BOOST_CHECK_EXCEPTION(vllm_options_from_request({{"tensor_parallel_size", "0"}}, FieldNaming::cli_flag), InputError,
                        (HasMessage{"--tensor-parallel-size", "positive whole number", "\"0\""}));
  BOOST_CHECK_EXCEPTION(vllm_options_from_request({{"tensor_parallel_size", 0}}), InputError,
                        (HasMessage{"tensor_parallel_size", "positive whole number"}));
  BOOST_CHECK_EXCEPTION(llamacpp_options_from_request({{"ctx_size", "-4"}}, FieldNaming::cli_flag), InputError,
                        (HasMessage{"--ctx-size", "non-negative"}));
  BOOST_CHECK_EXCEPTION(llamacpp_options_from_request({{"kv_unified", "yes"}}), InputError,
                        (HasMessage{"kv_unified", "true or false", "yes"}));
  BOOST_CHECK_EXCEPTION(sglang_options_from_request({{"mem_fraction_static", "most"}}), InputError,
                        (HasMessage{"mem_fraction_static", "most"}));
  BOOST_CHECK_EXCEPTION(vllm_options_from_request({{"max_model_lenn", 4096}}), InputError,
                        (HasMessage{"vllm option", "max_model_lenn", "the options are", "max_model_len"}));
  BOOST_CHECK_EXCEPTION(vllm_options_from_request(json::array()), InputError, (HasMessage{"vllm options", "an object"}));
}

BOOST_AUTO_TEST_CASE(tables_are_well_formed) {
  for (EngineKind e : {EngineKind::vllm, EngineKind::llamacpp, EngineKind::sglang, EngineKind::trtllm}) {
    BOOST_TEST_CONTEXT(engine_name(e)) {
      const auto table = kvplan::engine_fields(e);
      BOOST_TEST(table.size() >= 10u);
      for (std::size_t i = 0; i < table.size(); ++i) {
        BOOST_TEST(!table[i].help.empty());
        BOOST_TEST(table[i].cli_flags.rfind("--", 0) == 0u);  // every field has a CLI flag, long form first
        for (std::size_t j = 0; j < i; ++j) BOOST_TEST(table[i].name != table[j].name);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
