# A board described by data: reads a machine description (TOML, the subset of
# `key = "text"` and `key = number` lines, # comments) into variables, so a new machine
# of a board family is a file, not code.
#
#   include(<rtbench>/boards/cmake/board_description.cmake)
#   rtb_board_description(<file.toml> DESC)
#
# sets DESC_<key> for every key, and DESC_DEFINITIONS: the C macros the board code
# reads (BOARD_MACHINE="...", BOARD_UART_BASE=0x...u, ...), one per key below.
#
#   rtb_board_description(<ports/<rtos>/machines/<machine>.toml> FR OVERLAY)
#
# reads a port's overlay of a machine the same way (its own keys, none required).
set(RTB_BOARD_C_KEYS machine uart_base counter counter_base counter_hz systick_hz
                     swi_first_irq)

function(rtb_board_description file prefix)
  cmake_parse_arguments(RTBD "OVERLAY" "" "" ${ARGN})
  file(STRINGS ${file} lines)
  set(defs)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^([^\"#]*(\"[^\"]*\")?[^\"#]*)#.*$" "\\1" line "${line}")
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    endif()
    if(line MATCHES "^([a-z_][a-z0-9_]*) *= *\"([^\"]*)\"$")
      set(key ${CMAKE_MATCH_1})
      set(value "${CMAKE_MATCH_2}")
      set(c_value "\"${value}\"")
    elseif(line MATCHES "^([a-z_][a-z0-9_]*) *= *(0x[0-9A-Fa-f]+|[0-9]+)$")
      set(key ${CMAKE_MATCH_1})
      set(value ${CMAKE_MATCH_2})
      set(c_value "${value}u")
    else()
      message(FATAL_ERROR "${file}: not `key = \"text\"` or `key = number`: ${line}")
    endif()
    set(${prefix}_${key} "${value}" PARENT_SCOPE)
    if(key IN_LIST RTB_BOARD_C_KEYS)
      string(TOUPPER ${key} macro)
      list(APPEND defs "BOARD_${macro}=${c_value}")
    endif()
    set(seen_${key} 1)
  endforeach()
  foreach(key IN LISTS RTB_BOARD_C_KEYS)
    if(NOT seen_${key} AND NOT RTBD_OVERLAY)
      message(FATAL_ERROR "${file}: no ${key} (every machine description needs one)")
    endif()
  endforeach()
  set(${prefix}_DEFINITIONS ${defs} PARENT_SCOPE)
endfunction()
