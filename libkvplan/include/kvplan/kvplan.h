#pragma once
// Everything public in one include.
#include "kvplan/checked.h"
#include "kvplan/dtype.h"
#include "kvplan/error.h"
#include "kvplan/layer.h"
#include "kvplan/model.h"
#include "kvplan/parameters.h"
#include "kvplan/registry.h"
#include "kvplan/report.h"
#include "kvplan/sizes.h"
#include "kvplan/units.h"
#include "kvplan/version.h"
