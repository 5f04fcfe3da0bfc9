// TensorRT-LLM's `trtllm-serve [serve] MODEL` options, every one classified. Read from
// NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py, the click options of `serve` (commit
// 4c05a74891e4df8066f08ed4ce14b0972abe4e25), with the options and aliases added by
// 00209af149e7774406881a37283dce303571eb11 (--config as a second name of --extra_llm_api_options,
// --tensor_parallel_size/--tp_size, --free_gpu_memory_fraction, --context_parallel_size, ...). click accepts `--opt value` and `--opt=value`; flags
// (is_flag) take no value. The same list is in tests/data/engine_flags/trtllm.txt.
#include "deploy/flags.h"

namespace kvplan::detail {

EngineFlagTable trtllm_flag_table() {
  EngineFlagTable t = make_flag_table("trtllm", "NVIDIA/TensorRT-LLM@4c05a748, @00209af1 tensorrt_llm/commands/serve.py", R"(
--tokenizer | 1 | ignored
--custom_tokenizer | 1 | ignored
--custom_module_dirs | 1 | ignored
--revision | 1 | ignored
--tool_parser | 1 | ignored
--otlp_traces_endpoint | 1 | ignored
--chat_template | 1 | ignored
--context_parallel_size --cp_size | 1 | unmodelled | why=the KV cache is split over the context-parallel ranks
--host | 1 | ignored
--port | 1 | ignored
--backend | 1 | memory
--log_level | 1 | ignored
--max_beam_width | 1 | unmodelled | why=beam search keeps KV blocks per beam
--max_batch_size | 1 | memory
--max_num_tokens | 1 | memory
--max_seq_len | 1 | memory
--tp_size --tensor_parallel_size | 1 | memory
--pp_size --pipeline_parallel_size | 1 | memory
--ep_size --moe_expert_parallel_size | 1 | ignored
--cluster_size --moe_cluster_parallel_size | 1 | ignored
--gpus_per_node | 1 | ignored
--kv_cache_free_gpu_memory_fraction --free_gpu_memory_fraction | 1 | memory
--num_postprocess_workers | 1 | ignored
--trust_remote_code | 0 | ignored
--extra_llm_api_options --config | 1 | memory
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
