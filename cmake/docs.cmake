# Man pages and shell completion, generated at build time by `gpuwatch __generate` from the same
# option tables as --help and getopt (src/cli/optspec.h), so that they cannot drift:
#   build/man/gpuwatch.1, build/man/gpuwatch-COMMAND.1,
#   build/completion/gpuwatch.bash (bash-completion), build/completion/_gpuwatch (zsh).
set(GW_MAN_PAGES gpuwatch run record report plot check query mark log top serve)
set(GW_GENERATED ${CMAKE_BINARY_DIR}/completion/gpuwatch.bash ${CMAKE_BINARY_DIR}/completion/_gpuwatch)
foreach(page ${GW_MAN_PAGES})
  if(page STREQUAL "gpuwatch")
    list(APPEND GW_GENERATED ${CMAKE_BINARY_DIR}/man/gpuwatch.1)
  else()
    list(APPEND GW_GENERATED ${CMAKE_BINARY_DIR}/man/gpuwatch-${page}.1)
  endif()
endforeach()
add_custom_command(OUTPUT ${GW_GENERATED}
                   COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
                           $<TARGET_FILE:gpuwatch> __generate ${CMAKE_BINARY_DIR}
                   DEPENDS gpuwatch
                   COMMENT "Generating man pages and shell completion from the option tables")
add_custom_target(gpuwatch_docs ALL DEPENDS ${GW_GENERATED})

include(GNUInstallDirs)
foreach(page ${GW_GENERATED})
  if(page MATCHES "\\.1$")
    install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endforeach()
install(FILES ${CMAKE_BINARY_DIR}/completion/gpuwatch.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME gpuwatch)
install(FILES ${CMAKE_BINARY_DIR}/completion/_gpuwatch
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
