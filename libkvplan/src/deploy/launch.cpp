// Launch commands as a POSIX shell and the engines read them: quoting, continuations, env
// assignments, `docker run` / `podman run` wrappers, `sh -c` scripts and the engines' entry points.
#include "deploy/launch_internal.h"

#include <algorithm>
#include <cctype>

#include "kvplan/error.h"

namespace kvplan {

namespace {

bool is_name_char(char c, bool first) {
  return c == '_' || std::isalpha(static_cast<unsigned char>(c)) || (!first && std::isdigit(static_cast<unsigned char>(c)));
}

bool is_assignment(const std::string& t) {
  const auto eq = t.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i)
    if (!is_name_char(t[i], i == 0)) return false;
  return true;
}

// The shell tokenizer. `script`: newlines and operators separate commands.
class Tokenizer {
 public:
  Tokenizer(std::string_view s, std::map<std::string, std::string> vars) : s_(s), vars_(std::move(vars)) {}

  std::vector<detail::ShellCommand> run(bool script) {
    std::vector<detail::ShellCommand> out;
    detail::ShellCommand cur;
    cur.line = line_;
    unset_ = &cur.unset_variables;
    bool skip_next_word = false;  // the target of a redirection
    auto end_word = [&] {
      if (!have_) return;
      if (skip_next_word) skip_next_word = false;
      else {
        if (cur.words.empty()) cur.line = word_line_;
        cur.words.push_back(word_);
      }
      word_.clear();
      have_ = false;
    };
    auto end_command = [&](const char* op) {
      end_word();
      if (!script && !cur.words.empty() && op)
        throw InputError::value("launch command", std::string(op),
                                "one command (a script with several commands goes in a file: kvplan check run.sh)");
      if (!cur.words.empty()) {
        // A command of assignments only (or `export A=B ...`) sets variables for what follows.
        std::size_t k = cur.words[0] == "export" ? 1 : 0;
        if (std::all_of(cur.words.begin() + static_cast<std::ptrdiff_t>(k), cur.words.end(), is_assignment) &&
            (k == 1 || !cur.words.empty())) {
          for (std::size_t j = k; j < cur.words.size(); ++j) {
            const auto eq = cur.words[j].find('=');
            vars_[cur.words[j].substr(0, eq)] = cur.words[j].substr(eq + 1);
          }
        }
        out.push_back(std::move(cur));
      }
      cur = {};
      unset_ = &cur.unset_variables;
      cur.line = line_;
    };
    for (i_ = 0; i_ < s_.size(); ++i_) {
      const char c = s_[i_];
      if (c == '\\') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == '\n') { ++i_; ++line_; continue; }
        if (i_ + 2 < s_.size() && s_[i_ + 1] == '\r' && s_[i_ + 2] == '\n') { i_ += 2; ++line_; continue; }
        start_word();
        if (i_ + 1 < s_.size()) word_ += s_[++i_];
      } else if (c == '\'') {
        start_word();
        const std::size_t end = s_.find('\'', i_ + 1);
        if (end == std::string_view::npos)
          throw InputError::value("launch command", std::string(s_.substr(i_, 40)), "a closing ' quote");
        for (std::size_t k = i_ + 1; k < end; ++k) line_ += s_[k] == '\n';
        word_ += s_.substr(i_ + 1, end - i_ - 1);
        i_ = end;
      } else if (c == '"') {
        start_word();
        const std::size_t open = i_;
        bool closed = false;
        for (++i_; i_ < s_.size(); ++i_) {
          const char d = s_[i_];
          if (d == '"') { closed = true; break; }
          if (d == '\\' && i_ + 1 < s_.size() &&
              (s_[i_ + 1] == '"' || s_[i_ + 1] == '\\' || s_[i_ + 1] == '$' || s_[i_ + 1] == '`' || s_[i_ + 1] == '\n')) {
            if (s_[i_ + 1] == '\n') ++line_;
            else word_ += s_[i_ + 1];
            ++i_;
          } else if (d == '$') {
            expand();
          } else {
            if (d == '\n') ++line_;
            word_ += d;
          }
        }
        if (!closed) throw InputError::value("launch command", std::string(s_.substr(open, 40)), "a closing \" quote");
      } else if (c == '$') {
        start_word();
        expand();
      } else if (c == '\n') {
        if (script) end_command(nullptr);
        else end_word();
        ++line_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        end_word();
      } else if (c == '#' && !have_) {
        while (i_ + 1 < s_.size() && s_[i_ + 1] != '\n') ++i_;
      } else if (c == ';' || c == '|' || c == '&') {
        if (c == '&' && i_ > 0 && s_[i_ - 1] == '>') { word_ += c; continue; }  // unreachable guard
        if (i_ + 1 < s_.size() && (s_[i_ + 1] == c)) ++i_;  // && || ;;
        end_command(c == ';' ? ";" : c == '|' ? "|" : "&");
      } else if (c == '>' || c == '<') {
        // A redirection: a leading fd number is part of it, the next word is its target.
        if (have_ && std::all_of(word_.begin(), word_.end(), [](char x) { return std::isdigit(static_cast<unsigned char>(x)); })) {
          word_.clear();
          have_ = false;
        } else {
          end_word();
        }
        while (i_ + 1 < s_.size() && (s_[i_ + 1] == '>' || s_[i_ + 1] == '&' || s_[i_ + 1] == '<')) ++i_;
        skip_next_word = true;
      } else {
        start_word();
        word_ += c;
      }
    }
    end_command(nullptr);
    return out;
  }

 private:
  void start_word() {
    if (!have_) word_line_ = line_;
    have_ = true;
  }
  // $NAME, ${NAME}, ${NAME:-default}: the value when the script set it, else the text as written.
  void expand() {
    const std::size_t start = i_;
    std::string name, fallback;
    bool braced = false, has_fallback = false;
    if (i_ + 1 < s_.size() && s_[i_ + 1] == '{') {
      const std::size_t end = s_.find('}', i_ + 2);
      if (end == std::string_view::npos) { word_ += '$'; return; }
      std::string inner(s_.substr(i_ + 2, end - i_ - 2));
      const auto dash = inner.find(":-");
      if (dash != std::string::npos) fallback = inner.substr(dash + 2), inner = inner.substr(0, dash), has_fallback = true;
      name = inner;
      braced = true;
      i_ = end;
    } else {
      std::size_t k = i_ + 1;
      while (k < s_.size() && is_name_char(s_[k], k == i_ + 1)) ++k;
      if (k == i_ + 1) { word_ += '$'; return; }
      name = std::string(s_.substr(i_ + 1, k - i_ - 1));
      i_ = k - 1;
    }
    (void)braced;
    if (auto it = vars_.find(name); it != vars_.end()) word_ += it->second;
    else if (has_fallback) word_ += fallback;
    else {
      word_ += std::string(s_.substr(start, i_ - start + 1));
      if (unset_ && std::find(unset_->begin(), unset_->end(), name) == unset_->end()) unset_->push_back(name);
    }
  }

  std::string_view s_;
  std::map<std::string, std::string> vars_;
  std::size_t i_ = 0;
  std::uint64_t line_ = 1, word_line_ = 1;
  std::string word_;
  bool have_ = false;
  std::vector<std::string>* unset_ = nullptr;
};

