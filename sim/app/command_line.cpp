#include "sim/app/command_line.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "sim/app/child_process.hpp"
#include "sim/app/termination.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return std::nullopt;
}

CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator([what](std::string& value) { return value.empty() ? "expected " + what + ", got \"\"" : std::string(); },
                        "NAME");
}

namespace {

// Output to a full disk or a closed descriptor fails only when the buffer goes out: at the
// end, not at the write. A program whose standard output did not arrive must say so.
std::optional<std::string> standard_output_problem() {
  errno = 0;
  std::cout.flush();  // synchronised with stdio: may be where the buffer goes out and fails
  int error = errno;
  const bool flushed = std::fflush(stdout) == 0;
  if (error == 0) error = errno;
  const bool clean = flushed && !std::ferror(stdout) && std::cout.good();
  const bool closed = std::fclose(stdout) == 0;
  if (error == 0) error = errno;
  if (clean && closed) return std::nullopt;
  return std::string("cannot write to standard output: ") + (error != 0 ? std::strerror(error) : "write error");
}

int reported(const std::string& program, const std::function<int()>& command,
             const std::function<std::optional<std::string>()>& more_input_errors) {
  try {
    return command();
  } catch (const Interrupted& e) {
    std::cerr << program << ": " << e.what() << '\n';
    return e.exit_code();
  } catch (const ConfigError& e) {
    std::cerr << e.what() << '\n';
  } catch (const std::invalid_argument& e) {
    std::cerr << program << ": " << e.what() << '\n';
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << program << ": " << e.what() << '\n';
  } catch (const std::exception& e) {
    const std::optional<std::string> input_error = more_input_errors ? more_input_errors() : std::nullopt;
    if (!input_error) {
      std::cerr << program << ": " << e.what() << '\n';
      return 1;
    }
    std::cerr << program << ": " << *input_error << '\n';
  }
  return 2;
}

}  // namespace

int run_command_reporting_errors(const std::string& program, const std::function<int()>& command,
                                 const std::function<std::optional<std::string>()>& more_input_errors) {
  // Held until the process ends, never released: a signal while LibTorch's libraries tear down
  // after main() must still end the program with 128 + signal, not by the signal itself.
  static const ExitOnTermination* const exit_on_termination = new ExitOnTermination();
  (void)exit_on_termination;
  const int code = reported(program, command, more_input_errors);
  if (const auto problem = standard_output_problem()) {
    std::cerr << program << ": " << *problem << '\n';
    return code != 0 ? code : 1;
  }
  return code;
}

}  // namespace edgetwin
