// cg::inclusive_scan and cg::exclusive_scan live in <cooperative_groups.h> under emulation.
#pragma once
#include "../cooperative_groups.h"
