// libtessera_rtl_mutants.so (models/rtl/verilated/CMakeLists.txt): the RTL
// blocks built with a known bug, registered as implementations for the
// tests that prove lockstep catches them. Its ABI tag:
#include "platforms/plugin_api.h"

TESSERA_PLUGIN()
