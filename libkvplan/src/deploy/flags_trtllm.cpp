// TensorRT-LLM's `trtllm-serve [serve] MODEL` options, every one classified. Read from
// NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py, the click options of `serve` (commit
// 4c05a74891e4df8066f08ed4ce14b0972abe4e25). click accepts `--opt value` and `--opt=value`; flags
// (is_flag) take no value. The same list is in tests/data/engine_flags/trtllm.txt.
#include "deploy/flags.h"

namespace kvplan::detail {

EngineFlagTable trtllm_flag_table() {
  EngineFlagTable t = make_flag_table("trtllm", "NVIDIA/TensorRT-LLM@4c05a748 tensorrt_llm/commands/serve.py", R"(
--tokenizer | 1 | ignored
--host | 1 | ignored
--port | 1 | ignored
--backend | 1 | memory
--log_level | 1 | ignored
--max_beam_width | 1 | unmodelled | why=beam search keeps KV blocks per beam
--max_batch_size | 1 | memory
--max_num_tokens | 1 | memory
--max_seq_len | 1 | memory
--tp_size | 1 | memory
--pp_size | 1 | memory
--ep_size | 1 | ignored
--cluster_size | 1 | ignored
--gpus_per_node | 1 | ignored
--kv_cache_free_gpu_memory_fraction | 1 | memory
--num_postprocess_workers | 1 | ignored
--trust_remote_code | 0 | ignored
--extra_llm_api_options | 1 | memory
--reasoning_parser | 1 | ignored
--metadata_server_config_file | 1 | ignored
--server_role | 1 | ignored
--fail_fast_on_attention_window_too_large | 0 | ignored
--disagg_cluster_uri | 1 | ignored
--enable_chunked_prefill | 0 | ignored
--media_io_kwargs | 1 | ignored
--help | 0 | ignored
)");
  t.positional_model = true;
  return t;
}

}  // namespace kvplan::detail
