#pragma once
// Randomly generated, valid Hugging Face configs of every family kvplan maps (dense MHA/GQA/MQA,
// sliding and interleaved windows, chunked + NoPE, MLA and the V3.2 indexer, Mamba-1/2 hybrids,
// Gated DeltaNet, KDA + MLA, short convolution, lightning attention, cross-layer KV sharing),
// shared by the property tests of the core library and of the reference runtime.
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

namespace kvplan::test {

using nlohmann::json;

struct RandomArch {
  std::mt19937_64 rng;
  std::uint64_t pick(std::initializer_list<std::uint64_t> xs) {
    std::uniform_int_distribution<std::size_t> d(0, xs.size() - 1);
    return *(xs.begin() + d(rng));
  }
  std::uint64_t range(std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); }
  bool coin() { return range(0, 1) == 1; }

  json base(const char* model_type) {
    const std::uint64_t heads = pick({4, 8, 16, 32, 64});
    const std::uint64_t kv = coin() && coin() ? 1 : heads / pick({1, 2, 4});  // MHA, GQA, MQA
    json j = {{"model_type", model_type}, {"num_attention_heads", heads}, {"num_key_value_heads", kv},
              {"head_dim", pick({32, 64, 80, 96, 128, 256})}, {"hidden_size", heads * 64},
              {"num_hidden_layers", range(1, 48)}, {"torch_dtype", coin() ? "bfloat16" : "float16"},
              {"vocab_size", 32000}, {"intermediate_size", 4096}};
    return j;
  }

  json config() {
    switch (range(0, 13)) {
      case 0: return base("llama");
      case 1: {
        auto j = base("mistral");
        j["sliding_window"] = range(1, 8192);
        return j;
      }
      case 2: {
        auto j = base("gemma3_text");
        j["sliding_window"] = range(1, 4096);
        j["sliding_window_pattern"] = range(1, 8);
        return j;
      }
      case 3: {
        auto j = base("gpt_oss");
        j["sliding_window"] = range(1, 1024);
        json types = json::array();
        for (std::uint64_t i = 0; i < j["num_hidden_layers"].get<std::uint64_t>(); ++i)
          types.push_back(coin() ? "sliding_attention" : "full_attention");
        j["layer_types"] = types;
        return j;
      }
      case 4: {
        auto j = base("deepseek_v3");
        j["kv_lora_rank"] = pick({128, 256, 512});
        j["qk_rope_head_dim"] = pick({32, 64});
        j["qk_nope_head_dim"] = 128;
        j["v_head_dim"] = 128;
        if (coin()) {
          j["model_type"] = "deepseek_v32";
          j["index_head_dim"] = 128;
        }
        return j;
      }
      case 5: {
        auto j = base("jamba");
        j["attn_layer_period"] = range(2, 8);
        j["attn_layer_offset"] = range(0, j["attn_layer_period"].get<std::uint64_t>() - 1);
        j["mamba_d_state"] = pick({16, 64});
        j["mamba_d_conv"] = pick({2, 4});
        j["mamba_expand"] = 2;
        return j;
      }
      case 6: {
        auto j = base("nemotron_h");
        std::string p;
        for (std::uint64_t i = 0; i < j["num_hidden_layers"].get<std::uint64_t>(); ++i) p += "M*-E"[range(0, 3)];
        j["hybrid_override_pattern"] = p;
        j["mamba_num_heads"] = pick({8, 16, 32});
        j["mamba_head_dim"] = 64;
        j["n_groups"] = pick({1, 2, 8});
        j["ssm_state_size"] = pick({64, 128});
        j["conv_kernel"] = 4;
        return j;
      }
      case 7: {
        auto j = base("qwen3_next");
        j["full_attention_interval"] = range(1, 6);
        j["linear_num_key_heads"] = pick({8, 16});
        j["linear_num_value_heads"] = pick({16, 32});
        j["linear_key_head_dim"] = 128;
        j["linear_value_head_dim"] = 128;
        j["linear_conv_kernel_dim"] = 4;
        return j;
      }
      case 8: {
        auto j = base("lfm2");
        j["conv_L_cache"] = range(2, 4);
        json idx = json::array();
        for (std::uint64_t i = 0; i < j["num_hidden_layers"].get<std::uint64_t>(); ++i)
          if (coin()) idx.push_back(i);
        j["full_attn_idxs"] = idx;
        return j;
      }
      case 9: {
        auto j = base("minimax_m1");
        json t = json::array();
        for (std::uint64_t i = 0; i < j["num_hidden_layers"].get<std::uint64_t>(); ++i) t.push_back(range(0, 1));
        j["attn_type_list"] = t;
        return j;
      }
      case 10: {
        // Llama 4: rope layers chunked, NoPE layers (no_rope_layers[i] == 0) global.
        auto j = base("llama4_text");
        j["attention_chunk_size"] = range(1, 8192);
        json nr = json::array();
        for (std::uint64_t i = 0; i < j["num_hidden_layers"].get<std::uint64_t>(); ++i) nr.push_back(range(0, 1));
        j["no_rope_layers"] = nr;
        return j;
      }
      case 11: {
        // Gemma 3n: pattern 5 (4 sliding : 1 full), the last layers reading earlier caches.
        auto j = base("gemma3n_text");
        const std::uint64_t n = range(6, 40);
        j["num_hidden_layers"] = n;
        j["sliding_window"] = range(1, 4096);
        j["num_kv_shared_layers"] = range(0, n - 5);  // layers 0..4 hold both kinds
        return j;
      }
      case 12: {
        // Kimi Linear: KDA and MLA layers listed by 1-based id.
        auto j = base("kimi_linear");
        j["kv_lora_rank"] = pick({128, 512});
        j["qk_rope_head_dim"] = 64;
        j["qk_nope_head_dim"] = 128;
        j["v_head_dim"] = 128;
        json kda = json::array(), full = json::array();
        for (std::uint64_t i = 1; i <= j["num_hidden_layers"].get<std::uint64_t>(); ++i) (coin() ? kda : full).push_back(i);
        j["linear_attn_config"] = {{"kda_layers", kda}, {"full_attn_layers", full}, {"num_heads", pick({8, 32})},
                                   {"head_dim", pick({64, 128})}, {"short_conv_kernel_size", 4}};
        return j;
      }
      default: {
        auto j = base("mamba");
        j["state_size"] = 16;
        j["conv_kernel"] = 4;
        j["expand"] = 2;
        return j;
      }
    }
  }
};

}  // namespace kvplan::test
