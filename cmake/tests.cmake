# Unit tests (cmocka): one executable per tests/unit/test_*.c, linked against gwcore.
pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
set(GW_TEST_ENV
    "GPUWATCH_BIN=${CMAKE_BINARY_DIR}/gpuwatch"
    "GPUWATCH_FAKE_NVML=${CMAKE_BINARY_DIR}/fake-nvml/libnvidia-ml.so.1"
    "GPUWATCH_SOURCE=${CMAKE_SOURCE_DIR}"
    "GPUWATCH_BUILD=${CMAKE_BINARY_DIR}")

file(GLOB GW_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
foreach(src ${GW_UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/unit)
  target_link_libraries(${name} PRIVATE gwcore PkgConfig::CMOCKA)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME unit.${name} COMMAND ${name})
  set_tests_properties(unit.${name} PROPERTIES TIMEOUT 300 ENVIRONMENT
    "${GW_TEST_ENV};CMOCKA_MESSAGE_OUTPUT=xml;CMOCKA_XML_FILE=${CMAKE_BINARY_DIR}/test-results/unit.${name}.xml")
endforeach()

# Command-line tests (pytest, Debian's python3-pytest): one ctest entry per tests/cli/test_*.py.
find_program(GW_PYTEST NAMES pytest-3 pytest REQUIRED)
file(GLOB GW_CLI_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cli/test_*.py)
foreach(src ${GW_CLI_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME cli.${name} COMMAND ${GW_PYTEST} -q -p no:cacheprovider
           --junitxml=${CMAKE_BINARY_DIR}/test-results/cli.${name}.xml ${src}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli.${name} PROPERTIES ENVIRONMENT "${GW_TEST_ENV}" TIMEOUT 600)
endforeach()
# debootstrap + buildah bud of the Containerfile: about 5 minutes on two busy cores.
set_tests_properties(cli.test_container PROPERTIES TIMEOUT 1200)
# The longest tests start first: scripts/test.sh runs both builds' tests side by side, and a long
# test started last would run alone at the end. COST is seconds on an idle 2-core machine (ctest
# uses its own measurements, Testing/Temporary/CTestCostData.txt, once it has them).
foreach(cost cli.test_alerts_cli=60 cli.test_trainer_logs=55 cli.test_run_cli=40
             cli.test_inproc=35 cli.test_serve_http=33 cli.test_serve=32 cli.test_html_report=30
             cli.test_job=26 cli.test_alerts_job_scope=25 cli.test_starved_causes=24
             cli.test_hostile_input=22 cli.test_job_scope=20 cli.test_serve_kubernetes=17
             cli.test_fleet=15 cli.test_80_columns=14 cli.test_top=14 cli.test_serve_jobmap=12
             cli.test_lifecycle=12 cli.test_run_dir_safety=11 cli.test_live=11
             cli.test_inproc_pythons=11 cli.test_progress_replay=10)
  string(REPLACE "=" ";" cost ${cost})
  list(GET cost 0 name)
  list(GET cost 1 seconds)
  set_tests_properties(${name} PROPERTIES COST ${seconds})
endforeach()
# Labels for scripts/test.sh (docs/style.md "Tests"):
# - system: installing and deploying for real (the image built with buildah, the .deb installed
#   with dpkg, a real Slurm). Minutes each and they change the machine; they skip themselves in the
#   sanitizer build. `scripts/test.sh --system` (what .ci/run calls) runs them once, in the
#   background, beside the other tests.
# - once: checks of generated text and scripts (man pages, deploy files, Slurm scripts, the layer
#   rules) that run the same code in both builds: the normal build runs them, the sanitizer build
#   does not.
set_tests_properties(cli.test_container cli.test_package cli.test_slurm PROPERTIES LABELS system)
set_tests_properties(cli.test_manpages cli.test_deploy cli.test_kubernetes_deploy
                     cli.test_slurm_scripts cli.test_layers PROPERTIES LABELS once)

# The layering of src/ (docs/architecture.md): upward includes and NVML outside src/nvml and
# src/sampler fail the build's tests. tests/cli/test_layers.py runs it too (counted in the summary)
# and proves that it catches each rule.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME lint.check_layers COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-layers.py
         ${CMAKE_SOURCE_DIR}/src)
set_tests_properties(lint.check_layers PROPERTIES LABELS once)
