#pragma once
// Shell words and engine-command recognition shared by launch.cpp and manifest.cpp.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/deploy.h"

namespace kvplan::detail {

// One simple command of a script: its words and the line it starts on.
struct ShellCommand {
  std::vector<std::string> words;
  std::uint64_t line = 1;
  // Variables the command expands that the script never set ($MODEL with no MODEL=...): they
  // stay as written in `words`, and an engine command whose own arguments use one is refused
  // with the name (launch_script_deployments).
  std::vector<std::string> unset_variables;
};

// Splits a script into simple commands (newlines, ;, &&, ||, |, & separate them; redirections are
// dropped). Variables assigned earlier in the script ($X, ${X}, ${X:-default}) are expanded;
// unknown ones stay as written and are listed in ShellCommand::unset_variables.
std::vector<ShellCommand> split_script(std::string_view text, std::map<std::string, std::string> vars = {});

// The deployment when argv starts an engine (after env / wrappers), nullopt when it runs
// something else; a malformed engine command (`vllm serv`) is an error.
std::optional<Deployment> recognise_engine_command(const std::vector<std::string>& argv, std::string_view source);

// The ENTRYPOINT of an engine's server image ("vllm serve" for vllm/vllm-openai, "/app/llama-server"
// for ghcr.io/ggml-org/llama.cpp:server*), nullopt for any other image. Arguments given to such an
// image (docker run IMAGE ARGS, Kubernetes args without command, compose command without
// entrypoint) are appended to it, so they must not start the engine again.
std::optional<std::string> server_image_entrypoint(const std::string& image);

// Every engine command of a script.
std::vector<Deployment> launch_script_deployments(std::string_view text, std::string_view source,
                                                  std::uint64_t first_line = 1,
                                                  const std::map<std::string, std::string>& vars = {});

// `ollama serve` / `ollama run MODEL [PROMPT] [flags]` from argv[i] on (launch_ollama.cpp), with the
// assignments and wrappers already read into `d`.
std::optional<Deployment> recognise_ollama(const std::vector<std::string>& argv, std::size_t i, Deployment d);

}  // namespace kvplan::detail
