// Where a MODEL argument points, in the documented order (docs/cli.md "Which model"):
// a path, a Hugging Face cache entry, an Ollama store entry, the bundled catalog.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kvplan/checkpoint.h"
#include "kvplan/error.h"
#include "kvplan/files.h"
#include "kvplan/registry.h"
#include "kvplan/text.h"
#include "util/config_view.h"

namespace kvplan {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : std::string();
}

fs::path home_dir() {
  std::string h = env("HOME");
  return h.empty() ? fs::path(".") : fs::path(h);
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The first line of a small text file (a refs/ pointer), trimmed; empty when unreadable.
std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  if (!in || !std::getline(in, s)) return {};
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

bool starts_with_gguf_magic(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::string_view(magic, 4) == "GGUF";
}

bool has_suffix_ci(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && ascii_lower(s.substr(s.size() - suf.size())) == suf;
}

// The model GGUF files of a folder: projector files (mmproj) are skipped; of a split model
// (`-00001-of-00003.gguf`) only the first shard, which holds the metadata, counts.
std::vector<fs::path> gguf_files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (!has_suffix_ci(n, ".gguf") || !is_file(e.path())) continue;
    if (ascii_lower(n).find("mmproj") != std::string::npos) continue;
    const auto of = n.find("-of-");
    if (of != std::string::npos && of >= 5 && n.compare(of - 5, 5, "00001") != 0) continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A revision folder of a cache entry: `name` must be listed under snapshots/ (huggingface_hub's
// rule: a revision is a commit hash with a folder there, refs/<rev> only names one), and that
// folder, symlinks resolved, must stay inside the entry (kvplan/files.h contained_path).
std::optional<fs::path> listed_snapshot(const fs::path& entry, const std::string& name) {
  if (name.empty()) return std::nullopt;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(entry / "snapshots", ec)) {
    if (e.path().filename().string() != name || !is_dir(e.path())) continue;
    if (!contained_path(entry, fs::path("snapshots") / name)) return std::nullopt;
    return entry / "snapshots" / name;
  }
  return std::nullopt;
}

// A Hugging Face cache entry folder (models--org--name): refs/<rev> -> snapshots/<hash>/.
std::optional<fs::path> snapshot_of(const fs::path& entry, const std::string& rev) {
  const std::string r = rev.empty() ? "main" : rev;
  // refs/<rev> itself must stay inside refs/ (a branch name may hold '/': refs/pr/1).
  // A refs/<rev> whose content names no listed revision is an error, never a fallback.
  const auto ref = contained_path(entry / "refs", r);
  if (ref && is_file(*ref)) return listed_snapshot(entry, first_line(*ref));
  if (auto snap = listed_snapshot(entry, r)) return snap;  // a commit hash given directly
  if (rev.empty() && !fs::exists(entry / "refs" / "main")) {
    // No refs/main (a cache copied without refs): a single snapshot is unambiguous.
    std::vector<std::string> snaps;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(entry / "snapshots", ec))
      if (is_dir(e.path())) snaps.push_back(e.path().filename().string());
    if (snaps.size() == 1) return listed_snapshot(entry, snaps[0]);
  }
  return std::nullopt;
}

bool looks_like_hf_entry(const fs::path& dir) {
  return fs::path(dir).filename().string().starts_with("models--") && is_dir(dir / "snapshots");
}

// A folder: config.json wins (safetensors beside it give the weights); else one GGUF model file;
// else a cache entry folder.
// `root`: a cache entry the files must stay inside, symlinks resolved (the snapshot's files are
// symlinks into the entry's blobs/).
std::optional<ResolvedModel> from_dir(const fs::path& dir, const std::string& how, const std::string& rev = {},
                                      const fs::path& root = {}) {
  if (looks_like_hf_entry(dir)) {
    auto snap = snapshot_of(dir, rev);
    if (!snap)
      throw InputError::value("model", dir.string(),
                              "a Hugging Face cache entry whose refs/" + bounded_echo(rev.empty() ? std::string("main") : rev) +
                                  " names a revision listed under snapshots/");
    return from_dir(*snap, how, {}, dir);
  }
  const auto inside = [&](const fs::path& file) {
    if (root.empty() || contained_path(root, file.lexically_relative(root))) return;
    throw InputError::value("model", file.string(),
                            "a file inside the cache entry " + root.string() + " (it resolves outside it; refused)");
  };
  ResolvedModel r;
  r.how = how;
  if (is_file(dir / "config.json")) {
    inside(dir / "config.json");
    r.config = dir / "config.json";
    r.weights_dir = dir;
    return r;
  }
  auto ggufs = gguf_files_in(dir);
  if (ggufs.size() == 1) {
    inside(ggufs[0]);
    r.gguf = ggufs[0];
    return r;
  }
  if (ggufs.size() > 1) {
    std::string names;
    for (std::size_t i = 0; i < ggufs.size() && i < 6; ++i)
      names += (names.empty() ? "" : ", ") + ggufs[i].filename().string();
    throw InputError::value("model", dir.string(),
                            "a folder with one GGUF model file (it holds " + std::to_string(ggufs.size()) + ": " +
                                names + "); name the file");
  }
  return std::nullopt;
}

