// Force-included (-include) into kvplan's own sources when the compiler is GCC 12 or older: GCC
// 12 reports false positives *inside* its own system headers once their inline code is inlined
// into ours, and -isystem does not silence them there:
//   -Wrestrict in libstdc++'s std::string operator+ (GCC PR 105329, PR 105651),
//   -Wmaybe-uninitialized / -Wuninitialized in avx512fintrin.h's _mm512_undefined_* (GCC PR
//   105593; reached through Eigen with -march=native), ~400 lines per build.
// The headers are included once here with those warnings off (diagnostic pragmas apply to the
// header's own lines), so the same warnings still fire in kvplan's code. Fixed in GCC 13.
#pragma once
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <string>
#if defined(KVPLAN_PRELUDE_INTRINSICS) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif
#pragma GCC diagnostic pop
