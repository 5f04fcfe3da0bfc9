// Models as users have them: resolution (paths, the Hugging Face cache, the Ollama store, the
// catalog), safetensors headers, GGUF headers. Files are built in a temp dir by the writers in
// gguf_writer.h (byte layouts from ggml's docs/gguf.md and safetensors' format spec); expected
// byte counts are computed here from shapes and block sizes, independently of the readers.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "gguf_writer.h"
#include "helpers.h"
#include "kvplan/check.h"
#include "kvplan/checkpoint.h"
#include "kvplan/engines.h"
#include "kvplan/gguf.h"
#include "kvplan/weights.h"
#include "model/quantization_internal.h"

using namespace kvplan;
using kvplan::test::EnvVar;
using kvplan::test::GgufWriter;
using kvplan::test::HasMessage;
using kvplan::test::TempDir;
namespace fs = std::filesystem;
using u64 = std::uint64_t;

namespace {

void write_text(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

std::string bundled_json(const std::string& id) { return std::string(find_bundled(id)->json); }

// A Hugging Face cache entry: refs/main -> snapshots/<hash>/config.json (+ refs/v1 -> another).
fs::path make_hf_entry(const fs::path& hub, const std::string& id, const std::string& config_json) {
  std::string folder = "models--" + id;
  folder.replace(folder.find('/'), 1, "--");
  const fs::path entry = hub / folder;
  write_text(entry / "refs" / "main", "0123abcd\n");
  write_text(entry / "snapshots" / "0123abcd" / "config.json", config_json);
  write_text(entry / "refs" / "v1", "4567ef01");
  write_text(entry / "snapshots" / "4567ef01" / "config.json", config_json);
  return entry;
}

// A llama-architecture GGUF as convert_hf_to_gguf.py writes Llama-3.1-8B's metadata (keys from
// llama.cpp's llama-arch.cpp): 32 blocks, 32 heads, 8 KV heads, head dim 128.
void llama8b_metadata(GgufWriter& w) {
  w.str("general.architecture", "llama");
  w.str("general.name", "Llama 3.1 8B");
  w.u32("general.alignment", 32);
  w.u32("llama.block_count", 32);
  w.u32("llama.context_length", 131072);
  w.u32("llama.embedding_length", 4096);
  w.u32("llama.feed_forward_length", 14336);
  w.u32("llama.attention.head_count", 32);
  w.u32("llama.attention.head_count_kv", 8);
  w.f32("llama.rope.freq_base", 500000.0f);
  w.u32("llama.vocab_size", 128256);
  w.str_array("tokenizer.ggml.tokens", 5000, "tok");  // longer than kept: counted, skipped
}

// Q4_K: 256 values in 144 bytes; Q6_K: 256 in 210; F32: 4 bytes (ggml's type traits).
u64 q4k(u64 rows, u64 cols) { return rows * (cols / 256) * 144; }
u64 q6k(u64 rows, u64 cols) { return rows * (cols / 256) * 210; }

// Llama-3.1-8B's tensors in a Q4_K_M-like mix: expected bytes are summed here by hand.
u64 llama8b_tensors(GgufWriter& w) {
  u64 sum = 0;
  auto add = [&](const std::string& n, std::vector<u64> ne, std::uint32_t type, u64 bytes) {
    w.tensor(n, std::move(ne), type, bytes);
    sum += bytes;
  };
  add("token_embd.weight", {4096, 128256}, 12, q4k(128256, 4096));
  add("output.weight", {4096, 128256}, 14, q6k(128256, 4096));
  add("output_norm.weight", {4096}, 0, 4096 * 4);
  for (int i = 0; i < 32; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    add(b + "attn_q.weight", {4096, 4096}, 12, q4k(4096, 4096));
    add(b + "attn_k.weight", {4096, 1024}, 12, q4k(1024, 4096));
    add(b + "attn_v.weight", {4096, 1024}, 14, q6k(1024, 4096));
    add(b + "attn_output.weight", {4096, 4096}, 12, q4k(4096, 4096));
    add(b + "ffn_gate.weight", {4096, 14336}, 12, q4k(14336, 4096));
    add(b + "ffn_up.weight", {4096, 14336}, 12, q4k(14336, 4096));
    add(b + "ffn_down.weight", {14336, 4096}, 14, q6k(4096, 14336));
    add(b + "attn_norm.weight", {4096}, 0, 4096 * 4);
    add(b + "ffn_norm.weight", {4096}, 0, 4096 * 4);
  }
  return sum;
}

u64 io_rchar() {
  std::ifstream in("/proc/self/io");
  std::string k;
  u64 v = 0;
  while (in >> k >> v)
    if (k == "rchar:") return v;
  return 0;
}

LlamaCppOptions llama_ctx(u64 c) {
  LlamaCppOptions o;
  o.ctx_size = c;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(checkpoints)

// ---- resolution --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(hf_cache_by_each_environment_variable) {
  TempDir t;
  const std::string cfg = bundled_json("meta-llama/Llama-3.2-1B-Instruct");
  // HF_HUB_CACHE
  make_hf_entry(t.path / "hubcache", "acme/Tiny-1B", cfg);
  {
    EnvVar a("HF_HUB_CACHE", (t.path / "hubcache").c_str()), b("HF_HOME", nullptr);
    auto r = resolve_model("acme/Tiny-1B");
    BOOST_TEST(r.how == "hf-cache");
    BOOST_TEST(r.config == t.path / "hubcache" / "models--acme--Tiny-1B" / "snapshots" / "0123abcd" / "config.json");
    auto m = load_model("acme/Tiny-1B");
    BOOST_TEST(m.num_layers() == 16u);
    BOOST_TEST(m.source.find("snapshots/0123abcd") != std::string::npos);
    // A revision: a ref name or the commit hash itself.
    BOOST_TEST(resolve_model("acme/Tiny-1B@v1").config.string().find("4567ef01") != std::string::npos);
    BOOST_TEST(resolve_model("acme/Tiny-1B@0123abcd").config.string().find("0123abcd") != std::string::npos);
    BOOST_CHECK_EXCEPTION(resolve_model("acme/Tiny-1B@v9"), InputError, HasMessage({"refs/v9"}));
  }
  // HF_HOME/hub
  make_hf_entry(t.path / "hfhome" / "hub", "acme/Tiny-1B", cfg);
  {
    EnvVar a("HF_HUB_CACHE", nullptr), b("HF_HOME", (t.path / "hfhome").c_str());
    BOOST_TEST(resolve_model("acme/Tiny-1B").config.string().find("hfhome/hub/models--acme--Tiny-1B") != std::string::npos);
  }
  // ~/.cache/huggingface/hub
  make_hf_entry(t.path / "home" / ".cache" / "huggingface" / "hub", "acme/Tiny-1B", cfg);
  {
    EnvVar a("HF_HUB_CACHE", nullptr), b("HF_HOME", nullptr), c("HOME", (t.path / "home").c_str());
    BOOST_TEST(hf_hub_cache_dir() == t.path / "home" / ".cache" / "huggingface" / "hub");
    BOOST_TEST(resolve_model("acme/Tiny-1B").how == "hf-cache");
  }
}

BOOST_AUTO_TEST_CASE(hf_cache_entry_folder_and_missing_config) {
  TempDir t;
  const fs::path entry = make_hf_entry(t.path, "acme/Tiny-1B", bundled_json("meta-llama/Llama-3.2-1B-Instruct"));
  // A models--org--name folder given as a path.
  auto r = resolve_model(entry.string());
  BOOST_TEST(r.how == "path");
  BOOST_TEST(r.config.string().find("0123abcd") != std::string::npos);
  // A cache entry without config.json (weights-only download) says how to fetch it.
  fs::remove(entry / "snapshots" / "0123abcd" / "config.json");
  EnvVar a("HF_HUB_CACHE", t.path.c_str());
  BOOST_CHECK_EXCEPTION(resolve_model("acme/Tiny-1B"), InputError,
                        HasMessage({"huggingface-cli download acme/Tiny-1B config.json"}));
}

BOOST_AUTO_TEST_CASE(cache_beats_catalog_and_catalog_still_works) {
  TempDir t;
  // A cache entry for a bundled id wins (the user's own copy), with a different layer count.
  auto cfg = nlohmann::json::parse(bundled_json("meta-llama/Llama-3.1-8B"));
  cfg["num_hidden_layers"] = 4;
  make_hf_entry(t.path, "meta-llama/Llama-3.1-8B", cfg.dump());
  {
    EnvVar a("HF_HUB_CACHE", t.path.c_str());
    BOOST_TEST(load_model("meta-llama/Llama-3.1-8B").num_layers() == 4u);
  }
  EnvVar a("HF_HUB_CACHE", (t.path / "empty").c_str());
  BOOST_TEST(resolve_model("meta-llama/Llama-3.1-8B").how == "bundled");
  BOOST_TEST(load_model("META-LLAMA/llama-3.1-8b").num_layers() == 32u);
}

BOOST_AUTO_TEST_CASE(unknown_model_lists_where_it_looked) {
  TempDir t;
  EnvVar a("HF_HUB_CACHE", t.path.c_str());
  // The model's pre-rename name (the Hub redirects it; the catalog holds the current id).
  BOOST_CHECK_EXCEPTION(
      load_model("meta-llama/Meta-Llama-3.1-8B-Instruct"), InputError,
      HasMessage({"unknown model \"meta-llama/Meta-Llama-3.1-8B-Instruct\"", "looked in",
                  (t.path / "models--meta-llama--Meta-Llama-3.1-8B-Instruct").string(), "bundled catalog",
                  "`huggingface-cli download meta-llama/Meta-Llama-3.1-8B-Instruct config.json` fetches its config",
                  "did you mean meta-llama/Llama-3.1-8B-Instruct"}));
  // Same family and size first: Qwen3-32B -> a Qwen3 model; Meta-Llama-3.1-8B-Instruct -> the 8B.
  auto s = suggest_models("meta-llama/Meta-Llama-3.1-8B-Instruct");
  BOOST_REQUIRE(!s.empty());
  BOOST_TEST(s[0] == "meta-llama/Llama-3.1-8B-Instruct");
  // "-vl" is part of the family: the text model Qwen3-8B comes before Qwen3-VL-8B-Instruct, which
  // is nearer by edit distance; a VL query still finds the VL model.
  auto q = suggest_models("Qwen/Qwen3-8B-Instruct");
  BOOST_REQUIRE(!q.empty());
  BOOST_TEST(q[0] == "Qwen/Qwen3-8B");
  auto vl = suggest_models("Qwen/Qwen3-VL-8B-Thinking");
  BOOST_REQUIRE(!vl.empty());
  BOOST_TEST(vl[0] == "Qwen/Qwen3-VL-8B-Instruct");
}

BOOST_AUTO_TEST_CASE(ollama_store_manifest_to_blob) {
  TempDir t;
  const std::string hex(64, 'a');
  GgufWriter w;
  llama8b_metadata(w);
  llama8b_tensors(w);
  fs::create_directories(t.path / "blobs");
  w.write(t.path / "blobs" / ("sha256-" + hex));
  // Ollama's manifest: OCI-style JSON whose model layer names the GGUF blob by digest.
  const std::string manifest = R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",
    "config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:)" + std::string(64, 'b') +
                               R"(","size":485},
    "layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" + hex +
                               R"(","size":4920734272},
              {"mediaType":"application/vnd.ollama.image.template","digest":"sha256:)" + std::string(64, 'c') +
                               R"(","size":1481}]})";
  write_text(t.path / "manifests" / "registry.ollama.ai" / "library" / "llama3.1" / "8b", manifest);
  write_text(t.path / "manifests" / "registry.ollama.ai" / "library" / "llama3.1" / "latest", manifest);
  EnvVar a("OLLAMA_MODELS", t.path.c_str());
  auto r = resolve_model("ollama:llama3.1:8b");
  BOOST_TEST(r.how == "ollama");
  BOOST_TEST(r.gguf == t.path / "blobs" / ("sha256-" + hex));
  BOOST_TEST(resolve_model("ollama:llama3.1").gguf == r.gguf);  // tag defaults to latest
  auto m = load_model("ollama:llama3.1:8b");
  BOOST_TEST(m.num_layers() == 32u);
  BOOST_CHECK_EXCEPTION(resolve_model("ollama:llama3.1:70b"), InputError, HasMessage({"ollama pull llama3.1:70b"}));
  BOOST_CHECK_EXCEPTION(resolve_model("ollama:../../etc:x"), InputError, HasMessage({"ollama:NAME[:TAG]"}));
}

// ---- safetensors -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(safetensors_headers_give_exact_bytes_per_layer) {
  TempDir t;
  write_text(t.path / "config.json", bundled_json("meta-llama/Llama-3.2-1B-Instruct"));
  // Two shards of an fp8 + bf16 checkpoint: 16 layers, q_proj fp8 with an fp32 scale, norms bf16.
  std::vector<test::StTensor> a, b;
  u64 per_layer = 0;
  for (int i = 0; i < 16; ++i) {
    auto& dst = i < 8 ? a : b;
    const std::string p = "model.layers." + std::to_string(i) + ".";
    dst.push_back({p + "self_attn.q_proj.weight", "F8_E4M3", {2048, 2048}, 2048ull * 2048});
    dst.push_back({p + "self_attn.q_proj.weight_scale", "F32", {1}, 4});
    dst.push_back({p + "input_layernorm.weight", "BF16", {2048}, 4096});
  }
  per_layer = 2048ull * 2048 + 4 + 4096;
  a.push_back({"model.embed_tokens.weight", "BF16", {128256, 2048}, 128256ull * 2048 * 2});
  test::write_safetensors(t.path / "model-00001-of-00002.safetensors", a);
  test::write_safetensors(t.path / "model-00002-of-00002.safetensors", b);
  auto m = load_model(t.path.string());
  BOOST_REQUIRE(m.checkpoint_weights.has_value());
  const auto& cw = *m.checkpoint_weights;
  BOOST_TEST(cw.source == "safetensors headers (2 files)");
  BOOST_TEST(cw.layer_bytes.size() == 16u);
  BOOST_TEST(cw.layer_bytes[0] == per_layer);
  BOOST_TEST(cw.layer_bytes[15] == per_layer);
  BOOST_TEST(cw.non_layer_bytes == 128256ull * 2048 * 2);
  BOOST_TEST(cw.total_bytes == 16 * per_layer + 128256ull * 2048 * 2);
  BOOST_TEST(cw.bytes_by_dtype.at("F8_E4M3") == 16ull * 2048 * 2048);
  auto wb = weight_bytes(m);
  BOOST_TEST(wb.total == cw.total_bytes);
  BOOST_TEST(wb.source == "safetensors headers (2 files)");
  BOOST_TEST(wb.layer_bytes == cw.layer_bytes, boost::test_tools::per_element());
  // An override prices the config rule again.
  BOOST_TEST(weight_bytes(m, Dtype::bf16).source == "config rule");
}

BOOST_AUTO_TEST_CASE(safetensors_index_only) {
  TempDir t;
  write_text(t.path / "config.json", bundled_json("meta-llama/Llama-3.1-8B"));
  // Llama-3.1-8B's model.safetensors.index.json metadata.total_size (Hugging Face repository
  // meta-llama/Llama-3.1-8B): 16,060,522,496 bytes.
  write_text(t.path / "model.safetensors.index.json",
             R"({"metadata":{"total_size":16060522496},"weight_map":{"lm_head.weight":"model-00004-of-00004.safetensors"}})");
  auto m = load_model(t.path.string());
  auto wb = weight_bytes(m);
  BOOST_TEST(wb.total == 16060522496u);
  BOOST_TEST(wb.source == "model.safetensors.index.json (metadata.total_size)");
  // The config rule agrees exactly for this bf16 checkpoint.
  BOOST_TEST(weight_bytes(m, Dtype::bf16).total == 16060522496u);
}

