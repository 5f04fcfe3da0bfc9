#pragma once
// What every engine's evaluation starts from (check.cpp): the deployment's identity, the
// engine's name and the GPU it is judged on, which must be named somehow.
#include "kvplan/check.h"

namespace kvplan::detail {

CheckResult begin_check_result(const Deployment& d, const CheckOptions& o);

}  // namespace kvplan::detail
