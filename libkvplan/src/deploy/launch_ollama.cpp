// Ollama's command line (cmd/cmd.go at ollama/ollama v0.11.4): `ollama serve` starts the server,
// configured by OLLAMA_* in its environment; `ollama run MODEL [PROMPT]` asks a server to load
// MODEL (its flags change no memory). The model becomes the store reference ollama:NAME[:TAG].
#include "deploy/launch_internal.h"

#include "kvplan/error.h"

namespace kvplan::detail {

std::optional<Deployment> recognise_ollama(const std::vector<std::string>& a, std::size_t i, Deployment d) {
  d.engine = EngineKind::ollama;
  const std::string sub = i + 1 < a.size() ? a[i + 1] : "";
  if (sub == "serve") {
    d.args.assign(a.begin() + static_cast<std::ptrdiff_t>(i + 2), a.end());
    return d;
  }
  if (sub == "run") {
    std::size_t k = i + 2;
    // Flags may come before the model (cobra); values of --keepalive / --format follow their flag.
    auto takes_value = [](const std::string& f) { return f == "--keepalive" || f == "--format"; };
    for (; k < a.size(); ++k) {
      if (a[k].empty() || a[k][0] != '-') break;
      d.args.push_back(a[k]);
      if (takes_value(a[k]) && k + 1 < a.size()) d.args.push_back(a[++k]);
    }
    if (k >= a.size()) throw InputError::value("launch command", "ollama run", "ollama run MODEL");
    d.model = "ollama:" + a[k];
    for (++k; k < a.size(); ++k) {  // the prompt's words are dropped, the flags kept
      if (a[k].empty() || a[k][0] != '-') continue;
      d.args.push_back(a[k]);
      if (takes_value(a[k]) && k + 1 < a.size()) d.args.push_back(a[++k]);
    }
    return d;
  }
  std::string got = a[i];
  for (std::size_t k = i + 1; k < a.size() && k < i + 3; ++k) got += " " + a[k];
  throw InputError::value("launch command", got, "ollama serve or ollama run MODEL (other ollama commands load no model)");
}

}  // namespace kvplan::detail
