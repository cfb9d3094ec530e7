# tessera_add_plugin(NAME SOURCES a.cpp ...): a plugin library lib<NAME>.so
# for `tessera run --plugin` (platforms/plugin_api.h): a shared library whose
# undefined symbols (Tessera's, the Verilator runtime's) resolve against the
# tessera binary when it is loaded. Tessera::plugin is the imported target
# of the CMake package (cmake/TesseraConfig.cmake.in) outside Tessera's
# tree, and an interface library of the build inside it (the test mutants,
# models/rtl/verilated/).
function(tessera_add_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES" ${ARGN})
  add_library(${name} MODULE ${P_SOURCES})
  target_link_libraries(${name} PRIVATE Tessera::plugin)
  set_target_properties(${name} PROPERTIES CXX_EXTENSIONS OFF POSITION_INDEPENDENT_CODE ON)
endfunction()