BOOST_AUTO_TEST_CASE(sparse_multi_gb_safetensors_reads_header_only) {
  TempDir t;
  write_text(t.path / "config.json", bundled_json("meta-llama/Llama-3.2-1B-Instruct"));
  std::vector<test::StTensor> ts;
  u64 sum = 0;
  for (int i = 0; i < 16; ++i) {
    const u64 bytes = 8192ull * 16384 * 2;  // 256 MiB each: 4 GiB in all
    ts.push_back({"model.layers." + std::to_string(i) + ".mlp.up_proj.weight", "BF16", {8192, 16384}, bytes});
    sum += bytes;
  }
  const u64 header = test::write_safetensors(t.path / "model.safetensors", ts);
  BOOST_TEST(fs::file_size(t.path / "model.safetensors") == header + sum);
  const u64 before = io_rchar();
  auto m = load_model(t.path.string());
  const u64 read = io_rchar() - before;
  BOOST_TEST(m.checkpoint_weights->total_bytes == sum);
  BOOST_TEST(m.checkpoint_weights->header_bytes_read == header);
  BOOST_TEST(read < header + (1u << 20));  // config.json + header, never the 4 GiB of data
  // The weights file itself names the folder.
  BOOST_TEST(load_model((t.path / "model.safetensors").string()).checkpoint_weights->total_bytes == sum);
}

BOOST_AUTO_TEST_CASE(hostile_safetensors_headers) {
  TempDir t;
  auto raw = [&](const std::string& name, u64 declared, const std::string& body) {
    std::string s(8, '\0');
    std::memcpy(s.data(), &declared, 8);
    s += body;
    write_text(t.path / name, s);
    return t.path / name;
  };
  BOOST_CHECK_EXCEPTION(read_safetensors_header(raw("huge.safetensors", 1ull << 62, "{}")), FormatError,
                        HasMessage({"header length", "over the", "limit"}));
  BOOST_CHECK_EXCEPTION(read_safetensors_header(raw("trunc.safetensors", 1000, "{}")), FormatError,
                        HasMessage({"runs past the end"}));
  BOOST_CHECK_EXCEPTION(read_safetensors_header(raw("short.safetensors", 0, "").string() + "x"), InputError,
                        HasMessage({"model"}));
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  BOOST_CHECK_EXCEPTION(read_safetensors_header(raw("deep.safetensors", deep.size(), deep)), FormatError,
                        HasMessage({"nested deeper than 64"}));
  const std::string past = R"({"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})";
  BOOST_CHECK_EXCEPTION(read_safetensors_header(raw("past.safetensors", past.size(), past)), FormatError,
                        HasMessage({"tensor \"w\"", "past the file"}));
  const std::string mismatch = R"({"w":{"dtype":"BF16","shape":[3],"data_offsets":[0,4]}})";
  BOOST_CHECK_EXCEPTION(read_safetensors_header(raw("mm.safetensors", mismatch.size(), mismatch + "1234")), FormatError,
                        HasMessage({"give 6 bytes but data_offsets span 4"}));
  BOOST_CHECK_EXCEPTION(read_safetensors_header(raw("notjson.safetensors", 3, "abc")), FormatError,
                        HasMessage({"not a JSON object"}));
}

// ---- GGUF --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(ggml_type_traits) {
  // ggml's block structs (ggml-common.h) / gguf-py GGML_QUANT_SIZES.
  BOOST_TEST(ggml_type("Q4_K")->block_bytes == 144u);
  BOOST_TEST(ggml_type("q4_k")->block_values == 256u);
  BOOST_TEST(ggml_type("Q8_0")->block_bytes == 34u);
  BOOST_TEST(ggml_type("IQ4_XS")->block_bytes == 136u);
  BOOST_TEST(ggml_type("TQ1_0")->block_bytes == 54u);
  BOOST_TEST(ggml_type("MXFP4")->block_bytes == 17u);
  BOOST_TEST(ggml_type(12u)->name == "Q4_K");
  BOOST_TEST(ggml_type(4u) == nullptr);  // Q4_2: removed from GGUF
}

BOOST_AUTO_TEST_CASE(gguf_llama_sparse_file) {
  TempDir t;
  GgufWriter w;
  llama8b_metadata(w);
  const u64 sum = llama8b_tensors(w);
  const fs::path f = t.path / "Llama-3.1-8B-Q4_K_M.gguf";
  const u64 data_offset = w.write(f);
  BOOST_TEST(fs::file_size(f) > (4ull << 30));  // a multi-GB (sparse) file
  const u64 before = io_rchar();
  auto m = load_model(f.string());
  const u64 read = io_rchar() - before;
  BOOST_TEST(read < data_offset + (1u << 20));
  BOOST_TEST(m.checkpoint_weights->header_bytes_read <= data_offset);
  BOOST_TEST(m.checkpoint_weights->source == "GGUF tensor infos");
  BOOST_TEST(m.checkpoint_weights->total_bytes == sum);
  BOOST_TEST(m.checkpoint_weights->layer_bytes.size() == 32u);
  const u64 layer = q4k(4096, 4096) * 2 + q4k(1024, 4096) + q6k(1024, 4096) + q4k(14336, 4096) * 2 +
                    q6k(4096, 14336) + 2 * 4096 * 4;
  BOOST_TEST(m.checkpoint_weights->layer_bytes[31] == layer);
  BOOST_TEST(weight_bytes(m).total == sum);
  // The same cache as the config.json, layer by layer and in llama.cpp's profile.
  auto ref = load_model("meta-llama/Llama-3.1-8B");
  BOOST_TEST(m.num_layers() == ref.num_layers());
  BOOST_TEST(m.dims.vocab_size == 128256u);
  BOOST_TEST(!m.dims.tie_word_embeddings);
  auto a = llamacpp_profile(m, llama_ctx(8192)), b = llamacpp_profile(ref, llama_ctx(8192));
  BOOST_TEST(a.kv_bytes == b.kv_bytes);
  BOOST_TEST(a.kv_bytes == 1024ull << 20);
  BOOST_TEST(llamacpp_profile(m, llama_ctx(0)).cells == 131072u);  // context_length read
}

