# rtb_path_from_env(VAR [REQUIRED WHAT]): VAR (a checkout the user brings: a kernel, an
# SDK) from the environment when the command line did not set it; with REQUIRED, a
# missing one stops the configure with "set VAR to your WHAT checkout".
function(rtb_path_from_env var)
  cmake_parse_arguments(P "" "REQUIRED" "" ${ARGN})
  set(value "${${var}}")
  if(NOT value AND DEFINED ENV{${var}})
    set(value "$ENV{${var}}")
    set(${var} "${value}" PARENT_SCOPE)
  endif()
  if(P_REQUIRED AND NOT value)
    message(FATAL_ERROR "set ${var} to your ${P_REQUIRED} checkout")
  endif()
endfunction()
