#pragma once
// The single place the version is defined; CMake's project() version must match.
#define KVPLAN_VERSION_MAJOR 0
#define KVPLAN_VERSION_MINOR 1
#define KVPLAN_VERSION_PATCH 0
#define KVPLAN_VERSION_STRING "0.1.0"
