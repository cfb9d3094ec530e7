#include "sim/source_tree.h"

namespace tessera::sim {

const char* source_tree() { return TESSERA_SOURCE_TREE; }

}  // namespace tessera::sim
