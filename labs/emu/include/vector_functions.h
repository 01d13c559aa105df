// The make_* constructors of CUDA's vector types: vector_types.h defines them here.
#pragma once

#include "vector_types.h"