std::string base_name(const std::string& s) {
  const auto p = s.find_last_of('/');
  return p == std::string::npos ? s : s.substr(p + 1);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The image's repository without registry port / tag / digest, e.g. "vllm/vllm-openai".
std::string image_repository(const std::string& image) {
  std::string r = image.substr(0, image.find('@'));
  const auto slash = r.find_last_of('/');
  const auto colon = r.find_last_of(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) r = r.substr(0, colon);
  return r;
}
std::string image_tag(const std::string& image) {
  const std::string r = image.substr(0, image.find('@'));
  const auto slash = r.find_last_of('/');
  const auto colon = r.find_last_of(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) return r.substr(colon + 1);
  return "latest";
}

// docker run / podman run options that take no value (everything else takes one unless given
// as --opt=value). From `docker run --help` (Docker 27) and `podman run --help` (Podman 5).
bool docker_flag_is_boolean(std::string_view f) {
  static const char* const booleans[] = {"-d", "--detach", "-i", "--interactive", "-t", "--tty", "--rm", "--privileged",
                                         "--init", "-P", "--publish-all", "--read-only", "--no-healthcheck", "--oom-kill-disable",
                                         "--sig-proxy", "-q", "--quiet", "--replace", "--tls-verify", "--http-proxy", "--help"};
  for (const char* b : booleans)
    if (f == b) return true;
  // Bundled short booleans: -it, -itd, -dit, ...
  if (f.size() > 2 && f[0] == '-' && f[1] != '-')
    return std::all_of(f.begin() + 1, f.end(), [](char c) { return c == 'i' || c == 't' || c == 'd' || c == 'P' || c == 'q'; });
  return false;
}

std::uint64_t count_devices(const std::string& list) {
  if (list.empty() || list == "all" || list == "none" || list == "void" || list == "NoDevFiles") return 0;
  std::uint64_t n = 1;
  for (char c : list) n += c == ',';
  return n;
}

const char* const kEngineHint =
    "an engine command (vllm serve MODEL, python -m vllm.entrypoints.openai.api_server, python -m sglang.launch_server, "
    "sglang serve, llama-server, trtllm-serve MODEL, ollama serve, ollama run MODEL), optionally after NAME=value, env, uv run, "
    "uvx, pipx run, torchrun -m, ray job submit --, docker run IMAGE or sh -c";

}  // namespace

