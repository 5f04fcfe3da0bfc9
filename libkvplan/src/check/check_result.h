#pragma once
// What every engine's evaluation starts from (check.cpp): the deployment's identity, the
// engine's name and the GPU it is judged on, which must be named somehow.
#include <string>

#include "kvplan/check.h"

namespace kvplan::detail {

CheckResult begin_check_result(const Deployment& d, const CheckOptions& o);

// One check of r: it holds at both ends of the memory band (PASS), at neither (FAIL), or only at
// the favourable end (UNCERTAIN); r's verdict is the worst of its checks, and each check that
// does not pass adds its message to r's reasons.
void add_check(CheckResult& r, std::string name, bool ok_worst, bool ok_best, std::string required, std::string actual,
               std::string message);

// What other processes hold on each GPU: --gpu-used exactly (checked against the GPU when it came
// from nvidia-smi, noted in r), else the catalog's band for the kind of card (hardware.h).
MemoryBand others_on_device(const Accelerator& acc, const CheckOptions& o, CheckResult& r);

}  // namespace kvplan::detail
