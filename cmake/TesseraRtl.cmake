# RTL blocks: SystemVerilog verilated into C++ (Verilator from the Debian
# package `verilator`) and co-simulated with the C++ models (docs/cosim.md).
#
# tessera_add_rtl_block(PREFIX <Vname> TOP <module> SOURCES <sv files...>
#                       [TARGET <library>] [PARAMS NAME=VALUE...]
#                       [DEFINES NAME...] [NO_LINT]
#                       [IMPLEMENTS <kind> [NAME <name>]])
# verilates one configuration of a block into <library> (default
# tessera_rtl): class <Vname> in header <Vname>.h, optimised (-O3), FST
# tracing compiled in (off until a waveform is asked for; arrays of up to
# 65536 elements traced, so a block's RAMs are in its mismatch waveform) and
# --savable (the lockstep harness checkpoints the model to replay the cycles
# before a mismatch), and the table of its signals the chip's waveform reads
# (rtl/common/rtl_signals.h, written by tools/rtl-signal-table). The Verilator runtime is compiled once, into tessera_rtl; a
# block verilated into another library links tessera_rtl for it. Unless
# NO_LINT, the CTest RtlLint.<Vname> lints the block with -Wall under the
# same parameters and defines.
# IMPLEMENTS <kind> makes the class an implementation of a block kind of
# Tessera's (shared_bank_unit, noc_router; docs/cosim.md, "Implementations
# and how they are selected"): a generated .cpp wraps it in the kind's
# adapter and registers it under (kind, NAME, PARAMS) when <library> is
# loaded, and `sm.shared_impl=rtl:NAME` (or `noc.router_impl=...`) selects
# it. NAME defaults to `shipped`, the name plain `rtl` selects; PARAMS must
# give every parameter of the kind (TESSERA_RTL_KIND_<kind>_PARAMS), which
# is what a run's configuration is matched against. A library with
# registrations is linked whole (WHOLE_ARCHIVE) or is a plugin
# (tessera_add_plugin).

find_package(verilator 5 QUIET HINTS $ENV{VERILATOR_ROOT} /usr/share/verilator)
if(NOT verilator_FOUND)
  message(FATAL_ERROR "Verilator 5 was not found. RTL co-simulation is part of Tessera: install the Debian "
                      "package `verilator` (apt-get install verilator, or tools/tessera-setup deps) and configure again.")
endif()

# The Verilated code's optimisation (Verilator's OPT_FAST, OPT_SLOW and
# OPT_GLOBAL). The fuzz build, whose harnesses do not time the blocks,
# compiles them at -O0: 40% less compile time there.
set(TESSERA_RTL_OPT "-O2;-O1;-O2" CACHE STRING "Compiler optimisation of Verilated code: OPT_FAST;OPT_SLOW;OPT_GLOBAL")

