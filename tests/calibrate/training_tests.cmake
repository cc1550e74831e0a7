# Tests of the LibTorch half of calibrate. One binary links LibTorch (models, transforms,
# loader, runner; label "unit"); the end-to-end test runs the edgetwin-calibrate and edgetwin
# binaries as a user would and needs no torch header (label "e2e").
set(EDGETWIN_TRAINING_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
# LibTorch's imported targets are local to the directory that finds them; edgetwin_training
# links them, so every directory linking it finds Torch too.
find_package(Torch REQUIRED)

edgetwin_add_test(calibrate_training_test
  SOURCES
    ${EDGETWIN_TRAINING_TEST_DIR}/training_models_test.cpp
    ${EDGETWIN_TRAINING_TEST_DIR}/training_pipeline_test.cpp
    ${EDGETWIN_TRAINING_TEST_DIR}/training_runner_test.cpp
    ${EDGETWIN_TRAINING_TEST_DIR}/training_app_test.cpp
    ${EDGETWIN_TRAINING_TEST_DIR}/training_disturbance_guard_test.cpp
  LIBS edgetwin_calibrate_app edgetwin_training)

# End to end through the two programs; no torch header, so it compiles in seconds.
edgetwin_add_test(calibrate_training_e2e_test
  SOURCES ${EDGETWIN_TRAINING_TEST_DIR}/training_e2e_test.cpp
  LIBS nlohmann_json::nlohmann_json
  LABEL e2e
  SERIAL)
edgetwin_runnable_program(edgetwin_calibrate_binary edgetwin-calibrate)
edgetwin_runnable_program(edgetwin_binary edgetwin)
target_compile_definitions(calibrate_training_e2e_test PRIVATE
  EDGETWIN_CALIBRATE_BIN="${edgetwin_calibrate_binary}"
  EDGETWIN_BIN="${edgetwin_binary}")
add_dependencies(calibrate_training_e2e_test edgetwin-calibrate edgetwin)
