// The source tree this binary was built from, where the command line finds
// its platform files (platforms/) and helper scripts (tools/).
#pragma once

namespace tessera::sim {

// An absolute path, fixed when the binary is built. It lives in a TU of its
// own (source_tree.cpp) so that no other file's compile command holds a
// path that differs in every clone (the compiler cache would miss them).
const char* source_tree();

}  // namespace tessera::sim