// The engines' server images and their ENTRYPOINT:
// - vllm/vllm-openai: ["vllm", "serve"] (vllm-project/vllm@dead20baf70df70580ecb093f82b0b7b8676e4f5
//   docker/Dockerfile, stage vllm-openai; older tags, e.g. @0000977eaf873be6a295cf73017976d49ca2fb9d:
//   ["python3", "-m", "vllm.entrypoints.openai.api_server"] -- the server either way);
// - ghcr.io/ggml-org/llama.cpp:server* : [ "/app/llama-server" ] (ggml-org/llama.cpp@
//   bb0e507a4dd9f444c3b8bdb6f888634a6da712f7 .devops/cuda.Dockerfile, stage server).
namespace detail {
std::optional<std::string> server_image_entrypoint(const std::string& image) {
  const std::string repo = image_repository(image), tag = image_tag(image);
  if (repo == "vllm/vllm-openai" || (repo.size() >= 17 && repo.substr(repo.size() - 17) == "/vllm/vllm-openai"))
    return "vllm serve";
  if ((repo.find("ggml-org/llama.cpp") != std::string::npos || repo.find("ggerganov/llama.cpp") != std::string::npos) &&
      starts_with(tag, "server"))
    return "/app/llama-server";
  return std::nullopt;
}
}  // namespace detail

