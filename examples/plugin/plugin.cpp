// The plugin's ABI tag, which Tessera checks when it loads the library.
#include "platforms/plugin_api.h"

TESSERA_PLUGIN()
