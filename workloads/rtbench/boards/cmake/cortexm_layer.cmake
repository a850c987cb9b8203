# What every Cortex-M board layer built on the mps2 layer shares (boards/qemu-mps2,
# boards/stm32, boards/rp2350): the project's settings, a machine description's sizes,
# and per machine the chip library (the layer's chip half + the mps2 layer's cortexm.c
# and startup.c), its linker script and the bare-metal smoke image. include() it right
# after project(); each layer keeps only what is its own (its keys, its chip files).
include(${CMAKE_CURRENT_LIST_DIR}/../../../cmake/rtlab-c.cmake)
set(CMAKE_C_FLAGS_RELEASE "-O2")
set(CMAKE_EXECUTABLE_SUFFIX ".elf")
set(RTBENCH_DIR ${CMAKE_CURRENT_LIST_DIR}/../..)
set(MPS2_DIR ${RTBENCH_DIR}/boards/qemu-mps2)
set(BOARD_DIR ${CMAKE_CURRENT_SOURCE_DIR})
include(${RTBENCH_DIR}/../common/rtl1/rtl1.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/board_description.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/rtos_images.cmake)
set(COMMON -mthumb -ffunction-sections -fdata-sections -fno-common)
# The optional keys of a description (a small machine's stacks, heap and sample pool).
set(RTB_SIZE_KEYS main_stack heap_size main_task_words thread_stack_words
                  minimal_stack_words sample_pool max_workers max_line)

