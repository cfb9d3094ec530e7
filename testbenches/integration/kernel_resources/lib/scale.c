#include "scale.h"

/* A device function in a static library: noinline so that it stays a call. */
__attribute__((noinline)) float scale_plus_one(float x) { return 3.0f * x + 1.0f; }
