// For libraries that extend Tessera (docs/plugins.md): a plugin is a
// shared library built against this Tessera's headers (find_package(Tessera)
// and tessera_add_plugin() in CMake) and loaded by `tessera run --plugin
// LIB` or a netlist's `plugins:` list. Its static initialisers register
// what it brings, as Tessera's own files do:
//   - component types: a platform::ComponentRegistration at namespace
//     scope (platforms/components/common.h), as platforms/components/*.cpp;
//   - C++ reference models of RTL devices (rtl/device/device_reference.h).
// Exactly one source file of the plugin says TESSERA_PLUGIN(); Tessera
// refuses a library without it, or built for another Tessera, before any
// of the library's types is used.
#pragma once

#include <cstddef>  // defines _GLIBCXX_USE_CXX11_ABI

// What must match between Tessera and a plugin: the plugin interface's
// version, the compiler and its C++ library ABI. TESSERA_PLUGIN_BUILD is
// the Tessera build's own tag (compiler, SystemC, build type), which the
// CMake package passes to plugins.
#define TESSERA_PLUGIN_API_VERSION 1
#define TESSERA_PLUGIN_STRINGIFY2(x) #x
#define TESSERA_PLUGIN_STRINGIFY(x) TESSERA_PLUGIN_STRINGIFY2(x)
#ifndef TESSERA_PLUGIN_BUILD
#error "TESSERA_PLUGIN_BUILD is not defined: build plugins with find_package(Tessera) and tessera_add_plugin()"
#endif
#define TESSERA_PLUGIN_ABI                                               \
  "tessera-plugin-" TESSERA_PLUGIN_STRINGIFY(                            \
      TESSERA_PLUGIN_API_VERSION) " gcc-" __VERSION__                    \
                                  " cxx11abi-" TESSERA_PLUGIN_STRINGIFY( \
                                      _GLIBCXX_USE_CXX11_ABI) " " TESSERA_PLUGIN_BUILD

#define TESSERA_PLUGIN() \
  extern "C" __attribute__((visibility("default"))) const char* tessera_plugin_abi() { return TESSERA_PLUGIN_ABI; }
