// cg::reduce and its operators live in <cooperative_groups.h> under emulation.
#pragma once
#include "../cooperative_groups.h"
