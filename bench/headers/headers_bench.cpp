// Bytes read and time for load_model on sparse multi-GB checkpoints (the header is real, the
// tensor data a hole): the readers must touch the header only. A report, not a test.
//   kvplan_bench_headers SOURCE_DIR
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "gguf_writer.h"
#include "kvplan/kvplan.h"

namespace fs = std::filesystem;
using u64 = std::uint64_t;

namespace {
u64 rchar() {
  std::ifstream in("/proc/self/io");
  std::string k;
  u64 v = 0;
  while (in >> k >> v)
    if (k == "rchar:") return v;
  return 0;
}

void measure(const char* what, const std::string& model, u64 file_bytes, u64 header_bytes) {
  const u64 before = rchar();
  const auto t0 = std::chrono::steady_clock::now();
  auto m = kvplan::load_model(model);
  auto w = kvplan::weight_bytes(m);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const u64 read = rchar() - before;
  std::printf("%-12s file %14llu B  header %10llu B  read %10llu B (header + %lld B)  weights %14llu B  %7.2f ms\n",
              what, static_cast<unsigned long long>(file_bytes), static_cast<unsigned long long>(header_bytes),
              static_cast<unsigned long long>(read), static_cast<long long>(read) - static_cast<long long>(header_bytes),
              static_cast<unsigned long long>(w.total), ms);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: kvplan_bench_headers SOURCE_DIR\n";
    return 2;
  }
  kvplan::test::TempDir t;
  // safetensors: Llama-3.1-8B-shaped bf16 shards, 4 files.
  {
    std::ifstream cfg(std::string(argv[1]) + "/model_configs/meta-llama__Llama-3.1-8B.json");
    std::ofstream(t.path / "config.json") << cfg.rdbuf();
    u64 header = 0, total = 0;
    for (int s = 0; s < 4; ++s) {
      std::vector<kvplan::test::StTensor> ts;
      for (int i = s * 8; i < s * 8 + 8; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        for (auto [n, r, c] : {std::tuple{"self_attn.q_proj", 4096, 4096}, {"self_attn.k_proj", 1024, 4096},
                               {"self_attn.v_proj", 1024, 4096}, {"self_attn.o_proj", 4096, 4096},
                               {"mlp.gate_proj", 14336, 4096}, {"mlp.up_proj", 14336, 4096}, {"mlp.down_proj", 4096, 14336}})
          ts.push_back({p + n + ".weight", "BF16", {u64(r), u64(c)}, u64(r) * c * 2});
      }
      char name[64];
      std::snprintf(name, sizeof name, "model-%05d-of-00004.safetensors", s + 1);
      header += kvplan::test::write_safetensors(t.path / name, ts);
      total += fs::file_size(t.path / name);
    }
    measure("safetensors", t.path.string(), total, header);
  }
  // GGUF: the same shapes in Q8_0 plus a 128,256-string vocabulary in the header.
  {
    kvplan::test::GgufWriter w;
    w.str("general.architecture", "llama");
    w.u32("llama.block_count", 32);
    w.u32("llama.embedding_length", 4096);
    w.u32("llama.attention.head_count", 32);
    w.u32("llama.attention.head_count_kv", 8);
    w.u32("llama.feed_forward_length", 14336);
    w.u32("llama.context_length", 131072);
    w.str_array("tokenizer.ggml.tokens", 128256, "token_");
    for (int i = 0; i < 32; ++i)
      for (auto [n, r, c] : {std::tuple{"attn_q", 4096, 4096}, {"attn_k", 1024, 4096}, {"attn_v", 1024, 4096},
                             {"attn_output", 4096, 4096}, {"ffn_gate", 14336, 4096}, {"ffn_up", 14336, 4096},
                             {"ffn_down", 4096, 14336}})
        w.tensor("blk." + std::to_string(i) + "." + n + ".weight", {u64(c), u64(r)}, 8, u64(r) * c / 32 * 34);
    const fs::path f = t.path / "model.gguf";
    const u64 header = w.write(f);
    measure("gguf", f.string(), fs::file_size(f), header);
  }
  return 0;
}
