# RTL blocks: SystemVerilog verilated into C++ (Verilator from the Debian
# package `verilator`) and co-simulated with the C++ models (docs/cosim.md).
#
# tessera_add_rtl_block(PREFIX <Vname> TOP <module> SOURCES <sv files...>
#                       [TARGET <library>] [PARAMS NAME=VALUE...]
#                       [DEFINES NAME...] [NO_LINT])
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
  get_target_property(bin ${target} BINARY_DIR)
  set(vdir "${bin}/CMakeFiles/${target}.dir/${prefix}.dir")
  set(out "${vdir}/${prefix}_signals.cpp")
  add_custom_command(OUTPUT ${out}
                     COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tools/rtl-signal-table
                             ${vdir}/${prefix}___024root.h ${prefix} ${out}
                     DEPENDS ${vdir}/${prefix}.cmake ${PROJECT_SOURCE_DIR}/tools/rtl-signal-table VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()

function(tessera_add_rtl_block)
  cmake_parse_arguments(B "NO_LINT" "PREFIX;TOP;TARGET" "SOURCES;PARAMS;DEFINES" ${ARGN})
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
  if(NOT B_TARGET STREQUAL "tessera_rtl")
    # One copy of the Verilator runtime: tessera_rtl's (models/rtl).
    get_target_property(srcs ${B_TARGET} SOURCES)
    list(FILTER srcs EXCLUDE REGEX "^${VERILATOR_ROOT}/include/.*\\.cpp$")
    set_property(TARGET ${B_TARGET} PROPERTY SOURCES ${srcs})
    if(TARGET tessera_rtl)
      target_link_libraries(${B_TARGET} PUBLIC tessera_rtl)
    else()
      # A plugin built outside Tessera's tree (TesseraConfig.cmake): the
      # runtime is the tessera binary's, compiled with these settings.
      target_include_directories(${B_TARGET} SYSTEM PRIVATE ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
      target_compile_definitions(${B_TARGET} PRIVATE VM_COVERAGE=0 VM_SC=0 VM_TRACE=1 VM_TRACE_VCD=0 VM_TRACE_FST=1)
    endif()
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