// org/name[@rev] -> (org/name, rev)
std::pair<std::string, std::string> split_rev(std::string_view name) {
  const auto at = name.rfind('@');
  if (at == std::string_view::npos) return {std::string(name), {}};
  return {std::string(name.substr(0, at)), std::string(name.substr(at + 1))};
}

bool looks_like_hub_id(const std::string& id) {
  const auto slash = id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == id.size()) return false;
  if (id.find('/', slash + 1) != std::string::npos) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/';
  }) && id.find("..") == std::string::npos;
}

std::string hub_folder_name(const std::string& id) {
  std::string f = "models--" + id;
  for (std::size_t p = 0; (p = f.find('/', p)) != std::string::npos;) f.replace(p, 1, "--");
  return f;
}

// ollama:NAME[:TAG] -> the GGUF blob its manifest names (application/vnd.ollama.image.model).
// Manifests live at manifests/<host>/<namespace>/<name>/<tag> (host registry.ollama.ai,
// namespace library, tag latest by default); blobs at blobs/sha256-<hex> (older stores:
// blobs/sha256:<hex>).
ResolvedModel from_ollama(std::string_view spec, std::vector<std::string>& looked) {
  std::string ref(spec.substr(7));
  if (ref.empty()) throw InputError::value("model", std::string(spec), "ollama:NAME[:TAG]");
  std::string tag = "latest";
  if (auto colon = ref.rfind(':'); colon != std::string::npos && ref.find('/', colon) == std::string::npos) {
    tag = ref.substr(colon + 1);
    ref = ref.substr(0, colon);
  }
  std::vector<std::string> parts;
  for (std::size_t b = 0;;) {
    auto e = ref.find('/', b);
    parts.push_back(ref.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  if (parts.size() == 1) parts.insert(parts.begin(), "library");
  if (parts.size() == 2) parts.insert(parts.begin(), "registry.ollama.ai");
  for (const auto& p : parts)
    if (p.empty() || p == "." || p == "..") throw InputError::value("model", std::string(spec), "ollama:NAME[:TAG]");
  if (tag.empty() || tag.find("..") != std::string::npos)
    throw InputError::value("model", std::string(spec), "ollama:NAME[:TAG]");
  const fs::path store = ollama_models_dir();
  fs::path manifest = store / "manifests";
  for (const auto& p : parts) manifest /= p;
  manifest /= tag;
  looked.push_back(bounded_echo(manifest.string(), kMaxPathEchoBytes));
  if (!is_file(manifest))
    throw InputError::value("model", std::string(spec),
                            "an Ollama manifest at " + manifest.string() + " (`ollama pull " + bounded_echo(ref) + ":" +
                                bounded_echo(tag) + "` fetches it; OLLAMA_MODELS names another store)");
  if (!contained_path(store / "manifests", manifest.lexically_relative(store / "manifests")))
    throw InputError::value("model", manifest.string(), "an Ollama manifest inside " + (store / "manifests").string() +
                                                            " (it resolves outside it; refused)");
  // The bounded readers: the size is checked before anything is read, the depth before parsing.
  const std::string what = manifest.string();
  const nlohmann::json j =
      detail::parse_config_text(read_regular_file(manifest.string(), kMaxManifestFileBytes, "Ollama manifest"), what);
  const auto layers = j.is_object() ? j.find("layers") : j.end();
  if (!j.is_object() || layers == j.end() || !layers->is_array())
    throw ConfigError::field(what, "/layers", "an Ollama manifest with a layers array",
                             j.is_object() && layers != j.end() ? detail::describe_json(*layers) : "nothing", "");
  for (std::size_t i = 0; i < layers->size(); ++i) {
    const auto& layer = (*layers)[i];
    const std::string at = "/layers/" + std::to_string(i);
    if (!layer.is_object()) throw ConfigError::field(what, at, "an object", detail::describe_json(layer), "");
    const auto mt = layer.find("mediaType");
    if (mt == layer.end() || !mt->is_string())
      throw ConfigError::field(what, at + "/mediaType", "a string", mt == layer.end() ? "nothing" : detail::describe_json(*mt), "");
    if (mt->get_ref<const std::string&>() != "application/vnd.ollama.image.model") continue;
    // Ollama's own rule (ollama/ollama@fb307609 manifest/paths.go BlobsPath): a digest is
    // sha256: (or sha256-) and 64 hex digits; the blob is blobs/sha256-<hex>.
    const auto dg = layer.find("digest");
    const bool ok = dg != layer.end() && dg->is_string() && dg->get_ref<const std::string&>().size() == 71 &&
                    dg->get_ref<const std::string&>().starts_with("sha256") &&
                    (dg->get_ref<const std::string&>()[6] == ':' || dg->get_ref<const std::string&>()[6] == '-') &&
                    std::all_of(dg->get_ref<const std::string&>().begin() + 7, dg->get_ref<const std::string&>().end(),
                                [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
    if (!ok)
      throw ConfigError::field(what, at + "/digest", "\"sha256:\" and 64 hex digits (Ollama's digest form)",
                               dg == layer.end() ? "nothing" : detail::describe_json(*dg), "");
    const std::string hex = dg->get_ref<const std::string&>().substr(7);
    for (const std::string& name : {"sha256-" + hex, "sha256:" + hex}) {
      const fs::path blob = store / "blobs" / name;
      if (!is_file(blob)) continue;
      if (!contained_path(store / "blobs", name))
        throw InputError::value("model", blob.string(), "a blob inside " + (store / "blobs").string() +
                                                            " (it resolves outside it; refused)");
      ResolvedModel r;
      r.how = "ollama";
      r.gguf = blob;
      return r;
    }
    throw InputError::value("model", std::string(spec),
                            "the model blob " + (store / "blobs" / ("sha256-" + hex)).string() +
                                " its manifest names (the store is incomplete; `ollama pull` again)");
  }
  throw ConfigError::field(what, "/layers", "a layer of mediaType application/vnd.ollama.image.model", "none", "");
}

// "Llama-3.1-8B-Instruct" -> family "llama", size "8b". A vision-language model is its own family
// ("Qwen3-VL-8B-Instruct" -> "qwen-vl"), so a text model's id suggests text models first.
struct NameParts {
  std::string org, family, size;
};
NameParts name_parts(std::string_view id) {
  NameParts p;
  std::string s = ascii_lower(id);
  if (auto slash = s.find('/'); slash != std::string::npos) {
    p.org = s.substr(0, slash);
    s = s.substr(slash + 1);
  }
  std::size_t i = 0;
  while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) p.family += s[i++];
  for (std::size_t k = s.find("-vl"); k != std::string::npos; k = s.find("-vl", k + 1))
    if (k + 3 == s.size() || !std::isalpha(static_cast<unsigned char>(s[k + 3]))) {
      p.family += "-vl";
      break;
    }
  // The first "<digits>[.<digits>]b" that is not preceded by a letter (so "a3b" is not a size).
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(s[k])) || (k > 0 && (std::isalnum(static_cast<unsigned char>(s[k - 1])) || s[k - 1] == '.')))
      continue;
    std::size_t e = k;
    while (e < s.size() && (std::isdigit(static_cast<unsigned char>(s[e])) || s[e] == '.')) ++e;
    if (e < s.size() && (s[e] == 'b' || s[e] == 'm') && (e + 1 == s.size() || !std::isalpha(static_cast<unsigned char>(s[e + 1])))) {
      p.size = s.substr(k, e + 1 - k);
      break;
    }
  }
  return p;
}

}  // namespace