# The table of a Verilated block's signals, rtl::rtl_signals<Vname>()
# (models/rtl/common/rtl_signals.h), from the class Verilator generated for
# its top: the chip's waveform reads the block through it
# (docs/cosim.md, "Waveforms of the RTL").
function(tessera_rtl_signal_table target prefix)
  # Tessera's tools/, also when a plugin includes this file out of the tree.
  cmake_path(SET tools NORMALIZE "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tools")
  get_target_property(bin ${target} BINARY_DIR)
  set(vdir "${bin}/CMakeFiles/${target}.dir/${prefix}.dir")
  set(out "${vdir}/${prefix}_signals.cpp")
  add_custom_command(OUTPUT ${out}
                     COMMAND /usr/bin/python3 ${tools}/rtl-signal-table
                             ${vdir}/${prefix}___024root.h ${prefix} ${out}
                     DEPENDS ${vdir}/${prefix}.cmake ${tools}/rtl-signal-table VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()

# The kinds IMPLEMENTS knows: the adapter header whose registration
# template wraps the class, that template, the library that holds the
# adapter in Tessera's tree, and the parameters a configuration is matched
# against.
set(TESSERA_RTL_KINDS shared_bank_unit noc_router)
set(TESSERA_RTL_KIND_shared_bank_unit_HEADER sm/shared_bank_rtl.h)
set(TESSERA_RTL_KIND_shared_bank_unit_REGISTRATION tessera::sm::SharedBankRtlRegistration)
set(TESSERA_RTL_KIND_shared_bank_unit_LIBRARY tessera_sm)
set(TESSERA_RTL_KIND_shared_bank_unit_PARAMS BANKS SHARED_BYTES ATOMIC_CYCLES)
set(TESSERA_RTL_KIND_noc_router_HEADER noc/rtl_router_verilated.h)
set(TESSERA_RTL_KIND_noc_router_REGISTRATION tessera::noc::RtlRouterRegistration)
set(TESSERA_RTL_KIND_noc_router_LIBRARY tessera_noc)
set(TESSERA_RTL_KIND_noc_router_PARAMS PORTS VCS DEPTH CLASSES PAYLOAD_W)

function(tessera_add_rtl_block)
  cmake_parse_arguments(B "NO_LINT" "PREFIX;TOP;TARGET;IMPLEMENTS;NAME" "SOURCES;PARAMS;DEFINES" ${ARGN})
  if(NOT B_PREFIX OR NOT B_TOP OR NOT B_SOURCES)
    message(FATAL_ERROR "tessera_add_rtl_block needs PREFIX, TOP and SOURCES")
  endif()
  if(NOT B_TARGET)
    set(B_TARGET tessera_rtl)
  endif()
  list(GET TESSERA_RTL_OPT 0 opt_fast)
  list(GET TESSERA_RTL_OPT 1 opt_slow)
  list(GET TESSERA_RTL_OPT 2 opt_global)
  set(args -Wall -Wno-fatal --x-assign fast --x-initial fast)
  foreach(p ${B_PARAMS})
    list(APPEND args -G${p})
  endforeach()
  foreach(d ${B_DEFINES})
    list(APPEND args -D${d})
  endforeach()
  # Verilator runs in this directory and writes the paths it is given into
  # the generated code (its error messages): relative ones make that code,
  # and so its compile, the same in every clone for the compiler cache.
  set(sources)
  foreach(src ${B_SOURCES})
    cmake_path(ABSOLUTE_PATH src NORMALIZE)
    file(RELATIVE_PATH src ${CMAKE_CURRENT_SOURCE_DIR} ${src})
    list(APPEND sources ${src})
  endforeach()
  verilate(${B_TARGET} PREFIX ${B_PREFIX} TOP_MODULE ${B_TOP} SOURCES ${sources} TRACE_FST
           VERILATOR_ARGS ${args} --savable --trace-max-array 65536 -O3
           OPT_FAST ${opt_fast} OPT_SLOW ${opt_slow} OPT_GLOBAL ${opt_global})
  tessera_rtl_signal_table(${B_TARGET} ${B_PREFIX})
  # Code that includes the generated header is built with warnings as
  # errors; Verilator's headers are not ours to fix.
  target_include_directories(${B_TARGET} SYSTEM PUBLIC
    "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${B_TARGET}.dir/${B_PREFIX}.dir")
  get_target_property(target_type ${B_TARGET} TYPE)
  if(NOT B_TARGET STREQUAL "tessera_rtl")
    # One copy of the Verilator runtime: tessera_rtl's (models/rtl).
    get_target_property(srcs ${B_TARGET} SOURCES)
    list(FILTER srcs EXCLUDE REGEX "^${VERILATOR_ROOT}/include/.*\\.cpp$")
    set_property(TARGET ${B_TARGET} PROPERTY SOURCES ${srcs})
    if(TARGET tessera_rtl AND NOT target_type STREQUAL "MODULE_LIBRARY")
      target_link_libraries(${B_TARGET} PUBLIC tessera_rtl)
    else()
      # A plugin (TesseraConfig.cmake, or tessera_add_plugin in the tree):
      # the runtime is the tessera binary's, compiled with these settings.
      target_include_directories(${B_TARGET} SYSTEM PRIVATE ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
      target_compile_definitions(${B_TARGET} PRIVATE VM_COVERAGE=0 VM_SC=0 VM_TRACE=1 VM_TRACE_VCD=0 VM_TRACE_FST=1)
    endif()
  endif()
  if(B_IMPLEMENTS)
    _tessera_rtl_registration()
  endif()
  if(NOT B_NO_LINT AND TESSERA_BUILD_TESTS)
    set(lint_args --lint-only -Wall --top-module ${B_TOP})
    foreach(p ${B_PARAMS})
      list(APPEND lint_args -G${p})
    endforeach()
    foreach(d ${B_DEFINES})
      list(APPEND lint_args -D${d})
    endforeach()
    add_test(NAME RtlLint.${B_PREFIX} COMMAND ${VERILATOR_BIN} ${lint_args} ${B_SOURCES}
             WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
endfunction()

# The registration of tessera_add_rtl_block's IMPLEMENTS (its variables).
macro(_tessera_rtl_registration)
  if(NOT B_IMPLEMENTS IN_LIST TESSERA_RTL_KINDS)
    message(FATAL_ERROR "tessera_add_rtl_block(${B_PREFIX}): IMPLEMENTS ${B_IMPLEMENTS} is not a block kind of "
                        "Tessera's; kinds: ${TESSERA_RTL_KINDS}")
  endif()
  if(NOT B_NAME)
    set(B_NAME shipped)
  endif()
  if(NOT B_NAME MATCHES "^[A-Za-z0-9_.-]+$")
    message(FATAL_ERROR "tessera_add_rtl_block(${B_PREFIX}): NAME '${B_NAME}' is not letters, digits, _, . and -")
  endif()
  set(_kind TESSERA_RTL_KIND_${B_IMPLEMENTS})
  set(_params "")
  set(_given "")
  foreach(p ${B_PARAMS})
    string(REGEX MATCH "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$" _m "${p}")
    if(NOT _m)
      message(FATAL_ERROR "tessera_add_rtl_block(${B_PREFIX}): PARAMS ${p} is not NAME=VALUE")
    endif()
    list(APPEND _given ${CMAKE_MATCH_1})
    string(APPEND _params "{\"${CMAKE_MATCH_1}\", \"${CMAKE_MATCH_2}\"}, ")
  endforeach()
  foreach(p ${${_kind}_PARAMS})
    if(NOT p IN_LIST _given)
      message(FATAL_ERROR "tessera_add_rtl_block(${B_PREFIX}): IMPLEMENTS ${B_IMPLEMENTS} needs PARAMS to give "
                          "${${_kind}_PARAMS} (the configuration a run is matched against); ${p} is missing")
    endif()
  endforeach()
  set(_glue "${CMAKE_CURRENT_BINARY_DIR}/${B_PREFIX}_registration.cpp")
  # Written only when it changes: an edit of the block's SystemVerilog
  # recompiles this file only because the class's header changed.
  file(CONFIGURE OUTPUT "${_glue}" @ONLY CONTENT
"// Generated by tessera_add_rtl_block (cmake/TesseraRtl.cmake): the Verilated
// class @B_PREFIX@ as the @B_IMPLEMENTS@ implementation \"@B_NAME@\".
#include \"@B_PREFIX@.h\"
#include \"${${_kind}_HEADER}\"

namespace {
const ${${_kind}_REGISTRATION}<@B_PREFIX@> registration{\"@B_NAME@\", \"@B_PREFIX@\", {${_params}}};
}  // namespace
")
  target_sources(${B_TARGET} PRIVATE "${_glue}")
  # The adapter steps the block every cycle: optimised in every build type,
  # as the Verilated code is.
  set_source_files_properties("${_glue}" TARGET_DIRECTORY ${B_TARGET} PROPERTIES
    COMPILE_OPTIONS "${opt_global}" COMPILE_DEFINITIONS NDEBUG)
  # The adapter's headers and code: a plugin takes them from the tessera
  # binary (Tessera::plugin, which tessera_add_plugin links); a library in
  # Tessera's tree links the adapter's library.
  if(NOT target_type STREQUAL "MODULE_LIBRARY")
    if(TESSERA_OUT_OF_TREE)
      target_link_libraries(${B_TARGET} PRIVATE Tessera::plugin)
    else()
      target_link_libraries(${B_TARGET} PRIVATE ${${_kind}_LIBRARY})
    endif()
  endif()
endmacro()