namespace {

std::optional<Deployment> recognise(const std::vector<std::string>& argv_in, std::string_view source, int depth);

// `docker run [opts] IMAGE [args]`: the engine the image (or the command after it) runs.
std::optional<Deployment> recognise_container_run(const std::vector<std::string>& a, std::size_t i, std::string_view source,
                                                  int depth, const std::string& tool) {
  std::vector<std::pair<std::string, std::string>> env;
  std::uint64_t gpus = 0;
  std::vector<std::string> entrypoint;
  for (; i < a.size(); ++i) {
    const std::string& t = a[i];
    if (t.empty() || t[0] != '-') break;
    if (t == "--") { ++i; break; }
    std::string name = t, value;
    bool has_value = false;
    if (const auto eq = t.find('='); starts_with(t, "--") && eq != std::string::npos)
      name = t.substr(0, eq), value = t.substr(eq + 1), has_value = true;
    if (!has_value && docker_flag_is_boolean(name)) continue;
    if (!has_value) {
      if (i + 1 >= a.size()) throw InputError::value(tool + " run " + name, "", "a value after " + name);
      value = a[++i];
    }
    if (name == "-e" || name == "--env") {
      const auto eq = value.find('=');
      if (eq != std::string::npos) env.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (name == "--gpus") {
      // --gpus all | N | "device=0,1"
      std::string v = value;
      v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
      if (starts_with(v, "device=")) gpus = count_devices(v.substr(7));
      else if (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        gpus = std::stoull(v.substr(0, 18));
    } else if (name == "--device" && starts_with(value, "nvidia.com/gpu=")) {
      gpus += value.substr(15) == "all" ? 0 : count_devices(value.substr(15));
    } else if (name == "--entrypoint") {
      entrypoint = split_command_line(value);
    }
  }
  if (i >= a.size()) throw InputError::value(tool + " run", "", "an image after the options");
  const std::string image = a[i++];
  std::vector<std::string> rest(a.begin() + static_cast<std::ptrdiff_t>(i), a.end());
  const std::string repo = image_repository(image), tag = image_tag(image);
  std::optional<Deployment> d;
  std::vector<std::string> cmd = entrypoint;
  cmd.insert(cmd.end(), rest.begin(), rest.end());
  const bool vllm_image = repo == "vllm/vllm-openai" || (repo.size() >= 17 && repo.substr(repo.size() - 17) == "/vllm/vllm-openai");
  const bool llamacpp_image = repo.find("ggml-org/llama.cpp") != std::string::npos || repo.find("ggerganov/llama.cpp") != std::string::npos;
  const bool starts_engine = !rest.empty() && rest[0].size() && rest[0][0] != '-' && recognise(rest, source, depth + 1);
  if (entrypoint.empty() && starts_engine && detail::server_image_entrypoint(image)) {
    // The image's ENTRYPOINT already is the server, and arguments after the image (Kubernetes:
    // args without command; compose: command without entrypoint) are appended to it: the
    // container runs `vllm serve vllm serve ...`, which argparse refuses, and exits.
    throw InputError::value(tool + " run " + image, rest[0] + (rest.size() > 1 ? " " + rest[1] : ""),
                            "arguments for the image's entrypoint (" + *detail::server_image_entrypoint(image) +
                                "): the engine command repeated after the image runs it twice and the container exits at "
                                "start; drop it from the arguments, or set the command (Kubernetes: command:)");
  }
  if (!entrypoint.empty() || starts_engine) {
    d = recognise(cmd, source, depth + 1);
    if (!d) throw InputError::value(tool + " run " + image, cmd.empty() ? "" : cmd[0], kEngineHint);
  } else if (vllm_image) {
    // The image's ENTRYPOINT is `vllm serve` (older tags: python3 -m vllm.entrypoints.openai.api_server).
    cmd = {"vllm", "serve"};
    cmd.insert(cmd.end(), rest.begin(), rest.end());
    d = recognise(cmd, source, depth + 1);
  } else if (llamacpp_image) {
    if (!starts_with(tag, "server"))
      throw InputError::value(tool + " run " + image, tag, "a llama.cpp server image (ghcr.io/ggml-org/llama.cpp:server, :server-cuda, ...)");
    cmd = {"llama-server"};  // ENTRYPOINT of the :server* images
    cmd.insert(cmd.end(), rest.begin(), rest.end());
    d = recognise(cmd, source, depth + 1);
  } else if (repo == "ollama/ollama" || (repo.size() >= 14 && repo.substr(repo.size() - 14) == "/ollama/ollama")) {
    cmd = {"ollama"};  // ENTRYPOINT /bin/ollama, CMD serve
    if (rest.empty()) cmd.push_back("serve");
    cmd.insert(cmd.end(), rest.begin(), rest.end());
    d = recognise(cmd, source, depth + 1);
  } else {
    throw InputError::value(tool + " run " + image, rest.empty() ? "" : rest[0],
                            "an engine command after the image (this image has no engine entrypoint kvplan knows)");
  }
  d->env.insert(d->env.begin(), env.begin(), env.end());
  if (gpus && !d->gpus) d->gpus = gpus;
  return d;
}

// --------------------------------------------------------------------------------------------
// Python launchers and job runners in front of the engine: each skips its own options and hands
// the command it runs back to recognise(). Options that take a value are listed from each tool's
// own reference (pinned below); any other option is read as taking none, so an unlisted one can
// only make the command unrecognised (then refused), never change what the engine is given.
// --------------------------------------------------------------------------------------------
bool in_list(std::string_view f, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), f) != names.end();
}

// Index of the first word after the tool's options at `i` (past one `--`); `takes_value` says
// which options consume the next word (`--opt=value` never does).
template <class TakesValue>
std::size_t skip_options(const std::vector<std::string>& a, std::size_t i, TakesValue takes_value) {
  while (i < a.size() && a[i].size() > 1 && a[i][0] == '-') {
    if (a[i] == "--") return i + 1;
    const bool inline_value = a[i].find('=') != std::string::npos;
    i += (!inline_value && takes_value(a[i])) ? 2 : 1;
  }
  return i;
}

// The executable a package spec names: `vllm@v0.9.1`, `vllm==0.9.1`, `vllm>=0.6.0`,
// `sglang[all]` -> the package name (uvx / pipx run the console script of that name).
std::string package_command(const std::string& spec) {
  const auto end = spec.find_first_of("@=<>!~[; ");
  return spec.substr(0, end);
}

// uv 0.8 `uv run` options with a value (docs.astral.sh/uv/reference/cli/#uv-run).
bool uv_run_takes_value(std::string_view f) {
  return in_list(f, {"--extra", "--no-extra", "--group", "--no-group", "--only-group", "--with", "--with-editable",
                     "--with-requirements", "--package", "--python", "-p", "--env-file", "--directory", "--project", "--index",
                     "--default-index", "--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--index-strategy",
                     "--keyring-provider", "--resolution", "--prerelease", "--fork-strategy", "--config-setting", "-C",
                     "--no-build-isolation-package", "--exclude-newer", "--link-mode", "--no-build-package",
                     "--no-binary-package", "--refresh-package", "--reinstall-package", "--upgrade-package", "-P",
                     "--cache-dir", "--config-file", "--color", "--allow-insecure-host", "--python-preference"});
}
// uv 0.8 `uv tool run` / `uvx` options with a value (docs.astral.sh/uv/reference/cli/#uv-tool-run).
bool uvx_takes_value(std::string_view f) {
  return f == "--from" || uv_run_takes_value(f);
}
// pipx 1.7 `pipx run` options with a value (pipx.pypa.io/stable/docs/#pipx-run).
bool pipx_takes_value(std::string_view f) {
  return in_list(f, {"--spec", "--python", "--pip-args", "--index-url", "-i", "--backend", "--fetch-python"});
}
// torchrun (PyTorch 2.7 torch/distributed/run.py get_args_parser): every option but these
// booleans takes a value.
bool torchrun_takes_value(std::string_view f) {
  return !in_list(f, {"--standalone", "--no-python", "--no_python", "--run-path", "--run_path", "-m", "--module",
                      "--virtual-local-rank", "--virtual_local_rank", "-h", "--help"});
}

std::optional<Deployment> recognise(const std::vector<std::string>& argv_in, std::string_view source, int depth);

// The command a launcher runs, as its own argv, recognised with the launcher's env kept.
std::optional<Deployment> recognise_inner(std::vector<std::string> cmd, const Deployment& outer, std::string_view source,
                                          int depth, const std::string& launcher) {
  if (cmd.empty()) throw InputError::value(launcher, "", "a command after the launcher's options");
  auto d = recognise(cmd, source, depth + 1);
  if (!d) return d;
  for (auto it = outer.env.rbegin(); it != outer.env.rend(); ++it) d->env.insert(d->env.begin(), *it);
  if (!d->gpus)
    for (const auto& [k, v] : outer.env)
      if (k == "CUDA_VISIBLE_DEVICES" || k == "HIP_VISIBLE_DEVICES" || k == "ROCR_VISIBLE_DEVICES")
        if (const std::uint64_t n = count_devices(v)) d->gpus = n;
  return d;
}

std::optional<Deployment> recognise_launcher(const std::vector<std::string>& a, std::size_t i, const Deployment& outer,
                                             std::string_view source, int depth) {
  const std::string exe = base_name(a[i]);
  auto tail = [&](std::size_t k) { return std::vector<std::string>(a.begin() + static_cast<std::ptrdiff_t>(std::min(k, a.size())), a.end()); };
  // `uv run [opts] CMD ...`, `uv run -m MODULE ...` (= python -m MODULE).
  if (exe == "uv" && i + 1 < a.size() && a[i + 1] == "run") {
    std::size_t k = i + 2;
    while (k < a.size() && a[k].size() > 1 && a[k][0] == '-' && a[k] != "--") {
      if (a[k] == "-m" || a[k] == "--module") {
        std::vector<std::string> cmd = {"python", "-m"};
        const auto rest = tail(k + 1);
        cmd.insert(cmd.end(), rest.begin(), rest.end());
        return recognise_inner(cmd, outer, source, depth, "uv run -m");
      }
      k += (a[k].find('=') == std::string::npos && uv_run_takes_value(a[k])) ? 2 : 1;
    }
    if (k < a.size() && a[k] == "--") ++k;
    return recognise_inner(tail(k), outer, source, depth, "uv run");
  }
  // `uvx [opts] PACKAGE[@version] ARGS`, `uv tool run ...`, `pipx run [opts] APP[==version] ARGS`:
  // the package's console script of the same name, or with --from / --spec the first word as
  // the command itself.
  const bool uvx = exe == "uvx" || (exe == "uv" && i + 2 < a.size() && a[i + 1] == "tool" && a[i + 2] == "run");
  const bool pipx = exe == "pipx" && i + 1 < a.size() && a[i + 1] == "run";
  if (uvx || pipx) {
    std::size_t k = exe == "uvx" ? i + 1 : pipx ? i + 2 : i + 3;
    bool from = false;
    for (std::size_t j = k; j < a.size() && a[j].size() > 1 && a[j][0] == '-' && a[j] != "--"; ++j)
      if (a[j] == "--from" || a[j] == "--spec" || starts_with(a[j], "--from=") || starts_with(a[j], "--spec=")) from = true;
    k = uvx ? skip_options(a, k, uvx_takes_value) : skip_options(a, k, pipx_takes_value);
    const std::string launcher = uvx ? "uvx" : "pipx run";
    if (k >= a.size()) throw InputError::value(launcher, "", "a package or command after the options");
    std::vector<std::string> cmd = {from ? a[k] : package_command(a[k])};
    std::size_t r = k + 1;
    if (r < a.size() && a[r] == "--") ++r;  // `uv tool run 'vllm>=0.6.0' -- serve ...`
    const auto rest = tail(r);
    cmd.insert(cmd.end(), rest.begin(), rest.end());
    return recognise_inner(cmd, outer, source, depth, launcher);
  }
  // `torchrun [opts] -m MODULE ...` / `torchrun --no-python CMD ...`; a script is not an engine.
  if (exe == "torchrun" || (starts_with(exe, "python") && i + 2 < a.size() && a[i + 1] == "-m" && a[i + 2] == "torch.distributed.run")) {
    std::size_t k = exe == "torchrun" ? i + 1 : i + 3;
    bool module = false, no_python = false;
    while (k < a.size() && a[k].size() > 1 && a[k][0] == '-') {
      if (a[k] == "--") { ++k; break; }
      if (a[k] == "-m" || a[k] == "--module") module = true;
      if (a[k] == "--no-python" || a[k] == "--no_python") no_python = true;
      k += (a[k].find('=') == std::string::npos && torchrun_takes_value(a[k])) ? 2 : 1;
    }
    if (k >= a.size()) throw InputError::value("torchrun", "", "a training script, -m MODULE or --no-python COMMAND");
    std::vector<std::string> cmd;
    if (module) cmd = {"python", "-m"};
    else if (!no_python) return std::nullopt;  // torchrun script.py: not an engine server
    const auto rest = tail(k);
    cmd.insert(cmd.end(), rest.begin(), rest.end());
    return recognise_inner(cmd, outer, source, depth, "torchrun");
  }
  // `ray job submit [opts] -- ENTRYPOINT ...` (Ray 2.x `ray job submit --help`: the entrypoint
  // follows `--`).
  if (exe == "ray" && i + 2 < a.size() && a[i + 1] == "job" && a[i + 2] == "submit") {
    const auto dash = std::find(a.begin() + static_cast<std::ptrdiff_t>(i + 3), a.end(), "--");
    if (dash == a.end())
      throw InputError::value("ray job submit", "", "the job's entrypoint after -- (ray job submit [options] -- vllm serve ...)");
    return recognise_inner(std::vector<std::string>(dash + 1, a.end()), outer, source, depth, "ray job submit");
  }
  return std::nullopt;
}

std::optional<Deployment> recognise(const std::vector<std::string>& argv_in, std::string_view source, int depth) {
  if (depth > 8) throw InputError::value("launch command", "", "at most 8 nested wrappers (sh -c, docker run)");
  Deployment d;
  d.source = std::string(source);
  std::size_t i = 0;
  const auto& a = argv_in;
  // Leading assignments and transparent wrappers.
  for (;;) {
    if (i >= a.size()) return std::nullopt;
    const std::string& t = a[i];
    const std::string b = base_name(t);
    if (is_assignment(t)) {
      const auto eq = t.find('=');
      d.env.emplace_back(t.substr(0, eq), t.substr(eq + 1));
      ++i;
    } else if (b == "env") {
      ++i;
      while (i < a.size() && !a[i].empty() && a[i][0] == '-') i += (a[i] == "-u" || a[i] == "--unset") ? 2 : 1;
    } else if (b == "exec" || b == "nohup" || b == "time") {
      ++i;
    } else if (b == "sudo") {
      ++i;
      while (i < a.size() && !a[i].empty() && a[i][0] == '-') i += (a[i] == "-u" || a[i] == "-g") ? 2 : 1;
    } else {
      break;
    }
  }
  const std::string exe = base_name(a[i]);
  auto finish = [&](EngineKind e, std::size_t rest) {
    d.engine = e;
    d.args.assign(a.begin() + static_cast<std::ptrdiff_t>(std::min(rest, a.size())), a.end());
    for (const auto& [k, v] : d.env)
      if (k == "CUDA_VISIBLE_DEVICES" || k == "HIP_VISIBLE_DEVICES" || k == "ROCR_VISIBLE_DEVICES")
        if (const std::uint64_t n = count_devices(v)) d.gpus = n;
    return std::optional<Deployment>(std::move(d));
  };
  if (exe == "uv" || exe == "uvx" || exe == "pipx" || exe == "torchrun" || exe == "ray" ||
      ((exe == "python" || exe == "python3") && i + 2 < a.size() && a[i + 2] == "torch.distributed.run"))
    return recognise_launcher(a, i, d, source, depth);
  if (exe == "docker" || exe == "podman" || exe == "nerdctl") {
    std::size_t k = i + 1;
    if (k < a.size() && a[k] == "container") ++k;
    if (k >= a.size() || a[k] != "run") return std::nullopt;
    auto r = recognise_container_run(a, k + 1, source, depth, exe);
    for (auto it = d.env.rbegin(); it != d.env.rend(); ++it) r->env.insert(r->env.begin(), *it);
    return r;
  }
  if (exe == "sh" || exe == "bash" || exe == "dash" || exe == "zsh") {
    std::size_t k = i + 1;
    while (k < a.size() && !a[k].empty() && a[k][0] == '-' && a[k].find('c') == std::string::npos) ++k;
    if (k >= a.size() || a[k].empty() || a[k][0] != '-') return std::nullopt;  // `sh script.sh`: not read
    if (k + 1 >= a.size()) throw InputError::value(exe + " -c", "", "a command string");
    std::map<std::string, std::string> vars(d.env.begin(), d.env.end());
    auto found = detail::launch_script_deployments(a[k + 1], source, 1, vars);
    if (found.empty()) return std::nullopt;
    if (found.size() > 1)
      throw InputError::value(exe + " -c", a[k + 1].substr(0, 60), "one engine command (found " + std::to_string(found.size()) + ")");
    for (auto it = d.env.rbegin(); it != d.env.rend(); ++it) found[0].env.insert(found[0].env.begin(), *it);
    found[0].line = 0;
    return found[0];
  }
  if (exe == "vllm") {
    if (i + 1 >= a.size() || a[i + 1] != "serve")
      throw InputError::value("launch command", a[i] + (i + 1 < a.size() ? " " + a[i + 1] : ""), "vllm serve MODEL ...");
    return finish(EngineKind::vllm, i + 2);
  }
  if (exe == "python" || exe == "python3" || starts_with(exe, "python3.")) {
    std::size_t k = i + 1;
    // Interpreter options before -m: -u -B -O -OO -s -E -I, -X opt, -W arg.
    while (k < a.size() && a[k] != "-m" && !a[k].empty() && a[k][0] == '-') k += (a[k] == "-X" || a[k] == "-W") ? 2 : 1;
    if (k + 1 >= a.size() || a[k] != "-m") return std::nullopt;
    const std::string& mod = a[k + 1];
    if (mod == "vllm.entrypoints.openai.api_server" || mod == "vllm.entrypoints.api_server") return finish(EngineKind::vllm, k + 2);
    if (mod == "sglang.launch_server") return finish(EngineKind::sglang, k + 2);
    if (starts_with(mod, "vllm.") || starts_with(mod, "sglang.") || starts_with(mod, "tensorrt_llm."))
      throw InputError::value("launch command", "python -m " + mod,
                              "an engine server module: vllm.entrypoints.openai.api_server, vllm.entrypoints.api_server or "
                              "sglang.launch_server");
    return std::nullopt;
  }
  if (exe == "sglang") {
    if (i + 1 >= a.size() || a[i + 1] != "serve") throw InputError::value("launch command", a[i], "sglang serve ...");
    return finish(EngineKind::sglang, i + 2);
  }
  if (exe == "llama-server") return finish(EngineKind::llamacpp, i + 1);
  if (exe == "ollama") return detail::recognise_ollama(a, i, std::move(d));
  if (exe == "trtllm-serve") return finish(EngineKind::trtllm, i + 1 < a.size() && a[i + 1] == "serve" ? i + 2 : i + 1);
  return std::nullopt;
}

}  // namespace

