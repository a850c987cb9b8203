# rtb_path_from_env(VAR [REQUIRED WHAT]): VAR (a checkout the user brings: a kernel, an
# SDK) from the environment when the command line did not set it; with REQUIRED, a
# missing one stops the configure with "set VAR to your WHAT checkout".
# -DRTB_PATHS_FROM_ENV=OFF (rtlab's builds) takes the command line's alone, so a build
# directory holds the kernels its configure line names and no other.
option(RTB_PATHS_FROM_ENV "checkouts from the environment when -D does not name them" ON)
function(rtb_path_from_env var)
  cmake_parse_arguments(P "" "REQUIRED" "" ${ARGN})
  set(value "${${var}}")
  if(NOT value AND RTB_PATHS_FROM_ENV AND DEFINED ENV{${var}})
    set(value "$ENV{${var}}")
    set(${var} "${value}" PARENT_SCOPE)
  endif()
  if(P_REQUIRED AND NOT value)
    message(FATAL_ERROR "set ${var} to your ${P_REQUIRED} checkout")
  endif()
endfunction()
