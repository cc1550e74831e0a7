#include "calibrate/app/progress_line.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

namespace edgetwin::calibrate {

namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(std::max(0.0, seconds) + 0.5);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

ProgressLine::ProgressLine(bool enabled, std::ostream& out, bool terminal)
    : enabled_(enabled), out_(out), terminal_(terminal), start_(Clock::now()), step_start_(start_) {}

void ProgressLine::set_steps(std::vector<std::pair<std::string, double>> steps) { steps_ = std::move(steps); }

std::size_t ProgressLine::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].first == name) return i;
  }
  return steps_.size();
}

void ProgressLine::begin_step(const std::string& name, std::int64_t units) {
  current_name_ = name;
  current_ = index_of(name);
  units_ = units;
  done_ = 0;
  step_start_ = Clock::now();
  draw(true);
}

void ProgressLine::advance(std::int64_t units) {
  done_ += units;
  draw(false);
}

void ProgressLine::on_batch(const MeasuredBatch& batch) {
  (void)batch;
  advance(1);
}

void ProgressLine::end_step() {
  if (current_ < steps_.size()) {
    finished_estimate_s_ += steps_[current_].second;
    finished_actual_s_ += std::chrono::duration<double>(Clock::now() - step_start_).count();
    steps_[current_].second = 0;  // done: nothing of it is left
  }
  units_ = done_ = 0;
}

double ProgressLine::elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

double ProgressLine::eta_s() const {
  double left = 0;
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    double estimate = steps_[i].second;
    if (i == current_ && units_ > 0) estimate *= 1.0 - std::min(1.0, static_cast<double>(done_) / units_);
    left += estimate;
  }
  const double pace = finished_estimate_s_ > 0 ? finished_actual_s_ / finished_estimate_s_ : 1.0;
  return left * std::clamp(pace, 0.2, 5.0);
}

void ProgressLine::draw(bool force) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const double since = std::chrono::duration<double>(now - last_draw_).count();
  if (!force && since < (terminal_ ? 0.5 : 5.0)) return;
  last_draw_ = now;
  const std::string counts = units_ > 0 ? fmt::format(" {}/{}", done_, units_) : "";
  const std::string line = fmt::format("[calibrate] {}{}  elapsed {}  ETA {}", current_name_, counts,
                                       clock_text(elapsed_s()), clock_text(eta_s()));
  if (terminal_) {
    out_ << '\r' << line << "\033[K" << std::flush;
  } else {
    out_ << line << '\n' << std::flush;
  }
}

void ProgressLine::finish() {
  if (enabled_ && terminal_) out_ << '\r' << "\033[K" << std::flush;
}

}  // namespace edgetwin::calibrate
