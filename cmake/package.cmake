# Installation and the Debian package (docs/install.md).
#   cmake --install build --prefix P     P/bin/gpuwatch, P/lib/gpuwatch/python/ (sitecustomize.py
#                                        for `run`'s in-job data), P/share/doc/gpuwatch/ (README, docs,
#                                        examples/gpuwatch.ini, examples/prometheus/),
#                                        P/lib/systemd/system/gpuwatch.service
#   cmake --build build --target package build/gpuwatch_VERSION-1_ARCH.deb (CPack, prefix /usr)
# Only gpuwatch itself is installed: not the fake NVML library, the tests or the benchmarks.
include(GNUInstallDirs)

install(TARGETS gpuwatch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The sitecustomize that `gpuwatch run` puts first on a job's PYTHONPATH (docs/inproc.md); the
# binary looks for it in BINDIR/../lib/gpuwatch/python (src/run/python_env.c).
install(FILES ${CMAKE_SOURCE_DIR}/python/inject/sitecustomize.py
        ${CMAKE_SOURCE_DIR}/python/inject/usercustomize.py
        ${CMAKE_SOURCE_DIR}/python/inject/_gpuwatch_site.py
        ${CMAKE_SOURCE_DIR}/python/inject/_gpuwatch_inproc.py
        ${CMAKE_SOURCE_DIR}/python/inject/_gpuwatch_torch.py DESTINATION lib/gpuwatch/python)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/packaging/deb/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES ${CMAKE_SOURCE_DIR}/examples/gpuwatch.ini
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/deploy/prometheus
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# The systemd unit runs the installed binary: deploy/systemd/gpuwatch.service names
# /usr/local/bin/gpuwatch (the default prefix); the copy installed names PREFIX/bin/gpuwatch. It is
# written at install time because CPack installs with its own prefix (/usr).
set(GPUWATCH_SYSTEMD_UNITDIR "lib/systemd/system" CACHE STRING
    "where the systemd unit goes: relative to the install prefix, or absolute")
install(CODE "
  if(IS_ABSOLUTE \"${GPUWATCH_SYSTEMD_UNITDIR}\")
    set(gw_unit_dir \"${GPUWATCH_SYSTEMD_UNITDIR}\")
  else()
    set(gw_unit_dir \"\${CMAKE_INSTALL_PREFIX}/${GPUWATCH_SYSTEMD_UNITDIR}\")
  endif()
  if(IS_ABSOLUTE \"${CMAKE_INSTALL_BINDIR}\")
    set(gw_bindir \"${CMAKE_INSTALL_BINDIR}\")
  else()
    set(gw_bindir \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  endif()
  set(gw_exec \"\${gw_bindir}/gpuwatch\")
  if(gw_exec MATCHES \" \")  # systemd splits ExecStart at spaces unless quoted
    set(gw_exec \"\\\"\${gw_exec}\\\"\")
  endif()
  file(READ \"${CMAKE_SOURCE_DIR}/deploy/systemd/gpuwatch.service\" gw_unit)
  string(REPLACE \"ExecStart=/usr/local/bin/gpuwatch\" \"ExecStart=\${gw_exec}\" gw_unit
         \"\${gw_unit}\")
  # file(INSTALL): DESTDIR applies and install_manifest.txt lists it like the other files
  file(WRITE \"${CMAKE_BINARY_DIR}/unit/gpuwatch.service\" \"\${gw_unit}\")
  file(INSTALL DESTINATION \"\${gw_unit_dir}\" TYPE FILE
       FILES \"${CMAKE_BINARY_DIR}/unit/gpuwatch.service\")
")

# The Python marker module (python/gpuwatch.py) where python3 finds it: /usr/lib/python3/dist-packages
# for the .deb (prefix /usr, Debian's place for packaged modules), /usr/local/lib/python3.X/
# dist-packages for /usr/local (Debian's python3 reads both), PREFIX/lib/python3.X/site-packages
# elsewhere (then on PYTHONPATH). GPUWATCH_PYTHON_DIR names another directory.
set(GPUWATCH_PYTHON_DIR "" CACHE STRING "where gpuwatch.py is installed (empty: as python3 expects)")
install(CODE "
  set(gw_py_dir \"${GPUWATCH_PYTHON_DIR}\")
  if(NOT gw_py_dir)
    execute_process(COMMAND python3 -c \"import sys; print('%d.%d' % sys.version_info[:2])\"
                    OUTPUT_VARIABLE gw_py_ver OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE gw_rc)
    if(NOT gw_rc EQUAL 0 OR NOT gw_py_ver)
      set(gw_py_ver 3)
    endif()
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(gw_py_dir \"/usr/lib/python3/dist-packages\")
    elseif(CMAKE_INSTALL_PREFIX STREQUAL \"/usr/local\")
      set(gw_py_dir \"/usr/local/lib/python\${gw_py_ver}/dist-packages\")
    else()
      set(gw_py_dir \"\${CMAKE_INSTALL_PREFIX}/lib/python\${gw_py_ver}/site-packages\")
    endif()
  endif()
  file(INSTALL DESTINATION \"\${gw_py_dir}\" TYPE FILE
       FILES \"${CMAKE_SOURCE_DIR}/python/gpuwatch.py\")
" COMPONENT python)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/deb/copyright
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/python3-gpuwatch COMPONENT python)

# ---- the .deb (CPack's DEB generator) ----
set(GW_DEB_MAINTAINER "gpuwatch maintainers <maintainers@users.noreply.a-seed-69d03d1f.example>")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpuwatch)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${GW_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(GW_DEB_VERSION "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The synopsis is the project's DESCRIPTION; this is the extended description (lines < 80).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "gpuwatch wraps a training command (gpuwatch run) and records every GPU
(utilisation, memory, temperature, power, clocks and throttle reasons, GPM
SM/tensor/DRAM activity, per-process memory) and the job's CPU side, then tells
with evidence whether the GPU was busy and, if not, why. It also reads
nvidia-smi CSV logs, draws charts, checks GPU health with Nagios exit codes and
serves Prometheus metrics with dcgm-exporter's names (gpuwatch serve; its
systemd unit is installed, not enabled). NVML comes with the NVIDIA driver.")
# Depends: the shared libraries the binary links (dpkg-shlibdeps: libc6, libcjson1, libinih1,
# libncursesw6, libtinfo6), plus libmicrohttpd12, which `serve` and `run --listen` dlopen()
# (src/http/mhd_dl.c): serving metrics is what the shipped systemd unit does, so it is a
# dependency. The PodResources module (serve --kubernetes) brings libgrpc29 and libprotobuf-c1
# through dpkg-shlibdeps: the node-agent image needs them and installs without recommends.
# Recommends: cairo and a font, dlopen()ed by `gpuwatch plot` alone (src/plot/cairo_dl.c), and
# libcurl4, dlopen()ed by `report --fleet` over Prometheus alone (src/fleet/curl_dl.c); both
# say what to install when the library is missing.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_MAIN_PACKAGE_RECOMMENDS
    "libmicrohttpd12 (>= 0.9.75), libcairo2, fonts-dejavu-core, libcurl4")
# Two packages (issue 27): gpuwatch, whose Depends are what dpkg-shlibdeps finds the binary
# links (libc6, libcjson1, libinih1, libncursesw6, libtinfo6) and nothing else; and
# gpuwatch-kubernetes, the PodResources module of `serve --kubernetes` with gRPC and protobuf-c
# (dpkg-shlibdeps) and libmicrohttpd12 (serve). libmicrohttpd12, dlopen()ed by serve and
# run --listen, cairo and a font (plot) and libcurl4 (report --fleet over Prometheus) are
# Recommends: each command says what to install when its library is missing.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL main)
if(TARGET podres)
  list(APPEND CPACK_COMPONENTS_ALL kubernetes)
endif()
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME gpuwatch)
set(CPACK_DEBIAN_KUBERNETES_PACKAGE_NAME gpuwatch-kubernetes)
set(CPACK_DEBIAN_MAIN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_KUBERNETES_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_KUBERNETES_PACKAGE_DEPENDS "gpuwatch (= ${GW_DEB_VERSION}), libmicrohttpd12 (>= 0.9.75)")
set(CPACK_DEBIAN_KUBERNETES_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_MAIN_DESCRIPTION "${CPACK_DEBIAN_PACKAGE_DESCRIPTION}")
set(CPACK_COMPONENT_KUBERNETES_DESCRIPTION "kubelet PodResources client of gpuwatch serve --kubernetes
The module that lets `gpuwatch serve --kubernetes` label each GPU's
metrics with the pod, namespace and container using it, from the
kubelet's PodResources API (gRPC). Only the node agent needs it; it
brings gRPC's C core and protobuf-c.")
# python3-gpuwatch: the marker module, where Debian's python3 finds packaged modules.
list(APPEND CPACK_COMPONENTS_ALL python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-gpuwatch)
set(CPACK_DEBIAN_PYTHON_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3:any")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)
set(CPACK_COMPONENT_PYTHON_DESCRIPTION "markers for gpuwatch from Python training scripts
The module gpuwatch (one file, no dependencies): gpuwatch.mark() inside
`gpuwatch run` puts epochs, steps and any event with its fields on the
timeline of the GPU recording (docs/markers.md of gpuwatch).")
set(CPACK_DEBIAN_MAIN_PACKAGE_SUGGESTS "python3-gpuwatch")
# Maintainer scripts: daemon-reload after install or upgrade, stop the service on removal (no
# postrm: dpkg -r then leaves nothing behind, there being no conffiles either).
set(CPACK_DEBIAN_MAIN_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/packaging/deb/postinst
    ${CMAKE_SOURCE_DIR}/packaging/deb/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

# Debian's changelog.Debian.gz (policy 12.7), for the package only: dated by SOURCE_DATE_EPOCH
# when set, and gzip -n, so the same sources give the same file.
string(TIMESTAMP GW_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${CMAKE_SOURCE_DIR}/packaging/deb/changelog.in ${CMAKE_BINARY_DIR}/deb/changelog.Debian
               @ONLY)
set(GW_DEB_CHANGELOG_GZ ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz)
configure_file(${CMAKE_SOURCE_DIR}/packaging/deb/add-files.cmake.in
               ${CMAKE_BINARY_DIR}/deb/add-files.cmake @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_BINARY_DIR}/deb/add-files.cmake)

include(CPack)
