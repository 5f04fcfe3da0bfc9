#pragma once
// What every engine's evaluation starts from (check.cpp): the deployment's identity, the
// engine's name and the GPU it is judged on, which must be named somehow.
#include "kvplan/check.h"

namespace kvplan::detail {

CheckResult begin_check_result(const Deployment& d, const CheckOptions& o);

// What other processes hold on each GPU: --gpu-used exactly (checked against the GPU when it came
// from nvidia-smi, noted in r), else the catalog's band for the kind of card (hardware.h).
MemoryBand others_on_device(const Accelerator& acc, const CheckOptions& o, CheckResult& r);

}  // namespace kvplan::detail