std::string Deployment::where() const {
  if (source == "command line" || source.empty()) return source.empty() ? "command line" : source;
  std::string w = source;
  std::string in;
  auto add = [&](const std::string& s) { if (!s.empty()) in += (in.empty() ? "" : ", ") + s; };
  if (line) add("line " + std::to_string(line));
  add(document);
  add(resource);
  if (!container.empty()) add("container " + container);
  return in.empty() ? w : w + " (" + in + ")";
}

DeploymentError DeploymentError::at(std::string_view file, std::uint64_t line, std::string_view detail) {
  std::string m(file);
  if (line) m += " (line " + std::to_string(line) + ")";
  m += ": ";
  m += detail;
  return DeploymentError(std::move(m), std::string(file), line);
}

DeploymentError DeploymentError::in(const Deployment& d, std::string_view detail) {
  const bool cli = d.source == "command line" || d.source.empty();
  return DeploymentError(cli ? std::string(detail) : d.where() + ": " + std::string(detail), cli ? "" : d.source, d.line);
}

std::vector<std::string> split_command_line(std::string_view s) {
  auto cmds = Tokenizer(s, {}).run(false);
  return cmds.empty() ? std::vector<std::string>{} : cmds.front().words;
}

namespace detail {

std::vector<ShellCommand> split_script(std::string_view text, std::map<std::string, std::string> vars) {
  return Tokenizer(text, std::move(vars)).run(true);
}

std::optional<Deployment> recognise_engine_command(const std::vector<std::string>& argv, std::string_view source) {
  return recognise(argv, source, 0);
}

std::vector<Deployment> launch_script_deployments(std::string_view text, std::string_view source, std::uint64_t first_line,
                                                  const std::map<std::string, std::string>& vars) {
  std::vector<Deployment> out;
  for (const auto& c : split_script(text, vars)) {
    auto d = recognise(c.words, source, 0);
    if (!d) continue;
    d->line = first_line + c.line - 1;
    // A variable the script never set, used by the engine's own arguments: its value is what
    // kvplan would judge, so it is named rather than read as the literal "$NAME".
    for (const auto& name : c.unset_variables)
      for (const auto& w : d->args)
        if (w.find("$" + name) != std::string::npos || w.find("${" + name) != std::string::npos)
          throw DeploymentError::at(source, d->line, "the engine command uses $" + name + ", which the script does not set (" +
                                                         name + "=... before it, or pass the command with the value written out)");
    out.push_back(std::move(*d));
  }
  return out;
}

}  // namespace detail

Deployment parse_launch_command(const std::vector<std::string>& argv, std::string_view source) {
  if (argv.empty()) throw InputError::value("launch command", "", kEngineHint);
  auto d = recognise(argv, source, 0);
  if (!d) {
    std::string got;
    for (std::size_t i = 0; i < argv.size() && i < 3; ++i) got += (i ? " " : "") + argv[i];
    throw InputError::value("launch command", got, kEngineHint);
  }
  return std::move(*d);
}

Deployment parse_launch_script(std::string_view text, std::string_view source) {
  auto all = detail::launch_script_deployments(text, source);
  if (all.empty()) throw DeploymentError::at(source, 0, std::string("no engine command found; expected ") + kEngineHint);
  if (all.size() > 1)
    throw DeploymentError::at(source, all[1].line, "several engine commands; kvplan check reads each with parse_deployments");
  return all[0];
}

}  // namespace kvplan