fs::path hf_hub_cache_dir() {
  if (auto v = env("HF_HUB_CACHE"); !v.empty()) return v;
  if (auto v = env("HF_HOME"); !v.empty()) return fs::path(v) / "hub";
  return home_dir() / ".cache" / "huggingface" / "hub";
}

fs::path ollama_models_dir() {
  if (auto v = env("OLLAMA_MODELS"); !v.empty()) return v;
  return home_dir() / ".ollama" / "models";
}

// Bundled ids closest to `name`: the same family and size first, then the same family, then
// by edit distance.
std::vector<std::string> suggest_models(std::string_view name, std::size_t max) {
  const NameParts want = name_parts(name);
  struct Scored {
    int family_miss, size_miss;
    std::size_t distance;
    std::string id;
    bool operator<(const Scored& o) const {
      return std::tie(family_miss, size_miss, distance, id) < std::tie(o.family_miss, o.size_miss, o.distance, o.id);
    }
  };
  std::vector<Scored> scored;
  const std::string key = ascii_lower(name);
  for (const auto& b : bundled_models()) {
    const NameParts have = name_parts(b.id);
    const bool same_family = !want.family.empty() && want.family == have.family;
    const bool same_size = !want.size.empty() && want.size == have.size;
    const std::string cid = ascii_lower(b.id);
    const std::size_t close = std::max<std::size_t>(3, key.size() / 3);
    const std::size_t d = std::min(edit_distance(key, cid, close), edit_distance(key, cid.substr(cid.find('/') + 1), close));
    if (!same_family && d > close) continue;
    scored.push_back({same_family ? 0 : 1, same_size ? 0 : 1, d, b.id});
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].id);
  return out;
}