BOOST_AUTO_TEST_CASE(check_llama_server_reads_the_gguf_it_is_given) {
  TempDir t;
  GgufWriter w;
  llama8b_metadata(w);
  const u64 sum = llama8b_tensors(w);
  const fs::path f = t.path / "Meta-Llama-3.1-8B-Q4_K_M.gguf";
  w.write(f);
  CheckOptions o;
  o.gpu = "RTX4090";
  auto r = check_deployment(parse_launch_command(split_command_line("llama-server -m " + f.string() + " -c 8192 -np 4")), o);
  BOOST_TEST(r.starts);
  BOOST_TEST(r.weights_bytes_per_gpu == sum);  // the tensor infos, not a bf16 estimate
  BOOST_TEST(r.context == 2048u);
  // check --weights: the user's figure replaces the count.
  o.weight_bytes = 30'000'000'000u;
  auto big = check_deployment(parse_launch_command(split_command_line("llama-server -m " + f.string() + " -c 8192")), o);
  BOOST_TEST(big.weights_bytes_per_gpu == 30'000'000'000u);
  BOOST_TEST(!big.passed);  // 30 GB of weights on a 24 GB card
}

// llama-server --cpu-moe / --n-cpu-moe N (issue 28): the routed experts' tensors
// (blk.i.ffn_{gate,up,down}_exps, llama.cpp's LLM_FFN_EXPS_REGEX) of every layer, or of the first
// N, stay in host memory; the GPU holds the rest. A 4-layer qwen3moe GGUF in F32 whose bytes are
// summed here by hand: per layer attention 4 x 64 x 64 x 4 B, experts 3 x 8 x 64 x 32 x 4 B
// (8 experts of width 32), norms 2 x 64 x 4 B; embeddings and head 2 x 64 x 1000 x 4 B.
BOOST_AUTO_TEST_CASE(llama_server_cpu_moe_keeps_the_experts_off_the_gpu) {
  TempDir t;
  GgufWriter w;
  w.str("general.architecture", "qwen3moe");
  w.u32("general.alignment", 32);
  w.u32("qwen3moe.block_count", 4);
  w.u32("qwen3moe.context_length", 4096);
  w.u32("qwen3moe.embedding_length", 64);
  w.u32("qwen3moe.attention.head_count", 4);
  w.u32("qwen3moe.attention.head_count_kv", 4);
  w.u32("qwen3moe.attention.key_length", 16);
  w.u32("qwen3moe.attention.value_length", 16);
  w.u32("qwen3moe.expert_count", 8);
  w.u32("qwen3moe.expert_used_count", 2);
  w.u32("qwen3moe.expert_feed_forward_length", 32);
  w.u32("qwen3moe.vocab_size", 1000);
  const u64 attn = 64 * 64 * 4, exps = 8 * 64 * 32 * 4, norm = 64 * 4, table = 64 * 1000 * 4;
  w.tensor("token_embd.weight", {64, 1000}, 0, table);
  w.tensor("output.weight", {64, 1000}, 0, table);
  for (int i = 0; i < 4; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_output"}) w.tensor(b + n + ".weight", {64, 64}, 0, attn);
    w.tensor(b + "ffn_gate_exps.weight", {64, 32, 8}, 0, exps);
    w.tensor(b + "ffn_up_exps.weight", {64, 32, 8}, 0, exps);
    w.tensor(b + "ffn_down_exps.weight", {32, 64, 8}, 0, exps);
    w.tensor(b + "attn_norm.weight", {64}, 0, norm);
    w.tensor(b + "ffn_norm.weight", {64}, 0, norm);
  }
  const u64 per_layer_experts = 3 * exps;                         // 196,608 B
  const u64 total = 2 * table + 4 * (4 * attn + per_layer_experts + 2 * norm);  // 1,562,624 B
  const fs::path f = t.path / "tiny-moe-F32.gguf";
  w.write(f);
  CheckOptions o;
  o.gpu = "RTX4090";
  auto on_gpu = [&](const std::string& flags) {
    const auto r = check_deployment(parse_launch_command(split_command_line("llama-server -m " + f.string() + " -c 4096 " + flags)), o);
    BOOST_TEST((r.verdict == Verdict::pass), flags);
    return r.weights_bytes_per_gpu;
  };
  BOOST_TEST(on_gpu("") == total);
  BOOST_TEST(on_gpu("--cpu-moe") == total - 4 * per_layer_experts);
  BOOST_TEST(on_gpu("-cmoe") == total - 4 * per_layer_experts);
  BOOST_TEST(on_gpu("--n-cpu-moe 1") == total - per_layer_experts);
  BOOST_TEST(on_gpu("-ncmoe 3") == total - 3 * per_layer_experts);
  BOOST_TEST(on_gpu("--n-cpu-moe 9") == total - 4 * per_layer_experts);
  BOOST_TEST(on_gpu("--n-cpu-moe 0") == total);
  // Without the tensor list (a config only) the first N layers' share is not known: UNCERTAIN,
  // naming the flag, and the experts are counted on the GPU (a start that fails even so stays
  // FAIL, check's rule for every unmodelled flag); --cpu-moe needs no layer split.
  o.model = "Qwen/Qwen3-30B-A3B";
  o.gpu = "H100";  // its bf16 weights (57 GiB) fit whole: the flag alone makes it uncertain
  const auto part = check_deployment(parse_launch_command(split_command_line("llama-server -m x.gguf -c 4096 --n-cpu-moe 10")), o);
  BOOST_TEST((part.verdict == Verdict::uncertain));
  BOOST_TEST(std::any_of(part.checks.begin(), part.checks.end(), [](const CheckRequirement& c) {
    return c.name == "modelled" && !c.ok && c.actual.find("--n-cpu-moe 10") != std::string::npos;
  }));
  const auto all = check_deployment(parse_launch_command(split_command_line("llama-server -m x.gguf -c 4096 --cpu-moe")), o);
  const auto none = check_deployment(parse_launch_command(split_command_line("llama-server -m x.gguf -c 4096")), o);
  const WeightBytes wb = weight_bytes(load_model("Qwen/Qwen3-30B-A3B"));
  BOOST_TEST(wb.experts > 0u);
  BOOST_TEST(all.weights_bytes_per_gpu == none.weights_bytes_per_gpu - wb.experts);
  // A dense model: nothing to move, nothing said.
  o.model = "meta-llama/Llama-3.1-8B";
  const auto dense = check_deployment(parse_launch_command(split_command_line("llama-server -m x.gguf -c 4096 --cpu-moe")), o);
  BOOST_TEST(dense.weights_bytes_per_gpu == weight_bytes(load_model("meta-llama/Llama-3.1-8B")).total);
}

// Cross-check against an independent reader, the npm package @huggingface/gguf (0.4.6), through
// tests/gguf/crosscheck.mjs: every metadata value and tensor info must agree. Runs when
// KVPLAN_GGUF_NODE_MODULES names a node_modules folder holding the package (`npm install
// @huggingface/gguf` there) and `node` is on PATH; otherwise it says so and checks nothing.
BOOST_AUTO_TEST_CASE(gguf_matches_huggingface_gguf_reader) {
  const char* mods = std::getenv("KVPLAN_GGUF_NODE_MODULES");
  if (!mods || std::system("node --version > /dev/null 2>&1") != 0) {
    BOOST_TEST_MESSAGE("skipped: set KVPLAN_GGUF_NODE_MODULES and put node on PATH to cross-check with @huggingface/gguf");
    return;
  }
  TempDir t;
  GgufWriter w;
  llama8b_metadata(w);
  w.u32_array("llama.attention.head_count_kv_per_layer_probe", {8, 8, 8});
  w.boolean("llama.probe_bool", true);
  llama8b_tensors(w);
  const fs::path f = t.path / "x.gguf";
  w.write(f);
  const fs::path out = t.path / "x.json";
  const std::string cmd = "node " + test::source_path("tests/gguf/crosscheck.mjs") + " " + f.string() + " > " + out.string();
  BOOST_REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(out);
  const auto theirs = nlohmann::json::parse(in);
  const auto mine = read_gguf_header(f);
  u64 compared = 0;
  for (const auto& [k, v] : mine.metadata.items()) {
    BOOST_TEST_CONTEXT(k) {
      BOOST_REQUIRE(theirs["metadata"].contains(k));
      const auto& o = theirs["metadata"][k];
      if (v.is_object()) BOOST_TEST(o["length"] == v["length"]);
      else if (v.is_number_float()) BOOST_TEST(o.get<double>() == v.get<double>());
      else BOOST_TEST(o == v);
      ++compared;
    }
  }
  BOOST_TEST(compared == theirs["metadata"].size() - 3);  // theirs adds version, tensor_count, kv_count
  BOOST_REQUIRE(theirs["tensors"].size() == mine.tensors.size());
  for (std::size_t i = 0; i < mine.tensors.size(); ++i) {
    const auto& a = mine.tensors[i];
    const auto& b = theirs["tensors"][i];
    BOOST_TEST(b["name"] == a.name);
    BOOST_TEST(b["type"].get<std::uint32_t>() == a.type);
    BOOST_TEST(b["dims"].get<std::vector<u64>>() == a.dims, boost::test_tools::per_element());
    BOOST_TEST(b["offset"].get<u64>() == a.offset);
  }
}

BOOST_AUTO_TEST_CASE(gguf_hostile_headers) {
  auto parse = [](const std::string& bytes) {
    std::istringstream in(bytes);
    return read_gguf_header(in, bytes.size(), "bad.gguf");
  };
  auto le = [](u64 v, int n) {
    std::string s(static_cast<std::size_t>(n), '\0');
    std::memcpy(s.data(), &v, static_cast<std::size_t>(n));
    return s;
  };
  const std::string head3 = "GGUF" + le(3, 4);
  BOOST_CHECK_EXCEPTION(parse("GGML" + le(3, 4)), FormatError, HasMessage({"bad.gguf: GGUF header at byte 4", "wrong magic"}));
  BOOST_CHECK_EXCEPTION(parse("GGUF" + le(1, 4)), FormatError, HasMessage({"version 1"}));
  BOOST_CHECK_EXCEPTION(parse("GGUF" + le(3ull << 24, 4)), FormatError, HasMessage({"big-endian"}));
  BOOST_CHECK_EXCEPTION(parse(head3 + le(0, 8)), FormatError, HasMessage({"truncated"}));
  BOOST_CHECK_EXCEPTION(parse(head3 + le(1ull << 40, 8) + le(0, 8)), FormatError, HasMessage({"tensor count", "limit"}));
  BOOST_CHECK_EXCEPTION(parse(head3 + le(0, 8) + le(1ull << 40, 8)), FormatError, HasMessage({"metadata count", "limit"}));
  // A key whose length claims 2^60 bytes.
  BOOST_CHECK_EXCEPTION(parse(head3 + le(0, 8) + le(1, 8) + le(1ull << 60, 8)), FormatError,
                        HasMessage({"key length", "limit"}));
  // A string value that runs past the end.
  BOOST_CHECK_EXCEPTION(parse(head3 + le(0, 8) + le(1, 8) + le(1, 8) + "k" + le(8, 4) + le(1000, 8) + "abc"),
                        FormatError, HasMessage({"truncated"}));
  // An array of arrays.
  BOOST_CHECK_EXCEPTION(parse(head3 + le(0, 8) + le(1, 8) + le(1, 8) + "k" + le(9, 4) + le(9, 4) + le(1, 8)),
                        FormatError, HasMessage({"nested arrays"}));
  // An array claiming 2^40 elements.
  BOOST_CHECK_EXCEPTION(parse(head3 + le(0, 8) + le(1, 8) + le(1, 8) + "k" + le(9, 4) + le(4, 4) + le(1ull << 40, 8)),
                        FormatError, HasMessage({"array length", "limit"}));
  // An unknown value type, and an unknown tensor type.
  BOOST_CHECK_EXCEPTION(parse(head3 + le(0, 8) + le(1, 8) + le(1, 8) + "k" + le(77, 4)), FormatError,
                        HasMessage({"unknown value type 77"}));
  BOOST_CHECK_EXCEPTION(parse(head3 + le(1, 8) + le(0, 8) + le(1, 8) + "t" + le(1, 4) + le(32, 8) + le(4, 4) + le(0, 8)),
                        FormatError, HasMessage({"unknown ggml type 4"}));
  // Tensor data past the end of the file (a truncated download).
  BOOST_CHECK_EXCEPTION(parse(head3 + le(1, 8) + le(0, 8) + le(1, 8) + "t" + le(1, 4) + le(32, 8) + le(0, 4) + le(0, 8)),
                        FormatError, HasMessage({"tensor \"t\"", "past the file"}));
  // Five dims.
  BOOST_CHECK_EXCEPTION(parse(head3 + le(1, 8) + le(0, 8) + le(1, 8) + "t" + le(5, 4)), FormatError,
                        HasMessage({"5 dims"}));
}

BOOST_AUTO_TEST_CASE(gguf_unknown_architecture_names_it) {
  TempDir t;
  GgufWriter w;
  w.str("general.architecture", "rwkv7");
  w.u32("rwkv7.block_count", 2);
  w.write(t.path / "x.gguf");
  BOOST_CHECK_EXCEPTION(load_model((t.path / "x.gguf").string()), UnsupportedArchitecture,
                        HasMessage({"general.architecture", "rwkv7"}));
}

// The llama.cpp oracle families: GGUF metadata as convert_hf_to_gguf.py writes it for each config
// (key names from llama.cpp's llama-arch.cpp; MLA's key_length_mla for absorbed-MLA files; the
// SSM keys of Mamba and Qwen3-Next as the converter maps them), then the same llama.cpp profile
// from the GGUF file as from config.json.
namespace {
struct FamilyCase {
  std::string id, arch;
  std::function<void(GgufWriter&, const nlohmann::json&)> extra;
};
fs::path family_gguf(const fs::path& dir, const FamilyCase& fc, const nlohmann::json& cfg0) {
  const nlohmann::json& c = cfg0.contains("text_config") ? cfg0["text_config"] : cfg0;
  GgufWriter w;
  const std::string a = fc.arch;
  w.str("general.architecture", a);
  w.u32(a + ".block_count", c["num_hidden_layers"].get<std::uint32_t>());
  w.u32(a + ".embedding_length", c["hidden_size"].get<std::uint32_t>());
  if (c.contains("max_position_embeddings")) w.u32(a + ".context_length", c["max_position_embeddings"].get<std::uint32_t>());
  if (c.contains("num_attention_heads")) w.u32(a + ".attention.head_count", c["num_attention_heads"].get<std::uint32_t>());
  if (c.contains("num_key_value_heads")) w.u32(a + ".attention.head_count_kv", c["num_key_value_heads"].get<std::uint32_t>());
  if (c.contains("head_dim") && c["head_dim"].is_number()) {
    w.u32(a + ".attention.key_length", c["head_dim"].get<std::uint32_t>());
    w.u32(a + ".attention.value_length", c["head_dim"].get<std::uint32_t>());
  }
  w.u32(a + ".vocab_size", c["vocab_size"].get<std::uint32_t>());
  if (c.contains("num_experts") || c.contains("num_local_experts")) {
    w.u32(a + ".expert_count", (c.contains("num_experts") ? c["num_experts"] : c["num_local_experts"]).get<std::uint32_t>());
    w.u32(a + ".expert_used_count", c["num_experts_per_tok"].get<std::uint32_t>());
  }
  if (fc.extra) fc.extra(w, c);
  w.tensor("token_embd.weight", {c["hidden_size"].get<u64>(), c["vocab_size"].get<u64>()}, 8,
           c["vocab_size"].get<u64>() * c["hidden_size"].get<u64>() / 32 * 34);
  const fs::path p = dir / (a + ".gguf");
  w.write(p);
  return p;
}
}  // namespace

BOOST_AUTO_TEST_CASE(gguf_oracle_families_match_config_json) {
  TempDir t;
  const std::vector<FamilyCase> cases = {
      {"meta-llama/Llama-3.1-8B", "llama", nullptr},
      {"Qwen/Qwen3-8B", "qwen3", nullptr},
      {"Qwen/Qwen3-30B-A3B", "qwen3moe", nullptr},
      {"Qwen/Qwen2.5-7B-Instruct", "qwen2", nullptr},
      {"google/gemma-2-9b", "gemma2",
       [](GgufWriter& w, const nlohmann::json& c) { w.u32("gemma2.attention.sliding_window", c["sliding_window"].get<std::uint32_t>()); }},
      {"google/gemma-3-1b-it", "gemma3",
       [](GgufWriter& w, const nlohmann::json& c) { w.u32("gemma3.attention.sliding_window", c["sliding_window"].get<std::uint32_t>()); }},
      {"tests/data/engine_cases/gpt-oss-120b-like.json", "gpt-oss",
       [](GgufWriter& w, const nlohmann::json& c) { w.u32("gpt-oss.attention.sliding_window", c["sliding_window"].get<std::uint32_t>()); }},
      {"deepseek-ai/DeepSeek-V3", "deepseek2",
       [](GgufWriter& w, const nlohmann::json& c) {
         w.u32("deepseek2.attention.kv_lora_rank", c["kv_lora_rank"].get<std::uint32_t>());
         w.u32("deepseek2.attention.q_lora_rank", c["q_lora_rank"].get<std::uint32_t>());
         w.u32("deepseek2.rope.dimension_count", c["qk_rope_head_dim"].get<std::uint32_t>());
         // Absorbed MLA: key_length = kv_lora_rank + rope, value_length = kv_lora_rank.
         w.u32("deepseek2.attention.key_length", 512 + 64);
         w.u32("deepseek2.attention.value_length", 512);
         w.u32("deepseek2.attention.key_length_mla", 128 + 64);
         w.u32("deepseek2.attention.value_length_mla", 128);
         w.u32("deepseek2.expert_shared_count", 1);
         w.u32("deepseek2.leading_dense_block_count", 3);
       }},
      {"ArthurZ/mamba-2.8b", "mamba",
       [](GgufWriter& w, const nlohmann::json& c) {
         w.u32("mamba.ssm.conv_kernel", c["conv_kernel"].get<std::uint32_t>());
         w.u32("mamba.ssm.inner_size", c["expand"].get<std::uint32_t>() * c["hidden_size"].get<std::uint32_t>());
         w.u32("mamba.ssm.state_size", c["state_size"].get<std::uint32_t>());
         w.u32("mamba.ssm.time_step_rank", c["time_step_rank"].get<std::uint32_t>());
       }},
      {"Qwen/Qwen3-Next-80B-A3B-Thinking", "qwen3next",
       [](GgufWriter& w, const nlohmann::json& c) {
         w.u32("qwen3next.ssm.conv_kernel", c["linear_conv_kernel_dim"].get<std::uint32_t>());
         w.u32("qwen3next.ssm.state_size", c["linear_key_head_dim"].get<std::uint32_t>());
         w.u32("qwen3next.ssm.group_count", c["linear_num_key_heads"].get<std::uint32_t>());
         w.u32("qwen3next.ssm.time_step_rank", c["linear_num_value_heads"].get<std::uint32_t>());
         w.u32("qwen3next.ssm.inner_size",
               c["linear_value_head_dim"].get<std::uint32_t>() * c["linear_num_value_heads"].get<std::uint32_t>());
         w.u32("qwen3next.full_attention_interval", c["full_attention_interval"].get<std::uint32_t>());
       }},
  };
  for (const auto& fc : cases) {
    BOOST_TEST_CONTEXT(fc.id) {
      const bool file = fc.id.find(".json") != std::string::npos;
      const auto ref = load_model(file ? test::source_path(fc.id) : fc.id);
      const auto cfg = file ? test::read_json(fc.id) : nlohmann::json::parse(bundled_json(fc.id));
      const auto m = load_model(family_gguf(t.path, fc, cfg).string());
      BOOST_TEST(m.num_layers() == ref.num_layers());
      for (std::size_t i = 0; i < m.num_layers() && i < ref.num_layers(); ++i)
        BOOST_TEST(kind_name(m.layers[i].cache()) == kind_name(ref.layers[i].cache()));
      for (u64 ctx : {4096u, 32768u}) {
        auto a = llamacpp_profile(m, llama_ctx(ctx)), b = llamacpp_profile(ref, llama_ctx(ctx));
        BOOST_TEST(a.kv_bytes == b.kv_bytes);
        BOOST_TEST(a.state_bytes == b.state_bytes);
        BOOST_TEST(a.cells == b.cells);
      }
    }
  }
}

// ---- quantization_config alone (no headers) -----------------------------------------------
// Llama-3.1-8B: per layer q,o 4096x4096; k,v 1024x4096; gate,up 14336x4096; down 4096x14336 =
// 218,103,808 quantisable values (x 32 layers = 6,979,321,856); the embedding table and head
// (2 x 128,256 x 4,096) and the 266,240 norm values stay bf16 (2,101,878,784 B).

namespace {
constexpr u64 kLinear = 6'979'321'856, kRestBf16 = 2'101'878'784;
ModelSpec llama8b_with(const nlohmann::json& qc, const char* key = "quantization_config") {
  auto cfg = nlohmann::json::parse(bundled_json("meta-llama/Llama-3.1-8B"));
  cfg[key] = qc;
  return load_model_from_json(cfg.dump(), "config.json");
}
}  // namespace

BOOST_AUTO_TEST_CASE(awq_int4_g128) {
  // AutoAWQ GEMM: 4 bits per value; per 128 values an fp16 scale and a 4-bit zero (20 bits).
  auto w = weight_bytes(llama8b_with({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128},
                                      {"zero_point", true}, {"version", "gemm"}}));
  BOOST_TEST(w.total == kLinear / 2 + kLinear / 128 * 20 / 8 + kRestBf16);  // 5,727,854,592
  BOOST_TEST(w.total == 5'727'854'592u);
  BOOST_TEST(w.scheme == "awq int4 g128 + bf16");
  BOOST_TEST(w.source == "config rule");
}

BOOST_AUTO_TEST_CASE(gptq_int4_g128_desc_act) {
  // As AWQ plus g_idx: one int32 per input column of each matrix (6 x 4,096 + 14,336 per layer).
  auto w = weight_bytes(llama8b_with({{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}, {"desc_act", true}}));
  BOOST_TEST(w.total == 5'727'854'592u + 32u * (6 * 4096 + 14336) * 4);
  BOOST_TEST(w.scheme == "gptq int4 g128 desc_act + bf16");
}

BOOST_AUTO_TEST_CASE(compressed_tensors_w8a8_and_nvfp4) {
  // W8A8 int8 per-channel: one byte per value + a bf16 scale per output row (43,008 rows a layer).
  nlohmann::json w8a8 = {{"quant_method", "compressed-tensors"},
                         {"format", "int-quantized"},
                         {"ignore", {"lm_head"}},
                         {"config_groups",
                          {{"group_0",
                            {{"targets", {"Linear"}},
                             {"weights", {{"num_bits", 8}, {"type", "int"}, {"strategy", "channel"}, {"symmetric", true}}},
                             {"input_activations", {{"num_bits", 8}, {"type", "int"}, {"dynamic", true}}}}}}}};
  BOOST_TEST(weight_bytes(llama8b_with(w8a8)).total == kLinear + 32u * 43008 * 2 + kRestBf16);
  // NVFP4: 4 bits + an fp8 scale per 16 values + fp32 weight_global_scale and input_global_scale
  // (dynamic "local" activations keep a global scale) per matrix.
  nlohmann::json nvfp4 = {{"quant_method", "compressed-tensors"},
                          {"format", "nvfp4-pack-quantized"},
                          {"config_groups",
                           {{"group_0",
                             {{"weights", {{"num_bits", 4}, {"type", "float"}, {"strategy", "tensor_group"}, {"group_size", 16}}},
                              {"input_activations", {{"num_bits", 4}, {"type", "float"}, {"dynamic", "local"}}}}}}}};
  BOOST_TEST(weight_bytes(llama8b_with(nvfp4)).total == kLinear / 2 + kLinear / 16 + 32u * 7 * 8 + kRestBf16);
}

BOOST_AUTO_TEST_CASE(bitsandbytes_and_modelopt_and_fp8_per_tensor) {
  // LLM.int8: int8 values + an fp32 SCB per output row + a uint8 weight_format per matrix.
  auto i8 = weight_bytes(llama8b_with({{"quant_method", "bitsandbytes"}, {"load_in_8bit", true}}));
  BOOST_TEST(i8.total == kLinear + 32u * 43008 * 4 + 32u * 7 + kRestBf16);
  // modelopt NVFP4: 4 bits + fp8 scale per 16 + weight_scale_2 and input_scale (fp32) per matrix.
  auto nv = weight_bytes(llama8b_with({{"quant_method", "modelopt"}, {"quant_algo", "NVFP4"}, {"group_size", 16},
                                       {"exclude_modules", {"lm_head"}}}));
  BOOST_TEST(nv.total == kLinear / 2 + kLinear / 16 + 32u * 7 * 8 + kRestBf16);  // 6,027,749,120
  BOOST_TEST(nv.total == 6'027'749'120u);
  // fp8 with weight_block_size null: one fp32 scale per matrix.
  auto f8 = weight_bytes(llama8b_with({{"quant_method", "fp8"}, {"weight_block_size", nullptr}}));
  BOOST_TEST(f8.total == kLinear + 32u * 7 * 4 + kRestBf16);
  // AutoFP8's static activations (neuralmagic *-FP8): + an fp32 input_scale per matrix.
  auto f8s = weight_bytes(llama8b_with({{"quant_method", "fp8"}, {"activation_scheme", "static"}}));
  BOOST_TEST(f8s.total == kLinear + 32u * 7 * 8 + kRestBf16);
}

BOOST_AUTO_TEST_CASE(mlx_quantises_embeddings_too) {
  // mlx-lm 4-bit g64: 4 bits + a bf16 scale and bias per 64 values, embeddings and head included.
  auto w = weight_bytes(llama8b_with({{"group_size", 64}, {"bits", 4}}, "quantization"));
  const u64 quantised = kLinear + 2u * 128256 * 4096;
  BOOST_TEST(w.total == quantised / 2 + quantised / 64 * 4 + 266240u * 2);  // 4,517,404,672
  BOOST_TEST(w.scheme == "mlx int4 g64 + bf16");
}

BOOST_AUTO_TEST_CASE(hqq_brunopio_hqq_t_checkpoints_match_their_published_sizes) {
  // HQQ as transformers saves it (HqqConfig + save_pretrained; hqq's HQQLinear.state_dict with
  // encoded_state_dict): per quantised linear W_q packed along its first dimension, a scale and a
  // zero per group in the compute dtype (the torch_dtype written back), and 17 small meta tensors
  // (shape int64[2]; nbits, group_size, axis int32; packing "4bit_u8" and unpack_view_dtype
  // "torch.uint8" as uint8 strings; 9 uint8 flags; compute_dtype "torch.bfloat16") = 69 B with a
  // bf16 model. The published figures are the Hugging Face file listing's sizes, rounded to 3
  // significant digits (no exact size of an HQQ checkpoint was found), carried as intervals. The
  // first two checkpoints' own config.json could not be read: the test writes the quantization
  // block transformers' HqqConfig writes (read verbatim from a published HQQ config.json,
  // PrunaAI/HuggingFaceTB-SmolLM2-1.7B-Instruct-HQQ-4bit-smashed) into the base model's
  // architecture; the third is the checkpoint's own. tests/data/quant_checkpoints/README.md cites
  // each figure.
  const auto block = test::read_json(
      "tests/data/quant_checkpoints/PrunaAI__HuggingFaceTB-SmolLM2-1.7B-Instruct-HQQ-4bit-smashed.quantization_config.json");
  constexpr u64 kMeta = 16 + 3 * 4 + 7 + 11 + 9 + 14;
  static_assert(kMeta == 69);

  // 1. brunopio/Nxcode-CQ-7B-orpo-nbits4-GSNone-Axis0-HQQ-T (NTQAI/Nxcode-CQ-7B-orpo, a
  // CodeQwen1.5-7B fine-tune; commit 4ea2c33): model.safetensors "4.77 GB" = [4.765e9, 4.775e9) B.
  // Architecture: Qwen/CodeQwen1.5-7B-Chat's config.json, verbatim (701 B, the size of NTQAI's own
  // config.json). Quantisation as the repository's name says: 4 bits, group_size null, axis 0,
  // i.e. the block above with "group_size": null and "axis": 0 (what HqqConfig(nbits=4,
  // group_size=None, axis=0) writes). A null group is a whole column with axis 0
  // (HQQLinear.initialize: group_size = out_features), so one bf16 scale and zero per input column.
  // By hand: 32 layers of q,o 4096x4096; k,v 512x4096; gate,up 13440x4096; down 4096x13440 =
  // 6,492,782,592 values at 4 bits; 32 x (6 x 4096 + 13440) = 1,216,512 columns x 4 B; 224 x 69 B
  // of meta; bf16 embedding and head (2 x 92,416 x 4,096), 65 norms of 4,096 and the q/k/v biases
  // (32 x 5,120).
  auto codeqwen = test::read_json("tests/data/quant_checkpoints/Qwen__CodeQwen1.5-7B-Chat.config.json");
  auto per_column = block;
  per_column["quant_config"]["weight_quant_params"]["group_size"] = nullptr;
  per_column["quant_config"]["weight_quant_params"]["axis"] = 0;
  codeqwen["quantization_config"] = per_column;
  const auto nx = weight_bytes(load_model_from_json(codeqwen.dump(), "config.json"));
  constexpr u64 kNxValues = 32 * u64{2 * 4096 * 4096 + 2 * 512 * 4096 + 3 * 13440 * 4096};
  constexpr u64 kNxCols = 32 * u64{6 * 4096 + 13440};
  constexpr u64 nx_by_hand =
      kNxValues / 2 + kNxCols * 4 + 224 * kMeta + 2 * (2 * u64{92416} * 4096 + 65 * 4096 + 32 * 5120);
  static_assert(kNxValues == 6'492'782'592 && kNxCols == 1'216'512 && nx_by_hand == 4'766'276'704);
  BOOST_TEST(nx.total == nx_by_hand);
  BOOST_TEST(nx.scheme == "hqq int4 per column axis 0 + bf16");
  // The file adds its 8-byte length and JSON header (~4,400 entries, ~0.5 MB) and lies in the
  // listing's interval; kvplan is within 1 % of every point of it (+0.027 % .. -0.18 %).
  constexpr u64 nx_lo = 4'765'000'000, nx_hi = 4'775'000'000;
  BOOST_TEST((nx.total > nx_lo && nx.total < nx_hi));
  BOOST_TEST((nx.total - nx_lo) * 100 < nx_lo);
  BOOST_TEST((nx_hi - nx.total) * 100 < nx_hi);
  // Before group_size null was read as a whole column, kvplan took 64 and priced 5.17 GB (+8.2 %).
  auto g64 = per_column;
  g64["quant_config"]["weight_quant_params"]["group_size"] = 64;
  codeqwen["quantization_config"] = g64;
  BOOST_TEST(weight_bytes(load_model_from_json(codeqwen.dump(), "config.json")).total ==
             nx_by_hand - kNxCols * 4 + kNxValues / 64 * 4);

  // 2. brunopio/Llama-3.2-1B-Instruct-nbits4-GS64-Axis1-HQQ-T (commit 8315c61): model.safetensors
  // "1.07 GB" = [1.065e9, 1.075e9) B. Architecture: the bundled meta-llama/Llama-3.2-1B-Instruct
  // config (tied embeddings, bf16); quantisation: the verbatim block (4 bits, group 64, axis 1,
  // lm_head skipped), as the name says. By hand: 16 layers of q,o 2048x2048; k,v 512x2048;
  // gate,up 8192x2048; down 2048x8192 = 973,078,528 values at 4 bits + a bf16 scale and zero per
  // 64; 112 x 69 B of meta; the bf16 embedding (128,256 x 2,048, also the head) and 33 norms.
  auto llama = nlohmann::json::parse(bundled_json("meta-llama/Llama-3.2-1B-Instruct"));
  llama["quantization_config"] = block;
  const auto l1 = weight_bytes(load_model_from_json(llama.dump(), "config.json"));
  constexpr u64 kL1Values = 16 * u64{2 * 2048 * 2048 + 2 * 512 * 2048 + 3 * 8192 * 2048};
  constexpr u64 l1_by_hand = kL1Values / 2 + kL1Values / 64 * 4 + 112 * kMeta + 2 * (u64{128256} * 2048 + 33 * 2048);
  static_assert(kL1Values == 973'078'528 && l1_by_hand == 1'072'836'144);
  BOOST_TEST(l1.total == l1_by_hand);
  BOOST_TEST(l1.scheme == "hqq int4 g64 + bf16");
  constexpr u64 l1_lo = 1'065'000'000, l1_hi = 1'075'000'000;
  BOOST_TEST((l1.total > l1_lo && l1.total < l1_hi));
  BOOST_TEST((l1.total - l1_lo) * 100 < l1_lo);  // +0.74 % of the interval's low end
  BOOST_TEST((l1_hi - l1.total) * 100 < l1_hi);  // -0.20 % of its high end

  // 3. brunopio/TriLM_99M_Unpacked-nbits4-GS64-Axis1-HQQ-T (SpectraSuite/TriLM_99M_Unpacked; commit
  // 4599369): its own config.json, read from its blob page (4 bits, g64, axis 1, lm_head skipped,
  // float16, untied); model.safetensors "130 MB" = [129.5e6, 130.5e6) B. By hand: 16 layers of
  // q,k,v,o 512x512; gate,up 1280x512; down 512x1280 = 48,234,496 values at 4 bits + an fp16 scale
  // and zero per 64; 112 x 68 B of meta ("torch.float16" is 13 B); fp16 embedding and head
  // (2 x 50,304 x 512) and 33 norms of 512.
  const auto tri = weight_bytes(load_model_from_json(
      test::read_json("tests/data/quant_checkpoints/brunopio__TriLM_99M_Unpacked-nbits4-GS64-Axis1-HQQ-T.config.json").dump(),
      "config.json"));
  constexpr u64 kTriValues = 16 * u64{4 * 512 * 512 + 3 * 1280 * 512};
  constexpr u64 tri_by_hand =
      kTriValues / 2 + kTriValues / 64 * 4 + 112 * (kMeta - 1) + 2 * (2 * u64{50304} * 512 + 33 * 512);
  static_assert(kTriValues == 48'234'496 && tri_by_hand == 130'195'904);
  BOOST_TEST(tri.total == tri_by_hand);
  BOOST_TEST(tri.scheme == "hqq int4 g64 + fp16");
  constexpr u64 tri_lo = 129'500'000, tri_hi = 130'500'000;
  BOOST_TEST((tri.total > tri_lo && tri.total < tri_hi));
  BOOST_TEST((tri.total - tri_lo) * 100 < tri_lo);  // +0.54 %
  BOOST_TEST((tri_hi - tri.total) * 100 < tri_hi);  // -0.23 %

  // Layouts the checkpoints above do not reach (hqq/core/bitpack.py): 8, 6 and 5 bits are stored
  // a byte each; 3 bits ten to an int32 along the first dimension of W_q, padded to a multiple of
  // 10 ([n/g, g] for axis 1, [g, n/g] for axis 0).
  // A 4096 x 4096 matrix, group 64, bf16 (262,144 groups of scale and zero, 4 B each), + 69 B meta.
  auto hqq = [](int nbits, int axis) {
    auto cfg = nlohmann::json::parse(bundled_json("meta-llama/Llama-3.1-8B"));
    const nlohmann::json params = {{"nbits", nbits}, {"group_size", 64}, {"axis", axis}};
    cfg["quantization_config"] = {{"quant_method", "hqq"},
                                  {"skip_modules", {"lm_head"}},
                                  {"quant_config", {{"weight_quant_params", params}}}};
    return load_model_from_json(cfg.dump(), "config.json");
  };
  const auto m6 = hqq(6, 1);
  const auto& q6 = *m6.quantization;
  BOOST_TEST(detail::quantised_matrix_bytes(q6, 4096, 4096) == 4096u * 4096 + 262144 * 4 + 69);
  const auto m3 = hqq(3, 1);
  // axis 1: W_q [262,144, 64] -> 26,215 rows of int32 (262,144 padded to 262,150, / 10) x 64.
  BOOST_TEST(detail::quantised_matrix_bytes(*m3.quantization, 4096, 4096) == 26215u * 64 * 4 + 262144 * 4 + 69);
  // axis 0: W_q [64, 262,144] -> 7 rows (64 padded to 70) x 262,144: 3.5 bits a value.
  BOOST_TEST(detail::quantised_matrix_bytes(*hqq(3, 0).quantization, 4096, 4096) == 7u * 262144 * 4 + 262144 * 4 + 69);
  BOOST_TEST(detail::quantised_matrix_bytes(*hqq(2, 1).quantization, 4096, 4096) == 4096u * 4096 / 4 + 262144 * 4 + 69);
  BOOST_TEST(detail::quantised_matrix_bytes(*hqq(1, 0).quantization, 4096, 4096) == 4096u * 4096 / 8 + 262144 * 4 + 69);
  // 7 bits is not an hqq width; a per-layer dynamic_config is not priced: both say where.
  BOOST_TEST(hqq(7, 1).params.unknown_reason.find("/quantization_config/quant_config/weight_quant_params/nbits") !=
             std::string::npos);
  auto dyn = nlohmann::json::parse(bundled_json("meta-llama/Llama-3.1-8B"));
  dyn["quantization_config"] = {{"quant_method", "hqq"},
                                {"quant_config", {{"self_attn.q_proj", {{"weight_quant_params", {{"nbits", 4}}}}}}}};
  BOOST_TEST(load_model_from_json(dyn.dump(), "config.json").params.unknown_reason.find("dynamic_config") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(mlx_qwen3_14b_4bit_matches_its_published_total_size) {
  // lmstudio-community/Qwen3-14B-4bit (mlx-lm 0.24.0), config.json and model.safetensors.index.json
  // as mirrored in the public GitHub repository root-hypercube/qwen3-mlx (Qwen3-14B-MLX-4bit/,
  // commit 821745abdcf5303790c87a6985817d2de9df34c9): metadata.total_size 8,307,783,680. By hand:
  // 40 layers x (2 x 5120 x 5120 + 2 x 1024 x 5120 + 3 x 17408 x 5120) + 2 x 151,936 x 5,120
  // (embedding and head, quantised too) = 14,767,882,240 values at 4 bits + a bf16 scale and
  // bias per 64 (4.5 bits), plus 424,960 bf16 norm values.
  const char* cfg = R"({"architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
    "initializer_range": 0.02, "intermediate_size": 17408, "max_position_embeddings": 40960,
    "max_window_layers": 40, "model_type": "qwen3", "num_attention_heads": 40, "num_hidden_layers": 40,
    "num_key_value_heads": 8, "quantization": {"group_size": 64, "bits": 4},
    "quantization_config": {"group_size": 64, "bits": 4}, "rms_norm_eps": 1e-06, "rope_scaling": null,
    "rope_theta": 1000000, "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})";
  auto w = weight_bytes(load_model_from_json(cfg, "config.json"));
  BOOST_TEST(w.total == 14'767'882'240u / 8 * 9 / 2 + 424'960u * 2);
  BOOST_TEST(w.total == 8'307'783'680u);
  BOOST_TEST(w.scheme == "mlx int4 g64 + bf16");
}

// ---- published checkpoints (tests/data/checkpoints/README.md cites each figure) -------------
// Each config is priced by weight_bytes() with no weight file at hand (the config rule), and the
// result is checked against the size the checkpoint was published at. Expected kvplan figures are
// derived here from the tensor shapes, independently of the library.

namespace {
WeightBytes published_config(const std::string& file) {
  return weight_bytes(load_model(test::source_path("tests/data/checkpoints/" + file)));
}
}  // namespace

BOOST_AUTO_TEST_CASE(awq_qwen3_32b_matches_its_published_size) {
  // The report lists every tensor: per layer qweight int32 [in, out/8], qzeros int32
  // [in/128, out/8], scales 16-bit [in/128, out] for q 5120->8192, k/v 5120->1024, o 8192->5120,
  // gate/up 5120->25600, down 25600->5120; 16-bit q/k norms (128) and layer norms (2 x 5120);
  // embedding and head 151,936 x 5,120 and the final norm in 16 bits.
  constexpr u64 qweight = 5120 * 1024 + 2 * 5120 * 128 + 8192 * 640 + 2 * 5120 * 3200 + 25600 * 640;
  constexpr u64 qzeros = 40 * 1024 + 2 * 40 * 128 + 64 * 640 + 2 * 40 * 3200 + 200 * 640;
  constexpr u64 scales = 40 * 8192 + 2 * 40 * 1024 + 64 * 5120 + 2 * 40 * 25600 + 200 * 5120;
  constexpr u64 per_layer = 4 * (qweight + qzeros) + 2 * scales + 2 * (2 * 5120 + 2 * 128);
  constexpr u64 listed = 64 * per_layer + 2 * (2 * u64{151936} * 5120 + 5120);
  static_assert(listed == 19'325'298'688);
  const auto w = published_config("Qwen__Qwen3-32B-AWQ.config.json");
  BOOST_TEST(w.total == listed);  // exact: AutoAWQ GEMM has no g_idx and no bias here
  BOOST_TEST(w.scheme == "awq int4 g128 + fp16");
  BOOST_TEST(w.source == "config rule");
}

BOOST_AUTO_TEST_CASE(gptq_desc_act_genz_70b_matches_its_published_sizes) {
  // Llama-2-70B shape: per layer q/o 8192x8192, k/v 1024x8192, gate/up 28672x8192, down
  // 8192x28672 = 855,638,016 values, 83,968 output rows, 77,824 input columns; 32,000-token
  // embedding and head and 161 norms of 8,192 in 16 bits. GPTQ: bits per value, per group a
  // 16-bit scale and a `bits` zero, g_idx int32 per input column; group -1 = one group per row.
  constexpr u64 values = 855'638'016, rows = 83'968, cols = 77'824;
  constexpr u64 rest = 2 * (2 * u64{32000} * 8192 + 161 * 8192);
  auto rule = [&](u64 bits, u64 groups_per_layer) {
    return 80 * (values * bits / 8 + groups_per_layer * (16 + bits) / 8 + 4 * cols) + rest;
  };
  struct Branch {
    const char* file;
    u64 kvplan, published;  // published: the branch's model.safetensors file size
  };
  const Branch branches[] = {
      {"TheBloke__Genz-70b-GPTQ.main.config.json", rule(4, values / 128), 36'652'345'792},
      {"TheBloke__Genz-70b-GPTQ.gptq-4bit-32g-actorder_True.config.json", rule(4, values / 32), 40'663'149'992},
      {"TheBloke__Genz-70b-GPTQ.gptq-3bit-128g-actorder_True.config.json", rule(3, values / 128), 28'029'117'672},
      {"TheBloke__Genz-70b-GPTQ.gptq-3bit--1g-actorder_True.config.json", rule(3, rows), 26'774'982'616},
  };
  for (const auto& b : branches) {
    BOOST_TEST_CONTEXT(b.file) {
      const auto w = published_config(b.file);
      BOOST_TEST(w.total == b.kvplan);
      // Within 1 % (measured: -0.034 % to -0.051 %). What kvplan leaves out: AutoGPTQ up to
      // v0.7.1 saved a zero 16-bit bias for every quantised linear (make_quant passed bias=True;
      // fixed by its commit 82070a1, 2024-03-25, after these 2023 files), 80 x 83,968 x 2 =
      // 13,434,880 B, and the file holds its JSON header; what remains is that header's size
      // (336 to 340 KB for 2,963 tensors).
      BOOST_TEST(w.total < b.published);
      BOOST_TEST((b.published - w.total) * 100 < b.published);
      const u64 header = b.published - w.total - 80 * rows * 2;
      BOOST_TEST(header > 300'000u);
      BOOST_TEST(header < 400'000u);
    }
  }
  BOOST_TEST(published_config(branches[0].file).scheme == "gptq int4 g128 desc_act + bf16");
  BOOST_TEST(published_config(branches[3].file).scheme == "gptq int3 per-channel desc_act + bf16");
}

BOOST_AUTO_TEST_CASE(mlx_8bit_qwen3_5_9b_vlm_matches_its_published_size) {
  // mlx-community/Qwen3.5-9B-MLX-8bit (mlx-vlm, 8-bit affine, group 64): metadata.total_size of its
  // model.safetensors.index.json is 10,426,433,504 (tests/data/quant_checkpoints/README.md). Its
  // index lists what is stored: every text linear, the embedding table and the head as uint32
  // weight + bf16 scales + bf16 biases (8 bits + 32 bits per 64 values); the vision tower (27
  // blocks, merger, patch and position embeddings: 456,010,480 values) in bf16, as mlx-vlm never
  // quantises a multimodal tower; no MTP layer (mlx-vlm drops mtp.* unless asked).
  const auto q8 = [](u64 rows, u64 cols) { return rows * cols + rows * (cols / 64) * 4; };
  constexpr u64 h = 4096;
  const u64 gdn = q8(8192, h) + q8(4096, h) + 2 * q8(32, h) + q8(h, 4096) + 2 * (8192 * 4 + 32 + 32 + 128);
  const u64 attn = q8(8192, h) + 2 * q8(1024, h) + q8(h, 4096) + 2 * (256 + 256);
  const u64 mlp = 2 * q8(12288, h) + q8(h, 12288);
  const u64 text = 2 * q8(248320, h) + 24 * gdn + 8 * attn + 32 * mlp + 2 * (64 * h + h);
  constexpr u64 vision = 2 * u64{456'010'480};
  const auto w = weight_bytes(load_model(test::source_path("tests/data/quant_checkpoints/mlx-community__Qwen3.5-9B-MLX-8bit.config.json")));
  BOOST_TEST(w.total == text + vision);
  BOOST_TEST(w.total == 10'426'431'968u);
  // -1,536 B (-0.000015 %): the 24 x 32 A_log values, which mlx-vlm leaves in the source's fp32
  // (qwen3_5 cast_predicate) and kvplan prices in bf16. Before the towers were kept unquantised
  // kvplan priced the vision linears at 8 bits: 9,999,398,240 B, -4.1 %.
  constexpr u64 published = 10'426'433'504;
  BOOST_TEST(published - w.total == 24 * 32 * 2u);
  BOOST_TEST(w.scheme == "mlx int8 g64 + bf16");
}

BOOST_AUTO_TEST_CASE(bitsandbytes_nf4_double_quant_matches_its_published_size) {
  // unsloth/Llama-3.2-1B-Instruct-bnb-4bit: 16 layers of q/o 2048x2048, k/v 512x2048, gate/up
  // 8192x2048, down 2048x8192 = 60,817,408 values (112 matrices); tied 128,256 x 2,048 embedding
  // and 33 norms of 2,048 in bf16. nf4: 4 bits per value, a uint8 absmax per 64 values, an fp32
  // nested absmax per 256 blocks; per matrix kvplan counts 1,220 B of state (quant_map 64,
  // nested quant_map 1,024, packed quant_state 128 + 4).
  constexpr u64 values = 16 * u64{60'817'408};
  constexpr u64 kvplan = values / 2 + values / 64 + values / 64 / 256 * 4 + 112 * 1220 + 2 * (u64{128256} * 2048 + 33 * 2048);
  constexpr u64 tensors = 4 * u64{89'856} + 2 * u64{262'735'872} + 501'762'865;  // the header's element counts
  constexpr u64 file = 1'027'676'737;                                    // model.safetensors size
  const auto w = published_config("unsloth__Llama-3.2-1B-Instruct-bnb-4bit.config.json");
  BOOST_TEST(w.total == kvplan);
  BOOST_TEST(w.scheme == "nf4 (double quant) + bf16");
  // -4,465 B (-0.0004 %) against the tensors: bitsandbytes packs each matrix's quant_state as
  // JSON (shape, dtype, nested_offset as a float repr): ~172 B here, kvplan counts 132.
  BOOST_TEST(tensors - w.total == 4'465u);
  BOOST_TEST((file - w.total) * 100 < file);  // -0.0085 % against the file (its header included)
}

BOOST_AUTO_TEST_CASE(bitsandbytes_layer_skip_orpheus_3b_matches_its_published_size) {
  // DocWobble/Orpheus_3B_Quantized: nf4 + double quant with llm_int8_skip_modules naming one
  // layer, "model.layers.0.self_attn" (unsloth's dynamic 4-bit). 28 layers of q/o 3072x3072,
  // k/v 1024x3072, gate/up 8192x3072, down 3072x8192; layer 0's four attention matrices
  // (25,165,824 values) stay bf16, so 192 matrices are nf4; tied 156,940 x 3,072 embedding and
  // 57 norms of 3,072 in bf16. Before layer-named modules were honoured kvplan quantised layer
  // 0's attention too and was 37.3 MB (-1.5 %) under.
  constexpr u64 attn = 2 * 3072 * 3072 + 2 * 1024 * 3072, mlp = 3 * 8192 * 3072;
  constexpr u64 values = 28 * (attn + mlp) - attn;
  constexpr u64 kvplan = values / 2 + values / 64 + values / 64 / 256 * 4 + 192 * 1220 +
                         2 * (u64{156940} * 3072 + 57 * 3072 + attn);
  constexpr u64 file = 2'456'339'440;  // model.safetensors LFS pointer size
  const auto w = published_config("DocWobble__Orpheus_3B_Quantized.config.json");
  BOOST_TEST(w.total == kvplan);
  BOOST_TEST(w.total < file);
  BOOST_TEST((file - w.total) * 10'000 < file);  // -0.0062 %: the file's header and quant_state JSON
}

BOOST_AUTO_TEST_CASE(bitsandbytes_int8_geitje_7b_matches_its_published_size) {
  // RichardErkhov/Rijgersberg_-_GEITje-7B-8bits: Rijgersberg/GEITje-7B (a Mistral-7B-v0.1 continued
  // pretraining; its config.json verbatim in tests/data/quant_checkpoints/) loaded with
  // load_in_8bit and saved (transformers 4.40.2). Its two safetensors files are 4,947,097,024 and
  // 2,562,631,392 B (LFS pointers, tests/data/quant_checkpoints/README.md). The 8-bit config's
  // own config.json was not found; the quantization_config is the block transformers writes for
  // load_in_8bit, verbatim from another published LLM.int8 Mistral checkpoint (Pclanglais/Larth-Mistral).
  // By hand: 32 layers x (q,o 4096x4096; k,v 1024x4096; gate,up 14336x4096; down 4096x14336) =
  // 6,979,321,856 int8 values; an fp32 SCB per output row (32 x 43,008); a uint8 weight_format per
  // matrix (bitsandbytes Linear8bitLt._save_to_state_dict); the 32,000 x 4,096 embedding and head
  // and 65 norms of 4,096 in bf16.
  auto cfg = test::read_json("tests/data/quant_checkpoints/Rijgersberg__GEITje-7B.config.json");
  cfg["quantization_config"] = {{"bnb_4bit_compute_dtype", "float32"}, {"bnb_4bit_quant_type", "fp4"},
                                {"bnb_4bit_use_double_quant", false}, {"llm_int8_enable_fp32_cpu_offload", false},
                                {"llm_int8_has_fp16_weight", false}, {"llm_int8_skip_modules", nullptr},
                                {"llm_int8_threshold", 6.0}, {"load_in_4bit", false}, {"load_in_8bit", true},
                                {"quant_method", "bitsandbytes"}};
  const auto w = weight_bytes(load_model_from_json(cfg.dump(), "config.json"));
  constexpr u64 kvplan = u64{6'979'321'856} + 32 * u64{43'008} * 4 + 224 + 2 * (2 * u64{32000} * 4096 + 65 * 4096);
  constexpr u64 file = 4'947'097'024 + u64{2'562'631'392};
  BOOST_TEST(w.total == kvplan);
  BOOST_TEST(w.total == 7'509'647'584u);
  BOOST_TEST(w.scheme == "bitsandbytes int8 + bf16");
  // -80,832 B (-0.0011 %): the two files' JSON headers, 739 entries (weight, SCB and
  // weight_format for 224 matrices, 67 bf16 tensors), ~109 B each. Before weight_format was
  // counted kvplan was 224 B further under.
  BOOST_TEST(file - w.total == 80'832u);
  BOOST_TEST((file - w.total) * 10'000 < file);  // within 0.01 %
}

BOOST_AUTO_TEST_CASE(bitsandbytes_fp4_without_double_quant_teenytinyllama_matches_its_published_size) {
  // RichardErkhov/nicholasKluge_-_TeenyTinyLlama-460m-Chat-4bits: nicholasKluge/TeenyTinyLlama-460m-Chat
  // (its config.json verbatim in tests/data/quant_checkpoints/) loaded with
  // BitsAndBytesConfig(load_in_4bit=True), i.e. fp4 WITHOUT double quant, and saved; its one
  // model.safetensors is 357,782,488 B (LFS pointer, Hugging Face commit 48a23b4). Its own
  // config.json was not found: the test writes the quantization_config RichardErkhov's 4-bit
  // uploads carry (verbatim in their config.json diffs, e.g. stablelm-2-12b-4bits commit b4c785c)
  // and torch_dtype float16, the dtype transformers loads a bitsandbytes model in when none is
  // passed (quantizer_bnb_4bit.py update_torch_dtype); the source config says float32, which
  // would put the 16-bit tensors at twice the published size.
  // By hand: 24 layers x (q,k,v,o 1024x1024; gate,up 4096x1024; down 1024x4096) = 402,653,184
  // values in 168 matrices; fp4 packs 2 values a byte, an fp32 absmax per 64 values, per matrix a
  // 16-entry fp32 quant_map (64 B) and the packed quant_state (kvplan counts 128 B); the
  // 32,002 x 1,024 embedding and head and 49 norms of 1,024 in fp16.
  auto cfg = test::read_json("tests/data/quant_checkpoints/nicholasKluge__TeenyTinyLlama-460m-Chat.config.json");
  cfg["quantization_config"] = {{"_load_in_4bit", true}, {"_load_in_8bit", false},
                                {"bnb_4bit_compute_dtype", "float32"}, {"bnb_4bit_quant_storage", "uint8"},
                                {"bnb_4bit_quant_type", "fp4"}, {"bnb_4bit_use_double_quant", false},
                                {"llm_int8_enable_fp32_cpu_offload", false}, {"llm_int8_has_fp16_weight", false},
                                {"llm_int8_skip_modules", nullptr}, {"llm_int8_threshold", 6.0},
                                {"load_in_4bit", true}, {"load_in_8bit", false}, {"quant_method", "bitsandbytes"}};
  cfg["torch_dtype"] = "float16";
  const auto w = weight_bytes(load_model_from_json(cfg.dump(), "config.json"));
  constexpr u64 values = 24 * u64{16'777'216};
  constexpr u64 kvplan = values / 2 + values / 64 * 4 + 168 * (64 + 128) + 2 * (2 * u64{32002} * 1024 + 49 * 1024);
  constexpr u64 file = 357'782'488;  // model.safetensors LFS pointer size
  static_assert(kvplan == 357'705'216);
  BOOST_TEST(w.total == kvplan);
  BOOST_TEST(w.scheme == "fp4 + fp16");
  // -77,272 B (-0.022 %): the file's JSON header, 723 entries (weight, absmax, quant_map and
  // quant_state for 168 matrices, 51 fp16 tensors), ~107 B each.
  BOOST_TEST(file - w.total == 77'272u);
  BOOST_TEST((file - w.total) * 1'000 < file);  // within 0.1 %
}

BOOST_AUTO_TEST_CASE(modules_named_for_one_layer_or_expert_stay_unquantised) {
  // Qwen3-30B-A3B (48 layers x 128 experts of gate/up 768x2048 and down 2048x768) with AWQ 4-bit
  // g128: an expert matrix is 786,432 + 30,720 B quantised, 3,145,728 B in bf16 (+2,328,576).
  auto cfg = nlohmann::json::parse(bundled_json("Qwen/Qwen3-30B-A3B"));
  cfg["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true}};
  const u64 base = weight_bytes(load_model_from_json(cfg.dump(), "config.json")).total;
  cfg["quantization_config"]["modules_to_not_convert"] = {
      "model.layers.0.mlp.experts",              // every expert of layer 0: 3 x 128 matrices
      "model.layers.1.mlp.experts.5.down_proj",  // one matrix
      "model.layers.10.mlp.experts.5",           // one expert: 3 matrices
      "model.layers.1.self_attn",                // q 4096x2048, k/v 512x2048, o 2048x4096
      "model.layers.1.self_attn",                // listed twice: counted once
      "model.layers.100.self_attn",              // no such layer: nothing
      "model.layers.1"};                         // all of layer 1: attention and 3 x 128 expert matrices
  // Attention extra: q and o 4,194,304 + 163,840 B -> 16,777,216 B, k and v 524,288 + 20,480 B
  // -> 2,097,152 B. The router is never quantised.
  constexpr u64 expert_extra = 3145728 - (786432 + 30720);
  constexpr u64 attn_extra = 2 * (16777216 - (4194304 + 163840)) + 2 * (2097152 - (524288 + 20480));
  const auto w = weight_bytes(load_model_from_json(cfg.dump(), "config.json"));
  // Distinct copies: layer 0 (384), layer 1 (384, its expert 5 down_proj among them), layer 10
  // expert 5 (3).
  BOOST_TEST(w.total == base + (384 + 384 + 3) * expert_extra + attn_extra);
}

BOOST_AUTO_TEST_CASE(fp8_block_deepseek_v3_matches_its_published_size) {
  // deepseek-ai/DeepSeek-V3 (bundled config; tests/test_weights.cpp derives total and mtp by
  // hand): 61 layers + the MTP layer, the checkpoint stores both. Published: its safetensors
  // files, 688,586,727,753 B. kvplan: 688,574,809,152 B, -0.0017 %: the 163 files' JSON headers
  // and the e_score_correction_bias vectors, fp32 in the checkpoint where kvplan counts bf16.
  const auto w = weight_bytes(load_model("deepseek-ai/DeepSeek-V3"));
  constexpr u64 published = 688'586'727'753;
  BOOST_TEST(w.total + w.mtp == 688'574'809'152u);
  BOOST_TEST(w.total + w.mtp < published);
  BOOST_TEST((published - w.total - w.mtp) * 10'000 < published);  // within 0.01 %
}

BOOST_AUTO_TEST_CASE(fp8_per_tensor_static_llama_3_8b_matches_its_published_size) {
  // neuralmagic/Meta-Llama-3-8B-Instruct-FP8 (AutoFP8, per-tensor fp8 weights, static per-tensor
  // activation scales, lm_head left in bf16): its two safetensors files are 4,997,853,608 and
  // 4,083,426,976 B (LFS pointers of commit a52a16ac, tests/data/quant_checkpoints/README.md).
  // Its config.json was not found verbatim: the quantization_config is what AutoFP8 writes
  // ({"quant_method": "fp8", "activation_scheme": "static"}, README), the architecture the bundled
  // Llama-3.1-8B (the same tensor shapes as Meta-Llama-3-8B-Instruct). By hand: the 6,979,321,856
  // fp8 values, an fp32 weight_scale and an fp32 input_scale per matrix (224), bf16 embeddings,
  // head and norms.
  const auto w = weight_bytes(llama8b_with({{"quant_method", "fp8"}, {"activation_scheme", "static"}}));
  constexpr u64 file = 4'997'853'608 + u64{4'083'426'976};
  BOOST_TEST(w.total == kLinear + 224 * 8 + kRestBf16);
  BOOST_TEST(w.total == 9'081'202'432u);
  BOOST_TEST(w.scheme == "fp8 + bf16");
  // -78,152 B (-0.00086 %): the two files' JSON headers, 739 entries (the index's weight_map:
  // 291 weights + weight_scale and input_scale for 224 matrices), ~106 B each.
  BOOST_TEST(file - w.total == 78'152u);
  BOOST_TEST((file - w.total) * 10'000 < file);  // within 0.01 %
}

BOOST_AUTO_TEST_CASE(modelopt_fp8_and_nvfp4_llama_3_1_8b_match_an_in_memory_measurement) {
  // Not a file size: a public notebook (elizabetht/language-modeling-from-scratch,
  // quantization/model-optimizer/{FP8,NVFP4}_PTQ_Min-Max_Calibration.ipynb @ ec6d078) quantises
  // meta-llama/Llama-3.1-8B-Instruct with ModelOpt (mtq.FP8_DEFAULT_CFG / NVFP4_DEFAULT_CFG),
  // runs export_hf_checkpoint (config.json + hf_quant_config.json + two shards) and then prints the
  // sum of numel x element size over the model's parameters and buffers: 16.060522752 GB before
  // quantising, 9.08120448 GB (FP8) and 6.0277502720000005 GB (NVFP4) after the export, which
  // replaces each quantised linear's weight in place. The bf16 print calibrates the measure:
  // 16,060,522,752 B is Llama-3.1-8B's published total_size (16,060,522,496) plus the 256 B
  // rotary inv_freq buffer, which is never saved. The hf_quant_config.json the export wrote is
  // not printed: the test writes quant_algo and the exclude_modules entry (lm_head) that
  // ModelOpt's default configs leave unquantised ("*lm_head*" disabled); a quantised lm_head
  // would be 525 MB below the measure.
  TempDir t;
  write_text(t.path / "config.json", bundled_json("meta-llama/Llama-3.1-8B"));
  const auto bf16 = weight_bytes(load_model(t.path.string()));
  BOOST_TEST(bf16.total + 256 == 16'060'522'752u);
  write_text(t.path / "hf_quant_config.json",
             R"({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8", "exclude_modules": ["lm_head"]}})");
  const auto fp8 = weight_bytes(load_model(t.path.string()));
  // By hand: 6,979,321,856 fp8 values, fp32 weight_scale and input_scale per matrix (224),
  // bf16 embeddings, head and norms: the same bytes as AutoFP8's static layout above.
  BOOST_TEST(fp8.total == kLinear + 224 * 8 + kRestBf16);
  BOOST_TEST(fp8.scheme == "modelopt fp8 + bf16");
  // -2,048 B (-0.00002 %): the 256 B inv_freq and 1,792 B = 448 fp32 scalars, the `_amax` of
  // each linear's input and weight quantizer, which stay on the module in memory and which
  // ModelOpt's postprocess_state_dict (export/quant_utils.py) drops from the saved state dict.
  BOOST_TEST(9'081'204'480u - fp8.total == 256u + 448 * 4);
  write_text(t.path / "hf_quant_config.json",
             R"({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "group_size": 16,
                 "exclude_modules": ["lm_head"]}})");
  const auto nvfp4 = weight_bytes(load_model(t.path.string()));
  // By hand: 4 bits per value, an fp8 scale per 16 values, weight_scale_2 and input_scale (fp32)
  // per matrix, the rest bf16.
  BOOST_TEST(nvfp4.total == kLinear / 2 + kLinear / 16 + 224 * 8 + kRestBf16);
  BOOST_TEST(nvfp4.total == 6'027'749'120u);
  // -1,152 B (-0.00002 %): the 256 B inv_freq and 896 B, one fp32 scalar per linear left in memory.
  BOOST_TEST(6'027'750'272u - nvfp4.total == 256u + 224 * 4);
}

BOOST_AUTO_TEST_CASE(modelopt_fp8_llama_3_1_8b_from_hf_quant_config_matches_its_published_rounded_size) {
  // nvidia/Llama-3.1-8B-Instruct-FP8, a real ModelOpt FP8 export of meta-llama/Llama-3.1-8B-Instruct.
  // Published figure, ROUNDED: its Hugging Face tree page (https://huggingface.co/nvidia/
  // Llama-3.1-8B-Instruct-FP8/tree/main, both shards from the "update" commit 81c5f9f) lists
  // model-00001-of-00002.safetensors "5 GB" and model-00002-of-00002.safetensors "4.08 GB"; no exact
  // byte figure (index total_size, LFS pointer, header sums) was found anywhere, so the files are
  // carried as an interval. Hugging Face prints 3 significant digits and drops trailing zeros ("4.9
  // GB" on the 70B sibling's tree page); the AutoFP8 files above, exactly 4,997,853,384 and
  // 4,083,426,816 B at their first upload (the sizes commit a52a16ac replaced), are printed "5 GB"
  // and "4.08 GB" on that upload's tree page (neuralmagic/Meta-Llama-3-8B-Instruct-FP8, ced5609).
  // Quantisation: the hf_quant_config.json fields TensorRT-LLM's docs quote "from the checkpoints
  // above" (nvidia/Llama-3.1-{8B,70B,405B}-Instruct-FP8; docs/source/1.0/developer-guide/
  // perf-benchmarking.md @ 3a69fdb): modelopt 0.23.0rc1, quant_algo FP8, kv_cache_quant_algo null.
  // The checkpoint's own file (241 B) was not readable; the quote (180 B of JSON) names no
  // exclude_modules, which ModelOpt 0.23.0's export writes for FP8 (["lm_head"],
  // unified_export_hf.py @ 73d6af7), so the test prices both. Architecture: the bundled Llama-3.1-8B (the Instruct model's shapes; its
  // own config.json, 922 B, was not readable). tests/data/quant_checkpoints/README.md cites each.
  TempDir t;
  write_text(t.path / "config.json", bundled_json("meta-llama/Llama-3.1-8B"));
  const std::string quoted =
      "tests/data/quant_checkpoints/nvidia__Llama-3.1-8B-Instruct-FP8.hf_quant_config.quoted.json";
  fs::copy_file(test::source_path(quoted), t.path / "hf_quant_config.json");
  const auto w = weight_bytes(load_model(t.path.string()));
  // By hand: a byte per fp8 value, an fp32 weight_scale and an fp32 input_scale per matrix (224),
  // bf16 embeddings, head and norms. The head is bf16 whether or not exclude_modules names it
  // (kvplan keeps the output head in the model dtype for every method but MLX): ModelOpt's default
  // configs disable "*lm_head*" (quantization/config.py), and a quantised head (8,555,865,864 B)
  // would be 5.7 % below the published interval.
  constexpr u64 by_hand = kLinear + 224 * 8 + kRestBf16;
  static_assert(by_hand == 9'081'202'432);
  BOOST_TEST(w.total == by_hand);
  BOOST_TEST(w.scheme == "modelopt fp8 + bf16");
  auto with_exclude = test::read_json(quoted);
  with_exclude["quantization"]["exclude_modules"] = {"lm_head"};
  write_text(t.path / "hf_quant_config.json", with_exclude.dump(4));
  BOOST_TEST(weight_bytes(load_model(t.path.string())).total == by_hand);
  // The published files lie in [4.995 + 4.075, 5.005 + 4.085) GB = [9.070, 9.090) GB. Their tensor
  // bytes are that less the two files' 8-byte lengths and JSON headers: 739 entries (291 Llama
  // tensors + weight_scale and input_scale of 224 matrices), 78,152 B for AutoFP8's same 739
  // entries above; 1 MB bounds them here. kvplan must lie within 1 % of every point of
  // [9.070 GB - 1 MB, 9.090 GB): +0.13 % of the low end, -0.10 % of the high end.
  constexpr u64 lo = 4'995'000'000 + u64{4'075'000'000} - 1'000'000, hi = 5'005'000'000 + u64{4'085'000'000};
  static_assert(lo == 9'069'000'000 && hi == 9'090'000'000);
  static_assert(4'997'853'384 >= 4'995'000'000 && 4'997'853'384 < 5'005'000'000);  // AutoFP8 "5 GB"
  static_assert(4'083'426'816 >= 4'075'000'000 && 4'083'426'816 < 4'085'000'000);  // AutoFP8 "4.08 GB"
  BOOST_TEST(w.total >= lo);
  BOOST_TEST(w.total < hi);
  BOOST_TEST((w.total - lo) * 100 <= lo);  // within 1 % of the low end
  BOOST_TEST((hi - w.total) * 100 <= hi);  // and of the high end, hence of every point between
  // Even read as 2 significant digits ("5 GB" = [4.95, 5.05) GB), the interval [9.024, 9.135) GB
  // stays within 1 %: +0.63 % and -0.59 %.
  constexpr u64 lo2 = 4'950'000'000 + u64{4'075'000'000} - 1'000'000, hi2 = 5'050'000'000 + u64{4'085'000'000};
  static_assert((by_hand - lo2) * 100 <= lo2 && (hi2 - by_hand) * 100 <= hi2);
}

namespace {
// compressed-tensors' FP8_DYNAMIC and W4A16 presets (quantization/quant_scheme.py) as
// llm-compressor writes them into quantization_config, lm_head ignored.
nlohmann::json ct_fp8_dynamic() {
  return {{"quant_method", "compressed-tensors"},
          {"format", "float-quantized"},
          {"ignore", {"lm_head"}},
          {"config_groups",
           {{"group_0",
             {{"targets", {"Linear"}},
              {"weights", {{"num_bits", 8}, {"type", "float"}, {"strategy", "channel"}, {"symmetric", true}, {"dynamic", false}}},
              {"input_activations",
               {{"num_bits", 8}, {"type", "float"}, {"strategy", "token"}, {"symmetric", true}, {"dynamic", true}}}}}}}};
}
nlohmann::json ct_w4a16(const nlohmann::json& actorder) {
  return {{"quant_method", "compressed-tensors"},
          {"format", "pack-quantized"},
          {"ignore", {"lm_head"}},
          {"config_groups",
           {{"group_0",
             {{"targets", {"Linear"}},
              {"weights",
               {{"num_bits", 4}, {"type", "int"}, {"strategy", "group"}, {"group_size", 128}, {"symmetric", true},
                {"dynamic", false}, {"actorder", actorder}}}}}}}};
}
ModelSpec bundled_with(const std::string& id, const nlohmann::json& qc) {
  auto cfg = nlohmann::json::parse(bundled_json(id));
  cfg["quantization_config"] = qc;
  return load_model_from_json(cfg.dump(), "config.json");
}
// Llama-3.1/3.3-70B: 80 layers of q,o 8192x8192; k,v 1024x8192; gate,up 28672x8192; down
// 8192x28672 = 68,451,041,280 quantisable values, 6,225,920 input columns; embedding and head
// (2 x 128,256 x 8,192) and 161 norms of 8,192 in bf16 (4,205,330,432 B).
constexpr u64 k70Values = 68'451'041'280, k70Cols = 80 * u64{6 * 8192 + 28672}, k70RestBf16 = 4'205'330'432;
}  // namespace

BOOST_AUTO_TEST_CASE(compressed_tensors_regex_ignore_entries) {
  // compressed-tensors `ignore` entries "re:PATTERN" are Python re.match on each module's name
  // (compressed_tensors/utils/match.py `_match_name`; vLLM compressed_tensors/utils.py
  // `_is_equal_or_regex_match`): anchored at the start only. Qwen3-30B-A3B (48 layers; q 4096x2048,
  // k/v 512x2048, o 2048x4096, 128 experts of gate/up 768x2048 and down 2048x768) under
  // llm-compressor's FP8_DYNAMIC: a quantised matrix is rows x cols fp8 + a bf16 scale per row,
  // an ignored one rows x cols bf16, so ignoring one costs 2·rows·cols - (rows·cols + 2·rows).
  const auto extra = [](u64 rows, u64 cols) { return rows * cols - 2 * rows; };
  const u64 attn = extra(4096, 2048) + 2 * extra(512, 2048) + extra(2048, 4096);
  const u64 expert = 2 * extra(768, 2048) + extra(2048, 768);
  auto qc = ct_fp8_dynamic();
  const auto total = [&](const nlohmann::json& ignore) {
    qc["ignore"] = ignore;
    return weight_bytes(bundled_with("Qwen/Qwen3-30B-A3B", qc)).total;
  };
  const u64 base = total({"lm_head"});
  // llm-compressor's MoE examples: the router is never quantised; "$" keeps gate_proj quantised.
  BOOST_TEST(total({"lm_head", "re:.*mlp.gate$"}) == base);
  // Start-anchored, not end-anchored: a pattern naming layer 1's attention covers its q/k/v/o.
  BOOST_TEST(total({"lm_head", R"(re:model\.layers\.1\.self_attn)"}) == base + attn);
  // ... and "layers.2" as a prefix is layers 2 and 20-29: 11 whole layers (a full match would be none).
  BOOST_TEST(total({"lm_head", R"(re:model\.layers\.2)"}) == base + 11 * (attn + 128 * expert));
  BOOST_TEST(total({"lm_head", R"(re:model\.layers\.2$)"}) == base);
  // One copy per layer or per expert: experts 0 and 1's down_proj in every layer; every k_proj.
  BOOST_TEST(total({"lm_head", R"(re:.*experts\.(0|1)\.down_proj$)"}) == base + 48 * 2 * extra(2048, 768));
  BOOST_TEST(total({"lm_head", "re:.*self_attn.k_proj$"}) == base + 48 * extra(512, 2048));
  // Literal and regex entries naming the same copies count them once.
  BOOST_TEST(total({"lm_head", "model.layers.1.self_attn", R"(re:model\.layers\.1\.self_attn\.)"}) == base + attn);
  // A pattern std::regex cannot read (Python's inline flags) is an error naming the entry, kept for
  // the weights (the cache still loads), never an entry that silently matches nothing.
  qc["ignore"] = {"lm_head", "re:(?i)LM_HEAD"};
  const auto bad = bundled_with("Qwen/Qwen3-30B-A3B", qc);
  BOOST_TEST(bad.params.unknown_reason.find("/quantization_config/ignore/1") != std::string::npos);
  BOOST_TEST(bad.params.unknown_reason.find("re:(?i)LM_HEAD") != std::string::npos);
  BOOST_TEST(weight_bytes(bad).total == 0u);
  BOOST_TEST(bad.num_layers() == 48u);
}

BOOST_AUTO_TEST_CASE(compressed_tensors_fp8_dynamic_qwen3_8b_matches_its_published_size) {
  // RedHatAI/Qwen3-8B-FP8-dynamic: llm-compressor's FP8_DYNAMIC scheme (fp8 e4m3 weights with one
  // scale per output channel, dynamic per-token fp8 activations, lm_head ignored). Its tensors are
  // 8.790292739868164 GiB = 9,438,504,960 B: llm-d/llm-d-benchmark asserts that figure for this
  // checkpoint (config_explorer/tests/capacity_planner_test.py, commit a2aa0f8b), computed from
  // the per-dtype parameter counts the Hugging Face API reads from its safetensors headers
  // (BF16 x 2 B + F8_E4M3 x 1 B; tests/data/checkpoints/README.md). The architecture is the
  // bundled Qwen/Qwen3-8B config; the quantization_config is compressed-tensors' FP8_DYNAMIC
  // preset (quantization/quant_scheme.py) as llm-compressor writes it. By hand: 36 layers x
  // (q,o 4096x4096; k,v 1024x4096; gate,up 12288x4096; down 4096x12288) = 6,945,767,424 fp8
  // values; one bf16 scale per output row, 36 x 38,912; the 151,936 x 4,096 embedding and head
  // and 308,224 norm values in bf16. compressed-tensors creates every scale in the weight's dtype
  // (initialize.py: scale_dtype = observed_dtype); kvplan priced channel scales as fp32 and was
  // 2,801,664 B (+0.030 %) over before that was fixed.
  auto cfg = nlohmann::json::parse(bundled_json("Qwen/Qwen3-8B"));
  cfg["quantization_config"] = ct_fp8_dynamic();
  cfg["quantization_config"]["quantization_status"] = "compressed";
  const auto w = weight_bytes(load_model_from_json(cfg.dump(), "config.json"));
  constexpr u64 values = 36 * (2 * u64{4096} * 4096 + 2 * u64{1024} * 4096 + 3 * u64{12288} * 4096);
  constexpr u64 rows = 36 * u64{4096 + 1024 + 1024 + 4096 + 12288 + 12288 + 4096};
  constexpr u64 by_hand = values + 2 * rows + 2 * (2 * u64{151936} * 4096 + 308'224);
  static_assert(values == 6'945'767'424 && rows == 1'400'832);
  constexpr u64 published = 9'438'504'960;
  BOOST_TEST(w.total == by_hand);
  BOOST_TEST(w.total == published);  // exact: -0 B
  BOOST_TEST(w.scheme == "compressed-tensors fp8 channel + bf16");
}

BOOST_AUTO_TEST_CASE(compressed_tensors_fp8_dynamic_llama_3_1_8b_matches_its_measured_size) {
  // RedHatAI's Llama-3.1-8B FP8-dynamic ("RedHatAI/…-FP8-dynamic"): 9,083,953,152 B of tensors,
  // summed from the data_offsets of its safetensors headers in a public TSX component ("What a
  // quantized checkpoint actually weighs", tests/data/checkpoints/README.md). By hand: the 6,979,321,856 fp8 values, a
  // bf16 scale for each of the 32 x 43,008 output rows, bf16 embeddings, head and norms.
  const auto w = weight_bytes(llama8b_with(ct_fp8_dynamic()));
  BOOST_TEST(w.total == kLinear + 2 * 32u * 43008 + kRestBf16);
  BOOST_TEST(w.total == 9'083'953'152u);  // exact (+2,752,512 B, +0.030 %, with the old fp32 scales)
}

BOOST_AUTO_TEST_CASE(compressed_tensors_scale_dtype) {
  // QuantizationArgs.scale_dtype overrides the weight's dtype: fp32 channel scales are 4 B a row;
  // a name kvplan cannot read is an error naming the field (kept for the weights; the cache loads).
  auto qc = ct_fp8_dynamic();
  qc["config_groups"]["group_0"]["weights"]["scale_dtype"] = "torch.float32";
  BOOST_TEST(weight_bytes(llama8b_with(qc)).total == kLinear + 4 * 32u * 43008 + kRestBf16);
  qc["config_groups"]["group_0"]["weights"]["scale_dtype"] = "int7";
  const auto bad = llama8b_with(qc);
  BOOST_TEST(bad.params.unknown_reason.find("/quantization_config/config_groups/group_0/weights/scale_dtype") !=
             std::string::npos);
  BOOST_TEST(weight_bytes(bad).total == 0u);
}

BOOST_AUTO_TEST_CASE(compressed_tensors_pack_quantized_3_bit_fills_whole_int32_words) {
  // pack-quantized stores 32 // num_bits values per int32 and pads each row to whole words; the
  // asymmetric zero points are packed the same way down the output rows (compressed-tensors
  // pack_quantized.py, compression_param_info: weight_packed [rows, ceil(cols / pack_factor)],
  // weight_zero_point [ceil(rows / pack_factor), cols / group_size], both int32). At 3 bits that
  // is 10 values a word (30 of 32 bits), not 32/3. By hand for Llama-3.1-8B, int3 g128 asymmetric:
  // values: rows x ceil(cols / 10) words: cols 4,096 -> 410 words (q, k, v, o, gate, up: 38,912
  //   rows), cols 14,336 -> 1,434 (down: 4,096 rows);
  // scales: one bf16 per 128 values; zero points: ceil(rows / 10) x groups per row words (q, o 410
  //   x 32; k, v 103 x 32; gate, up 1,434 x 32; down 410 x 112); weight_shape int64[2] per matrix.
  auto qc = ct_w4a16(nullptr);
  auto& w = qc["config_groups"]["group_0"]["weights"];
  w["num_bits"] = 3;
  w["symmetric"] = false;
  constexpr u64 values = 4 * (38'912u * 410 + 4'096u * 1'434);
  constexpr u64 scales = 218'103'808u / 128 * 2;
  constexpr u64 zeros = 4 * (2 * 410u * 32 + 2 * 103u * 32 + 2 * 1'434u * 32 + 410u * 112);
  constexpr u64 per_layer = values + scales + zeros + 7 * 16;
  static_assert(per_layer == 91'400'432);
  BOOST_TEST(weight_bytes(llama8b_with(qc)).total == 32 * per_layer + kRestBf16);  // 5,026,692,608
  // 3/8 of a byte per value would be 5.5 % less: 32 x 81,788,928 B of values instead of 87,310,336.
  // At 4 bits the words hold whole values (8 a word), so the rule is the bit count: the same
  // asymmetric config at 4 bits gives half a byte per value and per zero point.
  w["num_bits"] = 4;
  BOOST_TEST(weight_bytes(llama8b_with(qc)).total ==
             32 * (218'103'808u / 2 + scales + 1'703'936u / 2 + 7 * 16) + kRestBf16);
  // The compressor packs at most 8 bits: more is an error naming the field.
  w["num_bits"] = 16;
  const auto bad = llama8b_with(qc);
  BOOST_TEST(bad.params.unknown_reason.find("/quantization_config/config_groups/group_0/weights/num_bits") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(compressed_tensors_w4a16_llama_3_3_70b_matches_its_measured_size) {
  // RedHatAI's Llama-3.3-70B w4a16 ("RedHatAI/…-quantized.w4a16"): 39,525,311,232 B of tensors
  // (the same measured table). Its config.json was not found; the W4A16 preset gives int4
  // packed in int32, a bf16 scale per 128 values and a 16 B weight_shape per matrix (560):
  const u64 rule = k70Values / 2 + k70Values / 128 * 2 + 560 * 16 + k70RestBf16;
  BOOST_TEST(rule == 39'500'407'552u);
  const auto plain = weight_bytes(bundled_with("meta-llama/Llama-3.1-70B", ct_w4a16(nullptr)));
  BOOST_TEST(plain.total == rule);
  // -24,903,680 B (-0.063 %): exactly 4 B per input column, the int32 weight_g_idx that GPTQ with
  // actorder "group" stores (compressed-tensors initialize.py). With that actorder kvplan gives the
  // measured size to the byte.
  constexpr u64 measured = 39'525'311'232;
  BOOST_TEST(measured - plain.total == 4 * k70Cols);
  BOOST_TEST((measured - plain.total) * 100 < measured);
  const auto grouped = weight_bytes(bundled_with("meta-llama/Llama-3.1-70B", ct_w4a16("group")));
  BOOST_TEST(grouped.total == measured);
  BOOST_TEST(weight_bytes(bundled_with("meta-llama/Llama-3.1-70B", ct_w4a16("weight"))).total == rule);
}

BOOST_AUTO_TEST_CASE(compressed_tensors_w4a16_and_w4a8_llama_3_1_8b_match_their_published_sizes) {
  // llm-compressor issue #1215 (https://github.com/vllm-project/llm-compressor/issues/1215):
  // meta-llama/Llama-3.1-8B-Instruct through llm-compressor 0.4.1's W4A16 example (GPTQModifier,
  // ignore lm_head) with scheme W4A16 and with W4A8 (compressed-tensors 0.9.0), "values taken from
  // model.safetensors.index.json": 5,700,595,200 and 9,190,252,544 B. The configs are the
  // compressed-tensors 0.9.0 presets (quant_scheme.py W4A16, INT8_W4A8) in the format llm-compressor
  // 0.4.1 infers for them (quantization_format.py: weight-only int4 -> pack-quantized, int weights
  // with int activations -> int-quantized); the architecture is the bundled Llama-3.1-8B.
  // W4A16: int4 packed in int32, a bf16 scale per 128 values, a 16 B weight_shape per matrix (224).
  const auto w4a16 = weight_bytes(llama8b_with(ct_w4a16(nullptr)));
  BOOST_TEST(w4a16.total == kLinear / 2 + kLinear / 128 * 2 + 224 * 16 + kRestBf16);
  BOOST_TEST(w4a16.total == 5'700'595'200u);  // exact
  // W4A8: int-quantized stores each 4-bit value in an int8 (QuantizationArgs.pytorch_dtype(); the
  // issue's diagnosis, confirmed in issue #1513), a bf16 scale per 128 values, no weight_shape.
  nlohmann::json w4a8 = {
      {"quant_method", "compressed-tensors"},
      {"format", "int-quantized"},
      {"ignore", {"lm_head"}},
      {"config_groups",
       {{"group_0",
         {{"targets", {"Linear"}},
          {"weights",
           {{"num_bits", 4}, {"type", "int"}, {"strategy", "group"}, {"group_size", 128}, {"symmetric", true},
            {"dynamic", false}}},
          {"input_activations",
           {{"num_bits", 8}, {"type", "int"}, {"strategy", "token"}, {"symmetric", true}, {"dynamic", true}}}}}}}};
  const auto w = weight_bytes(llama8b_with(w4a8));
  BOOST_TEST(w.total == kLinear + kLinear / 128 * 2 + kRestBf16);
  BOOST_TEST(w.total == 9'190'252'544u);  // exact (priced at 4 bits before: 5,700,591,616 B, -38 %)
  BOOST_TEST(w.scheme == "compressed-tensors int4 group g128 (stored as int8) + bf16");
  // Asymmetric: the int8 zero point per group is stored in that dtype too (initialize.py zp_dtype).
  w4a8["config_groups"]["group_0"]["weights"]["symmetric"] = false;
  BOOST_TEST(weight_bytes(llama8b_with(w4a8)).total == w.total + kLinear / 128);
}

BOOST_AUTO_TEST_CASE(modelopt_nvfp4_llama_3_3_70b_from_hf_quant_config_matches_its_published_size) {
  // nvidia/Llama-3.3-70B-Instruct-FP4 (ModelOpt NVFP4): metadata.total_size of its
  // model.safetensors.index.json is 42,709,045,632, the figure a public deployment script checks
  // the download against and the same measured table's byte count. Its config.json names no
  // quantisation; hf_quant_config.json beside it does: quant_algo NVFP4, group_size 16,
  // kv_cache_quant_algo FP8, lm_head in exclude_modules (the fields that script asserts; its
  // architecture fields are Llama-3.1-70B's, the bundled config). By hand: 4 bits per value, an fp8
  // scale per 16 values, weight_scale_2 and input_scale (fp32) per matrix, bf16 embeddings, head
  // and norms.
  TempDir t;
  write_text(t.path / "config.json", bundled_json("meta-llama/Llama-3.1-70B"));
  const auto bf16 = weight_bytes(load_model(t.path.string()));
  BOOST_TEST(bf16.total == 2 * k70Values + k70RestBf16);  // no hf_quant_config.json: the model dtype
  write_text(t.path / "hf_quant_config.json",
             R"({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8",
                 "group_size": 16, "exclude_modules": ["lm_head"]}})");
  const auto w = weight_bytes(load_model(t.path.string()));
  BOOST_TEST(w.total == k70Values / 2 + k70Values / 16 + 560 * 8 + k70RestBf16);
  BOOST_TEST(w.total == 42'709'045'632u);  // exact
  BOOST_TEST(w.scheme == "modelopt nvfp4 + bf16");
  // A malformed hf_quant_config.json never blocks the cache answer: the model loads and its
  // weights are unknown, with the reason naming the file (as for a malformed quantization_config).
  write_text(t.path / "hf_quant_config.json", R"({"producer": {"name": "modelopt"}})");
  const auto bad = load_model(t.path.string());
  BOOST_TEST(bad.num_layers() == 80u);
  BOOST_TEST(bad.params.unknown_reason.find("hf_quant_config.json") != std::string::npos);
  BOOST_TEST(bad.params.unknown_reason.find("\"quantization\" object") != std::string::npos);
  BOOST_TEST(weight_bytes(bad).total == 0u);
  // A config.json that names its own quantization_config keeps it.
  auto own = nlohmann::json::parse(bundled_json("meta-llama/Llama-3.1-70B"));
  own["quantization_config"] = ct_w4a16(nullptr);
  write_text(t.path / "config.json", own.dump());
  BOOST_TEST(weight_bytes(load_model(t.path.string())).total == 39'500'407'552u);
}

// TinyLlama-1.1B (tests/data/quant_checkpoints/unsloth__tinyllama.config.json, verbatim): 22 layers
// of q,o 2048x2048; k,v 256x2048; gate,up 5632x2048; down 2048x5632 = 968,884,224 quantisable
// values in 154 matrices with 394,240 output rows; the untied 32,000 x 2,048 embedding and head
// and 45 norms of 2,048 stay bf16 (262,328,320 B).
namespace {
constexpr u64 kTinyValues = 22 * u64{2 * 2048 * 2048 + 2 * 256 * 2048 + 3 * 5632 * 2048}, kTinyRows = 22 * u64{17920},
              kTinyMatrices = 22 * 7, kTinyRestBf16 = 2 * (2 * u64{32000} * 2048 + 45 * 2048);
static_assert(kTinyValues == 968'884'224 && kTinyRows == 394'240 && kTinyRestBf16 == 262'328'320);
ModelSpec tinyllama_with(const nlohmann::json& qc) {
  auto cfg = test::read_json("tests/data/quant_checkpoints/unsloth__tinyllama.config.json");
  cfg["quantization_config"] = qc;
  return load_model_from_json(cfg.dump(), "config.json");
}
}  // namespace

BOOST_AUTO_TEST_CASE(compressed_tensors_w8a8_int8_tinyllama_matches_its_published_size) {
  // nm-testing/TinyLlama-1.1B-Chat-v1.0-W8A8_channel_weight_static_per_tensor-e2e (llm-compressor's
  // CI checkpoint of TinyLlama/TinyLlama-1.1B-Chat-v1.0): compressed-tensors int-quantized W8A8,
  // int8 weights with a scale per output channel, static per-tensor int8 activations, lm_head
  // ignored. Its model.safetensors is 1,232,059,012 B (the Git LFS pointer in the repository's
  // commit pages, e.g. b88bc97 and ba961ff; the same size at every re-upload from compressed-tensors
  // 0.6.0 on). Its quantization_config is verbatim from its config.json (blob b8db519); its
  // config.json's architecture lines are TinyLlama-1.1B's, and the test takes them from
  // unsloth/tinyllama's config.json (verbatim; the tail of the checkpoint's own file was not
  // readable). tests/data/quant_checkpoints/README.md cites each figure.
  // By hand: a byte per value, a bf16 weight_scale per output row (compressed-tensors creates
  // scales in the weight's dtype), a bf16 input_scale per matrix (static activations), the rest
  // in bf16.
  const auto qc = test::read_json(
      "tests/data/quant_checkpoints/nm-testing__TinyLlama-1.1B-Chat-v1.0-W8A8_channel_weight_static_per_tensor-e2e."
      "quantization_config.json");
  const auto w = weight_bytes(tinyllama_with(qc));
  constexpr u64 by_hand = kTinyValues + 2 * kTinyRows + 2 * kTinyMatrices + kTinyRestBf16;
  static_assert(by_hand == 1'232'001'332);
  constexpr u64 file = 1'232'059'012;
  BOOST_TEST(w.total == by_hand);
  BOOST_TEST(w.scheme == "compressed-tensors int8 channel + bf16");
  // -57,680 B (-0.0047 %): the file's 8-byte length and JSON header, 509 entries (weight,
  // weight_scale and input_scale of 154 matrices, 44 layer norms, the embedding, final norm and
  // head), ~113 B each. No zero points: symmetric schemes save none.
  BOOST_TEST(file - w.total == 57'680u);
  BOOST_TEST((file - w.total) * 10'000 < file);  // within 0.01 %
  // Its sibling nm-testing/TinyLlama-1.1B-Chat-v1.0-W8A8_tensor_weight_static_per_tensor_act-e2e
  // (one weight_scale per matrix instead of per row; its recipe.yaml, blame a321f35, names
  // strategy tensor for weights and activations) is 1,231,270,112 B (LFS pointer, commits
  // 835aed3 and 1871d51). Its config.json was not read: the test changes only the weights'
  // strategy of the verbatim block above, as that recipe does.
  auto per_tensor = qc;
  per_tensor["config_groups"]["group_0"]["weights"]["strategy"] = "tensor";
  const auto t = weight_bytes(tinyllama_with(per_tensor));
  BOOST_TEST(t.total == kTinyValues + 2 * kTinyMatrices + 2 * kTinyMatrices + kTinyRestBf16);  // 1,231,213,160
  constexpr u64 tensor_file = 1'231'270'112;
  // -56,952 B: the header again, 728 B shorter (scale shapes [1] instead of [rows, 1]).
  BOOST_TEST(tensor_file - t.total == 56'952u);
}

BOOST_AUTO_TEST_CASE(compressed_tensors_fp8_static_tinyllama_matches_its_published_size) {
  // nm-testing/TinyLlama-1.1B-Chat-v1.0-FP8-e2e: llm-compressor's recipe (recipe.yaml, verbatim:
  // QuantizationModifier, targets [Linear], ignore [lm_head], scheme FP8) on
  // TinyLlama/TinyLlama-1.1B-Chat-v1.0. Its model.safetensors is 1,231,270,880 B (LFS pointer,
  // commit bf7ce4b). Its config.json was not read: the quantization_config is compressed-tensors'
  // FP8 preset (quantization/quant_scheme.py: fp8 weights and fp8 static input activations, both
  // one scale per tensor) in the float-quantized format, and the architecture TinyLlama-1.1B's.
  // By hand: a byte per value, a bf16 weight_scale and a bf16 input_scale per matrix, the rest bf16.
  const nlohmann::json fp8 = {{"type", "float"}, {"num_bits", 8}, {"strategy", "tensor"}, {"symmetric", true}, {"dynamic", false}};
  const nlohmann::json qc = {
      {"quant_method", "compressed-tensors"},
      {"format", "float-quantized"},
      {"ignore", {"lm_head"}},
      {"config_groups", {{"group_0", {{"targets", {"Linear"}}, {"weights", fp8}, {"input_activations", fp8}}}}}};
  const auto w = weight_bytes(tinyllama_with(qc));
  constexpr u64 by_hand = kTinyValues + 2 * kTinyMatrices + 2 * kTinyMatrices + kTinyRestBf16;
  static_assert(by_hand == 1'231'213'160);
  constexpr u64 file = 1'231'270'880;
  BOOST_TEST(w.total == by_hand);
  BOOST_TEST(w.scheme == "compressed-tensors fp8 tensor + bf16");
  // -57,720 B (-0.0047 %): the header. It is 768 B longer than the int8 per-tensor sibling's
  // (56,952 B above) for the same 509 tensors: "F8_E4M3" is 5 characters longer than "I8" in
  // each of the 154 weights' entries; with fp32 scales the tensors alone would be 616 B more.
  BOOST_TEST(file - w.total == 57'720u);
  BOOST_TEST((file - w.total) * 10'000 < file);
}

BOOST_AUTO_TEST_CASE(modelopt_kv_cache_quant_algo_sets_the_engines_auto_kv_dtype) {
  // nvidia/Llama-3.1-70B-Instruct-FP8's config.json and hf_quant_config.json, verbatim
  // (tests/data/quant_checkpoints/README.md): kv_cache_quant_algo "FP8". With --kv-cache-dtype auto
  // vLLM 0.14+ (resolve_kv_cache_dtype_string), SGLang (configure_kv_cache_dtype) and TensorRT-LLM
  // (ModelLoader._update_from_hf_quant_config) store that cache in fp8. By hand, tp 4: 80 layers x
  // 2 KV heads per rank x 128 x (K + V) = 40,960 values a token, a byte each in fp8, two in bf16.
  const ModelSpec m = load_model(test::source_path("tests/data/quant_checkpoints/nvidia__Llama-3.1-70B-Instruct-FP8"));
  BOOST_TEST(m.kv_cache_quant_algo == "FP8");
  // kvplan size / inspect keep "auto" = the model dtype, and say what the engines do instead.
  BOOST_TEST(std::any_of(m.assumptions.begin(), m.assumptions.end(),
                         [](const std::string& a) { return a.find("kv_cache_quant_algo FP8") != std::string::npos; }));
  BOOST_TEST(cache_size(m, Workload{}).total_bytes == 4096u * 80 * 8 * 128 * 2 * 2);
  constexpr u64 fp8_token = 80 * 2 * 128 * 2, bf16_token = 2 * fp8_token;
  static_assert(fp8_token == 40'960);
  auto has = [](const std::vector<std::string>& notes, const std::string& part) {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
  };
  VllmOptions v;
  v.tensor_parallel_size = 4;
  v.available_kv_bytes = u64{20} << 30;
  const auto va = vllm_profile(m, v);
  BOOST_TEST(va.bytes_per_token == fp8_token);
  BOOST_TEST(has(va.notes, "kv_cache_quant_algo FP8 makes the cache fp8_e4m3"));
  v.kv_cache_dtype = "bf16";  // an explicit dtype overrides the checkpoint
  BOOST_TEST(vllm_profile(m, v).bytes_per_token == bf16_token);
  v.kv_cache_dtype = "auto";
  v.auto_kv_follows_checkpoint = false;  // vLLM before 0.14: the model dtype, said
  const auto old = vllm_profile(m, v);
  BOOST_TEST(old.bytes_per_token == bf16_token);
  BOOST_TEST(has(old.notes, "before 0.14"));
  BOOST_TEST(!vllm_auto_kv_follows_checkpoint("0.13.0"));
  BOOST_TEST(!vllm_auto_kv_follows_checkpoint("0.10.1"));
  BOOST_TEST(vllm_auto_kv_follows_checkpoint("0.14"));
  BOOST_TEST(vllm_auto_kv_follows_checkpoint("v0.21.1"));
  BOOST_TEST(vllm_auto_kv_follows_checkpoint("latest"));
  BOOST_CHECK_THROW(vllm_auto_kv_follows_checkpoint("fourteen"), InputError);
  SglangOptions g;
  g.tp_size = 4;
  g.rest_bytes = u64{20} << 30;
  BOOST_TEST(sglang_profile(m, g).cell_size == fp8_token);
  TrtllmOptions t;
  t.tp_size = 4;
  t.kv_memory_bytes = u64{20} << 30;
  BOOST_TEST(trtllm_profile(m, t).bytes_per_token == fp8_token);
  // "NVFP4": TensorRT-LLM takes it (16 e2m1 values + one fp8 scale: 72 B a 128-wide head row);
  // vLLM's and SGLang's auto do not (the model dtype, with a note).
  ModelSpec nv = m;
  nv.kv_cache_quant_algo = "NVFP4";
  BOOST_TEST(trtllm_profile(nv, t).bytes_per_token == 80u * 2 * 2 * 72);
  v.auto_kv_follows_checkpoint = true;
  const auto vn = vllm_profile(nv, v);
  BOOST_TEST(vn.bytes_per_token == bf16_token);
  BOOST_TEST(has(vn.notes, "does not take"));
  BOOST_TEST(sglang_profile(nv, g).cell_size == bf16_token);
  // kvplan check reads the version: an older vLLM's pool holds half the tokens of the same memory.
  CheckOptions c;
  c.gpu = "H100";
  const Deployment d = parse_launch_command({"vllm", "serve", test::source_path("tests/data/quant_checkpoints/nvidia__Llama-3.1-70B-Instruct-FP8"),
                                             "--tensor-parallel-size", "4", "--max-model-len", "8192"});
  const CheckResult now = check_deployment(d, c);
  c.engine_version = "0.10.1";
  const CheckResult before = check_deployment(d, c);
  BOOST_TEST(now.kv_cache_tokens > 0u);
  BOOST_TEST(before.kv_cache_tokens < now.kv_cache_tokens);
  BOOST_TEST(has(now.notes, "makes the cache fp8_e4m3"));
  BOOST_TEST(has(before.notes, "before 0.14"));
}

BOOST_AUTO_TEST_CASE(fbgemm_fp8_per_row_scale_by_hand) {
  // No fbgemm_fp8 checkpoint with a citable size was found (tests/data/quant_checkpoints/README.md);
  // this pins the rule to what the writer saves. transformers' FbgemmFp8Linear holds an fp8
  // `weight` and an fp32 `weight_scale` of shape [out_features, 1] (quantize_fp8_per_row); its
  // `input_scale_ub` is a non-persistent buffer (not saved); vLLM's FBGEMMFp8LinearMethod creates
  // the same two tensors per layer. The quantization_config is the one transformers'
  // FbgemmFp8Config writes (activation_scale_ub 1200.0, the default; modules_to_not_convert).
  // Llama-3.1-8B by hand: a byte per quantisable value, 4 B per output row (32 layers x 43,008
  // rows: q 4,096 + k 1,024 + v 1,024 + o 4,096 + gate 14,336 + up 14,336 + down 4,096), the
  // embedding, head and norms in bf16.
  const nlohmann::json qc = {{"quant_method", "fbgemm_fp8"}, {"activation_scale_ub", 1200.0}, {"modules_to_not_convert", {"lm_head"}}};
  const auto w = weight_bytes(llama8b_with(qc));
  BOOST_TEST(w.total == kLinear + 4u * 32 * 43008 + kRestBf16);  // 9,086,705,664
  BOOST_TEST(w.scheme == "fbgemm fp8 per-channel + bf16");
  // A module named in modules_to_not_convert by its full name stays in the model dtype: with
  // "model.layers.0.self_attn", layer 0's four attention projections, (2 x 4,096 + 2 x 1,024) x
  // 4,096 values, at 2 B with no scale.
  const nlohmann::json l0 = {{"quant_method", "fbgemm_fp8"}, {"modules_to_not_convert", {"lm_head", "model.layers.0.self_attn"}}};
  constexpr u64 attn_values = u64{2 * 4096 + 2 * 1024} * 4096, attn_rows = 2 * 4096 + 2 * 1024;
  BOOST_TEST(weight_bytes(llama8b_with(l0)).total == kLinear + attn_values + 4u * (32 * 43008 - attn_rows) + kRestBf16);
  // A short name covers that module at any depth, as transformers' writers match it ("key." in
  // the name, or the name ending in key): "self_attn" keeps all 32 layers' projections in bf16.
  // It was ignored (every projection priced in fp8, 1.34 GB under what the writer saves).
  const nlohmann::json short_name = {{"quant_method", "fbgemm_fp8"}, {"modules_to_not_convert", {"lm_head", "self_attn"}}};
  BOOST_TEST(weight_bytes(llama8b_with(short_name)).total ==
             kLinear + 32 * attn_values + 4u * 32 * (43008 - attn_rows) + kRestBf16);
  const nlohmann::json q_only = {{"quant_method", "fbgemm_fp8"}, {"modules_to_not_convert", {"q_proj"}}};
  BOOST_TEST(weight_bytes(llama8b_with(q_only)).total == kLinear + 32u * 4096 * 4096 + 4u * 32 * (43008 - 4096) + kRestBf16);
  // Matched at name boundaries: "gate" (a MoE router's name) is not "gate_proj".
  const nlohmann::json gate = {{"quant_method", "fbgemm_fp8"}, {"modules_to_not_convert", {"gate"}}};
  BOOST_TEST(weight_bytes(llama8b_with(gate)).total == w.total);
}

BOOST_AUTO_TEST_CASE(unknown_quant_method_is_an_error) {
  // A weight-only field never blocks the cache answer (issue 12): the model loads, and the error
  // is kept for where the weights are needed (weight_bytes().unknown; plan/sweep/check refuse).
  const auto aqlm = llama8b_with({{"quant_method", "aqlm"}});
  BOOST_TEST(aqlm.params.unknown_reason.find("/quantization_config/quant_method") != std::string::npos);
  BOOST_TEST(aqlm.params.unknown_reason.find("\"aqlm\" is not priced") != std::string::npos);
  BOOST_TEST(weight_bytes(aqlm).unknown == aqlm.params.unknown_reason);
  BOOST_TEST(weight_bytes(aqlm).total == 0u);
  const auto gptq = llama8b_with({{"quant_method", "gptq"}, {"bits", "four"}});
  BOOST_TEST(gptq.params.unknown_reason.find("/quantization_config/bits") != std::string::npos);
  PlanInput in;
  in.gpu = find_accelerator("H100");
  BOOST_CHECK_EXCEPTION(plan(gptq, in), InputError,
                        HasMessage({"weight bytes unknown", "/quantization_config/bits", "--weights"}));
}

BOOST_AUTO_TEST_SUITE_END()
