// Uses the installed library through find_package(kvplan): size a bundled model's cache.
#include <iostream>

#include <kvplan/kvplan.h>

int main(int argc, char** argv) {
  const char* model = argc > 1 ? argv[1] : "Qwen/Qwen3-0.6B";
  try {
    kvplan::ModelSpec m = kvplan::load_model(model);
    kvplan::Workload w;
    w.tokens = argc > 2 ? kvplan::parse_tokens(argv[2]) : 40960;
    kvplan::CacheSize s = kvplan::cache_size(m, w);
    std::cout << m.name << " at " << w.tokens << " tokens: " << s.total_bytes << " bytes ("
              << kvplan::format_bytes(s.total_bytes) << ")\n";
  } catch (const kvplan::Error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  return 0;
}
