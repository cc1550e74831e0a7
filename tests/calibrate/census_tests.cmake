# Tests of edgetwin-calibrate census: the counting rules and census building without LibTorch
# (fast), and censuses of real models from traced steps (one torch translation unit).
set(EDGETWIN_CENSUS_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

edgetwin_add_test(calibrate_census_rules_test
  SOURCES
    ${EDGETWIN_CENSUS_TEST_DIR}/census_rules_test.cpp
    ${EDGETWIN_CENSUS_TEST_DIR}/census_tables_test.cpp
  LIBS edgetwin_census_core)

find_package(Torch REQUIRED)
edgetwin_add_test(calibrate_census_models_test
  SOURCES ${EDGETWIN_CENSUS_TEST_DIR}/census_models_test.cpp
  LIBS edgetwin_census edgetwin_training)