ResolvedModel resolve_model(std::string_view name) {
  const std::string arg(name);
  std::vector<std::string> looked;
  // 1. A path.
  const fs::path p{arg};
  if (is_file(p)) {
    ResolvedModel r;
    r.how = "path";
    if (has_suffix_ci(arg, ".gguf") || starts_with_gguf_magic(p)) {
      r.gguf = p;
    } else if (has_suffix_ci(arg, ".safetensors") || has_suffix_ci(arg, ".safetensors.index.json")) {
      // A weights file: the config and the other shards are beside it.
      const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
      if (!is_file(dir / "config.json"))
        throw InputError::value("model", arg, "a safetensors file with config.json beside it (or pass the folder)");
      r.config = dir / "config.json";
      r.weights_dir = dir;
    } else {
      r.config = p;
      r.weights_dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    }
    return r;
  }
  if (is_dir(p)) {
    if (auto r = from_dir(p, "path")) return *r;
    throw InputError::value("model", arg,
                            "a folder holding config.json, a GGUF file, or a Hugging Face cache entry "
                            "(models--org--name)");
  }
  looked.push_back("path " + bounded_echo(arg));
  // 2. ollama:NAME[:TAG].
  if (arg.starts_with("ollama:")) return from_ollama(arg, looked);
  // 3. The Hugging Face cache.
  auto [id, rev] = split_rev(arg);
  const fs::path cache = hf_hub_cache_dir();
  if (looks_like_hub_id(id)) {
    const fs::path entry = cache / hub_folder_name(id);
    looked.push_back("Hugging Face cache " + bounded_echo(entry.string(), kMaxPathEchoBytes));
    if (is_dir(entry)) {
      auto snap = snapshot_of(entry, rev);
      if (!snap)
        throw InputError::value("model", arg,
                                "a cache entry whose refs/" + bounded_echo(rev.empty() ? std::string("main") : rev) +
                                    " names a revision listed in " + (entry / "snapshots").string());
      if (auto r = from_dir(*snap, "hf-cache", {}, entry)) return *r;
      throw InputError::value("model", arg,
                              "a config.json or GGUF file in " + snap->string() + " (`huggingface-cli download " + id +
                                  " config.json` fetches the config)");
    }
  }
  // 4. The bundled catalog (a revision names nothing here).
  if (rev.empty()) {
    looked.push_back("bundled catalog");
    if (auto b = find_bundled(arg)) {
      ResolvedModel r;
      r.how = "bundled";
      r.bundled_id = b->id;
      return r;
    }
  }
  std::string where;
  for (const auto& l : looked) where += (where.empty() ? "" : "; ") + l;
  std::string hint;
  for (const auto& s : suggest_models(id, 3)) hint += (hint.empty() ? "" : ", ") + s;
  throw InputError::unknown_model(arg, where,
                                  looks_like_hub_id(id) && id.size() <= 200 ? "huggingface-cli download " + id + " config.json" : "",
                                  hint);
}

}  // namespace kvplan
