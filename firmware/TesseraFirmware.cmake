# Tessera firmware support: finds the RISC-V toolchain and defines
#
#   tessera_add_firmware(NAME SOURCES a.c|a.cu|a.cpp [b.c ...]
#                        [OUTPUT_DIR dir] [CFLAGS opt ...] [DEPENDS file ...])
#
# which builds ${OUTPUT_DIR or CMAKE_BINARY_DIR/firmware}/NAME.elf with
# firmware/tessera-cc (its kernel record made by the tessera-kinfo target,
# which every firmware program depends on), as target fw_NAME (part of ALL and of the aggregate
# target tessera_firmware). The ELF path is the target property
# TESSERA_FIRMWARE_ELF: $<TARGET_PROPERTY:fw_NAME,TESSERA_FIRMWARE_ELF>.
#
# The command depends on the sources, the headers beside them, the runtime
# and tessera-cc, so editing any of them rebuilds the program.
include_guard(GLOBAL)

set(TESSERA_FIRMWARE_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "Tessera firmware directory")
set(TESSERA_FIRMWARE_CC "${TESSERA_FIRMWARE_DIR}/tessera-cc" CACHE INTERNAL "tessera-cc wrapper")

find_program(TESSERA_RISCV_GCC riscv64-unknown-elf-gcc
  DOC "RISC-V bare-metal C compiler for Tessera firmware")
if(NOT TESSERA_RISCV_GCC)
  message(FATAL_ERROR
    "riscv64-unknown-elf-gcc not found: Tessera firmware needs it and picolibc.\n"
    "Install them with:\n"
    "  sudo apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf")
endif()

execute_process(COMMAND "${TESSERA_RISCV_GCC}" -print-file-name=picolibc.specs
  OUTPUT_VARIABLE _tessera_picolibc_specs OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _tessera_picolibc_rc ERROR_QUIET)
if(NOT _tessera_picolibc_rc EQUAL 0 OR NOT EXISTS "${_tessera_picolibc_specs}")
  message(FATAL_ERROR
    "picolibc for ${TESSERA_RISCV_GCC} not found (no picolibc.specs).\n"
    "Install it with:\n"
    "  sudo apt-get install picolibc-riscv64-unknown-elf")
endif()
message(STATUS "Tessera firmware compiler: ${TESSERA_RISCV_GCC} (picolibc: ${_tessera_picolibc_specs})")

set(TESSERA_FIRMWARE_RUNTIME_FILES
  "${TESSERA_FIRMWARE_DIR}/runtime/crt0.S"
  "${TESSERA_FIRMWARE_DIR}/runtime/runtime.c"
  "${TESSERA_FIRMWARE_DIR}/runtime/tessera.h"
  "${TESSERA_FIRMWARE_DIR}/runtime/tessera_vec.h"
  "${TESSERA_FIRMWARE_DIR}/runtime/tessera_warp.h"
  "${TESSERA_FIRMWARE_DIR}/runtime/tessera_kernel.h"
  "${TESSERA_FIRMWARE_DIR}/runtime/tessera_htm.h"
  "${TESSERA_FIRMWARE_DIR}/runtime/tessera.ld"
  "${TESSERA_FIRMWARE_DIR}/runtime/tessera_cxx.h"
  "${TESSERA_FIRMWARE_DIR}/runtime/cuda_runtime.h"
  "${TESSERA_FIRMWARE_DIR}/tessera-cudafe"
  "${TESSERA_FIRMWARE_DIR}/runtime/include/time.h"
  "${TESSERA_FIRMWARE_DIR}/runtime/include/sched.h"
  "${TESSERA_FIRMWARE_DIR}/runtime/include/sys/resource.h"
  "${TESSERA_FIRMWARE_CC}"
  CACHE INTERNAL "Files every firmware program depends on")

if(NOT TARGET tessera_firmware)
  add_custom_target(tessera_firmware)
endif()

function(tessera_add_firmware NAME)
  cmake_parse_arguments(PARSE_ARGV 1 FW "" "OUTPUT_DIR" "SOURCES;CFLAGS;DEPENDS")
  if(FW_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessera_add_firmware(${NAME}): unknown arguments ${FW_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT FW_SOURCES)
    message(FATAL_ERROR "tessera_add_firmware(${NAME}): SOURCES is empty")
  endif()
  if(TARGET fw_${NAME})
    message(FATAL_ERROR "tessera_add_firmware(${NAME}): a firmware program of that name already exists")
  endif()
  if(NOT FW_OUTPUT_DIR)
    set(FW_OUTPUT_DIR "${CMAKE_BINARY_DIR}/firmware")
  endif()
  get_filename_component(FW_OUTPUT_DIR "${FW_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  set(elf "${FW_OUTPUT_DIR}/${NAME}.elf")

  set(sources "")
  set(headers "")
  foreach(src IN LISTS FW_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND sources "${src}")
    get_filename_component(dir "${src}" DIRECTORY)
    file(GLOB dir_headers CONFIGURE_DEPENDS "${dir}/*.h" "${dir}/*.cuh")
    list(APPEND headers ${dir_headers})
  endforeach()
  list(REMOVE_DUPLICATES headers)

  set(flags ${FW_CFLAGS})
  if(TESSERA_WERROR)
    list(PREPEND flags -Werror)
  endif()

  add_custom_command(
    OUTPUT "${elf}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${FW_OUTPUT_DIR}"
    COMMAND "${CMAKE_COMMAND}" -E env "TESSERA_CC=${TESSERA_RISCV_GCC}"
            "TESSERA_KINFO=$<TARGET_FILE:tessera-kinfo>"
            "${TESSERA_FIRMWARE_CC}" ${flags} ${sources} -o "${elf}"
    DEPENDS ${sources} ${headers} ${FW_DEPENDS} ${TESSERA_FIRMWARE_RUNTIME_FILES} tessera-kinfo
    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
    COMMENT "Building firmware ${NAME}.elf"
    VERBATIM)
  add_custom_target(fw_${NAME} ALL DEPENDS "${elf}")
  set_target_properties(fw_${NAME} PROPERTIES TESSERA_FIRMWARE_ELF "${elf}")
  add_dependencies(tessera_firmware fw_${NAME})
endfunction()
