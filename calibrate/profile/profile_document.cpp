#include "calibrate/profile/profile_document.hpp"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

namespace edgetwin::calibrate {

std::string iso_utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec);
}

}  // namespace edgetwin::calibrate
