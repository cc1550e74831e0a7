# Tests of the calibrate parts without LibTorch: datasets, hardware (fake sysfs trees), profile
# writer (round trip through the simulator's loader) and import. Fast; label "unit".
set(EDGETWIN_IO_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

edgetwin_add_test(calibrate_datasets_test
  SOURCES
    ${EDGETWIN_IO_TEST_DIR}/datasets_mnist_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/datasets_cifar_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/datasets_jpeg_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/datasets_synthetic_test.cpp
  LIBS edgetwin_datasets)

edgetwin_add_test(calibrate_hardware_test
  SOURCES
    ${EDGETWIN_IO_TEST_DIR}/hardware_page_cache_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/hardware_affinity_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/hardware_clock_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/hardware_power_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/hardware_host_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/hardware_spinning_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/hardware_placement_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/hardware_load_watch_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/hardware_host_speed_test.cpp
  LIBS edgetwin_hardware)

edgetwin_add_test(calibrate_profile_writer_test
  SOURCES
    ${EDGETWIN_IO_TEST_DIR}/profile_writer_text_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/profile_writer_roundtrip_test.cpp
  LIBS edgetwin_profile_writer edgetwin_config)

edgetwin_add_test(calibrate_import_test
  SOURCES
    ${EDGETWIN_IO_TEST_DIR}/import_trace_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/import_study_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/import_bounds_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/import_contention_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/import_disturbance_test.cpp
  LIBS edgetwin_import edgetwin_profile_writer edgetwin_config GTest::gmock)

# What an import writes, held to what predict takes (links the simulator's app library).
edgetwin_add_test(calibrate_import_check_test
  SOURCES
    ${EDGETWIN_IO_TEST_DIR}/import_acceptance_test.cpp
    ${EDGETWIN_IO_TEST_DIR}/import_machine_terms_test.cpp
  LIBS edgetwin_import_check GTest::gmock)