# RTB_MACHINES: the layer's machines/*.toml (a change reconfigures).
file(GLOB RTB_MACHINES ${BOARD_DIR}/machines/*.toml)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RTB_MACHINES})

# rtb_silicon_options(<CHIP> <clock doc>): the cache options of a layer for silicon
# boards: RTB_<CHIP>_SYSCLK_HZ, the clock of every image (else each description's
# sysclk_hz; rtb_sysclk_override), and RTB_<CHIP>_ARGS, the rtbench options built in.
macro(rtb_silicon_options chip clock_doc)
  set(RTB_${chip}_SYSCLK_HZ "" CACHE STRING "${clock_doc}")
  set(RTB_${chip}_ARGS "" CACHE STRING "rtbench options built into the silicon images")
endmacro()

# rtb_load_machine(<file> [KEYS <optional keys...>] [DEFAULTS <key> <value>...]): m = the
# file's stem, DESC_* its keys (the optional ones and RTB_SIZE_KEYS cleared first, so no
# machine inherits the previous one's; DEFAULTS' value where the file has none), cpu =
# its cpu_flags and COMMON, sysclk = its sysclk_hz (if any; rtb_sysclk_override changes it).
macro(rtb_load_machine file)
  cmake_parse_arguments(L "" "" "KEYS;DEFAULTS" ${ARGN})
  get_filename_component(m ${file} NAME_WE)
  foreach(key ${L_KEYS} ${RTB_SIZE_KEYS})
    unset(DESC_${key})
  endforeach()
  rtb_board_description(${file} DESC)
  while(L_DEFAULTS)
    list(POP_FRONT L_DEFAULTS key value)
    if("${DESC_${key}}" STREQUAL "")
      set(DESC_${key} ${value})
    endif()
  endwhile()
  separate_arguments(cpu UNIX_COMMAND "${DESC_cpu_flags}")
  list(APPEND cpu ${COMMON})
  set(sysclk ${DESC_sysclk_hz})
endmacro()

# rtb_pins(<regex> <example> <key>...): each DESC_<key>, a pin's name, must match <regex>
# (else the description's error, naming <example>); <key>_1 and <key>_2 are its groups.
macro(rtb_pins regex example)
  foreach(key ${ARGN})
    if(NOT DESC_${key} MATCHES "${regex}")
      message(FATAL_ERROR
        "${description}: ${key}: expected a pin like \"${example}\", not \"${DESC_${key}}\"")
    endif()
    set(${key}_1 ${CMAKE_MATCH_1})
    set(${key}_2 ${CMAKE_MATCH_2})
  endforeach()
endmacro()

# rtb_sysclk_override(<hz>): a silicon build's clock instead of the description's
# (every counter and SysTick run at it): sysclk, BOARD_COUNTER_HZ, BOARD_SYSTICK_HZ.
macro(rtb_sysclk_override hz)
  set(sysclk ${hz})
  list(FILTER DESC_DEFINITIONS EXCLUDE REGEX "^BOARD_(COUNTER|SYSTICK)_HZ=")
  list(APPEND DESC_DEFINITIONS BOARD_COUNTER_HZ=${sysclk}u BOARD_SYSTICK_HZ=${sysclk}u)
  set(DESC_counter_hz ${sysclk})
endmacro()

# rtb_description_sizes(<prefix> <out> [WORKERS <n>]): a description's optional sizes.
# heap_size, main_task_words and minimal_stack_words become board macros appended to
# <prefix>_DEFINITIONS (BOARD_HEAP_SIZE, BOARD_MAIN_TASK_WORDS, RTB_MINIMAL_STACK_WORDS);
# sample_pool, max_workers (else WORKERS, if given), max_line and thread_stack_words the
# rtbench sizes in <out>; main_stack defaults to 16K (the linker script's).
function(rtb_description_sizes prefix out)
  cmake_parse_arguments(S "" "WORKERS" "" ${ARGN})
  set(defs ${${prefix}_DEFINITIONS})
  foreach(key heap_size main_task_words) # BOARD_HEAP_SIZE, BOARD_MAIN_TASK_WORDS
    if(${prefix}_${key})
      string(TOUPPER ${key} macro)
      list(APPEND defs BOARD_${macro}=${${prefix}_${key}})
    endif()
  endforeach()
  if(${prefix}_minimal_stack_words)
    list(APPEND defs RTB_MINIMAL_STACK_WORDS=${${prefix}_minimal_stack_words})
  endif()
  set(sizes)
  if(${prefix}_max_workers)
    list(APPEND sizes RTB_MAX_WORKERS=${${prefix}_max_workers})
  elseif(S_WORKERS)
    list(APPEND sizes RTB_MAX_WORKERS=${S_WORKERS})
  endif()
  if(${prefix}_sample_pool)
    list(APPEND sizes RTB_SAMPLE_POOL=${${prefix}_sample_pool}u)
  endif()
  if(${prefix}_max_line)
    list(APPEND sizes RTL1_MAX_LINE=${${prefix}_max_line})
  endif()
  if(${prefix}_thread_stack_words)
    list(APPEND sizes RTB_THREAD_STACK_WORDS=${${prefix}_thread_stack_words})
  endif()
  if(NOT ${prefix}_main_stack)
    set(${prefix}_main_stack 16K PARENT_SCOPE)
  endif()
  set(${prefix}_DEFINITIONS ${defs} PARENT_SCOPE)
  set(${out} ${sizes} PARENT_SCOPE)
endfunction()

# rtb_cortexm_chip(<m> <lib> SMOKE <elf> SOURCES <chip .c...> CPU <flags...>
#                  DEFINITIONS <board macros...> [BIN]): the chip library <lib> (PUBLIC:
# the layer's and mps2's headers, the CPU flags, the board macros), the linker script
# <m>.ld from mps2.ld.in (DESC_* of the caller's scope), the smoke image <elf>.elf, and
# RTB_LINK in the caller's scope: the link options of every image of the machine.
function(rtb_cortexm_chip m lib)
  cmake_parse_arguments(C "BIN" "SMOKE" "SOURCES;CPU;DEFINITIONS" ${ARGN})
  configure_file(${MPS2_DIR}/mps2.ld.in ${CMAKE_CURRENT_BINARY_DIR}/${m}.ld @ONLY)
  set(link ${C_CPU} -T${CMAKE_CURRENT_BINARY_DIR}/${m}.ld -nostartfiles --specs=nano.specs
           --specs=nosys.specs -Wl,--gc-sections)
  add_library(${lib} STATIC ${C_SOURCES} ${MPS2_DIR}/cortexm.c ${MPS2_DIR}/startup.c)
  target_include_directories(${lib} PUBLIC ${BOARD_DIR} ${MPS2_DIR}
                             PRIVATE ${RTBENCH_DIR}/include ${RTBENCH_DIR}/src) # rtb_emit.h
  target_compile_options(${lib} PRIVATE ${RTLAB_C_WARNINGS} PUBLIC ${C_CPU})
  target_compile_definitions(${lib} PUBLIC ${C_DEFINITIONS})

  add_executable(${C_SMOKE} ${MPS2_DIR}/smoke.c ${RTBENCH_DIR}/src/rtb_emit.c ${RTL1_SOURCES})
  target_include_directories(${C_SMOKE} PRIVATE ${RTBENCH_DIR}/include ${RTBENCH_DIR}/src)
  target_compile_options(${C_SMOKE} PRIVATE ${RTLAB_C_WARNINGS})
  # startup.c's weak SWI0_Handler must lose to smoke.c's: link the chip as objects.
  target_link_libraries(${C_SMOKE} PRIVATE -Wl,--whole-archive ${lib} -Wl,--no-whole-archive)
  target_link_options(${C_SMOKE} PRIVATE ${link})
  if(C_BIN)
    add_custom_command(TARGET ${C_SMOKE} POST_BUILD
      COMMAND ${CMAKE_OBJCOPY} -O binary $<TARGET_FILE:${C_SMOKE}> ${C_SMOKE}.bin)
  endif()
  set(RTB_LINK ${link} PARENT_SCOPE)
endfunction()
