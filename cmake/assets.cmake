# Front-end assets of the HTML report (docs/charts.md): runs `npm ci` at configure time when
# node_modules lacks the uPlot version pinned in package-lock.json, then generates GW_ASSETS_C, a
# C source holding uPlot's min.js and min.css and src/report/assets/report.{js,css}.
set(GW_LOCK ${CMAKE_SOURCE_DIR}/package-lock.json)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${GW_LOCK})
file(READ ${GW_LOCK} gw_lock_json)
string(JSON GW_UPLOT_VERSION GET "${gw_lock_json}" packages node_modules/uplot version)
set(GW_UPLOT_DIST ${CMAKE_SOURCE_DIR}/node_modules/uplot/dist)
set(gw_uplot_installed "")
if(EXISTS ${CMAKE_SOURCE_DIR}/node_modules/uplot/package.json)
  file(READ ${CMAKE_SOURCE_DIR}/node_modules/uplot/package.json gw_uplot_pkg)
  string(JSON gw_uplot_installed GET "${gw_uplot_pkg}" version)
endif()
if(NOT gw_uplot_installed STREQUAL GW_UPLOT_VERSION OR NOT EXISTS ${GW_UPLOT_DIST}/uPlot.iife.min.js)
  find_program(GW_NPM npm)
  if(NOT GW_NPM)
    message(FATAL_ERROR "npm not found: it installs uPlot ${GW_UPLOT_VERSION} (package-lock.json) "
                        "once, at build time. Install Node.js and npm (scripts/deps.sh does).")
  endif()
  message(STATUS "npm ci: installing uPlot ${GW_UPLOT_VERSION} into node_modules/")
  execute_process(COMMAND ${GW_NPM} ci --no-audit --no-fund --loglevel=error
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} RESULT_VARIABLE gw_npm_rc)
  if(NOT gw_npm_rc EQUAL 0 OR NOT EXISTS ${GW_UPLOT_DIST}/uPlot.iife.min.js)
    message(FATAL_ERROR "npm ci failed (${gw_npm_rc}): gpuwatch needs uPlot from the npm "
                        "registry once, when it is built; check the network or npm's proxy.")
  endif()
endif()

set(GW_ASSET_FILES
    uplot_js=${GW_UPLOT_DIST}/uPlot.iife.min.js
    uplot_css=${GW_UPLOT_DIST}/uPlot.min.css
    report_js=${CMAKE_SOURCE_DIR}/src/report/assets/report.js
    report_css=${CMAKE_SOURCE_DIR}/src/report/assets/report.css)
set(gw_asset_paths "")
foreach(entry ${GW_ASSET_FILES})
  string(REGEX REPLACE "^[a-z_]+=" "" path "${entry}")
  list(APPEND gw_asset_paths ${path})
endforeach()
set(GW_ASSETS_C ${CMAKE_BINARY_DIR}/gen/gw_assets.c)
string(REPLACE ";" "|" gw_files_arg "${GW_ASSET_FILES}")
add_custom_command(
  OUTPUT ${GW_ASSETS_C}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/gen
  COMMAND ${CMAKE_COMMAND} -DOUT=${GW_ASSETS_C} -DVERSION=${GW_UPLOT_VERSION}
          "-DFILES=${gw_files_arg}" -P ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
  DEPENDS ${gw_asset_paths} ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
  COMMENT "Embedding uPlot ${GW_UPLOT_VERSION} and the report's script and style"
  VERBATIM)
